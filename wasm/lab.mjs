// The "lost in the middle" lab's calls (core/include/attn/lab/): rollout, position curves,
// the needle and its mitigations on the lab's position model, and RoPE's decay bound that
// the lab plots.
import {
  MAX_COUNT, describe, fail, optional, requireBoolean, requireCount, requireFiniteNumber, requireKnownKeys,
  requireName, requireTyped, requireWholeNumber, unwrap,
} from './arguments.mjs';

const POSITION_MODEL_OPTIONS = ['n', 'layers', 'residual', 'causal', 'window', 'sinks', 'positional',
  'positionScales'];
const NEEDLE_OPTIONS = ['depths', 'signal', 'noise', 'trials', 'seed', 'metric', 'mitigation'];
// The keys of each positional type of the model, and of each mitigation.
const DISTANCE_BIAS_KEYS = {
  none: ['type'], alibi: ['type', 'slopes', 'slope'], rope: ['type', 'base', 'headWidth', 'strength'],
};
const MITIGATION_KEYS = {
  none: ['type'], 'query-aware': ['type'], calibration: ['type'],
  'ms-poe': ['type', 'heads', 'minRatio', 'maxRatio'], reorder: ['type', 'retrieverNoise'],
};
const MAX_SEED = 2 ** 32 - 1;
// The longest context of the lab's model (core/src/lab/position_model.cpp kMaxPositions).
const MAX_POSITIONS = 2 ** 20;

// The model's one ALiBi slope, which its heads share: `slopes` holding one number, as
// attention spells ALiBi (one slope per head there), or `slope`, the lab's first spelling.
function alibiSlope({ slopes, slope }) {
  if (slopes === undefined) return requireFiniteNumber('positional.slope', slope);
  if (slope !== undefined) fail('positional takes slopes or slope, not both');
  if (!Array.isArray(slopes) && !ArrayBuffer.isView(slopes)) {
    fail(`positional.slopes must be a number[] or Float32Array, got ${describe(slopes)}`);
  }
  if (slopes.length !== 1) {
    fail(`positional.slopes must hold one slope, which the model's heads share, got ${slopes.length}`);
  }
  return requireFiniteNumber('positional.slopes[0]', slopes[0]);
}

// The model's positional option → {type, slope, base, headWidth, strength}, each undefined
// unless given; ALiBi needs its slope.
function distanceBiasOption(positional) {
  const type = requireTyped('positional', positional, DISTANCE_BIAS_KEYS, "{type: 'alibi', slopes: [0.01]}");
  return {
    type,
    slope: type === 'alibi' ? alibiSlope(positional) : undefined,
    base: optional(positional.base, (base) => requireFiniteNumber('positional.base', base)),
    headWidth: optional(positional.headWidth, (width) => requireCount('positional.headWidth', width, 2)),
    strength: optional(positional.strength, (strength) => requireFiniteNumber('positional.strength', strength)),
  };
}

function positionScalesOption(positionScales) {
  if (!Array.isArray(positionScales) && !ArrayBuffer.isView(positionScales)) {
    fail(`positionScales must be an array of numbers (one per head), got ${describe(positionScales)}`);
  }
  return Array.from(positionScales, (scale, h) => requireFiniteNumber(`positionScales[${h}]`, scale));
}

// The model options shared by every call here, each undefined unless given (n is checked by
// each call: the grid has lengths instead).
function positionModelOptions(options) {
  return {
    layers: optional(options.layers, (layers) => requireCount('layers', layers, 1)),
    residual: optional(options.residual, (residual) => requireFiniteNumber('residual', residual)),
    causal: optional(options.causal, (causal) => requireBoolean('causal', causal)),
    window: optional(options.window, (window) => requireWholeNumber('window', window, 0)),
    sinks: optional(options.sinks, (sinks) => requireWholeNumber('sinks', sinks, 0)),
    positional: optional(options.positional, distanceBiasOption),
    positionScales: optional(options.positionScales, positionScalesOption),
  };
}

function mitigationOption(mitigation) {
  return {
    type: requireTyped('mitigation', mitigation, MITIGATION_KEYS, "{type: 'calibration'}"),
    heads: optional(mitigation.heads, (heads) => requireCount('mitigation.heads', heads, 1)),
    minRatio: optional(mitigation.minRatio, (ratio) => requireFiniteNumber('mitigation.minRatio', ratio)),
    maxRatio: optional(mitigation.maxRatio, (ratio) => requireFiniteNumber('mitigation.maxRatio', ratio)),
    retrieverNoise: optional(mitigation.retrieverNoise,
      (noise) => requireFiniteNumber('mitigation.retrieverNoise', noise)),
  };
}

// The distances ropeDecay and distanceWeights are evaluated at: {maxDistance} (every distance
// 0…maxDistance, at most `max`) or {distances} (an array of whole numbers, each at most the
// core's limit), exactly one of them.
const DISTANCE_OPTIONS = ['maxDistance', 'distances'];
function distancesOption({ maxDistance, distances }, max = MAX_COUNT) {
  if ((maxDistance === undefined) === (distances === undefined)) {
    fail('give maxDistance (every distance from 0 to it) or distances (an array of distances), ' +
      `not ${maxDistance === undefined ? 'neither' : 'both'}`);
  }
  if (distances === undefined) return { maxDistance: requireCount('maxDistance', maxDistance, 0, max) };
  if (!(Array.isArray(distances) || (ArrayBuffer.isView(distances) && !(distances instanceof DataView)))
      || distances.length === 0) {
    fail(`distances must be a non-empty array of whole numbers, got ${describe(distances)}`);
  }
  return { distances: Array.from(distances, (distance, i) => requireCount(`distances[${i}]`, distance, 0)) };
}

function seedOption(seed) {
  if (!Number.isSafeInteger(seed) || seed < 0 || seed > MAX_SEED) {
    fail(`seed must be a whole number from 0 to ${MAX_SEED}, got ${describe(seed)}`);
  }
  return seed;
}

// The needle options of needleSweep and needleGrid, each undefined unless given.
function needleOptions(options) {
  return {
    depths: optional(options.depths, (depths) => requireCount('depths', depths, 2)),
    signal: optional(options.signal, (signal) => requireFiniteNumber('signal', signal)),
    noise: optional(options.noise, (noise) => requireFiniteNumber('noise', noise)),
    trials: optional(options.trials, (trials) => requireCount('trials', trials, 1)),
    seed: optional(options.seed, seedOption),
    metric: optional(options.metric, (name) => requireName('metric', name)),
    mitigation: optional(options.mitigation, mitigationOption),
  };
}

export function labCalls(core) {
  function rollout(options) {
    requireKnownKeys('rollout options', options,
      ['n', 'layers', 'residual', 'causal', 'positional', 'window', 'sinks']);
    return unwrap(core.rollout({ n: requireCount('n', options.n, 1), ...positionModelOptions(options) }));
  }

  function positionCurve(options) {
    requireKnownKeys('positionCurve options', options, [...POSITION_MODEL_OPTIONS, 'measure']);
    return unwrap(core.positionCurve({
      n: requireCount('n', options.n, 2, MAX_POSITIONS), ...positionModelOptions(options),
      measure: optional(options.measure, (name) => requireName('measure', name)),
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

  function ropeDecay(options) {
    requireKnownKeys('ropeDecay options', options, ['headWidth', 'base', ...DISTANCE_OPTIONS]);
    return unwrap(core.ropeDecay({
      headWidth: requireCount('headWidth', options.headWidth, 2),
      base: optional(options.base, (base) => requireFiniteNumber('base', base)),
      ...distancesOption(options),
    }));
  }

  // K(d) for d = 0…maxDistance, or at each of `distances`: the weight the model's positional
  // bias alone gives a key d positions from the query, over a key's at distance 0.
  function distanceWeights(options) {
    requireKnownKeys('distanceWeights options', options, ['positional', ...DISTANCE_OPTIONS]);
    return unwrap(core.distanceWeights({
      positional: distanceBiasOption(options.positional),
      ...distancesOption(options, MAX_POSITIONS),
    }));
  }

  return { rollout, positionCurve, needleSweep, needleGrid, ropeDecay, distanceWeights };
}
