// Training on the page's side: engine workers (made when first needed, kept for later runs),
// seeds in parallel, a seed's run on one worker or, when there are more workers than seeds, on
// a team of them that share each step (replica.js); each asked to train a chunk at a time, so
// that pause and stop act within a chunk, and the first of each seed's workers to keep its
// trained model; plus the requests about trained models (their attention, saving and release),
// sent to the worker that holds them, and loading a model file, which the first worker keeps
// and every ready worker (up to 8) helps to measure, each on a copy of its own.
import { createWorkerClient } from '../shared/worker/client.js';
import { connectTeam } from './replica.js';
import { taskOptions, trainerOptions } from './state.js';

const CHUNK_MS = 50;  // of training per request: pause and stop wait at most this (or a checkpoint)
// The most workers one run uses: the step's gradient shards (the core's kGradientShards; a
// replica refuses a larger team).
export const MAX_TEAM = 8;

/** What run `settings` are evaluated on after training: the options of the workers' evaluate. */
export function evaluationOptions(settings, lengths) {
  return { task: taskOptions(settings), lengths, sequences: settings.sequences, context: settings.context };
}

/**
 * The workers of a run of `seeds` seeds, given `workers` to use: each seed's team (worker
 * indices; its first holds the trained model). One worker per seed when seeds are as many as
 * the workers or more; else each seed gets an equal team of the workers, at most MAX_TEAM.
 */
export function teamsFor(seeds, workers) {
  const size = Math.max(1, Math.min(MAX_TEAM, Math.floor(workers / seeds)));
  return Array.from({ length: seeds }, (_, k) => Array.from({ length: size }, (_, r) => k * size + r));
}

/**
 * Where the `count` seeds of a stopped run stop together: arrive(step, finished) says where a
 * seed's training ended (finished: at its last step) and resolves, once every seed has, to the
 * furthest step a stopped seed reached (which the other stopped seeds then train to; a
 * finished seed does not count, so that Stop never trains the others to their end; 0 when
 * none stopped); fail(error) rejects every wait with a seed's error.
 */
export function stopStep(count) {
  const stoppedAt = [];
  let arrived = 0;
  let settle = null;
  const furthest = new Promise((resolve, reject) => { settle = { resolve, reject }; });
  furthest.catch(() => {});  // a seed that fails before the others arrive: each waiting one rejects
  return {
    arrive(step, finished = false) {
      arrived += 1;
      if (!finished) stoppedAt.push(step);
      if (arrived === count) settle.resolve(Math.max(0, ...stoppedAt));
      return furthest;
    },
    fail: (error) => settle.reject(error),
  };
}

/**
 * Trains runs in workers made by startWorker(): `workers` of them, or one per seed when the
 * seeds are more; onWorkerReady(count) hears how many have loaded the engine. Returns
 * {train(run, {onCheckpoint, onProgress}), pause(), resume(), stop(), training(), paused(),
 * whenPaused(), requestModel(run, k, type, payload, {lane}) (to the worker holding seed k's model), release(run),
 * loadModel(id, text), evaluateModel(id, text, evaluation), renameModel(from, to), memory(), warm(seeds), ready(),
 * workers}. train resolves when every seed has finished or stopped (with their evaluations in
 * the run), and rejects with the first seed's error, the others stopped and released.
 */
export function createRunner({ startWorker, onWorkerReady, workers = 1 }) {
  const clients = [];
  const readyWorkers = new Set();  // workers whose engine has loaded
  // {run, paused, stopped, wake: [resolve…], activeSince, elapsed, moving: the seeds whose
  // training may still take a step (neither waiting for a resume nor past training), settled:
  // [resolve…] of whenPaused()}
  let active = null;
  const holders = new Map();  // run id → the worker holding each seed's model

  function client(k) {
    while (clients.length <= k) {
      const index = clients.length;
      // every worker runs the first's build: a team's replicas, and seeds side by side, to the bit
      const next = createWorkerClient(startWorker(), index > 0 ? { sameBuildAs: clients[0].ready } : {});
      clients.push(next);
      next.ready.then(() => {
        readyWorkers.add(index);
        onWorkerReady?.(readyWorkers.size);
      }, () => {});
    }
    return clients[k];
  }

  // worker → {memoryBytes, memoryInUseBytes}: its wasm memory and what its allocations hold, as last reported
  const memory = new Map();
  function noteMemory(k, value) {
    if (value?.memoryBytes) memory.set(k, { memoryBytes: value.memoryBytes, memoryInUseBytes: value.memoryInUseBytes });
  }

  async function request(k, type, payload, options) {
    const { value } = await client(k).request(type, payload, options);
    noteMemory(k, value);
    return value;
  }

  function elapsedSeconds() {
    return (active.elapsed + (active.paused ? 0 : performance.now() - active.activeSince)) / 1000;
  }

  // While the run is paused (and not stopped): a promise that resolves when it resumes or
  // stops, during which the seed takes no step.
  function untilResumed() {
    if (!active.paused || active.stopped) return null;
    const resumed = new Promise((resolve) => active.wake.push(resolve));
    stillFor(resumed);
    return resumed;
  }

  // A seed of the active run takes no step until `done` settles (for good, without it): when
  // no seed of a paused run can take one, whenPaused() resolves, true.
  function stillFor(done = null) {
    const run = active;
    run.moving -= 1;
    if (run.paused && run.moving === 0) settle(run, true);
    done?.finally(() => { run.moving += 1; });
  }

  // Resolves the run's whenPaused() promises: true once it is paused and still, false when it
  // resumes, stops or ends first.
  function settle(run, still) {
    for (const resolve of run.settled.splice(0)) resolve(still);
  }

  // Starts a seed's run on its team of workers: alone, or as replicas joined by MessagePorts,
  // each with a control port through which abandon() ends a replica that waits for a failed
  // member. Resolves to {started: the first worker's answer, abandon, close}.
  async function startTeam(team, id, options) {
    const lane = 'train';
    if (team.length === 1) {
      return { started: await request(team[0], 'start', { id, options }, { lane }), abandon() {}, close() {} };
    }
    const peers = connectTeam(team.length);
    const controls = team.map(() => new MessageChannel());
    const abandon = (reason) => controls.forEach(({ port1 }) => port1.postMessage({ reason }));
    const close = () => controls.forEach(({ port1 }) => port1.close());
    const starts = team.map((k, r) => {
      const control = controls[r].port2;
      const ports = peers[r].filter((port) => port !== null);
      return request(k, 'start', { id, options, team: { rank: r, peers: peers[r], control } }, { lane, transfer: [...ports, control] });
    });
    const outcomes = await Promise.allSettled(starts);
    const failed = outcomes.find((outcome) => outcome.status === 'rejected');
    if (failed) {
      abandon('another worker of this run failed to start');
      close();
      throw failed.reason;
    }
    return { started: outcomes[0].value, abandon, close };
  }

  // One chunk of the team's training (to step `until` at most): every member's advance, the
  // leader's answer. The first member to fail abandons the others, so that none waits for it,
  // and its error is the chunk's.
  async function advanceTeam(team, id, abandon, until = Infinity) {
    let failure = null;
    const chunks = team.map((k) => request(k, 'advance', { id, budgetMs: CHUNK_MS, until }, { lane: 'train' }).catch((error) => {
      if (failure === null) {
        failure = error;
        abandon(`another worker of this run failed: ${error.message}`);
      }
      return null;
    }));
    const [leader] = await Promise.all(chunks);
    if (failure !== null) throw failure;
    return leader;
  }

  // A loaded model's requests: a lane of its own, so that two files loaded at once do not
  // supersede each other's.
  const modelLane = (id) => `model ${id}`;

  // Frees run `id`'s trainer or model in worker k (each run its own lane, so that releases
  // waiting together do not supersede one another).
  const releaseIn = (k, id) => request(k, 'release', { id }, { lane: `release ${id}` });

  // Seed k's run on its team: trained chunk by chunk until it finishes or the run stops; once
  // stopped, trained on to the step the furthest seed reached (`stopped`: stopStep), so that
  // the seeds stop together; then measured, with the checkpoint of its last steps when the
  // stop fell between checkpoints.
  async function trainSeed(k, team, stopped, { onCheckpoint, onProgress }) {
    const { run } = active;
    const seed = run.seeds[k];
    const { started, abandon, close } = await startTeam(team, run.id, trainerOptions(run.settings, seed.seed)).catch((error) => {
      stillFor();
      throw error;
    });
    const record = (checkpoints) => {
      for (const checkpoint of checkpoints) {
        seed.checkpoints.push(checkpoint);
        onCheckpoint(k);
      }
    };
    try {
      seed.steps = started.steps;
      onProgress();
      let finished = false;
      while (!active.stopped && !finished) {
        const waiting = untilResumed();
        if (waiting) {
          await waiting;
          continue;
        }
        const chunk = await advanceTeam(team, run.id, abandon);
        seed.step = chunk.step;
        record(chunk.checkpoints);
        run.seconds = elapsedSeconds();
        onProgress();
        finished = chunk.finished;
      }
      const until = stopped.arrive(seed.step, finished);
      if (!finished) {
        for (const last = await until; seed.step < last;) {
          const waiting = untilResumed();  // paused while catching up: as in the loop above
          if (waiting) {
            await waiting;
            continue;
          }
          const chunk = await advanceTeam(team, run.id, abandon, last);
          seed.step = chunk.step;
          record(chunk.checkpoints);
          run.seconds = elapsedSeconds();
          onProgress();
        }
      }
    } finally {
      close();
      stillFor();  // past training
    }
    const evaluation = evaluationOptions(run.settings, run.lengths);
    const { evaluations, checkpoint } = await evaluateOnTeam(team, run.id, evaluation, 'finish', 'train');
    if (checkpoint) record([checkpoint]);
    seed.evaluations = evaluations;
  }

  // A model's evaluations (run `id`'s, as the workers' `type` request measures it: 'finish'
  // after training, 'evaluate' for a loaded model): by its one worker or, in a team, by every
  // member on its share of the held-out chunks, joined by the first, which keeps the model (the
  // others' copies are freed). {evaluations, checkpoint: the first's 'finish' of a stopped
  // run's last steps, else null}.
  async function evaluateOnTeam(team, id, evaluation, type, lane) {
    const [leader, ...others] = team;
    if (team.length === 1) {
      const { evaluations, checkpoint = null } = await request(leader, type, { id, evaluation }, { lane });
      return { evaluations, checkpoint };
    }
    try {
      const shares = await Promise.all(team.map((k, rank) =>
        request(k, type, { id, evaluation, share: { rank, size: team.length } }, { lane })));
      const chunks = evaluation.lengths.map((_, e) => shares.flatMap((share) => share.chunks[e]));
      const { evaluations } = await request(leader, 'join', { id, evaluation, chunks }, { lane });
      return { evaluations, checkpoint: shares[0].checkpoint ?? null };
    } finally {
      // a member that cannot answer holds nothing the run needs
      await Promise.allSettled(others.map((member) => releaseIn(member, id)));
    }
  }

  function wakeAll() {
    settle(active, false);
    for (const resolve of active.wake.splice(0)) resolve();
  }

  const teamsOf = (seeds) => teamsFor(seeds, workers);

  return {
    workers,
    async train(run, handlers) {
      const teams = teamsOf(run.seeds.length);
      active = {
        run, paused: false, stopped: false, wake: [], activeSince: performance.now(), elapsed: 0, moving: teams.length, settled: [],
      };
      holders.set(run.id, teams.map(([leader]) => leader));
      run.team = teams[0].length;
      const stopped = stopStep(teams.length);
      const seeds = teams.map((team, k) => trainSeed(k, team, stopped, handlers).catch((error) => {
        active.stopped = true;
        stopped.fail(error);
        wakeAll();
        throw error;
      }));
      try {
        // run.seconds stays the time it trained, as each chunk left it: not the measuring after
        const outcomes = await Promise.allSettled(seeds);
        const failed = outcomes.find((outcome) => outcome.status === 'rejected');
        if (failed) {
          teams.flat().forEach((k) => releaseIn(k, run.id).catch(() => {}));
          holders.delete(run.id);
          throw failed.reason;
        }
        run.status = run.seeds.every((s) => s.step >= s.steps) ? 'finished' : 'stopped';
      } finally {
        settle(active, false);
        active = null;
      }
    },
    training: () => active?.run ?? null,
    paused: () => active?.paused ?? false,
    /**
     * Resolves true once the paused run takes no more steps (every chunk asked for has
     * landed, and every seed waits for a resume or is past training); false when it resumes,
     * stops or ends first, or when no run is paused.
     */
    whenPaused() {
      if (!active?.paused) return Promise.resolve(false);
      if (active.moving === 0) return Promise.resolve(true);
      return new Promise((resolve) => active.settled.push(resolve));
    },
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
    /** A request about seed k's model of `run`, to the worker that holds it (a loaded model: worker 0). */
    requestModel(run, k, type, payload, options) {
      return request(holders.get(run.id)?.[k] ?? 0, type, payload, options);
    },
    /**
     * Loads a model file's text (model.save()'s JSON, already read as a saved model by
     * model-file.js) as run `id` in the first worker, which keeps it: resolves to its config.
     */
    async loadModel(id, text) {
      return (await request(0, 'load', { id, text }, { lane: modelLane(id) })).config;
    },
    /** Gives loaded model `from` (its key while loading) the run id `to`, in the worker that keeps it. */
    async renameModel(from, to) {
      await request(0, 'rename', { from, to }, { lane: modelLane(to) });
    },
    /**
     * Loaded model `id`'s evaluations (options as evaluationOptions gives them), and on how many
     * workers they were measured: the first, and every other ready worker up to MAX_TEAM that
     * loads a copy of `text` (a copy that fails to load is left out); each measures its share of
     * the held-out chunks and the first joins them, the copies freed after. Should a share or the
     * join fail, the first measures alone. The same numbers either way, to the bit. On rejection
     * the first worker still holds the model: release it.
     */
    async evaluateModel(id, text, evaluation) {
      const lane = modelLane(id);
      const helpers = [...readyWorkers].filter((k) => k > 0).sort((a, b) => a - b).slice(0, MAX_TEAM - 1);
      const loads = await Promise.allSettled(helpers.map((k) => request(k, 'load', { id, text }, { lane })));
      const team = [0, ...helpers.filter((_, h) => loads[h].status === 'fulfilled')];
      if (team.length > 1) {
        try {
          return { evaluations: (await evaluateOnTeam(team, id, evaluation, 'evaluate', lane)).evaluations, workers: team.length };
        } catch {
          // measured again below, by the first worker alone
        }
      }
      return { evaluations: (await request(0, 'evaluate', { id, evaluation }, { lane })).evaluations, workers: 1 };
    },
    /** Frees a run's models in the workers that hold them. */
    release(run) {
      const held = holders.get(run.id) ?? [0];
      holders.delete(run.id);
      return Promise.all(held.map((k) => releaseIn(k, run.id)));
    },
    /** Each worker's {memoryBytes, memoryInUseBytes} (engine's), as last reported. */
    memory: () => [...memory.entries()].sort(([a], [b]) => a - b).map(([, reported]) => reported),
    /** Starts the workers a run of `seeds` seeds uses now, so that it does not wait for them. */
    warm(seeds) {
      for (const k of teamsOf(seeds).flat()) client(k);
    },
    /** Resolves when the first worker's engine is ready: {version, simd}. */
    ready: () => client(0).ready,
  };
}
