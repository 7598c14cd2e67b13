// Chart 2's numbers (web/lab/rope-curves.js): the model's RoPE weight read from the engine
// against exp(s·(g(d) − 1)) written here from core/include/attn/lab/position_model.hpp in
// float64, for each base and several strengths, and RoFormer's bounds the engine's. The
// engine's weights by distance (distanceWeights) against the model's attention they stand for;
// both calls at given distances against their whole tables.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import createAttention from '../../dist/wasm/attention.mjs';
import { ropeCurves, ropeDistances } from '../../web/lab/rope-curves.js';
import { ROPE_BASES, ROPE_HEAD_WIDTH } from '../../web/lab/state.js';

const engine = await createAttention();
// the engine's attention is float32: its ratios are this close to the float64 formula
const RELATIVE_TOLERANCE = 1e-5;

// g(d): the mean over the head's rotated pairs of cos(d·θ_t), θ_t = base^(−2t/dh).
function meanCosine(d, base, headWidth = ROPE_HEAD_WIDTH) {
  let sum = 0;
  for (let t = 0; t < headWidth / 2; ++t) sum += Math.cos(d * base ** (-2 * t / headWidth));
  return sum / (headWidth / 2);
}

describe('distanceWeights', () => {
  // One causal layer without a residual: the final token's attention to the key d before it,
  // over its attention to itself (positionCurve, O(n²) under RoPE), is K(d).
  for (const positional of [{ type: 'rope', base: 10000, headWidth: ROPE_HEAD_WIDTH, strength: 6 },
    { type: 'rope', base: 500, headWidth: 8, strength: 12 }, { type: 'alibi', slopes: [0.05] }, { type: 'none' }]) {
    test(`is the final token's attention in one causal layer: ${JSON.stringify(positional)}`, () => {
      const n = 300;
      const { values: attention } = engine.positionCurve({ n, layers: 1, residual: 0, causal: true, positional });
      const weights = engine.distanceWeights({ positional, maxDistance: n - 1 });
      assert.ok(weights instanceof Float32Array);
      assert.equal(weights.length, n);
      assert.equal(weights[0], 1);
      let worst = 0;
      for (let d = 0; d < n; ++d) {
        const expected = attention[n - 1 - d] / attention[n - 1];
        worst = Math.max(worst, Math.abs(weights[d] - expected) / expected);
      }
      assert.ok(worst < RELATIVE_TOLERANCE, `max relative difference ${worst}`);
    });
  }

  test('ALiBi is exp(−slope·d), RoPE exp(s·(g(d) − 1)), at distances a position curve would take seconds for', () => {
    const maxDistance = 2 ** 20;
    const alibi = engine.distanceWeights({ positional: { type: 'alibi', slope: 1e-5 }, maxDistance });
    assert.ok(Math.abs(alibi[maxDistance] - Math.exp(-1e-5 * maxDistance)) < 1e-6, `K(2^20) = ${alibi[maxDistance]}`);
    const rope = engine.distanceWeights({ positional: { type: 'rope', base: 10000, headWidth: 8, strength: 6 }, maxDistance: 100000 });
    for (const d of [1, 7, 1000, 99999]) {
      const expected = Math.exp(6 * (meanCosine(d, 10000, 8) - 1));
      assert.ok(Math.abs(rope[d] - expected) / expected < RELATIVE_TOLERANCE, `K(${d}) = ${rope[d]}, expected ${expected}`);
    }
  });
});

describe('at given distances', () => {
  // unsorted, repeated, as a typed array, and reaching 2^20
  const distances = [4096, 0, 1, 1, 2 ** 20, 333, 64];
  for (const [name, call] of [
    ['ropeDecay', (where) => engine.ropeDecay({ headWidth: ROPE_HEAD_WIDTH, base: 500, ...where })],
    ['distanceWeights under RoPE', (where) => engine.distanceWeights({ positional: { type: 'rope', base: 500, headWidth: 8, strength: 6 }, ...where })],
    ['distanceWeights under ALiBi', (where) => engine.distanceWeights({ positional: { type: 'alibi', slope: 1e-4 }, ...where })],
  ]) {
    test(`${name}: the whole table's entries, in the order asked`, () => {
      const whole = call({ maxDistance: 2 ** 20 });
      const sampled = call({ distances });
      assert.ok(sampled instanceof Float32Array);
      assert.deepEqual(Array.from(sampled), distances.map((d) => whole[d]));
      assert.deepEqual(call({ distances: Int32Array.from(distances) }), sampled);
      assert.deepEqual(Array.from(call({ distances: [7] })), [whole[7]]);
    });
  }
});

describe('lab chart 2', () => {
  test('the distances: every one from 0 to the longest, so that the bound\'s 13-token ripple is drawn, not aliased (base 10,000: 80 crossings of its mean from 500 to 1,023, from 0.127 to 0.411)', () => {
    assert.deepEqual(ropeDistances(4096), Array.from({ length: 4097 }, (_, d) => d));
    assert.deepEqual(ropeDistances(16), Array.from({ length: 17 }, (_, d) => d));
    const { decay } = ropeCurves(engine, { headWidth: ROPE_HEAD_WIDTH, base: 10000, strength: 6, bases: [10000], maxDistance: 1023 });
    const drawn = decay[0].values.slice(500);
    const mean = drawn.reduce((sum, v) => sum + v, 0) / drawn.length;
    const crossings = drawn.slice(1).filter((v, k) => (v - mean) * (drawn[k] - mean) < 0).length;
    assert.deepEqual([crossings, Math.min(...drawn).toFixed(3), Math.max(...drawn).toFixed(3)], [80, '0.127', '0.411']);
  });

  for (const [base, strength, maxDistance] of [[500, 6, 1024], [10000, 6, 1024], [500000, 6, 1024], [10000, 0, 256],
    [10000, 12, 256], [10000, 2.5, 4096]]) {
    test(`the model's weight is exp(s·(g(d) − 1)): base ${base}, s = ${strength}, up to ${maxDistance}`, () => {
      const { weight, decay } = ropeCurves(engine, { headWidth: ROPE_HEAD_WIDTH, base, strength, bases: ROPE_BASES, maxDistance });
      assert.deepEqual({ base: weight.base, strength: weight.strength }, { base, strength });
      assert.deepEqual(weight.distances, ropeDistances(maxDistance));
      let worst = 0;
      weight.distances.forEach((d, k) => {
        const expected = Math.exp(strength * (meanCosine(d, base) - 1));
        worst = Math.max(worst, Math.abs(weight.values[k] - expected) / expected);
      });
      assert.ok(worst < RELATIVE_TOLERANCE, `max relative difference ${worst}`);
      assert.equal(weight.values[0], 1);
      // read at the chart's distances, the whole table's entries
      const kernel = engine.distanceWeights({ positional: { type: 'rope', base, headWidth: ROPE_HEAD_WIDTH, strength }, maxDistance });
      assert.deepEqual(weight.values, weight.distances.map((d) => kernel[d] / kernel[0]));
      assert.deepEqual(decay.map((curve) => curve.base), ROPE_BASES);
      for (const curve of decay) {
        const bound = engine.ropeDecay({ headWidth: ROPE_HEAD_WIDTH, base: curve.base, maxDistance });
        assert.deepEqual(curve.values, curve.distances.map((d) => bound[d] / bound[0]));
      }
    });
  }
});
