// The shape of chart 1's curve in words, from the means of three stretches of the context (its
// first, middle and last tenth) rather than from single positions: under RoPE the curve ripples
// from one position to the next, so that a single first token can sit above a single middle one
// on a curve whose start and middle are level.

// One stretch is clearly above another when its mean exceeds the other's by more than this
// fraction of the larger of the other's mean and the average share (1): 10% of the other, and at
// least a tenth of a fair share, so that 1e-13 is not "above" a middle of 0.
const CLEAR_MARGIN = 0.1;

/**
 * The means of the first, middle and last tenth of a position curve's context, each divided by
 * the average share, {first, middle, last}: from the engine's `summary` (its tenths, in double
 * precision, where the curve's float32 values hold a steep start, 3e-116 of the average, as 0).
 */
export function stretchesOf(summary) {
  const { firstTenth, middleTenth, lastTenth, mean } = summary;
  return { first: firstTenth / mean, middle: middleTenth / mean, last: lastTenth / mean };
}

const clearlyAbove = (a, b) => a - b > CLEAR_MARGIN * Math.max(b, 1);

/** The shape of a curve from its stretchMeans: 'a U: both ends above the middle — the middle is lost', 'primacy: …', …. */
export function describeShape({ first, middle, last }) {
  const startHigh = clearlyAbove(first, middle);
  const endHigh = clearlyAbove(last, middle);
  if (startHigh && endHigh) return 'a U: both ends above the middle — the middle is lost';
  if (startHigh) return 'primacy: the start dominates';
  if (endHigh) return 'recency: the end dominates';
  const startLow = clearlyAbove(middle, first);
  const endLow = clearlyAbove(middle, last);
  if (startLow && endLow) return 'the middle above both ends';
  if (startLow) return 'low at the start, level from the middle to the end';
  if (endLow) return 'level from the start to the middle, low at the end';
  return 'nearly flat: no position is favoured';
}
