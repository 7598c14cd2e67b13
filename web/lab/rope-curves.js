// Chart 2's numbers, from the engine at the distances the chart draws: the weight the lab's
// model gives a key d tokens away under RoPE, K(d) = exp(strength·(g(d) − 1)) with g(d) the
// mean cosine of the rotation angles (core/include/attn/lab/position_model.hpp
// distance_weights), and RoFormer's bound of a query–key dot product for each base; each
// divided by its value at distance 0. Runs in the lab's worker.

// Distances sampled: every distance up to this, then log-spaced (the chart's x axis is
// logarithmic).
const DENSE_DISTANCES = 64;
const LOG_SAMPLES = 160;

/** The distances 0..maxDistance at which chart 2 is sampled, ascending. */
export function ropeDistances(maxDistance) {
  const distances = new Set();
  for (let d = 0; d <= Math.min(DENSE_DISTANCES, maxDistance); ++d) distances.add(d);
  const ratio = Math.log(maxDistance / DENSE_DISTANCES) / LOG_SAMPLES;
  for (let k = 1; k <= LOG_SAMPLES && maxDistance > DENSE_DISTANCES; ++k) {
    distances.add(Math.min(maxDistance, Math.round(DENSE_DISTANCES * Math.exp(ratio * k))));
  }
  return [...distances].sort((a, b) => a - b);
}

/**
 * {weight: {base, strength, distances, values}, decay: [{base, distances, values}]}: the
 * model's weight K(d) for `base` and `strength` (engine.distanceWeights: in one causal layer
 * without a residual, the final token's attention to the key d tokens before it over its
 * attention to itself), and RoFormer's bound for each of `bases`.
 */
export function ropeCurves(engine, { headWidth, base, strength, bases, maxDistance }) {
  const distances = ropeDistances(maxDistance);  // distances[0] is 0
  const relative = (values) => Array.from(values, (value) => value / values[0]);
  const kernel = engine.distanceWeights({ positional: { type: 'rope', base, headWidth, strength }, distances });
  const weight = { base, strength, distances, values: relative(kernel) };
  const decay = bases.map((b) => ({ base: b, distances, values: relative(engine.ropeDecay({ headWidth, base: b, distances })) }));
  return { weight, decay };
}
