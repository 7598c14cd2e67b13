// Chart 5, published data (never mixed with the simulation): Liu et al.'s accuracy by the
// position of the answer document for the chosen number of documents, each model's
// closed-book accuracy as a dashed line of its colour.
import { format } from 'd3-format';
import { createLineChart } from '../../shared/line-chart.js';
import { curvesFor } from '../published-data.js';

const CLOSED_BOOK_COLOR = 3;  // series-3, the grey of the lab's palette, for the legend's key
const MARGIN_POINTS = 3;      // percentage points of room above and below the curves

/** Returns draw(settings). */
export function createPublishedView() {
  const chart = createLineChart(document.getElementById('published-chart'), {
    xLabel: 'position of the answer document', yLabel: 'accuracy (%)', xFormat: format('d'),
    yFormat: format('d'), legend: document.getElementById('published-legend'),
  });

  return function draw(settings) {
    const curves = curvesFor(settings.documents);
    const series = curves.flatMap((curve, k) => [
      { label: curve.model, xs: curve.positions, ys: curve.accuracy, colorIndex: k, points: true },
      { label: '', xs: [1, settings.documents], ys: [curve.closedBook, curve.closedBook], colorIndex: k, style: 'dashed' },
    ]);
    series.push({ label: 'dashed: the same model with no documents (closed book)', xs: [], ys: [], colorIndex: CLOSED_BOOK_COLOR, style: 'dashed' });
    const all = curves.flatMap((c) => [...c.accuracy, c.closedBook]);
    chart({ series, xDomain: [1, settings.documents], yDomain: [Math.min(...all) - MARGIN_POINTS, Math.max(...all) + MARGIN_POINTS] });
  };
}
