// The first-call part of `npm run bench` (node bench/run.mjs first-call): an engine's first large
// calls with and without its warm-up (createAttention's warmUp, wasm/warm-up.mjs), each in a
// fresh Node process, as a page load or a program start meets them (V8 shares a module's compiled
// code between the engines of one process): a 4,096-token materialised self-attention head (what
// the playground's long sample computes), then attention at n = 4,096, d = 64 in the flash
// kernel (the process's first flash call, after the materialised one); then each again, steady.
// Processes with and without the warm-up alternate, PROCESSES of each; medians are reported,
// the steady ones of the warmed processes. Nothing is called before the timed calls (that is
// what is measured), so outputs are not checked first as the other parts check theirs; the
// tests hold these calls' numbers.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { randomMatrix } from './run.mjs';

const PROCESSES = 3;
const N = 4096;
const D_IN = 100;  // GloVe's dimensions, as the playground's input
const D = 64;
const CHILD_FLAG = '--first-call-child';

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

// In the child process: {warmUpMs, materialized: {first, steady}, flash: {first, steady}} in ms.
async function measureInThisProcess(warmUp) {
  const { default: createAttention } = await import('../../dist/wasm/attention.mjs');
  const engine = await createAttention({ warmUp });
  const x = randomMatrix(N, D_IN, 1);
  const [q, k, v] = [2, 3, 4].map((seed) => randomMatrix(N, D, seed));
  const calls = {
    materialized: () => engine.selfAttention(x, { kernel: 'materialized' }),
    flash: () => engine.attention(q, k, v, { kernel: 'flash' }),
  };
  const timed = (call) => {
    const start = performance.now();
    call();
    return performance.now() - start;
  };
  const result = { warmUpMs: engine.warmUpMs };
  for (const [name, call] of Object.entries(calls)) result[name] = { first: timed(call), steady: timed(call) };
  return result;
}

function measureInNewProcess(warmUp) {
  const child = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), CHILD_FLAG, String(warmUp)],
    { encoding: 'utf8' });
  if (child.status !== 0) throw new Error(`the first-call process failed: ${child.stderr}`);
  return JSON.parse(child.stdout);
}

/** {results, table}: the medians over PROCESSES fresh processes with and without the warm-up. */
export async function runFirstCallBenchmark() {
  const runs = { warmed: [], cold: [] };
  for (let p = 0; p < PROCESSES; ++p) {
    runs.cold.push(measureInNewProcess(false));
    runs.warmed.push(measureInNewProcess(true));
  }
  const results = {
    n: N, dIn: D_IN, d: D, processes: PROCESSES,
    warmUpMs: median(runs.warmed.map((run) => run.warmUpMs)),
    calls: Object.fromEntries(['materialized', 'flash'].map((name) => [name, {
      coldFirstMs: median(runs.cold.map((run) => run[name].first)),
      warmedFirstMs: median(runs.warmed.map((run) => run[name].first)),
      steadyMs: median(runs.warmed.map((run) => run[name].steady)),
    }])),
    runs,
  };
  console.error(`bench: first call: warm-up ${results.warmUpMs.toFixed(1)} ms; ` + Object.entries(results.calls)
    .map(([name, c]) => `${name} ${c.coldFirstMs.toFixed(0)} cold, ${c.warmedFirstMs.toFixed(0)} warmed, ${c.steadyMs.toFixed(0)} steady`)
    .join('; '));
  return { results, table: firstCallTable(results) };
}

function firstCallTable({ warmUpMs, calls, processes }) {
  const labels = {
    materialized: `self-attention of ${N.toLocaleString('en-US')} tokens × ${D_IN}, one head, materialised`,
    flash: `attention, n = ${N.toLocaleString('en-US')}, d = ${D}, flash (after the call above)`,
  };
  const lines = [
    '| a fresh engine\'s first call | without the warm-up (ms) | after it (ms) | the second call (ms) | after ÷ without |',
    '|---|---:|---:|---:|---:|',
    ...Object.entries(calls).map(([name, c]) => `| ${labels[name]} | ${c.coldFirstMs.toFixed(0)} | ${c.warmedFirstMs.toFixed(0)} | ` +
      `${c.steadyMs.toFixed(0)} | ${(c.warmedFirstMs / c.coldFirstMs).toFixed(2)} |`),
    '',
    `The warm-up took ${warmUpMs.toFixed(1)} ms (createAttention's warmUp); medians of ${processes} fresh processes each.`,
  ];
  return lines.join('\n');
}

if (process.argv[2] === CHILD_FLAG) {
  process.stdout.write(JSON.stringify(await measureInThisProcess(process.argv[3] === 'true')));
}
