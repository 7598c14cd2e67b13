// The Train page's runner (web/train/runner.js) with scripted workers in place of engine
// workers: which workers a run's seeds get, what each member of a team is sent (its rank,
// its ports, its share of the final evaluation), which worker joins the evaluation and which
// a seed's model requests go to, and what happens when a member fails to start, fails in a
// chunk or in the evaluation, or stops: the others are abandoned through their control ports,
// the run rejects with the member's message, and every member frees its replica.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createRunner, stopStep } from '../../web/train/runner.js';
import { createRun } from '../../web/train/runs.js';
import { DEFAULTS } from '../../web/train/state.js';

const STEPS = 20;
const settings = { ...structuredClone(DEFAULTS), steps: STEPS };

/**
 * A scripted engine worker (the protocol of web/shared/worker/client.js): it answers start,
 * release, finish and evaluate (with a share, its rank's "sums" at each length), join (the sums
 * it was given, as evaluations), load and the model requests at once, and advance by `onAdvance(worker)`,
 * which resolves to a chunk or rejects; errors[type] makes that request fail with it (and
 * errors.ready its engine fail to load; errors.simd, its engine run that build, not SIMD128);
 * delays[type] holds that request's answer back so many milliseconds. It records every request
 * and keeps a team's control port.
 */
function scriptedWorker(index, onAdvance, errors = {}, delays = {}) {
  const listeners = { message: [], error: [] };
  const worker = {
    index, requests: [], control: null, step: 0,
    addEventListener(type, listener) { listeners[type]?.push(listener); },
    emit(type, event) { for (const listener of listeners[type]) listener(event); },
    answer(id, outcome) {
      outcome.then(
        (value) => worker.emit('message', { data: { id, status: 'ok', value, milliseconds: 0 } }),
        (error) => worker.emit('message', { data: { id, status: 'error', message: error.message } }),
      );
    },
    postMessage({ id, type, payload }, transfer = []) {
      worker.requests.push({ type, payload, transfer });
      if (type === 'start' && payload.team) {
        worker.control = payload.team.control;
        worker.control.start();
      }
      if (type === 'advance') return worker.answer(id, onAdvance(worker));
      if (errors[type]) return worker.answer(id, Promise.reject(new Error(errors[type])));
      const measured = payload?.share
        ? { chunks: payload.evaluation.lengths.map((pairs) => [`rank ${payload.share.rank} of ${payload.share.size} at ${pairs}`]) }
        : { evaluations: [] };
      const values = {
        start: { step: 0, steps: STEPS }, finish: measured, evaluate: measured, join: { evaluations: payload?.chunks },
        load: { config: { loadedBy: index } },
      };
      return worker.answer(id, new Promise((resolve) => { setTimeout(() => resolve(values[type] ?? {}), delays[type] ?? 0); }));
    },
  };
  queueMicrotask(() => worker.emit('message', {
    data: errors.ready ? { status: 'failed', message: errors.ready } : { status: 'ready', version: 'test', simd: errors.simd ?? 'simd128' },
  }));
  return worker;
}

// A whole chunk to the end of the run.
const toTheEnd = async (worker) => {
  worker.step = STEPS;
  return { step: STEPS, steps: STEPS, finished: true, checkpoints: [] };
};

// A chunk that waits for the control port's word, then fails with its reason.
const untilAbandoned = (worker) => new Promise((_, reject) => {
  worker.control.addEventListener('message', ({ data }) => reject(new Error(data.reason)), { once: true });
});

// A runner on `workers` scripted workers; errors[k]: worker k's requests that fail, by type;
// delays: every worker's answers held back, by type (scriptedWorker).
function runnerOf(workers, onAdvance, errors = [], delays = {}) {
  const started = [];
  const runner = createRunner({
    workers,
    startWorker: () => {
      const worker = scriptedWorker(started.length, (w) => onAdvance(w), errors[started.length], delays);
      started.push(worker);
      return worker;
    },
  });
  return { runner, started };
}

const handlers = { onCheckpoint() {}, onProgress() {} };
const EVALUATION = { task: {}, lengths: [4, 6], sequences: 512, context: 'causal' };
// Until the scripted workers' ready (or failed) messages have been heard.
const settled = () => new Promise((resolve) => { setImmediate(resolve); });
const typesOf = (worker) => worker.requests.map(({ type }) => type);

describe('the Train page\'s runner', { timeout: 10_000 }, () => {
  test('a run\'s time is the time it trained, not the measuring after it', async () => {
    const TRAINING_MS = 100;
    const MEASURING_MS = 600;
    const slowChunk = (worker) => new Promise((resolve) => { setTimeout(() => resolve(toTheEnd(worker)), TRAINING_MS); });
    const { runner } = runnerOf(1, slowChunk, [], { finish: MEASURING_MS });
    const run = createRun({ id: 1, settings, seeds: [0] });
    const started = performance.now();
    await runner.train(run, handlers);
    assert.ok(performance.now() - started >= TRAINING_MS + MEASURING_MS - 5, 'the run waited for its measuring');
    assert.ok(run.seconds >= (TRAINING_MS - 5) / 1000 && run.seconds < (TRAINING_MS + MEASURING_MS / 2) / 1000, `${run.seconds} s`);
  });

  test('whenPaused resolves once every chunk asked for has landed, and no chunk is asked for after; false when the run resumes first', async () => {
    // each worker's chunk of one step lands when the test lets it (or at once, once `flowing`)
    let flowing = false;
    const land = (worker) => {
      worker.step += 1;
      worker.pending = null;
      return { step: worker.step, steps: STEPS, finished: worker.step >= STEPS, checkpoints: [] };
    };
    const gated = (worker) => (flowing ? Promise.resolve(land(worker))
      : new Promise((resolve) => { worker.pending = () => resolve(land(worker)); }));
    const { runner, started } = runnerOf(2, gated);
    const run = createRun({ id: 3, settings, seeds: [0, 1] });
    const training = runner.train(run, handlers);
    const until = async (condition) => { while (!condition()) await settled(); };
    const chunksAsked = () => started.map((worker) => typesOf(worker).filter((type) => type === 'advance').length);
    await until(() => started.length === 2 && started.every((worker) => worker.pending));

    runner.pause();
    let still = null;
    runner.whenPaused().then((value) => { still = value; });
    for (const worker of started) {
      await settled();
      assert.equal(still, null, `a chunk still in flight on worker ${worker.index}`);
      worker.pending();
    }
    await until(() => still !== null);
    assert.equal(still, true);
    assert.deepEqual(run.seeds.map((seed) => seed.step), [1, 1], 'both chunks landed');
    assert.deepEqual(chunksAsked(), [1, 1]);
    for (let k = 0; k < 5; ++k) await settled();
    assert.deepEqual(chunksAsked(), [1, 1], 'no chunk asked for while paused');
    assert.equal(await runner.whenPaused(), true, 'asked again while still: at once');

    runner.resume();
    await until(() => started.every((worker) => worker.pending));
    runner.pause();
    const resumedFirst = runner.whenPaused();
    runner.resume();
    assert.equal(await resumedFirst, false);
    assert.equal(await runner.whenPaused(), false, 'not paused');
    flowing = true;
    for (const worker of started) worker.pending();
    runner.stop();
    await training;
    assert.equal(run.status, 'stopped');
  });

  test('a seed on a team of 3: each member started with its rank, ports to the others and a control port; the model kept by the first', async () => {
    const { runner, started } = runnerOf(3, toTheEnd);
    const run = createRun({ id: 7, settings, seeds: [0] });
    await runner.train(run, handlers);
    assert.equal(run.status, 'finished');
    assert.equal(run.team, 3);
    assert.equal(started.length, 3);
    for (const [rank, worker] of started.entries()) {
      const { payload: { team }, transfer } = worker.requests[0];
      assert.equal(team.rank, rank);
      assert.deepEqual(team.peers.map((port) => port !== null), [0, 1, 2].map((r) => r !== rank));
      assert.ok(team.control instanceof MessagePort);
      // the ports are handed over (a port posted without being transferred cannot be cloned)
      assert.deepEqual(transfer, [...team.peers.filter((port) => port !== null), team.control]);
    }
    // every member measures its share of the held-out chunks; the first joins them and keeps the model
    assert.deepEqual(typesOf(started[0]), ['start', 'advance', 'finish', 'join']);
    assert.deepEqual(typesOf(started[1]), ['start', 'advance', 'finish', 'release']);
    assert.deepEqual(typesOf(started[2]), ['start', 'advance', 'finish', 'release']);
    started.forEach((worker, rank) => assert.deepEqual(worker.requests[2].payload.share, { rank, size: 3 }));
    const lengths = started[0].requests[3].payload.evaluation.lengths;
    assert.deepEqual(lengths, [16, 24, 32]);
    assert.deepEqual(run.seeds[0].evaluations, lengths.map((pairs) => [0, 1, 2].map((rank) => `rank ${rank} of 3 at ${pairs}`)));
    // the seed's model lives in its first worker; releasing the run frees it there
    await runner.requestModel(run, 0, 'save', { id: 7 });
    await runner.release(run);
    assert.deepEqual(typesOf(started[0]).slice(-2), ['save', 'release']);
  });

  test('two seeds on four workers: teams of two; a seed\'s model requests go to its team\'s first worker', async () => {
    const { runner, started } = runnerOf(4, toTheEnd);
    const run = createRun({ id: 8, settings, seeds: [0, 1] });
    await runner.train(run, handlers);
    assert.equal(run.team, 2);
    assert.deepEqual(started.map((worker) => worker.requests[0].payload.options.training.seed), [0, 0, 1, 1]);
    await runner.requestModel(run, 1, 'attention', { id: 8 });
    assert.equal(typesOf(started[2]).at(-1), 'attention');
  });

  test('a member that fails in a chunk: the others are abandoned, the run rejects with its message, every member frees its replica', async () => {
    const { runner, started } = runnerOf(3, (worker) => (worker.index === 1 ? Promise.reject(new Error('out of memory')) : untilAbandoned(worker)));
    const run = createRun({ id: 9, settings, seeds: [0] });
    await assert.rejects(runner.train(run, handlers), { message: 'out of memory' });
    for (const worker of started) assert.equal(typesOf(worker).at(-1), 'release', `worker ${worker.index}`);
  });

  test('a member whose worker stops: the same, with the worker\'s message', async () => {
    const { runner, started } = runnerOf(2, (worker) => {
      if (worker.index === 0) queueMicrotask(() => worker.emit('error', { message: 'the tab ran out of memory', preventDefault() {} }));
      return worker.index === 0 ? new Promise(() => {}) : untilAbandoned(worker);
    });
    const run = createRun({ id: 10, settings, seeds: [0] });
    await assert.rejects(runner.train(run, handlers), { message: 'the engine worker stopped: the tab ran out of memory' });
    assert.equal(typesOf(started[1]).at(-1), 'release');
  });

  test('a member that fails to start: the run rejects, and nothing trains', async () => {
    const { runner, started } = runnerOf(2, toTheEnd, [{}, { start: 'no memory for the model' }]);
    const run = createRun({ id: 11, settings, seeds: [0] });
    await assert.rejects(runner.train(run, handlers), { message: 'no memory for the model' });
    assert.deepEqual(typesOf(started[0]), ['start', 'release']);
    assert.deepEqual(typesOf(started[1]), ['start', 'release']);
  });

  test('a member that fails in its share of the evaluation: the run rejects with its message, every member frees its model', async () => {
    const { runner, started } = runnerOf(3, toTheEnd, [{}, {}, { finish: 'the evaluation ran out of memory' }]);
    const run = createRun({ id: 12, settings, seeds: [0] });
    await assert.rejects(runner.train(run, handlers), { message: 'the evaluation ran out of memory' });
    for (const worker of started) assert.equal(typesOf(worker).at(-1), 'release', `worker ${worker.index}`);
    assert.ok(!typesOf(started[0]).includes('join'));
  });

  test('a leader that fails to join: the run rejects with its message, every member frees its model', async () => {
    const { runner, started } = runnerOf(2, toTheEnd, [{ join: 'the join ran out of memory' }, {}]);
    const run = createRun({ id: 14, settings, seeds: [0] });
    await assert.rejects(runner.train(run, handlers), { message: 'the join ran out of memory' });
    assert.deepEqual(typesOf(started[0]).slice(-2), ['join', 'release']);
    assert.deepEqual(typesOf(started[1]).slice(2, 4), ['finish', 'release']);
    assert.equal(typesOf(started[1]).at(-1), 'release');
  });

  test('a team stopped part-way: every member measures its share of what it trained, the first joins them', async () => {
    let runner = null;
    const stopping = async () => {
      runner.stop();
      return { step: 5, steps: STEPS, finished: false, checkpoints: [] };
    };
    const made = runnerOf(2, stopping);
    runner = made.runner;
    const run = createRun({ id: 15, settings, seeds: [0] });
    await runner.train(run, handlers);
    assert.equal(run.status, 'stopped');
    assert.equal(run.seeds[0].step, 5);
    assert.deepEqual(typesOf(made.started[0]), ['start', 'advance', 'finish', 'join']);
    assert.deepEqual(typesOf(made.started[1]), ['start', 'advance', 'finish', 'release']);
    assert.equal(run.seeds[0].evaluations.length, 3);
  });

  test('a seed alone on its worker: its own evaluation, no share and no join', async () => {
    const { runner, started } = runnerOf(2, toTheEnd);
    const run = createRun({ id: 13, settings, seeds: [0, 1] });
    await runner.train(run, handlers);
    for (const worker of started) {
      assert.deepEqual(typesOf(worker), ['start', 'advance', 'finish']);
      assert.equal(worker.requests[2].payload.share, undefined);
    }
  });

  test('a loaded model measured by every ready worker: each loads a copy of the text and measures its share, the first joins and keeps the model', async () => {
    const { runner, started } = runnerOf(3, toTheEnd);
    runner.warm(1);  // one seed: a team of the 3 workers
    await settled();
    assert.deepEqual(await runner.loadModel(16, '{"saved": true}'), { loadedBy: 0 });
    const { evaluations, workers } = await runner.evaluateModel(16, '{"saved": true}', EVALUATION);
    assert.equal(workers, 3);
    assert.deepEqual(evaluations, [4, 6].map((pairs) => [0, 1, 2].map((rank) => `rank ${rank} of 3 at ${pairs}`)));
    assert.deepEqual(typesOf(started[0]), ['load', 'evaluate', 'join']);
    for (const worker of started.slice(1)) {
      assert.deepEqual(typesOf(worker), ['load', 'evaluate', 'release']);
      assert.deepEqual(worker.requests[0].payload, { id: 16, text: '{"saved": true}' });
    }
    await runner.release({ id: 16 });
    assert.equal(typesOf(started[0]).at(-1), 'release');
  });

  test('a loaded model with one worker: measured there alone; files loaded at once do not supersede one another', async () => {
    const { runner, started } = runnerOf(3, toTheEnd);
    const ids = [17, 18, 19];
    await Promise.all(ids.map((id) => runner.loadModel(id, '{}')));
    const measured = await Promise.all(ids.map((id) => runner.evaluateModel(id, '{}', EVALUATION)));
    assert.deepEqual(measured, ids.map(() => ({ evaluations: [], workers: 1 })));
    assert.equal(started.length, 1);
    assert.deepEqual(typesOf(started[0]), ['load', 'load', 'load', 'evaluate', 'evaluate', 'evaluate']);
    assert.ok(started[0].requests.every(({ payload }) => payload.share === undefined));
  });

  test('a loaded model: a worker that failed to start, or a copy that fails to load, is left out; a share that fails leaves the first to measure alone', async () => {
    const skipping = runnerOf(4, toTheEnd, [{}, { ready: 'no memory for an engine' }, {}, { load: 'no memory for a copy' }]);
    skipping.runner.warm(1);
    await settled();
    await skipping.runner.loadModel(20, '{}');
    const { evaluations, workers } = await skipping.runner.evaluateModel(20, '{}', EVALUATION);
    assert.equal(workers, 2);
    assert.deepEqual(evaluations, [4, 6].map((pairs) => [0, 1].map((rank) => `rank ${rank} of 2 at ${pairs}`)));
    assert.deepEqual(skipping.started.map(typesOf), [['load', 'evaluate', 'join'], [], ['load', 'evaluate', 'release'], ['load']]);

    const falling = runnerOf(2, toTheEnd, [{}, { evaluate: 'the share ran out of memory' }]);
    falling.runner.warm(1);
    await settled();
    await falling.runner.loadModel(21, '{}');
    assert.deepEqual(await falling.runner.evaluateModel(21, '{}', EVALUATION), { evaluations: [], workers: 1 });
    assert.deepEqual(typesOf(falling.started[0]), ['load', 'evaluate', 'evaluate']);
    assert.equal(falling.started[0].requests[2].payload.share, undefined);
    assert.deepEqual(typesOf(falling.started[1]), ['load', 'evaluate', 'release']);
  });

  test('a worker whose engine runs another build than the first\'s fails: left out of a loaded model\'s measure, and a seed on it fails, naming both builds', async () => {
    const { runner, started } = runnerOf(3, toTheEnd, [{}, { simd: 'relaxed-simd' }, {}]);
    runner.warm(1);
    await settled();
    await runner.loadModel(30, '{}');
    assert.equal((await runner.evaluateModel(30, '{}', EVALUATION)).workers, 2, 'the first and the third');
    assert.deepEqual(typesOf(started[1]), [], 'nothing is sent to the second');
    const run = createRun({ id: 31, settings, seeds: [0, 1, 2] });
    await assert.rejects(runner.train(run, handlers),
      { message: 'the engine worker runs the relaxed-SIMD build and the page\'s first the SIMD128 one: their numbers would round differently' });
    assert.deepEqual(typesOf(started[1]), [], 'still nothing');
  });
});

test('stopStep: stopped seeds train on to the furthest stopped one; a finished seed does not count; a failure rejects every wait', async () => {
  const three = stopStep(3);
  const waits = [three.arrive(120), three.arrive(1400, true), three.arrive(135)];
  assert.deepEqual(await Promise.all(waits), [135, 135, 135]);
  const finishedOnly = stopStep(2);
  assert.deepEqual(await Promise.all([finishedOnly.arrive(1400, true), finishedOnly.arrive(1400, true)]), [0, 0]);
  const failing = stopStep(2);
  const waiting = failing.arrive(50);
  failing.fail(new Error('worker 1 failed'));
  await assert.rejects(waiting, /worker 1 failed/);
});
