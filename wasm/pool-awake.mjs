// Keeping a pool worker's thread awake for a few milliseconds after each answer (pool-worker.mjs),
// as onnxruntime's threads spin after each call, and a pool's threads while a call is expected
// (pool.wake): on a virtual machine a thread that sleeps even a millisecond wakes slowly, up to
// milliseconds after a message arrives, and then runs slowly. On the 2-core Intel host (one
// worker and the caller, bursts of calls after idle) n = 1,024 took 8.3 ms with the worker asleep
// between calls, 1.13× the one-thread engine, and 4.8–5.2 ms with it awake.
//
// keepAwake() → {awake(ms), stop()}: awake(ms) keeps this thread's event loop turning until `ms`
// milliseconds from now, answering every message (the pool's next request) as it arrives; each
// call sets that time anew (an answer's few milliseconds end a longer wake: the call it was for
// has come), and stop() ends it at once; one loop at a time, however often they are called.
// In Node by setImmediate, whose pending callbacks make the loop poll without waiting (a port
// posting to itself would hold the pool's request back: Node runs a port's messages in batches);
// in browsers by a message the thread posts to itself, each a task of its own.

// Runs `turn` again and again, each time on a new turn of the event loop, while it returns true.
function loopBySetImmediate(turn) {
  const next = () => {
    if (turn()) setImmediate(next);
  };
  next();
}

function loopByMessages(turn) {
  const channel = new MessageChannel();
  channel.port2.onmessage = () => {
    if (turn()) channel.port1.postMessage(null);
    else channel.port2.close();
  };
  channel.port1.postMessage(null);
}

export function keepAwake() {
  const loop = typeof setImmediate === 'function' ? loopBySetImmediate : loopByMessages;
  let until = 0;
  let turning = false;  // a loop is running (its next turn is queued)
  const turn = () => {
    turning = performance.now() < until;
    return turning;
  };
  return {
    awake(ms) {
      until = performance.now() + ms;
      if (turning) return;
      turning = true;
      loop(turn);
    },
    stop() {
      until = 0;
    },
  };
}
