// engine.selfAttention: projections wq, wk, wv, the output projection wo with bias bo, and
// the sinusoidal positional encoding, against the float64 JS reference.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import createAttention from '../../dist/wasm/attention.mjs';
import {
  assertAttentionClose, assertMatrixClose, mulberry32, randomMatrix, randomVector, selfAttentionReference,
  sinusoidalEncoding, toRows,
} from './reference.mjs';

const engine = await createAttention();
const TOL = { atol: 1e-5, rtol: 1e-5 };

function assertSelfAttentionClose(actual, expected, label) {
  assertMatrixClose(actual.q, expected.q, { ...TOL, label: `${label}.q` });
  assertMatrixClose(actual.k, expected.k, { ...TOL, label: `${label}.k` });
  assertMatrixClose(actual.v, expected.v, { ...TOL, label: `${label}.v` });
  assertAttentionClose(actual, expected, { ...TOL, label });
  assertMatrixClose(actual.output, expected.output, { ...TOL, label: `${label}.output` });
}

test('projections wq, wk, wv (d_in×d_out, as x·W) with several heads and causal', () => {
  const random = mulberry32(200);
  for (const [n, dIn, dOut, heads] of [[5, 3, 4, 2], [8, 6, 6, 3], [1, 2, 2, 1], [10, 4, 8, 4]]) {
    const x = randomMatrix(random, n, dIn);
    const options = {
      wq: randomMatrix(random, dIn, dOut), wk: randomMatrix(random, dIn, dOut), wv: randomMatrix(random, dIn, dOut),
      heads, causal: true,
    };
    const actual = engine.selfAttention(x, options);
    assertSelfAttentionClose(actual, selfAttentionReference(x, options), `n=${n} ${dIn}→${dOut} H=${heads}`);
    assert.deepEqual(Array.from(actual.output.data), Array.from(actual.context.data), 'output = context without wo');
  }
});

test('value projection may have a different width from query/key', () => {
  const random = mulberry32(201);
  const x = randomMatrix(random, 6, 3);
  const options = { wq: randomMatrix(random, 3, 4), wk: randomMatrix(random, 3, 4), wv: randomMatrix(random, 3, 2), heads: 2 };
  const actual = engine.selfAttention(x, options);
  assert.equal(actual.context.cols, 2);
  assertSelfAttentionClose(actual, selfAttentionReference(x, options), 'dv ≠ dk');
});

test('output projection wo with bias bo (number[] and Float32Array)', () => {
  const random = mulberry32(202);
  for (const [n, dIn, dOut, dModel, heads, biasKind] of [[4, 3, 4, 5, 2, 'array'], [7, 4, 6, 4, 3, 'float32'], [3, 2, 2, 1, 1, 'array']]) {
    const x = randomMatrix(random, n, dIn);
    const bo = randomVector(random, dModel);
    const options = {
      wq: randomMatrix(random, dIn, dOut), wk: randomMatrix(random, dIn, dOut), wv: randomMatrix(random, dIn, dOut),
      wo: randomMatrix(random, dOut, dModel), bo: biasKind === 'float32' ? Float32Array.from(bo) : bo, heads,
    };
    const actual = engine.selfAttention(x, options);
    assert.deepEqual([actual.output.rows, actual.output.cols], [n, dModel]);
    assertSelfAttentionClose(actual, selfAttentionReference(x, { ...options, bo }), `wo ${dOut}→${dModel}`);
  }
});

test('wo without bo, and wo without wq/wk/wv (v = x)', () => {
  const random = mulberry32(203);
  const x = randomMatrix(random, 5, 4);
  const wo = randomMatrix(random, 4, 3);
  const actual = engine.selfAttention(x, { wo, heads: 2 });
  assertSelfAttentionClose(actual, selfAttentionReference(x, { wo, heads: 2 }), 'wo only');
  // The bias really is added: output(bo) − output(no bo) = bo on every row.
  const bo = [1, -2, 0.5];
  const withBias = engine.selfAttention(x, { wo, bo, heads: 2 });
  toRows(withBias.output).forEach((row, i) => row.forEach((value, j) =>
    assert.ok(Math.abs(value - actual.output.data[i * 3 + j] - bo[j]) < 1e-5, `[${i}][${j}]`)));
});

test('the JS sinusoidal reference matches the formula on known values', () => {
  const pe = sinusoidalEncoding(3, 4);
  assert.deepEqual(pe[0], [0, 1, 0, 1]);
  assert.ok(Math.abs(pe[1][0] - Math.sin(1)) < 1e-15 && Math.abs(pe[1][1] - Math.cos(1)) < 1e-15);
  assert.ok(Math.abs(pe[2][2] - Math.sin(2 / 100)) < 1e-15 && Math.abs(pe[2][3] - Math.cos(2 / 100)) < 1e-15);
});

test("positional {type: 'sinusoidal'} adds the Vaswani encoding to x before projecting", () => {
  const random = mulberry32(204);
  // q, k and v without weights are x + PE itself.
  const x = randomMatrix(random, 9, 6);
  const plain = engine.selfAttention(x, { positional: { type: 'sinusoidal' } });
  const expectedInput = x.map((row, p) => row.map((value, c) => value + sinusoidalEncoding(9, 6)[p][c]));
  assertMatrixClose(plain.q, expectedInput, { ...TOL, label: 'x + PE' });
  assertSelfAttentionClose(plain, selfAttentionReference(x, { positional: { type: 'sinusoidal' } }), 'sinusoidal');

  // With projections, odd width, heads, causal and an output projection.
  const x2 = randomMatrix(random, 12, 5);
  const options = {
    positional: { type: 'sinusoidal' }, heads: 2, causal: true,
    wq: randomMatrix(random, 5, 4), wk: randomMatrix(random, 5, 4), wv: randomMatrix(random, 5, 4),
    wo: randomMatrix(random, 4, 3), bo: randomVector(random, 3),
  };
  assertSelfAttentionClose(engine.selfAttention(x2, options), selfAttentionReference(x2, options), 'sinusoidal + W');
});

test('selfAttention takes the attention options: RoPE, ALiBi, window and sinks', () => {
  const random = mulberry32(205);
  const x = randomMatrix(random, 10, 4);
  const w = () => randomMatrix(random, 4, 8);
  for (const extra of [
    { positional: { type: 'rope', pairing: 'half', base: 50 }, heads: 2 },
    { positional: { type: 'alibi' }, heads: 4, causal: true },
    { window: 3, sinks: 1, causal: true, normalization: 'naive-softmax', scale: 0.5 },
  ]) {
    const options = { wq: w(), wk: w(), wv: w(), ...extra };
    assertSelfAttentionClose(engine.selfAttention(x, options), selfAttentionReference(x, options), JSON.stringify(extra));
  }
});

test("selfAttention's kernel 'flash' gives the same output with scores and weights null", () => {
  const random = mulberry32(206);
  const x = randomMatrix(random, 40, 4);
  const options = { wq: randomMatrix(random, 4, 4), wk: randomMatrix(random, 4, 4), wv: randomMatrix(random, 4, 4),
    wo: randomMatrix(random, 4, 2), heads: 2, causal: true };
  const flash = engine.selfAttention(x, { ...options, kernel: 'flash' });
  assert.equal(flash.scores, null);
  assert.equal(flash.weights, null);
  assertMatrixClose(flash.output, selfAttentionReference(x, options).output, { ...TOL, label: 'flash output' });
});
