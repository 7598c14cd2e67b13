// Chart 3, after training: accuracy by position at the trained number of pairs and at longer
// ones (the model has never seen those). On the relative axis every length runs from its first
// pair (0%) to its last (100%), so that the shapes compare; on the position axis pair i sits
// at i for every length, so that what happens beyond the trained length shows. With several
// seeds, each length's mean has its band and a thin line per seed.
import { format } from 'd3-format';
import { createLineChart, seriesColor } from '../../shared/line-chart.js';
import { chance, isTrainedLength, positionsAt } from '../runs.js';
import { summaryList } from '../../shared/page/summary.js';
import { chanceSeries, percent, percentFine, seedLinesLegend, seedsLegend, spreadSeries } from './readouts.js';

const $ = (id) => document.getElementById(id);

/** x of pair i (from 0) of k: relative (0 … 1) or the position (1 … k). */
export function pairX(i, k, axis) {
  if (axis === 'position') return i + 1;
  return k === 1 ? 0 : i / (k - 1);
}

const AXES = {
  relative: { xLabel: 'position of the queried pair (first → last)', xFormat: percent },
  position: { xLabel: 'position of the queried pair', xFormat: format('d'), integerX: true },
};

/** Returns draw(run, settings): `settings` says which x axis. */
export function createLengthsView() {
  const svg = $('lengths-chart');
  let chart = null;
  let chartAxis = null;

  return function draw(run, settings) {
    const axis = settings.axis;
    if (chartAxis !== axis) {
      svg.replaceChildren();
      chart = createLineChart(svg, { ...AXES[axis], yLabel: 'accuracy', yFormat: percent, legend: $('lengths-legend') });
      chartAxis = axis;
    }
    if (!run) return;
    const curves = run.lengths.map((pairs) => positionsAt(run, pairs)).filter(Boolean);
    const longest = Math.max(1, ...run.lengths);
    const xDomain = axis === 'position' ? [1, Math.max(2, longest)] : [0, 1];
    const series = curves.flatMap((curve, c) => spreadSeries({
      id: `pairs-${curve.pairs}`,
      label: `${curve.pairs} pairs${isTrainedLength(run, curve.pairs) ? ' (trained)' : ''}`,
      xs: curve.mean.map((_, i) => pairX(i, curve.pairs, axis)), curve, seeds: curve.seeds, colorIndex: seriesColor(c), points: true,
    }));
    chart({
      series: [...series, chanceSeries(chance(run.settings), xDomain), ...seedsLegend(run.seeds.length), ...seedLinesLegend(run.seeds.length)],
      xDomain, yDomain: [0, 1],
    });
    svg.dataset.axis = axis;
    summaryList($('lengths-summary'), curves.map((curve) => [`${curve.pairs} pairs`, percentFine(curve.accuracy)]));
  };
}
