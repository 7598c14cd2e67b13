// Chart 2, accuracy by position, checkpoint by checkpoint: for each position of the queried
// pair (1 … k), the held-out accuracy when the question asks about that pair. The latest
// checkpoint is drawn bold: one seed's with its 95% Wilson interval (each position is measured
// on a few questions only), several seeds' mean with the band from the lowest to the highest
// and a thin line per seed. The earlier checkpoints are thin and faint, older ones fainter, the
// legend naming their steps and each line's tooltip its own, so that the positions learned
// first stand out. With several seeds they are one seed's (the one the model panel shows), not
// the mean: seeds that learn at different steps would leave means no seed ever had.
import { format } from 'd3-format';
import { createLineChart, seriesColor } from '../../shared/line-chart.js';
import { summaryList } from '../../shared/page/summary.js';
import { questionsByPosition, wilsonInterval } from '../intervals.js';
import { chance, checkpointPositions, lowestOf, middleMean, middleName, seedsNote } from '../runs.js';
import {
  chanceSeries, countFormat, noCheckpointsSummary, percent, percentFine, seedLinesLegend, spreadSeries,
} from './readouts.js';

const $ = (id) => document.getElementById(id);
const LATEST_COLOR = seriesColor(0);  // the latest checkpoint's mean, band and seed lines
const EARLIER_COLOR = seriesColor(2);
// The line style of an earlier checkpoint (train.css), and its opacity: the earliest's, then
// stepping up to the newest's before the latest; the faintest keeps a contrast of 1.5:1 on
// the panel in both colour schemes.
const CHECKPOINT_STYLE = 'checkpoint';
const EARLIEST_OPACITY = 0.28;
const NEWEST_EARLIER_OPACITY = 0.6;

// The legend's words for the earlier checkpoints' lines, at `steps`, of `seed` when the run has several.
function earlierLabel(steps, seed) {
  const of = seed === undefined ? '' : ` of seed ${seed}`;
  return steps.length === 1 ? `earlier checkpoint${of}, step ${countFormat(steps[0])}`
    : `earlier checkpoints${of}, steps ${countFormat(steps[0])} to ${countFormat(steps.at(-1))} (the older, the fainter)`;
}
const positionsOf = (k) => Array.from({ length: k }, (_, i) => i + 1);

// '128' questions, or '128–129' when the held-out set does not split evenly over the positions.
function questionsText(questions) {
  const [fewest, most] = [Math.min(...questions), Math.max(...questions)];
  return fewest === most ? countFormat(fewest) : `${countFormat(fewest)}–${countFormat(most)}`;
}

/** Returns draw(run, {k}): k, the index of the seed whose earlier checkpoints a run of several seeds draws. */
export function createPositionsView() {
  const chart = createLineChart($('positions-chart'), {
    xLabel: 'position of the queried pair', yLabel: 'held-out accuracy', xFormat: format('d'), yFormat: percent,
    legend: $('positions-legend'), integerX: true,
  });

  return function draw(run, { k: shownSeed = 0 } = {}) {
    const k = run.settings.pairs;
    const xs = positionsOf(k);
    const questions = questionsByPosition(run.settings.sequences, k);
    const count = Math.max(0, ...run.seeds.map((s) => s.checkpoints.length));
    const latest = count > 0 ? checkpointPositions(run, count - 1) : null;
    // the checkpoints before the latest: the one seed's own, of the seed shown with several
    const seed = run.seeds[shownSeed] ?? run.seeds[0];
    const several = run.seeds.length > 1;
    const before = (seed?.checkpoints ?? []).slice(0, Math.max(0, count - 1));
    const earlier = before.map((checkpoint, c, all) => ({
      id: `step-${checkpoint.step}`, label: c === 0 ? earlierLabel(all.map((e) => e.step), several ? seed.seed : undefined) : '',
      title: `${several ? `seed ${seed.seed}, ` : ''}step ${countFormat(checkpoint.step)}`, xs, ys: checkpoint.accuracyByPosition,
      colorIndex: EARLIER_COLOR, style: CHECKPOINT_STYLE,
      opacity: EARLIEST_OPACITY + ((NEWEST_EARLIER_OPACITY - EARLIEST_OPACITY) * c) / Math.max(1, all.length - 1),
    }));
    const xDomain = [1, Math.max(2, k)];
    const one = latest?.seeds === 1;
    const wilson = one ? latest.mean.map((p, i) => wilsonInterval(p, questions[i])) : [];
    const pointTitles = latest?.mean.map((p, i) => `pair ${i + 1}: ${percentFine(p)} (${one
      ? `95% interval ${percentFine(wilson[i][0])}–${percentFine(wilson[i][1])}`
      : `mean of ${latest.seeds} seeds, lowest ${percentFine(latest.low[i])}, highest ${percentFine(latest.high[i])}`
    }; ${countFormat(questions[i])} questions${one ? '' : ' each'})`);
    const bandNote = one ? ` (band: 95% Wilson interval, ${questionsText(questions)} questions per position)` : seedsNote(latest?.seeds ?? 0, run.seeds.length);
    chart({
      series: [
        ...earlier,
        ...(latest ? spreadSeries({
          id: 'latest', label: `step ${countFormat(latest.step)}${bandNote}`, xs, curve: latest, seeds: latest.seeds, colorIndex: LATEST_COLOR, points: true,
          band: one ? { lows: wilson.map(([low]) => low), highs: wilson.map(([, high]) => high) } : undefined, pointTitles,
        }) : []),
        chanceSeries(chance(run.settings), xDomain),
        ...seedLinesLegend(latest?.seeds ?? 0, LATEST_COLOR),
      ],
      xDomain, yDomain: [0, 1],
    });
    const svg = $('positions-chart');
    svg.dataset.step = latest ? String(latest.step) : '';
    svg.dataset.values = latest ? latest.mean.join(',') : '';
    svg.dataset.questions = questions.join(',');
    const lowest = latest ? lowestOf(latest.mean) : null;
    summaryList($('positions-summary'), latest ? [
      ['step', countFormat(latest.step)],
      ['questions per position', questionsText(questions)],
      ['first pair', percentFine(latest.mean[0])],
      ...(middleName(k) ? [[`middle (mean of ${middleName(k)} of ${k})`, percentFine(middleMean(latest.mean))]] : []),
      [`lowest (pair ${lowest.index + 1})`, percentFine(lowest.value)],
      [`last (pair ${k})`, percentFine(latest.mean[k - 1])],
    ] : noCheckpointsSummary(run));
  };
}
