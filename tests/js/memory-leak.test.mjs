// "No call aborts the module: after any number of failed calls the engine answers as
// before" (the README's API section), and its memory does not grow. 10,000 failed calls,
// mixing JavaScript-side failures with C++ exceptions caught in bindings.cpp, then the same
// answers to the byte, no growth of the wasm heap and no growth of the process.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import createAttention from '../../dist/wasm/attention.mjs';
import { bytesOf, mulberry32, randomMatrix, toFlat } from './reference.mjs';

// The engine hides its wasm instance; catch its Memory as the module instantiates it.
const memories = [];
const originals = { instantiate: WebAssembly.instantiate, instantiateStreaming: WebAssembly.instantiateStreaming };
function remember(result) {
  const instance = result instanceof WebAssembly.Instance ? result : result?.instance;
  for (const value of Object.values(instance?.exports ?? {})) {
    if (value instanceof WebAssembly.Memory) memories.push(value);
  }
  return result;
}
WebAssembly.instantiate = (...args) => originals.instantiate.apply(WebAssembly, args).then(remember);
WebAssembly.instantiateStreaming = (...args) => originals.instantiateStreaming.apply(WebAssembly, args).then(remember);
const engine = await createAttention();
Object.assign(WebAssembly, originals);
const wasmMemory = memories[0];
// The wasm heap's size: engine.memoryBytes (attention.d.ts), else the Memory caught above.
const heapBytes = () => (typeof engine.memoryBytes === 'number' ? engine.memoryBytes : wasmMemory?.buffer.byteLength);

// Large inputs, so that anything the failure path forgot to free would show as growth.
const random = mulberry32(400);
const bigNaN = toFlat(randomMatrix(random, 128, 128));
bigNaN.data[bigNaN.data.length - 1] = NaN;            // found only at the last entry: [127][127]
const bigGood = toFlat(randomMatrix(random, 128, 128));
const odd = toFlat(randomMatrix(random, 128, 130));    // 130 columns: heads 4 do not divide them
const x = toFlat(randomMatrix(random, 200, 64));
const w = toFlat(randomMatrix(random, 64, 64));
const wrongWo = toFlat(randomMatrix(random, 32, 8));   // wo must have 64 rows
const tall = { rows: 16385, cols: 1, data: new Float32Array(16385).fill(0.5) };
// training: a model that lives through the whole test, and a saved model with a wrong shape
const model = engine.createTransformer({ vocab: 19, outputs: 8, dModel: 16, mlp: true });
const sequence = { tokens: [0, 8, 1, 9, 2, 10, 3, 11, 16, 2], batch: 1, targets: [2] };
const damaged = model.save();
// its held-out set (300 sequences of 4 pairs: chunks of 256 and 44) and the chunks' sums
const heldOut = { task: { pairs: 4, keys: 8, values: 8 }, sequences: 300 };
const chunkSums = engine.evaluateRetrievalChunks(model, heldOut);
damaged.parameters['head.bias'] = { rows: 8, cols: 1, data: new Array(8).fill(0) };

// [name, call, words of the message]: every FAILURES.length calls cover each of these once.
const FAILURES = [
  ['a token id past the vocabulary (C++)', () => model.lossAndGradients({ ...sequence, tokens: [...sequence.tokens.slice(1), 19] }),
    'tokens[9] is 19'],
  ['a saved model of the wrong shape, refused after the model was made (C++)', () => engine.loadTransformer(damaged),
    'head.bias is 1×8 but the new value is 8×1'],
  ['a run with more pairs than keys (C++)', () => engine.trainRetrieval({ task: { pairs: 9, keys: 8 } }), 'task.pairs must be from 1 to task.keys (8)'],
  ['NaN in a large q (C++)', () => engine.attention(bigNaN, bigGood, bigGood), 'q[127][127] is NaN'],
  ['heads do not divide dk (C++)', () => engine.attention(odd, odd, odd, { heads: 4 }), 'must divide dk'],
  ['ragged rows (JS)', () => engine.attention([[1, 2], [3]], [[1, 2]], [[1]]), 'ragged'],
  ['unknown option (JS)', () => engine.attention([[1]], [[1]], [[1]], { head: 2 }), "unknown option 'head'"],
  ['wo shape after projecting (C++)', () => engine.selfAttention(x, { wq: w, wk: w, wv: w, wo: wrongWo }), 'wo has 32 rows'],
  ['walkthrough query out of range (C++)', () => engine.walkthrough(bigGood, { query: 500 }), 'query must be a row index'],
  ['rollout residual out of [0, 1] (C++)', () => engine.rollout({ n: 50, residual: 2 }), 'residual must be a number in [0, 1]'],
  ['rotating: a join of chunks with a hole, a count array of 100,000, sums of another set (JS, JS, C++)', (i) => {
    const which = Math.floor(i / FAILURES.length) % 3;  // each variant in turn, however many entries there are
    const [first, second] = chunkSums;
    if (which === 0) return engine.joinRetrievalEvaluation(model, heldOut, [, second]);  // eslint-disable-line no-sparse-arrays
    if (which === 1) return engine.joinRetrievalEvaluation(model, heldOut, [{ ...first, correct: new Int32Array(1e5) }, second]);
    return engine.joinRetrievalEvaluation(model, heldOut, [first, { ...second, sequences: 54 }]);
  }, /chunks\[0\] must be an object, got undefined|chunks\[0\]\.correct must be an Int32Array of 4 counts|chunk 1's sequences must be 44/],
  ['rotating: too large to materialise, too many draws, Infinity in k (C++)', (i) => {
    const which = Math.floor(i / FAILURES.length) % 3;  // each variant in turn, however many entries there are
    if (which === 0) return engine.attention(tall, tall, tall, { kernel: 'materialized' });
    if (which === 1) return engine.torchGenerator(1).linear(1e6, 1e6);
    return engine.attention([[1, 2]], [[1, Infinity]], [[1]]);
  }, /materialising 1 head\(s\)|more than one call may draw|k\[0\]\[1\] is Infinity/],
];

function failMany(count, start = 0) {
  let errors = 0;
  for (let i = start; i < start + count; ++i) {
    const [name, call, words] = FAILURES[i % FAILURES.length];
    try {
      call(i);
    } catch (error) {
      if (!(error instanceof Error)) assert.fail(`${name}: threw a non-Error ${String(error)}`);
      const expected = words instanceof RegExp ? words.test(error.message) : error.message.includes(words);
      if (!expected) assert.fail(`${name}: unexpected message ${JSON.stringify(error.message)}`);
      ++errors;
      continue;
    }
    assert.fail(`${name}: call ${i} did not throw`);
  }
  return errors;
}

// Successful calls of every kind, as raw bytes.
function answers() {
  const small = toFlat(randomMatrix(mulberry32(401), 40, 8));
  const materialized = engine.attention(small, small, small, { heads: 2, causal: true, positional: { type: 'rope' } });
  const flash = engine.attention(small, small, small, { heads: 2, causal: true, window: 5, kernel: 'flash' });
  const self = engine.selfAttention(x, { wq: w, wk: w, wv: w, wo: w, bo: new Float32Array(64).fill(0.25), heads: 4 });
  const walk = engine.walkthrough(bigGood, { query: 7, scale: 0.5 });
  const g = engine.torchGenerator(123);
  const rand = g.rand(3, 2), linear = g.linear(3, 2);
  const { gradients } = model.lossAndGradients(sequence);
  return Buffer.concat([
    ...materialized.scores, ...materialized.weights, materialized.context, flash.context, self.output, rand, linear.weight,
    model.logits({ tokens: sequence.tokens, batch: 1 }), ...Object.values(gradients),
  ].map((m) => bytesOf(m.data)).concat([walk.context, walk.weights.softmax, linear.bias,
    engine.rollout({ n: 30, layers: 3, residual: 0.2 }).influence].map(bytesOf)));
}

// A model, a trainer and an optimizer made, used and deleted: what JavaScript must delete.
function trainingCycle() {
  const fresh = engine.createTransformer({ vocab: 19, outputs: 8, dModel: 16 });
  const optimizer = engine.createOptimizer(fresh);
  optimizer.step(sequence);
  const trainer = engine.retrievalTrainer({ task: { pairs: 4, keys: 8, values: 8 }, model: { dModel: 16 },
    training: { steps: 2, batch: 4 }, evaluation: { every: 1, sequences: 8 } });
  trainer.advance(1);
  if (trainer.applyShards(trainer.computeShards())) trainer.checkpoint(trainer.correctAnswers());
  const held = trainer.model();
  const loaded = engine.loadTransformer(held.save());
  const set = { task: { pairs: 4, keys: 8, values: 8 }, sequences: 300 };
  engine.joinRetrievalEvaluation(loaded, set, engine.evaluateRetrievalChunks(held, set));
  for (const done of [optimizer, fresh, trainer, held, loaded]) done.delete();
}

// Grows the wasm heap so that one allocation of `bytes` fits at its top with (almost)
// nothing to spare: when a request needs more than 20% more memory, Emscripten sizes the
// heap to the request rounded up to 64 KiB. Repeating the probe then grows the heap again as
// soon as more than those 64 KiB were left allocated since the last probe: 7 bytes a call over
// the 10,000 failed calls below, 330 a cycle over the 200 training cycles.
function probeBytes() {
  return 4 * Math.ceil((1.5 * heapBytes()) / 4);
}
function probe(bytes) {
  engine.torchGenerator(0).rand(1, bytes / 4);  // one allocation of `bytes` in the core
}

// The answers before any failed call, which the engine must give after them.
const answeredFirst = answers();

test('each kind of failure throws an Error with its message (the C++ path included)', () => {
  assert.equal(failMany(FAILURES.length * 3), FAILURES.length * 3);
});

test('after 10,000 failed calls: same answers to the byte, no wasm heap growth, no process growth', () => {
  assert.equal(typeof heapBytes(), 'number', 'neither engine.memoryBytes nor the wasm Memory is observable');
  failMany(400);                       // warm-up: every failure path once, JIT settled
  const initialHeap = heapBytes();
  const bytes = probeBytes();
  probe(bytes);
  const heapBefore = heapBytes();
  assert.ok(heapBefore > initialHeap, `the probe did not grow the heap (${initialHeap} bytes): the check would be vacuous`);
  const rssBefore = process.memoryUsage().rss;
  const inUse = engine.memoryInUseBytes;

  assert.equal(failMany(10000, 400), 10000);
  assert.equal(engine.memoryInUseBytes, inUse, 'the failed calls left memory allocated');

  const rssGrowth = process.memoryUsage().rss - rssBefore;
  assert.ok(rssGrowth < 20 * 1024 * 1024, `the process grew by ${(rssGrowth / 2 ** 20).toFixed(1)} MB`);
  assert.equal(heapBytes(), heapBefore, 'the wasm heap grew during the failed calls');
  probe(bytes);
  assert.equal(heapBytes(), heapBefore, 'the failed calls left memory allocated in the wasm heap (the probe no longer fits)');
  assert.ok(answers().equals(answeredFirst), 'the engine answers differently after failed calls');
});

test('successful calls of every kind leave nothing allocated either', () => {
  answers();
  const bytes = probeBytes();
  probe(bytes);
  const heap = heapBytes();
  const inUse = engine.memoryInUseBytes;
  for (let i = 0; i < 100; ++i) answers();
  assert.equal(engine.memoryInUseBytes, inUse, 'successful calls left memory allocated');
  probe(bytes);
  assert.equal(heapBytes(), heap, 'successful calls left memory allocated in the wasm heap');
});

test('models, trainers and optimizers made and deleted leave nothing allocated', () => {
  trainingCycle();
  const bytes = probeBytes();
  probe(bytes);
  const heap = heapBytes();
  const inUse = engine.memoryInUseBytes;
  for (let i = 0; i < 200; ++i) trainingCycle();
  assert.equal(engine.memoryInUseBytes, inUse, 'deleted models, trainers or optimizers left memory allocated');
  probe(bytes);
  assert.equal(heapBytes(), heap, 'deleted models, trainers or optimizers left memory allocated in the wasm heap');
});

test('engine.memoryInUseBytes counts what the engine holds: a model until it is deleted, a result\'s copy not at all', () => {
  const inUse = engine.memoryInUseBytes;
  const model = engine.createTransformer({ vocab: 19, outputs: 8, dModel: 16 });
  const held = engine.memoryInUseBytes - inUse;
  // at least its parameters and their gradients: 2 floats a parameter
  const parameters = model.parameterNames().reduce((sum, name) => sum + model.getParameter(name).data.length, 0);
  assert.ok(held >= 2 * 4 * parameters, `a model of ${parameters} parameters holds ${held} bytes`);
  answers();  // results are copied out to JavaScript, and the core's copies freed
  assert.equal(engine.memoryInUseBytes - inUse, held);
  model.delete();
  assert.equal(engine.memoryInUseBytes, inUse);
});

test('engine.memoryBytes reports the size of the wasm memory', { skip: engine.memoryBytes === undefined }, () => {
  assert.ok(engine.memoryBytes > 16 * 1024 * 1024, 'the probes above grew the heap');
  if (wasmMemory) assert.equal(engine.memoryBytes, wasmMemory.buffer.byteLength);
});
