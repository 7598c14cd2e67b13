// Whether a run has learned the task, from its held-out accuracy at the trained length after
// training (finished, stopped or loaded): what the page says above charts 3–5, which read a
// model's accuracy and attention by position as if it answered, and how the runs table and
// the status line mark such a run (near chance, the presets' dagger). Some presets do not learn in
// their 1,400 steps (learned and sinusoidal positions, ALiBi with a bidirectional context: 11%,
// 8% and 11% over three seeds, where chance is 3.1%); their curves by position are then noise
// around chance, and a head that "looks most" at the answer is only the least uniform one.
import { format } from 'd3-format';
import { positionsAt } from './runs.js';

const percent = format('.1%');  // as views/readouts.js's percentFine (which imports the charts' CSS), as chart 3 names chance: 12.5%

// The rule: a run has not learned when its accuracy (the seeds' mean) is less than this
// fraction of the way from chance (1 / value symbols) to every answer right, that is below
// chance + 0.15 × (1 − chance): 17.7% with 32 values, 25.6% with 8, 57.5% with 2. The presets
// that do not learn in 1,400 steps reach 8–11% with 32 values; the weakest that does, no
// positional encoding, 23% (the first pair 59%).
export const LEARNED_FRACTION = 0.15;

/** The accuracy below which a run answering one of `values` value symbols has not learned the task. */
export const learnedThreshold = (values) => 1 / values + LEARNED_FRACTION * (1 - 1 / values);

/**
 * What the page says of a run after training: {learned, accuracy, chance, threshold} at its
 * trained length (the seeds' mean accuracy), or null while it has no evaluation there.
 */
export function learningOf(run) {
  const curve = positionsAt(run, run.settings.pairs);
  if (!curve) return null;
  const chance = 1 / run.settings.values;
  const threshold = learnedThreshold(run.settings.values);
  return { learned: curve.accuracy >= threshold, accuracy: curve.accuracy, chance, threshold, seeds: curve.seeds };
}

/** The notice above charts 3–5 for a run that has not learned the task, or '' for one that has (or null). */
export function notLearnedText(run) {
  const learning = run ? learningOf(run) : null;
  if (!learning || learning.learned) return '';
  const mean = learning.seeds > 1 ? ` (mean of ${learning.seeds} seeds)` : '';
  return `This run has not learned the task: held-out accuracy ${percent(learning.accuracy)}${mean} where chance is ` +
    `${percent(learning.chance)} (the page counts a run as learned from ${percent(learning.threshold)}). Charts 3–5 show ` +
    'what a model answering near chance does: noise, not a shape. Train it longer, or choose a preset that learns in ' +
    '1,400 steps (ALiBi or RoPE).';
}

// The runs table's mark of a run that has not learned: the presets' dagger (controls.js), which
// the table's note explains, with words in its place for a screen reader.
export const NOT_LEARNED_MARK = '†';
export const NOT_LEARNED_WORDS = 'near chance: not learned';

/**
 * The dagger after a name, as the presets near chance and the runs that have not learned have
 * it: [the dagger, hidden from a screen reader, with class `className`; `words` in brackets in its
 * place, for a screen reader alone].
 */
export function daggerMark(className, words) {
  const mark = document.createElement('span');
  mark.className = className;
  mark.setAttribute('aria-hidden', 'true');
  mark.textContent = ` ${NOT_LEARNED_MARK}`;
  const spoken = document.createElement('span');
  spoken.className = 'visually-hidden';
  spoken.textContent = ` (${words})`;
  return [mark, spoken];
}

/**
 * What the status line adds of a run that has not learned the task: '; not learned: held-out
 * accuracy 9.4%, near chance (3.1%)', or '' for one that has (or has no evaluation yet).
 */
export function notLearnedStatus(run) {
  const learning = run ? learningOf(run) : null;
  if (!learning || learning.learned) return '';
  const mean = learning.seeds > 1 ? ` (mean of ${learning.seeds} seeds)` : '';
  return `; not learned: held-out accuracy ${percent(learning.accuracy)}${mean}, near chance (${percent(learning.chance)})`;
}
