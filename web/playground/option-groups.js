// The words of the playground's option groups (index.html's fieldsets of class option-group),
// which a narrow screen folds to their heading and a line of their settings ('causal · window 8
// · no positional encoding'; shared/page/option-groups.js binds them): where the options
// follow the matrix (one column, up to 820 px: option-groups.css), every group's heading lies
// within a screen below the matrix and a setting can be changed with the matrix in view.
import { formatCount, plural } from '../shared/format.js';
import { bindOptionGroups } from '../shared/page/option-groups.js';
import { formatField, groupedKvHeads } from './state.js';

const TRAINABLE_WORDS = { rand: 'torch.rand', linear: 'nn.Linear' };
const POSITIONAL_WORDS = { none: 'no positional encoding', sinusoidal: 'sinusoidal positions' };
const PAIRING_WORDS = { interleaved: 'interleaved', half: 'halves' };
const NORMALIZATION_WORDS = { softmax: 'softmax', 'naive-softmax': 'naive softmax', sum: 'sum-normalised' };
const SEPARATOR = ' · ';

function weightsSummary(state) {
  if (state.trainable === 'none') return 'none: q, k, v are the vectors';
  return [TRAINABLE_WORDS[state.trainable], `seed ${state.torchSeed}`, `d_out ${state.dOut}`].join(SEPARATOR);
}

// The key/value heads only when the engine is given fewer (groupedKvHeads); a head shown large.
function headsSummary(state) {
  const parts = [plural(state.heads, 'head')];
  const kvHeads = groupedKvHeads(state);
  if (kvHeads !== null) parts.push(plural(kvHeads, 'key/value head'));
  if (state.headView !== 'all') parts.push(`head ${state.headView} large`);
  return parts.join(SEPARATOR);
}

function positionalWords(state) {
  if (state.positional === 'rope') {
    return `RoPE base ${formatField('ropeBase', state.ropeBase)}, ${PAIRING_WORDS[state.ropePairing]}`;
  }
  if (state.positional === 'alibi') {
    return state.alibiSlopes.length === 0 ? 'ALiBi, geometric slopes' : `ALiBi slopes ${state.alibiSlopes.join(', ')}`;
  }
  return POSITIONAL_WORDS[state.positional];
}

// Causal as the engine is given it (generation step by step is causal); sinks only with a window.
function maskSummary(state) {
  const masks = [];
  if (state.causal || state.generate) masks.push('causal');
  if (state.window > 0) {
    masks.push(state.sinks > 0 ? `window ${formatCount(state.window)} + ${plural(state.sinks, 'sink')}` : `window ${formatCount(state.window)}`);
  }
  return [masks.length > 0 ? masks.join(SEPARATOR) : 'no mask', positionalWords(state)].join(SEPARATOR);
}

function scoresSummary(state) {
  return [state.scaling ? 'scaled by 1/√d' : 'not scaled', NORMALIZATION_WORDS[state.normalization]].join(SEPARATOR);
}

// The groups by their name in index.html's ids, each with its summary.
const SUMMARIES = { weights: weightsSummary, heads: headsSummary, mask: maskSummary, scores: scoresSummary };

/**
 * Each group's settings in one line, by the group's name: {weights: 'none: q, k, v are the vectors', heads: '1 head',
 * mask: 'no mask · no positional encoding', scores: 'scaled by 1/√d · softmax'} for the defaults.
 */
export function groupSummaries(state) {
  return Object.fromEntries(Object.entries(SUMMARIES).map(([name, summary]) => [name, summary(state)]));
}

/** Binds the groups' buttons; returns {show(state)}, which writes their summaries and opens a group a problem appeared in. */
export function createOptionGroups() {
  const groups = bindOptionGroups(Object.keys(SUMMARIES));
  return { show: (state) => groups.show(groupSummaries(state)) };
}
