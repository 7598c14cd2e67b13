// The page's runs: what each seed of a run measured (checkpoints while training, evaluations
// after), and what the charts and the runs table read from them: the mean over seeds with the
// spread (lowest to highest seed) and each seed's own values, how a legend counts the seeds
// behind a point, and the accuracy at the first, middle and last pair.
import { describeRun, evaluationLengths, toHash } from './state.js';

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
 * What a figure of the run says under it, naming what it shows: the run and its seeds, or one
 * seed's model at `pairs` pairs (k: the seed's index) and the example sequence drawn, then the
 * run's description and the link that sets the page to its settings (when its training is known):
 * 'Run 2, seed 7's model at 8 pairs, example sequence 3: RoPE, 2L d32 4H; …. Link: train.html#…'.
 */
export function runCaption(run, { k, pairs, example } = {}) {
  const seeds = k === undefined
    ? `seed${run.seeds.length === 1 ? '' : 's'} ${run.seeds.map((s) => s.seed).join(', ')}`
    : `seed ${run.seeds[k].seed}'s model at ${pairs} pairs`;
  const sequence = example === undefined ? '' : `, example sequence ${example}`;
  const link = run.trainingKnown ? ` Link: train.html${toHash(run.settings)}` : '';
  return `Run ${run.id}, ${seeds}${sequence}: ${run.label}.${link}`;
}

/** Whether `pairs` is the number of pairs the run's model was trained on, as far as the page knows. */
export const isTrainedLength = (run, pairs) => run.trainingKnown && pairs === run.settings.pairs;

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

/** The middle of k positions, counted from 0: ⌊(k − 1) / 2⌋ (pair 8 of 16). */
export const middleIndex = (k) => Math.floor((k - 1) / 2);

/** The lowest of `values` and its position, from 0 (the first of equals): {index, value}. */
export function lowestOf(values) {
  const index = values.indexOf(Math.min(...values));
  return { index, value: values[index] };
}

/**
 * What the runs table says of a run after training, at its trained length: {accuracy, first,
 * middle, last} (means over seeds), or null before its evaluations.
 */
export function runSummary(run) {
  const curve = positionsAt(run, run.settings.pairs);
  if (!curve) return null;
  const k = curve.mean.length;
  return { accuracy: curve.accuracy, first: curve.mean[0], middle: curve.mean[middleIndex(k)], last: curve.mean[k - 1] };
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
