// Chart 3, after training: accuracy by position at the trained number of pairs and at longer
// ones (the model has never seen those). On the relative axis every length runs from its first
// pair (0%) to its last (100%), so that the shapes compare; on the position axis pair i sits
// at i for every length, so that what happens beyond the trained length shows. With several
// seeds, each length's mean has a thin line per seed, and one length at a time its band from
// the lowest to the highest seed: bands of 40–60 points, one per length, covered each other
// and everything under them. The band is the trained length's unless the reader chooses
// another beside the x axis; the legend says which.
import { format } from 'd3-format';
import { createLineChart, seriesColor } from '../../shared/line-chart.js';
import { bandLength, chance, isTrainedLength, positionsAt } from '../runs.js';
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

// A length as the chart names it: '16 pairs (trained)', '24 pairs'.
const lengthName = (run, pairs) => `${pairs} pairs${isTrainedLength(run, pairs) ? ' (trained)' : ''}`;

/** Returns draw(run, settings): `settings` says which x axis. */
export function createLengthsView() {
  const svg = $('lengths-chart');
  const bandSelect = $('band-pairs');
  let chart = null;
  let chartAxis = null;
  let chosen = null;  // {run, pairs}: the length whose band the reader chose for that run
  let last = null;    // [run, settings] drawn last, drawn again when the band's length changes

  function draw(run, settings) {
    last = [run, settings];
    const axis = settings.axis;
    if (chartAxis !== axis) {
      svg.replaceChildren();
      chart = createLineChart(svg, { ...AXES[axis], yLabel: 'accuracy', yFormat: percent, legend: $('lengths-legend') });
      chartAxis = axis;
    }
    if (!run) return;
    const curves = run.lengths.map((pairs) => positionsAt(run, pairs)).filter(Boolean);
    const seeds = run.seeds.length;
    const banded = bandLength(run, curves.map((curve) => curve.pairs), chosen?.run === run ? chosen.pairs : null);
    const longest = Math.max(1, ...run.lengths);
    const xDomain = axis === 'position' ? [1, Math.max(2, longest)] : [0, 1];
    const series = curves.flatMap((curve, c) => spreadSeries({
      id: `pairs-${curve.pairs}`,
      label: lengthName(run, curve.pairs),
      xs: curve.mean.map((_, i) => pairX(i, curve.pairs, axis)), curve, seeds: curve.seeds, colorIndex: seriesColor(c), points: true,
      seedsBand: curve.pairs === banded,
    }));
    chart({
      series: [
        ...series, chanceSeries(chance(run.settings), xDomain), ...seedsLegend(seeds, lengthName(run, banded)), ...seedLinesLegend(seeds),
      ],
      xDomain, yDomain: [0, 1],
    });
    svg.dataset.axis = axis;
    svg.dataset.band = seeds > 1 && curves.length > 0 ? String(banded) : '';
    // the choice of the band's length, with several seeds (one seed's lines have no band here)
    $('band-control').hidden = seeds < 2 || curves.length < 2;
    bandSelect.replaceChildren(...curves.map((curve) => new Option(lengthName(run, curve.pairs), String(curve.pairs))));
    bandSelect.value = String(banded);
    summaryList($('lengths-summary'), curves.map((curve) => [`${curve.pairs} pairs`, percentFine(curve.accuracy)]));
  }

  bandSelect.addEventListener('change', () => {
    const [run, settings] = last;
    chosen = { run, pairs: Number(bandSelect.value) };
    draw(run, settings);
  });

  return draw;
}
