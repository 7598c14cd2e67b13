// The page's runs: what each seed of a run measured (checkpoints while training, evaluations
// after), and what the charts and the runs table read from them: the mean over seeds with the
// spread (lowest to highest seed) and each seed's own values, how a legend counts the seeds
// behind a point, and the accuracy at the first pair, over the middle third and at the last pair.
import { formatCount } from '../shared/format.js';
import { isPresetRun, PRESETS } from './presets.js';
import { DEFAULTS, describeRun, evaluationLengths, POSITIONAL_NAMES, toHash } from './state.js';

// How many of a run's differences from the default run its name lists before '+N more' (the
// rest are in its settings, behind the runs table's button): a name stays one short line, on a
// phone's card too.
const NAMED_DIFFERENCES = 1;

// The run's settings that differ from the default run's, each as a run's name says it, the
// task first, then the training's length, the model, the rest of the training, the
// evaluation: ['4 pairs of 8', '300 steps', 'd16', 'batch 32', …]. The seeds are the runs
// table's column; the positional encoding and the context begin the name.
function differences(settings) {
  const differs = (...names) => names.some((name) => JSON.stringify(settings[name]) !== JSON.stringify(DEFAULTS[name]));
  const symbols = settings.keys === settings.values ? `${settings.keys}` : `${settings.keys}/${settings.values}`;
  const model = [['layers', `${settings.layers}L`], ['dModel', `d${settings.dModel}`], ['heads', `${settings.heads}H`],
    ['mlp', settings.mlp ? '+MLP' : 'no MLP']].filter(([name]) => differs(name)).map(([, text]) => text).join(' ');
  const parts = [
    [differs('pairs', 'keys', 'values'), `${settings.pairs} pairs of ${symbols}`],
    [differs('answers'), `answers at the ${settings.answers}`],
    [differs('retrieval'), `retrieval ${settings.retrieval}`],
    [differs('runningSpan'), `span ${settings.runningSpan}`],
    [differs('serialRecall'), `recall ${settings.serialRecall}`],
    [differs('spanItems'), `span of ${settings.spanItems}`],
    [differs('steps'), `${formatCount(settings.steps)} steps`],
    [model !== '', model],
    [differs('batch'), `batch ${settings.batch}`],
    [differs('learningRate'), `lr ${settings.learningRate}`],
    [differs('every'), `checkpoint every ${formatCount(settings.every)}`],
    [differs('sequences'), `${formatCount(settings.sequences)} held out`],
    [differs('evaluateAt'), `evaluated at ${settings.evaluateAt.join(', ')}`],
  ];
  return parts.filter(([differ]) => differ).map(([, text]) => text);
}

/**
 * What a run is called wherever it is named (the runs table, the overlay's legend, the model
 * panel, the status line, the figures' captions), without its number: a preset's label when
 * the run is exactly the preset, up to its colon ('ALiBi', 'Quick'; the seeds aside), else its
 * positional encoding and context and the first thing that differs from the default run
 * ('RoPE · 4 pairs of 8 +5 more'); a loaded model by its file ('loaded model.json').
 */
export function runTitle(run) {
  if (run.source === 'loaded') return `loaded ${run.fileName}`;
  const preset = PRESETS.find((p) => isPresetRun(p, run.settings));
  if (preset) return preset.label.split(':')[0];
  const encoding = `${POSITIONAL_NAMES[run.settings.positional]}${run.settings.context === 'prefix' ? ' bidirectional' : ''}`;
  const all = differences(run.settings);
  if (all.length === 0) return encoding;
  const more = all.length > NAMED_DIFFERENCES ? ` +${all.length - NAMED_DIFFERENCES} more` : '';
  return `${encoding} · ${all.slice(0, NAMED_DIFFERENCES).join(', ')}${more}`;
}

/** The name of a run in the runs table, the overlay's legend and the model panel: '#3 RoPE', '#1 Quick'. */
export const runName = (run) => `#${run.id} ${runTitle(run)}`;

/**
 * A new run: {id, settings, label, source ('trained' or 'loaded'), status, seeds: [{seed,
 * step, steps, checkpoints, evaluations}], seconds, trainingKnown: false for a loaded model
 * whose file does not say how it was trained (its settings' pairs, steps and batch are then the
 * page's)}.
 */
export function createRun({ id, settings, seeds, source = 'trained', fileName = null, trainingKnown = true }) {
  return {
    id, settings, source, fileName, trainingKnown,
    label: describeRun(settings, settings.steps, { trainingKnown }),
    status: source === 'loaded' ? 'loaded' : 'training',
    seeds: seeds.map((seed) => ({ seed, step: 0, steps: settings.steps, checkpoints: [], evaluations: null })),
    seconds: 0,
    lengths: evaluationLengths(settings),
  };
}

/**
 * What a figure of the run says under it, naming what it shows: the run (by its number and its
 * name, runTitle) and its seeds, or one seed's model at `pairs` pairs (k: the seed's index) and
 * the example sequence drawn, then the run's description and the link that sets the page to its
 * settings (when its training is known): 'Run 2 (RoPE · 4H), seed 7's model at 8 pairs, example
 * sequence 3: RoPE, 2L d32 4H; …. Link: train.html#…'.
 */
export function runCaption(run, { k, pairs, example } = {}) {
  const seeds = k === undefined
    ? `seed${run.seeds.length === 1 ? '' : 's'} ${run.seeds.map((s) => s.seed).join(', ')}`
    : `seed ${run.seeds[k].seed}'s model at ${pairs} pairs`;
  const sequence = example === undefined ? '' : `, example sequence ${example}`;
  const link = run.trainingKnown ? ` Link: train.html${toHash(run.settings)}` : '';
  return `Run ${run.id} (${runTitle(run)}), ${seeds}${sequence}: ${run.label}.${link}`;
}

/** Whether `pairs` is the number of pairs the run's model was trained on, as far as the page knows. */
export const isTrainedLength = (run, pairs) => run.trainingKnown && pairs === run.settings.pairs;

/**
 * The length whose band of seeds chart 3 shows, of the lengths `evaluated` (one band at a time:
 * each is 40–60 points wide where seeds differ): `chosen` when it is one of them, else the
 * trained length (a loaded model's, its settings' pairs), else the first.
 */
export function bandLength(run, evaluated, chosen) {
  if (evaluated.includes(chosen)) return chosen;
  return evaluated.includes(run.settings.pairs) ? run.settings.pairs : evaluated[0];
}

/** Element-wise mean, lowest and highest of equally long rows of numbers: {mean, low, high}. */
export function spread(rows) {
  const length = rows[0]?.length ?? 0;
  const mean = new Array(length).fill(0);
  const low = new Array(length).fill(Infinity);
  const high = new Array(length).fill(-Infinity);
  for (const row of rows) {
    for (let k = 0; k < length; ++k) {
      mean[k] += row[k] / rows.length;
      low[k] = Math.min(low[k], row[k]);
      high[k] = Math.max(high[k], row[k]);
    }
  }
  return { mean, low, high };
}

/** Each seed's values: [{seed, values}], `values` read from the seed by `read`. */
const eachSeed = (seeds, read) => seeds.map((s) => ({ seed: s.seed, values: read(s) }));

/**
 * The run's checkpoints over its seeds: {steps, loss, accuracy} where loss and accuracy are
 * spreads, checkpoint by checkpoint over the seeds that have reached it, with `each` seed's
 * values at the checkpoints it has reached; and `seeds` how many seeds reached each.
 */
export function checkpointSeries(run) {
  const longest = Math.max(0, ...run.seeds.map((s) => s.checkpoints.length));
  const steps = [];
  const loss = { mean: [], low: [], high: [] };
  const accuracy = { mean: [], low: [], high: [] };
  const seeds = [];
  for (let k = 0; k < longest; ++k) {
    const reached = run.seeds.map((s) => s.checkpoints[k]).filter(Boolean);
    steps.push(reached[0].step);
    seeds.push(reached.length);
    for (const [target, field] of [[loss, 'loss'], [accuracy, 'accuracy']]) {
      const { mean, low, high } = spread(reached.map((c) => [c[field]]));
      target.mean.push(mean[0]);
      target.low.push(low[0]);
      target.high.push(high[0]);
    }
  }
  loss.each = eachSeed(run.seeds, (s) => s.checkpoints.map((c) => c.loss));
  accuracy.each = eachSeed(run.seeds, (s) => s.checkpoints.map((c) => c.accuracy));
  return { steps, loss, accuracy, seeds };
}

/**
 * Accuracy by position at checkpoint k over the seeds that reached it: a spread, with the step
 * and `each` seed's accuracy by position.
 */
export function checkpointPositions(run, k) {
  const seeds = run.seeds.filter((s) => s.checkpoints[k]);
  if (seeds.length === 0) return null;
  const reached = seeds.map((s) => s.checkpoints[k]);
  return {
    step: reached[0].step, seeds: reached.length, ...spread(reached.map((c) => c.accuracyByPosition)),
    each: eachSeed(seeds, (s) => s.checkpoints[k].accuracyByPosition),
  };
}

/** The evaluations of every seed at `pairs` pairs (after training), or [] before. */
export function evaluationsAt(run, pairs) {
  return run.seeds.map((s) => s.evaluations?.find((e) => e.pairs === pairs)).filter(Boolean);
}

/**
 * Accuracy by position at `pairs` pairs over the seeds: a spread with the mean accuracy and
 * `each` seed's accuracy by position, or null.
 */
export function positionsAt(run, pairs) {
  const evaluated = run.seeds.map((s) => ({ seed: s.seed, evaluation: s.evaluations?.find((e) => e.pairs === pairs) }))
    .filter(({ evaluation }) => evaluation);
  if (evaluated.length === 0) return null;
  const evaluations = evaluated.map(({ evaluation }) => evaluation);
  const accuracy = evaluations.reduce((sum, e) => sum + e.accuracy, 0) / evaluations.length;
  return {
    pairs, accuracy, seeds: evaluations.length, ...spread(evaluations.map((e) => e.accuracyByPosition)),
    each: evaluated.map(({ seed, evaluation }) => ({ seed, values: evaluation.accuracyByPosition })),
  };
}

/**
 * The middle of k positions: the middle third, positions ⌊k / 3⌋ to k − 1 − ⌊k / 3⌋ counted
 * from 0 (pairs 6–11 of 16, 2–3 of 4, 11–22 of 32), never the first or the last pair, as
 * {from, to} (both included), or null below 3 pairs, which have no middle. One pair alone is
 * too noisy to stand for the middle: each is asked a few questions (128 of the default run's
 * 2,048), a 95% interval of about ±9 points at 50%, and neighbouring pairs differ by more than
 * that (pair 8 at 50%, pair 7 at 31%); the mean of a third of them, symmetric about the centre,
 * is asked k / 3 times as many (±3.5 points at 16 pairs) and stays clear of the ends, where
 * primacy and recency lie.
 */
export function middleRange(k) {
  if (k < 3) return null;
  const from = Math.floor(k / 3);
  return { from, to: k - 1 - from };
}

/** The middle's pairs, counted from 1: '6–11', or '2' for one; null without a middle. */
export function middlePairs(k) {
  const range = middleRange(k);
  if (!range) return null;
  return range.from === range.to ? String(range.from + 1) : `${range.from + 1}–${range.to + 1}`;
}

/** The middle's pairs as the page names them: 'pairs 6–11', 'pair 2'; null without a middle. */
export const middleName = (k) => (middleRange(k) ? `pair${middleRange(k).from === middleRange(k).to ? '' : 's'} ${middlePairs(k)}` : null);

/** The mean of `values` (by position) over the middle's positions (middleRange), or null without a middle. */
export function middleMean(values) {
  const range = middleRange(values.length);
  if (!range) return null;
  const middle = values.slice(range.from, range.to + 1);
  return middle.reduce((sum, v) => sum + v, 0) / middle.length;
}

/** The lowest of `values` and its position, from 0 (the first of equals): {index, value}. */
export function lowestOf(values) {
  const index = values.indexOf(Math.min(...values));
  return { index, value: values[index] };
}

/**
 * What the runs table says of a run after training, at its trained length: {accuracy, first,
 * middle, last} (means over seeds; middle the mean over the middle third, middleMean: null
 * below 3 pairs), or null before its evaluations.
 */
export function runSummary(run) {
  const curve = positionsAt(run, run.settings.pairs);
  if (!curve) return null;
  const k = curve.mean.length;
  return { accuracy: curve.accuracy, first: curve.mean[0], middle: middleMean(curve.mean), last: curve.mean[k - 1] };
}

/** The chance level of an answer: one of `values` value symbols. */
export const chance = (settings) => 1 / settings.values;

/**
 * How the seeds behind a point read in a legend, `seeds` of the run's `total`: '' for a run of
 * one, ' (mean of 3 seeds; band: lowest to highest seed)', or while some seeds have not
 * reached the point, ' (mean of 2 of 3 seeds; …)'.
 */
export function seedsNote(seeds, total = seeds) {
  if (total < 2) return '';
  return ` (mean of ${seeds < total ? `${seeds} of ${total}` : seeds} seeds; band: lowest to highest seed)`;
}
