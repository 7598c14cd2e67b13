// Keeping a pool worker's thread awake for a few milliseconds after each answer (pool-worker.mjs),
// as onnxruntime's threads spin after each call: on a virtual machine a thread that sleeps
// even a millisecond wakes slowly, up to milliseconds after a message arrives. Measured on the
// 2-core Intel host, one worker and the caller, bursts of 5 calls after 300 ms idle, medians of
// calls 2 to 5: n = 1,024 took 8.3 ms asleep (1.13× the one-thread engine), 4.8–5.1 ms awake
// for 2, 5, 10 or 30 ms (0.66–0.70×).
//
// keepAwake() → {awake(ms)}: awake(ms) keeps this thread's event loop turning for `ms`
// milliseconds from now, by a message it posts to itself again and again; every other message
// (the pool's next request) is answered in between, as soon as it arrives.
export function keepAwake() {
  const channel = new MessageChannel();
  let until = 0;
  channel.port2.onmessage = () => {
    if (performance.now() < until) channel.port1.postMessage(null);
  };
  // In Node, the loop's ports do not keep the thread alive by themselves.
  channel.port1.unref?.();
  channel.port2.unref?.();
  return {
    awake(ms) {
      const turning = performance.now() < until;
      until = performance.now() + ms;
      if (!turning) channel.port1.postMessage(null);
    },
  };
}
