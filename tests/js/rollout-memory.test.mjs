// engine.rollout (residual-aware attention rollout), engine.attentionMemory and
// engine.ropeDecay.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import createAttention from '../../dist/wasm/attention.mjs';
import { assertArrayClose, rolloutReference } from './reference.mjs';

const engine = await createAttention();

const sum = (array) => Array.from(array).reduce((a, b) => a + b, 0);

describe('rollout', () => {
  const CASES = [
    { n: 1 },
    { n: 7 },
    { n: 10, layers: 3 },
    { n: 12, layers: 2, residual: 0.4 },
    { n: 9, layers: 4, residual: 0.9, positional: { type: 'alibi', slope: 0.3 } },
    { n: 8, causal: false },
    { n: 8, causal: false, layers: 3, positional: { type: 'alibi', slope: 1 } },
    { n: 15, layers: 2, window: 4, sinks: 2 },
    { n: 15, layers: 3, window: 3, causal: false, sinks: 1, residual: 0.2 },
    { n: 6, layers: 5, residual: 1 },
    { n: 300, layers: 4, residual: 0.3, window: 20, sinks: 4, positional: { type: 'alibi', slope: 0.05 } },
    { n: 257, layers: 3, causal: false, window: 9, sinks: 2 },
    { n: 200, layers: 6, positional: { type: 'alibi', slope: 30 } },
  ];

  test('influence is a Float32Array of n that sums to 1 and matches the matrix-product reference', () => {
    for (const options of CASES) {
      const { influence } = engine.rollout(options);
      const label = JSON.stringify(options);
      assert.ok(influence instanceof Float32Array, label);
      assert.equal(influence.length, options.n, label);
      assert.ok(Math.abs(sum(influence) - 1) < 1e-5, `${label}: sums to ${sum(influence)}`);
      for (const x of influence) assert.ok(x >= 0, `${label}: negative influence ${x}`);
      const expected = rolloutReference({ ...options, slope: options.positional?.slope ?? 0 });
      assertArrayClose(influence, expected, { atol: 1e-6, label });
    }
  });

  test('one causal layer without decay is uniform: 1/n everywhere', () => {
    for (const n of [1, 2, 5, 64]) {
      assertArrayClose(engine.rollout({ n }).influence, new Array(n).fill(1 / n), { atol: 1e-7, label: `n=${n}` });
    }
  });

  test('two or more causal layers: primacy, influence strictly decreasing with position', () => {
    for (const [n, layers] of [[5, 2], [16, 3], [40, 6]]) {
      const { influence } = engine.rollout({ n, layers });
      for (let j = 1; j < n; ++j) {
        assert.ok(influence[j] < influence[j - 1], `n=${n} L=${layers}: influence[${j}] = ${influence[j]} ≥ influence[${j - 1}]`);
      }
    }
  });

  test('one ALiBi layer: recency, influence strictly increasing with position', () => {
    for (const slope of [0.1, 0.5, 2]) {
      const { influence } = engine.rollout({ n: 12, positional: { type: 'alibi', slope } });
      for (let j = 1; j < 12; ++j) {
        assert.ok(influence[j] > influence[j - 1], `slope ${slope}: influence[${j}] ≤ influence[${j - 1}]`);
      }
    }
  });

  test('residual 1 keeps all influence on the final token', () => {
    assert.deepEqual(Array.from(engine.rollout({ n: 5, layers: 3, residual: 1 }).influence), [0, 0, 0, 0, 1]);
  });
});

describe('attentionMemory', () => {
  test('materialised: heads·n·m·bytesPerElement', () => {
    assert.equal(engine.attentionMemory({ n: 32768, bytesPerElement: 2 }), 2 * 1024 ** 3);  // 32K fp16 = 2 GiB
    assert.equal(engine.attentionMemory({ n: 1000 }), 1000 * 1000 * 4);                     // m = n, fp32
    assert.equal(engine.attentionMemory({ n: 100, m: 300, heads: 8, bytesPerElement: 2 }), 8 * 100 * 300 * 2);
    assert.equal(engine.attentionMemory({ n: 4096, heads: 32, kernel: 'materialized' }), 32 * 4096 * 4096 * 4);
  });

  test('flash: a tile working set (16 rows × 512 keys and two numbers a row), independent of n and m beyond it, much smaller', () => {
    const small = engine.attentionMemory({ n: 1000, kernel: 'flash' });
    const large = engine.attentionMemory({ n: 100000, m: 50000, kernel: 'flash' });
    assert.equal(small, 16 * (512 + 2) * 4);
    assert.equal(small, large);
    assert.ok(small * 1000 < engine.attentionMemory({ n: 32768 }), `flash ${small} bytes is not much smaller`);
    assert.ok(small < engine.attentionMemory({ n: 128 }), 'flash beats even a short materialised call');
    assert.equal(engine.attentionMemory({ n: 1000, heads: 4, bytesPerElement: 2, kernel: 'flash' }), 4 * 2 * small / 4);
  });

  test('flash on fewer queries or keys than a tile: the part of the tile it uses', () => {
    // the playground's own 11 tokens with 4 heads: 11 rows of 11 scores and two numbers each
    assert.equal(engine.attentionMemory({ n: 11, heads: 4, kernel: 'flash' }), 4 * 11 * (11 + 2) * 4);
    assert.equal(engine.attentionMemory({ n: 3, m: 5000, kernel: 'flash' }), 3 * (512 + 2) * 4);
    assert.equal(engine.attentionMemory({ n: 5000, m: 40, bytesPerElement: 2, kernel: 'flash' }), 16 * (40 + 2) * 2);
  });
});

describe('ropeDecay', () => {
  // RoFormer's bound: (1/(d/2)) Σ_{k=1..d/2} |S_k|, S_k = Σ_{t<k} e^{i·r·θ_t}, θ_t = base^(−2t/d).
  function reference(headWidth, base, maxDistance) {
    const half = headWidth / 2;
    return Array.from({ length: maxDistance + 1 }, (_, r) => {
      let re = 0, im = 0, total = 0;
      for (let t = 0; t < half; ++t) {
        const theta = base ** (-2 * t / headWidth);
        re += Math.cos(r * theta);
        im += Math.sin(r * theta);
        total += Math.hypot(re, im);
      }
      return total / half;
    });
  }

  test('matches the RoFormer bound; distance 0 gives (d/2 + 1)/2', () => {
    const decay = engine.ropeDecay({ headWidth: 64, maxDistance: 200 });
    assert.ok(decay instanceof Float32Array);
    assert.equal(decay.length, 201);
    assert.ok(Math.abs(decay[0] - 16.5) < 1e-5);
    assertArrayClose(decay, reference(64, 10000, 200), { atol: 1e-4, rtol: 1e-5, label: 'base 10000' });
    assertArrayClose(engine.ropeDecay({ headWidth: 8, base: 500, maxDistance: 30 }), reference(8, 500, 30),
      { atol: 1e-5, rtol: 1e-5, label: 'base 500' });
  });
});
