// Shrinks n×m attention matrices to what a screen can show: square blocks of cells become
// one cell (their maximum or their mean), and a row or a column becomes a profile of at most
// a given number of points. Masked cells (score −Infinity) take no part; a block with no
// visible cell is masked itself. NaN in a block makes the block NaN, so that overflow stays
// visible at any zoom. Runs in the worker.

/**
 * region = {scores, weights, stride, row0, col0, rows, cols, block, mode}: blocks of
 * `block`×`block` cells over rows [row0, row0+rows) and columns [col0, col0+cols) of one head
 * (scores, weights: row-major with `stride` columns), each the 'max' or 'mean' of its cells.
 * Returns {cellRows, cellCols, scores, weights, masked} with cellRows×cellCols entries.
 */
export function poolBlocks(region) {
  const { rows, cols, block, mode } = region;
  const cellRows = Math.ceil(rows / block);
  const cellCols = Math.ceil(cols / block);
  const pooled = {
    cellRows, cellCols,
    scores: new Float32Array(cellRows * cellCols),
    weights: new Float32Array(cellRows * cellCols),
    masked: new Uint8Array(cellRows * cellCols),
  };
  if (block === 1) copyCells(region, pooled);
  else if (mode === 'max') poolMax(region, pooled);
  else poolMean(region, pooled);
  return pooled;
}

// Blocks of one cell, the most common case (every input up to a panel's side, every zoom down
// to it): the cells themselves, which both modes give, a row at a time, then the masked ones
// marked, their weight 0 (8 heads of 512 × 512 in Node: 6.8 ms, against 21 through the folds).
function copyCells({ scores, weights, stride, row0, col0, rows, cols }, pooled) {
  for (let i = 0; i < rows; ++i) {
    const from = (row0 + i) * stride + col0;
    pooled.scores.set(scores.subarray(from, from + cols), i * cols);
    pooled.weights.set(weights.subarray(from, from + cols), i * cols);
  }
  for (let cell = 0; cell < pooled.scores.length; ++cell) {
    if (pooled.scores[cell] === -Infinity) {
      pooled.masked[cell] = 1;
      pooled.weights[cell] = 0;
    }
  }
}

// Max pooling. Pass 1 keeps each block's running maxima while it walks the rows: a block's
// maximum soon stops changing, so the comparisons are predictable and the pass is several
// times faster than folding each row's stretch on its own. Comparisons pass over NaN, so a
// running sum of all a block sees marks the blocks with a NaN (or both infinities) in them,
// and pass 2 folds those again with Math.max, which keeps NaN.
function poolMax(region, pooled) {
  const { scores, weights, stride, row0, col0, rows, cols, block } = region;
  const { cellCols } = pooled;
  const maxScores = pooled.scores.fill(-Infinity);
  const maxWeights = pooled.weights.fill(-Infinity);
  const sums = new Float64Array(maxScores.length);
  // pass 1: running maxima, a block's stretch of one row at a time
  for (let i = 0; i < rows; ++i) {
    const rowOffset = (row0 + i) * stride + col0;
    const cellRowOffset = Math.floor(i / block) * cellCols;
    for (let c = 0; c < cellCols; ++c) {
      const cell = cellRowOffset + c;
      let score = maxScores[cell];
      let weight = maxWeights[cell];
      let sum = sums[cell];
      const end = rowOffset + Math.min(cols, (c + 1) * block);
      for (let k = rowOffset + c * block; k < end; ++k) {
        const s = scores[k];
        const w = weights[k];
        sum += s + w;
        if (s > score) score = s;
        if (w > weight && s !== -Infinity) weight = w;  // masked cells (score −Infinity) take no part
      }
      maxScores[cell] = score;
      maxWeights[cell] = weight;
      sums[cell] = sum;
    }
  }
  // pass 2: blocks with a NaN folded again, and blocks with nothing visible
  for (let cell = 0; cell < sums.length; ++cell) {
    if (Number.isNaN(sums[cell])) foldBlockWithNaN(region, pooled, cell);
    if (maxScores[cell] === -Infinity) {
      pooled.masked[cell] = 1;
      maxWeights[cell] = 0;
    }
  }
}

// One block's maxima with Math.max, which returns NaN when either side is NaN.
function foldBlockWithNaN({ scores, weights, stride, row0, col0, rows, cols, block }, pooled, cell) {
  const r = Math.floor(cell / pooled.cellCols);
  const c = cell % pooled.cellCols;
  let score = -Infinity;
  let weight = -Infinity;
  for (let i = r * block; i < Math.min(rows, (r + 1) * block); ++i) {
    for (let j = c * block; j < Math.min(cols, (c + 1) * block); ++j) {
      const k = (row0 + i) * stride + col0 + j;
      if (scores[k] === -Infinity) continue;
      score = Math.max(score, scores[k]);
      weight = Math.max(weight, weights[k]);
    }
  }
  pooled.scores[cell] = score;
  pooled.weights[cell] = weight;
}

// Mean pooling: sums and counts of the visible cells, then their quotients.
function poolMean({ scores, weights, stride, row0, col0, rows, cols, block }, pooled) {
  const { cellCols, scores: meanScores, weights: meanWeights } = pooled;
  const visible = new Uint32Array(meanScores.length);
  // pass 1: sums and counts, a block's stretch of one row at a time
  for (let i = 0; i < rows; ++i) {
    const rowOffset = (row0 + i) * stride + col0;
    const cellRowOffset = Math.floor(i / block) * cellCols;
    for (let c = 0; c < cellCols; ++c) {
      let score = 0;
      let weight = 0;
      let count = 0;
      const end = rowOffset + Math.min(cols, (c + 1) * block);
      for (let k = rowOffset + c * block; k < end; ++k) {
        const s = scores[k];
        if (s === -Infinity) continue;
        count += 1;
        score += s;
        weight += weights[k];
      }
      const cell = cellRowOffset + c;
      visible[cell] += count;
      meanScores[cell] += score;
      meanWeights[cell] += weight;
    }
  }
  // pass 2: means, and blocks with nothing visible
  for (let cell = 0; cell < visible.length; ++cell) {
    if (visible[cell] === 0) {
      pooled.masked[cell] = 1;
      meanScores[cell] = -Infinity;
      meanWeights[cell] = 0;
    } else {
      meanScores[cell] /= visible[cell];
      meanWeights[cell] /= visible[cell];
    }
  }
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
