// The difference B − A of two settings' attention, cell by cell, for the playground's
// comparison: what the A and B panels show (pooled alike), subtracted, and the symmetric
// domain its diverging colour scale takes (panelDifference runs in the worker).

/**
 * a, b: pooled panels {cellRows, cellCols, scores, weights, masked} of the same square (each
 * cellRows×cellCols, row-major). Returns {cellRows, cellCols, scores, weights, masked} of
 * B − A: masked where both are masked; a cell masked on one side only counts there with its
 * weight 0 and its score −Infinity, as the engine gives them (so its score difference is ±Infinity).
 */
export function panelDifference(a, b) {
  if (a.cellRows !== b.cellRows || a.cellCols !== b.cellCols) {
    throw new Error(`b has ${b.cellRows}×${b.cellCols} cells but a has ${a.cellRows}×${a.cellCols}`);
  }
  const cells = a.cellRows * a.cellCols;
  const difference = {
    cellRows: a.cellRows,
    cellCols: a.cellCols,
    scores: new Float32Array(cells),
    weights: new Float32Array(cells),
    masked: new Uint8Array(cells),
  };
  for (let k = 0; k < cells; ++k) {
    if (a.masked[k] && b.masked[k]) {
      difference.masked[k] = 1;
      continue;
    }
    difference.weights[k] = (b.masked[k] ? 0 : b.weights[k]) - (a.masked[k] ? 0 : a.weights[k]);
    difference.scores[k] = (b.masked[k] ? -Infinity : b.scores[k]) - (a.masked[k] ? -Infinity : a.scores[k]);
  }
  return difference;
}

/**
 * [−m, m] with m the largest |value| over the finite, unmasked cells: a diverging scale with 0
 * in its middle. [−1, 1] when every such cell is 0 (or there is none).
 */
export function symmetricDomain(values, masked) {
  let largest = 0;
  for (let k = 0; k < values.length; ++k) {
    if (masked[k] || !Number.isFinite(values[k])) continue;
    largest = Math.max(largest, Math.abs(values[k]));
  }
  return largest > 0 ? [-largest, largest] : [-1, 1];
}
