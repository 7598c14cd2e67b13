// Published data (never mixed with a page's own curves): Liu et al.'s accuracy by the position
// of the answer document for a number of documents, and two reference lines of each model in
// its colour: dashed, its closed-book accuracy (no documents), which the middle can fall below;
// dotted, its oracle accuracy (only the document with the answer), which even the best
// position stays below. The lab (chart 5) and the Train page draw it.
import { format } from 'd3-format';
import { KEY_COLOR, createLineChart, seriesColor } from './line-chart.js';
import { curvesFor } from './published-data.js';

const MARGIN_POINTS = 3;      // percentage points of room above and below the curves
const percent = format('.1f');

/** The legend's keys of the two reference lines. */
export const CLOSED_BOOK_KEY = 'dashed: the same model with no documents (closed book)';
export const ORACLE_KEY = 'dotted: the same model given only the document with the answer (oracle)';

/** Binds the chart to `svg` and `legend` (a <ul class="chart-legend">); returns draw(documents). */
export function createPublishedChart(svg, legend) {
  const chart = createLineChart(svg, {
    xLabel: 'position of the answer document', yLabel: 'accuracy (%)', xFormat: format('d'),
    yFormat: format('d'), legend,
  });

  return function draw(documents) {
    const curves = curvesFor(documents);
    // a level reference line at `value` for curves[k], in its colour
    const level = (curve, k, value, style, id, words) => ({
      label: '', xs: [1, documents], ys: [value, value], colorIndex: seriesColor(k), style, id,
      title: `${curve.model}, ${words}: ${percent(value)}%`,
    });
    const series = curves.flatMap((curve, k) => [
      {
        label: curve.model, xs: curve.positions, ys: curve.accuracy, colorIndex: seriesColor(k), points: true,  // not the keys' grey
        // each point's tooltip in the data's own precision (53.8%), where the axis ticks are whole percent
        pointTitles: curve.accuracy.map((value, p) => `${curve.model}: ${curve.positions[p]} → ${percent(value)}%`),
      },
      level(curve, k, curve.closedBook, 'dashed', `closed-book-${k}`, 'closed book (no documents)'),
      level(curve, k, curve.oracle, 'dotted', `oracle-${k}`, 'oracle (only the answer document)'),
    ]);
    series.push(
      { label: CLOSED_BOOK_KEY, xs: [], ys: [], colorIndex: KEY_COLOR, style: 'dashed' },
      { label: ORACLE_KEY, xs: [], ys: [], colorIndex: KEY_COLOR, style: 'dotted' },
    );
    const all = curves.flatMap((c) => [...c.accuracy, c.closedBook, c.oracle]);
    chart({
      series, xDomain: [1, documents], yDomain: [Math.min(...all) - MARGIN_POINTS, Math.max(...all) + MARGIN_POINTS],
      xTickValues: [...new Set(curves.flatMap((curve) => curve.positions))].sort((a, b) => a - b),  // where the data sit
    });
  };
}
