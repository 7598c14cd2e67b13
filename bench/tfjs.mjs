// TensorFlow.js for the benchmark's peers (train/tfjs_transformer.mjs, attention/peers/): its
// wasm backend, with the .wasm binaries read from node_modules (nothing is fetched), and its
// gradients registered for training.
import * as tf from '@tensorflow/tfjs-core';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import { createRequire, register } from 'node:module';
import { dirname, sep } from 'node:path';

let backendReady = null;

// Selects TF.js's wasm backend and registers TF.js's gradients. Resolves to the tf namespace;
// safe to call more than once.
export function loadTensorFlow() {
  backendReady ??= (async () => {
    // The package's main file is dist/tf-backend-wasm.node.js, beside its .wasm binaries. In
    // Node the emscripten glue reads the path it is given with fs.
    const require = createRequire(import.meta.url);
    const folder = dirname(require.resolve('@tensorflow/tfjs-backend-wasm')) + sep;
    setWasmPaths(folder);
    if (!(await tf.setBackend('wasm'))) {
      throw new Error(`TensorFlow.js could not start its wasm backend from ${folder}`);
    }
    // tfjs-core's Node build has no gradients; its register_all_gradients.js adds them to the
    // registry that every copy of tfjs-core shares, once Node can resolve its imports.
    register('./tfjs_gradients_hook.mjs', import.meta.url);
    await import('@tensorflow/tfjs-core/dist/register_all_gradients.js');
    return tf;
  })();
  return backendReady;
}
