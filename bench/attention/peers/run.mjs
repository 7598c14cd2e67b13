// The peers part of `npm run bench`: the engine's attention against the libraries a page could
// use instead, in this Node process, on the same inputs, interleaved round by round:
//   engine-flash, engine-materialized  the wasm engine on this thread (as in ../run.mjs), its
//                                      relaxed-SIMD build, as Chromium, Firefox and Node 21+ load it
//   engine-flash-simd128               its SIMD128 build, what other browsers load
//   engine-W-workers                   createAttentionPool({workers: W, callerPart: false}): W threads
//   engine-T-threads                   createAttentionPool({workers: T − 1, callerPart: true}): T
//                                      threads, the caller's one of them (poolVariants below)
//   ort-T                              onnxruntime-web, wasm backend, T threads (ort_peer.mjs)
//   tfjs                               TensorFlow.js, wasm backend, one thread (tfjs_peer.mjs)
// for attention at d = 64 with n = 256, 1,024 and 4,096 (one head) and 8 heads × 512 (q, k and
// v 512×512), causal and not. Every timed call takes the inputs as Float32Arrays and returns the
// context as one, so copies in and out are included. Each round runs every variant in turn, each
// from an idle process, as a burst of calls: the first call after idle is reported apart
// ("first call"), the median of the others is the variant's time, on which the ratios and
// targets stand. Before timing, every variant's output is
// held to the engine's flash kernel, and the engine to the JavaScript loop at n = 256 and
// 8 × 512; a disagreement stops the benchmark. Prints engine ÷ peer per size and the targets of issue #13.
import os from 'node:os';
import createAttention, * as attentionApi from '../../../dist/wasm/attention.mjs';
import { burstAfterIdle } from '../idle.mjs';
import { jsAttention } from '../js_attention.mjs';
import { randomMatrix } from '../run.mjs';
import { createOrtPeer } from './ort_peer.mjs';
import { createTfjsPeer } from './tfjs_peer.mjs';

const D = 64;
// n queries and keys, H heads of D; rounds: interleaved bursts per variant (medians reported);
// burst: calls in a row per round; jsCheck: the JavaScript loop checks the engine too (it takes
// under a second there).
const CASES = [
  { n: 256, heads: 1, rounds: 21, burst: 9, jsCheck: true },
  { n: 1024, heads: 1, rounds: 11, burst: 5, jsCheck: false },
  { n: 4096, heads: 1, rounds: 7, burst: 3, jsCheck: false },
  { n: 512, heads: 8, rounds: 11, burst: 5, jsCheck: true },
];
const WARM_UP_ROUNDS = 5;
const TOLERANCE = 1e-4;                   // largest |Δ| of a context element against the engine's
const MATERIALIZED_MAX_BYTES = 2 ** 29;   // as ../run.mjs: its score and weight matrices fit twice in 1 GiB

// The threads onnxruntime-web is given: 1, 2 (on which the two-core machines the benchmark runs
// on see threads at work) and every core. Its threads include the calling one, as the pool's
// do with callerPart: against T threads the pool runs T − 1 workers and the caller's thread (its
// default in a worker thread on T cores), and one worker against one. Beside them, 2 workers with
// the caller waiting, what a main thread gets by default (it would not answer input, or serve its
// event loop, while computing a part).
const cores = os.cpus().length;
const ORT_THREADS = [...new Set([1, Math.min(2, cores), cores])].sort((a, b) => a - b);
const POOLS = [
  { workers: 1, callerPart: false },
  ...ORT_THREADS.filter((threads) => threads > 1).map((threads) => ({ workers: threads - 1, callerPart: true })),
  ...(cores > 1 ? [{ workers: 2, callerPart: false }] : []),
];
const poolName = ({ workers, callerPart }) => (callerPart ? `engine-${workers + 1}-threads` : `engine-${workers}-workers`);
const threadsOf = ({ workers, callerPart }) => workers + (callerPart ? 1 : 0);

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const sizeLabel = ({ n, heads }) => (heads === 1 ? `${n}` : `${heads} × ${n}`);
const plural = (count, word) => `${count} ${word}${count === 1 ? '' : 's'}`;
const poolLabel = ({ workers, callerPart }) => `${plural(workers, 'worker')}${callerPart ? ' and the caller' : ''}`;

// Issue #13's targets: the engine's speed over the peer's, at every size.
const TARGETS = [
  { label: 'one thread ≥ 1.5× onnxruntime-web with one thread, no mask', causal: false, engine: 'engine-flash', peer: 'ort-1', ratio: 1.5 },
  { label: 'causal ≥ 2.5× onnxruntime-web with one thread', causal: true, engine: 'engine-flash', peer: 'ort-1', ratio: 2.5 },
  ...POOLS.filter((pool) => pool.workers === 1 || pool.callerPart).map((pool) => ({
    label: `${poolLabel(pool)} ≥ 1.2× onnxruntime-web with ${plural(threadsOf(pool), 'thread')}, no mask`,
    causal: false, engine: poolName(pool), peer: `ort-${threadsOf(pool)}`, ratio: 1.2,
  })),
];
const POOL_MISSING = 'createAttentionPool not available';

function largestDifference(a, b) {
  if (a.length !== b.length) throw new Error(`outputs of ${a.length} and ${b.length} elements`);
  let largest = 0;
  for (let i = 0; i < a.length; ++i) largest = Math.max(largest, Math.abs(a[i] - b[i]));
  return largest;  // NaN anywhere makes Math.max NaN, which fails every comparison below
}

// jsAttention head by head: each head's d columns gathered, attended, scattered back.
function jsMultiHead(q, k, v, { n, heads, d, causal }) {
  const width = heads * d;
  const context = new Float32Array(n * width);
  const column = (matrix, h) => {
    const out = new Float32Array(n * d);
    for (let i = 0; i < n; ++i) out.set(matrix.subarray(i * width + h * d, i * width + (h + 1) * d), i * d);
    return out;
  };
  for (let h = 0; h < heads; ++h) {
    const head = jsAttention(column(q, h), column(k, h), column(v, h), n, d, causal);
    for (let i = 0; i < n; ++i) context.set(head.subarray(i * d, (i + 1) * d), i * width + h * d);
  }
  return context;
}

// A variant: {name, prepare(shape, inputs)?, run(keep) → {ms, context}, release()?}.
// `inputs` are {q, k, v} as {rows, cols, data}; contexts are Float32Arrays n×(H·d).

// The materialised kernel passes `reuse` (as the page's worker does): its H n×n score and weight
// matrices are still copied to JavaScript on every call, but into the same arrays, not into
// fresh ones whose collection would land in the timing of whichever variant runs next on this
// thread (at n = 4,096, 128 MiB a call made TF.js's times jump from 170 to 370 ms).
function engineVariant(engine, kernel, name = `engine-${kernel}`) {
  let call = null;
  return {
    name,
    prepare(shape, { q, k, v }) {
      const options = { kernel, causal: shape.causal, heads: shape.heads };
      let previous = null;
      call = kernel === 'materialized'
        ? () => (previous = engine.attention(q, k, v, { ...options, reuse: previous })).context.data
        : () => engine.attention(q, k, v, options).context.data;
    },
    run() {
      const start = performance.now();
      const context = call();
      return { ms: performance.now() - start, context };
    },
  };
}

// The hook for the N-worker engine: createPool is dist/wasm/attention.mjs's createAttentionPool
// (API.md, "Parallel"), undefined until it lands. Resolves to {variants, close}: one variant per
// set-up ({workers, callerPart}), each timing `await pool.attention(q, k, v, options)` as a
// caller pays it; no variants without createPool.
export async function poolVariants(createPool, setups) {
  if (typeof createPool !== 'function') return { variants: [], close: async () => {} };
  const pools = [];
  for (const setup of setups) pools.push(await createPool(setup));
  const variants = pools.map((pool, i) => {
    let call = null;
    return {
      name: poolName(setups[i]),
      prepare(shape, { q, k, v }) {
        call = () => pool.attention(q, k, v, { kernel: 'flash', causal: shape.causal, heads: shape.heads });
      },
      async run() {
        const start = performance.now();
        const { context } = await call();
        return { ms: performance.now() - start, context: context.data };
      },
    };
  });
  return { variants, close: () => Promise.all(pools.map((pool) => pool.close())) };
}

function ortVariant(peer) {
  return {
    name: `ort-${peer.threads}`,
    prepare: (shape, { q, k, v }) => peer.prepare(shape, q.data, k.data, v.data),
    run: (keep) => peer.run({ keep }),
    release: () => peer.release(),
  };
}

function tfjsVariant(peer) {
  let inputs = null;
  return {
    name: 'tfjs',
    prepare(shape, { q, k, v }) {
      peer.prepare(shape);
      inputs = [q.data, k.data, v.data];
    },
    run() {
      const start = performance.now();
      const context = peer.run(...inputs);
      return { ms: performance.now() - start, context };
    },
    release: () => peer.release(),
  };
}

// Times `variants` on one shape: checks, a warm-up call each, then `rounds` interleaved rounds
// (each round starting one variant later), each a burst of `burst` calls per variant once the
// process is idle. → {checks, medians, firstCalls}: per variant the median over rounds of a
// burst's later calls' median, and of its first call.
async function measureCase(variants, shape, { rounds, burst, jsCheck }) {
  const { n, heads, d } = shape;
  const inputs = { q: randomMatrix(n, heads * d, 2), k: randomMatrix(n, heads * d, 3), v: randomMatrix(n, heads * d, 4) };
  for (const variant of variants) await variant.prepare?.(shape, inputs);

  const reference = (await variants[0].run(true)).context;  // the engine's flash kernel
  const checks = [];
  if (jsCheck) {
    const loop = jsMultiHead(inputs.q.data, inputs.k.data, inputs.v.data, shape);
    checks.push({ variant: 'js-loop', against: variants[0].name, largest: largestDifference(loop, reference) });
  }
  for (const variant of variants.slice(1)) {
    const { context } = await variant.run(true);
    checks.push({ variant: variant.name, against: variants[0].name, largest: largestDifference(context, reference) });
  }
  for (const check of checks) {
    if (!(check.largest <= TOLERANCE)) {
      throw new Error(`${check.variant} disagrees with ${check.against} at n=${n}, heads=${heads}, causal=${shape.causal}: ` +
        `largest |Δ| ${check.largest}, tolerance ${TOLERANCE}`);
    }
  }
  for (const variant of variants) await variant.run(false);

  const later = variants.map(() => []);
  const first = variants.map(() => []);
  for (let round = 0; round < rounds; ++round) {
    for (let i = 0; i < variants.length; ++i) {
      const index = (round + i) % variants.length;
      const calls = await burstAfterIdle(async () => (await variants[index].run(false)).ms, burst);
      first[index].push(calls[0]);
      later[index].push(median(calls.slice(1)));
    }
  }
  for (const variant of variants) await variant.release?.();
  return { checks, medians: later.map(median), firstCalls: first.map(median) };
}

// {results, table}: the medians, ratios and checks per (size, causal), the targets, the peers'
// versions and set-up; the markdown table with its notes. createPool defaults to
// dist/wasm/attention.mjs's createAttentionPool (undefined until the pool lands).
export async function runPeersBenchmark({ createPool = attentionApi.createAttentionPool } = {}) {
  const engine = await createAttention({ simd: 'relaxed-simd' });
  const simd128 = await createAttention({ simd: 'simd128' });
  const ortPeers = [];
  for (const threads of ORT_THREADS) ortPeers.push(await createOrtPeer(threads));
  const tfjs = await createTfjsPeer();
  const pool = await poolVariants(createPool, POOLS);
  const tensorsBefore = tfjs.tensors();
  const variantsFor = ({ n, heads }) => [
    engineVariant(engine, 'flash'),
    ...(engine.attentionMemory({ n, heads, kernel: 'materialized' }) <= MATERIALIZED_MAX_BYTES
      ? [engineVariant(engine, 'materialized')] : []),
    engineVariant(simd128, 'flash', 'engine-flash-simd128'),
    ...pool.variants, ...ortPeers.map(ortVariant), tfjsVariant(tfjs),
  ];

  const rows = [];
  try {
    // Node compiles wasm with its baseline tier first and optimises hot functions in the
    // background: every library runs WARM_UP_ROUNDS untimed rounds at the smallest size first.
    const warmShape = { n: CASES[0].n, heads: CASES[0].heads, d: D, causal: false };
    await measureCase(variantsFor(warmShape), warmShape, { rounds: WARM_UP_ROUNDS, burst: CASES[0].burst, jsCheck: false });
    for (const { n, heads, ...timing } of CASES) {
      for (const causal of [false, true]) {
        const shape = { n, heads, d: D, causal };
        const variants = variantsFor(shape);
        const { checks, medians, firstCalls } = await measureCase(variants, shape, timing);
        const row = { n, heads, d: D, causal, rounds: timing.rounds, burst: timing.burst, ms: {}, firstCallMs: {}, checks };
        variants.forEach((variant, i) => {
          row.ms[variant.name] = medians[i];
          row.firstCallMs[variant.name] = firstCalls[i];
        });
        // engine ÷ peer: the peer's time over the engine's; the pool on T threads against T threads
        row.ratios = [...ortPeers.map((p) => `ort-${p.threads}`), 'tfjs']
          .map((peer) => ({ engine: 'engine-flash', peer, ratio: row.ms[peer] / row.ms['engine-flash'] }));
        row.ratios.push({ engine: 'engine-flash-simd128', peer: 'ort-1', ratio: row.ms['ort-1'] / row.ms['engine-flash-simd128'] });
        for (const setup of POOLS.filter((candidate) => row.ms[poolName(candidate)] !== undefined)) {
          const [engineName, peer] = [poolName(setup), `ort-${threadsOf(setup)}`];
          row.ratios.push({ engine: engineName, peer, ratio: row.ms[peer] / row.ms[engineName] });
        }
        rows.push(row);
        console.error(`bench: peers ${sizeLabel(shape)} causal=${causal} ` +
          variants.map((v, i) => `${v.name} ${medians[i].toFixed(2)} ms`).join(', '));
      }
    }
  } finally {
    await pool.close();
    await Promise.all(ortPeers.map((peer) => peer.close()));
  }

  const targets = TARGETS.map((target) => {
    const measured = rows.filter((row) => row.causal === target.causal && row.ms[target.engine] !== undefined && row.ms[target.peer] !== undefined)
      .map((row) => ({ n: row.n, heads: row.heads, ratio: row.ms[target.peer] / row.ms[target.engine] }));
    if (measured.length === 0) return { ...target, measured: null, met: null, reason: POOL_MISSING };
    return { ...target, measured, met: measured.length === CASES.length && measured.every((m) => m.ratio >= target.ratio) };
  });
  const results = {
    d: D, cores, ortThreads: ORT_THREADS, pools: POOLS,
    pool: pool.variants.length > 0 ? { measured: true } : { measured: false, reason: POOL_MISSING },
    peers: {
      ort: {
        package: 'onnxruntime-web', version: ortPeers[0].version, backend: 'wasm', simd: true, threads: ORT_THREADS,
        graph: 'ONNX opset 17: Mul (q by 1/√d), Transpose (k), MatMul, Add (causal mask), Softmax, MatMul; ' +
          'heads by Reshape and Transpose',
      },
      tfjs: { package: '@tensorflow/tfjs-backend-wasm', ...tfjs.about },
    },
    tolerance: TOLERANCE, rows, targets,
    tfjsTensors: { before: tensorsBefore, after: tfjs.tensors() },
  };
  return { results, table: peersTable(results) };
}

function peersTable({ ortThreads, pools, pool, peers, tolerance, rows, targets, tfjsTensors }) {
  const ms = (value) => (value === undefined ? '—' : value.toFixed(2));
  const times = (value) => `${value.toFixed(2)}×`;
  const ortLabel = (threads) => `ORT ${plural(threads, 'thread')}`;
  const timed = [
    ['engine-flash', 'engine flash'], ['engine-materialized', 'engine materialized'], ['engine-flash-simd128', 'engine flash SIMD128'],
    ...(pool.measured ? pools.map((setup) => [poolName(setup), `engine ${poolLabel(setup)}`]) : []),
    ...ortThreads.map((t) => [`ort-${t}`, ortLabel(t)]), ['tfjs', 'TF.js'],
  ];
  const ratioLabel = ({ engine, peer }) => {
    const name = (variant) => timed.find(([key]) => key === variant)[1];
    return engine === 'engine-flash' ? `engine ÷ ${name(peer)}` : `${name(engine)} ÷ ${name(peer)}`;
  };
  const ratioColumns = rows[0].ratios;
  // The first call after idle, for the engine and onnxruntime-web with one thread.
  const firstCall = (row) => row.firstCallMs['ort-1'] / row.firstCallMs['engine-flash'];
  const lines = [
    `| n | heads | causal | ${timed.map(([, label]) => `${label} ms`).join(' | ')} | ${ratioColumns.map(ratioLabel).join(' | ')} | ` +
      `first call after idle: engine ms | ${ortLabel(1)} ms | engine ÷ ${ortLabel(1)} |`,
    `|---:|---:|:---:|${timed.map(() => '---:|').join('')}${ratioColumns.map(() => '---:|').join('')}---:|---:|---:|`,
  ];
  for (const row of rows) {
    lines.push(`| ${row.n} | ${row.heads} | ${row.causal ? 'yes' : 'no'} | ${timed.map(([key]) => ms(row.ms[key])).join(' | ')} | ` +
      `${row.ratios.map((r) => times(r.ratio)).join(' | ')} | ${ms(row.firstCallMs['engine-flash'])} | ${ms(row.firstCallMs['ort-1'])} | ` +
      `${times(firstCall(row))} |`);
  }
  lines.push('');
  if (!pool.measured) lines.push(`N-worker engine: not measured (${pool.reason})`, '');
  for (const target of targets) {
    const sizes = CASES.map(sizeLabel).join(', ');
    const verdict = target.met === null ? `not measured (${target.reason})`
      : `${target.met ? 'met' : 'missed'} (${target.measured.map((m) => `${sizeLabel(m)}: ${times(m.ratio)}`).join(', ')})`;
    lines.push(`target ${target.label}, at n = ${sizes}: ${verdict}`);
  }
  const largest = {};
  for (const row of rows) {
    for (const check of row.checks) largest[check.variant] = Math.max(largest[check.variant] ?? 0, check.largest);
  }
  const checkName = (variant) => (variant === 'js-loop' ? 'the JavaScript loop' : timed.find(([key]) => key === variant)[1]);
  lines.push('',
    `Checks before timing, every size and mask: each output against the engine's flash context, largest |Δ| ` +
    `${Object.entries(largest).map(([variant, value]) => `${checkName(variant)} ${value.toExponential(1)}`).join(', ')} ` +
    `(tolerance ${tolerance}; the JavaScript loop at n = ${CASES.filter((c) => c.jsCheck).map(sizeLabel).join(' and ')}).` +
    (tfjsTensors.after > tfjsTensors.before ? ` TF.js leaked tensors (${tfjsTensors.before} → ${tfjsTensors.after}).` : ''),
    '',
    'The engine runs its relaxed-SIMD build (fused multiply-adds), as Chromium 114+, Firefox 146+ and Node 21+ load it, on its own ' +
    'thread and in the pools; "engine flash SIMD128" is its SIMD128 build, what browsers without relaxed SIMD load. ' +
    `Peers: onnxruntime-web ${peers.ort.version}, wasm backend (SIMD; ${ortThreads.join(' and ')} threads, each count in a worker ` +
    `thread of its own), a graph built in JS (${peers.ort.graph}); TF.js ${peers.tfjs.version}, ${peers.tfjs.backend} backend ` +
    `(${peers.tfjs.simd ? 'SIMD' : 'no SIMD'}, ${plural(peers.tfjs.threads, 'thread')}; k transposed first, one 2-D MatMul per head). ` +
    `engine ÷ peer is the peer's median ms over the engine's (above 1: the engine is faster). Each round runs every ` +
    `variant in turn, from an idle process, as a burst of calls in a row (${CASES.map((c) => `${c.burst} at ${sizeLabel(c)}`).join(', ')}); ` +
    `a variant's time is the median over ${[...new Set(CASES.map((c) => c.rounds))].join(', ')} rounds (by size) of its bursts' ` +
    'calls after the first; the first call after idle, slower on this machine kind by about 0.2 ms whatever the library, ' +
    'is in the last columns. Every timed call copies q, k and v in and the context out. The pool\'s threads count as ' +
    'onnxruntime-web\'s do, the calling one included: "1 worker and the caller" computes one part of a split call on the ' +
    'thread that calls (callerPart) and the other on a worker, 2 threads in all; "2 workers" leaves the caller waiting. ' +
    'bench/results.json has the raw numbers.');
  return lines.join('\n');
}
