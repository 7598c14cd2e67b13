// onnxruntime-web as a peer of the engine: its wasm backend with a given number of threads, in
// a worker thread of its own (ort_worker.mjs), running onnx_graph.mjs's opset-17 graph.
import { Worker } from 'node:worker_threads';
import { attentionGraph } from './onnx_graph.mjs';

// {threads, version, prepare, run, release, close}: `prepare(shape, q, k, v)` builds a session for
// attention of that shape ({n, heads, d, causal}) and sends it copies of the inputs
// (Float32Arrays, n×(H·d)); `run({keep})` resolves to {ms, context (with keep)}, the time
// measured inside the worker around one call as a caller pays it. `version` is
// onnxruntime-web's, known after the first prepare.
export async function createOrtPeer(threads) {
  const worker = new Worker(new URL('./ort_worker.mjs', import.meta.url), { workerData: { threads } });
  let pending = Promise.resolve();
  // One request at a time; the worker answers each in order.
  const ask = (request, expected) => {
    const answer = pending.then(() => new Promise((resolve, reject) => {
      const onError = (error) => reject(error);
      worker.once('error', onError);
      worker.once('message', (reply) => {
        worker.off('error', onError);
        if (reply.type === 'error') reject(new Error(`onnxruntime-web (${threads} threads): ${reply.message}`));
        else if (reply.type !== expected) reject(new Error(`onnxruntime-web worker answered ${reply.type}, expected ${expected}`));
        else resolve(reply);
      });
      worker.postMessage(request);
    }));
    pending = answer.catch(() => {});
    return answer;
  };
  const peer = {
    threads,
    version: null,
    async prepare(shape, q, k, v) {
      const { threads: running, version } = await ask({
        type: 'prepare', graph: attentionGraph(shape), n: shape.n, width: shape.heads * shape.d,
        q: q.slice(), k: k.slice(), v: v.slice(),
      }, 'prepared');
      if (running !== threads) throw new Error(`onnxruntime-web runs ${running} threads, not ${threads}`);
      peer.version = version;
    },
    run: ({ keep = false } = {}) => ask({ type: 'run', keep }, 'ran'),
    release: () => ask({ type: 'release' }, 'released'),
    close: () => worker.terminate(),
  };
  return peer;
}
