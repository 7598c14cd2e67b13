// Chart 1, the position curve: each position's share of the final token's inputs (or of the
// attention it receives) divided by the average, on a linear or logarithmic axis, with the
// read-outs of the means of its first, middle and last tenths and a sentence naming the curve's
// shape from the same means (shape.js).
import { format } from 'd3-format';
import { createLineChart, seriesColor } from '../../shared/line-chart.js';
import { createAnnouncer } from '../../shared/page/announcer.js';
import { summaryList } from '../../shared/page/summary.js';
import { LOG_FLOOR, gapNote, logDomain } from './log-axis.js';
import { domainFromZero, percent, ratio, share, times } from './readouts.js';
import { describeShape, stretchesOf } from './shape.js';

const $ = (id) => document.getElementById(id);

/** Returns draw(curves, settings): curves is the 'curves' answer, or null. */
export function createPositionView() {
  const spoken = createAnnouncer($('position-reading-spoken'));  // the reading, once a drag stops
  const chart = createLineChart($('position-chart'), {
    xLabel: 'position in the context (relative)',
    yLabel: 'share ÷ average', xFormat: percent, yFormat: format('.2~f'),
  });

  return function draw(curves, settings) {
    if (!curves) return;
    const { values, summary } = curves.curve;
    const n = values.length;
    const context = values.subarray(0, n - 1);
    const xs = Array.from(context, (_, j) => j / Math.max(1, n - 2));
    const shares = Array.from(context, (v) => v / summary.mean);
    const highest = Math.max(...shares);
    const floor = highest * LOG_FLOOR;
    const ys = settings.logScale ? shares.map((v) => (v > floor ? v : NaN)) : shares;
    const lowestShown = Math.min(...shares.filter((v) => v > floor));
    const note = settings.logScale ? gapNote(shares, floor) : '';
    $('position-gap').hidden = note === '';
    $('position-gap').textContent = note;
    chart({
      series: [{ label: 'simulation', xs, ys, colorIndex: seriesColor(0) }],
      xDomain: [0, 1],
      yDomain: settings.logScale ? logDomain(lowestShown, highest) : domainFromZero(highest),
      yLog: settings.logScale,
    });
    // the means of the first, middle and last tenths, as the read-outs and the sentence write them: '1.34×', '3.15e-116×'
    const stretches = stretchesOf(summary);
    const [first, middle, last] = [stretches.first, stretches.middle, stretches.last].map((mean) => `${times(mean)}×`);
    summaryList($('position-summary'), [
      ['first tenth (mean)', `${first} average`],
      ['middle tenth (mean)', `${middle} average`],
      ['last tenth (mean)', `${last} average`],
      ['max ÷ min', ratio(summary.maxOverMin)],
      ['final token itself', share(values[n - 1])],
    ]);
    const what = settings.measure === 'final' ? 'influence on the final token' : 'attention received';
    const reading = `With these settings the ${what} is ${describeShape(stretches)} (its first, middle and `
      + `last tenths average ${first}, ${middle} and ${last} average).`;
    $('position-reading').textContent = reading;
    spoken.settled(reading);
  };
}
