// Grouped-query and multi-query attention (the kvHeads option) against the float64 JS
// reference, the property that kvHeads = G equals repeating each key/value head H/G times
// (bit for bit: a query head reads its key/value head's columns in place, the same floats in
// the same order as from a copy), selfAttention with wk and wv of G heads, and kvCacheMemory's
// numbers for published models.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import createAttention from '../../dist/wasm/attention.mjs';
import {
  assertAttentionClose, assertMatrixClose, attentionReference, bytesOf, mulberry32, pick, randomInt, randomMatrix,
  selfAttentionReference, toRows,
} from './reference.mjs';

const engine = await createAttention();

// (heads, kvHeads): groups of 2, 3 and 4, multi-query (kvHeads 1), and kvHeads = heads.
const PAIRS = [[2, 1], [4, 2], [4, 1], [6, 3], [6, 2], [8, 2], [3, 3]];
const SHAPES = [[5, 5], [3, 9], [9, 4], [1, 7], [12, 12]];
const MASKS = [{}, { causal: true }, { causal: true, window: 3 }, { causal: true, window: 3, sinks: 1 }, { window: 2 },
  { causal: true, prefix: 3 }];
const POSITIONALS = [{ type: 'none' }, { type: 'alibi' }, { type: 'rope' }, { type: 'rope', pairing: 'half', base: 500 }];

// Each key/value head's columns of x (G heads) repeated heads / G times in place.
function repeatHeads(rows, kvHeads, heads) {
  const width = rows[0].length / kvHeads;
  return rows.map((row) => Array.from({ length: heads }, (_, h) => {
    const g = Math.floor((h * kvHeads) / heads);
    return row.slice(g * width, (g + 1) * width);
  }).flat());
}

// Random inputs for a (heads, kvHeads) pair: q n×(H·dh), k m×(G·dh), v m×(G·dvh).
function inputs(random, n, m, heads, kvHeads) {
  const dh = 2 * randomInt(random, 1, 3), dvh = randomInt(random, 1, 4);
  return {
    q: randomMatrix(random, n, heads * dh), k: randomMatrix(random, m, kvHeads * dh), v: randomMatrix(random, m, kvHeads * dvh), dvh,
  };
}

describe('attention with kvHeads', () => {
  test('both kernels equal the float64 reference for every mask and positional encoding', () => {
    const random = mulberry32(1411);
    for (const [heads, kvHeads] of PAIRS) {
      for (const mask of MASKS) {
        for (const positional of POSITIONALS) {
          const [n, m] = pick(random, SHAPES);
          const { q, k, v, dvh } = inputs(random, n, m, heads, kvHeads);
          const options = { heads, kvHeads, ...mask, positional, scale: pick(random, [true, false, 0.6]) };
          const label = `${JSON.stringify(options)} n=${n} m=${m}`;
          const expected = attentionReference(q, k, v, options);
          const materialized = engine.attention(q, k, v, { ...options, kernel: 'materialized' });
          assert.equal(materialized.scores.length, heads, `${label}: one score matrix per query head`);
          assert.equal(materialized.context.cols, heads * dvh, `${label}: context is n×(heads·dvh)`);
          assertAttentionClose(materialized, expected, { label });
          const flash = engine.attention(q, k, v, { ...options, kernel: 'flash' });
          assert.equal(flash.scores, null);
          assertMatrixClose(flash.context, expected.context, { atol: 1e-5, label: `${label} flash` });
        }
      }
    }
  });

  test('kvHeads = G equals repeating each key/value head heads/G times, bit for bit, in both kernels', () => {
    const random = mulberry32(1412);
    for (const [heads, kvHeads] of PAIRS) {
      for (const mask of MASKS) {
        const positional = pick(random, POSITIONALS);
        for (const kernel of ['materialized', 'flash']) {
          const n = randomInt(random, 1, 40), m = randomInt(random, 1, 40);
          const { q, k, v } = inputs(random, n, m, heads, kvHeads);
          const options = { heads, ...mask, positional, kernel };
          const grouped = engine.attention(q, k, v, { ...options, kvHeads });
          const repeated = engine.attention(q, repeatHeads(k, kvHeads, heads), repeatHeads(v, kvHeads, heads), options);
          const label = `${JSON.stringify(options)} kvHeads ${kvHeads} n=${n} m=${m}`;
          assert.ok(bytesOf(grouped.context.data).equals(bytesOf(repeated.context.data)), `${label}: context`);
          assert.equal(grouped.kernel, kernel, label);
          assert.equal((grouped.weights ?? []).length, kernel === 'materialized' ? heads : 0, `${label}: a matrix per head, materialised`);
          (grouped.weights ?? []).forEach((weights, h) => {
            assert.ok(bytesOf(weights.data).equals(bytesOf(repeated.weights[h].data)), `${label}: weights of head ${h}`);
            assert.ok(bytesOf(grouped.scores[h].data).equals(bytesOf(repeated.scores[h].data)), `${label}: scores of head ${h}`);
          });
        }
      }
    }
  });

  test('multi-query attention by hand: two query heads read the one key/value head', () => {
    // q 1×4 (two heads of 2), k and v 2×2 (one head); head 0 scores (1, 0), head 1 (0, 2).
    const result = engine.attention([[1, 0, 0, 2]], [[1, 0], [0, 1]], [[10, 0], [0, 20]], { heads: 2, kvHeads: 1, scale: false });
    const e = Math.E, e2 = Math.E ** 2;
    assert.deepEqual(toRows(result.scores[0]), [[1, 0]]);
    assert.deepEqual(toRows(result.scores[1]), [[0, 2]]);
    assertMatrixClose(result.context, [[10 * e / (e + 1), 20 / (e + 1), 10 / (e2 + 1), 20 * e2 / (e2 + 1)]], { atol: 4e-6 });
  });

  test('kvHeads equal to heads changes nothing: the same bits as without it', () => {
    const random = mulberry32(1413);
    const { q, k, v } = inputs(random, 7, 9, 4, 4);
    const options = { heads: 4, causal: true, positional: { type: 'rope' } };
    const without = engine.attention(q, k, v, options);
    const with4 = engine.attention(q, k, v, { ...options, kvHeads: 4 });
    assert.ok(bytesOf(with4.context.data).equals(bytesOf(without.context.data)));
  });
});

describe('selfAttention with kvHeads', () => {
  test('wq of heads, wk and wv of kvHeads heads: q, k, v, context and output equal the reference', () => {
    const random = mulberry32(1414);
    const dIn = 6, dh = 2, dvh = 3;
    for (const [heads, kvHeads] of PAIRS) {
      for (const positional of [{ type: 'none' }, { type: 'sinusoidal' }, { type: 'rope' }, { type: 'alibi' }]) {
        const n = randomInt(random, 1, 12);
        const x = randomMatrix(random, n, dIn);
        const options = {
          heads, kvHeads, causal: random() < 0.5, positional,
          wq: randomMatrix(random, dIn, heads * dh), wk: randomMatrix(random, dIn, kvHeads * dh),
          wv: randomMatrix(random, dIn, kvHeads * dvh), wo: randomMatrix(random, heads * dvh, 2), bo: [0.5, -0.25],
        };
        const label = `heads ${heads}, kvHeads ${kvHeads}, ${positional.type}, n=${n}`;
        const expected = selfAttentionReference(x, options);
        const actual = engine.selfAttention(x, options);
        assert.deepEqual([actual.k.cols, actual.v.cols, actual.context.cols], [kvHeads * dh, kvHeads * dvh, heads * dvh], label);
        for (const name of ['q', 'k', 'v', 'output']) assertMatrixClose(actual[name], expected[name], { atol: 1e-5, label: `${label} ${name}` });
        assertAttentionClose(actual, expected, { label });
      }
    }
  });
});

describe('kvCacheMemory', () => {
  const MiB = 2 ** 20, GiB = 2 ** 30;
  const cache = (tokens, layers, kvHeads, headWidth, extra = {}) => engine.kvCacheMemory({ tokens, layers, kvHeads, headWidth, ...extra });

  test('published configurations in fp16: bytes per token and at 4K, 32K and 128K tokens', () => {
    // Llama 2 7B: 32 layers × 32 kv heads × 128 × 2 bytes × (key and value) = 524,288 bytes = 0.5 MiB a token.
    assert.equal(cache(1, 32, 32, 128), 524288);
    assert.equal(cache(4096, 32, 32, 128), 2 * GiB);
    assert.equal(cache(131072, 32, 32, 128), 64 * GiB);
    // Llama 3 8B: 8 kv heads, a quarter of that.
    assert.equal(cache(1, 32, 8, 128), 128 * 1024);
    assert.equal(cache(32768, 32, 8, 128), 4 * GiB);
    // GPT-2 small: 12 layers × 12 heads × 64.
    assert.equal(cache(1, 12, 12, 64), 36864);
    assert.equal(cache(4096, 12, 12, 64), 144 * MiB);
    // Mistral 7B: its 4,096-token window caps the cache at 512 MiB.
    for (const tokens of [4096, 32768, 131072]) assert.equal(cache(tokens, 32, 8, 128, { window: 4096 }), 512 * MiB);
    assert.equal(cache(1000, 32, 8, 128, { window: 4096 }), 1000 * 128 * 1024);
  });

  test('bytesPerElement and window defaults: fp16, unbounded; fp32 doubles it; no tokens, no bytes', () => {
    assert.equal(cache(10, 2, 3, 4), 2 * 2 * 3 * 4 * 2 * 10);
    assert.equal(cache(10, 2, 3, 4, { bytesPerElement: 4 }), 2 * cache(10, 2, 3, 4));
    assert.equal(cache(10, 2, 3, 4, { window: 0 }), cache(10, 2, 3, 4));
    assert.equal(cache(0, 32, 8, 128), 0);
  });

  test('exact up to 2^53 bytes', () => {
    assert.equal(cache(64, 2 ** 20, 2 ** 20, 32), 2 ** 53);
    assert.equal(cache(3, 1, 1, 2 ** 50 - 1, { bytesPerElement: 1 }), 6 * (2 ** 50 - 1));
    assert.throws(() => cache(65, 2 ** 20, 2 ** 20, 32), /more than 2\^53 bytes/);
  });
});
