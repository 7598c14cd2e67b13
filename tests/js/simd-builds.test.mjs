// The engine's two builds (createAttention's simd option): the opcode rewrite that makes the
// relaxed-SIMD build loadable (scripts/relaxed-simd.mjs), which build loads, and that the two
// agree to a rounding while each pool runs one build only. Tests that need relaxed SIMD run in
// the 'relaxed' pass of scripts/test.mjs (Node 20 with --experimental-wasm-relaxed-simd), and
// are skipped, saying so, in the plain one.
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, describe, test } from 'node:test';
import { standardizeRelaxedSimd } from '../../scripts/relaxed-simd.mjs';
import createAttention, { createAttentionPool } from '../../dist/wasm/attention.mjs';
import { relaxedSimdSupported } from '../../dist/wasm/engine.mjs';
import { mulberry32, randomMatrix } from './reference.mjs';

const relaxed = relaxedSimdSupported();
const NEEDS_RELAXED = !relaxed && 'needs relaxed SIMD: runs in the relaxed pass of npm test';

// Whether f32x4.relaxed_madd fuses here (it does where the CPU has FMA): lane 0 of
// (1 + 2⁻²³)·(1 + 2⁻²³) − (1 + 2⁻²²), 2⁻⁴⁶ when fused, 0 when the product is rounded first.
// (module (memory (export "m") 1) (func (export "f") (v128.store (i32.const 48)
//   (f32x4.relaxed_madd (v128.load (i32.const 0)) (v128.load offset=16 (i32.const 0))
//                       (v128.load offset=32 (i32.const 0))))))
function relaxedMaddFuses() {
  if (!relaxed) return false;
  const module = new WebAssembly.Module(Uint8Array.from([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    0x01, 0x04, 0x01, 0x60, 0x00, 0x00,
    0x03, 0x02, 0x01, 0x00,
    0x05, 0x03, 0x01, 0x00, 0x01,
    0x07, 0x09, 0x02, 0x01, 0x6d, 0x02, 0x00, 0x01, 0x66, 0x00, 0x00,
    0x0a, 0x1f, 0x01, 0x1d, 0x00, 0x41, 0x30,
    0x41, 0x00, 0xfd, 0x00, 0x04, 0x00, 0x41, 0x00, 0xfd, 0x00, 0x04, 0x10, 0x41, 0x00, 0xfd, 0x00, 0x04, 0x20,
    0xfd, 0x85, 0x02, 0xfd, 0x0b, 0x04, 0x00, 0x0b,
  ]));
  const { exports } = new WebAssembly.Instance(module);
  const memory = new Float32Array(exports.m.buffer);
  memory.fill(1 + 2 ** -23, 0, 8);
  memory.fill(-(1 + 2 ** -22), 8, 12);
  exports.f();
  return memory[12] === 2 ** -46;
}
const fuses = relaxedMaddFuses();
const NEEDS_FUSION = !fuses && 'f32x4.relaxed_madd does not fuse here: the builds give the same numbers';

test('the relaxed pass of npm test runs the relaxed-SIMD build', { skip: process.env.ATTN_RELAXED_SIMD !== 'required' }, () => {
  assert.equal(relaxed, true, 'relaxed SIMD does not run in this pass');
});

// A module of one function (param v128 v128 v128) (result v128), exported as "f", whose body
// is `instructions` followed by `end`.
function moduleOf(instructions) {
  const body = [0x00, ...instructions, 0x0b];
  const section = (id, bytes) => [id, bytes.length, ...bytes];
  return Uint8Array.from([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(0x01, [0x01, 0x60, 0x03, 0x7b, 0x7b, 0x7b, 0x01, 0x7b]),
    ...section(0x03, [0x01, 0x00]),
    ...section(0x07, [0x01, 0x01, 0x66, 0x00, 0x00]),
    ...section(0x0a, [0x01, body.length, ...body]),
  ]);
}

const FMA_PROPOSAL = [0xfd, 0xaf, 0x01];   // LLVM 14's f32x4.relaxed_fma
const RELAXED_MADD = [0xfd, 0x85, 0x02];   // the standard's f32x4.relaxed_madd
const OPERANDS = [0x20, 0x00, 0x20, 0x01, 0x20, 0x02];  // local.get 0, 1, 2
// Immediates that hold the proposal opcode's bytes: v128.const, i32.const 22525 (LEB128
// fd af 01), f32.const, each dropped.
const DECOYS = [
  0xfd, 0x0c, ...FMA_PROPOSAL, ...Array(13).fill(0), 0x1a,
  0x41, ...FMA_PROPOSAL, 0x1a,
  0x43, ...FMA_PROPOSAL, 0x00, 0x1a,
];

describe('scripts/relaxed-simd.mjs: the proposal opcode of relaxed multiply-add made standard', () => {
  test('rewrites the instruction, and no byte of an immediate that holds the same bytes', () => {
    const before = moduleOf([...DECOYS, ...OPERANDS, ...FMA_PROPOSAL]);
    const { bytes, rewritten } = standardizeRelaxedSimd(before);
    assert.equal(rewritten, 1);
    const at = before.length - 1 - FMA_PROPOSAL.length;  // the instruction, before the body's end
    assert.deepEqual([...bytes.subarray(at, at + 3)], RELAXED_MADD);
    assert.deepEqual([...bytes.subarray(0, at)], [...before.subarray(0, at)]);
    assert.deepEqual([...before.subarray(at, at + 3)], FMA_PROPOSAL, 'the input is left as it was');
    assert.equal(WebAssembly.validate(before), false, 'the proposal opcode is rejected');
    assert.equal(standardizeRelaxedSimd(bytes).rewritten, 0);
  });

  test('skips the immediates of lane loads, zero-extending loads and bulk memory too', () => {
    // v128.load8_lane and v128.load32_zero with offset 22525 (fd af 01), memory.init of data
    // segment 22525, memory.copy; lane and memory bytes that would throw if read as opcodes
    // (0xfd 0xfd: an unknown SIMD opcode; 0x0b: an `end` before the last byte). Not a valid
    // function, which the rewrite does not need.
    const immediates = [0xfd, 84, 0x00, ...FMA_PROPOSAL, 0xfd, 0xfd, 92, 0x02, ...FMA_PROPOSAL,
      0xfc, 8, ...FMA_PROPOSAL, 0x0b, 0xfc, 10, 0x0b, 0x0b];
    const before = moduleOf([...immediates, ...OPERANDS, ...FMA_PROPOSAL]);
    const { bytes, rewritten } = standardizeRelaxedSimd(before);
    assert.equal(rewritten, 1);
    const at = before.length - 1 - FMA_PROPOSAL.length;
    assert.deepEqual([...bytes.subarray(0, at)], [...before.subarray(0, at)]);
    assert.deepEqual([...bytes.subarray(at, at + 3)], RELAXED_MADD);
  });

  test('the rewritten module validates where relaxed SIMD runs', { skip: NEEDS_RELAXED }, () => {
    const { bytes } = standardizeRelaxedSimd(moduleOf([...DECOYS, ...OPERANDS, ...FMA_PROPOSAL]));
    assert.equal(WebAssembly.validate(bytes), true);
  });

  test('throws on what it cannot read, naming it, instead of rewriting blind', () => {
    const cases = [
      [Uint8Array.from([1, 2, 3]), /not a version-1 wasm module/],
      [moduleOf([0x06, 0x40]), /unknown opcode 0x6 at/],                           // try (exceptions)
      [moduleOf([...OPERANDS, 0xfd, 0xb0, 0x01]), /unknown opcode 0xfd 176 at/],   // relaxed_fms of the proposal
      [moduleOf([...OPERANDS, 0xfd, 0xaf, 0x81, 0x00]), /a padded opcode at/],
      [moduleOf([0x41]), /a function body does not end with 'end'/],
      [moduleOf([0x0b, 0x01]), /a function body ends before its last byte/],
      [Uint8Array.from([...moduleOf([]).subarray(0, 8), 0x0a, 0x05, 0x01, 0x03, 0x00, 0x41]), /section 10 runs past the end of the module/],
      [Uint8Array.from([...moduleOf([]).subarray(0, 8), 0x0a, 0x04, 0x01, 0x03, 0x00, 0x41]), /function body 0 runs past the end of its section/],
      [Uint8Array.from([...moduleOf([]).subarray(0, 8), 0x0a, 0x05, 0x01, 0x03, 0x00, 0x41, 0x80]), /unexpected end of bytes/],
      [moduleOf([0xfc, 0x20]), /unknown opcode 0xfc 32 at/],
    ];
    for (const [module, error] of cases) assert.throws(() => standardizeRelaxedSimd(module), error);
  });

  test('the built engines: the relaxed one has standard opcodes only, the SIMD128 one no relaxed instruction', () => {
    const read = (file) => readFileSync(new URL(`../../dist/wasm/${file}`, import.meta.url));
    const relaxedBuild = read('attention_core.relaxed.wasm');
    const simd128Build = read('attention_core.wasm');
    assert.equal(standardizeRelaxedSimd(relaxedBuild).rewritten, 0);
    assert.equal(standardizeRelaxedSimd(simd128Build).rewritten, 0);
    assert.equal(WebAssembly.validate(simd128Build), true);
    assert.equal(WebAssembly.validate(relaxedBuild), relaxed);
  });
});

describe('createAttention: which build', () => {
  test('relaxed SIMD where it runs, else SIMD128; or the one asked for', async () => {
    assert.equal((await createAttention()).simd, relaxed ? 'relaxed-simd' : 'simd128');
    assert.equal((await createAttention({ simd: 'simd128' })).simd, 'simd128');
  });

  test('errors name the option', async () => {
    await assert.rejects(createAttention({ simd: 'avx' }),
      { message: "simd must be one of 'simd128', 'relaxed-simd', got the string \"avx\"" });
    await assert.rejects(createAttention({ threads: 2 }), /unknown option 'threads' in createAttention options; known options are simd/);
    if (!relaxed) {
      await assert.rejects(createAttention({ simd: 'relaxed-simd' }),
        /simd 'relaxed-simd' is not supported here \(Chromium 114\+, Firefox 146\+, Node 21\+, or Node 20 with --experimental-wasm-relaxed-simd\)/);
    }
  });
});

describe('the two builds', { skip: NEEDS_RELAXED }, () => {
  const random = mulberry32(20261126);
  const [n, d] = [300, 64];
  const q = randomMatrix(random, n, d), k = randomMatrix(random, n, d), v = randomMatrix(random, n, d);
  const enginesPromise = Promise.all([createAttention({ simd: 'relaxed-simd' }), createAttention({ simd: 'simd128' })]);

  // The largest |a − b| over two results' contexts, and how many of their numbers differ.
  function compare(a, b) {
    let largest = 0, differ = 0;
    a.context.data.forEach((value, i) => {
      largest = Math.max(largest, Math.abs(value - b.context.data[i]));
      if (!Object.is(value, b.context.data[i])) ++differ;
    });
    return { largest, differ };
  }

  test('agree to a rounding, and differ where the relaxed build fuses its multiply-adds', async () => {
    const [fused, unfused] = await enginesPromise;
    for (const kernel of ['flash', 'materialized']) {
      for (const causal of [false, true]) {
        const { largest, differ } = compare(fused.attention(q, k, v, { kernel, causal }), unfused.attention(q, k, v, { kernel, causal }));
        assert.ok(largest <= 1e-6, `${kernel}, causal ${causal}: largest difference ${largest}`);
        if (fuses) assert.ok(differ > n, `${kernel}, causal ${causal}: only ${differ} of ${n * d} numbers differ`);
        else assert.equal(differ, 0, `${kernel}, causal ${causal}: unfused, the builds differ in ${differ} numbers`);
      }
    }
  });

  test('a pool runs its engine\'s build: a SIMD128 engine\'s pool gives its numbers, bit for bit, after a worker dies too',
    { skip: NEEDS_FUSION }, async () => {
      const [fused, unfused] = await enginesPromise;
      const pool = await createAttentionPool({
        workers: 2, splitFrom: 0, callerPart: true, engine: unfused, workerURL: new URL('./fixtures/mortal-pool-worker.mjs', import.meta.url),
      });
      after(() => pool.close());
      assert.equal(pool.simd, 'simd128');
      const check = async (label) => {
        for (const heads of [1, 4]) {
          const options = { heads, causal: true };
          const split = await pool.attention(q, k, v, options);
          assert.deepEqual(split.context.data, unfused.attention(q, k, v, options).context.data, `${label}, ${heads} heads`);
          assert.notDeepEqual(split.context.data, fused.attention(q, k, v, options).context.data, `${label}, ${heads} heads`);
        }
      };
      await check('at first');
      // q's first number fixtures/mortal-pool-worker.mjs's EXIT_NOW: the worker given head 0 exits
      const deadly = q.map((row, i) => (i === 0 ? [4242, ...row.slice(1)] : row));
      await assert.rejects(pool.attention(deadly, k, v, { heads: 4 }), /attention pool worker 0 exited with code 3/);
      await check('after a worker was replaced');
    });

  test('where the relaxed build does not load (its file missing), the SIMD128 one, in an engine and in a pool; unless asked for; neither: both named', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'attention-without-relaxed-'));
    try {
      cpSync(new URL('../../dist/wasm/', import.meta.url), directory, {
        recursive: true, filter: (source) => !source.endsWith('attention_core.relaxed.wasm'),
      });
      const api = await import(pathToFileURL(join(directory, 'attention.mjs')).href);
      const [, unfused] = await enginesPromise;
      const engine = await api.default();
      assert.equal(engine.simd, 'simd128');
      assert.deepEqual(engine.attention(q, k, v).context, unfused.attention(q, k, v).context, 'the SIMD128 build\'s numbers');
      await assert.rejects(api.default({ simd: 'relaxed-simd' }), /attention_core\.relaxed\.wasm/, 'asked for, it is an error naming the file');
      const pool = await api.createAttentionPool({ workers: 1, splitFrom: 0, callerPart: true });
      try {
        assert.equal(pool.simd, 'simd128', 'the pool\'s workers load the build its own engine loaded');
        assert.deepEqual((await pool.attention(q, k, v)).context, unfused.attention(q, k, v).context);
      } finally {
        await pool.close();
      }
      rmSync(join(directory, 'attention_core.wasm'));
      await assert.rejects(api.default(), {
        message: /^the engine loaded neither its relaxed-SIMD build \(attention_core\.relaxed\.wasm: ENOENT.*\) nor its SIMD128 build \(attention_core\.wasm: ENOENT/,
      }, 'neither loads: both named');
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  test('a pool\'s build: errors for a given engine of another build, and for a worker that loads another', async () => {
    const [, unfused] = await enginesPromise;
    await assert.rejects(createAttentionPool({ workers: 1, engine: unfused, simd: 'relaxed-simd' }),
      { message: "simd is 'relaxed-simd' but the given engine runs 'simd128': a call's parts would round differently" });
    await assert.rejects(createAttentionPool({ workers: 1, simd: 'simd128', workerURL: new URL('./fixtures/default-build-pool-worker.mjs', import.meta.url) }),
      { message: "the attention pool could not start: attention pool worker 0 loaded the 'relaxed-simd' build, not the pool's 'simd128'" });
    await assert.rejects(createAttentionPool({ workers: 1, engine: { ...unfused, simd: undefined } }),
      { message: 'engine must be an engine of createAttention() or null, got one without a build (simd undefined)' });
  });
});
