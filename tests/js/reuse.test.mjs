// The `reuse` option of attention and selfAttention: the arrays of a previous result are
// overwritten with exactly the numbers a fresh call returns, and only where they fit.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import createAttention from '../../dist/wasm/attention.mjs';
import { mulberry32, randomMatrix } from './reference.mjs';

const engine = await createAttention();
const random = mulberry32(20261122);
const x = randomMatrix(random, 9, 8);
const projection = () => randomMatrix(random, 8, 8);
const weights = { wq: projection(), wk: projection(), wv: projection(), wo: projection() };
const options = { heads: 2, causal: true, kernel: 'materialized', ...weights };

const arraysOf = (result) => [
  ...result.scores, ...result.weights, result.context, result.q, result.k, result.v, result.output,
].map((matrix) => matrix.data);

test('selfAttention with reuse returns the same arrays, holding what a fresh call returns', () => {
  const previous = engine.selfAttention(randomMatrix(random, 9, 8), options);
  const before = arraysOf(previous);
  const reused = engine.selfAttention(x, { ...options, reuse: previous });
  const fresh = engine.selfAttention(x, options);
  arraysOf(reused).forEach((array, i) => {
    assert.equal(array, before[i], `output ${i} is the previous result's array`);
    assert.deepEqual(array, arraysOf(fresh)[i], `output ${i} equals a fresh call's`);
  });
  assert.deepEqual(previous.weights[1].data, fresh.weights[1].data, 'the previous result shows the new numbers');
});

test('attention with reuse: matching arrays are overwritten, the others allocated', () => {
  const q = randomMatrix(random, 6, 4), k = randomMatrix(random, 6, 4), v = randomMatrix(random, 6, 2);
  const previous = engine.attention(q, k, v, { heads: 2, kernel: 'materialized' });
  const kept = previous.scores.map((matrix) => matrix.data.slice());
  // 5 queries: the 5×6 matrices no longer fit the 6×6 arrays, which stay as they were.
  const shorter = engine.attention(q.slice(0, 5), k, v, { heads: 2, kernel: 'materialized', reuse: previous });
  const shorterFresh = engine.attention(q.slice(0, 5), k, v, { heads: 2, kernel: 'materialized' });
  shorter.scores.forEach((matrix, h) => {
    assert.notEqual(matrix.data, previous.scores[h].data);
    assert.deepEqual(matrix.data, shorterFresh.scores[h].data, 'a new array, holding what a fresh call returns');
    assert.deepEqual(previous.scores[h].data, kept[h], 'an array that does not fit is not touched');
  });
  // flash has no scores: only the context array is reused, overwritten with another query's context.
  const q2 = randomMatrix(random, 6, 4);
  const flash = engine.attention(q2, k, v, { heads: 2, kernel: 'flash', reuse: previous });
  assert.equal(flash.scores, null);
  assert.equal(flash.context.data, previous.context.data);
  assert.deepEqual(flash.context.data, engine.attention(q2, k, v, { heads: 2, kernel: 'flash' }).context.data);
});

test('an array listed twice in reuse serves one output only', () => {
  const q = randomMatrix(random, 4, 4), k = randomMatrix(random, 4, 4), v = randomMatrix(random, 4, 2);
  const shared = new Float32Array(16);
  const result = engine.attention(q, k, v, {
    heads: 2, kernel: 'materialized', reuse: { scores: [{ data: shared }, { data: shared }], weights: [{ data: shared }] },
  });
  assert.equal(result.scores[0].data, shared);
  assert.notEqual(result.scores[1].data, shared);
  assert.notEqual(result.weights[0].data, shared);
  const fresh = engine.attention(q, k, v, { heads: 2, kernel: 'materialized' });
  assert.deepEqual(result.scores[0].data, fresh.scores[0].data);
  assert.deepEqual(result.scores[1].data, fresh.scores[1].data);
});

test('reuse: null and foreign objects are ignored; a number or a string is refused', () => {
  const q = [[1, 2], [3, 4]];
  const fresh = engine.attention(q, q, q);
  assert.deepEqual(engine.attention(q, q, q, { reuse: null }).context.data, fresh.context.data);
  assert.deepEqual(engine.attention(q, q, q, { reuse: { context: { data: [1, 2, 3, 4] } } }).context.data, fresh.context.data);
  assert.deepEqual(engine.attention(q, q, q, { reuse: { context: { data: new Float64Array(4) } } }).context.data, fresh.context.data);
  for (const bad of [5, 'previous', true]) {
    assert.throws(() => engine.attention(q, q, q, { reuse: bad }), (error) => error instanceof Error && /reuse must be a previous result/.test(error.message));
  }
});

test('a call that fails in a later head has written the heads before it, and no other', () => {
  // 3 heads of 2 columns; head 1's scores overflow float32 at query 3 (1e20 · 1e20, unscaled)
  const inputs = (huge) => {
    const q = { rows: 5, cols: 6, data: Float32Array.from({ length: 30 }, (_, i) => Math.fround(Math.sin(i))) };
    const k = { rows: 2, cols: 6, data: Float32Array.from({ length: 12 }, (_, i) => Math.fround(Math.cos(i))) };
    if (huge) {
      q.data[0] = 2;  // and head 0's numbers differ from the previous call's
      q.data[3 * 6 + 2] = 1e20;
      k.data[0 * 6 + 2] = 1e20;
    }
    return [q, k, { rows: 2, cols: 3, data: Float32Array.of(1, 2, 3, 4, 5, 6) }];
  };
  const callOptions = { heads: 3, scale: false, kernel: 'materialized' };
  const previous = engine.attention(...inputs(false), callOptions);
  const before = [...previous.scores, ...previous.weights].map((matrix) => Float32Array.from(matrix.data));
  const words = /overflowed float32 in head 1, query 3: scores\[1\]\[3\]\[0\]/;
  assert.throws(() => engine.attention(...inputs(true), callOptions), words);
  assert.throws(() => engine.attention(...inputs(true), { ...callOptions, reuse: previous }), words);
  const head0 = engine.attention(...inputs(true), { ...callOptions, part: { heads: [0, 1] } });
  assert.deepEqual(previous.scores[0].data, head0.scores[0].data, 'head 0 holds the failed call\'s numbers');
  assert.deepEqual(previous.weights[0].data, head0.weights[0].data);
  assert.notDeepEqual(previous.scores[0].data, before[0]);
  for (const h of [1, 2]) {
    assert.deepEqual(previous.scores[h].data, before[h], `head ${h}'s scores untouched`);
    assert.deepEqual(previous.weights[h].data, before[3 + h], `head ${h}'s weights untouched`);
  }
});
