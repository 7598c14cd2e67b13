// Holds bench/train/tfjs_transformer.mjs to PyTorch's golden values before the benchmark
// trusts it: for every case of the fixture (made by make_transformer_fixture.py), the loss,
// the logits and every gradient from the case's initial parameters; then the fixture's three
// AdamW steps (warm-up, clipping, weight decay) and the parameters after each.
//
//   node bench/train/check_tfjs.mjs [fixture.json]    (default: /work/torch-oracle/transformer-torch.json)
//
// Prints the max abs difference of each quantity per case and exits 1 if any exceeds its
// tolerance. Tolerances are for float32 arithmetic against float64 golden values.
import { readFileSync } from 'node:fs';
import { createTfjsTransformer } from './tfjs_transformer.mjs';

const DEFAULT_FIXTURE = '/work/torch-oracle/transformer-torch.json';
const RELATIVE_TOLERANCE = 1e-4;  // of the largest |value| of the quantity compared (at least 1)
const PARAMETER_TOLERANCE = 1e-5;  // absolute, on parameters after AdamW steps

// max |a − b| over two arrays of equal length.
function maxAbsDifference(a, b) {
  if (a.length !== b.length) throw new Error(`comparing ${a.length} values with ${b.length}`);
  let worst = 0;
  for (let i = 0; i < a.length; ++i) worst = Math.max(worst, Math.abs(a[i] - b[i]));
  return worst;
}

const maxAbs = (values) => values.reduce((worst, x) => Math.max(worst, Math.abs(x)), 0);

const parametersOf = (matrices) =>
  Object.fromEntries(Object.entries(matrices).map(([name, { data }]) => [name, Float32Array.from(data)]));

const batchOf = (entry) => ({
  tokens: Int32Array.from(entry.tokens), batch: entry.batch, targets: Int32Array.from(entry.targets),
  answers: entry.answers, prefix: entry.prefix,
});

// {worst, name}: the largest difference over named matrices, and where it is.
function worstOver(names, actual, expected) {
  let worst = 0, where = '';
  for (const name of names) {
    const difference = maxAbsDifference(actual[name].data, expected[name].data);
    if (difference >= worst) [worst, where] = [difference, name];
  }
  return { worst, where };
}

async function checkCase(entry) {
  const model = await createTfjsTransformer(entry.config, parametersOf(entry.parameters));
  try {
    const batch = batchOf(entry);
    const { loss, gradients } = model.lossAndGradients(batch);
    const logits = model.logits(batch);
    const names = entry.parameterNames;
    const missing = names.filter((name) => !(name in gradients));
    if (missing.length > 0) throw new Error(`case ${entry.name}: no gradient for ${missing.join(', ')}`);
    const largestGradient = Math.max(...names.map((name) => maxAbs(entry.gradients[name].data)));
    const gradient = worstOver(names, gradients, entry.gradients);
    const result = {
      case: entry.name,
      loss: Math.abs(loss - entry.loss),
      logits: maxAbsDifference(logits.data, entry.logits.data),
      gradients: gradient.worst,
      worstGradient: gradient.where,
      largestGradient,
    };
    result.pass = result.loss <= RELATIVE_TOLERANCE * Math.max(1, Math.abs(entry.loss)) &&
      result.logits <= RELATIVE_TOLERANCE * Math.max(1, maxAbs(entry.logits.data)) &&
      result.gradients <= RELATIVE_TOLERANCE * largestGradient;
    return result;
  } finally {
    model.dispose();
  }
}

async function checkAdamW(fixture) {
  const { adamw } = fixture;
  const entry = fixture.cases.find(({ name }) => name === adamw.case);
  const { betas, weightDecay, clip } = adamw.optimizer;
  const model = await createTfjsTransformer(entry.config, parametersOf(entry.parameters), { betas, weightDecay, clip });
  try {
    const results = adamw.steps.map(({ step, learningRate, loss: expectedLoss }) => {
      const loss = model.step(batchOf(entry), learningRate);
      const parameters = model.getParameters();
      const { worst, where } = worstOver(entry.parameterNames, parameters, adamw.parametersAfterStep[step]);
      const result = { step, loss: Math.abs(loss - expectedLoss), parameters: worst, worstParameter: where };
      result.pass = result.loss <= RELATIVE_TOLERANCE * Math.max(1, Math.abs(expectedLoss)) &&
        result.parameters <= PARAMETER_TOLERANCE;
      return result;
    });
    // the loss from the parameters after the last step
    const loss = model.lossAndGradients(batchOf(entry)).loss;
    const difference = Math.abs(loss - adamw.lossAfter);
    results.push({ step: 'after', loss: difference, pass: difference <= RELATIVE_TOLERANCE * Math.max(1, adamw.lossAfter) });
    return results;
  } finally {
    model.dispose();
  }
}

const format = (x) => x.toExponential(2);

async function main() {
  const path = process.argv[2] ?? DEFAULT_FIXTURE;
  const fixture = JSON.parse(readFileSync(path, 'utf8'));
  console.log(`TensorFlow.js transformer against ${path} (PyTorch ${fixture.torch})`);
  console.log(`tolerance: ${RELATIVE_TOLERANCE} × the largest |value| (loss, logits: at least 1); parameters ${PARAMETER_TOLERANCE}`);
  let failures = 0;
  for (const entry of fixture.cases) {
    const r = await checkCase(entry);
    failures += r.pass ? 0 : 1;
    console.log(`case ${r.case} ${r.pass ? 'pass' : 'FAIL'}  max|Δ| loss ${format(r.loss)}  logits ${format(r.logits)}  ` +
      `gradients ${format(r.gradients)} (${r.worstGradient}; largest |gradient| ${format(r.largestGradient)})  ${entry.description}`);
  }
  for (const r of await checkAdamW(fixture)) {
    failures += r.pass ? 0 : 1;
    const parameters = r.parameters === undefined ? '' :
      `  parameters after the step ${format(r.parameters)} (${r.worstParameter})`;
    console.log(`adamw ${r.step === 'after' ? 'loss after the steps' : `step ${r.step}`} ${r.pass ? 'pass' : 'FAIL'}  ` +
      `max|Δ| loss ${format(r.loss)}${parameters}`);
  }
  if (failures > 0) {
    console.error(`${failures} check(s) failed`);
    process.exitCode = 1;
  } else {
    console.log('all checks pass');
  }
}

await main();
