// Settings that fail only together, checked before the engine is asked: the heads must split
// the model width d evenly (into even widths under RoPE, which rotates pairs of coordinates),
// the key/value heads must divide the heads, and ALiBi takes one slope per head. A check returns a message that names the settings and
// what would work, or null.
import { plural } from '../shared/format.js';
import { LIMITS } from './state.js';

/** The width d the heads split: of the input's vectors, or d_out with trainable weights. */
function modelWidth(state, input) {
  return state.trainable === 'none' ? input?.x?.cols ?? state.randomDims : state.dOut;
}

/** Head counts up to the page's maximum that split `width` evenly (into even widths if `even`). */
function headChoices(width, even) {
  const choices = [];
  for (let h = 1; h <= Math.min(width, LIMITS.MAX_HEADS); ++h) {
    if (width % h === 0 && (!even || (width / h) % 2 === 0)) choices.push(h);
  }
  return choices;
}

/** ALiBi's slopes, when given, are one per head; a list of another length waits for a fix. */
export function slopesProblem(state) {
  const count = state.alibiSlopes.length;
  if (state.positional !== 'alibi' || count === 0 || count === state.heads) return null;
  return `${plural(count, 'ALiBi slope')} for ${plural(state.heads, 'head')}: ` +
    'give one per head, or leave the slopes empty for the geometric ones.';
}

/** The heads split d evenly, and under RoPE into even widths; no check before there are tokens. */
export function headsProblem(state, input) {
  if (!input || input.tokens.length === 0) return null;
  const width = modelWidth(state, input);
  const heads = state.heads;
  const count = plural(heads, 'head');
  if (width % heads !== 0) {
    return `${count} cannot split d = ${width} into equal slices: choose ${headChoices(width, false).join(', ')}.`;
  }
  if (state.positional !== 'rope' || (width / heads) % 2 === 0) return null;
  const even = headChoices(width, true);
  return `RoPE rotates pairs of coordinates, so each head's width must be even: ${count} over d = ${width} ` +
    `${heads === 1 ? 'gives a head' : 'give heads'} of ${width / heads} dimensions. ` +
    (even.length > 0 ? `With RoPE choose ${even.join(', ')} heads.`
      : `No number of heads gives an even width with d = ${width}: use other vectors, or trainable weights with an even d_out.`);
}

/**
 * With trainable weights, the d_out that ends headsProblem by itself: the smallest from the
 * current one up that the heads split (into even widths under RoPE), within the page's
 * limit; null when there is no problem, no d_out (the vectors' own width) or none fits.
 */
export function headsFix(state, input) {
  if (state.trainable === 'none' || headsProblem(state, input) === null) return null;
  const fits = (width) => width % state.heads === 0 && (state.positional !== 'rope' || (width / state.heads) % 2 === 0);
  for (let width = state.dOut; width <= LIMITS.MAX_WIDTH; ++width) if (fits(width)) return width;
  return null;
}

/** Which head counts fit the input's width, as the hint under the heads box says it. */
export function headsHint(state, input) {
  const width = modelWidth(state, input);
  const divisors = headChoices(width, false);
  const even = headChoices(width, true);
  return `Heads split d = ${width} into equal slices: ${divisors.join(', ')}` +
    `${width > LIMITS.MAX_HEADS ? ' …' : ''} head${divisors.length === 1 ? '' : 's'} fit` +
    (state.positional === 'rope' ? `; with RoPE (even widths): ${even.length > 0 ? even.join(', ') : 'none'}.` : '.');
}

/** The key/value heads, when given with trainable weights, divide the heads. */
export function kvHeadsProblem(state) {
  const kvHeads = state.kvHeads;
  if (kvHeads === null || state.trainable === 'none' || state.heads % kvHeads === 0) return null;
  return `${plural(kvHeads, 'key/value head')} cannot serve ${plural(state.heads, 'query head')} evenly: ` +
    `each key/value head serves the same number of query heads, so choose ${headChoices(state.heads, false).join(', ')} ` +
    '(or leave the box empty for one per head).';
}

/** What the key/value heads box does now, as the note under it says it. */
export function kvHeadsHint(state) {
  if (state.trainable === 'none') {
    return 'Grouped-query attention needs trainable weights: without W_key and W_value the keys and values ' +
      'are the vectors themselves (q = k = v = x), so they cannot have fewer heads than the queries. ' +
      'Choose trainable weights above to share key/value heads.';
  }
  const kvHeads = state.kvHeads ?? state.heads;
  if (state.heads % kvHeads !== 0) return '';
  if (kvHeads === state.heads) {
    return `Empty or ${state.heads}: every query head has its own key and value head (multi-head attention).`;
  }
  const group = state.heads / kvHeads;
  const kind = kvHeads === 1 ? 'Multi-query attention: all heads share one' : `Grouped-query attention: ${kvHeads} groups, each sharing one`;
  return `${kind} key/value head (${group} query heads each). W_key and W_value have ${kvHeads}/${state.heads} ` +
    `of W_query's columns, and the key/value cache shrinks by ${group}×.`;
}
