// The attention engine's JavaScript API (see README "API"). The default export is an
// async factory: `const engine = await createAttention();` in browsers, workers and Node.
// The engine's calls come in groups, each a module beside this one (and a section of
// bindings.cpp): attention here, then the generator, the lab, text and training.
import createAttentionCore from './attention_core.mjs';
import {
  describe, fail, optional, requireBoolean, requireCount, requireFiniteNumber, requireKnownKeys,
  positionalOption, requireName, requireWholeNumber, toMatrix, toVector, unwrap,
} from './arguments.mjs';
import { generatorCalls } from './generator.mjs';
import { labCalls } from './lab.mjs';
import { textCalls } from './text.mjs';
import { trainingCalls } from './training.mjs';

const ATTENTION_OPTIONS = ['heads', 'scale', 'normalization', 'causal', 'window', 'sinks', 'prefix',
  'positional', 'kernel'];
const PROJECTION_OPTIONS = ['wq', 'wk', 'wv', 'wo', 'bo'];
// The keys of each positional type of attention and selfAttention (attention refuses
// 'sinusoidal', which selfAttention adds to x).
const POSITIONAL_KEYS = {
  none: ['type'], sinusoidal: ['type'], rope: ['type', 'base', 'pairing'], alibi: ['type', 'slopes'],
};

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

// The options of attention and selfAttention, each undefined unless given.
function attentionOptions(options) {
  return {
    heads: optional(options.heads, (heads) => requireCount('heads', heads, 1)),
    scale: optional(options.scale, scaleOption),
    normalization: optional(options.normalization, (name) => requireName('normalization', name)),
    causal: optional(options.causal, (causal) => requireBoolean('causal', causal)),
    window: optional(options.window, (window) => requireWholeNumber('window', window, 0)),
    sinks: optional(options.sinks, (sinks) => requireWholeNumber('sinks', sinks, 0)),
    prefix: optional(options.prefix, (prefix) => requireWholeNumber('prefix', prefix, 0)),
    positional: optional(options.positional, (positional) => positionalOption('positional', positional, POSITIONAL_KEYS)),
    kernel: optional(options.kernel, (name) => requireName('kernel', name)),
  };
}

function attentionCalls(core) {
  function attention(q, k, v, options = {}) {
    requireKnownKeys('attention options', options, [...ATTENTION_OPTIONS, 'reuse']);
    return unwrap(core.attention(toMatrix('q', q), toMatrix('k', k), toMatrix('v', v),
      attentionOptions(options), reuseOption(options.reuse)));
  }

  function selfAttention(x, options = {}) {
    requireKnownKeys('selfAttention options', options, [...ATTENTION_OPTIONS, ...PROJECTION_OPTIONS, 'reuse']);
    const optionalMatrix = (name) => (options[name] === undefined ? null : toMatrix(name, options[name]));
    const weights = {
      wq: optionalMatrix('wq'), wk: optionalMatrix('wk'), wv: optionalMatrix('wv'), wo: optionalMatrix('wo'),
      bo: options.bo === undefined ? null : toVector('bo', options.bo),
    };
    return unwrap(core.selfAttention(toMatrix('x', x), weights, attentionOptions(options),
      reuseOption(options.reuse)));
  }

  function walkthrough(x, options = {}) {
    requireKnownKeys('walkthrough options', options, ['query', 'scale']);
    const { query = 0, scale = 1 } = options;
    return unwrap(core.walkthrough(toMatrix('x', x), requireCount('query', query, 0),
      requireFiniteNumber('scale', scale)));
  }

  function attentionMemory(options) {
    requireKnownKeys('attentionMemory options', options, ['n', 'm', 'heads', 'bytesPerElement', 'kernel']);
    const { n, m = n } = options;
    return unwrap(core.attentionMemory({
      n: requireCount('n', n, 1),
      m: requireCount('m', m, 1),
      heads: optional(options.heads, (heads) => requireCount('heads', heads, 1)),
      bytesPerElement: optional(options.bytesPerElement, (bytes) => requireCount('bytesPerElement', bytes, 1)),
      kernel: optional(options.kernel, (name) => requireName('kernel', name)),
    }));
  }

  return { attention, selfAttention, walkthrough, attentionMemory };
}

export default async function createAttention() {
  const core = await createAttentionCore();
  return Object.freeze({
    version: core.version(),
    /** Bytes of wasm memory the engine holds now (it grows on demand, never shrinks). */
    get memoryBytes() { return core.HEAP8.buffer.byteLength; },
    ...attentionCalls(core),
    ...generatorCalls(core),
    ...labCalls(core),
    ...textCalls(core),
    ...trainingCalls(core),
  });
}
