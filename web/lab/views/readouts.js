// How the lab's read-outs write their numbers, and the room its linear charts leave above
// their highest value.
import { format } from 'd3-format';

// A multiple: three significant digits, with an exponent when very small or large (546, 0.0123,
// 1.53e-8, 8.04e+22), so that nothing above 0 reads "0".
export const times = format('.3~g');
/** A share in percent, in the three significant digits of `times` (8.27e-23%, not "0.0%"). */
export const share = (value) => `${times(value * 100)}%`;
export const percent = format('.0%');
export const mass = format('.3g');  // three significant digits, zeros kept: 0.00300 beside 0.00601
export const ratio = (value) => (Number.isFinite(value) ? `${times(value)}×` : '∞ (some value is 0)');

const HEADROOM = 1.05;  // a linear y axis reaches this far above the highest value

/** A y domain from 0 to a little above `highest` ([0, 1] when there is nothing to show). */
export const domainFromZero = (highest) => [0, highest * HEADROOM || 1];

/** The depth where a needle sweep retrieves least: {value, depth} (the first such depth). */
export function worstOf(sweep) {
  const values = Array.from(sweep.retrieval);
  const k = values.indexOf(Math.min(...values));
  return { value: values[k], depth: sweep.depths[k] };
}

/** How the needle experiments' retrieval reads: attention mass, or a top-1 rate. */
export const metricFormat = (settings) => (settings.metric === 'mass' ? mass : percent);

export const RATE_DOMAIN = [0, 1];  // a top-1 rate runs from never to always

/**
 * Each point's tooltip on a retrieval chart, as the line chart writes one ('label: depth → value'),
 * with the value as the read-outs write it (metricFormat): 'attention mass on the needle: 0% → 0.00601'.
 */
export const retrievalTitles = (settings, label, depths, values) => Array.from(values,
  (value, k) => `${label}: ${percent(depths[k])} → ${metricFormat(settings)(value)}`);

/**
 * The y axis of a retrieval chart whose highest value is `highest`: {yDomain, yFormat, yLabel},
 * titled with what the metric measures (a rate in percent from 0 to 100%).
 */
export const retrievalAxis = (settings, highest) => (settings.metric === 'mass'
  ? { yDomain: domainFromZero(highest), yLabel: 'attention mass on the needle' }
  : { yDomain: RATE_DOMAIN, yFormat: percent, yLabel: 'top-1 rate over trials' });

