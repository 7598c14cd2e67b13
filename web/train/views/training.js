// Chart 1, training as it goes: the training loss and the held-out accuracy at each checkpoint
// (mean over seeds with the band from the lowest to the highest seed and a thin line per seed),
// chance marked, and the progress of each seed.
import { format } from 'd3-format';
import { createLineChart, seriesColor } from '../../shared/line-chart.js';
import { chance, checkpointSeries, seedsNote } from '../runs.js';
import { summaryList } from '../../shared/page/summary.js';
import {
  chanceSeries, countFormat, lossFormat, noCheckpointsSummary, percent, percentFine, seedLinesLegend, spreadSeries,
} from './readouts.js';

const $ = (id) => document.getElementById(id);
const LOSS_HEADROOM = 1.05;
const RUN_COLOR = seriesColor(0);  // the one run's mean, band and seed lines

/** Returns {draw(run), progress(run)}. */
export function createTrainingView() {
  const lossChart = createLineChart($('loss-chart'), {
    xLabel: 'step', yLabel: 'training loss', xFormat: format(',d'), yFormat: format('.2~f'), legend: $('loss-legend'),
  });
  const accuracyChart = createLineChart($('accuracy-chart'), {
    xLabel: 'step', yLabel: 'held-out accuracy', xFormat: format(',d'), yFormat: percent, legend: $('accuracy-legend'),
  });

  function progress(run) {
    const list = $('seed-progress');
    const items = run.seeds.map((seed, k) => {
      const item = list.children[k] ?? document.createElement('li');
      if (!item.firstChild) {
        const label = document.createElement('span');
        const bar = document.createElement('progress');
        item.append(label, bar);
      }
      const [label, bar] = item.children;
      label.textContent = `seed ${seed.seed}: step ${countFormat(seed.step)} of ${countFormat(seed.steps)}`;
      bar.max = seed.steps;
      bar.value = seed.step;
      item.dataset.step = String(seed.step);
      item.dataset.steps = String(seed.steps);
      return item;
    });
    list.replaceChildren(...items);
    list.hidden = items.length < 2;  // one seed's progress is the status line's
  }

  function draw(run) {
    const series = checkpointSeries(run);
    const seeds = run.seeds.length;
    const note = seedsNote(series.seeds.at(-1) ?? seeds, seeds);  // the newest point's seeds of the run's
    const xDomain = [0, run.settings.steps];
    const highestLoss = Math.max(0, ...series.loss.high);
    lossChart({
      series: [
        ...spreadSeries({ id: 'loss', label: `training loss${note}`, xs: series.steps, curve: series.loss, seeds, colorIndex: RUN_COLOR, points: true }),
        ...seedLinesLegend(seeds, RUN_COLOR),
      ],
      xDomain, yDomain: [0, highestLoss * LOSS_HEADROOM || 1],
    });
    accuracyChart({
      series: [
        ...spreadSeries({ id: 'accuracy', label: `accuracy${note}`, xs: series.steps, curve: series.accuracy, seeds, colorIndex: RUN_COLOR, points: true }),
        chanceSeries(chance(run.settings), xDomain),
        ...seedLinesLegend(seeds, RUN_COLOR),
      ],
      xDomain, yDomain: [0, 1],
    });
    $('accuracy-chart').dataset.checkpoints = String(series.steps.length);
    $('accuracy-chart').dataset.seeds = series.seeds.join(',');
    const last = series.steps.length - 1;
    summaryList($('training-summary'), last < 0 ? noCheckpointsSummary(run) : [
      ['checkpoint', `step ${countFormat(series.steps[last])}`],
      ['training loss', lossFormat(series.loss.mean[last])],
      ['held-out accuracy', percentFine(series.accuracy.mean[last])],
      ['chance', percentFine(chance(run.settings))],
    ]);
  }

  return { draw, progress };
}
