// Training on the page's side: one engine worker per seed (made when first needed, kept for
// later runs), each asked to train a chunk at a time, so that pause and stop act within a
// chunk, and to keep its seed's trained model; plus the requests about trained models (their
// evaluation, attention, saving, loading and release), sent to the worker that holds them.
import { createWorkerClient } from '../shared/worker/client.js';
import { taskOptions, trainerOptions } from './state.js';

const CHUNK_MS = 50;  // of training per request: pause and stop wait at most this (or a checkpoint)

/** What run `settings` are evaluated on after training: the options of the workers' evaluate. */
export function evaluationOptions(settings, lengths) {
  return { task: taskOptions(settings), lengths, sequences: settings.sequences, context: settings.context };
}

/**
 * Trains runs in workers made by startWorker(); onWorkerReady(count) hears how many have loaded
 * the engine. Returns {train(run, {onCheckpoint,
 * onProgress}), pause(), resume(), stop(), training(), paused(), request(k, type, payload),
 * release(run), memory(), warm(seeds), ready()}. train resolves when every seed has finished
 * or stopped (with their evaluations in the run), and rejects with the first seed's error, the
 * others stopped and released.
 */
export function createRunner({ startWorker, onWorkerReady }) {
  const clients = [];
  let ready = 0;  // workers whose engine has loaded
  let active = null;  // {run, paused, stopped, wake: [resolve…], activeSince, elapsed}

  function client(k) {
    while (clients.length <= k) {
      const next = createWorkerClient(startWorker());
      clients.push(next);
      next.ready.then(() => onWorkerReady?.(++ready), () => {});
    }
    return clients[k];
  }

  const memory = new Map();  // worker → its wasm memory in bytes, as last reported
  function noteMemory(k, value) {
    if (value?.memoryBytes) memory.set(k, value.memoryBytes);
  }

  async function request(k, type, payload, options) {
    const { value } = await client(k).request(type, payload, options);
    noteMemory(k, value);
    return value;
  }

  function elapsedSeconds() {
    return (active.elapsed + (active.paused ? 0 : performance.now() - active.activeSince)) / 1000;
  }

  // While the run is paused (and not stopped): a promise that resolves when it resumes or stops.
  const untilResumed = () => (active.paused && !active.stopped ? new Promise((resolve) => active.wake.push(resolve)) : null);

  async function trainSeed(k, { onCheckpoint, onProgress }) {
    const { run } = active;
    const seed = run.seeds[k];
    const lane = 'train';
    const started = await request(k, 'start', { id: run.id, options: trainerOptions(run.settings, seed.seed) }, { lane });
    seed.steps = started.steps;
    onProgress();
    while (!active.stopped) {
      const waiting = untilResumed();
      if (waiting) {
        await waiting;
        continue;
      }
      const chunk = await request(k, 'advance', { id: run.id, budgetMs: CHUNK_MS }, { lane });
      seed.step = chunk.step;
      for (const checkpoint of chunk.checkpoints) {
        seed.checkpoints.push(checkpoint);
        onCheckpoint(k);
      }
      run.seconds = elapsedSeconds();
      onProgress();
      if (chunk.finished) break;
    }
    const finished = await request(k, 'finish', { id: run.id, evaluation: evaluationOptions(run.settings, run.lengths) }, { lane });
    seed.evaluations = finished.evaluations;
  }

  function wakeAll() {
    for (const resolve of active.wake.splice(0)) resolve();
  }

  return {
    async train(run, handlers) {
      active = { run, paused: false, stopped: false, wake: [], activeSince: performance.now(), elapsed: 0 };
      const seeds = run.seeds.map((_, k) => trainSeed(k, handlers).catch((error) => {
        active.stopped = true;
        wakeAll();
        throw error;
      }));
      try {
        const outcomes = await Promise.allSettled(seeds);
        run.seconds = elapsedSeconds();
        const failed = outcomes.find((outcome) => outcome.status === 'rejected');
        if (failed) {
          run.seeds.forEach((_, k) => request(k, 'release', { id: run.id }).catch(() => {}));
          throw failed.reason;
        }
        run.status = run.seeds.every((s) => s.step >= s.steps) ? 'finished' : 'stopped';
      } finally {
        active = null;
      }
    },
    training: () => active?.run ?? null,
    paused: () => active?.paused ?? false,
    pause() {
      if (!active || active.paused) return;
      active.elapsed += performance.now() - active.activeSince;
      active.paused = true;
      active.run.status = 'paused';
    },
    resume() {
      if (!active || !active.paused) return;
      active.paused = false;
      active.activeSince = performance.now();
      active.run.status = 'training';
      wakeAll();
    },
    stop() {
      if (!active) return;
      if (active.paused) {
        active.paused = false;
        active.activeSince = performance.now();
      }
      active.stopped = true;
      wakeAll();
    },
    request,
    /** Frees a run's models in the workers that hold them. */
    release(run) {
      return Promise.all(run.seeds.map((_, k) => request(k, 'release', { id: run.id })));
    },
    /** The wasm memory of each worker, in bytes, as last reported. */
    memory: () => [...memory.entries()].sort(([a], [b]) => a - b).map(([, bytes]) => bytes),
    /** Starts the workers of `seeds` seeds now, so that a run does not wait for them. */
    warm(seeds) {
      for (let k = 0; k < seeds; ++k) client(k);
    },
    /** Resolves when the first worker's engine is ready: {version, simd}. */
    ready: () => client(0).ready,
  };
}
