// Every setting of the page, with its default and its spelling in the URL hash, so that any
// view is a link: #t=Hello+world&h=2&c=1. Only settings that differ from their default are
// written. While the page compares, the pinned setting A rides along as one more entry, its
// own hash as the value: #h=2&a=h%3D1 (A has 1 head, B has 2). Reading a hash never fails: a value that does not parse, or a key this page does
// not know, is left out and reported so the page can show what it ignored.
import { choice, flag, linkNumber, wholeNumber } from '../shared/setting-codecs.js';
import { fieldReader, hashEntries, shorten } from '../shared/url-hash.js';
import { PRESETS } from './presets.js';

const MAX_SEED = 2 ** 31 - 1;  // a torch.manual_seed value that a URL and a number input both keep exactly
const MAX_WIDTH = 512;          // d for random inputs and d_out for projections
const MAX_TABLE_DIMS = 8;       // columns of the editable vector table
const MAX_HEADS = 16;
const MAX_POSITION = 1 << 20;   // window, sinks, query and zoom are token counts or indices
const TABLE_ROW_SEPARATOR = ';';
const TABLE_VALUE_SEPARATOR = ',';

const SOURCES = ['glove', 'journey', 'attention', 'random', 'table'];
const TRAINABLE = ['none', 'rand', 'linear'];
const POSITIONAL = ['none', 'sinusoidal', 'rope', 'alibi'];
const ROPE_PAIRINGS = ['interleaved', 'half'];
const SLOPE_SEPARATOR = ',';

// Characters of the encoded text a link keeps: an 8,192-token English text (the most the page
// reads) takes about 40,000. A longer text is left out of the link, and the page says so.
const MAX_LINK_TEXT = 64 * 1024;

const NORMALIZATIONS = ['softmax', 'naive-softmax', 'sum'];
const VALUES = ['weights', 'scores'];
const POOLING = ['max', 'mean'];
const COLOR_SCALES = ['linear', 'log'];  // how the heatmap's colours follow the weights
const STEP_SOURCES = ['matrix', 'tutorial'];  // what the step-by-step view walks through

const text = { parse: (value) => value, format: String };

// A whole number, or nothing ("" in a box, null in the state): the key/value heads, which
// are the heads unless given.
function optionalWholeNumber(min, max) {
  const number = wholeNumber(min, max);
  return {
    parse: (value) => (value === '' ? null : number.parse(value)),
    format: (value) => (value === null ? '' : String(value)),
  };
}

const positiveNumber = {
  parse(value) {
    const number = Number(value);
    if (value.trim() === '' || !Number.isFinite(number) || number <= 0) throw new Error('a positive number');
    return number;
  },
  format: String,
};

// ALiBi's slopes: "" for the geometric ones, or numbers separated by commas, one per head
// ("0.5, 0.25"). Whether there is one per head is checked against the heads by the page.
const slopes = {
  parse(value) {
    if (value.trim() === '') return [];
    const parts = value.split(SLOPE_SEPARATOR).map((part) => part.trim());
    if (parts.length > MAX_HEADS) throw new Error(`at most ${MAX_HEADS} slopes, one per head (found ${parts.length})`);
    return parts.map((part) => {
      const number = linkNumber(part);
      if (part === '' || !Number.isFinite(number)) {
        throw new Error(`numbers separated by commas, such as 0.5, 0.25: “${shorten(part)}” is not a number`);
      }
      return number;
    });
  },
  format: (values) => values.join(SLOPE_SEPARATOR),
};

// 'all' or a head number counted from 1.
const headView = {
  parse(value) {
    if (value === 'all') return value;
    return wholeNumber(1, MAX_HEADS).parse(value);
  },
  format: String,
};

// Rows of numbers: "0.1,0.2,0.3;0.4,0.5,0.6", each one a float32 can hold.
const table = {
  parse(value) {
    return value.split(TABLE_ROW_SEPARATOR).map((row) => row.split(TABLE_VALUE_SEPARATOR).map((cell) => {
      const number = linkNumber(cell);
      if (cell.trim() === '' || !Number.isFinite(Math.fround(number))) {
        throw new Error('rows of numbers such as 0.1,0.2;0.3,0.4, each within ±3.4e38 (float32)');
      }
      return number;
    }));
  },
  format: (rows) => rows.map((row) => row.join(TABLE_VALUE_SEPARATOR)).join(TABLE_ROW_SEPARATOR),
};

// The zoomed square of the matrix: "row0,col0,size".
const zoom = {
  parse(value) {
    const parts = value.split(',');
    if (parts.length !== 3) throw new Error('row,column,size');
    const [row0, col0, size] = parts.map((part) => wholeNumber(0, MAX_POSITION).parse(part));
    if (size < 1) throw new Error('a size of at least 1');
    return { row0, col0, size };
  },
  format: ({ row0, col0, size }) => `${row0},${col0},${size}`,
};

/** Field name → {key in the hash, label as problems name it, default, codec}. */
const FIELDS = {
  text: { key: 't', label: 'text', value: PRESETS.journey.text, codec: text },
  source: { key: 'src', label: 'word vectors', value: 'glove', codec: choice(SOURCES) },
  randomSeed: { key: 'rs', label: 'random seed', value: 123, codec: wholeNumber(0, MAX_SEED) },
  randomDims: { key: 'rd', label: 'number of random dimensions', value: 8, codec: wholeNumber(1, MAX_WIDTH) },
  tableDims: { key: 'td', label: 'number of table dimensions', value: 3, codec: wholeNumber(1, MAX_TABLE_DIMS) },
  table: { key: 'tv', label: 'vector table', value: [], codec: table },
  trainable: { key: 'tw', label: 'trainable weights', value: 'none', codec: choice(TRAINABLE) },
  torchSeed: { key: 'ts', label: 'torch.manual_seed', value: 123, codec: wholeNumber(0, MAX_SEED) },
  dOut: { key: 'do', label: 'd_out', value: 2, codec: wholeNumber(1, MAX_WIDTH) },
  heads: { key: 'h', label: 'number of heads', value: 1, codec: wholeNumber(1, MAX_HEADS) },
  kvHeads: { key: 'kv', label: 'number of key/value heads', value: null, codec: optionalWholeNumber(1, MAX_HEADS) },
  headView: { key: 'hv', label: 'head shown', value: 'all', codec: headView },
  causal: { key: 'c', label: 'causal mask', value: false, codec: flag },
  window: { key: 'w', label: 'window', value: 0, codec: wholeNumber(0, MAX_POSITION) },
  sinks: { key: 'sk', label: 'number of sink tokens', value: 0, codec: wholeNumber(0, MAX_POSITION) },
  positional: { key: 'pe', label: 'positional encoding', value: 'none', codec: choice(POSITIONAL) },
  ropeBase: { key: 'rb', label: 'RoPE base', value: 10000, codec: positiveNumber },
  ropePairing: { key: 'rp', label: 'RoPE pairing', value: 'interleaved', codec: choice(ROPE_PAIRINGS) },
  alibiSlopes: { key: 'as', label: 'ALiBi slopes', value: [], codec: slopes },
  scaling: { key: 'sc', label: 'scaling', value: true, codec: flag },
  normalization: { key: 'nm', label: 'normalisation', value: 'softmax', codec: choice(NORMALIZATIONS) },
  query: { key: 'q', label: 'query token #', value: PRESETS.journey.query, codec: wholeNumber(0, MAX_POSITION) },
  stepScale: { key: 'ss', label: 'step-by-step scale', value: 1, codec: positiveNumber },
  stepSource: { key: 'sw', label: 'step-by-step version', value: 'matrix', codec: choice(STEP_SOURCES) },
  generate: { key: 'gen', label: 'generation step by step', value: false, codec: flag },
  generationStep: { key: 'gs', label: 'generation step', value: 0, codec: wholeNumber(0, MAX_POSITION) },
  value: { key: 'val', label: 'colour', value: 'weights', codec: choice(VALUES) },
  colorScale: { key: 'cs', label: 'colour scale', value: 'linear', codec: choice(COLOR_SCALES) },
  pooling: { key: 'pool', label: 'block pooling', value: 'max', codec: choice(POOLING) },
  zoom: { key: 'z', label: 'zoom', value: null, codec: zoom },
};
const readField = fieldReader(FIELDS);

export const LIMITS = { MAX_TABLE_DIMS, MAX_HEADS, MAX_LINK_TEXT, MAX_WIDTH };

// What is on display rather than what is computed: a comparison shows A and B alike, as B's
// settings say, so the pinned setting A holds none of these.
const VIEW_FIELDS = ['headView', 'query', 'stepScale', 'value', 'colorScale', 'pooling', 'zoom'];
const PIN_KEY = 'a';   // the hash's entry of the pinned setting A

/** The state when the hash is empty (nothing pinned). */
function defaultState() {
  return {
    ...Object.fromEntries(Object.entries(FIELDS).map(([name, field]) => [name, structuredClone(field.value)])),
    pinned: null,
  };
}

/** The setting A that pinning `state` keeps: its computed settings, with the view fields at their defaults and nothing pinned. */
export function pinnedSettings(state) {
  const pinned = defaultState();
  for (const name of Object.keys(FIELDS)) {
    if (!VIEW_FIELDS.includes(name)) pinned[name] = structuredClone(state[name]);
  }
  return pinned;
}

// A setting's value as a sentence quotes it: on or off, '—' for an empty one, long ones cut.
function shownValue(field, value) {
  if (field.codec === flag) return value ? 'on' : 'off';
  return shorten(field.codec.format(value)) || '—';
}

/** The computed settings in which b differs from a: [{label, a, b}], each value as a sentence quotes it. */
export function settingsDifferences(a, b) {
  return Object.entries(FIELDS)
    .filter(([name, field]) => !VIEW_FIELDS.includes(name) && field.codec.format(a[name]) !== field.codec.format(b[name]))
    .map(([name, field]) => ({ label: field.label, a: shownValue(field, a[name]), b: shownValue(field, b[name]) }));
}

/**
 * '#t=…&h=2' → {state, problems: ['h (number of heads) must be …, got “x”', …]}. The pinned
 * setting's entry (a=…) is read as a hash of its own, and its problems are named 'A: …';
 * `pinned`: whether this is that hash (which pins nothing).
 */
export function parseHash(hash, { pinned = false } = {}) {
  const state = defaultState();
  const problems = [];
  for (const [key, value] of hashEntries(hash, problems)) {
    if (key === PIN_KEY && !pinned) {
      const inner = parseHash(value, { pinned: true });
      state.pinned = pinnedSettings(inner.state);
      problems.push(...inner.problems.map((problem) => `A: ${problem}`));
      continue;
    }
    readField(state, key, value, problems);
  }
  return { state, problems };
}

function hashParams(state) {
  const params = new URLSearchParams();
  for (const [name, field] of Object.entries(FIELDS)) {
    const formatted = state[name] === null ? null : field.codec.format(state[name]);
    const fallback = field.value === null ? null : field.codec.format(field.value);
    if (formatted !== fallback && formatted !== null) params.set(field.key, formatted);
  }
  return params;
}

/** The hash for `state`, without '#': only the settings that differ from their default (and A's, when pinned). */
export function formatHash(state) {
  const params = hashParams(state);
  if (state.pinned) params.set(PIN_KEY, formatHash(state.pinned));
  return params.toString();
}

/**
 * The hash a link keeps, without '#': formatHash, but without the text (B's or A's) when it
 * takes more than MAX_LINK_TEXT characters encoded: {hash, textLeftOut}.
 */
export function formatLink(state) {
  const params = hashParams(state);
  const text = params.get(FIELDS.text.key) ?? '';
  // encoding never shortens a text: one longer than the limit need not be encoded to know
  const fits = text.length <= MAX_LINK_TEXT && new URLSearchParams([[FIELDS.text.key, text]]).toString().length - FIELDS.text.key.length - 1 <= MAX_LINK_TEXT;
  if (!fits) params.delete(FIELDS.text.key);
  let textLeftOut = !fits;
  if (state.pinned) {
    const pinned = formatLink(state.pinned);
    params.set(PIN_KEY, pinned.hash);
    textLeftOut ||= pinned.textLeftOut;
  }
  return { hash: params.toString(), textLeftOut };
}

/** A setting's name as messages give it ('number of heads'). */
export function fieldLabel(name) {
  return FIELDS[name].label;
}

/** One setting as its control shows it. */
export function formatField(name, value) {
  return FIELDS[name].codec.format(value);
}

/** One setting as typed into its control; throws an Error that says what it must be. */
export function parseField(name, typed) {
  return FIELDS[name].codec.parse(typed.trim());
}

// ---- what the state stands for ---------------------------------------------------------------

/** The settings of the trainable projections W_query, W_key, W_value. */
export const PROJECTION_FIELDS = ['trainable', 'torchSeed', 'dOut'];

/**
 * The key/value heads the engine is given, or null for as many as the heads: grouped-query
 * attention needs W_key and W_value (without them q = k = v = x, which cannot have fewer key
 * heads than query heads), so the setting applies only with trainable weights.
 */
export function groupedKvHeads(state) {
  if (state.trainable === 'none' || state.kvHeads === null || state.kvHeads === state.heads) return null;
  return state.kvHeads;
}

function positionalOption(state) {
  if (state.positional === 'rope') return { type: 'rope', base: state.ropeBase, pairing: state.ropePairing };
  if (state.positional === 'alibi' && state.alibiSlopes.length > 0) return { type: 'alibi', slopes: state.alibiSlopes };
  return { type: state.positional };
}

/** The engine's options of selfAttention for `state`; generation step by step is causal. */
export function attentionOptions(state) {
  const kvHeads = groupedKvHeads(state);
  return {
    heads: state.heads,
    ...(kvHeads !== null && { kvHeads }),
    scale: state.scaling,
    normalization: state.normalization,
    causal: state.causal || state.generate,
    window: state.window,
    sinks: state.sinks,
    positional: positionalOption(state),
  };
}

/**
 * Whether the heatmap's colours follow the logarithm of what it shows: the log colour scale
 * applies to weights; scores, which can be negative, stay linear.
 */
export function logColors(state) {
  return state.colorScale === 'log' && state.value === 'weights';
}

/** The heads on display, counted from 0. */
export function shownHeads(state) {
  return state.headView === 'all' ? Array.from({ length: state.heads }, (_, h) => h) : [state.headView - 1];
}

/** The square of an n×n matrix on display: the zoom, when it fits inside, else the whole. */
export function shownRegion(state, n) {
  const zoom = state.zoom;
  if (zoom && zoom.size < n && zoom.row0 + zoom.size <= n && zoom.col0 + zoom.size <= n) return zoom;
  return { row0: 0, col0: 0, size: n };
}
