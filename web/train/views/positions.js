// Chart 2, accuracy by position, checkpoint by checkpoint: for each position of the queried
// pair (1 … k), the held-out accuracy when the question asks about that pair. The latest
// checkpoint is drawn bold (mean over seeds, band from the lowest to the highest), the earlier
// ones faint, so that the positions learned first stand out.
import { format } from 'd3-format';
import { createLineChart, seriesColor } from '../../shared/line-chart.js';
import { chance, checkpointPositions, middleIndex } from '../runs.js';
import { summaryList } from '../../shared/page/summary.js';
import { chanceSeries, countFormat, percent, percentFine, seedsNote, spreadSeries } from './readouts.js';

const $ = (id) => document.getElementById(id);
const EARLIER_COLOR = seriesColor(2);

const positionsOf = (k) => Array.from({ length: k }, (_, i) => i + 1);

/** Returns draw(run). */
export function createPositionsView() {
  const chart = createLineChart($('positions-chart'), {
    xLabel: 'position of the queried pair', yLabel: 'held-out accuracy', xFormat: format('d'), yFormat: percent,
    legend: $('positions-legend'), integerX: true,
  });

  return function draw(run) {
    const k = run.settings.pairs;
    const xs = positionsOf(k);
    const count = Math.max(0, ...run.seeds.map((s) => s.checkpoints.length));
    const curves = Array.from({ length: count }, (_, c) => checkpointPositions(run, c));
    const latest = curves.at(-1);
    const earlier = curves.slice(0, -1).map((curve, c) => ({
      id: `step-${curve.step}`, label: c === 0 ? 'earlier checkpoints' : '', xs, ys: curve.mean, colorIndex: EARLIER_COLOR, style: 'faint',
    }));
    const xDomain = [1, Math.max(2, k)];
    chart({
      series: [
        ...earlier,
        ...(latest ? [spreadSeries({
          id: 'latest', label: `step ${countFormat(latest.step)}${seedsNote(latest.seeds, run.seeds.length)}`, xs, curve: latest, seeds: latest.seeds,
          points: true,
        })] : []),
        chanceSeries(chance(run.settings), xDomain),
      ],
      xDomain, yDomain: [0, 1],
    });
    const svg = $('positions-chart');
    svg.dataset.step = latest ? String(latest.step) : '';
    svg.dataset.values = latest ? latest.mean.join(',') : '';
    summaryList($('positions-summary'), latest ? [
      ['step', countFormat(latest.step)],
      ['first pair', percentFine(latest.mean[0])],
      [`middle (pair ${middleIndex(k) + 1})`, percentFine(latest.mean[middleIndex(k)])],
      [`last (pair ${k})`, percentFine(latest.mean[k - 1])],
    ] : []);
  };
}
