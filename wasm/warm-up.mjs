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

/**
 * Runs `engine`'s hot kernels (its calls: these and torchGenerator, which draws the inputs)
 * WARM_UP_ROUNDS times each, unmasked and causal in turn:
 * self-attention with projections (materialised), attention in the flash kernel, and block
 * pooling of a head (by maxima, then by means).
 * Returns the milliseconds it took. The engine keeps no state between calls, so nothing it
 * computes later differs (tests/js/warm-up.test.mjs).
 */
export function warmUp(engine) {
  const started = performance.now();
  const generator = engine.torchGenerator(0);
  const x = generator.rand(TOKENS, WIDTH);
  const [wq, wk, wv] = [0, 1, 2].map(() => generator.rand(WIDTH, WIDTH));
  const q = generator.rand(FLASH_QUERIES, FLASH_WIDTH);
  const [k, v] = [0, 1].map(() => generator.rand(FLASH_KEYS, FLASH_WIDTH));
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
