// The page's side of the engine protocol (web/shared/worker/client.js), shared by the playground and
// the lab, against a scripted worker in Node: one request at a time and in order, a newer
// request replacing the one waiting in its lane, progress, ready and failure.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Superseded, createWorkerClient } from '../../web/shared/worker/client.js';

// A Worker stand-in: records what the page posts, and answers when the test says so.
class ScriptedWorker extends EventTarget {
  posted = [];

  postMessage(message) {
    this.posted.push(message);
  }

  answer(data) {
    this.dispatchEvent(new MessageEvent('message', { data }));
  }

  crash(message) {
    const event = new Event('error', { cancelable: true });
    event.message = message;
    this.dispatchEvent(event);
  }
}

// Lets pending promise callbacks run.
const settled = () => new Promise((resolve) => { setImmediate(resolve); });

// The state of a promise without waiting for it: 'pending', {value} or {error}.
function watch(promise) {
  const seen = { state: 'pending' };
  promise.then((value) => Object.assign(seen, { state: 'resolved', value }),
    (error) => Object.assign(seen, { state: 'rejected', error }));
  return seen;
}

describe('worker client', () => {
  test('ready resolves with the engine version and build', async () => {
    const worker = new ScriptedWorker();
    const client = createWorkerClient(worker);
    worker.answer({ status: 'ready', version: '9.9.9', simd: 'relaxed-simd' });
    assert.deepEqual(await client.ready, { version: '9.9.9', simd: 'relaxed-simd' });
  });

  test('requests go to the worker one at a time, in order, and resolve to {value, milliseconds}', async () => {
    const worker = new ScriptedWorker();
    const client = createWorkerClient(worker);
    const first = watch(client.request('compute', { n: 1 }));
    const second = watch(client.request('view', { n: 2 }));
    assert.deepEqual(worker.posted, [{ id: 1, type: 'compute', payload: { n: 1 } }], 'the second waits for the first');
    worker.answer({ id: 1, status: 'ok', value: 'one', milliseconds: 3 });
    await settled();
    assert.deepEqual(first, { state: 'resolved', value: { value: 'one', milliseconds: 3 } });
    assert.deepEqual(worker.posted.at(-1), { id: 2, type: 'view', payload: { n: 2 } });
    worker.answer({ id: 2, status: 'ok', value: 'two', milliseconds: 4 });
    await settled();
    assert.deepEqual(second.value, { value: 'two', milliseconds: 4 });
  });

  test('a new request replaces the one waiting in its lane, which rejects with Superseded', async () => {
    const worker = new ScriptedWorker();
    const client = createWorkerClient(worker);
    const running = watch(client.request('compute', { text: 'a' }));
    const stale = watch(client.request('compute', { text: 'ab' }));
    const other = watch(client.request('view', {}, { lane: 'lines' }));
    const newest = watch(client.request('compute', { text: 'abc' }));
    await settled();
    assert.equal(stale.state, 'rejected');
    assert.ok(stale.error instanceof Superseded, String(stale.error));
    assert.equal(running.state, 'pending', 'the running request is never replaced');
    worker.answer({ id: 1, status: 'ok', value: 'a', milliseconds: 1 });
    await settled();
    worker.answer({ id: 2, status: 'ok', value: 'lines', milliseconds: 1 });
    await settled();
    assert.deepEqual(worker.posted.map((m) => m.payload), [{ text: 'a' }, {}, { text: 'abc' }],
      'the other lane keeps its place; the newest takes the replaced one\'s lane');
    worker.answer({ id: 3, status: 'ok', value: 'abc', milliseconds: 1 });
    await settled();
    assert.deepEqual([running.value.value, other.value.value, newest.value.value], ['a', 'lines', 'abc']);
  });

  test('progress reaches the running request, and an error answer rejects it with the worker\'s message', async () => {
    const worker = new ScriptedWorker();
    const client = createWorkerClient(worker);
    const phases = [];
    const failing = watch(client.request('compute', {}, { onProgress: (phase) => phases.push(phase) }));
    const next = watch(client.request('memory', {}));
    worker.answer({ id: 1, status: 'progress', phase: 'projections' });
    worker.answer({ id: 1, status: 'progress', phase: 'attention' });
    worker.answer({ id: 7, status: 'progress', phase: 'not ours' });
    worker.answer({ id: 1, status: 'error', message: 'k has 4 columns but q has 3' });
    await settled();
    assert.deepEqual(phases, ['projections', 'attention']);
    assert.equal(failing.state, 'rejected');
    assert.equal(failing.error.message, 'k has 4 columns but q has 3');
    assert.equal(worker.posted.at(-1).type, 'memory', 'the next request is sent after an error');
    assert.equal(next.state, 'pending');
  });

  test('an engine that fails to load rejects ready, the requests waiting and every later one', async () => {
    const worker = new ScriptedWorker();
    const client = createWorkerClient(worker);
    const ready = watch(client.ready);
    const running = watch(client.request('compute', {}));
    const waiting = watch(client.request('view', {}));
    worker.answer({ status: 'failed', message: 'attention_core.wasm: 404' });
    await settled();
    for (const seen of [ready, running, waiting]) {
      assert.equal(seen.state, 'rejected');
      assert.equal(seen.error.message, 'the engine failed to load: attention_core.wasm: 404');
    }
    await assert.rejects(client.request('memory', {}), /the engine failed to load/);
    assert.equal(worker.posted.length, 1, 'nothing more is posted to a failed worker');
  });

  test('a worker that stops (an error event) fails the client with its message', async () => {
    const worker = new ScriptedWorker();
    const client = createWorkerClient(worker);
    const running = watch(client.request('compute', {}));
    worker.crash('out of memory');
    await settled();
    assert.equal(running.error.message, 'the engine worker stopped: out of memory');
    await assert.rejects(client.ready, /the engine worker stopped: out of memory/);
  });
});

describe('workers that must run one build (sameBuildAs)', () => {
  // A first worker and a second that must run its build, both scripted.
  function pair() {
    const [firstWorker, secondWorker] = [new ScriptedWorker(), new ScriptedWorker()];
    const first = createWorkerClient(firstWorker);
    const second = createWorkerClient(secondWorker, { sameBuildAs: first.ready });
    return { firstWorker, secondWorker, first, second };
  }

  test('the same build: ready once both are, and requests wait until then', async () => {
    const { firstWorker, secondWorker, second } = pair();
    const ready = watch(second.ready);
    const request = watch(second.request('compute', { n: 1 }));
    secondWorker.answer({ status: 'ready', version: '9.9.9', simd: 'simd128' });
    await settled();
    assert.equal(ready.state, 'pending', 'the first worker\'s build is not known yet');
    assert.deepEqual(secondWorker.posted, [], 'nothing is sent before');
    firstWorker.answer({ status: 'ready', version: '9.9.9', simd: 'simd128' });
    await settled();
    assert.deepEqual(ready.value, { version: '9.9.9', simd: 'simd128' });
    assert.deepEqual(secondWorker.posted, [{ id: 1, type: 'compute', payload: { n: 1 } }]);
    secondWorker.answer({ id: 1, status: 'ok', value: 'one', milliseconds: 2 });
    await settled();
    assert.deepEqual(request.value, { value: 'one', milliseconds: 2 });
  });

  test('another build: the worker fails, naming both, and its requests reject unsent', async () => {
    const { firstWorker, secondWorker, second } = pair();
    const request = watch(second.request('compute', {}));
    firstWorker.answer({ status: 'ready', version: '9.9.9', simd: 'relaxed-simd' });
    secondWorker.answer({ status: 'ready', version: '9.9.9', simd: 'simd128' });
    await settled();
    const message = 'the engine worker runs the SIMD128 build and the page\'s first the relaxed-SIMD one: their numbers would round differently';
    await assert.rejects(second.ready, { message });
    assert.equal(request.error.message, message);
    await assert.rejects(second.request('view', {}), { message });
    assert.deepEqual(secondWorker.posted, [], 'nothing was sent to it');
  });

  test('a first worker that failed leaves the second to start on its own build', async () => {
    const { firstWorker, secondWorker, second } = pair();
    firstWorker.answer({ status: 'failed', message: 'attention_core.wasm: 404' });
    secondWorker.answer({ status: 'ready', version: '9.9.9', simd: 'simd128' });
    assert.deepEqual(await second.ready, { version: '9.9.9', simd: 'simd128' });
  });
});
