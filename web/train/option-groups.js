// The words of the Train page's groups of settings (train.html's fieldsets of class
// option-group: the task, the model, the training, the evaluation), which a narrow screen folds
// to their heading and a line of their settings ('2 layers, dModel 32, 2 heads · ALiBi ·
// causal'; shared/page/option-groups.js binds them): where the settings stack above the charts
// (one column, up to 900 px: option-groups.css), chart 1 comes within little more than a screen.
// The presets stay open.
import { formatCount, plural } from '../shared/format.js';
import { bindOptionGroups } from '../shared/page/option-groups.js';
import { POSITIONAL_NAMES } from './state.js';

const ANSWER_WORDS = { uniform: 'uniform', ends: 'near the ends' };  // the Queried pair's options
const CONTEXT_WORDS = { causal: 'causal', prefix: 'bidirectional' };  // the Context's options
// The objectives with their weights' words, as the runs table names them (state.js, describeRun).
const OBJECTIVES = [['retrieval', 'retrieval'], ['runningSpan', 'span'], ['serialRecall', 'recall']];
const SEPARATOR = ' · ';

// The objectives' weights only when the mix is not retrieval alone, a running span's with its items.
function taskSummary(settings) {
  const parts = [plural(settings.pairs, 'pair'), plural(settings.keys, 'key'), plural(settings.values, 'value'),
    ANSWER_WORDS[settings.answers]];
  const weighted = OBJECTIVES.filter(([name]) => settings[name] > 0);
  if (!(weighted.length === 1 && weighted[0][0] === 'retrieval')) {
    const weight = (name, word) => `${word} ${settings[name]}${name === 'runningSpan' ? ` (${plural(settings.spanItems, 'item')})` : ''}`;
    parts.push(weighted.length === 0 ? 'no objective' : weighted.map(([name, word]) => weight(name, word)).join(' + '));
  }
  return parts.join(SEPARATOR);
}

// The model's sizes together ('2 layers, dModel 32, 2 heads'), so that the default's line fits a phone.
function modelSummary(settings) {
  const sizes = [plural(settings.layers, 'layer'), `dModel ${settings.dModel}`, plural(settings.heads, 'head'),
    ...(settings.mlp ? ['MLP'] : [])].join(', ');
  return [sizes, POSITIONAL_NAMES[settings.positional], CONTEXT_WORDS[settings.context]].join(SEPARATOR);
}

// The seeds side by side as their numbers: 'seed 0', 'seeds 0–2'.
function trainingSummary(settings) {
  const seeds = settings.seeds === 1 ? `seed ${settings.seed}` : `seeds ${settings.seed}–${settings.seed + settings.seeds - 1}`;
  return [`${formatCount(settings.steps)} steps × ${formatCount(settings.batch)}`, `lr ${settings.learningRate}`, seeds].join(SEPARATOR);
}

function evaluationSummary(settings) {
  return [`every ${formatCount(settings.every)}`, `${formatCount(settings.sequences)} held out`,
    `at ${settings.evaluateAt.join(', ')}`].join(SEPARATOR);
}

// The groups by their name in train.html's ids, each with its summary.
const SUMMARIES = { task: taskSummary, model: modelSummary, training: trainingSummary, evaluation: evaluationSummary };

/**
 * Each group's settings in one line, by the group's name: for the defaults {task: '16 pairs ·
 * 32 keys · 32 values · uniform', model: '2 layers, dModel 32, 2 heads · ALiBi · causal',
 * training: '1,400 steps × 64 · lr 0.01 · seed 0', evaluation: 'every 100 · 2,048 held out · at 16, 24, 32'}.
 */
export function groupSummaries(settings) {
  return Object.fromEntries(Object.entries(SUMMARIES).map(([name, summary]) => [name, summary(settings)]));
}

/** Binds the groups' buttons; returns {show(settings)}, which writes their summaries and opens a group a problem appeared in. */
export function createOptionGroups() {
  const groups = bindOptionGroups(Object.keys(SUMMARIES));
  return { show: (settings) => groups.show(groupSummaries(settings)) };
}
