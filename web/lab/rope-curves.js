// Chart 2's numbers, from the engine at the distances the chart draws: the weight the lab's
// model gives a key d tokens away under RoPE, K(d) = exp(strength·(g(d) − 1)) with g(d) the
// mean cosine of the rotation angles (core/include/attn/lab/position_model.hpp
// distance_weights), and RoFormer's bound of a query–key dot product for each base; each
// divided by its value at distance 0. Runs in the lab's worker.

/**
 * The distances 0..maxDistance at which chart 2 is drawn: every one. RoFormer's bound oscillates
 * with a period of about 13 tokens near a thousand (base 10,000: 80 crossings of its mean from 500
 * to 1,023), which any sparser sampling aliases into a slower, narrower wave.
 */
export const ropeDistances = (maxDistance) => Array.from({ length: maxDistance + 1 }, (_, d) => d);

/**
 * {weight: {base, strength, distances, values}, decay: [{base, distances, values}]}: the
 * model's weight K(d) for `base` and `strength` (engine.distanceWeights: in one causal layer
 * without a residual, the final token's attention to the key d tokens before it over its
 * attention to itself), and RoFormer's bound for each of `bases`.
 */
export function ropeCurves(engine, { headWidth, base, strength, bases, maxDistance }) {
  const distances = ropeDistances(maxDistance);  // distances[0] is 0
  const relative = (values) => Array.from(values, (value) => value / values[0]);
  const kernel = engine.distanceWeights({ positional: { type: 'rope', base, headWidth, strength }, maxDistance });
  const weight = { base, strength, distances, values: relative(kernel) };
  const decay = bases.map((b) => ({ base: b, distances, values: relative(engine.ropeDecay({ headWidth, base: b, maxDistance })) }));
  return { weight, decay };
}
