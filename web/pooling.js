// Shrinks n×m attention matrices to what a screen can show: square blocks of cells become
// one cell (their maximum or their mean), and a row or a column becomes a profile of at most
// a given number of points. Masked cells (score −Infinity) take no part; a block with no
// visible cell is masked itself. NaN in a block makes the block NaN, so that overflow stays
// visible at any zoom. Runs in the worker.

/**
 * Blocks of `block`×`block` cells over rows [row0, row0+rows) and columns [col0, col0+cols)
 * of one head (scores, weights: row-major with `stride` columns).
 * Returns {cellRows, cellCols, scores, weights, masked} with cellRows×cellCols entries.
 */
export function poolBlocks({ scores, weights, stride, row0, col0, rows, cols, block, mode }) {
  const cellRows = Math.ceil(rows / block);
  const cellCols = Math.ceil(cols / block);
  const cells = cellRows * cellCols;
  const pooledScores = new Float32Array(cells);
  const pooledWeights = new Float32Array(cells);
  const masked = new Uint8Array(cells);
  const visible = new Uint32Array(cells);
  const useMax = mode === 'max';
  pooledScores.fill(useMax ? -Infinity : 0);
  pooledWeights.fill(useMax ? -Infinity : 0);
  // pass 1: fold every visible cell into its block
  for (let i = 0; i < rows; ++i) {
    const rowOffset = (row0 + i) * stride + col0;
    const cellRowOffset = Math.floor(i / block) * cellCols;
    for (let j = 0; j < cols; ++j) {
      const score = scores[rowOffset + j];
      if (score === -Infinity) continue;
      const weight = weights[rowOffset + j];
      const cell = cellRowOffset + Math.floor(j / block);
      visible[cell] += 1;
      if (useMax) {
        // Math.max returns NaN when either side is NaN, which keeps NaN visible
        pooledScores[cell] = Math.max(pooledScores[cell], score);
        pooledWeights[cell] = Math.max(pooledWeights[cell], weight);
      } else {
        pooledScores[cell] += score;
        pooledWeights[cell] += weight;
      }
    }
  }
  // pass 2: means, and blocks with nothing visible
  for (let cell = 0; cell < cells; ++cell) {
    if (visible[cell] === 0) {
      masked[cell] = 1;
      pooledScores[cell] = -Infinity;
      pooledWeights[cell] = 0;
    } else if (!useMax) {
      pooledScores[cell] /= visible[cell];
      pooledWeights[cell] /= visible[cell];
    }
  }
  return { cellRows, cellCols, scores: pooledScores, weights: pooledWeights, masked };
}

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
