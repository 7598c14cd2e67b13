// `npm run bench`: measures the machine once (CPU, cores, Node, the load average, and the wasm
// f32x4 multiply-add peaks of attention/peak.cpp, as a multiply and an add and as one
// relaxed_madd; the load average again at the end), then runs each part and prints its
// markdown table under the machine line:
//   attention  attention/run.mjs: the engine's attention kernels against a JavaScript loop and
//              the same core built natively
//   peers      attention/peers/run.mjs: the engine's attention against onnxruntime-web (wasm, one
//              thread and N) and TensorFlow.js (wasm), with issue #13's targets
//   train      train/run.mjs: the default training run (2 layers, dModel 32, 2 heads, batch 64,
//              1,400 steps) in Node and natively, and side by side with TensorFlow.js
//   team       train/team.mjs: the default run on one worker and on a team of two that share
//              each step (web/train/replica.js), the same checkpoints
//   pool       attention/pool.mjs: createAttentionPool with 1 and 2 workers against the
//              one-thread engine
//   presets    train/presets.mjs: the Train page's presets for each positional encoding, on 3
//              seeds each: accuracy by position, and which fall behind in the middle
//   first-call attention/first-call.mjs: a fresh engine's first large calls with and without
//              its warm-up, each in a new process
// Writes bench/results.json with a section per part. Progress goes to stderr. The engine runs
// its relaxed-SIMD build, as Chromium, Firefox and Node 21+ load it, unless a part says
// otherwise; in Node 20 the benchmark runs itself again with --experimental-wasm-relaxed-simd.
//
//   node bench/run.mjs [attention] [peers] [train] [team] [pool] [presets] [first-call]    (default: all; a selection prints only)
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { relaxedSimdSupported } from '../dist/wasm/engine.mjs';
import { standardizeRelaxedSimd } from '../scripts/relaxed-simd.mjs';
import { runFirstCallBenchmark } from './attention/first-call.mjs';
import { runPeersBenchmark } from './attention/peers/run.mjs';
import { runPoolBenchmark } from './attention/pool.mjs';
import { runAttentionBenchmark } from './attention/run.mjs';
import { runPresetsBenchmark } from './train/presets.mjs';
import { runTrainingBenchmark } from './train/run.mjs';
import { runTeamBenchmark } from './train/team.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const PARTS = {
  attention: { title: 'Attention', run: runAttentionBenchmark },
  peers: { title: 'Attention against its peers', run: runPeersBenchmark },
  train: { title: 'Training', run: runTrainingBenchmark },
  team: { title: 'One training run on several workers', run: runTeamBenchmark },
  pool: { title: 'Attention on several workers', run: runPoolBenchmark },
  presets: { title: 'What the Train page\'s presets learn', run: runPresetsBenchmark },
  'first-call': { title: 'A fresh engine\'s first call', run: runFirstCallBenchmark },
};
const PEAK_ITERATIONS = 2e7;

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

// The fastest of a build of attention/peak.cpp's widths (8, 10, 12 chains), in GFLOP/s.
function measurePeak(wasm) {
  const { exports } = new WebAssembly.Instance(new WebAssembly.Module(wasm), {});
  let best = 0;
  for (const chains of [8, 10, 12]) {
    const peak = exports[`peak${chains}`];
    peak(PEAK_ITERATIONS / 10, 1);  // warm-up (Node compiles with its baseline tier first)
    const seconds = [];
    for (let round = 0; round < 5; ++round) {
      const start = performance.now();
      peak(PEAK_ITERATIONS, 1);
      seconds.push((performance.now() - start) / 1000);
    }
    best = Math.max(best, (PEAK_ITERATIONS * 8 * chains) / median(seconds) / 1e9);
  }
  return best;
}

function measureMachine() {
  return {
    cpu: os.cpus()[0]?.model ?? 'unknown', cores: os.cpus().length, node: process.version,
    date: new Date().toISOString().slice(0, 10), loadAverage: os.loadavg()[0],
    wasmPeakGflops: measurePeak(readFileSync(join(root, 'build/wasm/bench/peak.wasm'))),
    relaxedPeakGflops: measurePeak(standardizeRelaxedSimd(readFileSync(join(root, 'build/wasm/bench/peak_relaxed.wasm'))).bytes),
  };
}

const machineLine = (machine) =>
  `${machine.cpu}, ${machine.cores} cores, Node ${machine.node}, ${machine.date}; ` +
  `load average ${machine.loadAverage.toFixed(2)} at the start, ${machine.loadAverageEnd.toFixed(2)} at the end (1 minute); ` +
  `wasm f32x4 mul+add peak ${machine.wasmPeakGflops.toFixed(1)} GFLOP/s, relaxed_madd peak ${machine.relaxedPeakGflops.toFixed(1)} GFLOP/s`;

async function main() {
  const requested = process.argv.slice(2);
  const unknown = requested.filter((name) => !(name in PARTS));
  if (unknown.length > 0) {
    throw new Error(`unknown part '${unknown[0]}'; the parts are ${Object.keys(PARTS).join(', ')}`);
  }
  const parts = requested.length > 0 ? requested : Object.keys(PARTS);
  const machine = measureMachine();
  const sections = {};
  for (const part of parts) {
    console.error(`bench: ${part}`);
    sections[part] = await PARTS[part].run({ root, machine });
  }
  machine.loadAverageEnd = os.loadavg()[0];
  console.log(`\n${machineLine(machine)}`);
  for (const part of parts) console.log(`\n### ${PARTS[part].title}\n\n${sections[part].table}`);
  if (parts.length === Object.keys(PARTS).length) {
    const results = Object.fromEntries(parts.map((part) => [part, sections[part].results]));
    writeFileSync(join(root, 'bench/results.json'), `${JSON.stringify({ machine, ...results }, null, 1)}\n`);
  } else {
    console.log('\n(a selection of parts: bench/results.json left as it was)');
  }
}

const RELAXED_SIMD_FLAG = '--experimental-wasm-relaxed-simd';
if (relaxedSimdSupported()) {
  await main();
} else if (process.execArgv.includes(RELAXED_SIMD_FLAG)) {
  throw new Error(`relaxed SIMD does not run here, even with ${RELAXED_SIMD_FLAG}: the benchmark compares both builds`);
} else {
  const { status } = spawnSync(process.execPath, [...process.execArgv, RELAXED_SIMD_FLAG, ...process.argv.slice(1)], { stdio: 'inherit' });
  process.exit(status ?? 1);
}
