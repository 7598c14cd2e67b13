// An independent JavaScript reference of attention for the engine's JS tests: plain loops
// in float64 over number[][] matrices, written from the README's API section and
// wasm/attention.d.ts, not from the C++ core. Also a seeded PRNG for random matrices and
// the assertions the suites share.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

// ---- random numbers ------------------------------------------------------------------

// mulberry32: a small seeded PRNG, uniform in [0, 1).
export function mulberry32(seed) {
  let state = seed >>> 0;
  return function next() {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// A whole number in [low, high].
export function randomInt(random, low, high) {
  return low + Math.floor(random() * (high - low + 1));
}

export function pick(random, choices) {
  return choices[Math.floor(random() * choices.length)];
}

// rows×cols number[][] uniform in [low, high), each value exactly a float32 so that the
// engine and the reference start from the same numbers.
export function randomMatrix(random, rows, cols, low = -1, high = 1) {
  return Array.from({ length: rows }, () =>
    Array.from({ length: cols }, () => Math.fround(low + (high - low) * random())));
}

export function randomVector(random, length, low = -1, high = 1) {
  return Array.from({ length }, () => Math.fround(low + (high - low) * random()));
}

// ---- matrices --------------------------------------------------------------------------

// {rows, cols, data} → number[][].
export function toRows(matrix) {
  return Array.from({ length: matrix.rows }, (_, i) =>
    Array.from(matrix.data.subarray(i * matrix.cols, (i + 1) * matrix.cols)));
}

// number[][] → {rows, cols, data} with data a Float32Array, or a number[] when asked.
export function toFlat(rows, kind = 'Float32Array') {
  const flat = rows.flat();
  return {
    rows: rows.length,
    cols: rows[0].length,
    data: kind === 'Float32Array' ? Float32Array.from(flat) : flat,
  };
}

export function zeros(rows, cols) {
  return Array.from({ length: rows }, () => new Array(cols).fill(0));
}

export function transpose(a) {
  return Array.from({ length: a[0].length }, (_, j) => a.map((row) => row[j]));
}

export function matmul(a, b) {
  const rows = a.length, depth = b.length, cols = b[0].length;
  assert.equal(a[0].length, depth, 'matmul: inner dimensions differ');
  const c = zeros(rows, cols);
  for (let i = 0; i < rows; ++i) {
    for (let j = 0; j < cols; ++j) {
      let sum = 0;
      for (let t = 0; t < depth; ++t) sum += a[i][t] * b[t][j];
      c[i][j] = sum;
    }
  }
  return c;
}

export function add(a, b) {
  return a.map((row, i) => row.map((value, j) => value + b[i][j]));
}

// ---- attention -------------------------------------------------------------------------

// ALiBi's default slopes 2^(−8h/H), h = 1..H.
export function defaultAlibiSlopes(heads) {
  return Array.from({ length: heads }, (_, index) => 2 ** (-8 * (index + 1) / heads));
}

// RoPE: rotates each head's row r at position firstPosition + r. Pairs (2t, 2t+1) for
// 'interleaved', (t, t + d/2) for 'half'; angle = position · base^(−2t/d).
export function ropeRotate(x, heads, firstPosition, base = 10000, pairing = 'interleaved') {
  const width = x[0].length / heads, half = width / 2;
  return x.map((row, r) => {
    const out = row.slice();
    const position = firstPosition + r;
    for (let h = 0; h < heads; ++h) {
      for (let t = 0; t < half; ++t) {
        const a = h * width + (pairing === 'half' ? t : 2 * t);
        const b = h * width + (pairing === 'half' ? t + half : 2 * t + 1);
        const angle = position * base ** (-2 * t / width);
        out[a] = row[a] * Math.cos(angle) - row[b] * Math.sin(angle);
        out[b] = row[a] * Math.sin(angle) + row[b] * Math.cos(angle);
      }
    }
    return out;
  });
}

// Whether query i (of n) sees key j (of m): position p = i + (m − n); under a causal mask a
// query inside the prefix also sees the later keys of the prefix.
export function isVisible(i, j, n, m, { causal = false, window = 0, sinks = 0, prefix = 0 } = {}) {
  const p = i + (m - n);
  if (causal && j > p && !(p < prefix && j < prefix)) return false;
  if (window > 0) return j < sinks || Math.abs(p - j) < window;
  return true;
}

// One row of scores (masked entries −Infinity) → weights; no visible key → zeros.
export function normalizeRow(scores, normalization = 'softmax') {
  const visible = scores.filter((s) => s !== -Infinity);
  if (visible.length === 0) return scores.map(() => 0);
  if (normalization === 'sum') {
    let total = 0;
    for (const s of visible) total += s;
    return scores.map((s) => (s === -Infinity ? 0 : s / total));
  }
  const shift = normalization === 'softmax' ? Math.max(...visible) : 0;
  let total = 0;
  for (const s of visible) total += Math.exp(s - shift);
  return scores.map((s) => (s === -Infinity ? 0 : Math.exp(s - shift) / total));
}

// attention(q, k, v, options) of wasm/attention.d.ts, without `kernel`: {scores, weights, context}
// with scores and weights arrays of H number[][] n×m and context n×dv.
export function attentionReference(q, k, v, options = {}) {
  const {
    heads = 1, kvHeads = heads, scale = true, normalization = 'softmax', causal = false, window = 0, sinks = 0,
    prefix = 0, positional = { type: 'none' },
  } = options;
  const n = q.length, m = k.length, dk = q[0].length, dv = v[0].length;
  // Query head h reads key/value head ⌊h·kvHeads/heads⌋; k and v hold kvHeads heads.
  const dh = dk / heads, dvh = dv / kvHeads;
  const offset = m - n;
  let qp = q, kp = k;
  if (positional.type === 'rope') {
    qp = ropeRotate(q, heads, offset, positional.base, positional.pairing);
    kp = ropeRotate(k, kvHeads, 0, positional.base, positional.pairing);
  }
  const factor = scale === true ? 1 / Math.sqrt(dh) : scale === false ? 1 : scale;
  const slopes = positional.type !== 'alibi' ? null
    : positional.slopes ? Array.from(positional.slopes) : defaultAlibiSlopes(heads);

  const scores = [], weights = [];
  const context = zeros(n, heads * dvh);
  for (let h = 0; h < heads; ++h) {
    const g = Math.floor((h * kvHeads) / heads);
    const headScores = zeros(n, m), headWeights = [];
    for (let i = 0; i < n; ++i) {
      const p = i + offset;
      for (let j = 0; j < m; ++j) {
        if (!isVisible(i, j, n, m, { causal, window, sinks, prefix })) {
          headScores[i][j] = -Infinity;
          continue;
        }
        let dot = 0;
        for (let t = 0; t < dh; ++t) dot += qp[i][h * dh + t] * kp[j][g * dh + t];
        let score = dot * factor;
        if (slopes) score -= slopes[h] * Math.abs(p - j);  // = p − j for every key a causal query sees, but a prefix's
        headScores[i][j] = score;
      }
      const row = normalizeRow(headScores[i], normalization);
      headWeights.push(row);
      for (let c = 0; c < dvh; ++c) {
        let sum = 0;
        for (let j = 0; j < m; ++j) if (row[j] !== 0) sum += row[j] * v[j][g * dvh + c];
        context[i][h * dvh + c] = sum;
      }
    }
    scores.push(headScores);
    weights.push(headWeights);
  }
  return { scores, weights, context };
}

// The sinusoidal encoding of "Attention Is All You Need": PE(p, 2t) = sin(p / 10000^(2t/d)),
// PE(p, 2t+1) = cos(p / 10000^(2t/d)).
export function sinusoidalEncoding(positions, width) {
  return Array.from({ length: positions }, (_, p) =>
    Array.from({ length: width }, (_, column) => {
      const t = Math.floor(column / 2);
      const angle = p / 10000 ** ((2 * t) / width);
      return column % 2 === 0 ? Math.sin(angle) : Math.cos(angle);
    }));
}

// selfAttention(x, options) of wasm/attention.d.ts: {q, k, v, scores, weights, context, output}.
export function selfAttentionReference(x, options = {}) {
  const { wq, wk, wv, wo, bo, positional = { type: 'none' }, ...rest } = options;
  let input = x;
  let inner = positional;
  if (positional.type === 'sinusoidal') {
    input = add(x, sinusoidalEncoding(x.length, x[0].length));
    inner = { type: 'none' };
  }
  const q = wq ? matmul(input, wq) : input;
  const k = wk ? matmul(input, wk) : input;
  const v = wv ? matmul(input, wv) : input;
  const result = attentionReference(q, k, v, { ...rest, positional: inner });
  let output = result.context;
  if (wo) {
    output = matmul(result.context, wo);
    if (bo) output = output.map((row) => row.map((value, j) => value + bo[j]));
  }
  return { q, k, v, ...result, output };
}

// Row n−1 of ∏_l (α·I + (1−α)·A_l), A_l the attention that the mask and an ALiBi slope
// alone make (content scores zero): the matrix A built in full, then e_{n−1}·M, L times.
export function rolloutReference({ n, layers = 1, residual = 0, causal = true, slope = 0, window = 0, sinks = 0 }) {
  const a = zeros(n, n);
  for (let i = 0; i < n; ++i) {
    const scores = Array.from({ length: n }, (_, j) =>
      (isVisible(i, j, n, n, { causal, window, sinks }) ? -slope * Math.abs(i - j) : -Infinity));
    const row = normalizeRow(scores, 'softmax');
    for (let j = 0; j < n; ++j) a[i][j] = residual * (i === j ? 1 : 0) + (1 - residual) * row[j];
  }
  let influence = new Array(n).fill(0);
  influence[n - 1] = 1;
  for (let layer = 0; layer < layers; ++layer) {
    const next = new Array(n).fill(0);
    for (let i = 0; i < n; ++i) {
      if (influence[i] === 0) continue;
      for (let j = 0; j < n; ++j) next[j] += influence[i] * a[i][j];
    }
    influence = next;
  }
  return influence;
}

// ---- assertions ------------------------------------------------------------------------

function close(actual, expected, atol, rtol) {
  if (expected === -Infinity || expected === Infinity) return actual === expected;
  if (Number.isNaN(expected)) return Number.isNaN(actual);
  return Number.isFinite(actual) && Math.abs(actual - expected) <= atol + rtol * Math.abs(expected);
}

// actual: array-like of numbers; expected: number[]. |a − e| ≤ atol + rtol·|e|, infinities equal.
export function assertArrayClose(actual, expected, { atol = 1e-5, rtol = 0, label = 'array' } = {}) {
  assert.equal(actual.length, expected.length, `${label}: length ${actual.length}, expected ${expected.length}`);
  for (let index = 0; index < expected.length; ++index) {
    if (!close(actual[index], expected[index], atol, rtol)) {
      assert.fail(`${label}[${index}] is ${actual[index]}, expected ${expected[index]} ` +
        `(atol ${atol}, rtol ${rtol})`);
    }
  }
}

// actual: the engine's {rows, cols, data: Float32Array}; expected: number[][].
export function assertMatrixClose(actual, expected, { atol = 1e-5, rtol = 0, label = 'matrix' } = {}) {
  assert.ok(actual && typeof actual === 'object', `${label}: expected a matrix, got ${actual}`);
  assert.ok(actual.data instanceof Float32Array, `${label}.data must be a Float32Array`);
  assert.equal(actual.rows, expected.length, `${label}.rows`);
  assert.equal(actual.cols, expected[0].length, `${label}.cols`);
  assert.equal(actual.data.length, actual.rows * actual.cols, `${label}.data.length`);
  for (let i = 0; i < actual.rows; ++i) {
    for (let j = 0; j < actual.cols; ++j) {
      const a = actual.data[i * actual.cols + j], e = expected[i][j];
      if (!close(a, e, atol, rtol)) {
        assert.fail(`${label}[${i}][${j}] is ${a}, expected ${e} (atol ${atol}, rtol ${rtol})`);
      }
    }
  }
}

// The engine's attention result against attentionReference's, head by head.
export function assertAttentionClose(actual, expected, { atol = 1e-5, rtol = 1e-5, label = 'attention' } = {}) {
  assert.ok(Array.isArray(actual.scores), `${label}.scores must be an array`);
  assert.ok(Array.isArray(actual.weights), `${label}.weights must be an array`);
  assert.equal(actual.scores.length, expected.scores.length, `${label}: number of score matrices`);
  assert.equal(actual.weights.length, expected.weights.length, `${label}: number of weight matrices`);
  expected.scores.forEach((scores, h) =>
    assertMatrixClose(actual.scores[h], scores, { atol, rtol, label: `${label}.scores[${h}]` }));
  expected.weights.forEach((weights, h) =>
    assertMatrixClose(actual.weights[h], weights, { atol, rtol, label: `${label}.weights[${h}]` }));
  assertMatrixClose(actual.context, expected.context, { atol, rtol, label: `${label}.context` });
}

// The raw bytes of a Float32Array, for "exactly the same answer" comparisons.
// The Error a call throws, or undefined when it returns.
export function errorOf(call) {
  try {
    call();
  } catch (error) {
    return error;
  }
  return undefined;
}

export function bytesOf(array) {
  return Buffer.from(array.buffer, array.byteOffset, array.byteLength);
}

// ---- fixtures --------------------------------------------------------------------------

export function seedExamples() {
  const url = new URL('../fixtures/seed-examples.json', import.meta.url);
  const { examples } = JSON.parse(readFileSync(url, 'utf8'));
  return Object.fromEntries(examples.map((example) => [example.name, example]));
}

