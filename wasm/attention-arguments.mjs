// The arguments of attention and selfAttention, checked and converted in the order the engine
// checks them: engine.mjs passes them on to the core, and the pool (pool.mjs) checks a call
// with them before its workers see it, so that both throw the same Errors.
import {
  describe, fail, optional, positionalOption, requireBoolean, requireCount, requireKnownKeys,
  requireName, requireWholeNumber, toMatrix, toVector,
} from './arguments.mjs';

export const ATTENTION_OPTIONS = ['heads', 'kvHeads', 'scale', 'normalization', 'causal', 'window', 'sinks', 'prefix',
  'positional', 'kernel', 'part'];
export const PROJECTION_OPTIONS = ['wq', 'wk', 'wv', 'wo', 'bo'];
// The keys of each positional type of attention and selfAttention (attention refuses
// 'sinusoidal', which selfAttention adds to x).
const POSITIONAL_KEYS = {
  none: ['type'], sinusoidal: ['type'], rope: ['type', 'base', 'pairing'], alibi: ['type', 'slopes'],
};

// The arrays of `reuse`, a previous result of attention or selfAttention (or null), that
// this call may overwrite instead of allocating (bindings.cpp takes an array whose length
// matches): {scores: [], weights: [], context, q, k, v, output}, each a Float32Array or
// null. An array listed twice is taken once, so that no two outputs share it.
export function reuseOption(reuse) {
  if (reuse !== undefined && reuse !== null && typeof reuse !== 'object') {
    fail(`reuse must be a previous result of the same call, got ${describe(reuse)}`);
  }
  const taken = new Set();
  const take = (matrix) => {
    const data = matrix?.data;
    if (!(data instanceof Float32Array) || taken.has(data)) return null;
    taken.add(data);
    return data;
  };
  const list = (matrices) => (Array.isArray(matrices) ? matrices.map(take) : []);
  return {
    scores: list(reuse?.scores), weights: list(reuse?.weights), context: take(reuse?.context),
    q: take(reuse?.q), k: take(reuse?.k), v: take(reuse?.v), output: take(reuse?.output),
  };
}

function scaleOption(scale) {
  if (typeof scale === 'boolean') return scale;
  if (typeof scale === 'number' && Number.isFinite(scale)) return scale;
  return fail(`scale must be true, false or a finite number, got ${describe(scale)}`);
}

// [begin, end]: two whole numbers (whether they fit the call is the core's to say).
function rangeOption(name, range) {
  if (!Array.isArray(range) || range.length !== 2 || !range.every(Number.isSafeInteger)) {
    fail(`${name} must be [begin, end], two whole numbers, got ${describe(range)}`);
  }
  return range;
}

// {rows: [begin, end], heads: [begin, end]}, each optional.
function partOption(part) {
  requireKnownKeys('part', part, ['rows', 'heads']);
  return {
    rows: optional(part.rows, (rows) => rangeOption('part.rows', rows)),
    heads: optional(part.heads, (heads) => rangeOption('part.heads', heads)),
  };
}

// The options of attention and selfAttention, each undefined unless given.
function attentionOptions(options) {
  return {
    heads: optional(options.heads, (heads) => requireCount('heads', heads, 1)),
    kvHeads: optional(options.kvHeads, (kvHeads) => requireCount('kvHeads', kvHeads, 1)),
    scale: optional(options.scale, scaleOption),
    normalization: optional(options.normalization, (name) => requireName('normalization', name)),
    causal: optional(options.causal, (causal) => requireBoolean('causal', causal)),
    window: optional(options.window, (window) => requireWholeNumber('window', window, 0)),
    sinks: optional(options.sinks, (sinks) => requireWholeNumber('sinks', sinks, 0)),
    prefix: optional(options.prefix, (prefix) => requireWholeNumber('prefix', prefix, 0)),
    positional: optional(options.positional, (positional) => positionalOption('positional', positional, POSITIONAL_KEYS)),
    kernel: optional(options.kernel, (name) => requireName('kernel', name)),
    part: optional(options.part, partOption),
  };
}

// The slots of the numbers an attention or selfAttention call hands the core, in bindings.cpp's
// order (its CallNumber): the shapes of the matrices (q, k, v; selfAttention's x first, its
// others NaN), then the numeric options, NaN where not given.
const CALL_NUMBERS = ['firstRows', 'firstCols', 'keyRows', 'keyCols', 'valueRows', 'valueCols', 'heads', 'kvHeads',
  'scale', 'scaleOff', 'causal', 'window', 'sinks', 'prefix', 'partRowsBegin', 'partRowsEnd', 'partHeadsBegin',
  'partHeadsEnd'];
const SLOT = Object.fromEntries(CALL_NUMBERS.map((name, index) => [name, index]));
// The slots of each matrix's rows and columns, in the order coreArguments is given them.
const SHAPE_SLOTS = [['firstRows', 'firstCols'], ['keyRows', 'keyCols'], ['valueRows', 'valueCols']];

/**
 * The core's arguments for a checked call's `matrices` ([q, k, v] or [x]) and `options` (of
 * attentionArguments or selfAttentionArguments): [...the matrices' data, numbers (a
 * Float64Array of CALL_NUMBERS), normalization, kernel (each a string or undefined),
 * positional (an object or null)].
 */
export function coreArguments(matrices, options) {
  const numbers = new Float64Array(CALL_NUMBERS.length).fill(NaN);
  const set = (name, value) => {
    if (!(name in SLOT)) throw new Error(`no slot '${name}' among the call's numbers`);
    if (value !== undefined) numbers[SLOT[name]] = Number(value);
  };
  matrices.forEach((matrix, index) => {
    const [rows, cols] = SHAPE_SLOTS[index];
    set(rows, matrix.rows);
    set(cols, matrix.cols);
  });
  const { scale, part } = options;
  set('heads', options.heads);
  set('kvHeads', options.kvHeads);
  if (scale === false) set('scaleOff', 1);
  else if (typeof scale === 'number') set('scale', scale);
  set('causal', options.causal);
  set('window', options.window);
  set('sinks', options.sinks);
  set('prefix', options.prefix);
  set('partRowsBegin', part?.rows?.[0]);
  set('partRowsEnd', part?.rows?.[1]);
  set('partHeadsBegin', part?.heads?.[0]);
  set('partHeadsEnd', part?.heads?.[1]);
  return [...matrices.map((matrix) => matrix.data), numbers, options.normalization, options.kernel,
    options.positional ?? null];
}

/** attention(q, k, v, options)'s arguments → {q, k, v, options} (matrices {rows, cols, data: Float32Array}). */
export function attentionArguments(q, k, v, options) {
  requireKnownKeys('attention options', options, [...ATTENTION_OPTIONS, 'reuse']);
  return { q: toMatrix('q', q), k: toMatrix('k', k), v: toMatrix('v', v), options: attentionOptions(options) };
}

/** selfAttention(x, options)'s arguments → {x, weights: {wq, wk, wv, wo, bo} (null where not given), options}. */
export function selfAttentionArguments(x, options) {
  requireKnownKeys('selfAttention options', options, [...ATTENTION_OPTIONS, ...PROJECTION_OPTIONS, 'reuse']);
  const input = toMatrix('x', x);
  const optionalMatrix = (name) => (options[name] === undefined ? null : toMatrix(name, options[name]));
  const weights = {
    wq: optionalMatrix('wq'), wk: optionalMatrix('wk'), wv: optionalMatrix('wv'), wo: optionalMatrix('wo'),
    bo: options.bo === undefined ? null : toVector('bo', options.bo),
  };
  return { x: input, weights, options: attentionOptions(options) };
}
