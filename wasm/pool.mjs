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
// call of those heads, where that gives the same numbers. The cutting is pool-split.mjs's, the
// joining pool-join.mjs's, the arrays handed to parts and kept between calls pool-arrays.mjs's,
// the workers pool-threads.mjs's (each running pool-worker.mjs).
import { attentionArguments, reuseOption, selfAttentionArguments } from './attention-arguments.mjs';
import { describe, fail, requireCount, requireKnownKeys, requireWholeNumber } from './arguments.mjs';
import createAttention, { SIMD_BUILDS, chooseSimd } from './engine.mjs';
import { keepAwake } from './pool-awake.mjs';
import { apartFromInputs, copied, offerRecycled, partReuse, rowArraysToKeep, rowViews, sparesToKeep } from './pool-arrays.mjs';
import { join, placePart } from './pool-join.mjs';
import { SPLIT_FROM, sliceHeads, splitCall } from './pool-split.mjs';
import { WorkerStopped, createSlot, machineCores, onWorkerThread, workerStarter } from './pool-threads.mjs';

// The matrices of selfAttention's projections, which its workers' parts are handed copies of
// (bo, a vector, is cloned with the options).
const PROJECTIONS = ['wq', 'wk', 'wv', 'wo'];
// The most workers a pool starts.
const MAX_WORKERS = 256;
// The longest pool.wake keeps the threads awake: enough for a page's typing pause to end.
const MAX_WAKE_MS = 1000;

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

// The option `engine`, checked: undefined, null, or an engine of createAttention() (its calls,
// and the build it runs).
function requireEngineOption(engine) {
  if (engine === undefined || engine === null) return;
  if (typeof engine?.attention !== 'function' || typeof engine.selfAttention !== 'function') {
    fail(`engine must be an engine of createAttention() or null, got ${describe(engine)}`);
  }
  if (!SIMD_BUILDS.includes(engine.simd)) {
    fail(`engine must be an engine of createAttention() or null, got one without a build (simd ${describe(engine.simd)})`);
  }
}

// The engine on the caller's thread that calls of less than two parts' worth run on: the one
// given, a new one of build `simd` when none is (owned: the pool's own; the best build that
// loads when `simd` is undefined), none with null.
async function callerEngine(engine, simd) {
  if (engine === undefined) return { here: await createAttention({ simd }), owned: true };
  return { here: engine, owned: false };
}

// The build every engine of the pool loads (createAttention's simd option), as far as the
// options decide it: the one asked for, else the given engine's, else undefined (the caller's
// engine, loaded then, decides). A given engine of another build is an error: its parts of a
// call would not round as the workers' do.
function poolSimd(simd, engine) {
  const engineSimd = engine?.simd;
  if (simd === undefined) return engineSimd;
  chooseSimd(simd);
  if (engineSimd !== undefined && engineSimd !== simd) {
    fail(`simd is '${simd}' but the given engine runs '${engineSimd}': a call's parts would round differently`);
  }
  return simd;
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
 * are fewer workers than cores); `simd`, the build every engine of the pool runs (by default
 * the given engine's, else the one its own engine loaded: createAttention's option).
 */
export async function createAttentionPool(options = {}) {
  requireKnownKeys('createAttentionPool options', options, ['workers', 'workerURL', 'splitFrom', 'engine', 'callerPart', 'simd']);
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
  requireEngineOption(options.engine);
  const asked = poolSimd(options.simd, options.engine);
  const { here, owned } = await callerEngine(options.engine, asked);
  // the caller's engine's build when the options left it open (the SIMD128 one where the relaxed
  // one did not load); with engine: null, the best build here
  const simd = asked ?? here?.simd ?? chooseSimd(undefined);
  const start = await workerStarter(url);
  const slots = Array.from({ length: count }, (_, index) => createSlot(index, start, { simd }));
  slots.forEach((slot) => slot.start());
  let version;
  try {
    [version] = await Promise.all(slots.map((slot) => slot.ready));
  } catch (error) {
    await Promise.all(slots.map((slot) => slot.close(error)));
    throw new Error(`the attention pool could not start: ${error.message}`);
  }
  let closedError = null;  // set by close(): what the calls under way then fail with
  // Per worker, the scores and weights arrays of its part of the last call sent to the workers,
  // when that call was split by rows and materialised: handed back to the worker as its next
  // part's reuse (the engine ignores arrays of another length). In Node a 4,096-token head on one worker and the
  // caller took 176 ms without (fresh 32 MiB arrays in the worker, and their first writes) and
  // 139 ms with it and the caller's rows written in place (the one-thread engine: 227).
  let recycled = [];
  // Per part of the last split attention call, {q, k, v, context}: the arrays a worker's inputs
  // were cut or copied into (handed back with its answer) and each part's context (the join has
  // copied it), which the same part of the next split attention call writes into (each where its
  // length fits). On one worker and the caller, in Node: 8 heads × 512 0.62 → 0.60× the
  // one-thread time (2 MiB a call no longer allocated), n = 1,024 0.64 → 0.61×.
  let spares = [];
  const callerAwake = callerPart ? keepAwake() : null;  // the caller's thread, awake while a call is expected
  let wokenUntil = 0;  // until when workers may be awake for a call (wake)
  // the threads the last call used, which wake wakes (all of them before a first call): workers
  // 0 to workers − 1, and the caller's thread with callerPart
  let lastUsed = { workers: count, caller: callerPart };

  // Sends each part to its worker (args(part, reused, p): the worker's arguments for part p and
  // the previous result's arrays it writes into; transfers(args): buffers of those arguments
  // to hand over), computes the last part on the caller's thread with callerPart
  // (callerArgs(part, reused, p): its arguments, by default args'; also the whole call's when
  // it runs again on one worker for its error), once the others are sent, and joins the
  // answers. With returnInputs each worker hands back the arrays of q, k and v it was given,
  // and keep(results, returned) gets every part's result and those arrays, by part, once the
  // call is joined. When parts fail with different messages (an overflow in two heads, say),
  // or parts computed alone fail at all (their messages would count their own heads and
  // columns), the whole call runs on one worker for the error the engine gives; once the pool is
  // closed, the call fails with the error that says so.
  async function run(call, args, split, reuse, {
    transfers = () => [], alone = false, callerArgs = args, returnInputs = false, keep = () => {},
  } = {}) {
    const handed = new Set();
    const returned = [];  // per worker's part, its inputs handed back (returnInputs)
    const parts = split.by === 'whole' ? [undefined] : split.parts;
    const callerIndex = callerPart && split.by !== 'whole' ? parts.length - 1 : -1;
    callUses(parts.length - (callerIndex >= 0 ? 1 : 0), callerIndex >= 0);
    const rows = split.by === 'rows';
    const offered = recycled;  // each worker's arrays go to this call or to none
    recycled = [];
    let placed = null;  // the caller's part's matrices, written into the joined ones while the workers compute
    const requests = parts.map((part, p) => {
      const given = partReuse(split.by, part, reuse, handed);
      if (p === callerIndex) {
        if (rows) {
          const n = parts.at(-1).rows[1];
          Object.assign(given.reuse, { scores: rowViews(reuse.scores, part.rows, n), weights: rowViews(reuse.weights, part.rows, n) });
        }
        let value;
        try {
          value = here[call](...callerArgs(part, given.reuse, p));
        } catch (error) {
          return Promise.reject(error);
        }
        if (split.by === 'heads') placed = placePart(split, p, value, reuse);
        return Promise.resolve(value);
      }
      if (rows) offerRecycled(offered[p], given);
      const partArgs = args(part, given.reuse, p);
      return slots[p].request(call, partArgs, [...given.transfer, ...transfers(partArgs)], { returnInputs })
        .then(({ value, inputs }) => {
          returned[p] = inputs;
          return value;
        });
    });
    const settled = await Promise.allSettled(requests);
    const failures = settled.filter((outcome) => outcome.status === 'rejected').map((outcome) => outcome.reason);
    if (failures.length === 0) {
      const results = settled.map((outcome) => outcome.value);
      const joined = join(split, results, reuse, placed);
      if (rows && !closedError) recycled = rowArraysToKeep(results.filter((_, p) => p !== callerIndex)) ?? recycled;
      keep(results, returned);
      return joined;
    }
    const stopped = failures.find((error) => error instanceof WorkerStopped);
    if (stopped) throw new Error(stopped.message);
    if (closedError) throw closedError;
    if (split.by === 'whole' || (!alone && new Set(failures.map((error) => error.message)).size === 1)) throw failures[0];
    // the whole call on one worker, with the caller's arguments: nothing copied, nothing handed over
    return (await slots[0].request(call, callerArgs(undefined, null))).value;
  }

  function requireOpen() {
    if (closedError) fail('the attention pool is closed; start another with createAttentionPool');
  }

  // The call that has come uses workers 0 … workers − 1 and, with `caller`, the caller's thread
  // (what a later wake wakes). The caller's thread stops turning (it computes or waits), and so
  // do the workers the call does not reach; the others stop with their answers.
  function callUses(workers, caller) {
    lastUsed = { workers, caller };
    callerAwake?.stop();
    if (performance.now() >= wokenUntil) return;
    wokenUntil = 0;
    slots.slice(workers).forEach((slot) => slot.wake(0));
  }

  async function attention(q, k, v, options = {}) {
    requireOpen();
    const call = attentionArguments(q, k, v, options);
    const reuse = apartFromInputs(reuseOption(options.reuse), [call.q, call.k, call.v]);
    const heads = call.options.heads ?? 1;
    const split = splitCall({
      n: call.q.rows, m: call.k.rows, heads, kvHeads: call.options.kvHeads, keyWidth: call.q.cols / heads,
      valueWidth: call.v.cols / (call.options.kvHeads ?? heads), options: call.options, workers: count, mixesHeads: false, splitFrom,
      onCaller: here !== null, callerPart,
    });
    if (split.by === 'caller') {
      callUses(0, true);
      return here.attention(call.q, call.k, call.v, options);
    }
    const base = workerOptions(call.options);
    const whole = (part, reused) => [call.q, call.k, call.v, { ...base, ...(part && { part }), reuse: reused }];
    if (split.by === 'whole') return run('attention', whole, split, reuse);
    // Each worker's part as a call of inputs of its own, which the worker hands back for the
    // same part of the next call to be written into (spares): its heads' columns of q, k and v
    // as a call of those heads (sliceHeads), else a copy of every input with `part`. Handed over,
    // they are copied once, not twice as a message copies them (out of this thread, into the
    // worker's).
    const slicePart = sliceHeads(call, split);
    const lastParts = spares;  // each part's arrays go to this call or to none
    spares = [];
    const withSpareContext = (reused, p) => (lastParts[p]?.context ? { ...reused, context: { data: lastParts[p].context } } : reused);
    const ownInputs = (part, reused, p) => {
      const into = lastParts[p] ?? {};
      if (slicePart === null) {
        const [qCopy, kCopy, vCopy] = [[call.q, into.q], [call.k, into.k], [call.v, into.v]].map(([matrix, array]) => copied(matrix, array));
        return [qCopy, kCopy, vCopy, { ...base, part, reuse: withSpareContext(reused, p) }];
      }
      const { q: qPart, k: kPart, v: vPart, options: partOptions } = slicePart(p, into);
      return [qPart, kPart, vPart, { ...workerOptions(partOptions), reuse: withSpareContext(reused, p) }];
    };
    return run('attention', ownInputs, split, reuse, {
      transfers: (partArgs) => [...partArgs.slice(0, 3), partArgs[3].reuse?.context].filter(Boolean).map((matrix) => matrix.data.buffer),
      // parts of their own heads fail with messages of their own heads and columns
      alone: slicePart !== null,
      // the caller's engine reads its heads' columns, or rows, in place: no copy
      callerArgs: (part, reused, p) => whole(part, withSpareContext(reused, p)),
      returnInputs: true,
      keep: (results, returned) => {
        if (!closedError) spares = sparesToKeep(results, returned) ?? spares;
      },
    });
  }

  async function selfAttention(x, options = {}) {
    requireOpen();
    const call = selfAttentionArguments(x, options);
    const reuse = apartFromInputs(reuseOption(options.reuse), [call.x, ...Object.values(call.weights)]);
    const heads = call.options.heads ?? 1;
    const widthOf = (weight) => (weight ?? call.x).cols;  // of q, k or v: x·weight, or x itself
    const split = splitCall({
      n: call.x.rows, m: call.x.rows, heads, kvHeads: call.options.kvHeads, keyWidth: widthOf(call.weights.wq) / heads,
      valueWidth: widthOf(call.weights.wv) / (call.options.kvHeads ?? heads), options: call.options, workers: count,
      mixesHeads: call.weights.wo !== null, splitFrom, onCaller: here !== null, callerPart,
    });
    if (split.by === 'caller') {
      callUses(0, true);
      return here.selfAttention(call.x, options);
    }
    const weights = Object.fromEntries(Object.entries(call.weights).filter(([, weight]) => weight !== null));
    const base = { ...workerOptions(call.options), ...weights };
    const inPlace = (part, reused) => [call.x, { ...base, ...(part && { part }), reuse: reused }];
    // A worker's part gets copies of x and the projections' matrices, handed over: Chromium
    // structured-clones a typed array at 300–500 MB/s, and x of 512 tokens × 100 took 0.4–0.6
    // ms to post (and about as long again to be read), a copy handed over 0.1.
    const handedOver = (part, reused) => {
      const [x, options] = inPlace(part, reused);
      const projections = PROJECTIONS.filter((name) => weights[name]).map((name) => [name, copied(weights[name])]);
      return [copied(x), { ...options, ...Object.fromEntries(projections) }];
    };
    return run('selfAttention', handedOver, split, reuse, {
      transfers: ([x, options]) => [x, ...PROJECTIONS.map((name) => options[name])].filter(Boolean).map((matrix) => matrix.data.buffer),
      callerArgs: inPlace,
    });
  }

  // The workers' engines' `name` (memoryBytes or memoryInUseBytes) after their last answers, in
  // all, and the caller's thread's engine's when the pool loaded it.
  const total = (name) => slots.reduce((sum, slot) => sum + slot[name], owned ? here[name] : 0);

  return Object.freeze({
    workers: count,
    callerPart,
    version,
    /** The build every engine of the pool runs: 'relaxed-simd' or 'simd128' (createAttention). */
    simd,
    /**
     * Bytes of wasm memory the workers' engines held after their last answers, in all, and the
     * caller's thread's engine when the pool loaded it.
     */
    get memoryBytes() { return total('memoryBytes'); },
    /**
     * Bytes of that memory the engines' allocations held after their last answers (engine's
     * memoryInUseBytes), in all: back where they were after calls that leave nothing behind.
     */
    get memoryInUseBytes() { return total('memoryInUseBytes'); },
    attention,
    selfAttention,
    /**
     * Keeps the threads the last call used (every one before a first call: the workers and,
     * with callerPart, the caller's) awake for the next `ms` milliseconds, or until the next
     * call, for a call expected within that time, likely of the same size: on the virtual
     * machines measured a thread that has slept starts late and runs slowly for several
     * milliseconds. Costs a core per thread meanwhile.
     */
    wake(ms) {
      requireOpen();
      if (typeof ms !== 'number' || !(ms >= 0 && ms <= MAX_WAKE_MS)) {
        fail(`wake's ms must be a number of milliseconds from 0 to ${MAX_WAKE_MS}, got ${describe(ms)}`);
      }
      wokenUntil = performance.now() + ms;
      slots.slice(0, lastUsed.workers).forEach((slot) => slot.wake(ms));
      if (lastUsed.caller) callerAwake?.awake(ms);
    },
    async close() {
      if (closedError) return;
      callerAwake?.stop();
      recycled = [];
      spares = [];
      closedError = new Error('the attention pool was closed before the call finished');
      await Promise.all(slots.map((slot) => slot.close(closedError)));
    },
  });
}
