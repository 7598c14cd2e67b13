// The worker's side of the engine protocol (client.js describes it), shared by the pages'
// workers. The only module that imports the engine (by its source path; the build points
// the import at dist/wasm/attention.mjs, loaded at run time); a worker that computes on
// several workers starts them with createAttentionPool, passed on from here.
import createAttention from '../../../wasm/attention.mjs';

export { createAttentionPool } from '../../../wasm/attention.mjs';

/**
 * Loads the engine and answers requests with `handlers`: {type: (engine, payload,
 * progress(phase)) → value, or a promise of it}. `transfer[type](value)`, when given, lists the buffers of the
 * answer to hand over without a copy (they must be fresh: the worker loses them).
 */
export function serveEngine(handlers, { transfer = {} } = {}) {
  const enginePromise = createAttention();
  enginePromise.then(
    (engine) => self.postMessage({ status: 'ready', version: engine.version, simd: engine.simd }),
    (error) => self.postMessage({ status: 'failed', message: error.message }),
  );

  self.addEventListener('message', async ({ data: { id, type, payload } }) => {
    try {
      const engine = await enginePromise;
      const handler = handlers[type];
      if (!handler) throw new Error(`unknown request type '${type}'`);
      const started = performance.now();
      const value = await handler(engine, payload, (phase) => self.postMessage({ id, status: 'progress', phase }));
      const milliseconds = performance.now() - started;
      self.postMessage({ id, status: 'ok', value, milliseconds }, transfer[type]?.(value) ?? []);
    } catch (error) {
      self.postMessage({ id, status: 'error', message: error.message });
    }
  });
}
