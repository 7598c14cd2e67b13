// How numbers read on the page. Non-finite values are shown as they are: "Infinity",
// "-Infinity", "NaN", since showing overflow is part of what the page teaches.
import { format } from 'd3-format';

const FIXED_DIGITS = 4;
const SMALL = 1e-3;          // below this a fixed 4-digit number would read 0.0000
const SIGNIFICANT_DIGITS = 3;
const BYTE_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
const KIBI = 1024;
// A log axis over at most this many decades labels 1, 2 and 5 of each; over more, 1 alone
// (line-chart.js rounds a log axis out to whole decades).
const ONE_TWO_FIVE_DECADES = 2;
// A linear axis labels an end of its domain this many steps or more from the nearest tick.
const END_TICK_STEPS = 0.6;
// A log axis's label is written out up to this many characters ("0.01", "1000"), else with an
// exponent: "0.000001" would reach past a chart's left margin into its axis title.
const PLAIN_TICK_CHARS = 4;
const plainTick = format('~g');
const exponentTick = format('~e');

export function formatNumber(value, digits = FIXED_DIGITS) {
  if (!Number.isFinite(value)) return String(value);
  if (value !== 0 && Math.abs(value) < SMALL) return value.toExponential(SIGNIFICANT_DIGITS - 1);
  return value.toFixed(digits);
}

/** Bytes in binary units with three significant digits: "288 B", "64.3 KiB", "8.00 GiB", "512 GiB". */
export function formatBytes(bytes) {
  let unit = 0;
  while (bytes >= KIBI && unit < BYTE_UNITS.length - 1) {
    bytes /= KIBI;
    unit += 1;
  }
  if (unit === 0) return `${bytes} B`;
  // the digits after the point chosen from the rounded value (9.996 reads 10.0, not 10.00);
  // 1023.95 KiB rounds to "1024 KiB" rather than "1.00 MiB": four digits, the unit's last value
  const digits = Number(bytes.toFixed(2)) < 10 ? 2 : Number(bytes.toFixed(1)) < 100 ? 1 : 0;
  return `${bytes.toFixed(digits)} ${BYTE_UNITS[unit]}`;
}

const COUNT = new Intl.NumberFormat('en');
export const formatCount = (count) => COUNT.format(count);

/** A count and its noun, singular for one: "1 sink", "4 sinks", "1,024 tokens". */
export const plural = (count, word) => `${formatCount(count)} ${word}${count === 1 ? '' : 's'}`;

/** "1K" … "128K" for powers of two from 1,024, else the count itself. */
export function formatTokens(count) {
  return count >= KIBI && count % KIBI === 0 ? `${count / KIBI}K` : formatCount(count);
}

const LISTED = 8;  // items a message lists before "and k more"

/** Distinct items joined by '; ', at most LISTED of them, then how many more there are. */
export function listBriefly(items) {
  const distinct = [...new Set(items)];
  const more = distinct.length - LISTED;
  return distinct.slice(0, LISTED).join('; ') + (more > 0 ? `; and ${formatCount(more)} more` : '');
}

/**
 * The tick labels of a log axis over domain [low, high]: `format` of 1, 2 and 5 times each power
 * of ten over a few decades (1 alone over more), "" for the other ticks, which stay as marks. (d3
 * labels 1 and 2 alone there, so that a curve peaking between 2 and 10 meets no label.)
 */
export function logAxisFormat([low, high], format) {
  const mantissas = Math.log10(high / low) <= ONE_TWO_FIVE_DECADES ? [1, 2, 5] : [1];
  return (value) => (isMultipleOfPowerOfTen(value, mantissas) ? format(value) : '');
}

/** 10 to the power `exponent`, exactly as its decimal reads: 10 ** -5 is 0.000009999999999999999. */
export const powerOfTen = (exponent) => Number(`1e${exponent}`);

/** Whether `value` (> 0) is one of `mantissas` times a power of ten: 0.02 is, of [1, 2, 5]. */
export function isMultipleOfPowerOfTen(value, mantissas) {
  const mantissa = value / powerOfTen(Math.floor(Math.log10(value) + 1e-9));
  return mantissas.some((m) => Math.abs(mantissa - m) < 1e-6);
}

/**
 * A log axis's tick label, four characters from 1e-9 to 1e+9: the shortest exact form up to
 * PLAIN_TICK_CHARS characters ("0.01", "0.5", "1000"), else with an exponent ("1e-6" for
 * 0.000001, "2e-3", "1e+4").
 */
export function logTickLabel(value) {
  const plain = plainTick(value);
  return plain.length <= PLAIN_TICK_CHARS ? plain : exponentTick(value);
}

/**
 * A linear axis's ticks with the domain's ends added where the nearest tick is END_TICK_STEPS
 * of a step or more away, so that the ends are labelled (steps 0 to 1,400 in ticks of 500 end
 * at 1,400, not 1,000; pairs 1 to 16 in ticks of 5 start at 1) and no two labels crowd.
 * `ticks`: increasing, evenly spaced.
 */
export function ticksWithEnds(ticks, [low, high]) {
  if (ticks.length < 2) return [...new Set([low, ...ticks, high])];
  const room = (ticks[1] - ticks[0]) * END_TICK_STEPS;
  return [...(ticks[0] - low >= room ? [low] : []), ...ticks, ...(high - ticks.at(-1) >= room ? [high] : [])];
}
