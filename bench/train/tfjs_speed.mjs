// Times the TensorFlow.js training step (tfjs_transformer.mjs) on the default run:
// retrieval with 16 pairs of 32 keys and 32 values (T = 34, vocabulary 67, 32 outputs), batch
// 64, 2 layers, dModel 32, 2 heads, no MLP, RoPE. Batches are drawn before timing; each step is
// timed alone, after a warm-up, and the median reported.
//
//   node bench/train/tfjs_speed.mjs [--steps 50] [--warmup 20] [--memory-steps 0]
//
// --memory-steps n: afterwards, n more steps with tf.memory() read before and after them.
// Prints one JSON object.
import { parseArgs } from 'node:util';
import { createTfjsTransformer, loadTensorFlow, parameterLayout } from './tfjs_transformer.mjs';
import { randomGenerator, randomParameters, retrievalBatch, retrievalVocabulary } from './retrieval.mjs';

const TASK = { pairs: 16, keys: 32, values: 32 };
const MODEL = {
  vocab: retrievalVocabulary(TASK), outputs: TASK.values, layers: 2, dModel: 32, heads: 2, mlp: false,
  positional: { type: 'rope' }, maxLength: 512,
};
const BATCH = 64;
const LEARNING_RATE = 1e-2;
const SEED = 1;
const DISTINCT_BATCHES = 64;  // drawn up front and cycled

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const round = (x) => Math.round(x * 1000) / 1000;

async function main() {
  const { values: options } = parseArgs({
    options: {
      steps: { type: 'string', default: '50' },
      warmup: { type: 'string', default: '20' },
      'memory-steps': { type: 'string', default: '0' },
    },
  });
  const steps = Number(options.steps), warmup = Number(options.warmup);
  const memorySteps = Number(options['memory-steps']);
  const tf = await loadTensorFlow();
  const random = randomGenerator(SEED);
  const parameters = randomParameters(parameterLayout(MODEL), random);
  const batches = Array.from({ length: DISTINCT_BATCHES }, () => retrievalBatch(random, TASK, BATCH));
  const model = await createTfjsTransformer(MODEL, parameters);
  let next = 0;
  const step = () => model.step(batches[next++ % batches.length], LEARNING_RATE);

  for (let i = 0; i < warmup; ++i) step();
  const milliseconds = [];
  let loss = 0;
  for (let i = 0; i < steps; ++i) {
    const start = performance.now();
    loss = step();
    milliseconds.push(performance.now() - start);
  }
  const result = {
    peer: 'TensorFlow.js',
    version: tf.version_core,
    backend: tf.getBackend(),
    simd: await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT'),
    threads: await tf.env().getAsync('WASM_HAS_MULTITHREAD_SUPPORT'),
    task: TASK,
    model: MODEL,
    batch: BATCH,
    warmup,
    steps,
    msPerStep: {
      median: round(median(milliseconds)),
      mean: round(milliseconds.reduce((sum, x) => sum + x, 0) / steps),
      min: round(Math.min(...milliseconds)),
      max: round(Math.max(...milliseconds)),
    },
    lastLoss: round(loss),
  };
  if (memorySteps > 0) {
    // tf.memory()'s tensors and bytes, and the size of the wasm backend's heap
    const memory = () => {
      const { numTensors, numDataBuffers, numBytes } = tf.memory();
      return { numTensors, numDataBuffers, numBytes, wasmHeapBytes: tf.backend().wasm.HEAPU8.length };
    };
    const before = memory();
    for (let i = 0; i < memorySteps; ++i) step();
    result.memory = { steps: memorySteps, before, after: memory() };
  }
  model.dispose();
  console.log(JSON.stringify(result, null, 2));
}

await main();
