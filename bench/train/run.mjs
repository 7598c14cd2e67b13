// The training part of `npm run bench` (issue #12, "Speed"), all in one Node process, one thread:
//   default run   engine.trainRetrieval() with its defaults (wasm/attention.d.ts: retrieval with
//                 16 pairs of 32 keys and 32 values, 2 layers, dModel 32, 2 heads, no MLP, RoPE,
//                 batch 64, 1,400 steps, a checkpoint every 100 steps on 2,048 held-out
//                 sequences, then one evaluation after training: the Train page's RoPE preset;
//                 the page's default run is the same with ALiBi), after a short warm-up run;
//                 target: under 20 s. The evaluations' share is estimated from more evaluations
//                 of the trained model (engine.evaluateRetrieval, the trainer's own measure).
//   native        the same run natively (build/native/bench/bench_train, from native_train.cpp)
//   side by side  the default model (seed 0) and TensorFlow.js's (tfjs_transformer.mjs, its wasm
//                 backend) from the same initial parameters, on the same batches
//                 (engine.retrievalBatch, fixed seeds): the engine steps through
//                 engine.createOptimizer, TF.js through its own AdamW at the engine's learning rate
//                 of that step. The losses must agree step by step over the first CHECK_STEPS
//                 steps; then steps alternate (engine, TF.js) and the medians are compared;
//                 target: the engine at least 3× faster per step. TF.js is first held to PyTorch
//                 (check_tfjs.mjs) and its numbers are not reported if that fails.
// GFLOP/s counts 6 × parameters × tokens (a forward and a backward), where parameters are the
// model's non-embedding ones (all but embedding.weight and positional.weight) and tokens are
// steps × batch × length.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import createAttention from '../../dist/wasm/attention.mjs';
import { checkTfjs } from './check_tfjs.mjs';
import { getThreadsCount } from '@tensorflow/tfjs-backend-wasm';
import { loadTensorFlow } from '../tfjs.mjs';
import { createTfjsTransformer } from './tfjs_transformer.mjs';

const TARGET_SECONDS = 20;       // the default run, in Node
const TARGET_SPEEDUP = 3;        // engine over TF.js, per step
// The defaults of engine.trainRetrieval (wasm/attention.d.ts: TaskOptions, TrainingOptions),
// given explicitly to the side-by-side run.
const TASK = { pairs: 16, keys: 32, values: 32 };
const VOCAB = TASK.keys + TASK.values + 3;  // keys, values, SEP and the two cues
const TRAINING = { learningRate: 1e-2, warmup: 100, betas: [0.9, 0.98], clip: 1, weightDecay: 0 };
const BATCH = 64;
const MODEL_SEED = 0;
const EMBEDDING_PARAMETERS = ['embedding.weight', 'positional.weight'];
const WARMUP_RUN = { training: { steps: 40 }, evaluation: { every: 20 } };  // every kernel, both tiers
const EVALUATION_ROUNDS = 5;     // evaluations of the trained model, timed for their share
const CHECK_STEPS = 10;          // side by side: losses compared step by step
const LOSS_TOLERANCE = 1e-3;     // |Δ| ≤ LOSS_TOLERANCE × loss (float32 on both sides)
const WARMUP_STEPS = 10;         // side by side, after the checked steps, untimed
const TIMED_STEPS = 60;          // side by side, each
const BATCH_SEED = 1000;         // the side-by-side run's batch i has seed BATCH_SEED + i

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const cpuSeconds = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
};

// {total, nonEmbedding, embedding}: parameter counts of a model.
function countParameters(model) {
  const counts = { total: 0, nonEmbedding: 0, embedding: 0 };
  for (const name of model.parameterNames()) {
    const size = model.getParameter(name).data.length;
    counts.total += size;
    counts[EMBEDDING_PARAMETERS.includes(name) ? 'embedding' : 'nonEmbedding'] += size;
  }
  return counts;
}

// The default run in this process, {run, parameters}: its seconds and what they bought, one
// evaluation's seconds; the parameter counts of the model it trained.
function runDefault(engine) {
  engine.trainRetrieval(WARMUP_RUN).model.delete();
  const cpuStart = cpuSeconds();
  const { checkpoints, evaluations, model, seconds } = engine.trainRetrieval();
  const cpu = cpuSeconds() - cpuStart;
  try {
    const times = [];
    for (let round = 0; round < EVALUATION_ROUNDS; ++round) {
      const start = performance.now();
      engine.evaluateRetrieval(model);
      times.push((performance.now() - start) / 1000);
    }
    const steps = checkpoints.at(-1).step;
    const { length } = engine.retrievalBatch();  // a sequence of the default task: k1 v1 … kk vk SEP q
    const run = {
      seconds, cpuSeconds: cpu, steps, batch: BATCH, length,
      evaluations: checkpoints.length + evaluations.length, evaluationSeconds: median(times),
      accuracy: evaluations[0].accuracy,
    };
    return { run, parameters: countParameters(model) };
  } finally {
    model.delete();
  }
}

function runNative(root) {
  return JSON.parse(execFileSync(join(root, 'build/native/bench/bench_train'), { encoding: 'utf8' }));
}

// The engine and TF.js from the same initial parameters on the same batches: the losses of the
// first CHECK_STEPS steps compared, then ms per step of each, interleaved.
async function runSideBySide(engine) {
  const tf = await loadTensorFlow();
  const model = engine.createTransformer({ vocab: VOCAB, outputs: TASK.values, seed: MODEL_SEED });
  const parameters = Object.fromEntries(model.parameterNames().map((name) => [name, model.getParameter(name)]));
  const { betas, clip, weightDecay } = TRAINING;
  const peer = await createTfjsTransformer(model.config, parameters, { betas, clip, weightDecay });
  const optimizer = engine.createOptimizer(model, TRAINING);
  try {
    const batches = Array.from({ length: CHECK_STEPS + WARMUP_STEPS + TIMED_STEPS }, (_, i) => {
      const { tokens, targets, batch } = engine.retrievalBatch({ task: TASK, batch: BATCH, seed: BATCH_SEED + i });
      return { tokens, targets, batch, answers: 1, prefix: 0 };
    });
    const losses = [];
    const engineMs = [], peerMs = [];
    let tensorsBefore = 0;  // TF.js's live tensors when timing starts: a leak would slow its steps
    batches.forEach((batch, i) => {
      if (i === CHECK_STEPS + WARMUP_STEPS) tensorsBefore = tf.memory().numTensors;
      let start = performance.now();
      const { loss, learningRate } = optimizer.step(batch);
      const engineTime = performance.now() - start;
      start = performance.now();
      const peerLoss = peer.step(batch, learningRate);
      const peerTime = performance.now() - start;
      losses.push({ step: i, engine: loss, tfjs: peerLoss });
      if (i >= CHECK_STEPS + WARMUP_STEPS) {
        engineMs.push(engineTime);
        peerMs.push(peerTime);
      }
      if (i === CHECK_STEPS - 1) checkLosses(losses);
    });
    const worst = losses.slice(0, CHECK_STEPS).reduce((max, { engine, tfjs }) => Math.max(max, Math.abs(engine - tfjs) / engine), 0);
    return {
      tfjs: { version: tf.version_core, backend: tf.getBackend(), simd: await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT'), threads: getThreadsCount() },
      checkSteps: CHECK_STEPS, lossTolerance: LOSS_TOLERANCE, worstRelativeLossDifference: worst,
      lossesAfter: { step: losses.length, engine: losses.at(-1).engine, tfjs: losses.at(-1).tfjs },
      warmupSteps: CHECK_STEPS + WARMUP_STEPS, timedSteps: TIMED_STEPS,
      engineMsPerStep: median(engineMs), tfjsMsPerStep: median(peerMs),
      tfjsTensors: { before: tensorsBefore, after: tf.memory().numTensors },
      tokensPerStep: batches[0].tokens.length,
    };
  } finally {
    optimizer.delete();
    model.delete();
    peer.dispose();
  }
}

// Throws, naming the step, unless the engine's and TF.js's losses agree step by step.
function checkLosses(losses) {
  for (const { step, engine, tfjs } of losses) {
    if (!(Math.abs(engine - tfjs) <= LOSS_TOLERANCE * Math.abs(engine))) {
      const table = losses.map((l) => `  step ${l.step}: engine ${l.engine}, TF.js ${l.tfjs}`).join('\n');
      throw new Error(`the engine's and TF.js's losses differ at step ${step} by more than ${LOSS_TOLERANCE} × the loss ` +
        `(engine ${engine}, TF.js ${tfjs}): they do not train the same model on the same batches\n${table}`);
    }
  }
}

// {results, table}: the training benchmark's numbers and its markdown.
export async function runTrainingBenchmark({ root, machine }) {
  const engine = await createAttention();
  console.error('bench: training, the default run in Node');
  const { run: node, parameters } = runDefault(engine);
  console.error(`bench: ${node.seconds.toFixed(2)} s; the default run natively`);
  const native = runNative(root);
  console.error(`bench: ${native.seconds.toFixed(2)} s; TF.js against PyTorch's golden values`);
  const check = await checkTfjs();
  for (const line of check.lines) console.error(`bench:   ${line}`);
  let sideBySide = null;
  if (check.pass) {
    console.error('bench: the engine and TF.js side by side');
    sideBySide = await runSideBySide(engine);
  } else {
    process.exitCode = 1;
  }
  const results = {
    parameters, node, native, tfjsCheck: { pass: check.pass, failures: check.failures, checks: check.checks },
    sideBySide,
    targets: {
      seconds: { target: TARGET_SECONDS, measured: node.seconds, met: node.seconds < TARGET_SECONDS },
      speedup: sideBySide === null ? null : {
        target: TARGET_SPEEDUP, measured: sideBySide.tfjsMsPerStep / sideBySide.engineMsPerStep,
        met: sideBySide.tfjsMsPerStep / sideBySide.engineMsPerStep >= TARGET_SPEEDUP,
      },
    },
  };
  return { results, table: trainingTable(results, machine, check) };
}

function trainingTable({ parameters, node, native, sideBySide, targets }, machine, check) {
  const integer = (x) => Math.round(x).toLocaleString('en-US');
  const flopsPerToken = 6 * parameters.nonEmbedding;
  // wasm: the row is a share of the wasm peak too
  const runRow = (where, run, wasm) => {
    const tokens = run.steps * run.batch * run.length;
    const gflops = (flopsPerToken * tokens) / run.seconds / 1e9;
    const evaluation = run.evaluations * run.evaluationSeconds;
    return `| ${where} | ${run.seconds.toFixed(2)} | ${run.cpuSeconds.toFixed(2)} | ${(run.steps / run.seconds).toFixed(1)} | ` +
      `${integer(tokens / run.seconds)} | ${gflops.toFixed(2)} | ${wasm ? (100 * gflops / machine.wasmPeakGflops).toFixed(0) : '—'} | ` +
      `${run.evaluations} × ${(1000 * run.evaluationSeconds).toFixed(0)} ms = ${evaluation.toFixed(2)} s (${(100 * evaluation / run.seconds).toFixed(0)}%) | ` +
      `${run.accuracy.toFixed(3)} |`;
  };
  const lines = [
    `The default run: ${node.steps.toLocaleString('en-US')} steps of ${node.batch} sequences × ${node.length} tokens, ` +
      `${integer(parameters.nonEmbedding)} non-embedding parameters (${integer(parameters.total)} in all), one thread.`,
    '',
    '| default run | s | CPU s | steps/s | tokens/s | GFLOP/s | % of wasm peak | evaluations (2,048 sequences) | accuracy |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    runRow('engine, wasm in Node (`trainRetrieval()`)', node, true),
    runRow('engine, native (`bench_train`, g++ -march=native)', native, false),
    '',
    `target < ${TARGET_SECONDS} s: ${targets.seconds.met ? 'met' : 'missed'} (${node.seconds.toFixed(2)} s)`,
    '',
  ];
  if (sideBySide === null) {
    lines.push(`TF.js: not reported, it failed its check against PyTorch (${check.failures} of ${check.checks} checks):`,
      ...check.lines.map((line) => `    ${line}`), '', `target ≥ ${TARGET_SPEEDUP}× TF.js: not measured`);
  } else {
    const s = sideBySide;
    const gflops = (ms) => (flopsPerToken * s.tokensPerStep) / (ms / 1000) / 1e9;
    const ratio = targets.speedup.measured;
    const tfjsName = `TF.js ${s.tfjs.version}, ${s.tfjs.backend} backend (${s.tfjs.simd ? 'SIMD' : 'no SIMD'}, ${s.tfjs.threads} thread${s.tfjs.threads === 1 ? '' : 's'})`;
    lines.push(
      `Side by side: the same model and initial parameters, the same batches, steps alternating; median of ${s.timedSteps} steps each after ${s.warmupSteps}.`,
      '',
      '| one training step | ms | tokens/s | GFLOP/s | × TF.js |',
      '|---|---:|---:|---:|---:|',
      `| engine, wasm (\`createOptimizer(model).step\`) | ${s.engineMsPerStep.toFixed(2)} | ${integer(s.tokensPerStep / (s.engineMsPerStep / 1000))} | ${gflops(s.engineMsPerStep).toFixed(2)} | ${ratio.toFixed(2)} |`,
      `| ${tfjsName} | ${s.tfjsMsPerStep.toFixed(2)} | ${integer(s.tokensPerStep / (s.tfjsMsPerStep / 1000))} | ${gflops(s.tfjsMsPerStep).toFixed(2)} | 1.00 |`,
      '',
      `target ≥ ${TARGET_SPEEDUP}× TF.js per step: ${targets.speedup.met ? 'met' : 'missed'} (${ratio.toFixed(2)}×)`,
      ...(s.tfjsTensors.after > s.tfjsTensors.before
        ? ['', `TF.js leaked tensors while timed (${s.tfjsTensors.before} → ${s.tfjsTensors.after}): its steps may be slower than they should`] : []),
      '',
      `Checks: TF.js agrees with PyTorch's golden values (${check.cases} configurations, ${check.adamwSteps} AdamW steps: ` +
        `${check.checks} checks pass); the engine's and TF.js's losses agree over the first ${s.checkSteps} steps ` +
        `(largest |Δ| ${s.worstRelativeLossDifference.toExponential(1)} × the loss, tolerance ${s.lossTolerance}; ` +
        `after ${s.lossesAfter.step} steps ${s.lossesAfter.engine.toFixed(4)} and ${s.lossesAfter.tfjs.toFixed(4)}).`,
    );
  }
  lines.push('',
    `GFLOP/s = 6 × ${integer(parameters.nonEmbedding)} parameters × tokens / s (a forward and a backward pass), ` +
    'tokens = steps × batch × length. The parameters counted are the non-embedding ones: all but ' +
    `embedding.weight (${integer(parameters.embedding)}; and positional.weight with learned positions), whose rows are looked up, ` +
    'not multiplied. The count leaves out attention\'s own products (q·kᵀ, weights·v) and the evaluations\' work, whose ' +
    'time the seconds include. CPU s: the process\'s CPU time over the run (the wall time is longer when other processes ' +
    `share the cores). An evaluation is timed on the trained model (median of ${EVALUATION_ROUNDS}); the run makes ` +
    `${node.evaluations}: one per checkpoint and one after training.`);
  return lines.join('\n');
}
