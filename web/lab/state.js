// The lab's settings: defaults, presets, the engine options they stand for, and the URL
// hash that makes any view a shareable link (#n=1024&layers=12&...).
import { linkNumber } from '../shared/setting-codecs.js';
import { hashEntries, shorten } from '../shared/url-hash.js';

/** Context lengths the n slider steps through. */
export const LENGTHS = [16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096];
/** Windows the window slider steps through; 0 is no window. */
export const WINDOWS = [0, 4, 8, 16, 32, 64, 128, 256, 512, 1024];
/** Context lengths of the needle grid's columns. */
export const GRID_LENGTHS = [64, 128, 256, 512, 1024, 2048, 4096];
/** RoPE has no fast path: with it, the needle experiments stop at this length. */
export const ROPE_EXPERIMENT_LIMIT = 1024;
/** RoPE bases drawn in the decay chart: short (early Llama-style 500), standard, long-context. */
export const ROPE_BASES = [500, 10000, 500000];
export const ROPE_HEAD_WIDTH = 64;
/** Depths of the needle experiments, evenly from the first document to the last. */
export const NEEDLE_DEPTHS = 11;
// The slope slider's stops in each decade: about even steps on a log scale (×1.3 to ×1.7), on
// which the defaults' and the presets' slopes (0.003, 0.005) lie, so that the slider returns to them.
const SLOPE_MANTISSAS = [1, 1.5, 2, 3, 5, 7];
const SLOPE_DECADES = [-4, -3, -2, -1];
const SLOPE_TOP = 0.3;  // the last stop: a decay steep enough to leave only the last few tokens
/** ALiBi slopes the slope slider steps through, from 0.0001 to 0.3. */
export const SLOPES = SLOPE_DECADES.flatMap((power) => SLOPE_MANTISSAS.map((m) => Number((m * 10 ** power).toPrecision(2))))
  .filter((slope) => slope <= SLOPE_TOP);
/** A link's slope may lie anywhere in this range, between the stops too. */
const [SLOPE_MIN, SLOPE_MAX] = [1e-4, 0.32];

/** Defaults: a U-shaped curve (tests/native/lab/ and tests/js use them too). */
export const DEFAULTS = Object.freeze({
  n: 1024, layers: 12, residual: 0.85, causal: true, positional: 'alibi', slope: 0.003,
  ropeBase: 10000, ropeStrength: 6, window: 0, sinks: 0, measure: 'final',
  signal: 3, noise: 1, trials: 8, metric: 'mass', mitigation: 'query-aware', documents: 20, logScale: true,
});

/** Each preset switches on one mechanism or a combination; n stays as it is. */
export const PRESETS = [
  { id: 'primacy', label: 'Primacy: depth under a causal mask',
    settings: { layers: 8, residual: 0, causal: true, positional: 'none', window: 0, sinks: 0 } },
  { id: 'recency', label: 'Recency: distance decay (ALiBi)',
    settings: { layers: 1, residual: 0, causal: true, positional: 'alibi', slope: 0.005, window: 0, sinks: 0 } },
  { id: 'u-shape', label: 'Both: lost in the middle',
    settings: { layers: 12, residual: 0.85, causal: true, positional: 'alibi', slope: 0.003, window: 0, sinks: 0 } },
  { id: 'bidirectional', label: 'Bidirectional baseline',
    settings: { layers: 1, residual: 0, causal: false, positional: 'none', window: 0, sinks: 0 } },
  { id: 'streaming', label: 'Sinks + window (StreamingLLM)',
    settings: { layers: 12, residual: 0.85, causal: true, positional: 'alibi', slope: 0.003, window: 128, sinks: 4 } },
];

/** The sinks the model of `settings` has: none without a window, where they mean nothing (the sinks slider keeps its value). */
const sinksOf = (settings) => (settings.window > 0 ? settings.sinks : 0);

/**
 * Whether `settings` are the preset's: every setting it sets has its value (n and the rest may be
 * any), the sinks as the model has them (sinksOf), so that sinks without a window, from a link or
 * a window slid to 0, still leave the preset pressed whose model the page computes.
 */
export const isPresetOf = (preset, settings) => Object.entries(preset.settings)
  .every(([key, value]) => (key === 'sinks' ? sinksOf(settings) === sinksOf(preset.settings) : settings[key] === value));

/** The sliders' ranges: [min, max, step], the only values the controls and the link take. */
export const RANGES = Object.freeze({
  layers: [1, 32, 1], residual: [0, 0.95, 0.05], ropeStrength: [0, 12, 0.5], sinks: [0, 16, 1],
  signal: [0, 10, 0.5], noise: [0, 3, 0.25], trials: [1, 64, 1],
});
/** Settings that take one of a list of values: the n and window sliders' stops, the RoPE bases. */
const LISTS = { n: LENGTHS, window: WINDOWS, ropeBase: ROPE_BASES };
const CHOICES = {
  positional: ['none', 'alibi', 'rope'], measure: ['final', 'received'], metric: ['mass', 'top1'],
  mitigation: ['query-aware', 'calibration', 'ms-poe', 'reorder'],
};
const FLAGS = ['causal', 'logScale'];
const STEP_SLACK = 1e-9;        // a value within this many steps of a step counts as on it

// Why `text` is not a value of setting `key` (a rule such as 'a whole number from 1 to 32'),
// or null when it is; `documents` are the published data's document counts.
function problemOf(key, text, documents) {
  const number = text.trim() === '' ? NaN : Number(text);
  if (key in RANGES) {
    const [min, max, step] = RANGES[key];
    const steps = (number - min) / step;
    const onStep = Math.abs(steps - Math.round(steps)) < STEP_SLACK;
    if (number >= min && number <= max && onStep) return null;
    return step === 1 ? `a whole number from ${min} to ${max}` : `a number from ${min} to ${max} in steps of ${step}`;
  }
  const list = key === 'documents' ? documents : LISTS[key];
  if (list) return list.includes(number) ? null : `one of ${list.join(', ')}`;
  if (key === 'slope') return number >= SLOPE_MIN && number <= SLOPE_MAX ? null : `a number from ${SLOPE_MIN} to ${SLOPE_MAX}`;
  if (CHOICES[key]) return CHOICES[key].includes(text) ? null : `one of ${CHOICES[key].join(', ')}`;
  return text === '0' || text === '1' ? null : '0 or 1';
}

/**
 * Settings from a URL hash: {settings, problems}. Anything missing keeps its default;
 * unknown keys and values the controls cannot take are left out and listed in `problems`
 * ('layers must be a whole number from 1 to 32, got “-1”'). `documents`: the document counts
 * of the published data.
 */
export function parseHash(hash, { documents = [DEFAULTS.documents] } = {}) {
  const settings = { ...DEFAULTS };
  const problems = [];
  const known = new Set([...Object.keys(RANGES), ...Object.keys(LISTS), ...Object.keys(CHOICES), ...FLAGS, 'slope', 'documents']);
  for (const [key, value] of hashEntries(hash, problems)) {
    if (!known.has(key)) {
      problems.push(`unknown setting “${shorten(key)}”`);
      continue;
    }
    const problem = problemOf(key, value, documents);
    if (problem) problems.push(`${key} must be ${problem}, got “${shorten(value)}”`);
    else if (FLAGS.includes(key)) settings[key] = value === '1';
    else settings[key] = CHOICES[key] ? value : linkNumber(value);
  }
  return { settings, problems };
}

/** The hash of `settings`, listing only what differs from the defaults. */
export function toHash(settings) {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(settings)) {
    if (value === DEFAULTS[key]) continue;
    params.set(key, typeof value === 'boolean' ? (value ? '1' : '0') : String(value));
  }
  const text = params.toString();
  return text ? `#${text}` : '';
}

/** The lab's link to `settings`, relative to the page: 'lab.html#window=128&sinks=4' ('lab.html' at the defaults). */
export function settingsLink(settings) {
  return `lab.html${toHash(settings)}`;
}

/**
 * Every setting of `settings` as the link writes it (key=value), and the link, for a figure's
 * caption: 'Settings: n=1024, layers=12, …, logScale=1. Link: lab.html#window=128&sinks=4' (the
 * lab passes the settings a chart depends on, pickSettings).
 * `computedAt`, the context lengths a figure was computed at when they are not n, follows n:
 * 'n=4096 (computed at 1024)' (the needle experiments under RoPE), 'n=1024 (computed at 64 to 4096)'
 * (the grid's columns).
 */
export function settingsCaption(settings, { computedAt = [settings.n] } = {}) {
  const lengths = computedAt.length === 1 ? `${computedAt[0]}` : `${computedAt[0]} to ${computedAt.at(-1)}`;
  const computed = computedAt.length === 1 && computedAt[0] === settings.n ? '' : ` (computed at ${lengths})`;
  const all = Object.entries(settings)
    .map(([key, value]) => `${key}=${typeof value === 'boolean' ? Number(value) : value}${key === 'n' ? computed : ''}`);
  return `Settings: ${all.join(', ')}. Link: ${settingsLink(settings)}`;
}

/** The needle experiments' own settings, which charts 3 and 4 add to the model's. */
export const NEEDLE_SETTINGS = ['signal', 'noise', 'trials', 'metric'];

/**
 * The settings the model of `settings` is made of (modelOptions): a decay's own only under it
 * (ALiBi's slope, RoPE's base and strength), the sinks only with a window.
 */
export function modelSettings(settings) {
  return ['n', 'layers', 'residual', 'causal', 'positional',
    ...(settings.positional === 'alibi' ? ['slope'] : []), ...(settings.positional === 'rope' ? ['ropeBase', 'ropeStrength'] : []),
    'window', ...(settings.window > 0 ? ['sinks'] : [])];
}

/** The settings of `settings` named in `keys`, in their order in `settings`. */
export function pickSettings(settings, keys) {
  const kept = new Set(keys);
  return Object.fromEntries(Object.entries(settings).filter(([key]) => kept.has(key)));
}

/** The engine's positional option for `settings`. */
export function positionalOption(settings) {
  if (settings.positional === 'alibi') return { type: 'alibi', slope: settings.slope };
  if (settings.positional === 'rope') {
    return { type: 'rope', base: settings.ropeBase, headWidth: ROPE_HEAD_WIDTH, strength: settings.ropeStrength };
  }
  return { type: 'none' };
}

/** The model options of positionCurve / needleSweep, at context length n. */
export function modelOptions(settings, n = settings.n) {
  return {
    n, layers: settings.layers, residual: settings.residual, causal: settings.causal,
    window: settings.window, sinks: sinksOf(settings), positional: positionalOption(settings),
  };
}

/** The needle options of needleSweep / needleGrid. */
export function needleOptions(settings) {
  return { signal: settings.signal, noise: settings.noise, trials: settings.trials, metric: settings.metric, depths: NEEDLE_DEPTHS, seed: 1 };
}

/** The reordering mitigation's retriever: the error of its relevance estimate, σ in score units. */
export const RETRIEVER_NOISE = 1;

/** The engine's mitigation option for `settings` (mitigations.js says what each does). */
export function mitigationOption(settings) {
  return settings.mitigation === 'reorder' ? { type: 'reorder', retrieverNoise: RETRIEVER_NOISE } : { type: settings.mitigation };
}

/**
 * Whether a needle sweep of `settings` draws anything at random, with their mitigation when
 * `mitigated` (chart 4's sweep after it) or without (chart 3's, and chart 4's before): the
 * distractors' noise, or the reordering retriever's error. When nothing is, every seeded trial
 * is the same and the engine runs one (core lab/needle.cpp); else it runs settings.trials.
 */
export function drawsAtRandom(settings, { mitigated = false } = {}) {
  return settings.noise > 0 || (mitigated && settings.mitigation === 'reorder' && RETRIEVER_NOISE > 0);
}

/** The context length of the needle experiments: n, capped for RoPE. */
export function experimentLength(settings) {
  return settings.positional === 'rope' ? Math.min(settings.n, ROPE_EXPERIMENT_LIMIT) : settings.n;
}

/** The grid's context lengths: all of them, capped for RoPE. */
export function gridLengths(settings) {
  return settings.positional === 'rope' ? GRID_LENGTHS.filter((n) => n <= ROPE_EXPERIMENT_LIMIT) : GRID_LENGTHS;
}
