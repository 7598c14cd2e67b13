// Profiles of big attention matrices: a row or a column becomes at most a given number of
// points (their maximum or their mean), and the keys' mean weight over queries and heads. Runs
// in the worker; blocks of cells are pooled by the engine (engine.poolBlocks).

/** values[start … start+count) in at most `points` points, each the max or mean of its stretch. */
export function poolVector(values, start, count, points, mode) {
  const stretch = Math.ceil(count / points);
  const pooled = new Float32Array(Math.ceil(count / stretch));
  for (let p = 0; p < pooled.length; ++p) {
    const first = start + p * stretch;
    const last = Math.min(start + count, first + stretch);
    let folded = mode === 'max' ? -Infinity : 0;
    for (let k = first; k < last; ++k) folded = mode === 'max' ? Math.max(folded, values[k]) : folded + values[k];
    pooled[p] = mode === 'max' ? folded : folded / (last - first);
  }
  return { stretch, values: pooled };
}

/** Mean over the rows of an n×m matrix: how much attention each key receives on average. */
export function columnMeans(weights, n, m) {
  const means = new Float32Array(m);
  for (let i = 0; i < n; ++i) {
    for (let j = 0; j < m; ++j) means[j] += weights[i * m + j];
  }
  for (let j = 0; j < m; ++j) means[j] /= n;
  return means;
}

/** Element-wise mean of equal-length vectors (the heads on display). */
export function meanOf(vectors) {
  const mean = new Float32Array(vectors[0].length);
  for (const vector of vectors) {
    for (let k = 0; k < mean.length; ++k) mean[k] += vector[k] / vectors.length;
  }
  return mean;
}
