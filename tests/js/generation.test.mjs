// Generation step by step (web/playground/generation.js): which tokens the key/value cache
// holds and which it has evicted at each step, for windows and sinks, its bytes, and one
// decoding step through the engine (the last token's query against the cache) against the
// full causal matrix's row, over RoPE, ALiBi, sinusoidal positions, projections, heads and
// grouped-query heads.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import createAttention from '../../dist/wasm/attention.mjs';
import { cacheEntries, decodeStep, fedRows, fitStep, generationRegion, kvCacheBytes } from '../../web/playground/generation.js';

const engine = await createAttention();
const TOLERANCE = 1e-6;

// The keys the engine lets query `step` see (causal, window, sinks), from its own weights:
// the row of a causal matrix over step + 1 tokens whose scores are not −Infinity.
function visibleKeys(step, window, sinks) {
  const x = engine.torchGenerator(step).rand(step + 1, 2);
  const { scores } = engine.selfAttention(x, { causal: true, window, sinks });
  const row = scores[0].data.subarray(step * (step + 1));
  return Array.from(row, (score, j) => j).filter((j) => row[j] !== -Infinity);
}

const cached = (entries) => entries.filter((entry) => entry.evictedAt === null).map((entry) => entry.token);

describe('the cache at each step', () => {
  test('without a window every token fed so far is cached', () => {
    for (let step = 0; step < 12; ++step) {
      const entries = cacheEntries({ step, window: 0, sinks: 3 });
      assert.deepEqual(entries.map((entry) => entry.token), Array.from({ length: step + 1 }, (_, j) => j));
      assert.deepEqual(cached(entries), entries.map((entry) => entry.token));
    }
  });

  test('a window of 3: at step 5 tokens 0, 1, 2 left at steps 3, 4, 5', () => {
    assert.deepEqual(cacheEntries({ step: 5, window: 3, sinks: 0 }), [
      { token: 0, evictedAt: 3 }, { token: 1, evictedAt: 4 }, { token: 2, evictedAt: 5 },
      { token: 3, evictedAt: null }, { token: 4, evictedAt: null }, { token: 5, evictedAt: null },
    ]);
  });

  test('a window of 3 and 1 sink: token 0 stays, token 1 left at step 4', () => {
    assert.deepEqual(cacheEntries({ step: 5, window: 3, sinks: 1 }), [
      { token: 0, evictedAt: null }, { token: 1, evictedAt: 4 }, { token: 2, evictedAt: 5 },
      { token: 3, evictedAt: null }, { token: 4, evictedAt: null }, { token: 5, evictedAt: null },
    ]);
  });

  test('the cached tokens are the keys the engine shows the newest query (windows 1–6, sinks 0–3, steps 0–15)', () => {
    for (let window = 1; window <= 6; ++window) {
      for (let sinks = 0; sinks <= 3; ++sinks) {
        for (let step = 0; step < 16; ++step) {
          assert.deepEqual(cached(cacheEntries({ step, window, sinks })), visibleKeys(step, window, sinks),
            `window ${window}, sinks ${sinks}, step ${step}`);
        }
      }
    }
  });

  test('an evicted token stays evicted, at the step it left', () => {
    for (const [window, sinks] of [[2, 0], [4, 1], [3, 5]]) {
      const left = new Map();
      for (let step = 0; step < 20; ++step) {
        for (const { token, evictedAt } of cacheEntries({ step, window, sinks })) {
          if (evictedAt === null) {
            assert.ok(!left.has(token), `token ${token} back in the cache at step ${step}`);
          } else {
            assert.ok(evictedAt <= step && evictedAt === token + window);
            if (!left.has(token)) assert.equal(evictedAt, step, `token ${token} first seen evicted at its step`);
            left.set(token, evictedAt);
          }
        }
      }
    }
  });

  test('a step fits the tokens: 0 to n − 1', () => {
    assert.deepEqual([fitStep(-1, 6), fitStep(0, 6), fitStep(5, 6), fitStep(9, 6)], [0, 0, 5, 5]);
  });

  test('the rows on display: all without generation, those fed so far with it, none of a square below the step', () => {
    const whole = { row0: 0, col0: 0, size: 6 };
    const zoomed = { row0: 2, col0: 0, size: 3 };
    assert.equal(fedRows({ generate: false, generationStep: 2 }, whole, 6), 6);
    assert.deepEqual([0, 2, 5, 9].map((generationStep) => fedRows({ generate: true, generationStep }, whole, 6)), [1, 3, 6, 6]);
    assert.deepEqual([1, 3, 5].map((generationStep) => fedRows({ generate: true, generationStep }, zoomed, 6)), [0, 2, 3]);
    // a zoom below the step gives way to the whole matrix; one the step reaches stays
    assert.deepEqual(generationRegion({ generate: true, generationStep: 1, zoom: zoomed }, 6), whole);
    assert.deepEqual(generationRegion({ generate: true, generationStep: 2, zoom: zoomed }, 6), zoomed);
    assert.deepEqual(generationRegion({ generate: false, generationStep: 0, zoom: zoomed }, 6), zoomed);
  });
});

describe('the cache’s bytes', () => {
  test('engine.kvCacheMemory: 2 · kvHeads · headWidth · bytes per cached token, one token a step, up to window + sinks', () => {
    const model = { kvHeads: 2, headWidth: 4 };
    const perToken = { 2: 2 * 2 * 4 * 2, 4: 2 * 2 * 4 * 4 };
    for (const bytesPerElement of [2, 4]) {
      for (const [window, sinks] of [[0, 0], [0, 2], [3, 0], [3, 2], [5, 1]]) {
        for (let step = 0; step < 12; ++step) {
          const count = cached(cacheEntries({ step, window, sinks })).length;
          assert.equal(kvCacheBytes(engine, { ...model, step, bytesPerElement, window, sinks }), count * perToken[bytesPerElement],
            `fp${8 * bytesPerElement}, window ${window}, sinks ${sinks}, step ${step}`);
        }
      }
    }
  });

  test('a window of 4 with 1 sink: 1,2,3,4,5,5,5 tokens’ worth in fp16 (one head of width 8)', () => {
    const bytes = Array.from({ length: 7 }, (_, step) => kvCacheBytes(engine, {
      step, kvHeads: 1, headWidth: 8, bytesPerElement: 2, window: 4, sinks: 1,
    }));
    assert.deepEqual(bytes, [32, 64, 96, 128, 160, 160, 160]);
  });
});

describe('a decoding step equals the full causal matrix’s row', () => {
  const cases = [
    { name: 'no weights, one head', dims: 4, weights: false, options: { heads: 1, positional: { type: 'none' } } },
    { name: 'projections, 2 heads, RoPE', dims: 6, weights: true, options: { heads: 2, positional: { type: 'rope', base: 100 } } },
    { name: 'RoPE halves, window 3, 1 sink', dims: 4, weights: true,
      options: { heads: 2, window: 3, sinks: 1, positional: { type: 'rope', pairing: 'half' } } },
    { name: 'ALiBi, 2 heads, window 4', dims: 4, weights: false, options: { heads: 2, window: 4, positional: { type: 'alibi' } } },
    { name: 'sinusoidal, unscaled', dims: 4, weights: true, options: { heads: 1, scale: false, positional: { type: 'sinusoidal' } } },
    { name: 'grouped-query: 2 heads on 1 key/value head, RoPE, window 3', dims: 4, weights: true, keyValueWidth: 2,
      options: { heads: 2, kvHeads: 1, window: 3, positional: { type: 'rope' } } },
  ];
  for (const { name, dims, weights, keyValueWidth = 4, options } of cases) {
    test(name, () => {
      const n = 9;
      const generator = engine.torchGenerator(7);
      const x = generator.rand(n, dims);
      const projections = weights
        ? { wq: generator.rand(dims, 4), wk: generator.rand(dims, keyValueWidth), wv: generator.rand(dims, keyValueWidth) }
        : {};
      const full = engine.selfAttention(x, { ...options, ...projections, causal: true });
      for (let step = 0; step < n; ++step) {
        const decoded = decodeStep(engine, { q: full.q, k: full.k, v: full.v, step, options });
        for (let h = 0; h < options.heads; ++h) {
          const row = full.weights[h].data.subarray(step * n, step * n + step + 1);
          const scores = full.scores[h].data.subarray(step * n, step * n + step + 1);
          assert.equal(decoded.weights[h].cols, step + 1);
          for (let j = 0; j <= step; ++j) {
            assert.ok(Math.abs(decoded.weights[h].data[j] - row[j]) <= TOLERANCE, `step ${step}, head ${h}, key ${j}: weight`);
            if (scores[j] === -Infinity) assert.equal(decoded.scores[h].data[j], -Infinity);
            else assert.ok(Math.abs(decoded.scores[h].data[j] - scores[j]) <= TOLERANCE * Math.max(1, Math.abs(scores[j])));
          }
          const later = full.weights[h].data.subarray(step * n + step + 1, (step + 1) * n);
          assert.ok(later.every((w) => w === 0), 'nothing after the step in the full row');
        }
        const contextRow = full.context.data.subarray(step * full.context.cols, (step + 1) * full.context.cols);
        decoded.context.data.forEach((value, c) => assert.ok(Math.abs(value - contextRow[c]) <= TOLERANCE, `context ${c}`));
      }
    });
  }
});
