// Which keys the walk-through's table shows of a long row, and in which order it picks them.
// Pure logic: the worker calls it, tests/js/walkthrough-keys.test.mjs checks it.

/**
 * Orders keys by weight, largest first, and equal weights by key. A NaN weight ranks before
 * every number: under naive softmax it is Infinity / Infinity, a key whose exp overflowed, so
 * its score is among the row's largest and the stable softmax would give it the largest weight.
 */
export function byWeight(weights) {
  return (a, b) => {
    const [wa, wb] = [weights[a], weights[b]];
    const nanFirst = Number(Number.isNaN(wb)) - Number(Number.isNaN(wa));
    if (Number.isNaN(wa) || Number.isNaN(wb)) return nanFirst || a - b;
    return wb - wa || a - b;
  };
}

/**
 * The rows a walk-through shows, in order: all n keys when they are at most maxRows, masked
 * ones included; else the keys the query sees (all, or those whose score is not −Infinity, the
 * engine's mark of a masked key, when `scores` are given), and of these, when there are more
 * than maxRows, the maxRows with the largest weights (byWeight: NaN ones first), the query's
 * own among them when it sees itself.
 */
export function shownKeys(weights, query, maxRows, scores = null) {
  const n = weights.length;
  let rows = Array.from({ length: n }, (_, j) => j);
  if (n <= maxRows) return rows;
  if (scores) rows = rows.filter((j) => scores[j] !== -Infinity);
  if (rows.length > maxRows) {
    const seesItself = rows.includes(query);
    rows = rows.sort(byWeight(weights)).slice(0, maxRows);
    if (seesItself && !rows.includes(query)) rows[maxRows - 1] = query;
    rows.sort((a, b) => a - b);
  }
  return rows;
}
