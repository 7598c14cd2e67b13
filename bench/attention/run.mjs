// The attention part of `npm run bench`: attention at d=64, one head, causal and not, for n in SIZES:
//   engine-flash, engine-materialized  the wasm engine in this Node process (copies to JS
//                                      included), its relaxed-SIMD build (fused multiply-adds)
//   engine-flash-simd128               the same flash kernel in the SIMD128 build
//   js-loop                            js_attention.mjs, the straightforward JavaScript loop
//   native                             the same core built natively (build/native/bench/bench_native,
//                                      from native_bench.cpp)
// then engine-flash and engine-flash-simd128 with several heads (HEAD_CASES: 8 heads of 64
// columns, 2 heads of 32), all measured in this run, and each engine row as a share of the peak
// of its build's instruction that bench/run.mjs measured (peak.cpp): f32x4 relaxed_madd for the
// relaxed-SIMD build, a multiply and an add for SIMD128. Variants are interleaved round by
// round and the median reported.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import createAttention from '../../dist/wasm/attention.mjs';
import { jsAttention } from './js_attention.mjs';

const D = 64;
const SIZES = [256, 1024, 4096, 16384];
const JS_LOOP_MAX_N = 4096;        // beyond, one JS-loop call takes minutes
const ROUNDS = { 256: 9, 1024: 7, 4096: 3, 16384: 3 };
const NATIVE_ROUNDS = 5;
// n queries and keys, heads × headWidth columns (d = heads · headWidth), flash, not causal.
const HEAD_CASES = [
  { n: 512, heads: 8, headWidth: 64 },
  { n: 256, heads: 2, headWidth: 32 },
  { n: 1024, heads: 2, headWidth: 32 },
];
const HEAD_ROUNDS = 9;
// Node runs wasm on its baseline tier until a background compile of each hot function finishes;
// on a busy machine the kernels still ran on it 200 ms into the run (n=256 at a third of its
// speed). Both kernels and several heads are warmed up for this long before anything is timed.
const WARM_UP_MS = 1500;
// Each round times a batch of calls lasting at least this long and takes the time per call: timed
// one by one, right after 15 ms of the JavaScript loop, an n=256 flash call took 0.65 ms instead
// of 0.5 (its code and data cold), which no longer weighs on the median.
const BATCH_MS = 5;

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
// q·kᵀ and weights·v: a multiply and an add per (query, visible key) pair and per dimension.
const flops = (n, causal, d = D) => 4 * d * (causal ? (n * (n + 1)) / 2 : n * n);

export function randomMatrix(rows, cols, seed) {
  const data = new Float32Array(rows * cols);
  let state = seed;
  for (let i = 0; i < data.length; ++i) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;  // LCG: reproducible inputs
    data[i] = state / 2 ** 32 - 0.5;
  }
  return { rows, cols, data };
}

// Wasm memory one call needs: a fresh engine, one call, the growth of its memory.
async function engineMemory(kernel, n, causal, [q, k, v]) {
  const engine = await createAttention();
  const before = engine.memoryBytes;
  engine.attention(q, k, v, { kernel, causal });
  return engine.memoryBytes - before;
}

function runNative(root) {
  const output = execFileSync(join(root, 'build/native/bench/bench_native'),
    [String(NATIVE_ROUNDS), ...SIZES.map(String)], { encoding: 'utf8' });
  return output.trim().split('\n').map((line) => JSON.parse(line));
}

// Sets variant.seconds to the time per call of each round, variants interleaved round by round,
// each round a batch of calls lasting about BATCH_MS (one call for the slow ones), and each
// round starting one variant later.
function timeInterleaved(variants, rounds) {
  for (const variant of variants) {
    const start = performance.now();
    variant.run();
    variant.batch = Math.max(1, Math.ceil(BATCH_MS / (performance.now() - start)));
    variant.seconds = [];
  }
  for (let round = 0; round < rounds; ++round) {
    for (let i = 0; i < variants.length; ++i) {
      const variant = variants[(round + i) % variants.length];
      const start = performance.now();
      for (let call = 0; call < variant.batch; ++call) variant.run();
      variant.seconds.push((performance.now() - start) / 1000 / variant.batch);
    }
  }
}

// {results, table}: one row per (n, causal, variant), and the markdown table with its note.
// machine.wasmPeakGflops and machine.relaxedPeakGflops are the peaks measured by bench/run.mjs.
export async function runAttentionBenchmark({ root, machine }) {
  const engine = await createAttention({ simd: 'relaxed-simd' });
  const simd128 = await createAttention({ simd: 'simd128' });
  const warm = randomMatrix(256, D, 1);
  for (const start = performance.now(); performance.now() - start < WARM_UP_MS;) {
    for (const kernel of ['flash', 'materialized']) {
      for (const heads of [1, 2]) {
        engine.attention(warm, warm, warm, { kernel, heads });
        simd128.attention(warm, warm, warm, { kernel, heads });
      }
    }
  }

  const results = [];
  for (const n of SIZES) {
    const inputs = [randomMatrix(n, D, 2), randomMatrix(n, D, 3), randomMatrix(n, D, 4)];
    const engineVariants = [], jsVariants = [];
    for (const causal of [false, true]) {
      engineVariants.push({ name: 'engine-flash', kernel: 'flash', causal, run: () => engine.attention(...inputs, { kernel: 'flash', causal }) });
      engineVariants.push({ name: 'engine-flash-simd128', kernel: 'flash', causal, run: () => simd128.attention(...inputs, { kernel: 'flash', causal }) });
      if (engine.attentionMemory({ n, kernel: 'materialized' }) * 2 <= 2 ** 30) {
        engineVariants.push({ name: 'engine-materialized', kernel: 'materialized', causal, run: () => engine.attention(...inputs, { kernel: 'materialized', causal }) });
      }
      if (n <= JS_LOOP_MAX_N) {
        jsVariants.push({ name: 'js-loop', causal, run: () => jsAttention(inputs[0].data, inputs[1].data, inputs[2].data, n, D, causal) });
      }
    }
    // The JavaScript loop apart: the engine variant timed right after its hundreds of
    // milliseconds ran slower (n = 1,024 causal flash 5.1 ms there, 3.9 otherwise).
    timeInterleaved(engineVariants, ROUNDS[n]);
    timeInterleaved(jsVariants, ROUNDS[n]);
    // rows by mask, the engine's before the loop's (a stable sort)
    for (const variant of [...engineVariants, ...jsVariants].sort((a, b) => a.causal - b.causal)) {
      const seconds = median(variant.seconds);
      const memory = variant.kernel ? await engineMemory(variant.kernel, n, variant.causal, inputs) : null;
      results.push({ n, d: D, heads: 1, causal: variant.causal, variant: variant.name, seconds, gflops: flops(n, variant.causal) / seconds / 1e9, memoryBytes: memory });
      console.error(`bench: n=${n} causal=${variant.causal} ${variant.name} ${(seconds * 1000).toFixed(1)} ms`);
    }
  }
  for (const row of runNative(root)) {
    results.push({ n: row.n, d: row.d, heads: 1, causal: row.causal, variant: `native-${row.kernel}`, seconds: row.seconds, gflops: flops(row.n, row.causal) / row.seconds / 1e9, memoryBytes: null });
  }
  const headCases = HEAD_CASES.flatMap(({ n, heads, headWidth }) => {
    const d = heads * headWidth;
    const inputs = [randomMatrix(n, d, 5), randomMatrix(n, d, 6), randomMatrix(n, d, 7)];
    return [['engine-flash', engine], ['engine-flash-simd128', simd128]].map(([variant, build]) =>
      ({ n, d, heads, variant, run: () => build.attention(...inputs, { kernel: 'flash', heads }) }));
  });
  timeInterleaved(headCases, HEAD_ROUNDS);
  for (const { n, d, heads, variant, seconds: all } of headCases) {
    const seconds = median(all);
    results.push({ n, d, heads, causal: false, variant, seconds, gflops: flops(n, false, d) / seconds / 1e9, memoryBytes: null });
    console.error(`bench: n=${n} ${heads} heads of ${d / heads} ${variant} ${(seconds * 1000).toFixed(1)} ms`);
  }
  for (const row of results) {
    const js = results.find((r) => r.n === row.n && r.d === row.d && r.heads === row.heads && r.causal === row.causal && r.variant === 'js-loop');
    row.timesJsLoop = js ? js.seconds / row.seconds : null;
    const peak = row.variant.endsWith('-simd128') ? machine.wasmPeakGflops : machine.relaxedPeakGflops;
    row.fractionOfWasmPeak = row.variant.startsWith('engine') ? row.gflops / peak : null;
  }
  return { results, table: attentionTable(results) };
}

function attentionTable(results) {
  const fmt = (value, digits = 1) => (value === null ? '—' : value.toFixed(digits));
  const lines = [
    '| n | heads × width | causal | variant | ms | GFLOP/s | × JS loop | % of wasm peak | wasm memory (MiB) |',
    '|---:|:---:|:---:|---|---:|---:|---:|---:|---:|',
  ];
  for (const r of results) {
    lines.push(`| ${r.n} | ${r.heads} × ${r.d / r.heads} | ${r.causal ? 'yes' : 'no'} | ${r.variant} | ${fmt(r.seconds * 1000, 2)} | ${fmt(r.gflops)} | ${fmt(r.timesJsLoop)} | ${r.fractionOfWasmPeak === null ? '—' : (100 * r.fractionOfWasmPeak).toFixed(0)} | ${r.memoryBytes === null ? '—' : (r.memoryBytes / 2 ** 20).toFixed(0)} |`);
  }
  lines.push('', 'GFLOP/s counts 4·d per visible (query, key) pair, d = heads × width: 4·n²·d, or 4·d·n(n+1)/2 under a causal mask. ' +
    'The engine runs its relaxed-SIMD build (fused multiply-adds), engine-flash-simd128 its SIMD128 build; % of wasm peak is ' +
    'each build\'s share of the peak of its own instruction (f32x4 relaxed_madd, or a multiply then an add). bench/results.json has the raw numbers.');
  return lines.join('\n');
}
