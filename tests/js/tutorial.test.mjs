// The numbers printed in the seed tutorials (tests/fixtures/seed-examples.json), through
// the engine's JavaScript API, at the fixture's tolerance of 1e-4.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import createAttention from '../../dist/wasm/attention.mjs';
import { assertArrayClose, assertMatrixClose, seedExamples, transpose, toRows } from './reference.mjs';

const engine = await createAttention();
const examples = seedExamples();
const contextual = examples['attention-mechanism-drives-contextual-embedding'];
const journey = examples['your-journey-starts-with-one-step'];
const TOLERANCE = { atol: 1e-4 };

test('the engine loads with no arguments and has a version string', () => {
  assert.equal(typeof engine.version, 'string');
  assert.ok(engine.version.length > 0);
});

test("README one-liner: the journey sentence's query 1 context is [0.4419, 0.6515, 0.5683]", () => {
  const { context } = engine.walkthrough(journey.inputs, { query: 1 });
  assert.ok(context instanceof Float32Array);
  assertArrayClose(context, [0.4419, 0.6515, 0.5683], { ...TOLERANCE, label: 'context' });
});

test("README one-liner as written: selfAttention(x, {scale: false}), row 1 of context", () => {
  const x = [[0.43, 0.15, 0.89], [0.55, 0.87, 0.66], [0.57, 0.85, 0.64],
    [0.22, 0.58, 0.33], [0.77, 0.25, 0.10], [0.05, 0.80, 0.55]];
  const { context } = engine.selfAttention(x, { scale: false });
  assert.deepEqual(Array.from(context.data.subarray(3, 6), (v) => v.toFixed(4)), ['0.4419', '0.6515', '0.5683']);
});

for (const example of [contextual, journey]) {
  describe(example.name, () => {
    const x = example.inputs;

    test('scores x·xᵀ (no scaling) match the tutorial', () => {
      const result = engine.attention(x, x, x, { scale: false });
      assert.equal(result.scores.length, 1);
      assertMatrixClose(result.scores[0], example.scores, { ...TOLERANCE, label: 'scores' });
    });

    test('selfAttention with no weights uses q = k = v = x', () => {
      const result = engine.selfAttention(x, { scale: false });
      assertMatrixClose(result.q, x, { atol: 0, label: 'q' });
      assertMatrixClose(result.k, x, { atol: 0, label: 'k' });
      assertMatrixClose(result.v, x, { atol: 0, label: 'v' });
      assertMatrixClose(result.scores[0], example.scores, { ...TOLERANCE, label: 'scores' });
      assert.deepEqual(toRows(result.output), toRows(result.context));
    });

    test('the walk-through of the query: scores, the three normalisations, context', () => {
      const walk = engine.walkthrough(x, { query: example.query_index });
      for (const array of [walk.scores, walk.weights.sum, walk.weights.naiveSoftmax, walk.weights.softmax,
        walk.context]) {
        assert.ok(array instanceof Float32Array);
      }
      assertArrayClose(walk.scores, example.query_scores, { ...TOLERANCE, label: 'scores' });
      assertArrayClose(walk.weights.sum, example.query_weights_sum_normalized, { ...TOLERANCE, label: 'sum' });
      assertArrayClose(walk.weights.softmax, example.query_weights_softmax, { ...TOLERANCE, label: 'softmax' });
      // Small scores: the textbook exp/sum does not overflow and agrees with softmax.
      assertArrayClose(walk.weights.naiveSoftmax, example.query_weights_softmax,
        { ...TOLERANCE, label: 'naiveSoftmax' });
      assertArrayClose(walk.context, example.query_context, { ...TOLERANCE, label: 'context' });
    });

    test("the query's row of attention() agrees with the walk-through for every normalisation", () => {
      const i = example.query_index;
      const row = (matrix) => Array.from(matrix.data.subarray(i * matrix.cols, (i + 1) * matrix.cols));
      const sum = engine.attention(x, x, x, { scale: false, normalization: 'sum' });
      assertArrayClose(row(sum.weights[0]), example.query_weights_sum_normalized, { ...TOLERANCE, label: 'sum' });
      const naive = engine.attention(x, x, x, { scale: false, normalization: 'naive-softmax' });
      assertArrayClose(row(naive.weights[0]), example.query_weights_softmax, { ...TOLERANCE, label: 'naive' });
      const soft = engine.attention(x, x, x, { scale: false });
      assertArrayClose(row(soft.weights[0]), example.query_weights_softmax, { ...TOLERANCE, label: 'softmax' });
      assertArrayClose(row(soft.context), example.query_context, { ...TOLERANCE, label: 'context' });
    });

    test('walkthrough with a scale multiplies the scores', () => {
      const walk = engine.walkthrough(x, { query: example.query_index, scale: 0.5 });
      assertArrayClose(walk.scores, example.query_scores.map((s) => s * 0.5), { ...TOLERANCE, label: 'scores' });
    });
  });
}

test('contextual-embedding: softmax weights of the whole matrix and all context vectors', () => {
  const x = contextual.inputs;
  const result = engine.attention(x, x, x, { scale: false });
  assertMatrixClose(result.weights[0], contextual.weights_softmax, { ...TOLERANCE, label: 'weights' });
  assertMatrixClose(result.context, contextual.context, { ...TOLERANCE, label: 'context' });
  const naive = engine.attention(x, x, x, { scale: false, normalization: 'naive-softmax' });
  assertMatrixClose(naive.weights[0], contextual.weights_softmax, { ...TOLERANCE, label: 'naive weights' });
});

test('contextual-embedding: sum-normalised weights are each score over its row total', () => {
  const x = contextual.inputs;
  const result = engine.attention(x, x, x, { scale: false, normalization: 'sum' });
  const expected = contextual.scores.map((row) => {
    const total = row.reduce((a, b) => a + b, 0);
    return row.map((s) => s / total);
  });
  assertMatrixClose(result.weights[0], expected, { ...TOLERANCE, label: 'sum weights' });
});

test('trainable_v1: torch.rand(3,2) after seed 123, three times, as x·W', () => {
  const { trainable_v1: expected } = journey;
  const g = engine.torchGenerator(expected.seed);
  const wq = g.rand(3, 2), wk = g.rand(3, 2), wv = g.rand(3, 2);
  assertMatrixClose(wq, [[0.2961, 0.5166], [0.2517, 0.6886], [0.0740, 0.8665]], { ...TOLERANCE, label: 'W_query' });
  const result = engine.selfAttention(journey.inputs, { wq, wk, wv });
  assert.equal(result.q.cols, expected.d_out);
  assertMatrixClose(result.output, expected.context, { ...TOLERANCE, label: 'context' });
  assertMatrixClose(result.context, expected.context, { ...TOLERANCE, label: 'context' });
});

test('trainable_v2: three nn.Linear(3, 2, bias=False) after seed 789, weights transposed', () => {
  const { trainable_v2: expected } = journey;
  const g = engine.torchGenerator(expected.seed);
  const [query, key, value] = [g.linear(3, 2, false), g.linear(3, 2, false), g.linear(3, 2, false)];
  for (const layer of [query, key, value]) {
    assert.equal(layer.weight.rows, 2);
    assert.equal(layer.weight.cols, 3);
    assert.equal(layer.bias, null);
  }
  const asW = (layer) => transpose(toRows(layer.weight));
  const result = engine.selfAttention(journey.inputs, { wq: asW(query), wk: asW(key), wv: asW(value) });
  assertMatrixClose(result.output, expected.context, { ...TOLERANCE, label: 'context' });
});
