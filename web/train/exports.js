// The Train page's files: each chart as PNG and SVG (shared/chart-exports.js; the attention
// map's as the figure heatmap-svg.js draws), the shown run's curves as CSV and JSON, and the
// text of those files.
import { bindChartExports } from '../shared/chart-exports.js';
import { download, csvField } from '../shared/downloads.js';
import { heatmapSvg } from '../shared/heatmap/heatmap-svg.js';
import { runCaption } from './runs.js';
import { toHash } from './state.js';

export const CURVES_FORMAT = 'attention-playground-train-curves';
const ATTENTION_FIELDS = { toValue: 'attention_to_value', toKey: 'attention_to_key', toFirst: 'attention_to_first' };

/** The JSON file of a run's curves: its settings (as a link), and per seed its checkpoints and evaluations. */
export function curvesJson(run) {
  return {
    format: CURVES_FORMAT,
    version: 1,
    run: {
      id: run.id, label: run.label, source: run.source, status: run.status, seconds: run.seconds,
      link: toHash(run.settings), settings: run.settings,
    },
    seeds: run.seeds.map(({ seed, step, steps, checkpoints, evaluations }) => ({ seed, step, steps, checkpoints, evaluations: evaluations ?? [] })),
  };
}

/**
 * The CSV file of a run's curves, one number a line: seed, kind (checkpoint or evaluation),
 * step, pairs, measure, position (from 1; empty for a whole-set number), value. A checkpoint's
 * measures are training_loss (the mean over the steps since the one before), accuracy and
 * accuracy_by_position; an evaluation's are held_out_loss, accuracy, accuracy_by_position and
 * attention_to_value_L1H2 …; every accuracy is on held-out sequences.
 */
export function curvesCsv(run) {
  const lines = ['seed,kind,step,pairs,measure,position,value'];
  const add = (seed, kind, step, pairs, measure, position, value) => {
    lines.push([seed, kind, step, pairs, csvField(measure), position, value].join(','));
  };
  for (const seed of run.seeds) {
    for (const c of seed.checkpoints) {
      add(seed.seed, 'checkpoint', c.step, run.settings.pairs, 'training_loss', '', c.loss);
      add(seed.seed, 'checkpoint', c.step, run.settings.pairs, 'accuracy', '', c.accuracy);
      c.accuracyByPosition.forEach((v, i) => add(seed.seed, 'checkpoint', c.step, run.settings.pairs, 'accuracy_by_position', i + 1, v));
    }
    for (const e of seed.evaluations ?? []) {
      add(seed.seed, 'evaluation', seed.step, e.pairs, 'held_out_loss', '', e.loss);
      add(seed.seed, 'evaluation', seed.step, e.pairs, 'accuracy', '', e.accuracy);
      e.accuracyByPosition.forEach((v, i) => add(seed.seed, 'evaluation', seed.step, e.pairs, 'accuracy_by_position', i + 1, v));
      for (const [field, name] of Object.entries(ATTENTION_FIELDS)) {
        e.attention[field].forEach((layer, l) => layer.forEach((values, h) => values.forEach((v, i) => {
          add(seed.seed, 'evaluation', seed.step, e.pairs, `${name}_L${l + 1}H${h + 1}`, i + 1, v);
        })));
      }
    }
  }
  return `${lines.join('\n')}\n`;
}

// The charts that show the run charts 1–2 follow (live), and those that show the shown run.
const LIVE_CHARTS = new Set(['loss-chart', 'accuracy-chart', 'positions-chart']);

/**
 * Binds the charts' PNG and SVG buttons and the curves' CSV and JSON buttons. shownRun() is
 * the run the curves' files export; liveRun() the run charts 1–2 show (null before any);
 * shownModel() {run, k, pairs}, the seed's model and length charts 3–4 show (null before any);
 * attentionFigure() the attention map's figure (heatmap-svg.js) with the caption naming what
 * it shows, or null. Each chart of a run names that run under it (runs.js runCaption); chart 4
 * names the seed's model and the length as well.
 */
export function bindExports({ shownRun, liveRun, shownModel, attentionFigure, onError }) {
  const caption = (chart) => {
    if (LIVE_CHARTS.has(chart)) return liveRun() && runCaption(liveRun());
    const shown = shownModel();
    if (!shown) return null;
    if (chart === 'lengths-chart') return runCaption(shown.run);
    if (chart === 'looks-chart') return runCaption(shown.run, shown);
    return null;  // the runs overlaid, each named in the legend; the published data
  };
  bindChartExports({
    prefix: 'attention-playground-train', onError, caption,
    figures: { 'attention-map': () => { const figure = attentionFigure(); return figure && heatmapSvg(figure); } },
  });
  const name = (run, extension) => `attention-playground-train-run${run.id}-curves.${extension}`;
  document.getElementById('export-csv').addEventListener('click', () => {
    const run = shownRun();
    if (run) download(new Blob([curvesCsv(run)], { type: 'text/csv' }), name(run, 'csv'));
  });
  document.getElementById('export-json').addEventListener('click', () => {
    const run = shownRun();
    if (run) download(new Blob([`${JSON.stringify(curvesJson(run), null, 1)}\n`], { type: 'application/json' }), name(run, 'json'));
  });
}
