// The additive causal mask both peers add to their n×n scores: 0 where key j is visible to
// query i (j ≤ i), -infinity above the diagonal, so that softmax gives those keys weight 0.
export function causalMask(n) {
  const mask = new Float32Array(n * n);
  for (let i = 0; i < n; ++i) mask.fill(-Infinity, i * n + i + 1, (i + 1) * n);
  return mask;
}
