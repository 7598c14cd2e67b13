// The engine's warm-up (createAttention's warmUp option, on by default): its hot kernels run on
// small inputs before any call of the caller's. V8 (Chromium and Node) compiles wasm with its
// baseline tier first, and a function with its optimising tier only after the function has run
// for a while, for its next calls. A kernel computes a head in one invocation, so a first large
// call ran in baseline code from start to end: a 4,096-token materialised head took 785 ms in
// Chromium and 730 in Node, against about 340 and 334 after the warm-up (about 275 steady);
// flash at n = 4,096 298 ms in Chromium against 100 (README "The first call: a warm-up").

// Calls of each kind. Five calls of 64 tokens warmed the materialised kernel as well as twenty
// of 256 (Chromium: a first 4,096-token head 373 and 369 ms); five of 10 tokens did not (788).
export const WARM_UP_ROUNDS = 5;
const TOKENS = 64;         // the materialised self-attention's queries and keys, and the pooled head's
const WIDTH = 32;          // its input and projected widths: 2 heads of 16, so that heads are sliced
const HEADS = 2;
const FLASH_QUERIES = 64;
const FLASH_KEYS = 640;    // two of the flash kernel's key tiles (kernels.hpp kFlashTileCols, 512),
                           // so that it rescales a running row as a long call does
const FLASH_WIDTH = 64;    // a head of 64, the width the kernels' register blocks are tuned for
const BLOCK = 2;           // blocks of 2 × 2 cells, the heatmap's at 512 tokens

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
 * Runs `engine`'s hot kernels WARM_UP_ROUNDS times each, unmasked and causal in turn:
 * self-attention with projections (materialised), attention in the flash kernel, and block
 * pooling of a head (by maxima, then by means).
 * Returns the milliseconds it took. The engine keeps no state between calls, so nothing it
 * computes later differs (tests/js/warm-up.test.mjs).
 */
export function warmUp(engine) {
  const started = performance.now();
  const x = matrix(TOKENS, WIDTH, 1);
  const [wq, wk, wv] = [2, 3, 4].map((seed) => matrix(WIDTH, WIDTH, seed));
  const q = matrix(FLASH_QUERIES, FLASH_WIDTH, 5);
  const [k, v] = [6, 7].map((seed) => matrix(FLASH_KEYS, FLASH_WIDTH, seed));
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
