// The page's side of a lab worker (web/lab-worker.js describes the messages). Requests go
// to the worker one at a time. Each belongs to a lane; a new request replaces the one still
// waiting in its lane, so a slider dragged across twenty values computes two or three of
// them, never a queue of stale ones. A replaced request's promise resolves to null.

/** Wraps a started Worker: {ready: Promise<{version}>, request(lane, type, payload)}. */
export function createLabClient(worker) {
  const waiting = [];  // [{lane, type, payload, resolve, reject}]
  let running = null;
  let nextId = 1;
  let failure = null;
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
    if ('ready' in data) {
      if (data.ready) settleReady.resolve({ version: data.version });
      else fail(new Error(`the engine failed to load: ${data.message}`));
      return;
    }
    if (!running || data.id !== running.id) return;
    const { resolve, reject } = running;
    running = null;
    if (data.ok) resolve({ value: data.value, milliseconds: data.milliseconds });
    else reject(new Error(data.message));
    sendNext();
  });
  worker.addEventListener('error', (event) => {
    event.preventDefault();
    fail(new Error(`the lab's engine worker stopped: ${event.message || 'its script did not load'}`));
  });

  function request(lane, type, payload) {
    if (failure) return Promise.reject(failure);
    return new Promise((resolve, reject) => {
      const queued = waiting.findIndex((r) => r.lane === lane);
      if (queued >= 0) waiting.splice(queued, 1)[0].resolve(null);
      waiting.push({ lane, type, payload, resolve, reject });
      sendNext();
    });
  }

  return { ready, request };
}
