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
import { warmUp } from './warm-up.mjs';

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

  // RoPE's rotation as attention applies it to q and k: row r of x at position firstPosition + r.
  function rope(x, options = {}) {
    requireKnownKeys('rope options', options, ['heads', 'firstPosition', 'base', 'pairing']);
    return unwrap(core.rope({
      x: toMatrix('x', x),
      heads: optional(options.heads, (heads) => requireCount('heads', heads, 1)),
      firstPosition: optional(options.firstPosition, (position) => requireCount('firstPosition', position, 0)),
      base: optional(options.base, (base) => requireFiniteNumber('base', base)),
      pairing: optional(options.pairing, (pairing) => requireName('pairing', pairing)),
    }));
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

  return { attention, selfAttention, walkthrough, rope, attentionMemory, kvCacheMemory };
}

// The engine's two builds: the same module but for simd::multiply_add, which is a multiply
// then an add in SIMD128 and one f32x4.relaxed_madd (fused on CPUs with FMA) in relaxed SIMD.
// Relaxed SIMD runs in Chromium 114+, Firefox 146+ and Node 21+ (Node 20 with
// --experimental-wasm-relaxed-simd), not in Safari; elsewhere the SIMD128 build does.
const WASM_FILES = Object.freeze({ simd128: 'attention_core.wasm', 'relaxed-simd': 'attention_core.relaxed.wasm' });
/** The builds' names, createAttention's simd option: 'simd128', 'relaxed-simd'. */
export const SIMD_BUILDS = Object.freeze(Object.keys(WASM_FILES));
// (module (func (param v128 v128 v128) (result v128)
//   (f32x4.relaxed_madd (local.get 0) (local.get 1) (local.get 2))))
const RELAXED_SIMD_PROBE = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
  0x01, 0x08, 0x01, 0x60, 0x03, 0x7b, 0x7b, 0x7b, 0x01, 0x7b,
  0x03, 0x02, 0x01, 0x00,
  0x0a, 0x0d, 0x01, 0x0b, 0x00, 0x20, 0x00, 0x20, 0x01, 0x20, 0x02, 0xfd, 0x85, 0x02, 0x0b,
]);

/** Whether this JavaScript engine runs relaxed SIMD (and so the engine's faster build). */
export function relaxedSimdSupported() {
  return WebAssembly.validate(RELAXED_SIMD_PROBE);
}

// The build `simd` names (createAttention's option), checked, or the best one here.
export function chooseSimd(simd) {
  if (simd === undefined) return relaxedSimdSupported() ? 'relaxed-simd' : 'simd128';
  if (!SIMD_BUILDS.includes(simd)) {
    fail(`simd must be one of ${SIMD_BUILDS.map((name) => `'${name}'`).join(', ')}, got ${describe(simd)}`);
  }
  if (simd === 'relaxed-simd' && !relaxedSimdSupported()) {
    fail("simd 'relaxed-simd' is not supported here (Chromium 114+, Firefox 146+, Node 21+, or Node 20 with --experimental-wasm-relaxed-simd)");
  }
  return simd;
}

// The core of build `simd`, {core, simd}. When the build was chosen here (`chosen`: the caller
// asked for none) and the relaxed-SIMD build does not load (a host that lacks its file, say),
// the SIMD128 build, which runs wherever the relaxed one would; the engine's `simd` says which.
async function loadCore(simd, chosen) {
  const load = (build) => createAttentionCore({ locateFile: () => new URL(WASM_FILES[build], import.meta.url).href });
  try {
    return { core: await load(simd), simd };
  } catch (error) {
    if (!chosen || simd === 'simd128') throw error;
    try {
      return { core: await load('simd128'), simd: 'simd128' };
    } catch (fallbackError) {
      throw new Error(`the engine loaded neither its relaxed-SIMD build (${WASM_FILES[simd]}: ${error.message}) ` +
        `nor its SIMD128 build (${WASM_FILES.simd128}: ${fallbackError.message})`, { cause: fallbackError });
    }
  }
}

/**
 * Loads the engine: `simd`, the build (by default the best one here that loads); `warmUp` (default true),
 * whether its hot kernels first run on small inputs (warm-up.mjs: 10–15 ms in Chromium, about
 * 30 in Node, which halves a first large call).
 */
export default async function createAttention(options = {}) {
  requireKnownKeys('createAttention options', options, ['simd', 'warmUp']);
  const wanted = chooseSimd(options.simd);
  const { warmUp: runWarmUp = true } = options;
  if (typeof runWarmUp !== 'boolean') fail(`warmUp must be true or false, got ${describe(runWarmUp)}`);
  const { core, simd } = await loadCore(wanted, options.simd === undefined);
  const calls = {
    ...attentionCalls(core),
    ...generatorCalls(core),
    ...labCalls(core),
    ...poolingCalls(core),
    ...textCalls(core),
    ...trainingCalls(core),
  };
  return Object.freeze({
    /** Which build runs: 'relaxed-simd' (fused multiply-adds) or 'simd128'. */
    simd,
    version: core.version(),
    /** The milliseconds the warm-up took when the engine was created; null without one. */
    warmUpMs: runWarmUp ? warmUp(calls) : null,
    /** Bytes of wasm memory the engine holds now (it grows on demand, never shrinks). */
    get memoryBytes() { return core.HEAP8.buffer.byteLength; },
    /**
     * Bytes of that memory the engine's allocations hold now: back where they were after any
     * call that leaves nothing behind (a model, trainer or optimizer not deleted stays in them).
     */
    get memoryInUseBytes() { return core.heapInUse(); },
    /** Both, {memoryBytes, memoryInUseBytes}, as a worker's message reports them. */
    get memory() { return { memoryBytes: this.memoryBytes, memoryInUseBytes: this.memoryInUseBytes }; },
    ...calls,
  });
}
