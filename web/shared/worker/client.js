// The page's side of an engine worker (server.js is the other side), shared by the pages.
//
// Protocol: the page posts {id, type, payload}; the worker answers {id, status: 'progress',
// phase} any number of times, then {id, status: 'ok', value, milliseconds} (the handler's
// time in the worker) or {id, status: 'error', message}. Once at start it posts
// {status: 'ready', version, simd} or {status: 'failed', message}.
//
// Requests go to the worker one at a time, in order. Each belongs to a lane (by default its
// type); a new request replaces the one still waiting in its lane, whose promise then
// rejects with Superseded, so that typing or dragging a slider never queues stale
// computations behind a long one.

export class Superseded extends Error {
  constructor(type) {
    super(`${type} request superseded by a newer one`);
    this.name = 'Superseded';
  }
}

// The words a message uses for an engine's build (engine.simd).
const BUILD_NAMES = { 'relaxed-simd': 'relaxed-SIMD', simd128: 'SIMD128' };

/**
 * Wraps a started module Worker: {ready: Promise<{version, simd}>, request(type, payload, {lane,
 * onProgress, transfer})}, where request resolves to {value, milliseconds}, onProgress(phase)
 * hears the worker's progress messages, and transfer lists what the payload hands over (its
 * MessagePorts, say). Once the worker has failed, every request rejects. `sameBuildAs`, another
 * worker's ready: this worker fails unless its engine runs the same build, as the workers that
 * share a page's computations must (each loads the best build it can, and a worker whose
 * relaxed-SIMD build did not load runs the SIMD128 one, whose numbers round differently);
 * requests then wait until that is known.
 */
export function createWorkerClient(worker, { sameBuildAs } = {}) {
  const waiting = [];     // [{type, payload, lane, onProgress, transfer, resolve, reject}]
  let running = null;     // the request the worker is working on, with its id
  let nextId = 1;
  let failure = null;     // an Error once the worker cannot answer any more
  // whether requests may go to the worker: at once, or with sameBuildAs once its build is known to be the same
  let started = !sameBuildAs;

  let settleReady;
  const ready = new Promise((resolve, reject) => { settleReady = { resolve, reject }; });
  ready.catch(() => {});  // callers that never wait for ready still see the failure in request()

  function fail(error) {
    failure = error;
    settleReady.reject(error);
    for (const request of [running, ...waiting.splice(0)]) request?.reject(error);
    running = null;
  }

  function sendNext() {
    if (!started || running || waiting.length === 0 || failure) return;
    running = { ...waiting.shift(), id: nextId++ };
    worker.postMessage({ id: running.id, type: running.type, payload: running.payload }, running.transfer);
  }

  // The worker's engine has loaded: ready, unless its build is not sameBuildAs's.
  async function start(answer) {
    const wanted = sameBuildAs && await sameBuildAs.catch(() => null);
    if (failure) return;
    if (wanted && wanted.simd !== answer.simd) {
      fail(new Error(`the engine worker runs the ${BUILD_NAMES[answer.simd] ?? answer.simd} build and the page's first ` +
        `the ${BUILD_NAMES[wanted.simd] ?? wanted.simd} one: their numbers would round differently`));
      return;
    }
    started = true;
    settleReady.resolve(answer);
    sendNext();
  }

  worker.addEventListener('message', ({ data }) => {
    if (data.status === 'ready') return start({ version: data.version, simd: data.simd });
    if (data.status === 'failed') return fail(new Error(`the engine failed to load: ${data.message}`));
    if (!running || data.id !== running.id) return undefined;
    if (data.status === 'progress') return running.onProgress?.(data.phase);
    const { resolve, reject } = running;
    running = null;
    if (data.status === 'ok') resolve({ value: data.value, milliseconds: data.milliseconds });
    else reject(new Error(data.message));
    return sendNext();
  });
  worker.addEventListener('error', (event) => {
    event.preventDefault();
    fail(new Error(`the engine worker stopped: ${event.message || 'its script did not load'}`));
  });
  worker.addEventListener('messageerror', () => fail(new Error('a message from the engine worker could not be read')));

  function request(type, payload, { lane = type, onProgress, transfer = [] } = {}) {
    if (failure) return Promise.reject(failure);
    return new Promise((resolve, reject) => {
      const queued = waiting.findIndex((r) => r.lane === lane);
      if (queued >= 0) waiting.splice(queued, 1)[0].reject(new Superseded(type));
      waiting.push({ type, payload, lane, onProgress, transfer, resolve, reject });
      sendNext();
    });
  }

  return { ready, request };
}
