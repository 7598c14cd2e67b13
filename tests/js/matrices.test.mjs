// Matrix inputs in both forms of wasm/attention.d.ts (MatrixInput), and outputs that are
// {rows, cols, data: Float32Array} copies owned by the caller, valid after later calls (also
// after wasm memory grows).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import createAttention from '../../dist/wasm/attention.mjs';
import {
  assertAttentionClose, attentionReference, bytesOf, mulberry32, randomMatrix, toFlat, toRows,
} from './reference.mjs';

const engine = await createAttention();

const random = mulberry32(100);
const q = randomMatrix(random, 4, 8), k = randomMatrix(random, 7, 8), v = randomMatrix(random, 7, 4);
const OPTIONS = { heads: 2, causal: true, positional: { type: 'rope', pairing: 'half' } };

function allBytes(result) {
  return Buffer.concat([...result.scores, ...result.weights, result.context].map((m) => bytesOf(m.data)));
}

test('number[][], {data: Float32Array} and {data: number[]} give the same bytes, and match the reference', () => {
  const fromRows = engine.attention(q, k, v, OPTIONS);
  assertAttentionClose(fromRows, attentionReference(q, k, v, OPTIONS));
  const fromFloat32 = engine.attention(toFlat(q), toFlat(k), toFlat(v), OPTIONS);
  const fromNumbers = engine.attention(toFlat(q, 'number[]'), toFlat(k, 'number[]'), toFlat(v, 'number[]'), OPTIONS);
  assert.ok(Array.isArray(toFlat(q, 'number[]').data));
  assert.ok(allBytes(fromRows).equals(allBytes(fromFloat32)), 'Float32Array form differs');
  assert.ok(allBytes(fromRows).equals(allBytes(fromNumbers)), 'number[] form differs');
  // Forms may be mixed.
  const mixed = engine.attention(q, toFlat(k), toFlat(v, 'number[]'), OPTIONS);
  assert.ok(allBytes(fromRows).equals(allBytes(mixed)), 'mixed forms differ');
});

test('selfAttention and walkthrough take both forms too', () => {
  const x = randomMatrix(mulberry32(101), 5, 4);
  const w = randomMatrix(mulberry32(102), 4, 4);
  const a = engine.selfAttention(x, { wq: w, wk: w, wv: w, heads: 2 });
  const b = engine.selfAttention(toFlat(x), { wq: toFlat(w), wk: toFlat(w, 'number[]'), wv: toFlat(w), heads: 2 });
  assert.ok(bytesOf(a.output.data).equals(bytesOf(b.output.data)));
  const walkRows = engine.walkthrough(x, { query: 2 });
  const walkFlat = engine.walkthrough(toFlat(x, 'number[]'), { query: 2 });
  assert.ok(bytesOf(walkRows.context).equals(bytesOf(walkFlat.context)));
});

test('outputs are {rows, cols, data: Float32Array} with shapes n×m (H of them) and n×dv', () => {
  const result = engine.attention(q, k, v, OPTIONS);
  assert.equal(result.scores.length, 2);
  assert.equal(result.weights.length, 2);
  for (const matrix of [...result.scores, ...result.weights]) {
    assert.deepEqual([matrix.rows, matrix.cols], [4, 7]);
    assert.ok(matrix.data instanceof Float32Array);
    assert.equal(matrix.data.length, 28);
  }
  assert.deepEqual([result.context.rows, result.context.cols], [4, 4]);
  assert.ok(result.context.data instanceof Float32Array);
});

test('output data are copies: their own buffers, not views of the wasm heap', () => {
  const result = engine.attention(q, k, v, OPTIONS);
  for (const matrix of [...result.scores, ...result.weights, result.context]) {
    assert.equal(matrix.data.byteOffset, 0);
    assert.equal(matrix.data.buffer.byteLength, matrix.data.byteLength, 'data must own its buffer');
  }
  // Two results never share memory.
  const again = engine.attention(q, k, v, OPTIONS);
  assert.notEqual(again.context.data.buffer, result.context.data.buffer);
});

test('the caller owns outputs: changing one does not change later answers', () => {
  const first = engine.attention(q, k, v, OPTIONS);
  const expected = Buffer.from(allBytes(first));
  first.context.data.fill(123);
  first.weights[0].data.fill(-1);
  const second = engine.attention(q, k, v, OPTIONS);
  assert.ok(allBytes(second).equals(expected));
});

test('a result stays valid after later calls, including one that grows wasm memory', () => {
  const first = engine.attention(q, k, v, OPTIONS);
  const walk = engine.walkthrough(q, { query: 1 });
  const generated = engine.torchGenerator(5).linear(3, 2);
  const influence = engine.rollout({ n: 9, layers: 2 }).influence;
  const snapshots = [Buffer.from(allBytes(first)), Buffer.from(bytesOf(walk.context)),
    Buffer.from(bytesOf(generated.weight.data)), Buffer.from(bytesOf(generated.bias)), Buffer.from(bytesOf(influence))];

  // 1500×1500 materialised, two matrices: 18 MB, more than the heap held before.
  const heapBefore = engine.memoryBytes;
  const big = randomMatrix(mulberry32(103), 1500, 2);
  const large = engine.attention(big, big, big, { kernel: 'materialized' });
  assert.equal(large.scores[0].data.length, 1500 * 1500);
  assert.ok(engine.memoryBytes > heapBefore, `the wasm memory grew from ${heapBefore} bytes (now ${engine.memoryBytes})`);

  const now = [allBytes(first), bytesOf(walk.context), bytesOf(generated.weight.data), bytesOf(generated.bias),
    bytesOf(influence)];
  now.forEach((bytes, index) => assert.ok(bytes.equals(snapshots[index]), `result ${index} changed`));
  // And the engine still gives the same answer afterwards.
  assert.ok(allBytes(engine.attention(q, k, v, OPTIONS)).equals(snapshots[0]));
});

test('a Float32Array input is not modified by the call', () => {
  const flat = toFlat(q);
  const before = Buffer.from(bytesOf(flat.data));
  engine.attention(flat, flat, flat, { positional: { type: 'rope' }, heads: 2 });
  assert.ok(bytesOf(flat.data).equals(before));
  assert.deepEqual(toRows(flat), q);
});
