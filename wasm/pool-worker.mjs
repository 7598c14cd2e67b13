// One worker of the attention pool (pool.mjs): its own engine, answering the pool's requests
// one at a time. A Web Worker in browsers, a worker_threads Worker in Node.
//
// Messages: the pool first posts {load: options}, the options of the worker's engine
// (createAttention's: the pool's build); the worker loads it and answers {ready: version, simd,
// memoryBytes, memoryInUseBytes} or {failed: message}. Then the pool posts {id, call:
// 'attention' | 'selfAttention', args, returnInputs}; the worker answers {id, value, inputs,
// memoryBytes, memoryInUseBytes} or {id, error, memoryBytes, memoryInUseBytes} (its engine's,
// as they are after the call; without them when the engine has not loaded). The result's arrays
// are transferred, not copied; inputs, with returnInputs, are the arrays of q, k and v it was
// handed, handed back for the pool to write the next call's part into (null for one it keeps),
// and [] without. The pool's {wake: ms} keeps the worker awake that long (pool.wake),
// unanswered.
import createAttention from './engine.mjs';
import { transferable } from './pool-arrays.mjs';
import { keepAwake } from './pool-awake.mjs';

// How long the worker stays awake after an answer (pool-awake.mjs): long enough for the next
// call of a burst to find it awake, short enough to cost little when none comes.
const AWAKE_MS = 5;

const CALLS = ['attention', 'selfAttention'];

// The distinct buffers of a result's matrices, handed over to the pool without a copy.
function buffersOf(result) {
  const matrices = [...(result.scores ?? []), ...(result.weights ?? []), result.context,
    result.q, result.k, result.v, result.output];
  return [...new Set(matrices.filter(Boolean).map((matrix) => matrix.data.buffer))];
}

// The arrays of a call's q, k and v (its first three arguments) that go back to the pool, in
// that order: each alone in its buffer (as the pool hands them over) and not already in the
// answer, else null.
function returnedInputs(args, answerBuffers) {
  const taken = new Set(answerBuffers);
  return args.slice(0, 3).map(({ data }) => {
    if (!transferable(data) || taken.has(data.buffer)) return null;
    taken.add(data.buffer);
    return data;
  });
}

function serve(post) {
  const { awake } = keepAwake();
  let enginePromise;
  let loaded = null;  // the engine, once it has loaded
  return async ({ id, call, args, returnInputs, wake, load }) => {
    if (load !== undefined) {
      enginePromise = createAttention(load);
      enginePromise.then(
        (engine) => {
          loaded = engine;
          post({ ready: engine.version, simd: engine.simd, ...engine.memory });
        },
        (error) => post({ failed: error.message }),
      );
      return;
    }
    if (wake !== undefined) {
      awake(wake);
      return;
    }
    try {
      if (!enginePromise) throw new Error('a pool request came before {load}');
      const engine = await enginePromise;
      if (!CALLS.includes(call)) throw new Error(`unknown pool request '${call}'`);
      const value = engine[call](...args);
      const buffers = buffersOf(value);
      const inputs = returnInputs ? returnedInputs(args, buffers) : [];
      post({ id, value, inputs, ...engine.memory }, [...buffers, ...inputs.filter(Boolean).map((array) => array.buffer)]);
      awake(AWAKE_MS);
    } catch (error) {
      post({ id, error: error.message, ...loaded?.memory });
    }
  };
}

if (typeof WorkerGlobalScope !== 'undefined') {
  // A browser worker: listen before anything is awaited, so that no request is missed.
  const answer = serve((message, transfer) => self.postMessage(message, transfer));
  self.addEventListener('message', ({ data }) => answer(data));
} else {
  // Node (imported here, so that browsers never ask for it); the port keeps messages until
  // a listener is attached.
  const { parentPort } = await import('node:worker_threads');
  const answer = serve((message, transfer) => parentPort.postMessage(message, transfer));
  parentPort.on('message', answer);
}
