// engine.rope, which the playground's walk-through shows q and k through: the rotated q and k
// of a query and a key, dotted and scaled, are attention's score under RoPE.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import createAttention from '../../dist/wasm/attention.mjs';
import { mulberry32, randomMatrix } from './reference.mjs';

const engine = await createAttention();
const SCORE_TOLERANCE = 1e-5;  // a float32 score against the float64 dot product of float32 vectors

// A seeded rows×cols matrix as {rows, cols, data}.
function matrix(random, rows, cols) {
  return { rows, cols, data: Float32Array.from(randomMatrix(random, rows, cols).flat()) };
}

// Row r of a {rows, cols, data} matrix, columns [c0, c0 + width).
const slice = ({ cols, data }, r, c0, width) => data.slice(r * cols + c0, r * cols + c0 + width);

test('rope: rotated q · rotated k × scale is attention\'s score under RoPE, in each head, both pairings', () => {
  const random = mulberry32(7);
  for (const [n, heads, dh, pairing, base] of [[5, 1, 4, 'interleaved', 10000], [9, 2, 6, 'half', 500], [3, 3, 2, 'interleaved', 10000]]) {
    const q = matrix(random, n, heads * dh);
    const k = matrix(random, n, heads * dh);
    const positional = { type: 'rope', base, pairing };
    const { scores } = engine.attention(q, k, k, { heads, positional });
    for (let h = 0; h < heads; ++h) {
      for (let i = 0; i < n; ++i) {
        const qi = engine.rope({ rows: 1, cols: dh, data: slice(q, i, h * dh, dh) }, { firstPosition: i, base, pairing }).data;
        for (let j = 0; j < n; ++j) {
          const kj = engine.rope({ rows: 1, cols: dh, data: slice(k, j, h * dh, dh) }, { firstPosition: j, base, pairing }).data;
          const score = qi.reduce((sum, value, t) => sum + value * kj[t], 0) / Math.sqrt(dh);
          const expected = scores[h].data[i * n + j];
          assert.ok(Math.abs(score - expected) <= SCORE_TOLERANCE, `n ${n}, head ${h}, (${i}, ${j}): ${score} vs ${expected}`);
        }
      }
    }
  }
});

test('rope: the whole matrix at once is its rows one by one, and position 0 leaves a row as it is', () => {
  const random = mulberry32(3);
  const x = matrix(random, 4, 8);
  const all = engine.rope(x, { heads: 2, firstPosition: 5 });
  for (let r = 0; r < 4; ++r) {
    for (let h = 0; h < 2; ++h) {
      const row = engine.rope({ rows: 1, cols: 4, data: slice(x, r, 4 * h, 4) }, { firstPosition: 5 + r }).data;
      assert.deepEqual(Array.from(slice(all, r, 4 * h, 4)), Array.from(row));
    }
  }
  // row 0 sits at position 0, where every angle is 0
  assert.deepEqual(Array.from(slice(engine.rope(x, { heads: 2 }), 0, 0, 8)), Array.from(slice(x, 0, 0, 8)));
});

test('rope: a width the heads do not split, an odd head width and a negative position are errors that say so', () => {
  const x = { rows: 1, cols: 6, data: new Float32Array(6) };
  assert.throws(() => engine.rope(x, { heads: 4 }), /x has 6 columns, which heads = 4 does not divide/);
  assert.throws(() => engine.rope(x, { heads: 2 }), /even head width/);
  assert.throws(() => engine.rope(x, { firstPosition: -1 }), /firstPosition must be a whole number/);
  assert.throws(() => engine.rope(x, { turn: 1 }), /turn/);
});
