// The pool part of `npm run bench` (node bench/run.mjs pool): createAttentionPool on two threads
// against the one-thread engine in this Node process: one worker and the caller's thread
// (callerPart: what the pool does by default in a worker thread on two cores, as the playground's
// engine worker runs it), and two workers with the caller waiting (what a main thread gets by
// default); one worker alone beside them. At n = 4,096 with one head (split by
// query rows; causal: rows balanced by their visible keys) and 8 heads × 512 queries (split by
// heads), d = 64 per head; the materialised 8 × 512 also as the playground runs it, writing into
// the previous result's arrays (`reuse`). The variants run interleaved round by round after a
// warm-up, each round a burst of calls per variant from an idle process (../idle.mjs, as the
// peers part times them: a worker stays awake a few milliseconds after an answer, which the next
// variant must not meet); a variant's time is the median over rounds of its bursts' calls after
// the first. Medians are reported, with each two-thread pool's time as a share of the one-thread
// engine's and the target of 0.6× for one worker and the caller. Beside them, what the machine gives
// two threads at that moment: two 1-worker pools each computing the whole call at once, against
// one alone (1.0 on two free cores; half that ratio is the best two threads can reach). And a
// single call of one worker and the caller after idle, with its threads asleep or woken
// WAKE_LEAD_MS before it (pool.wake, as the playground wakes them before a typing pause ends).
// This machine gives two threads two cores only at times (the column went from 1.0 to 1.4
// within minutes, idle): a case measured while it gave less than STEADY_TWO_THREADS is measured
// again, at most ATTEMPTS times, and the attempt where it gave the most is reported, with how
// many were made (every attempt is in results.json). The results are bit for bit the engine's
// (tests/js/pool.test.mjs).
import os from 'node:os';
import createAttention, { createAttentionPool } from '../../dist/wasm/attention.mjs';
import { setTimeout as sleep } from 'node:timers/promises';
import { WAKE_FOR_MS, WAKE_LEAD_MS } from '../../web/playground/pipeline.js';
import { burstAfterIdle } from './idle.mjs';
import { randomMatrix } from './run.mjs';

const D = 64;  // per head
const TARGET = 0.6;
const STEADY_TWO_THREADS = 1.1;
const ATTEMPTS = 3;
// warmUp: untimed calls first (a worker's engine runs slowly until V8 has compiled its wasm with
// the optimising tier, a dozen calls at 8 × 512); rounds: timed bursts of `burst` calls.
const CASES = [
  { n: 4096, heads: 1, causal: false, kernel: 'flash', warmUp: 4, rounds: 5, burst: 3 },
  { n: 4096, heads: 1, causal: true, kernel: 'flash', warmUp: 4, rounds: 5, burst: 3 },
  { n: 512, heads: 8, causal: false, kernel: 'flash', warmUp: 12, rounds: 9, burst: 5 },
  { n: 512, heads: 8, causal: true, kernel: 'flash', warmUp: 12, rounds: 9, burst: 5 },
  { n: 512, heads: 8, causal: false, kernel: 'materialized', warmUp: 12, rounds: 9, burst: 5 },
  { n: 512, heads: 8, causal: false, kernel: 'materialized', reuse: true, warmUp: 12, rounds: 9, burst: 5 },
];

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

const label = ({ n, heads, causal, kernel, reuse }) =>
  `${heads > 1 ? `${heads} heads × ` : ''}${n}${causal ? ' causal' : ''}, ${kernel}${reuse ? ', reuse' : ''}`;

// A variant that calls `attend(options)`, with the previous result as `reuse` when asked.
function variant(name, attend, callOptions, reuse) {
  let previous = null;
  return {
    name,
    milliseconds: [],
    async run() {
      const result = await attend(reuse ? { ...callOptions, reuse: previous } : callOptions);
      if (reuse) previous = result;
    },
  };
}

// {results, table}: per case the median milliseconds of each variant.
export async function runPoolBenchmark() {
  const engine = await createAttention();
  const alone = { callerPart: false };
  const [one, withCaller, two, another] = [await createAttentionPool({ workers: 1, ...alone }),
    await createAttentionPool({ workers: 1, callerPart: true }), await createAttentionPool({ workers: 2, ...alone }),
    await createAttentionPool({ workers: 1, ...alone })];
  const results = [];
  try {
    for (const { warmUp, rounds, burst, ...options } of CASES) {
      const { n, heads, reuse } = options;
      const inputs = [randomMatrix(n, heads * D, 2), randomMatrix(n, heads * D, 3), randomMatrix(n, heads * D, 4)];
      const callOptions = { heads, causal: options.causal, kernel: options.kernel };
      const attempts = [];
      do {
        attempts.push(await measureCase({ engine, one, withCaller, two, another, inputs, callOptions, reuse, warmUp, rounds, burst }));
      } while (attempts.length < ATTEMPTS && attempts.at(-1).twoThreads > STEADY_TWO_THREADS);
      const best = attempts.reduce((kept, attempt) => (attempt.twoThreads < kept.twoThreads ? attempt : kept));
      const row = {
        ...options, d: D, ...best,
        attempts: attempts.map(({ ratio, twoThreads }) => ({ ratio, twoThreads })),
      };
      results.push(row);
      console.error(`bench: pool ${label(options)}: engine ${row.engineMs.toFixed(1)} ms, 1 worker ${row.oneWorkerMs.toFixed(1)} ms, ` +
        `1 worker and the caller ${row.withCallerMs.toFixed(1)} ms (${row.ratio.toFixed(2)}×), 2 workers ${row.twoWorkersMs.toFixed(1)} ms ` +
        `(${row.twoWorkersRatio.toFixed(2)}×); two whole calls at once ${row.twoThreads.toFixed(2)}× one; one call after idle ` +
        `${row.firstAsleepMs.toFixed(1)} ms asleep, ${row.firstWokenMs.toFixed(1)} ms woken ahead` +
        (attempts.length > 1 ? ` (attempts: ${attempts.map((a) => `${a.ratio.toFixed(2)}× with ${a.twoThreads.toFixed(2)}`).join(', ')})` : ''));
    }
  } finally {
    await Promise.all([one, withCaller, two, another].map((pool) => pool.close()));
  }
  return { results, table: poolTable(results) };
}

// One measurement of a case: the variants interleaved round by round after the warm-up, each
// variant's median over rounds of its bursts' calls after the first.
async function measureCase({ engine, one, withCaller, two, another, inputs, callOptions, reuse, warmUp, rounds, burst }) {
  const variants = [
    variant('engine', async (o) => engine.attention(...inputs, o), callOptions, reuse),
    variant('oneWorker', (o) => one.attention(...inputs, o), callOptions, reuse),
    variant('withCaller', (o) => withCaller.attention(...inputs, o), callOptions, reuse),
    variant('twoWorkers', (o) => two.attention(...inputs, o), callOptions, reuse),
    variant('twoWholeCalls', (o) => Promise.all([one.attention(...inputs, o), another.attention(...inputs, o)]), callOptions, false),
  ];
  // single calls after idle, the threads asleep or woken ahead (not in the warm-up: the variant above warms the pool)
  const firstCalls = [
    { ...variant('firstAsleep', (o) => withCaller.attention(...inputs, o), callOptions, reuse), before: async () => {} },
    {
      ...variant('firstWoken', (o) => withCaller.attention(...inputs, o), callOptions, reuse),
      before: async () => {
        withCaller.wake(WAKE_FOR_MS);
        await sleep(WAKE_LEAD_MS);
      },
    },
  ];
  for (let call = 0; call < warmUp; ++call) {
    for (const v of variants) await v.run();
  }
  const timed = async (v) => {
    const start = performance.now();
    await v.run();
    return performance.now() - start;
  };
  for (let round = 0; round < rounds; ++round) {
    for (const v of variants) {
      const calls = await burstAfterIdle(() => timed(v), burst);
      v.milliseconds.push(median(calls.slice(1)));
    }
    for (const v of firstCalls) {
      const [call] = await burstAfterIdle(async () => {
        await v.before();
        return timed(v);
      }, 1);
      v.milliseconds.push(call);
    }
  }
  const ms = Object.fromEntries([...variants, ...firstCalls].map((v) => [v.name, median(v.milliseconds)]));
  return {
    engineMs: ms.engine, oneWorkerMs: ms.oneWorker, withCallerMs: ms.withCaller, twoWorkersMs: ms.twoWorkers,
    firstAsleepMs: ms.firstAsleep, firstWokenMs: ms.firstWoken,
    ratio: ms.withCaller / ms.engine, twoWorkersRatio: ms.twoWorkers / ms.engine, twoThreads: ms.twoWholeCalls / ms.oneWorker,
  };
}

function poolTable(results) {
  const lines = [
    '| call (d = 64 per head) | engine, one thread (ms) | pool, 1 worker (ms) | pool, 1 worker and the caller (ms) | ' +
      'pool, 2 workers (ms) | 1 worker and the caller ÷ one thread | 2 workers ÷ one thread | two threads at once ÷ one | ' +
      `1 worker and the caller, one call after idle: asleep (ms) | woken ${WAKE_LEAD_MS} ms ahead (ms) |`,
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of results) {
    lines.push(`| ${label(r)} | ${r.engineMs.toFixed(1)} | ${r.oneWorkerMs.toFixed(1)} | ${r.withCallerMs.toFixed(1)} | ` +
      `${r.twoWorkersMs.toFixed(1)} | ${r.ratio.toFixed(2)} | ${r.twoWorkersRatio.toFixed(2)} | ${r.twoThreads.toFixed(2)}` +
      `${r.attempts.length > 1 ? ` (best of ${r.attempts.length}: ${r.attempts.map((a) => a.twoThreads.toFixed(2)).join(', ')})` : ''} | ` +
      `${r.firstAsleepMs.toFixed(1)} | ${r.firstWokenMs.toFixed(1)} |`);
  }
  const cases = (subset) => subset.map((r) => `${label(r)} (${r.ratio.toFixed(2)})`).join('; ');
  const missed = results.filter((r) => r.ratio > TARGET);
  const met = results.filter((r) => r.ratio <= TARGET);
  lines.push('', `target ≤ ${TARGET}× one thread on two threads, 1 worker and the caller (${os.cpus().length} cores here): ` +
    (missed.length === 0 ? `met (${cases(met)})` : `missed for ${cases(missed)}${met.length > 0 ? `; met for ${cases(met)}` : ''}`) +
    '. The last column is two 1-worker pools each computing ' +
    `the whole call at once, over one alone: 1.00 when the machine gives two threads two cores; a case measured while it was ` +
    `above ${STEADY_TWO_THREADS} is measured again (at most ${ATTEMPTS} times) and the attempt where it was lowest is shown.`);
  return lines.join('\n');
}
