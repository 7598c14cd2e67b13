// The engine's warm-up (createAttention's warmUp option, on by default): its hot kernels run on
// small inputs before any call of the caller's. V8 (Chromium and Node) compiles wasm with its
// baseline tier first, and a function with its optimising tier only after the function has run
// for a while, for its next calls. A kernel computes a head in one invocation, so a first large
// call ran in baseline code from start to end: a 4,096-token materialised head took 785 ms in
// Chromium and 824 in Node, against 360 and 347 after the warm-up (and 290 steady), flash at
// n = 4,096 298 ms against 105. Tokens 10 at a time were too few to warm them; 64 are enough.

// Calls of each kind: the optimising tier's budget is spent within five in Chromium and Node.
export const WARM_UP_ROUNDS = 5;
const TOKENS = 64;       // the materialised self-attention's and the pooling's
const WIDTH = 32;        // its input and projected widths: 2 heads of 16
const HEADS = 2;
const FLASH_KEYS = 128;  // two of the flash kernel's key tiles, so that it rescales a running row
const FLASH_WIDTH = 64;
const BLOCK = 2;

// rows×cols values in [-0.5, 0.5) from a fixed linear congruential sequence.
function matrix(rows, cols, seed) {
  const data = new Float32Array(rows * cols);
  let state = seed;
  for (let i = 0; i < data.length; ++i) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    data[i] = state / 2 ** 32 - 0.5;
  }
  return { rows, cols, data };
}

/**
 * Runs `engine`'s hot kernels WARM_UP_ROUNDS times each, unmasked and causal: self-attention
 * with projections (materialised), attention in the flash kernel, and block pooling of a head.
 * Returns the milliseconds it took. The engine keeps no state between calls, so nothing it
 * computes later differs (tests/js/warm-up.test.mjs).
 */
export function warmUp(engine) {
  const started = performance.now();
  const x = matrix(TOKENS, WIDTH, 1);
  const [wq, wk, wv] = [2, 3, 4].map((seed) => matrix(WIDTH, WIDTH, seed));
  const [q, k, v] = [5, 6, 7].map((seed) => matrix(FLASH_KEYS, FLASH_WIDTH, seed));
  for (let round = 0; round < WARM_UP_ROUNDS; ++round) {
    const causal = round % 2 === 1;
    const { scores, weights } = engine.selfAttention(x, { heads: HEADS, wq, wk, wv, causal, kernel: 'materialized' });
    engine.attention(q, k, v, { causal, kernel: 'flash' });
    engine.poolBlocks({
      scores: scores[0].data, weights: weights[0].data, stride: TOKENS, rows: TOKENS, cols: TOKENS, block: BLOCK,
      mode: causal ? 'mean' : 'max',
    });
  }
  return performance.now() - started;
}
