// The lab's settings: defaults, presets, the engine options they stand for, and the URL
// hash that makes any view a shareable link (#n=1024&layers=12&...).

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
/** The ALiBi slope slider runs over log10(slope) in this range. */
export const SLOPE_LOG_RANGE = [-4, -0.5];

/** Defaults: a U-shaped curve (tests/native/test_position_bias.cpp and tests/js use them too). */
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

const NUMBERS = ['n', 'layers', 'residual', 'slope', 'ropeBase', 'ropeStrength', 'window', 'sinks', 'signal', 'noise', 'trials', 'documents'];
const CHOICES = {
  positional: ['none', 'alibi', 'rope'], measure: ['final', 'received'], metric: ['mass', 'top1'],
  mitigation: ['query-aware', 'calibration', 'ms-poe', 'reorder'],
};

/** Settings from a URL hash; anything missing or unreadable keeps its default. */
export function parseHash(hash) {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  const settings = { ...DEFAULTS };
  for (const key of NUMBERS) {
    const value = Number(params.get(key));
    if (params.has(key) && Number.isFinite(value)) settings[key] = value;
  }
  for (const [key, choices] of Object.entries(CHOICES)) {
    if (choices.includes(params.get(key))) settings[key] = params.get(key);
  }
  if (params.has('causal')) settings.causal = params.get('causal') !== '0';
  if (params.has('logScale')) settings.logScale = params.get('logScale') !== '0';
  return settings;
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
    window: settings.window, sinks: settings.window > 0 ? settings.sinks : 0, positional: positionalOption(settings),
  };
}

/** The needle options of needleSweep / needleGrid. */
export function needleOptions(settings) {
  return { signal: settings.signal, noise: settings.noise, trials: settings.trials, metric: settings.metric, depths: 11, seed: 1 };
}

/** The context length of the needle experiments: n, capped for RoPE. */
export function experimentLength(settings) {
  return settings.positional === 'rope' ? Math.min(settings.n, ROPE_EXPERIMENT_LIMIT) : settings.n;
}

/** The grid's context lengths: all of them, capped for RoPE. */
export function gridLengths(settings) {
  return settings.positional === 'rope' ? GRID_LENGTHS.filter((n) => n <= ROPE_EXPERIMENT_LIMIT) : GRID_LENGTHS;
}
