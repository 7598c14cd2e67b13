// TensorFlow.js 4.22 as a peer of the engine: attention written with its ops on the wasm backend
// (XNNPACK, SIMD; one thread in Node, where its threaded build does not start), in this thread.
//
// Letters: n queries and keys, H heads, d one head's width; q, k and v are n×(H·d).
// Written the fastest way measured on this backend:
//   - k is transposed first and multiplied un-transposed: only a plain 2-D tf.matMul runs on
//     XNNPACK; tf.matMul(q, k, false, true) was 6–7× slower;
//   - heads are split into H 2-D products: a batched H×n×d product falls to a scalar loop
//     (8 heads × 512: 700 ms against 85 ms split);
//   - 1/√d scales q (n·d products), not the n×n scores;
//   - the causal mask (causal_mask.mjs) is an n×n tensor added to the scores, made once per
//     shape, as onnxruntime-web's graph holds it once.
import { getThreadsCount } from '@tensorflow/tfjs-backend-wasm';
import { loadTensorFlow } from '../../tfjs.mjs';
import { causalMask } from './causal_mask.mjs';

// {about, prepare, run, release, tensors}: `prepare(shape)` builds what a shape ({n, heads, d,
// causal}) keeps between calls; `run(q, k, v)` computes the context (a Float32Array n×(H·d))
// from Float32Arrays, copying them in and the result out as a caller pays it; `about` is
// {version, backend, simd, threads}; `tensors()` counts TF.js's live tensors.
export async function createTfjsPeer() {
  const tf = await loadTensorFlow();
  let shape = null;
  let mask = null;

  const attend = (q, k, v) => tf.tidy(() => {
    const { n, heads, d } = shape;
    const width = heads * d;
    const split = (x, axis) => (heads > 1 ? tf.split(x, heads, axis) : [x]);
    const qHeads = split(tf.mul(tf.tensor2d(q, [n, width]), 1 / Math.sqrt(d)), 1);  // H × n×d
    const kHeads = split(tf.transpose(tf.tensor2d(k, [n, width])), 0);             // H × d×n
    const vHeads = split(tf.tensor2d(v, [n, width]), 1);                            // H × n×d
    const contexts = qHeads.map((qh, h) => {
      const scores = tf.matMul(qh, kHeads[h]);                                     // n×n
      const weights = tf.softmax(mask ? tf.add(scores, mask) : scores);
      return tf.matMul(weights, vHeads[h]);                                        // n×d
    });
    return heads > 1 ? tf.concat(contexts, 1) : contexts[0];
  });

  return {
    about: {
      version: tf.version_core, backend: tf.getBackend(),
      simd: await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT'), threads: getThreadsCount(),
    },
    prepare(next) {
      mask?.dispose();
      shape = next;
      mask = null;
      if (shape.causal) {
        mask = tf.tensor2d(causalMask(shape.n), [shape.n, shape.n]);
      }
    },
    run(q, k, v) {
      const context = attend(q, k, v);
      const data = context.dataSync();
      context.dispose();
      return data;
    },
    release() {
      mask?.dispose();
      mask = null;
      shape = null;
    },
    tensors: () => tf.memory().numTensors,
  };
}
