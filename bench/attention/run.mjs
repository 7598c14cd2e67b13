// The attention part of `npm run bench`: attention at d=64, one head, causal and not, for n in SIZES:
//   engine-flash, engine-materialized  the wasm engine in this Node process (copies to JS included)
//   js-loop                            js_attention.mjs, the straightforward JavaScript loop
//   native                             the same core built natively (build/native/bench/bench_native,
//                                      from native_bench.cpp)
// all measured in this run, and each engine row as a share of the wasm f32x4 mul+add peak that
// bench/run.mjs measured (peak.cpp). Variants are interleaved round by round and the median
// reported.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import createAttention from '../../dist/wasm/attention.mjs';
import { jsAttention } from './js_attention.mjs';

const D = 64;
const SIZES = [256, 1024, 4096, 16384];
const JS_LOOP_MAX_N = 4096;        // beyond, one JS-loop call takes minutes
const ROUNDS = { 256: 9, 1024: 7, 4096: 3, 16384: 3 };
const NATIVE_ROUNDS = 5;

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
// q·kᵀ and weights·v: a multiply and an add per (query, visible key) pair and per dimension.
const flops = (n, causal) => 4 * D * (causal ? (n * (n + 1)) / 2 : n * n);

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

// {results, table}: one row per (n, causal, variant), and the markdown table with its note.
// machine.wasmPeakGflops is the peak measured by bench/run.mjs.
export async function runAttentionBenchmark({ root, machine }) {
  const engine = await createAttention();
  const warm = randomMatrix(256, D, 1);
  for (let i = 0; i < 5; ++i) engine.attention(warm, warm, warm, { kernel: 'flash' });

  const results = [];
  for (const n of SIZES) {
    const inputs = [randomMatrix(n, D, 2), randomMatrix(n, D, 3), randomMatrix(n, D, 4)];
    const variants = [];
    for (const causal of [false, true]) {
      variants.push({ name: 'engine-flash', causal, run: () => engine.attention(...inputs, { kernel: 'flash', causal }) });
      if (engine.attentionMemory({ n, kernel: 'materialized' }) * 2 <= 2 ** 30) {
        variants.push({ name: 'engine-materialized', causal, run: () => engine.attention(...inputs, { kernel: 'materialized', causal }) });
      }
      if (n <= JS_LOOP_MAX_N) {
        variants.push({ name: 'js-loop', causal, run: () => jsAttention(inputs[0].data, inputs[1].data, inputs[2].data, n, D, causal) });
      }
    }
    const rounds = ROUNDS[n];
    for (const variant of variants) variant.seconds = [];
    for (let round = 0; round < rounds; ++round) {
      for (const variant of variants) {
        const start = performance.now();
        variant.run();
        variant.seconds.push((performance.now() - start) / 1000);
      }
    }
    for (const variant of variants) {
      const seconds = median(variant.seconds);
      const memory = variant.name.startsWith('engine')
        ? await engineMemory(variant.name.slice('engine-'.length), n, variant.causal, inputs) : null;
      results.push({ n, d: D, causal: variant.causal, variant: variant.name, seconds, gflops: flops(n, variant.causal) / seconds / 1e9, memoryBytes: memory });
      console.error(`bench: n=${n} causal=${variant.causal} ${variant.name} ${(seconds * 1000).toFixed(1)} ms`);
    }
  }
  for (const row of runNative(root)) {
    results.push({ n: row.n, d: row.d, causal: row.causal, variant: `native-${row.kernel}`, seconds: row.seconds, gflops: flops(row.n, row.causal) / row.seconds / 1e9, memoryBytes: null });
  }
  for (const row of results) {
    const js = results.find((r) => r.n === row.n && r.causal === row.causal && r.variant === 'js-loop');
    row.timesJsLoop = js ? js.seconds / row.seconds : null;
    row.fractionOfWasmPeak = row.variant.startsWith('engine') ? row.gflops / machine.wasmPeakGflops : null;
  }
  return { results, table: attentionTable(results) };
}

function attentionTable(results) {
  const fmt = (value, digits = 1) => (value === null ? '—' : value.toFixed(digits));
  const lines = [
    '| n | causal | variant | ms | GFLOP/s | × JS loop | % of wasm peak | wasm memory (MiB) |',
    '|---:|:---:|---|---:|---:|---:|---:|---:|',
  ];
  for (const r of results) {
    lines.push(`| ${r.n} | ${r.causal ? 'yes' : 'no'} | ${r.variant} | ${fmt(r.seconds * 1000, 2)} | ${fmt(r.gflops)} | ${fmt(r.timesJsLoop)} | ${r.fractionOfWasmPeak === null ? '—' : (100 * r.fractionOfWasmPeak).toFixed(0)} | ${r.memoryBytes === null ? '—' : (r.memoryBytes / 2 ** 20).toFixed(0)} |`);
  }
  lines.push('', 'GFLOP/s counts 4·d per visible (query, key) pair: 4·n²·d, or 4·d·n(n+1)/2 under a causal mask. bench/results.json has the raw numbers.');
  return lines.join('\n');
}
