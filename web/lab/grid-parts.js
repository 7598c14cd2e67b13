// The needle grid's context lengths computed in parallel: the lengths dealt out to several
// engine workers with about equal work, each computing needleGrid for its lengths, and their
// rows joined back in the order of the lengths. Each row depends on its length alone (the
// same seeded trials at every length), so the joined grid is exactly the one-worker grid.

/** The work of a needle sweep at n positions: ∝ n for ALiBi or no bias, n² for RoPE. */
export function lengthCost(n, positional) {
  return positional?.type === 'rope' ? n * n : n;
}

/**
 * The indices of `lengths` in at most `workers` non-empty groups: the costliest length first,
 * each to the group with the least work so far.
 */
export function dealLengths(lengths, workers, cost) {
  const groups = Array.from({ length: Math.min(workers, lengths.length) }, () => ({ indices: [], work: 0 }));
  const order = lengths.map((_, index) => index).sort((a, b) => cost(lengths[b]) - cost(lengths[a]) || a - b);
  for (const index of order) {
    const lightest = groups.reduce((best, group) => (group.work < best.work ? group : best));
    lightest.indices.push(index);
    lightest.work += cost(lengths[index]);
  }
  return groups.map((group) => group.indices.sort((a, b) => a - b));
}

/**
 * One grid (engine.needleGrid's shape: {rows, cols, data, values, lengths, depths}) from the
 * grids of the groups, grids[g] holding the rows of lengths[groups[g][0]], lengths[groups[g][1]] …
 */
export function joinGrids(lengths, groups, grids) {
  const { cols, depths } = grids[0];
  const data = new Float32Array(lengths.length * cols);
  groups.forEach((indices, g) => {
    indices.forEach((index, row) => data.set(grids[g].data.subarray(row * cols, (row + 1) * cols), index * cols));
  });
  return { rows: lengths.length, cols, data, values: data, lengths: Int32Array.from(lengths), depths };
}
