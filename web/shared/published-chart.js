// Published data (never mixed with a page's own curves): Liu et al.'s accuracy by the position
// of the answer document for a number of documents, each model's closed-book accuracy as a
// dashed line of its colour. The lab (chart 5) and the Train page draw it.
import { format } from 'd3-format';
import { KEY_COLOR, createLineChart, seriesColor } from './line-chart.js';
import { curvesFor } from './published-data.js';

const MARGIN_POINTS = 3;      // percentage points of room above and below the curves

/** Binds the chart to `svg` and `legend` (a <ul class="chart-legend">); returns draw(documents). */
export function createPublishedChart(svg, legend) {
  const chart = createLineChart(svg, {
    xLabel: 'position of the answer document', yLabel: 'accuracy (%)', xFormat: format('d'),
    yFormat: format('d'), legend,
  });

  return function draw(documents) {
    const curves = curvesFor(documents);
    const series = curves.flatMap((curve, k) => {
      const colorIndex = seriesColor(k);  // not the closed-book key's grey
      return [
        { label: curve.model, xs: curve.positions, ys: curve.accuracy, colorIndex, points: true },
        { label: '', xs: [1, documents], ys: [curve.closedBook, curve.closedBook], colorIndex, style: 'dashed' },
      ];
    });
    series.push({ label: 'dashed: the same model with no documents (closed book)', xs: [], ys: [], colorIndex: KEY_COLOR, style: 'dashed' });
    const all = curves.flatMap((c) => [...c.accuracy, c.closedBook]);
    chart({
      series, xDomain: [1, documents], yDomain: [Math.min(...all) - MARGIN_POINTS, Math.max(...all) + MARGIN_POINTS],
      xTickValues: [...new Set(curves.flatMap((curve) => curve.positions))].sort((a, b) => a - b),  // where the data sit
    });
  };
}
