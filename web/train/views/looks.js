// Chart 4, where the final position looks: for each position of the queried pair, the mean
// attention weight of the final position (the one that answers) on the queried value, on its
// key, or on the first token, per layer and head (a colour per head, a line style per layer),
// over the held-out set; beside it, grey and dashed, the same model's accuracy at that position. Heads differ from seed to seed, so this chart
// shows one seed's model.
import { format } from 'd3-format';
import { KEY_COLOR, createLineChart, seriesColor } from '../../shared/line-chart.js';
import { learnedThreshold } from '../learning.js';
import { evaluationsAt } from '../runs.js';
import { summaryList } from '../../shared/page/summary.js';
import { percentFine, weightFormat } from './readouts.js';

const $ = (id) => document.getElementById(id);
// A layer's line style (by layer, cycling), its heads told apart by colour: solid, dotted, dashed.
const LAYER_STYLES = ['solid', 'dotted', 'dashed'];
// What the strongest head's read-out adds for a run that has not learned the task (learning.js):
// a model answering near chance has no head that finds the answer, only one less even than the others.
const NOT_LEARNED = ' (a model near chance: no head here finds the answer)';
const TARGETS = {
  value: { field: 'toValue', words: 'the queried value' },
  key: { field: 'toKey', words: 'the queried key' },
  first: { field: 'toFirst', words: 'the first token' },
};

/** Returns draw(run, {k, pairs}, settings): seed k's model at `pairs` pairs; settings.target says on what. */
export function createLooksView() {
  const chart = createLineChart($('looks-chart'), {
    xLabel: 'position of the queried pair', yLabel: 'attention weight; accuracy', xFormat: format('d'), yFormat: format('.1~f'),
    legend: $('looks-legend'), integerX: true,
  });

  return function draw(run, { k, pairs }, settings) {
    if (!run) return;
    const evaluation = evaluationsAt({ seeds: [run.seeds[k]] }, pairs)[0];
    if (!evaluation) return;
    const { field, words } = TARGETS[settings.target];
    const xs = evaluation.accuracyByPosition.map((_, i) => i + 1);
    const byHead = evaluation.attention[field];
    const heads = byHead.flatMap((layer, l) => layer.map((values, h) => ({
      id: `L${l + 1}H${h + 1}`, label: `layer ${l + 1} · head ${h + 1}`, xs, ys: values, colorIndex: seriesColor(h),
      style: LAYER_STYLES[l % LAYER_STYLES.length],
    })));
    chart({
      series: [
        ...heads,
        { id: 'accuracy', label: 'accuracy (grey, dashed)', xs, ys: evaluation.accuracyByPosition, colorIndex: KEY_COLOR, style: 'dashed' },
      ],
      xDomain: [1, Math.max(2, pairs)], yDomain: [0, 1],
    });
    $('looks-chart').dataset.target = settings.target;
    $('looks-heading-target').textContent = words;
    // the head that looks hardest at the target, on average over positions
    const mean = (values) => values.reduce((a, b) => a + b, 0) / values.length;
    const learned = evaluation.accuracy >= learnedThreshold(run.settings.values);  // this seed's model, at these pairs
    const strongest = heads.reduce((best, head) => (mean(head.ys) > mean(best.ys) ? head : best), heads[0]);
    summaryList($('looks-summary'), [
      ['seed', String(run.seeds[k].seed)],
      ['pairs', String(pairs)],
      [`most on ${words}`, `${strongest.label}, mean weight ${weightFormat(mean(strongest.ys))}${learned ? '' : NOT_LEARNED}`],
      ['accuracy', percentFine(evaluation.accuracy)],
    ]);
  };
}
