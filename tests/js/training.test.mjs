// The trainer through the JavaScript API (README "Train", TransformerModel and the training
// calls of wasm/attention.d.ts): PyTorch's golden values (tests/fixtures/torch/), the attention
// sublayer against engine.attention, a short run that learns, determinism, save and load,
// the held-out measures, batches of the task, and the optimiser.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import createAttention from '../../dist/wasm/attention.mjs';
import { assertArrayClose, errorOf, mulberry32 } from './reference.mjs';
import { questionsByPosition } from '../../web/train/intervals.js';

const engine = await createAttention();
const torch = JSON.parse(readFileSync(new URL('../fixtures/torch/transformer-torch.json', import.meta.url)));

// 4 pairs of 8 keys and 8 values, 2 layers of width 16: learnt in 300 steps.
const SMALL_RUN = {
  task: { pairs: 4, keys: 8, values: 8 },
  model: { dModel: 16 },
  training: { steps: 300, warmup: 20, batch: 32 },
  evaluation: { every: 100, sequences: 256, pairs: [4, 6] },
};

// The largest |actual − expected| of a flat array against a golden {data} or number[].
function maxDifference(actual, expected) {
  let worst = 0;
  for (let i = 0; i < expected.length; ++i) worst = Math.max(worst, Math.abs(actual[i] - expected[i]));
  return worst;
}
const largest = (values) => values.reduce((most, value) => Math.max(most, Math.abs(value)), 0);

// A model with a fixture case's configuration and parameters.
function modelOf(entry) {
  const model = engine.createTransformer(entry.config);
  for (const name of model.parameterNames()) model.setParameter(name, entry.parameters[name]);
  return model;
}

describe('createTransformer: the model of PyTorch', () => {
  test('defaults, and parameters named and shaped as PyTorch stores them', () => {
    const model = engine.createTransformer({ vocab: 67, outputs: 32 });
    assert.deepEqual(model.config, {
      vocab: 67, outputs: 32, layers: 2, dModel: 32, heads: 2, mlp: false,
      positional: { type: 'rope', base: 10000, pairing: 'interleaved' }, maxLength: 512, seed: 0,
    });
    assert.deepEqual(model.parameterNames(), [
      'embedding.weight', 'blocks.0.ln1.weight', 'blocks.0.ln1.bias', 'blocks.0.attention.qkv.weight',
      'blocks.0.attention.out.weight', 'blocks.1.ln1.weight', 'blocks.1.ln1.bias',
      'blocks.1.attention.qkv.weight', 'blocks.1.attention.out.weight', 'final_ln.weight', 'final_ln.bias',
      'head.weight', 'head.bias']);
    const shape = (name) => { const { rows, cols } = model.getParameter(name); return [rows, cols]; };
    assert.deepEqual(shape('embedding.weight'), [67, 32]);
    assert.deepEqual(shape('blocks.1.attention.qkv.weight'), [96, 32]);
    assert.deepEqual(shape('head.weight'), [32, 32]);
    assert.deepEqual(shape('head.bias'), [1, 32]);
    model.delete();
    const learned = engine.createTransformer({ vocab: 5, outputs: 2, mlp: true, positional: { type: 'learned' }, maxLength: 20 });
    assert.deepEqual(learned.getParameter('positional.weight').rows, 20);
    assert.ok(learned.parameterNames().includes('blocks.0.mlp.fc.bias'));
    learned.delete();
  });

  for (const entry of torch.cases) {
    test(`case ${entry.name} (${entry.description}): initial parameters, loss, logits, gradients and attention equal PyTorch's`, () => {
      const fresh = engine.createTransformer(entry.config);
      for (const name of fresh.parameterNames()) {
        assertArrayClose(fresh.getParameter(name).data, entry.parameters[name].data, { atol: 2e-6, label: name });
      }
      fresh.delete();
      const model = modelOf(entry);
      const batch = { tokens: entry.tokens, batch: entry.batch, targets: entry.targets, answers: entry.answers, prefix: entry.prefix };
      const { loss, gradients } = model.lossAndGradients(batch);
      assert.ok(Math.abs(loss - entry.loss) <= 2e-6 * entry.loss, `loss ${loss}, PyTorch ${entry.loss}`);
      for (const name of model.parameterNames()) {
        const golden = entry.gradients[name].data;
        const difference = maxDifference(gradients[name].data, golden);
        assert.ok(difference <= 1e-6 + 1e-5 * largest(golden), `${name}: gradient differs by ${difference}`);
      }
      const logits = model.logits({ tokens: entry.tokens, batch: entry.batch, answers: entry.answers, prefix: entry.prefix });
      assert.equal(logits.rows, entry.batch * entry.answers);
      assert.ok(maxDifference(logits.data, entry.logits.data) <= 1e-5 * Math.max(1, largest(entry.logits.data)));
      const { weights } = model.attention({ tokens: entry.tokens.slice(0, entry.length), prefix: entry.prefix });
      assert.deepEqual(weights.map((heads) => heads.length), entry.attention.map((heads) => heads.length), 'layers and heads');
      entry.attention.forEach((heads, l) => heads.forEach((golden, h) => {
        assert.equal(weights[l][h].rows, entry.length);
        assert.ok(maxDifference(weights[l][h].data, golden.data) <= 1e-6, `attention ${l}.${h}`);
      }));
      model.delete();
    });
  }
});

describe('the attention sublayer', () => {
  // x (T×C) → LayerNorm with the model's ln1 → x·Wqkvᵀ, in float64.
  function qkvOf(model, tokens) {
    const C = model.config.dModel;
    const table = model.getParameter('embedding.weight').data;
    const gain = model.getParameter('blocks.0.ln1.weight').data, shift = model.getParameter('blocks.0.ln1.bias').data;
    const wqkv = model.getParameter('blocks.0.attention.qkv.weight');
    const q = [], k = [], v = [];
    for (const token of tokens) {
      const x = Array.from(table.subarray(token * C, (token + 1) * C));
      const mean = x.reduce((a, b) => a + b) / C;
      const variance = x.reduce((a, b) => a + (b - mean) ** 2, 0) / C;
      const normed = x.map((value, c) => ((value - mean) / Math.sqrt(variance + 1e-5)) * gain[c] + shift[c]);
      const row = Array.from({ length: 3 * C }, (_, o) => normed.reduce((sum, value, c) => sum + value * wqkv.data[o * C + c], 0));
      q.push(row.slice(0, C));
      k.push(row.slice(C, 2 * C));
      v.push(row.slice(2 * C));
    }
    return { q, k, v };
  }

  for (const [label, positional, prefix] of [
    ['RoPE', { type: 'rope' }, 0], ['RoPE half pairing, base 100', { type: 'rope', pairing: 'half', base: 100 }, 0],
    ['ALiBi', { type: 'alibi' }, 0], ['no positions, a prefix of 5', { type: 'none' }, 5], ['ALiBi, a prefix of 4', { type: 'alibi' }, 4],
  ]) {
    test(`its weights equal engine.attention with the same options (${label})`, () => {
      const model = engine.createTransformer({ vocab: 20, outputs: 3, layers: 1, dModel: 12, heads: 3, positional, seed: 5 });
      const tokens = [3, 17, 4, 4, 0, 19, 8, 2, 11];
      const { q, k, v } = qkvOf(model, tokens);
      const expected = engine.attention(q, k, v, { heads: 3, causal: true, prefix, positional, kernel: 'materialized' });
      const { weights } = model.attention({ tokens, prefix });
      for (let h = 0; h < 3; ++h) {
        assert.ok(maxDifference(weights[0][h].data, expected.weights[h].data) <= 1e-5, `head ${h}`);
      }
      model.delete();
    });
  }
});

describe('training', () => {
  test('a short run learns the small task; progress at every checkpoint', () => {
    const seen = [];
    const { checkpoints, evaluations, model, seconds } = engine.trainRetrieval(SMALL_RUN, (checkpoint) => seen.push(checkpoint));
    assert.deepEqual(checkpoints.map((c) => c.step), [100, 200, 300]);
    assert.deepEqual(seen, checkpoints);
    assert.ok(checkpoints[0].loss > checkpoints[2].loss, 'the loss falls');
    assert.ok(checkpoints[2].accuracy > 0.9, `accuracy ${checkpoints[2].accuracy}`);
    assert.ok(checkpoints[2].accuracyByPosition instanceof Float64Array);
    assert.deepEqual(evaluations.map((e) => e.pairs), [4, 6]);
    assert.equal(evaluations[0].accuracy, checkpoints[2].accuracy);
    const { toValue, toKey, toFirst } = evaluations[1].attention;
    assert.equal(toValue.length, 2);
    assert.equal(toValue[1].length, 2);
    assert.equal(toValue[1][0].length, 6);
    for (let i = 1; i < 6; ++i) {
      assert.ok(toValue[1][0][i] + toKey[1][0][i] + toFirst[1][0][i] <= 1 + 1e-6);
    }
    assert.ok(seconds > 0);
    // the returned model answers as the run measured it
    assert.equal(engine.evaluateRetrieval(model, { task: SMALL_RUN.task, pairs: 6, sequences: 256 }).accuracy,
      evaluations[1].accuracy);
    model.delete();
  });

  test('a seed gives the same run twice; another seed another run', () => {
    const options = { ...SMALL_RUN, training: { ...SMALL_RUN.training, steps: 40 }, evaluation: { every: 20, sequences: 64 } };
    const first = engine.trainRetrieval(options), second = engine.trainRetrieval(options);
    assert.deepEqual(first.checkpoints, second.checkpoints);
    assert.deepEqual(first.model.getParameter('head.weight'), second.model.getParameter('head.weight'));
    const other = engine.trainRetrieval({ ...options, training: { ...options.training, seed: 7 } });
    assert.notEqual(other.checkpoints[1].loss, first.checkpoints[1].loss);
    for (const run of [first, second, other]) run.model.delete();
  });

  test('step by step: advance stops at checkpoints; the model outlives its trainer', () => {
    const trainer = engine.retrievalTrainer({ ...SMALL_RUN, training: { ...SMALL_RUN.training, steps: 25 }, evaluation: { every: 10, sequences: 32 } });
    assert.equal(trainer.steps, 25);
    assert.equal(trainer.advance(7), null);
    assert.equal(trainer.step, 7);
    assert.equal(trainer.advance(100).step, 10);
    assert.equal(trainer.advance(100).step, 20);
    assert.equal(trainer.advance(100).step, 25);
    assert.equal(trainer.finished, true);
    assert.equal(trainer.evaluate().pairs, 4);
    const model = trainer.model();
    trainer.delete();
    assert.match(errorOf(() => trainer.advance(1)).message, /this trainer was deleted/);
    assert.equal(model.logits({ tokens: [0, 8, 1, 9, 2, 10, 3, 11, 16, 2], batch: 1 }).cols, 8);
    model.delete();
    assert.equal(model.deleted, true);
    assert.match(errorOf(() => model.getParameter('head.bias')).message, /this model was deleted/);
  });

  test('stop: the steps since the last checkpoint make one due, with the numbers of a run that checkpoints there', () => {
    const options = (every) => ({ ...SMALL_RUN, training: { ...SMALL_RUN.training, steps: 25 }, evaluation: { every, sequences: 32 } });
    const trainer = engine.retrievalTrainer(options(10));
    const reference = engine.retrievalTrainer(options(7));  // checkpoints at step 7 on its own
    assert.equal(trainer.stop(), false, 'no step yet: nothing to measure');
    assert.equal(trainer.advance(7), null);
    assert.equal(trainer.stop(), true);
    assert.match(errorOf(() => trainer.advance(1)).message, /^step 7 ended at a checkpoint, which must be taken before the next step$/);
    const stopped = trainer.checkpoint(trainer.correctAnswers());
    assert.deepEqual(stopped, reference.advance(100));
    assert.equal(stopped.step, 7);
    assert.equal(trainer.stop(), false, 'taken: nothing due');
    for (const made of [trainer, reference]) made.delete();
    assert.match(errorOf(() => trainer.stop()).message, /this trainer was deleted/);
  });

  test('one step shared by replicas: their blocks of shards give the bits of one trainer', () => {
    // retrieval and running span mixed (shards hold rows of both), checkpoints at 10 and 20
    const options = { ...SMALL_RUN, task: { ...SMALL_RUN.task, mix: { retrieval: 1, runningSpan: 1 }, span: 2 },
      training: { ...SMALL_RUN.training, steps: 20, batch: 20 }, evaluation: { every: 10, sequences: 300 } };
    const alone = engine.trainRetrieval(options);
    const replicas = [engine.retrievalTrainer(options), engine.retrievalTrainer(options), engine.retrievalTrainer(options)];
    const { shards, parameterCount } = replicas[0];
    assert.equal(shards, 8);
    assert.equal(parameterCount, alone.model.parameterNames()
      .reduce((count, name) => count + alone.model.getParameter(name).data.length, 0));
    // the shards split 3, 3, 2 between the replicas, as three workers would: blocks 0–2 and
    // 2–3, 3–4 and 4–6, 6–8
    const ranges = [[0, 3], [3, 6], [6, 8]];
    const checkpoints = replicas.map(() => []);
    while (!replicas[0].finished) {
      const blocks = replicas.flatMap((replica, r) => replica.computeShards(...ranges[r]));
      assert.deepEqual(blocks.map(({ first, end }) => [first, end]), [[0, 2], [2, 3], [3, 4], [4, 6], [6, 8]]);
      assert.ok(blocks.every(({ gradient, loss }) => gradient.length === parameterCount && loss > 0));
      const due = replicas.map((replica) => replica.applyShards([...blocks].reverse()));  // any order
      assert.ok(due.every((d) => d === due[0]));
      if (!due[0]) continue;
      // at a checkpoint, the held-out set's 2 chunks (of 256 and 44) counted by two replicas
      assert.equal(replicas[0].evaluationChunks, 2);
      const [head, tail] = [replicas[0].correctAnswers(0, 1), replicas[2].correctAnswers(1)];
      assert.ok(head instanceof Int32Array && head.length === 4);
      const correct = head.map((count, i) => count + tail[i]);
      replicas.forEach((replica, r) => checkpoints[r].push(replica.checkpoint(correct)));
    }
    for (const [r, replica] of replicas.entries()) {
      assert.deepEqual(checkpoints[r], alone.checkpoints, `replica ${r}'s checkpoints`);
      assert.equal(replica.step, 20);
      const model = replica.model();
      for (const name of model.parameterNames()) {
        assert.deepEqual(model.getParameter(name), alone.model.getParameter(name), `replica ${r}'s ${name}`);
      }
      model.delete();
      replica.delete();
    }
    alone.model.delete();
  });

  test('a shared step\'s bad calls are Errors naming the argument; a refused step is taken again as if nothing happened', () => {
    const options = { ...SMALL_RUN, training: { ...SMALL_RUN.training, steps: 2 }, evaluation: { every: 1, sequences: 8 } };
    const alone = engine.trainRetrieval(options);
    const trainer = engine.retrievalTrainer(options);
    const P = trainer.parameterCount;
    const messageOf = (call) => errorOf(call).message;
    assert.equal(messageOf(() => trainer.computeShards(8)), 'first must be a whole number from 0 to 7, got 8');
    assert.equal(messageOf(() => trainer.computeShards(2, 2)), 'end must be a whole number from 3 to 8, got 2');
    assert.equal(messageOf(() => trainer.computeShards(0.5)), 'first must be a whole number from 0 to 7, got 0.5');
    const blocks = trainer.computeShards(0, 8);
    assert.deepEqual(blocks.map(({ first, end }) => [first, end]), [[0, 8]]);
    const [block] = blocks;
    assert.equal(messageOf(() => trainer.applyShards([])), 'blocks must be an array of 1 to 8 blocks of shards, got an array of 0');
    assert.equal(messageOf(() => trainer.applyShards(block)), 'blocks must be an array of 1 to 8 blocks of shards, got an object');
    assert.equal(messageOf(() => trainer.applyShards([{ ...block, end: 9 }])), 'blocks[0].end must be a whole number from 1 to 8, got 9');
    assert.equal(messageOf(() => trainer.applyShards([{ ...block, gradient: block.gradient.subarray(1) }])),
      `blocks[0].gradient must be a Float32Array of parameterCount = ${P} values, got a Float32Array of ${P - 1}`);
    assert.equal(messageOf(() => trainer.applyShards([{ ...block, loss: '1' }])), 'blocks[0].loss must be a finite number, got the string "1"');
    assert.equal(messageOf(() => trainer.applyShards([{ ...block, loss: NaN }])), 'blocks[0].loss must be a finite number, got NaN');
    assert.match(messageOf(() => trainer.applyShards([{ ...block, extra: 1 }])), /^unknown option 'extra' in blocks\[0\]/);
    assert.equal(messageOf(() => trainer.applyShards([{ ...block, end: 4 }])), 'blocks must tile shards 0 to 8 once each: shards 4 to 8 are left out');
    assert.equal(messageOf(() => trainer.applyShards([{ ...block, first: 1, end: 4 }])),
      'blocks[0] must be a block of shards (a power of two of them, from a multiple of that number), got shards 1 to 4');
    const half = (first) => ({ ...block, first, end: first + 4 });
    assert.equal(messageOf(() => trainer.applyShards([half(4), half(0), half(4)])),
      'blocks must tile shards 0 to 8 once each: blocks[2] (shards 4 to 8) overlaps another');
    assert.equal(messageOf(() => trainer.applyShards([half(4), { ...block, first: 0, end: 2 }])),
      'blocks must tile shards 0 to 8 once each: blocks[0] (shards 4 to 8) leaves shards 2 to 4 out');
    const poisoned = block.gradient.slice();
    poisoned[3] = NaN;
    assert.equal(messageOf(() => trainer.applyShards([{ ...block, gradient: poisoned }])),
      "the shards' gradients of step 1 sum to NaN at embedding.weight[3]; every shard's gradient must be finite");
    assert.equal(messageOf(() => trainer.checkpoint([0, 0, 0, 0])), 'checkpoint comes after a step that ends at one (step 0 does not)');
    assert.equal(trainer.step, 0);
    // the refused step is taken with the same batches
    assert.equal(trainer.applyShards(blocks), true);
    assert.match(messageOf(() => trainer.computeShards()), /^step 1 ended at a checkpoint, which must be taken before the next step$/);
    assert.equal(messageOf(() => trainer.correctAnswers(0, 2)), 'end must be a whole number from 1 to 1, got 2');
    assert.equal(messageOf(() => trainer.checkpoint([1, 2])), 'correct must be an Int32Array or an array of 4 whole numbers, one per position, got an array of 2');
    assert.equal(messageOf(() => trainer.checkpoint([0, 3, 0, 0])), 'correct[1] must be a whole number from 0 to 2, got 3');
    assert.equal(messageOf(() => trainer.checkpoint([0, 2 ** 40, 0, 0])), 'correct[1] must be a whole number from 0 to 2147483647, got 1099511627776');
    assert.match(messageOf(() => trainer.checkpoint(new Float64Array(4))), /^correct must be an Int32Array or an array of 4/);
    // each count is read once (a getter would answer otherwise the second time), and holes are refused
    const counted = Array.from(trainer.correctAnswers());
    assert.equal(messageOf(() => trainer.checkpoint([, ...counted.slice(1)])), 'correct[0] must be a whole number from 0 to 2147483647, got undefined');  // eslint-disable-line no-sparse-arrays
    let reads = 0;
    const changing = [...counted];
    Object.defineProperty(changing, 0, { get: () => (reads++ === 0 ? counted[0] : 'many') });
    const checkpoint = trainer.checkpoint(changing);
    assert.equal(reads, 1);
    assert.deepEqual(checkpoint, alone.checkpoints[0]);
    assert.equal(trainer.advance(5).step, 2);
    assert.equal(messageOf(() => trainer.computeShards()), 'the run has finished: it took all 2 steps');
    const model = trainer.model();
    assert.deepEqual(model.getParameter('head.weight'), alone.model.getParameter('head.weight'));
    model.delete();
    trainer.delete();
    assert.match(messageOf(() => trainer.correctAnswers()), /this trainer was deleted/);
    alone.model.delete();
  });

  test('the optimiser: three steps equal torch.optim.AdamW with warm-up and clipping', () => {
    const { adamw } = torch;
    const entry = torch.cases.find((c) => c.name === adamw.case);
    const model = modelOf(entry);
    const { learningRate, betas, weightDecay, clip, warmup } = adamw.optimizer;
    const optimizer = engine.createOptimizer(model, { learningRate, betas, weightDecay, clip, warmup, steps: 3 });
    const batch = { tokens: entry.tokens, batch: entry.batch, targets: entry.targets, answers: entry.answers };
    for (const golden of adamw.steps) {
      const step = optimizer.step(batch);
      assert.ok(Math.abs(step.loss - golden.loss) <= 1e-5 * golden.loss, `step ${golden.step} loss`);
      assert.ok(Math.abs(step.learningRate - golden.learningRate) <= 1e-12);
      assert.ok(Math.abs(step.gradientNorm - golden.gradientNorm) <= 1e-5 * golden.gradientNorm);
    }
    assert.equal(optimizer.steps, 3);
    for (const name of model.parameterNames()) {
      const golden = adamw.parametersAfter[name].data;
      assert.ok(maxDifference(model.getParameter(name).data, golden) <= 2e-6 * Math.max(1, largest(golden)), name);
    }
    optimizer.delete();
    model.delete();
    assert.match(errorOf(() => optimizer.step(batch)).message, /this optimizer was deleted/);
  });
});

describe('saving and loading a model', () => {
  test('model.save() read back by loadTransformer gives the same model, through JSON', () => {
    const config = { vocab: 19, outputs: 8, mlp: true, positional: { type: 'alibi' }, seed: 3 };
    const model = engine.createTransformer(config);
    // parameters of its own, not the ones its seed draws (which a loader ignoring them would give too)
    const random = mulberry32(310);
    for (const name of model.parameterNames()) {
      const { rows, cols } = model.getParameter(name);
      model.setParameter(name, { rows, cols, data: Float32Array.from({ length: rows * cols }, () => random() - 0.5) });
    }
    const text = JSON.stringify({ ...model.save(), meta: { note: 'kept by the saver' } });
    const loaded = engine.loadTransformer(JSON.parse(text));
    assert.deepEqual(loaded.config, model.config);
    for (const name of model.parameterNames()) assert.deepEqual(loaded.getParameter(name), model.getParameter(name), name);
    const input = { tokens: [1, 9, 2, 12, 16, 1], batch: 1 };
    const drawn = engine.createTransformer(config);
    assert.notDeepEqual(model.logits(input).data, drawn.logits(input).data, 'the seed\'s parameters answer otherwise');
    assert.deepEqual(loaded.logits(input).data, model.logits(input).data);
    for (const done of [loaded, model, drawn]) done.delete();
  });

  const saved = () => {
    const model = engine.createTransformer({ vocab: 6, outputs: 2, dModel: 4, layers: 1 });
    const result = model.save();
    model.delete();
    return result;
  };
  for (const [label, damage, words] of [
    ['another format', (s) => { s.format = 'onnx'; }, /saved model's format must be 'attention-playground-transformer', got the string "onnx"/],
    ['another version', (s) => { s.version = 2; }, /saved model's version must be 1, got 2/],
    ['an unknown key', (s) => { s.weights = {}; }, /unknown option 'weights' in saved model/],
    ['a missing parameter', (s) => { delete s.parameters['head.bias']; }, /saved model has no parameter head.bias/],
    ['an extra parameter', (s) => { s.parameters['blocks.7.ln1.weight'] = s.parameters['head.bias']; }, /a parameter "blocks.7.ln1.weight" that this model does not/],
    ['a parameter of the wrong shape', (s) => { s.parameters['head.bias'] = { rows: 2, cols: 1, data: [0, 0] }; }, /head.bias is 1×2 but the new value is 2×1/],
    ['a value that is not a number', (s) => { s.parameters['head.bias'].data[1] = null; }, /head.bias.data\[1\] must be a number, got null/],
    ['data of the wrong length', (s) => { s.parameters['head.bias'].data.push(1); }, /head.bias.data has 3 values but head.bias is 1×2 = 2/],
    ['a configuration the model refuses', (s) => { s.config.heads = 3; }, /heads \(3\) must divide dModel \(4\)/],
    ['parameters that are not an object', (s) => { s.parameters = 'all'; }, /saved model parameters must be an object/],
  ]) {
    test(`a saved model with ${label} is refused, naming it, and leaks nothing in the wasm heap`, () => {
      const damaged = saved();
      damage(damaged);
      const inUse = engine.memoryInUseBytes;
      for (let i = 0; i < 50; ++i) assert.match(errorOf(() => engine.loadTransformer(damaged)).message, words);
      assert.equal(engine.memoryInUseBytes, inUse, 'the failed loads left memory allocated');
    });
  }
});

describe('the task', () => {
  test('retrievalBatch: k1 v1 … kk vk SEP q, the target q\'s value, drawn from a seed', () => {
    const task = { pairs: 5, keys: 8, values: 6 };
    const batch = engine.retrievalBatch({ task, batch: 40, seed: 9 });
    assert.equal(batch.length, 12);
    assert.equal(batch.answers, 1);
    for (let b = 0; b < 40; ++b) {
      const row = batch.tokens.subarray(b * 12, (b + 1) * 12);
      const keys = new Set([0, 2, 4, 6, 8].map((i) => row[i]));
      assert.equal(keys.size, 5, 'distinct keys');
      assert.equal(row[10], 14, 'SEP = keys + values');
      const query = batch.queried[b];
      assert.equal(row[11], row[2 * query]);
      assert.equal(batch.targets[b], row[2 * query + 1] - 8);
    }
    assert.deepEqual(engine.retrievalBatch({ task, batch: 40, seed: 9 }).tokens, batch.tokens);
    assert.notDeepEqual(engine.retrievalBatch({ task, batch: 40, seed: 10 }).tokens, batch.tokens);
    const recall = engine.retrievalBatch({ task, objective: 'serialRecall', batch: 2, seed: 1 });
    assert.equal(recall.length, 15);
    assert.equal(recall.answers, 5);
    const span = engine.retrievalBatch({ task: { ...task, span: 3 }, objective: 'runningSpan', pairs: 4, batch: 2, seed: 1 });
    assert.deepEqual([span.length, span.answers], [11, 3]);
  });

  test('evaluateRetrieval: the trainer\'s measure, for a loaded model too', () => {
    const { model, evaluations } = engine.trainRetrieval({ ...SMALL_RUN, training: { ...SMALL_RUN.training, steps: 60 }, evaluation: { every: 60, sequences: 128 } });
    const loaded = engine.loadTransformer(model.save());
    const measured = engine.evaluateRetrieval(loaded, { task: SMALL_RUN.task, sequences: 128 });
    assert.deepEqual(measured, evaluations[0]);
    model.delete();
    loaded.delete();
  });

  test('evaluateRetrieval counts the questions on each position as the Train page does (its intervals\' n)', () => {
    const { model } = engine.trainRetrieval({ ...SMALL_RUN, training: { ...SMALL_RUN.training, steps: 10 }, evaluation: { every: 10, sequences: 128 } });
    for (const [pairs, sequences, golden] of [[4, 10, [3, 3, 2, 2]], [6, 600, [100, 100, 100, 100, 100, 100]], [6, 131, [22, 22, 22, 22, 22, 21]], [4, 4, [1, 1, 1, 1]]]) {
      const { questionsByPosition: counted, accuracyByPosition } = engine.evaluateRetrieval(model, { task: SMALL_RUN.task, pairs, sequences });
      assert.ok(counted instanceof Int32Array);
      assert.deepEqual([...counted], golden, `${sequences} sequences of ${pairs} pairs`);
      assert.deepEqual(questionsByPosition(sequences, pairs), golden);
      // each accuracy is a count of right answers over them
      accuracyByPosition.forEach((accuracy, i) => {
        const right = accuracy * golden[i];
        assert.ok(Math.abs(right - Math.round(right)) < 1e-9, `position ${i + 1}: ${accuracy} of ${golden[i]}`);
      });
    }
    model.delete();
  });

  test('evaluateRetrieval\'s attention by layer, head and position: a layer with zero queries and keys attends by its ALiBi bias alone', () => {
    // 5 pairs: sequences of T = 12, the final position 11 sees every token. With q = k = 0 in
    // one layer, head h's final row there is softmax(−slope_h · (11 − j)) over j = 0 … 11,
    // whatever the tokens; the other layer keeps its drawn weights. 2 layers of 3 heads, the
    // slopes out of order, so that layers and heads swapped, or two heads swapped, would not
    // pass; layer 0 computes every query, the last layer only the final one.
    const task = { pairs: 5, keys: 8, values: 8 };
    const slopes = [0.5, 0.125, 1];
    const T = 12;
    // per head, the final row's weight on key j: softmax(−slope · (T − 1 − j))
    const biasRows = slopes.map((slope) => {
      const unnormalised = Array.from({ length: T }, (_, j) => Math.exp(-slope * (T - 1 - j)));
      const total = unnormalised.reduce((sum, value) => sum + value, 0);
      return unnormalised.map((value) => value / total);
    });
    for (const zeroed of [0, 1]) {
      const model = engine.createTransformer({ vocab: 19, outputs: 8, layers: 2, dModel: 12, heads: 3, positional: { type: 'alibi', slopes } });
      const name = `blocks.${zeroed}.attention.qkv.weight`;
      const qkv = model.getParameter(name);  // 3C × C: the rows of q, k, v
      qkv.data.fill(0, 0, 2 * 12 * 12);
      model.setParameter(name, qkv);
      const { attention } = engine.evaluateRetrieval(model, { task, sequences: 20 });
      assert.deepEqual([attention.toValue.length, attention.toValue[0].length, attention.toValue[0][0].length], [2, 3, 5]);
      biasRows.forEach((weight, h) => {
        const tolerance = (measure) => ({ atol: 1e-6, label: `${measure} of layer ${zeroed}, head ${h}` });
        assertArrayClose(attention.toValue[zeroed][h], Array.from({ length: 5 }, (_, i) => weight[2 * i + 1]), tolerance('toValue'));
        assertArrayClose(attention.toKey[zeroed][h], Array.from({ length: 5 }, (_, i) => weight[2 * i]), tolerance('toKey'));
        assertArrayClose(attention.toFirst[zeroed][h], new Array(5).fill(weight[0]), tolerance('toFirst'));
      });
      // the other layer is the drawn model's: not the bias alone
      assert.ok(Math.abs(attention.toValue[1 - zeroed][0][4] - attention.toValue[zeroed][0][4]) > 1e-3);
      model.delete();
    }
  });
});

describe('an evaluation in parts', () => {
  test('chunks measured by two engines (a team\'s replicas) join to evaluateRetrieval\'s bits, in any order', async () => {
    const { model } = engine.trainRetrieval({ ...SMALL_RUN, training: { ...SMALL_RUN.training, steps: 100 }, evaluation: { every: 100, sequences: 64 } });
    const other = await createAttention();
    const replica = other.loadTransformer(structuredClone(model.save()));
    // 600 sequences of 6 pairs: chunks of 256, 256 and 88
    const set = { task: SMALL_RUN.task, pairs: 6, sequences: 600 };
    assert.equal(engine.retrievalEvaluationChunks(model, set), 3);
    const whole = engine.evaluateRetrieval(model, set);
    for (const cut of [1, 2]) {
      const mine = engine.evaluateRetrievalChunks(model, { ...set, end: cut });
      const theirs = structuredClone(other.evaluateRetrievalChunks(replica, { ...set, first: cut }));  // as a message carries them
      assert.deepEqual(mine.map(({ chunk }) => chunk), Array.from({ length: cut }, (_, c) => c));
      // measured with the same parameters in the same context: the same checksum
      assert.ok(Number.isInteger(mine[0].measuredWith) && mine[0].measuredWith >= 0 && mine[0].measuredWith < 2 ** 32);
      assert.equal(theirs[0].measuredWith, mine[0].measuredWith);
      assert.deepEqual(engine.joinRetrievalEvaluation(model, set, [...theirs, ...mine]), whole);
    }
    // a chunk's sums: counts of its own sequences (chunk 2 asks about position 0 fourteen times)
    const [last] = engine.evaluateRetrievalChunks(model, { ...set, first: 2 });
    assert.equal(last.chunk, 2);
    assert.ok(last.correct instanceof Int32Array && last.correct.length === 6);
    assert.ok(last.correct[0] <= 14);
    assert.ok(last.attention.toValue[1][0][0] > 0 && last.attention.toValue[1][0][0] <= 14);
    // each value is read once: a getter that would answer otherwise the second time is not asked again
    const [first, ...rest] = engine.evaluateRetrievalChunks(model, set);
    let reads = 0;
    const changing = { ...first };
    Object.defineProperty(changing, 'correct', { enumerable: true, get: () => (reads++ === 0 ? first.correct : new Int32Array(1e6)) });
    assert.deepEqual(engine.joinRetrievalEvaluation(model, set, [changing, ...rest]), whole);
    assert.equal(reads, 1);
    const every = engine.evaluateRetrievalChunks(model, set);
    assert.equal(whole.loss, every.reduce((sum, chunk) => sum + chunk.loss, 0) / 600);
    assert.equal(whole.accuracy, every.reduce((sum, chunk) => sum + chunk.correct.reduce((a, b) => a + b), 0) / 600);
    model.delete();
    replica.delete();
  });
});

test('every call of the engine is declared in wasm/attention.d.ts, and nothing more', () => {
  const declarations = readFileSync(new URL('../../wasm/attention.d.ts', import.meta.url), 'utf8');
  const body = declarations.slice(declarations.indexOf('export interface AttentionEngine {'));
  const declared = new Set([...body.slice(0, body.indexOf('\n}\n')).matchAll(/^ {2}(?:readonly )?(\w+)[(:]/gm)].map((m) => m[1]));
  assert.deepEqual([...declared].sort(), Object.keys(engine).sort());
});
