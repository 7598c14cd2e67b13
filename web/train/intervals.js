// How sure a held-out accuracy is: how many questions each position of the queried pair was
// measured on, and the Wilson score interval of an accuracy measured on n questions.

// The normal quantile of a two-sided 95% interval.
const Z_95 = 1.959963984540054;

/**
 * How many of `sequences` held-out sequences of `pairs` pairs ask about each position: the
 * engine asks sequence s about pair s mod pairs (retrieval.hpp evaluation_query), so each
 * position gets ⌊sequences / pairs⌋ questions, the first sequences mod pairs one more: the
 * counts of evaluateRetrieval's questionsByPosition (tests/js/training.test.mjs holds them
 * equal), here from a run's settings alone, which its checkpoints and saved files share.
 */
export function questionsByPosition(sequences, pairs) {
  const each = Math.floor(sequences / pairs);
  return Array.from({ length: pairs }, (_, i) => each + (i < sequences % pairs ? 1 : 0));
}

/**
 * The Wilson score interval [low, high] of an accuracy p measured on n questions, at z
 * (95% by default): (p + z²/2n ± z·√(p(1 − p)/n + z²/4n²)) / (1 + z²/n).
 */
export function wilsonInterval(p, n, z = Z_95) {
  const z2n = (z * z) / n;
  const centre = p + z2n / 2;
  const half = z * Math.sqrt((p * (1 - p)) / n + z2n / (4 * n));
  return [(centre - half) / (1 + z2n), (centre + half) / (1 + z2n)];
}
