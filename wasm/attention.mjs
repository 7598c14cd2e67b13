// The attention engine's JavaScript API (see README "API"). The default export is an
// async factory: `const engine = await createAttention();` in browsers, workers and Node.
import createAttentionCore from './attention_core.mjs';
import {
  describe, fail, requireBoolean, requireChoice, requireFiniteNumber, requireKnownKeys,
  requireCount, requireWholeNumber, toMatrix, toVector,
} from './arguments.mjs';

const ATTENTION_OPTIONS = ['heads', 'scale', 'normalization', 'causal', 'window', 'sinks',
  'positional', 'kernel'];
const PROJECTION_OPTIONS = ['wq', 'wk', 'wv', 'wo', 'bo'];
const NORMALIZATIONS = ['softmax', 'naive-softmax', 'sum'];
const KERNELS = ['auto', 'materialized', 'flash'];
const ROPE_PAIRINGS = ['interleaved', 'half'];
const DEFAULT_ROPE_BASE = 10000;

// {type, ...} → {type, slopes, base, pairing} with every field present, as bindings.cpp reads it.
function positionalOption(positional, types) {
  if (positional === null || typeof positional !== 'object') {
    fail(`positional must be an object such as {type: 'rope'}, got ${describe(positional)}`);
  }
  const type = requireChoice('positional.type', positional.type, types);
  const normalized = { type, slopes: null, base: DEFAULT_ROPE_BASE, pairing: 'interleaved' };
  if (type === 'alibi') {
    requireKnownKeys('positional', positional, ['type', 'slopes']);
    if (positional.slopes !== undefined) normalized.slopes = toVector('positional.slopes', positional.slopes);
  } else if (type === 'rope') {
    requireKnownKeys('positional', positional, ['type', 'base', 'pairing']);
    if (positional.base !== undefined) normalized.base = requireFiniteNumber('positional.base', positional.base);
    if (positional.pairing !== undefined) {
      normalized.pairing = requireChoice('positional.pairing', positional.pairing, ROPE_PAIRINGS);
    }
  } else {
    requireKnownKeys('positional', positional, ['type']);
  }
  return normalized;
}

// The arrays of `reuse`, a previous result of attention or selfAttention (or null), that
// this call may overwrite instead of allocating (bindings.cpp takes an array whose length
// matches): {scores: [], weights: [], context, q, k, v, output}, each a Float32Array or
// null. An array listed twice is taken once, so that no two outputs share it.
function reuseOption(reuse) {
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

// The options of attention (and selfAttention, with sinusoidal allowed) with defaults.
function attentionOptions(options, positionalTypes) {
  const {
    heads = 1, scale = true, normalization = 'softmax', causal = false, window = 0, sinks = 0,
    positional = { type: 'none' }, kernel = 'auto',
  } = options;
  return {
    heads: requireCount('heads', heads, 1),
    scale: scaleOption(scale),
    normalization: requireChoice('normalization', normalization, NORMALIZATIONS),
    causal: requireBoolean('causal', causal),
    window: requireWholeNumber('window', window, 0),
    sinks: requireWholeNumber('sinks', sinks, 0),
    positional: positionalOption(positional, positionalTypes),
    kernel: requireChoice('kernel', kernel, KERNELS),
  };
}

// ---- the "lost in the middle" lab ---------------------------------------------------------

const POSITION_MODEL_OPTIONS = ['n', 'layers', 'residual', 'causal', 'window', 'sinks', 'positional',
  'positionScales'];
const NEEDLE_OPTIONS = ['depths', 'signal', 'noise', 'trials', 'seed', 'metric', 'mitigation'];
const LAB_DEFAULTS = { ropeHeadWidth: 64, ropeStrength: 6, depths: 11, signal: 4, noise: 1, trials: 8, seed: 1 };
const MITIGATION_DEFAULTS = { heads: 8, minRatio: 1.2, maxRatio: 1.8, retrieverNoise: 1 };
const MITIGATION_KEYS = {
  none: ['type'], 'query-aware': ['type'], calibration: ['type'],
  'ms-poe': ['type', 'heads', 'minRatio', 'maxRatio'], reorder: ['type', 'retrieverNoise'],
};
const MAX_SEED = 2 ** 32 - 1;

// The lab's positional option → {type, slope, base, headWidth, strength}, every field present.
function distanceBiasOption(positional) {
  if (positional === null || typeof positional !== 'object') {
    fail(`positional must be an object such as {type: 'alibi', slope: 0.01}, got ${describe(positional)}`);
  }
  const type = requireChoice('positional.type', positional.type, ['none', 'alibi', 'rope']);
  const normalized = {
    type, slope: 0, base: DEFAULT_ROPE_BASE, headWidth: LAB_DEFAULTS.ropeHeadWidth, strength: LAB_DEFAULTS.ropeStrength,
  };
  if (type === 'alibi') {
    requireKnownKeys('positional', positional, ['type', 'slope']);
    normalized.slope = requireFiniteNumber('positional.slope', positional.slope);
  } else if (type === 'rope') {
    requireKnownKeys('positional', positional, ['type', 'base', 'headWidth', 'strength']);
    const {
      base = DEFAULT_ROPE_BASE, headWidth = LAB_DEFAULTS.ropeHeadWidth, strength = LAB_DEFAULTS.ropeStrength,
    } = positional;
    normalized.base = requireFiniteNumber('positional.base', base);
    normalized.headWidth = requireCount('positional.headWidth', headWidth, 2);
    normalized.strength = requireFiniteNumber('positional.strength', strength);
  } else {
    requireKnownKeys('positional', positional, ['type']);
  }
  return normalized;
}

// The model options shared by positionCurve, needleSweep and needleGrid, with defaults
// (n is checked by each call: the grid has lengths instead).
function positionModelOptions(options) {
  const {
    layers = 1, residual = 0, causal = true, window = 0, sinks = 0, positional = { type: 'none' },
    positionScales = [1],
  } = options;
  if (!Array.isArray(positionScales) && !ArrayBuffer.isView(positionScales)) {
    fail(`positionScales must be an array of numbers (one per head), got ${describe(positionScales)}`);
  }
  return {
    layers: requireCount('layers', layers, 1),
    residual: requireFiniteNumber('residual', residual),
    causal: requireBoolean('causal', causal),
    window: requireWholeNumber('window', window, 0),
    sinks: requireWholeNumber('sinks', sinks, 0),
    positional: distanceBiasOption(positional),
    positionScales: Array.from(positionScales, (scale, h) => requireFiniteNumber(`positionScales[${h}]`, scale)),
  };
}

function mitigationOption(mitigation) {
  if (mitigation === null || typeof mitigation !== 'object') {
    fail(`mitigation must be an object such as {type: 'calibration'}, got ${describe(mitigation)}`);
  }
  const type = requireChoice('mitigation.type', mitigation.type, Object.keys(MITIGATION_KEYS));
  requireKnownKeys('mitigation', mitigation, MITIGATION_KEYS[type]);
  const {
    heads = MITIGATION_DEFAULTS.heads, minRatio = MITIGATION_DEFAULTS.minRatio, maxRatio = MITIGATION_DEFAULTS.maxRatio,
    retrieverNoise = MITIGATION_DEFAULTS.retrieverNoise,
  } = mitigation;
  return {
    type,
    heads: requireCount('mitigation.heads', heads, 1),
    minRatio: requireFiniteNumber('mitigation.minRatio', minRatio),
    maxRatio: requireFiniteNumber('mitigation.maxRatio', maxRatio),
    retrieverNoise: requireFiniteNumber('mitigation.retrieverNoise', retrieverNoise),
  };
}

// The needle options of needleSweep and needleGrid, with defaults.
function needleOptions(options) {
  const {
    depths = LAB_DEFAULTS.depths, signal = LAB_DEFAULTS.signal, noise = LAB_DEFAULTS.noise,
    trials = LAB_DEFAULTS.trials, seed = LAB_DEFAULTS.seed, metric = 'mass', mitigation = { type: 'none' },
  } = options;
  if (!Number.isSafeInteger(seed) || seed < 0 || seed > MAX_SEED) {
    fail(`seed must be a whole number from 0 to ${MAX_SEED}, got ${describe(seed)}`);
  }
  return {
    depths: requireCount('depths', depths, 2),
    signal: requireFiniteNumber('signal', signal),
    noise: requireFiniteNumber('noise', noise),
    trials: requireCount('trials', trials, 1),
    seed,
    metric: requireChoice('metric', metric, ['mass', 'top1']),
    mitigation: mitigationOption(mitigation),
  };
}

// A result from bindings.cpp: {ok: true, value} or {ok: false, error}.
function unwrap(outcome) {
  if (!outcome.ok) throw new Error(outcome.error);
  return outcome.value;
}

// ---- text: the tokenizer and the vector-table parser (core/include/attn/text/) ------------

// The longest text either call takes, in UTF-16 code units: the core's limit of 2^24 bytes of
// UTF-8 (a code unit is at least one byte), checked here before the text is copied into wasm.
const MAX_TEXT_LENGTH = 2 ** 24;
// A surrogate without its partner. Embind's UTF-8 encoder would merge it with the next
// character; replaced by U+FFFD (also one code unit) the offsets stay those of the original.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

function requireText(text) {
  if (typeof text !== 'string') fail(`text must be a string, got ${describe(text)}`);
  if (text.length > MAX_TEXT_LENGTH) {
    fail(`text is ${text.length} UTF-16 code units long, more than the ${MAX_TEXT_LENGTH} accepted; paste less`);
  }
  return text.replace(LONE_SURROGATE, '\uFFFD');
}

function textCalls(core) {
  /** Words, clitics and single symbols of `text`, each text.slice(starts[i], ends[i]); with a limit, the first ones. */
  function tokenize(text, options = {}) {
    requireKnownKeys('tokenize options', options, ['limit']);
    const limit = options.limit === undefined ? undefined : requireCount('limit', options.limit, 0);
    const { starts, ends, truncated } = unwrap(core.tokenize(requireText(text), limit));
    const startList = Array.from(starts), endList = Array.from(ends);
    return { tokens: startList.map((start, i) => text.slice(start, endList[i])), starts: startList, ends: endList, truncated };
  }

  /** A pasted table of numbers, one row per line → {rows, cols, data: Float32Array}. */
  function parseVectors(text) {
    return unwrap(core.parseVectors(requireText(text)));
  }

  return { tokenize, parseVectors };
}

export default async function createAttention() {
  const core = await createAttentionCore();

  function attention(q, k, v, options = {}) {
    requireKnownKeys('attention options', options, [...ATTENTION_OPTIONS, 'reuse']);
    return unwrap(core.attention(toMatrix('q', q), toMatrix('k', k), toMatrix('v', v),
      attentionOptions(options, ['none', 'rope', 'alibi']), reuseOption(options.reuse)));
  }

  function selfAttention(x, options = {}) {
    requireKnownKeys('selfAttention options', options, [...ATTENTION_OPTIONS, ...PROJECTION_OPTIONS, 'reuse']);
    const optionalMatrix = (name) => (options[name] === undefined ? null : toMatrix(name, options[name]));
    const weights = {
      wq: optionalMatrix('wq'), wk: optionalMatrix('wk'), wv: optionalMatrix('wv'), wo: optionalMatrix('wo'),
      bo: options.bo === undefined ? null : toVector('bo', options.bo),
    };
    return unwrap(core.selfAttention(toMatrix('x', x), weights,
      attentionOptions(options, ['none', 'sinusoidal', 'rope', 'alibi']), reuseOption(options.reuse)));
  }

  function walkthrough(x, options = {}) {
    requireKnownKeys('walkthrough options', options, ['query', 'scale']);
    const { query = 0, scale = 1 } = options;
    return unwrap(core.walkthrough(toMatrix('x', x), requireCount('query', query, 0),
      requireFiniteNumber('scale', scale)));
  }

  function torchGenerator(seed) {
    requireWholeNumber('seed', seed, 0);
    let draws = 0;  // numbers consumed so far: the core replays the stream from the seed
    return {
      seed,
      get draws() { return draws; },
      rand(rows, cols) {
        const out = unwrap(core.torchRand(seed, draws, requireCount('rows', rows, 0),
          requireCount('cols', cols, 0)));
        draws = out.draws;
        return out.matrix;
      },
      linear(inFeatures, outFeatures, bias = true) {
        const out = unwrap(core.torchLinear(seed, draws, requireCount('inFeatures', inFeatures, 1),
          requireCount('outFeatures', outFeatures, 0), requireBoolean('bias', bias)));
        draws = out.draws;
        return { weight: out.weight, bias: out.bias };
      },
    };
  }

  function rollout(options) {
    requireKnownKeys('rollout options', options,
      ['n', 'layers', 'residual', 'causal', 'positional', 'window', 'sinks']);
    const { n, positional = { type: 'none' } } = options;
    requireChoice('positional.type', positional?.type, ['none', 'alibi']);
    return unwrap(core.rollout({ n: requireCount('n', n, 1), ...positionModelOptions(options) }));
  }

  function attentionMemory(options) {
    requireKnownKeys('attentionMemory options', options, ['n', 'm', 'heads', 'bytesPerElement', 'kernel']);
    const { n, m = n, heads = 1, bytesPerElement = 4, kernel = 'materialized' } = options;
    return unwrap(core.attentionMemory({
      n: requireCount('n', n, 1),
      m: requireCount('m', m, 1),
      heads: requireCount('heads', heads, 1),
      bytesPerElement: requireCount('bytesPerElement', bytesPerElement, 1),
      kernel: requireChoice('kernel', kernel, ['materialized', 'flash']),
    }));
  }

  function ropeDecay(options) {
    requireKnownKeys('ropeDecay options', options, ['headWidth', 'base', 'maxDistance']);
    const { headWidth, base = DEFAULT_ROPE_BASE, maxDistance } = options;
    return unwrap(core.ropeDecay(requireCount('headWidth', headWidth, 2),
      requireFiniteNumber('base', base), requireCount('maxDistance', maxDistance, 0)));
  }

  function positionCurve(options) {
    requireKnownKeys('positionCurve options', options, [...POSITION_MODEL_OPTIONS, 'measure']);
    const { n, measure = 'final' } = options;
    return unwrap(core.positionCurve({
      n: requireCount('n', n, 2), ...positionModelOptions(options),
      measure: requireChoice('measure', measure, ['final', 'received']),
    }));
  }

  function needleSweep(options) {
    requireKnownKeys('needleSweep options', options, [...POSITION_MODEL_OPTIONS, ...NEEDLE_OPTIONS]);
    return unwrap(core.needleSweep({
      n: requireCount('n', options.n, 3), ...positionModelOptions(options), ...needleOptions(options),
    }));
  }

  function needleGrid(options) {
    const modelOptions = POSITION_MODEL_OPTIONS.filter((key) => key !== 'n');
    requireKnownKeys('needleGrid options', options, [...modelOptions, ...NEEDLE_OPTIONS, 'lengths']);
    const { lengths } = options;
    if (!Array.isArray(lengths) || lengths.length === 0) {
      fail(`lengths must be a non-empty array of context lengths, got ${describe(lengths)}`);
    }
    return unwrap(core.needleGrid({
      ...positionModelOptions(options), ...needleOptions(options),
      lengths: lengths.map((length, r) => requireCount(`lengths[${r}]`, length, 3)),
    }));
  }

  return Object.freeze({
    version: core.version(),
    /** Bytes of wasm memory the engine holds now (it grows on demand, never shrinks). */
    get memoryBytes() { return core.HEAP8.buffer.byteLength; },
    attention, selfAttention, walkthrough, torchGenerator, rollout, attentionMemory, ropeDecay,
    positionCurve, needleSweep, needleGrid,
    ...textCalls(core),
  });
}
