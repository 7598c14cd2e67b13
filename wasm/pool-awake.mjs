// Keeping a pool worker's thread awake for a few milliseconds after each answer (pool-worker.mjs),
// as onnxruntime's threads spin after each call: on a virtual machine a thread that sleeps
// even a millisecond wakes slowly, up to milliseconds after a message arrives. Measured on the
// 2-core Intel host, one worker and the caller, bursts of 5 calls after idle, medians of calls
// 2 to 5: n = 1,024 took 8.3 ms with the worker asleep between calls (1.13× the one-thread
// engine), 4.8–5.1 ms with it awake for 2, 5, 10 or 30 ms (0.64–0.70×; a port posting to itself).
//
// keepAwake() → {awake(ms)}: awake(ms) keeps this thread's event loop turning for `ms`
// milliseconds from now, answering every message (the pool's next request) as it arrives; one
// loop at a time, however often it is called.
// In Node by setImmediate, whose pending callbacks make the loop poll without waiting; in
// browsers by a message the thread posts to itself, each a task of its own. (Node runs a port's
// messages in batches: a port posting to itself held the pool's request back, 0.6–0.75 ms
// against 0.3 with setImmediate.) Measured with setImmediate: 4.8–5.2 ms.
export function keepAwake() {
  let until = 0;
  let turning = false;  // a loop is running (its next turn is queued)
  let turn;
  if (typeof setImmediate === 'function') {
    turn = () => {
      turning = performance.now() < until;
      if (turning) setImmediate(turn);
    };
  } else {
    turn = () => {
      const channel = new MessageChannel();
      channel.port2.onmessage = () => {
        turning = performance.now() < until;
        if (turning) channel.port1.postMessage(null);
        else channel.port2.close();
      };
      turning = true;
      channel.port1.postMessage(null);
    };
  }
  return {
    awake(ms) {
      until = performance.now() + ms;
      if (!turning) turn();
    },
  };
}
