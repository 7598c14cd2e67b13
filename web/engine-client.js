// The page's side of the engine worker (worker.js; its header describes the messages).
// Requests go to the worker one at a time, in order. Each request belongs to a lane; a new
// request replaces the one still waiting in its lane, whose promise then rejects with
// Superseded, so that typing never queues stale computations behind a long one.
// Besides the playground's own requests (compute, view, walkthrough, memory, export), any
// page can run an engine function with request('call', {method, args}), for example
// request('call', {method: 'rollout', args: [{n: 64}]}).

export class Superseded extends Error {
  constructor(type) {
    super(`${type} request superseded by a newer one`);
    this.name = 'Superseded';
  }
}

/** Starts the worker: {ready: Promise<{version}>, request(type, payload, {lane, onProgress})}. */
export function createEngineClient() {
  const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
  const waiting = [];     // [{type, payload, lane, onProgress, resolve, reject}]
  let running = null;     // the request the worker is working on, with its id
  let nextId = 1;
  let failure = null;     // an Error once the worker cannot answer any more

  let settleReady;
  const ready = new Promise((resolve, reject) => { settleReady = { resolve, reject }; });

  function fail(error) {
    failure = error;
    settleReady.reject(error);
    for (const request of [running, ...waiting.splice(0)]) request?.reject(error);
    running = null;
  }

  function sendNext() {
    if (running || waiting.length === 0 || failure) return;
    running = { ...waiting.shift(), id: nextId++ };
    worker.postMessage({ id: running.id, type: running.type, payload: running.payload });
  }

  worker.addEventListener('message', ({ data }) => {
    if (data.status === 'ready') return settleReady.resolve({ version: data.version });
    if (data.status === 'failed') return fail(new Error(`the engine failed to load: ${data.message}`));
    if (!running || data.id !== running.id) return undefined;
    if (data.status === 'progress') return running.onProgress?.(data.phase);
    const { resolve, reject } = running;
    running = null;
    if (data.status === 'ok') resolve(data.value);
    else reject(new Error(data.message));
    return sendNext();
  });
  worker.addEventListener('error', (event) => {
    event.preventDefault();
    fail(new Error(`the engine worker stopped: ${event.message || 'its script did not load'}`));
  });
  worker.addEventListener('messageerror', () => fail(new Error('a message from the engine worker could not be read')));

  function request(type, payload, { lane = type, onProgress } = {}) {
    if (failure) return Promise.reject(failure);
    return new Promise((resolve, reject) => {
      const queued = waiting.findIndex((r) => r.lane === lane);
      if (queued >= 0) waiting.splice(queued, 1)[0].reject(new Superseded(type));
      waiting.push({ type, payload, lane, onProgress, resolve, reject });
      sendNext();
    });
  }

  return { ready, request };
}
