// A stage of the compute pipeline that remembers its last result by key: asked again for the
// same key, it answers from memory, or shares the run still in progress, instead of asking
// the worker again.

/** Returns run(key, work): work() → Promise is called only when `key` is neither done nor running. */
export function createStage() {
  let done = null;
  let running = null;
  return (key, work) => {
    if (done?.key === key) return Promise.resolve(done.value);
    if (running?.key === key) return running.promise;
    done = null;
    const promise = work().then((value) => {
      if (running?.promise === promise) {
        done = { key, value };
        running = null;
      }
      return value;
    }, (error) => {
      if (running?.promise === promise) running = null;
      throw error;
    });
    running = { key, promise };
    return promise;
  };
}
