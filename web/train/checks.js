// Settings that fail only together, checked before the engine is asked, so that the page
// names the setting under its control: the keys of a sequence are distinct (pairs ≤ key
// symbols, at the trained length and every length evaluated), the held-out set asks about
// every position of every length evaluated (sequences ≥ its pairs), the heads split dModel evenly
// (into even widths under RoPE, which rotates pairs of coordinates), a running span fits in
// the pairs, and some objective has a weight. The engine checks all of it again (and more);
// what it refuses is shown as it says it.
import { plural } from '../shared/format.js';
import { evaluationLengths, LIMITS } from './state.js';

/** Head counts up to the page's maximum that split `width` evenly (into even widths if `even`). */
export function headChoices(width, even) {
  const choices = [];
  for (let h = 1; h <= Math.min(width, LIMITS.MAX_HEADS); ++h) {
    if (width % h === 0 && (!even || (width / h) % 2 === 0)) choices.push(h);
  }
  return choices;
}

function headsProblem({ heads, dModel, positional }) {
  const rope = positional === 'rope';
  const choices = headChoices(dModel, rope);  // under RoPE, only those that leave each head an even width
  const choose = choices.length > 0 ? `choose ${choices.join(', ')}` : 'choose an even dModel';
  if (dModel % heads !== 0) {
    return `${plural(heads, 'head')} cannot split dModel = ${dModel} into equal slices${rope ? ' of even width, as RoPE needs' : ''}: ${choose}.`;
  }
  if (!rope || (dModel / heads) % 2 === 0) return null;
  return `RoPE rotates pairs of coordinates, so each head's width must be even: ${plural(heads, 'head')} over dModel = ${dModel} ` +
    `${heads === 1 ? 'gives a head' : 'give heads'} of ${plural(dModel / heads, 'dimension')}. With RoPE ${choose}` +
    `${choices.length > 0 ? ' heads' : ''}.`;
}

/**
 * What is wrong with the settings together: {setting: message} for each setting that takes
 * the blame (its control shows the message), empty when the run can start.
 */
export function settingProblems(settings) {
  const problems = {};
  const heads = headsProblem(settings);
  if (heads) problems.heads = heads;
  if (settings.pairs > settings.keys) {
    problems.pairs = `${plural(settings.pairs, 'pair')} need ${settings.pairs} distinct keys, but there are only ` +
      `${plural(settings.keys, 'key symbol')}: lower the pairs or raise the key symbols.`;
  }
  const tooLong = settings.evaluateAt.filter((pairs) => pairs > settings.keys);
  if (tooLong.length > 0) {
    problems.evaluateAt = `Evaluating at ${tooLong.join(', ')} pairs needs as many distinct keys, but there are only ` +
      `${plural(settings.keys, 'key symbol')}: list at most ${settings.keys} pairs.`;
  }
  const longest = Math.max(...evaluationLengths(settings));
  if (settings.sequences < longest) {
    problems.sequences = `Held-out sequences must be at least the most pairs evaluated (${longest}), so that every position is ` +
      `asked about; there are ${settings.sequences}: raise the held-out sequences or evaluate at fewer pairs.`;
  }
  if (!(settings.retrieval + settings.runningSpan + settings.serialRecall > 0)) {
    problems.retrieval = 'The objectives\' weights add up to 0: give at least one of them a weight above 0.';
  }
  if (settings.runningSpan > 0 && settings.spanItems > settings.pairs) {
    problems.spanItems = `A running span of ${settings.spanItems} items needs at least as many pairs; ` +
      `there are ${settings.pairs}: lower the span items or raise the pairs.`;
  }
  return problems;
}
