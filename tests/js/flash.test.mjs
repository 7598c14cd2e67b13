// kernel 'flash' (tiled online softmax) against 'materialized' and the JS reference; 'auto'.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import createAttention from '../../dist/wasm/attention.mjs';
import {
  assertMatrixClose, attentionReference, mulberry32, pick, randomInt, randomMatrix, randomVector, toRows,
} from './reference.mjs';

const engine = await createAttention();
const TOL = { atol: 1e-5, rtol: 1e-5 };

// Shapes around and across the flash tiles (core/include/attn/kernels.hpp: 16 query rows by
// 512 keys), n ≠ m both ways: one key tile, a key past the first tile, and three
// tiles (with a window near the end and sinks at the start, the middle one is skipped).
const SHAPES = [[1, 1], [3, 5], [33, 65], [70, 150], [150, 70], [5, 200], [64, 64], [129, 31], [17, 513], [40, 1300],
  [530, 1030]];

function randomOptions(random, heads) {
  const options = { heads };
  if (random() < 0.5) options.causal = true;
  if (random() < 0.5) {
    options.window = randomInt(random, 1, 40);
    if (random() < 0.6) options.sinks = randomInt(random, 1, 6);
  }
  options.scale = pick(random, [true, false, 0.3]);
  const positional = pick(random, ['none', 'alibi', 'alibi-slopes', 'rope', 'rope-half']);
  if (positional === 'alibi') options.positional = { type: 'alibi' };
  if (positional === 'alibi-slopes') options.positional = { type: 'alibi', slopes: randomVector(random, heads, 0, 0.5) };
  if (positional === 'rope') options.positional = { type: 'rope' };
  if (positional === 'rope-half') options.positional = { type: 'rope', pairing: 'half', base: 1000 };
  return options;
}

test("'flash' equals 'materialized' and the reference on random shapes and options (softmax)", () => {
  const random = mulberry32(300);
  for (let round = 0; round < 3; ++round) {
    for (const [n, m] of SHAPES) {
      const heads = pick(random, [1, 2, 4]);
      const dh = 2 * randomInt(random, 1, 4), dvh = randomInt(random, 1, 3);
      const q = randomMatrix(random, n, heads * dh), k = randomMatrix(random, m, heads * dh);
      const v = randomMatrix(random, m, heads * dvh);
      const options = randomOptions(random, heads);
      const label = `n=${n} m=${m} ${JSON.stringify(options)}`;
      const flash = engine.attention(q, k, v, { ...options, kernel: 'flash' });
      const materialized = engine.attention(q, k, v, { ...options, kernel: 'materialized' });
      assert.equal(flash.kernel, 'flash');
      assert.equal(flash.scores, null, label);
      assert.equal(flash.weights, null, label);
      assert.ok(flash.context.data instanceof Float32Array);
      assertMatrixClose(flash.context, toRows(materialized.context), { ...TOL, label: `${label} flash vs materialized` });
      assertMatrixClose(flash.context, attentionReference(q, k, v, options).context, { ...TOL, label: `${label} flash vs reference` });
    }
  }
});

test("'flash' equals 'materialized' and the reference at head widths of whole packed panels and more", () => {
  // The flash kernel packs kᵀ and v in panels of 8 columns and reads v's columns after the last
  // whole panel in place: heads of 8, 32 and 64 (the page's and the trainer's), and 40 / 12.
  const random = mulberry32(304);
  for (const [dh, dvh] of [[8, 8], [32, 32], [64, 64], [40, 12]]) {
    for (const [n, m] of [[61, 135], [133, 70], [130, 259], [70, 1100]]) {
      const heads = pick(random, [1, 2]);
      const q = randomMatrix(random, n, heads * dh), k = randomMatrix(random, m, heads * dh);
      const v = randomMatrix(random, m, heads * dvh);
      const options = randomOptions(random, heads);
      const label = `dh=${dh} dvh=${dvh} n=${n} m=${m} ${JSON.stringify(options)}`;
      const flash = engine.attention(q, k, v, { ...options, kernel: 'flash' });
      const materialized = engine.attention(q, k, v, { ...options, kernel: 'materialized' });
      assertMatrixClose(flash.context, toRows(materialized.context), { ...TOL, label: `${label} flash vs materialized` });
      assertMatrixClose(flash.context, attentionReference(q, k, v, options).context, { ...TOL, label: `${label} flash vs reference` });
    }
  }
});

test("'flash' with the teaching normalisations equals 'materialized'", () => {
  const random = mulberry32(301);
  for (const [n, m] of SHAPES) {
    for (const normalization of ['naive-softmax', 'sum']) {
      const low = normalization === 'sum' ? 0.1 : -1;  // 'sum' needs a row total away from 0
      const q = randomMatrix(random, n, 4, low, 1), k = randomMatrix(random, m, 4, low, 1), v = randomMatrix(random, m, 2);
      const options = { normalization, heads: 2, causal: random() < 0.5 };
      const flash = engine.attention(q, k, v, { ...options, kernel: 'flash' });
      const materialized = engine.attention(q, k, v, { ...options, kernel: 'materialized' });
      const label = `${normalization} n=${n} m=${m} causal=${options.causal}`;
      assertMatrixClose(flash.context, toRows(materialized.context), { ...TOL, label });
      assertMatrixClose(flash.context, attentionReference(q, k, v, options).context, { ...TOL, label: `${label} vs reference` });
    }
  }
});

test("'flash' online softmax stays exact when a later tile holds a much larger score", () => {
  // Keys in the third 512-key tile carry large scores: the running maximum must rescale what
  // the first two tiles summed.
  const m = 1300, n = 3;
  const k = Array.from({ length: m }, (_, j) => [j >= 1030 ? 30 : 0.01 * j]);
  const q = [[1], [-1], [0.5]], v = Array.from({ length: m }, (_, j) => [j, -j]);
  const options = { scale: false };
  const flash = engine.attention(q, k, v, { ...options, kernel: 'flash' });
  assertMatrixClose(flash.context, attentionReference(q, k, v, options).context, { ...TOL, label: 'rescaled' });
});

test("'flash' gives zero rows, not NaN, for queries that see no key (causal, m < n)", () => {
  const random = mulberry32(302);
  const n = 100, m = 40;
  const q = randomMatrix(random, n, 4), k = randomMatrix(random, m, 4), v = randomMatrix(random, m, 2);
  const flash = engine.attention(q, k, v, { causal: true, kernel: 'flash' });
  assert.ok(flash.context.data.every(Number.isFinite), 'context has NaN');
  // Queries 0 … n−m−1 sit before key 0.
  for (let i = 0; i < n - m; ++i) assert.deepEqual(Array.from(flash.context.data.subarray(2 * i, 2 * i + 2), (x) => x + 0), [0, 0]);
  assertMatrixClose(flash.context, attentionReference(q, k, v, { causal: true }).context, { ...TOL, label: 'flash' });
});

test("'auto' materialises small inputs and returns scores and weights", () => {
  const random = mulberry32(303);
  const q = randomMatrix(random, 50, 4), k = randomMatrix(random, 80, 4), v = randomMatrix(random, 80, 3);
  const auto = engine.attention(q, k, v, { causal: true });
  assert.equal(auto.kernel, 'materialized');
  assert.equal(auto.scores.length, 1);
  assert.equal(auto.weights.length, 1);
  const explicit = engine.attention(q, k, v, { causal: true, kernel: 'auto' });
  assert.equal(explicit.kernel, 'materialized');
  assert.deepEqual(Array.from(explicit.context.data), Array.from(auto.context.data));
  const materialized = engine.attention(q, k, v, { causal: true, kernel: 'materialized' });
  assert.deepEqual(Array.from(materialized.weights[0].data), Array.from(auto.weights[0].data));
});

test("'auto' switches to flash when the n×m matrices would not fit in memory", () => {
  // 11586² scores and weights in float32 are just over 1 GiB. A causal window of one key
  // keeps the flash work small: each query sees only itself, so context = v.
  const n = 11586;
  const data = Float32Array.from({ length: n }, (_, i) => Math.fround(Math.sin(i)));
  const x = { rows: n, cols: 1, data };
  const result = engine.attention(x, x, x, { causal: true, window: 1 });
  assert.equal(result.kernel, 'flash');
  assert.equal(result.scores, null);
  assert.equal(result.weights, null);
  assert.equal(result.context.rows, n);
  for (let i = 0; i < n; i += 997) assert.equal(result.context.data[i], data[i], `context[${i}]`);
});

test("'flash' keeps no n×m matrix: a 6000×6000 call leaves the wasm heap far below 2·n·m·4 bytes",
  { skip: noMemoryBytes() }, () => {
    const n = 6000;
    const x = { rows: n, cols: 2, data: Float32Array.from({ length: 2 * n }, (_, i) => Math.fround(Math.cos(i))) };
    const result = engine.attention(x, x, x, { causal: true, kernel: 'flash' });
    assert.equal(result.context.rows, n);
    assert.ok(result.context.data.every(Number.isFinite));
    const materialized = 2 * n * n * 4;  // 288 MB of scores and weights
    assert.ok(engine.memoryBytes < materialized / 4, `wasm heap is ${engine.memoryBytes} bytes`);
  });

test("'materialized' copies each head out as it is computed: 16 heads of 1024² never sit in the wasm heap together",
  { skip: noMemoryBytes() }, async () => {
    const fresh = await createAttention();  // a heap no earlier test grew
    const n = 1024, heads = 16;
    const x = { rows: n, cols: heads * 4, data: Float32Array.from({ length: n * heads * 4 }, (_, i) => Math.fround(Math.sin(i))) };
    const result = fresh.attention(x, x, x, { heads, causal: true, kernel: 'materialized' });
    const allHeads = 2 * heads * n * n * 4;  // 128 MiB of scores and weights
    assert.ok(fresh.memoryBytes < allHeads / 4, `wasm heap is ${fresh.memoryBytes} bytes`);
    assert.equal(result.weights.length, heads);
    // the last head, handed over after every other, holds what a call of that head alone does
    const alone = fresh.attention(x, x, x, { heads, causal: true, kernel: 'materialized', part: { heads: [15, 16] } });
    assert.deepEqual(result.scores[15].data, alone.scores[0].data);
    assert.deepEqual(result.weights[15].data, alone.weights[0].data);
  });

function noMemoryBytes() {
  return typeof engine.memoryBytes !== 'number' && 'engine.memoryBytes is not available';
}
