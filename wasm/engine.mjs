// The attention engine on this thread (see README "API"): the default export is an async
// factory, `const engine = await createAttention();` in browsers, workers and Node, which
// attention.mjs, the API's entry, hands on. The engine's calls come in groups, each a module
// beside this one (and a section of bindings.cpp): attention here, then block pooling, the
// generator, the lab, text and training.
import createAttentionCore from './attention_core.mjs';
import { attentionArguments, coreArguments, reuseOption, selfAttentionArguments } from './attention-arguments.mjs';
import {
  describe, fail, optional, requireCount, requireFiniteNumber, requireKnownKeys, requireName, toMatrix, unwrap,
} from './arguments.mjs';
import { generatorCalls } from './generator.mjs';
import { labCalls } from './lab.mjs';
import { poolingCalls } from './pooling.mjs';
import { textCalls } from './text.mjs';
import { trainingCalls } from './training.mjs';

function attentionCalls(core) {
  function attention(q, k, v, options = {}) {
    const call = attentionArguments(q, k, v, options);
    return unwrap(core.attention(...coreArguments([call.q, call.k, call.v], call.options), reuseOption(options.reuse)));
  }

  function selfAttention(x, options = {}) {
    const call = selfAttentionArguments(x, options);
    const [data, ...rest] = coreArguments([call.x], call.options);
    return unwrap(core.selfAttention(data, call.weights, ...rest, reuseOption(options.reuse)));
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

  // Each size must be a number here; whether it is a whole number in range is the core's to say.
  function kvCacheMemory(options) {
    requireKnownKeys('kvCacheMemory options', options,
      ['tokens', 'layers', 'kvHeads', 'headWidth', 'bytesPerElement', 'window']);
    const number = (name, required) => {
      const value = options[name];
      if (value === undefined && !required) return undefined;
      if (typeof value !== 'number') fail(`${name} must be a whole number, got ${describe(value)}`);
      return value;
    };
    return unwrap(core.kvCacheMemory({
      tokens: number('tokens', true),
      layers: number('layers', true),
      kvHeads: number('kvHeads', true),
      headWidth: number('headWidth', true),
      bytesPerElement: number('bytesPerElement', false),
      window: number('window', false),
    }));
  }

  return { attention, selfAttention, walkthrough, attentionMemory, kvCacheMemory };
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
    ...poolingCalls(core),
    ...textCalls(core),
    ...trainingCalls(core),
  });
}
