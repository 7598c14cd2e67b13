// One onnxruntime-web instance with its wasm backend and `workerData.threads` threads, in a
// worker thread of its own: onnxruntime-web reads env.wasm.numThreads once, when it first starts
// its wasm, so each thread count of the benchmark needs its own instance. ort_peer.mjs drives it.
//
// Messages in → out:
//   {type: 'prepare', graph, n, width, q, k, v}  → {type: 'prepared', threads, version}
//                                                  a session for the graph, the inputs to run it on
//   {type: 'run', keep}                          → {type: 'ran', ms, context (when keep)}
//   {type: 'release'}                            → {type: 'released'}
// A failure answers {type: 'error', message}.
// 'run' times what a caller pays: the inputs wrapped as tensors, session.run (which copies them
// into ORT's wasm memory), and the n×width context read back into a Float32Array.
import { createRequire } from 'node:module';
import { dirname, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parentPort, workerData } from 'node:worker_threads';
import * as ort from 'onnxruntime-web';

// Nothing is fetched: the wasm and its glue come from node_modules (the glue reads the .wasm
// with fs in Node); a fetch would be a regression, so it fails loudly.
globalThis.fetch = async (url) => {
  throw new Error(`onnxruntime-web tried to fetch ${url}; the benchmark loads it from node_modules only`);
};

const folder = dirname(createRequire(import.meta.url).resolve('onnxruntime-web')) + sep;
ort.env.wasm.wasmPaths = pathToFileURL(folder).href;
ort.env.wasm.numThreads = workerData.threads;
ort.env.wasm.simd = true;

let session = null;
let inputs = null;

async function prepare({ graph, n, width, q, k, v }) {
  await session?.release();
  session = await ort.InferenceSession.create(graph, {
    executionProviders: ['wasm'], graphOptimizationLevel: 'all',
  });
  inputs = { n, width, q, k, v };
}

async function run({ keep }) {
  const { n, width, q, k, v } = inputs;
  const start = performance.now();
  const feeds = {
    q: new ort.Tensor('float32', q, [n, width]),
    k: new ort.Tensor('float32', k, [n, width]),
    v: new ort.Tensor('float32', v, [n, width]),
  };
  const { context } = await session.run(feeds);
  const data = context.data;  // a Float32Array that ORT copied out of its wasm memory
  const ms = performance.now() - start;
  return keep ? { ms, context: data } : { ms };
}

parentPort.on('message', async (request) => {
  try {
    if (request.type === 'prepare') {
      await prepare(request);
      parentPort.postMessage({ type: 'prepared', threads: ort.env.wasm.numThreads, version: ort.env.versions.web });
    } else if (request.type === 'run') {
      parentPort.postMessage({ type: 'ran', ...(await run(request)) });
    } else if (request.type === 'release') {
      await session?.release();
      session = null;
      inputs = null;
      parentPort.postMessage({ type: 'released' });
    } else {
      throw new Error(`unknown request type '${request.type}'`);
    }
  } catch (error) {
    parentPort.postMessage({ type: 'error', message: error.stack ?? String(error) });
  }
});
