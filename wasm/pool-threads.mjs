// The pool's workers (pool.mjs): the machine's cores, whether this thread is a worker's, starting
// a worker (a Web Worker in browsers, a worker_threads Worker in Node) and keeping one per slot,
// replaced when it stops, its requests settled.

const inNode = typeof process === 'object' && typeof process.versions?.node === 'string';

// The machine's cores (logical processors).
export async function machineCores() {
  return inNode ? (await import('node:os')).availableParallelism() : globalThis.navigator?.hardwareConcurrency ?? 1;
}

// Whether this thread is a worker's (a Web Worker, a Node worker thread), which a part computed
// here blocks without blocking a page or a program's main event loop.
export async function onWorkerThread() {
  if (inNode) return !(await import('node:worker_threads')).isMainThread;
  return typeof globalThis.WorkerGlobalScope !== 'undefined';
}

// A Node worker inherits its parent's options, but refuses those of a script given on the
// command line (`node --input-type=module -e '…'`): without them, then, and with none at all
// when Node refuses what is left (V8 options such as --max-semi-space-size).
const EVAL_OPTIONS = ['--input-type', '-e', '--eval', '-p', '--print'];

function startNodeWorker(Worker, url) {
  const args = process.execArgv;
  if (!args.some((arg) => EVAL_OPTIONS.includes(arg.split('=')[0]))) return new Worker(url);
  const kept = args.filter((arg, i) => !EVAL_OPTIONS.includes(arg.split('=')[0]) &&
    !(EVAL_OPTIONS.includes(args[i - 1]) && !args[i - 1].includes('=')));
  try {
    return new Worker(url, { execArgv: kept });
  } catch (error) {
    if (error.code !== 'ERR_WORKER_INVALID_EXEC_ARGV') throw error;
    return new Worker(url, { execArgv: [] });
  }
}

// A function that starts a worker of `url` and reports to listeners.message(data) and
// listeners.stopped(reason): {post(message, transfer), terminate(), keepAlive(bool)}.
export async function workerStarter(url) {
  if (inNode) {
    const { Worker } = await import('node:worker_threads');
    return (listeners) => {
      const worker = startNodeWorker(Worker, url);
      let thrown = null;
      worker.on('message', listeners.message);
      worker.on('error', (error) => { thrown = error; });  // the worker then exits
      worker.on('messageerror', () => listeners.stopped('sent a message that could not be read'));
      worker.on('exit', (code) => listeners.stopped(thrown ? `threw: ${thrown.message}` : `exited with code ${code}`));
      return {
        post: (message, transfer) => worker.postMessage(message, transfer),
        terminate: () => worker.terminate(),
        // An idle pool does not keep Node running; one that computes does.
        keepAlive: (busy) => (busy ? worker.ref() : worker.unref()),
      };
    };
  }
  return (listeners) => {
    const worker = new Worker(url, { type: 'module' });
    worker.addEventListener('message', ({ data }) => listeners.message(data));
    worker.addEventListener('error', (event) => {
      event.preventDefault();
      listeners.stopped(event.message ? `threw: ${event.message}` : 'failed to load its script');
    });
    worker.addEventListener('messageerror', () => listeners.stopped('sent a message that could not be read'));
    return {
      post: (message, transfer) => worker.postMessage(message, transfer),
      terminate: () => worker.terminate(),
      keepAlive: () => {},
    };
  };
}

// An Error for calls a worker could not answer; the pool never retries them.
export class WorkerStopped extends Error {}

// Worker `index` of a pool: starts it (and starts another when it stops) with an engine of
// `engineOptions` (createAttention's), sends requests and settles them. ready resolves once
// its engine has loaded.
export function createSlot(index, start, engineOptions) {
  let worker = null;
  let ready = null;
  let memoryBytes = 0;
  let memoryInUseBytes = 0;
  let nextId = 1;
  const pending = new Map();  // id → {resolve, reject}

  function launch() {
    let settleReady;
    let loaded = false;
    ready = new Promise((resolve, reject) => { settleReady = { resolve, reject }; });
    ready.catch(() => {});  // a request sent meanwhile hears the failure too
    const started = start({
      message(data) {
        if (started !== worker) return;
        if (data.ready !== undefined && data.simd !== engineOptions.simd) {
          stop(`loaded the '${data.simd}' build, not the pool's '${engineOptions.simd}'`, settleReady, { restart: false });
        } else if (data.ready !== undefined) {
          loaded = true;
          ({ memoryBytes, memoryInUseBytes } = data);
          settleReady.resolve(data.ready);
          if (pending.size === 0) started.keepAlive(false);
        } else if (data.failed !== undefined) {
          stop(`could not load the engine: ${data.failed}`, settleReady, { restart: false });
        } else {
          answer(data);
        }
      },
      stopped(reason) {
        if (started === worker) stop(reason, settleReady, { restart: loaded });
      },
    });
    worker = started;
    worker.keepAlive(true);
    worker.post({ load: engineOptions }, []);
  }

  function answer({ id, value, inputs, error, memoryBytes: bytes, memoryInUseBytes: inUse }) {
    const request = pending.get(id);
    if (!request) return;
    pending.delete(id);
    if (bytes !== undefined) memoryBytes = bytes;
    if (inUse !== undefined) memoryInUseBytes = inUse;
    if (pending.size === 0) worker.keepAlive(false);
    if (error !== undefined) request.reject(new Error(error));
    else request.resolve({ value, inputs });
  }

  // The worker is gone: its requests fail, and a new worker takes its place (at once after
  // a crash; at the next request when it stopped before its engine had loaded, so that a page
  // whose engine or worker script cannot load does not start workers without end).
  function stop(reason, settleReady, { restart }) {
    const stopped = worker;
    worker = null;
    stopped.terminate();
    const error = new WorkerStopped(`attention pool worker ${index} ${reason}`);
    settleReady.reject(error);
    for (const request of pending.values()) request.reject(error);
    pending.clear();
    if (restart) launch();
  }

  return {
    get ready() { return ready; },
    get memoryBytes() { return memoryBytes; },
    get memoryInUseBytes() { return memoryInUseBytes; },
    start: launch,
    // Resolves to the worker's answer to {call, args}, {value, inputs}; `transfer` lists buffers
    // handed over; with returnInputs, inputs are the arrays of q, k and v handed over, handed
    // back (pool-worker.mjs).
    request(call, args, transfer = [], { returnInputs = false } = {}) {
      if (!worker) launch();
      const id = nextId++;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        worker.keepAlive(true);
        try {
          // A buffer already handed over (detached: no bytes) stays out of the transfer list, so
          // that the message fails to clone, an Error here: handed over, Node drops the message
          // without a word, and the call would never settle.
          worker.post({ id, call, args, ...(returnInputs && { returnInputs }) }, transfer.filter((buffer) => buffer.byteLength > 0));
        } catch (error) {
          pending.delete(id);
          reject(new Error(`the call could not be sent to a pool worker: ${error.message}`));
        }
      });
    },
    // Keeps the worker's thread awake for `ms` milliseconds (pool-worker.mjs); nothing to a
    // worker that is not running.
    wake(ms) {
      worker?.post({ wake: ms }, []);
    },
    // Stops the worker for good; its requests reject with `error`.
    async close(error) {
      const stopped = worker;
      worker = null;
      for (const request of pending.values()) request.reject(error);
      pending.clear();
      await stopped?.terminate();
    },
  };
}
