// Chart 1's logarithmic y axis: the domain it spans and the note on the positions whose shares
// are too small for it.
import { formatCount } from '../../shared/format.js';
import { share } from './readouts.js';

// On the log scale, shares below this fraction of the largest leave a gap in the line (a
// window's start beyond its reach is exactly 0; deep primacy's end reaches 1e-20 of its start),
// and a note under the chart says how many positions it leaves out, and how many of them are 0.
export const LOG_FLOOR = 1e-6;
// The log axis spans the curve's lowest and highest shares, but never less than this factor, so
// that a nearly flat curve (0.98 to 1.02) does not fill the plot's height with its ripples.
const MIN_LOG_SPAN = 4;

/** The log axis's domain for shares from `lowest` to `highest`: theirs, widened about its geometric middle to MIN_LOG_SPAN. */
export function logDomain(lowest, highest) {
  const widen = Math.sqrt(Math.max(1, MIN_LOG_SPAN / (highest / lowest)));
  return [lowest / widen, highest * widen];
}

/**
 * The note on the shares the log axis leaves out: '', or how many, and how many of them are 0 in
 * the engine's single-precision numbers (a window's start beyond its reach; or a share below
 * float32's smallest, 1.4e-45) apart from those merely too small for the axis.
 */
export function gapNote(shares, floor) {
  const leftOut = shares.filter((v) => !(v > floor)).length;
  if (leftOut === 0) return '';
  const zeros = shares.filter((v) => v === 0).length;
  const lead = `The line leaves out ${formatCount(leftOut)} of the ${formatCount(shares.length)} positions (${share(leftOut / shares.length)}): `;
  const tiny = 'below a millionth of the highest, too small for the log axis.';
  if (zeros === 0) return `${lead}their shares are ${tiny}`;
  if (zeros === leftOut) return `${lead}their shares are 0 (in single precision).`;
  return `${lead}${formatCount(zeros)} have a share of 0 (in single precision), ${formatCount(leftOut - zeros)} a share above 0 but ${tiny}`;
}
