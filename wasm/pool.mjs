// The engine on several workers (see README "API"): `await createAttentionPool({workers: 2})`
// starts that many workers (Web Workers in browsers, worker_threads in Node), each with its
// own engine and wasm memory: no SharedArrayBuffer, so no cross-origin isolation. A call is
// split into parts (the core's `part` option, attention.hpp AttentionPart) as its work affords:
// one per worker or fewer, and one more on the caller's own thread with callerPart (by default
// on a worker's thread with a core of its own); a call too small to split runs on the caller's
// thread alone (onnxruntime runs small work, and a share of large work, on its calling thread
// the same way). By heads when it has at least as many heads as parts (and no wo, which mixes
// them), else by blocks of query rows with about equal work. Each worker computes its part with
// every input, which gives exactly the whole call's numbers, and the parts are joined in order;
// an attention call split by heads sends each worker only its heads' columns of q, k and v, as a
// call of those heads, where that gives the same numbers (sliceHeads below).
import { attentionArguments, reuseOption, selfAttentionArguments } from './attention-arguments.mjs';
import { describe, fail, requireCount, requireKnownKeys, requireWholeNumber } from './arguments.mjs';
import createAttention from './engine.mjs';

// The most workers a pool starts.
const MAX_WORKERS = 256;
// The kernels' blocks of query rows (core/include/attn/kernels.hpp kFlashTileRows): row
// parts begin on them, so that no block is computed in two parts.
const ROW_BLOCK = 64;
// Where the kernel 'auto' stops materialising (attention.hpp kMaterializedBudgetBytes): the
// bytes of every head's scores and weights.
const MATERIALIZED_BUDGET_BYTES = 2 ** 30;
const FLOAT_BYTES = 4;
// The cost of a row beyond its visible keys, in keys' work: its fixed work, and per key of
// the row the passes a materialised row makes over all of them (bias, mask, normalisation).
const ROW_COST = 16;
const MATERIALIZED_KEY_COST = 1 / 32;
// The least work a part of a call is given by default, in multiply-adds of q·kᵀ and weights·v
// (a visible query and key pair costs dh + dvh of them per head): about half a millisecond on
// one core here, what a message to a worker and back costs (README "The engine on several
// workers"). A call with less than two parts' worth runs on the caller's thread (a worker would
// compute it whole, no sooner, and the message would cost about a part), a larger one on as
// many workers as it has parts' worth, at most all of them.
const SPLIT_FROM = 2 ** 23;

const inNode = typeof process === 'object' && typeof process.versions?.node === 'string';

// The machine's cores (logical processors).
async function machineCores() {
  return inNode ? (await import('node:os')).availableParallelism() : globalThis.navigator?.hardwareConcurrency ?? 1;
}

// Whether this thread is a worker's (a Web Worker, a Node worker thread), which a part computed
// here blocks without blocking a page or a program's main event loop.
async function onWorkerThread() {
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
async function workerStarter(url) {
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
class WorkerStopped extends Error {}

// Worker `index` of a pool: starts it (and starts another when it stops), sends requests and
// settles them. ready resolves once its engine has loaded.
function createSlot(index, start) {
  let worker = null;
  let ready = null;
  let memoryBytes = 0;
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
        if (data.ready !== undefined) {
          loaded = true;
          memoryBytes = data.memoryBytes;
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
  }

  function answer({ id, value, error, memoryBytes: bytes }) {
    const request = pending.get(id);
    if (!request) return;
    pending.delete(id);
    if (bytes !== undefined) memoryBytes = bytes;
    if (pending.size === 0) worker.keepAlive(false);
    if (error !== undefined) request.reject(new Error(error));
    else request.resolve(value);
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
    start: launch,
    // Resolves to the worker's answer to {call, args}; `transfer` lists buffers handed over.
    request(call, args, transfer = []) {
      if (!worker) launch();
      const id = nextId++;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        worker.keepAlive(true);
        try {
          worker.post({ id, call, args }, transfer);
        } catch (error) {
          pending.delete(id);
          reject(new Error(`the call could not be sent to a pool worker: ${error.message}`));
        }
      });
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

// ---- splitting a call into parts -------------------------------------------------------------

// The number of keys query `row` of n sees among m (core/src/mask.cpp visible_keys): the
// work of its row.
function visibleKeys({ causal = false, window = 0, sinks = 0, prefix = 0 }, row, n, m) {
  const clamp = (key) => Math.min(Math.max(key, 0), m);
  const position = row + m - n;
  const width = Math.min(window, n + m);
  const causalEnd = causal ? clamp(position < prefix ? prefix : position + 1) : m;
  if (width <= 0) return causalEnd;
  const bandBegin = clamp(position - width + 1);
  const bandEnd = Math.max(bandBegin, causal ? causalEnd : clamp(position + width));
  const sinkEnd = Math.min(sinks, causalEnd);
  return bandEnd - bandBegin + Math.max(0, Math.min(sinkEnd, bandBegin));
}

// [0, c1, …, n]: `count` blocks of rows with about equal work (visible[i]: the keys row i of
// n sees among m; under a causal mask the later rows see more), cut at multiples of ROW_BLOCK
// when there are enough rows.
function rowCuts(visible, m, count, materialized) {
  const n = visible.length;
  const costs = new Float64Array(n + 1);  // costs[i]: the work of rows [0, i)
  for (let row = 0; row < n; ++row) {
    costs[row + 1] = costs[row] + visible[row] + ROW_COST + (materialized ? m * MATERIALIZED_KEY_COST : 0);
  }
  const block = n >= count * ROW_BLOCK ? ROW_BLOCK : 1;
  const cuts = [0];
  let row = 0;
  for (let piece = 1; piece < count; ++piece) {
    const target = (costs[n] * piece) / count;
    while (row < n && costs[row] < target) ++row;
    const cut = Math.min(n, Math.round(row / block) * block);
    if (cut > cuts.at(-1) && cut < n) cuts.push(cut);
  }
  cuts.push(n);
  return cuts;
}

// [[h0, h1], …]: `count` runs of heads, their sizes differing by at most one.
function headGroups(heads, count) {
  return Array.from({ length: count }, (_, g) => [Math.floor((g * heads) / count), Math.floor(((g + 1) * heads) / count)]);
}

// The bytes of every head's scores and weights (attention.hpp materialized_bytes).
function materializedBytes(n, m, heads) {
  return 2 * heads * n * m * FLOAT_BYTES;
}

// The kernel the engine runs for a call of `heads` heads of n queries over m keys
// (attention.hpp choose_kernel): 'auto' materialises while every head's scores and weights fit
// the budget.
function kernelUsed(kernel = 'auto', n, m, heads) {
  if (kernel !== 'auto') return kernel;
  return materializedBytes(n, m, heads) <= MATERIALIZED_BUDGET_BYTES ? 'materialized' : 'flash';
}

// How a call of n queries over m keys with `heads` heads (and `kvHeads` key/value heads) of
// keyWidth columns of q and k and valueWidth of v is split over at most `workers` workers and,
// with `callerPart`, the caller's thread (its part is then the last), one part per splitFrom
// multiply-adds of q·kᵀ and weights·v (its visible query and key pairs times keyWidth +
// valueWidth per head; 0: every thread): {by: 'caller'} (less than two parts' worth, or shapes
// that do not fit, whose error the engine gives, when the pool has an engine on the caller's
// thread: `onCaller`; with callerPart, also a call that cannot be split), {by: 'whole'} (one
// worker, no part), {by: 'heads', parts: [{heads: [h0, h1]}], kvRanges: [[g0, g1]]} (the
// key/value heads each part reads) or {by: 'rows', parts: [{rows: [i0, i1]}]} (every head).
// `options`: the call's, checked; mixesHeads: an output projection needs every head in each
// part. Exported for the tests.
export function splitCall({
  n, m, heads, kvHeads = heads, keyWidth, valueWidth, options, workers, mixesHeads, splitFrom = SPLIT_FROM, onCaller = true,
  callerPart = false,
}) {
  const visible = Float64Array.from({ length: n }, (_, row) => visibleKeys(options, row, n, m));
  const work = visible.reduce((pairs, keys) => pairs + keys, 0) * heads * (keyWidth + valueWidth);
  // NaN where a width is (the call's shapes do not fit): for the engine's error
  const small = splitFrom > 0 && !(work >= 2 * splitFrom);
  if (small) return { by: onCaller ? 'caller' : 'whole' };
  // a call that cannot be split: on the caller's thread when it computes parts, else on a worker
  const unsplit = { by: callerPart ? 'caller' : 'whole' };
  const threads = workers + (callerPart ? 1 : 0);
  if (threads === 1 || options.part !== undefined) return unsplit;
  const count = splitFrom === 0 ? threads : Math.min(threads, Math.floor(work / splitFrom));
  if (heads >= count && !mixesHeads) {
    const ranges = headGroups(heads, count);
    return {
      by: 'heads',
      parts: ranges.map((range) => ({ heads: range })),
      kvRanges: ranges.map((range) => keyValueHeads(range, heads, kvHeads)),
    };
  }
  const cuts = rowCuts(visible, m, Math.min(count, n), kernelUsed(options.kernel, n, m, heads) === 'materialized');
  if (cuts.length === 2) return unsplit;
  return { by: 'rows', parts: cuts.slice(1).map((end, p) => ({ rows: [cuts[p], end] })) };
}

// Columns [first, first + count) of a matrix, as a matrix of their own.
function columns({ rows, cols, data }, first, count) {
  const out = new Float32Array(rows * count);
  for (let row = 0; row < rows; ++row) out.set(data.subarray(row * cols + first, row * cols + first + count), row * count);
  return { rows, cols: count, data: out };
}

// For an attention call split by heads, a function of a part's index that gives the part as a
// call of its own heads alone, {q, k, v, options}: q holding the part's heads' columns, k and v
// those of the key/value heads they read, so that a worker copies and carries 1/parts of the
// inputs instead of all of them (each part is cut when it is sent, so that the first worker
// starts while the next part is cut). null when that would not give the whole call's numbers or
// errors, and the parts then take every input with `part`: when the shapes do not fit (the
// whole call's error is wanted), a part's heads are not whole groups of the key/value heads
// they read, ALiBi's slopes are the defaults (they depend on every head's count) or a
// materialising call is beyond the budget a part would fit. `call` as attentionArguments
// returns it. Exported for the tests.
export function sliceHeads(call, split) {
  const { q, k, v, options } = call;
  const heads = options.heads ?? 1, kvHeads = options.kvHeads ?? heads;
  if (split.by !== 'heads' || heads % kvHeads !== 0 || q.cols % heads !== 0 || v.cols % kvHeads !== 0) return null;
  const dh = q.cols / heads, dvh = v.cols / kvHeads, group = heads / kvHeads;
  if (k.cols !== kvHeads * dh || k.rows !== v.rows) return null;
  if (split.parts.some(({ heads: [h0, h1] }) => h0 % group !== 0 || h1 % group !== 0)) return null;
  const { positional } = options;
  if (positional?.type === 'alibi' && positional.slopes?.length !== heads) return null;
  const kernel = kernelUsed(options.kernel, q.rows, k.rows, heads);
  if (kernel === 'materialized' && materializedBytes(q.rows, k.rows, heads) > MATERIALIZED_BUDGET_BYTES) return null;
  return (p) => {
    const [h0, h1] = split.parts[p].heads, [g0, g1] = split.kvRanges[p];
    return {
      q: columns(q, h0 * dh, (h1 - h0) * dh), k: columns(k, g0 * dh, (g1 - g0) * dh), v: columns(v, g0 * dvh, (g1 - g0) * dvh),
      options: {
        ...options, kernel, heads: h1 - h0, kvHeads: options.kvHeads === undefined ? undefined : g1 - g0,
        positional: positional?.type === 'alibi' ? { ...positional, slopes: positional.slopes.slice(h0, h1) } : positional,
      },
    };
  };
}

// ---- joining the parts ----------------------------------------------------------------------

// `into` when it is a Float32Array of `length` values, else a new one.
function destination(into, length) {
  return into instanceof Float32Array && into.length === length ? into : new Float32Array(length);
}

// Matrices of equal rows side by side.
function joinColumns(matrices, into) {
  const rows = matrices[0].rows;
  const cols = matrices.reduce((sum, matrix) => sum + matrix.cols, 0);
  const data = destination(into, rows * cols);
  let first = 0;
  for (const matrix of matrices) {
    for (let row = 0; row < rows; ++row) {
      data.set(matrix.data.subarray(row * matrix.cols, (row + 1) * matrix.cols), row * cols + first);
    }
    first += matrix.cols;
  }
  return { rows, cols, data };
}

// Matrices of equal columns one under the other.
function joinRows(matrices, into) {
  const cols = matrices[0].cols;
  const rows = matrices.reduce((sum, matrix) => sum + matrix.rows, 0);
  const data = destination(into, rows * cols);
  let offset = 0;
  for (const matrix of matrices) {
    data.set(matrix.data, offset);
    offset += matrix.data.length;
  }
  return { rows, cols, data };
}

// The key/value heads [g0, g1) that query heads [h0, h1) of `heads` read when there are
// `kvHeads` of them: ⌊h·kvHeads/heads⌋ for each (core/src/attention_part.hpp kv_head_of).
function keyValueHeads([h0, h1], heads, kvHeads) {
  return [Math.floor((h0 * kvHeads) / heads), Math.floor(((h1 - 1) * kvHeads) / heads) + 1];
}

// A split by heads' k (or v) from its parts' matrices: each part holds the columns of the
// key/value heads its query heads read, and neighbouring parts may share one (more query heads
// than key/value heads in a group), taken once, from the first part that has it.
function joinKeyValueColumns(split, matrices, into) {
  const taken = [];
  let next = 0;  // the first key/value head not yet taken
  matrices.forEach((matrix, p) => {
    const [g0, g1] = split.kvRanges[p];
    const width = matrix.cols / (g1 - g0);
    const skip = Math.max(0, next - g0) * width;
    if (skip < matrix.cols) taken.push(skip === 0 ? matrix : columns(matrix, skip, matrix.cols - skip));
    next = Math.max(next, g1);
  });
  return joinColumns(taken, into);
}

// The whole call's result from its parts' results, in order; `reuse` as reuseOption gives it.
function join(split, results, reuse) {
  if (split.by === 'whole') return results[0];
  const [first] = results;
  const joined = { kernel: first.kernel };
  if (split.by === 'heads') {
    const joinMatrices = (name) => joinColumns(results.map((result) => result[name]), reuse[name]);
    joined.scores = first.scores && results.flatMap((result) => result.scores);
    joined.weights = first.weights && results.flatMap((result) => result.weights);
    joined.context = joinMatrices('context');
    const joinKeyValues = (name) => joinKeyValueColumns(split, results.map((result) => result[name]), reuse[name]);
    if (first.q) Object.assign(joined, { q: joinMatrices('q'), k: joinKeyValues('k'), v: joinKeyValues('v'), output: joinMatrices('output') });
  } else {
    const joinMatrices = (name) => joinRows(results.map((result) => result[name]), reuse[name]);
    const joinHeads = (name) => first[name] && first[name].map((_, h) => joinRows(results.map((result) => result[name][h]), reuse[name][h]));
    joined.scores = joinHeads('scores');
    joined.weights = joinHeads('weights');
    joined.context = joinMatrices('context');
    // Every part computes all of k and v.
    if (first.q) Object.assign(joined, { q: joinMatrices('q'), k: first.k, v: first.v, output: joinMatrices('output') });
  }
  return joined;
}

// ---- the pool ----------------------------------------------------------------------------------

// An object without its undefined fields (a worker's engine would read a key with an
// undefined value as an unknown option).
function defined(object) {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined));
}

// The options a worker's engine is given: what the caller gave, checked and converted.
function workerOptions(options) {
  const { part, positional, ...rest } = options;
  return defined({ ...rest, positional: positional && defined(positional), part: part && defined(part) });
}

// Whether a Float32Array may be handed to a worker: it is alone in its buffer.
function transferable(array) {
  return array instanceof Float32Array && array.byteOffset === 0 && array.byteLength > 0 &&
    array.byteLength === array.buffer.byteLength && !(typeof SharedArrayBuffer === 'function' && array.buffer instanceof SharedArrayBuffer);
}

// The previous result's arrays a part writes into, as the reuse option of its worker's call,
// and their buffers, handed over (transferred) to the worker: each head's scores and weights
// of a split by heads, or all of them for a call on one worker. `handed` holds the buffers
// given to earlier parts, so that none goes twice.
function partReuse(by, part, reuse, handed) {
  const transfer = [];
  const take = (array) => {
    if (!transferable(array) || handed.has(array.buffer)) return null;
    handed.add(array.buffer);
    transfer.push(array.buffer);
    return { data: array };
  };
  const heads = (arrays) => (by === 'rows' ? [] : arrays.slice(...(part?.heads ?? [0, arrays.length])).map(take));
  const own = (name) => (by === 'whole' ? take(reuse[name]) : null);
  return {
    reuse: {
      scores: heads(reuse.scores), weights: heads(reuse.weights),
      context: own('context'), q: own('q'), k: own('k'), v: own('v'), output: own('output'),
    },
    transfer,
  };
}

// The engine on the caller's thread that calls of less than two parts' worth run on: the one
// given, a new one when none is (owned: the pool's own), none with null.
async function callerEngine(engine) {
  if (engine === undefined) return { here: await createAttention(), owned: true };
  if (engine === null) return { here: null, owned: false };
  if (typeof engine?.attention !== 'function' || typeof engine.selfAttention !== 'function') {
    fail(`engine must be an engine of createAttention() or null, got ${describe(engine)}`);
  }
  return { here: engine, owned: false };
}

// Whether the caller's thread computes a part of each split call: `callerPart` as asked, else
// when it has an engine (`engine` is not null), a core of its own (fewer `workers` than `cores`;
// sharing a worker's core, its part would finish last) and is a worker's thread (`workerThread`:
// a page's main thread would not answer input meanwhile, a program's main thread not serve its
// event loop). Exported for the tests.
export function resolveCallerPart({ callerPart, engine, workers, cores, workerThread }) {
  if (callerPart === undefined) return engine !== null && workers < cores && workerThread;
  if (typeof callerPart !== 'boolean') fail(`callerPart must be true or false, got ${describe(callerPart)}`);
  if (callerPart && engine === null) fail('callerPart must be false when engine is null: the caller\'s thread has no engine');
  return callerPart;
}

/**
 * Starts `workers` workers (default: the machine's cores − 1, at least 1), each with its own
 * engine. `workerURL` is where pool-worker.mjs is (by default beside this module); `engine`,
 * the engine of the caller's thread that calls of less than two parts' worth run on (by
 * default one the pool loads; null: every call goes to a worker); `callerPart`, whether that
 * engine also computes a part of each split call beside the workers, as onnxruntime's calling
 * thread does (default: on a worker's thread, a Web Worker or a Node worker thread, when there
 * are fewer workers than cores).
 */
export async function createAttentionPool(options = {}) {
  requireKnownKeys('createAttentionPool options', options, ['workers', 'workerURL', 'splitFrom', 'engine', 'callerPart']);
  const cores = await machineCores();
  // by default cores − 1, at least 1: with the caller's thread, one thread per core
  const count = options.workers === undefined ? Math.max(1, cores - 1) : requireCount('workers', options.workers, 1);
  if (count > MAX_WORKERS) fail(`workers must be a whole number from 1 to ${MAX_WORKERS}, got ${count}`);
  const splitFrom = options.splitFrom === undefined ? SPLIT_FROM : requireWholeNumber('splitFrom', options.splitFrom, 0);
  const url = options.workerURL ?? new URL('./pool-worker.mjs', import.meta.url);
  if (!(url instanceof URL) && typeof url !== 'string') fail(`workerURL must be a URL or a string, got ${typeof url}`);
  const callerPart = resolveCallerPart({
    callerPart: options.callerPart, engine: options.engine, workers: count, cores, workerThread: await onWorkerThread(),
  });
  const { here, owned } = await callerEngine(options.engine);
  const start = await workerStarter(url);
  const slots = Array.from({ length: count }, (_, index) => createSlot(index, start));
  slots.forEach((slot) => slot.start());
  let version;
  try {
    [version] = await Promise.all(slots.map((slot) => slot.ready));
  } catch (error) {
    await Promise.all(slots.map((slot) => slot.close(error)));
    throw new Error(`the attention pool could not start: ${error.message}`);
  }
  let closed = false;
  let closedError = null;  // what the calls under way at close() fail with

  // The caller's engine's answer to a call, as a promise.
  function computeHere(call, args) {
    try {
      return Promise.resolve(here[call](...args));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  // Sends each part to its worker (args(part, reused, p): the worker's arguments for part p and
  // the previous result's arrays it writes into; transfers(args): buffers of those arguments
  // to hand over), computes the last part on the caller's thread with callerPart
  // (callerArgs(part, reused, p): its arguments, by default args'), once the others are sent, and
  // joins the answers. When parts fail with different messages (an overflow in two heads, say),
  // or parts computed alone fail at all (their messages would count their own heads and
  // columns), the whole call runs on one worker for the error the engine gives; once the pool is
  // closed, the call fails with the error that says so.
  async function run(call, args, split, reuse, { transfers = () => [], alone = false, callerArgs = args } = {}) {
    const handed = new Set();
    const parts = split.by === 'whole' ? [undefined] : split.parts;
    const callerIndex = callerPart && split.by !== 'whole' ? parts.length - 1 : -1;
    const requests = parts.map((part, p) => {
      const given = partReuse(split.by, part, reuse, handed);
      if (p === callerIndex) return computeHere(call, callerArgs(part, given.reuse, p));
      const partArgs = args(part, given.reuse, p);
      return slots[p].request(call, partArgs, [...given.transfer, ...transfers(partArgs)]);
    });
    const settled = await Promise.allSettled(requests);
    const failures = settled.filter((outcome) => outcome.status === 'rejected').map((outcome) => outcome.reason);
    if (failures.length === 0) return join(split, settled.map((outcome) => outcome.value), reuse);
    const stopped = failures.find((error) => error instanceof WorkerStopped);
    if (stopped) throw new Error(stopped.message);
    if (closedError) throw closedError;
    if (split.by === 'whole' || (!alone && new Set(failures.map((error) => error.message)).size === 1)) throw failures[0];
    return slots[0].request(call, args(undefined, null));
  }

  function requireOpen() {
    if (closed) fail('the attention pool is closed; start another with createAttentionPool');
  }

  async function attention(q, k, v, options = {}) {
    requireOpen();
    const call = attentionArguments(q, k, v, options);
    const reuse = reuseOption(options.reuse);
    const heads = call.options.heads ?? 1;
    const split = splitCall({
      n: call.q.rows, m: call.k.rows, heads, kvHeads: call.options.kvHeads, keyWidth: call.q.cols / heads,
      valueWidth: call.v.cols / (call.options.kvHeads ?? heads), options: call.options, workers: count, mixesHeads: false, splitFrom,
      onCaller: here !== null, callerPart,
    });
    if (split.by === 'caller') return here.attention(call.q, call.k, call.v, options);
    const base = workerOptions(call.options);
    const whole = (part, reused) => [call.q, call.k, call.v, { ...base, ...(part && { part }), reuse: reused }];
    const slicePart = sliceHeads(call, split);
    if (slicePart === null) return run('attention', whole, split, reuse);
    const sliced = (part, reused, p) => {
      if (part === undefined) return whole(part, reused);  // the whole call again, for its error
      const { q: qPart, k: kPart, v: vPart, options: partOptions } = slicePart(p);
      return [qPart, kPart, vPart, { ...workerOptions(partOptions), reuse: reused }];
    };
    // the caller's engine reads its heads' columns in place: no cut
    return run('attention', sliced, split, reuse,
      { transfers: (partArgs) => partArgs.slice(0, 3).map((matrix) => matrix.data.buffer), alone: true, callerArgs: whole });
  }

  async function selfAttention(x, options = {}) {
    requireOpen();
    const call = selfAttentionArguments(x, options);
    const reuse = reuseOption(options.reuse);
    const heads = call.options.heads ?? 1;
    const widthOf = (weight) => (weight ?? call.x).cols;  // of q, k or v: x·weight, or x itself
    const split = splitCall({
      n: call.x.rows, m: call.x.rows, heads, kvHeads: call.options.kvHeads, keyWidth: widthOf(call.weights.wq) / heads,
      valueWidth: widthOf(call.weights.wv) / (call.options.kvHeads ?? heads), options: call.options, workers: count,
      mixesHeads: call.weights.wo !== null, splitFrom, onCaller: here !== null, callerPart,
    });
    if (split.by === 'caller') return here.selfAttention(call.x, options);
    const weights = Object.fromEntries(Object.entries(call.weights).filter(([, weight]) => weight !== null));
    const base = { ...workerOptions(call.options), ...weights };
    return run('selfAttention', (part, reused) => [call.x, { ...base, ...(part && { part }), reuse: reused }], split, reuse);
  }

  return Object.freeze({
    workers: count,
    callerPart,
    version,
    /**
     * Bytes of wasm memory the workers' engines held after their last answers, in all, and the
     * caller's thread's engine when the pool loaded it.
     */
    get memoryBytes() { return slots.reduce((sum, slot) => sum + slot.memoryBytes, owned ? here.memoryBytes : 0); },
    attention,
    selfAttention,
    async close() {
      if (closed) return;
      closed = true;
      closedError = new Error('the attention pool was closed before the call finished');
      await Promise.all(slots.map((slot) => slot.close(closedError)));
    },
  });
}
