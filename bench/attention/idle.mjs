// Timing in bursts from an idle process, as the peers and pool parts of `npm run bench` do.
//
// Each burst starts with this process idle: onnxruntime-web's thread pool keeps its threads
// spinning for about 30 ms after a call (a core's worth of CPU time, measured), longer when the
// machine is busy, and the engine's pool keeps its workers awake for a few milliseconds after an
// answer (AWAKE_MS in wasm/pool-worker.mjs); either would take a core from the variant that runs
// next. Before each burst the rounds wait, untimed, until the process used under IDLE_SHARE of
// a core over IDLE_WINDOW_MS.
// Why bursts: on this machine kind any call after a few idle milliseconds is slower by a fixed
// amount, whatever the library (0.4 µs → 7 µs for a wasm malloc, 12 → 180 µs for the engine's
// smallest attention call, after 5 ms of sleep or of a JavaScript busy loop alike: the core's
// caches and predictors lost to the host meanwhile). At n = 256 that is a third of a call; the
// calls after the first in a burst time the libraries' own work, the first what a single
// click pays.
import { setTimeout as sleep } from 'node:timers/promises';

const IDLE_WINDOW_MS = 10;
const IDLE_SHARE = 0.2;
const IDLE_MAX_MS = 1000;

// Resolves once this process, all its threads together, is idle (above), or after IDLE_MAX_MS.
async function untilIdle() {
  const start = performance.now();
  while (performance.now() - start < IDLE_MAX_MS) {
    const before = process.cpuUsage();
    await sleep(IDLE_WINDOW_MS);
    const { user, system } = process.cpuUsage(before);
    if ((user + system) / 1000 < IDLE_SHARE * IDLE_WINDOW_MS) return;
  }
}

// Once the process is idle, `count` calls of `timedCall` in a row → the milliseconds each returns.
export async function burstAfterIdle(timedCall, count) {
  await untilIdle();
  const milliseconds = [];
  for (let call = 0; call < count; ++call) milliseconds.push(await timedCall());
  return milliseconds;
}
