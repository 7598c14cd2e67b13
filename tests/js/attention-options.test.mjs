// Every option of engine.attention (AttentionOptions in wasm/attention.d.ts) against the
// float64 JS reference, on random shapes with n ≠ m and several heads, at ~1e-5 (relative
// where values are large).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import createAttention from '../../dist/wasm/attention.mjs';
import {
  assertAttentionClose, assertMatrixClose, attentionReference, defaultAlibiSlopes, isVisible, mulberry32,
  normalizeRow, randomInt, randomMatrix, randomVector, ropeRotate, toRows,
} from './reference.mjs';

const engine = await createAttention();

// (n, m) pairs: square, more keys than queries, more queries than keys, single rows.
const SHAPES = [[5, 5], [3, 9], [9, 4], [1, 7], [7, 1], [12, 12], [6, 11]];

// Random q, k, v for each shape and compares engine and reference. `options` may be a
// function of heads (for slopes, which need one per head). dh is even when `even`.
function checkAgainstReference(label, options, { seed, heads = [1, 2, 3, 4], even = false, low = -1, high = 1 } = {}) {
  const random = mulberry32(seed);
  for (const [n, m] of SHAPES) {
    const h = heads[randomInt(random, 0, heads.length - 1)];
    const dh = even ? 2 * randomInt(random, 1, 3) : randomInt(random, 1, 5);
    const dvh = randomInt(random, 1, 3);
    const q = randomMatrix(random, n, h * dh, low, high);
    const k = randomMatrix(random, m, h * dh, low, high);
    const v = randomMatrix(random, m, h * dvh);
    const opts = { heads: h, ...(typeof options === 'function' ? options(h, random) : options) };
    const expected = attentionReference(q, k, v, opts);
    const where = `${label} n=${n} m=${m} heads=${h} dh=${dh}`;
    const actual = engine.attention(q, k, v, { ...opts, kernel: 'materialized' });
    assert.equal(actual.kernel, 'materialized');
    assertAttentionClose(actual, expected, { label: where });
    assert.equal(actual.context.cols, h * dvh, `${where}: context is n×dv`);
    for (const matrix of [...actual.scores, ...actual.weights]) {
      assert.equal(matrix.rows, n);
      assert.equal(matrix.cols, m);
    }
  }
}

describe('the JS reference itself, on hand-computed values', () => {
  test('default ALiBi slopes for 8 heads are 1/2 … 1/256', () => {
    assert.deepEqual(defaultAlibiSlopes(8), [1 / 2, 1 / 4, 1 / 8, 1 / 16, 1 / 32, 1 / 64, 1 / 128, 1 / 256]);
  });
  test('RoPE rotates (1, 0) at position 1 by 1 radian; half pairing pairs t with t + d/2', () => {
    assert.deepEqual(ropeRotate([[1, 0]], 1, 1), [[Math.cos(1), Math.sin(1)]]);
    const [half] = ropeRotate([[1, 0, 0, 0]], 1, 1, 10000, 'half');
    assert.deepEqual(half.map((x) => x + 0), [Math.cos(1), 0, Math.sin(1), 0]);
    const [inter] = ropeRotate([[0, 0, 1, 0]], 1, 2, 100, 'interleaved');  // t = 1: angle 2·100^(−1/2)
    assert.deepEqual(inter.map((x) => x + 0), [0, 0, Math.cos(0.2), Math.sin(0.2)]);
  });
  test('mask: causal offset m − n, window and sinks', () => {
    assert.equal(isVisible(0, 1, 2, 3, { causal: true }), true);   // query 0 of 2 over 3 keys sits at p = 1
    assert.equal(isVisible(0, 2, 2, 3, { causal: true }), false);
    assert.equal(isVisible(1, 2, 2, 3, { causal: true }), true);
    assert.equal(isVisible(0, 0, 3, 2, { causal: true }), false);  // p = −1: nothing visible
    assert.equal(isVisible(5, 1, 6, 6, { window: 3 }), false);
    assert.equal(isVisible(5, 1, 6, 6, { window: 3, sinks: 2 }), true);
    assert.equal(isVisible(1, 4, 6, 6, { window: 3, sinks: 2 }), false);
    assert.equal(isVisible(0, 1, 6, 6, { causal: true, window: 3, sinks: 2 }), false);
  });
  test('normalisations; a row with nothing visible is zeros', () => {
    assert.deepEqual(normalizeRow([2, -1], 'sum'), [2, -1]);
    assert.deepEqual(normalizeRow([0, 0, -Infinity], 'softmax'), [0.5, 0.5, 0]);
    assert.deepEqual(normalizeRow([-Infinity, -Infinity], 'naive-softmax'), [0, 0]);
  });
});

describe('attention options against the reference', () => {
  test('defaults (one head, scale true, softmax, no mask)', () => checkAgainstReference('defaults', {}, { seed: 1, heads: [1] }));
  test('several heads split the columns', () => checkAgainstReference('heads', {}, { seed: 2 }));
  test('scale false', () => checkAgainstReference('scale false', { scale: false }, { seed: 3 }));
  test('scale as a number multiplies', () => checkAgainstReference('scale 0.37', { scale: 0.37 }, { seed: 4 }));
  test('scale as a large number (relative tolerance)', () =>
    checkAgainstReference('scale 40', { scale: 40 }, { seed: 41, heads: [1, 2] }));
  test("normalization 'naive-softmax'", () =>
    checkAgainstReference('naive', { normalization: 'naive-softmax' }, { seed: 5 }));
  test("normalization 'sum' (positive scores)", () =>
    checkAgainstReference('sum', { normalization: 'sum' }, { seed: 6, low: 0.1, high: 1 }));
  test('causal, with n ≠ m (offset m − n)', () => checkAgainstReference('causal', { causal: true }, { seed: 7 }));
  test('causal with naive-softmax and sum', () => {
    checkAgainstReference('causal naive', { causal: true, normalization: 'naive-softmax' }, { seed: 8 });
    checkAgainstReference('causal sum', { causal: true, normalization: 'sum' }, { seed: 9, low: 0.1, high: 1 });
  });
  test('causal with a prefix: the prefix sees itself both ways', () =>
    checkAgainstReference('prefix', { causal: true, prefix: 3 }, { seed: 40 }));
  test('causal with a prefix, ALiBi and RoPE', () => {
    checkAgainstReference('prefix alibi', { causal: true, prefix: 4, positional: { type: 'alibi' } }, { seed: 41 });
    checkAgainstReference('prefix rope', { causal: true, prefix: 2, positional: { type: 'rope' } }, { seed: 42, even: true });
  });
  test('window without causal', () => checkAgainstReference('window', { window: 2 }, { seed: 10 }));
  test('window with causal', () => checkAgainstReference('window causal', { window: 3, causal: true }, { seed: 11 }));
  test('window with sinks, not causal', () =>
    checkAgainstReference('window sinks', { window: 2, sinks: 2 }, { seed: 12 }));
  test('window with sinks, causal', () =>
    checkAgainstReference('window sinks causal', { window: 2, sinks: 3, causal: true }, { seed: 13 }));
  test('ALiBi with default slopes, not causal', () =>
    checkAgainstReference('alibi', { positional: { type: 'alibi' } }, { seed: 14 }));
  test('ALiBi with default slopes, causal', () =>
    checkAgainstReference('alibi causal', { causal: true, positional: { type: 'alibi' } }, { seed: 15 }));
  test('ALiBi with given slopes (number[] and Float32Array)', () => {
    checkAgainstReference('alibi slopes', (h, random) => ({ positional: { type: 'alibi', slopes: randomVector(random, h, 0, 1.5) } }),
      { seed: 16 });
    checkAgainstReference('alibi Float32 slopes',
      (h, random) => ({ causal: true, positional: { type: 'alibi', slopes: Float32Array.from(randomVector(random, h, 0, 1.5)) } }),
      { seed: 17 });
  });
  test('RoPE, interleaved pairing (default) and default base', () =>
    checkAgainstReference('rope', { positional: { type: 'rope' } }, { seed: 18, even: true }));
  test("RoPE, 'half' pairing", () =>
    checkAgainstReference('rope half', { positional: { type: 'rope', pairing: 'half' } }, { seed: 19, even: true }));
  test('RoPE with a non-default base, both pairings, causal', () => {
    checkAgainstReference('rope base', { causal: true, positional: { type: 'rope', base: 37, pairing: 'interleaved' } },
      { seed: 20, even: true });
    checkAgainstReference('rope half base', { causal: true, positional: { type: 'rope', base: 500, pairing: 'half' } },
      { seed: 21, even: true });
  });
  test('combinations: RoPE + causal + window + sinks + heads + scale', () =>
    checkAgainstReference('combo rope', { causal: true, window: 3, sinks: 1, scale: 0.8, positional: { type: 'rope', base: 100 } },
      { seed: 22, even: true }));
  test('combinations: ALiBi + window + sinks + naive-softmax, not causal', () =>
    checkAgainstReference('combo alibi', { window: 3, sinks: 2, normalization: 'naive-softmax', positional: { type: 'alibi' } },
      { seed: 23 }));
  test('scale negative and zero', () => {
    checkAgainstReference('scale -0.7', { scale: -0.7, causal: true }, { seed: 25 });
    checkAgainstReference('scale 0', { scale: 0, window: 2 }, { seed: 26 });
  });
  test('window and sinks larger than m', () => {
    checkAgainstReference('big window', { window: 50, sinks: 30 }, { seed: 27 });
    checkAgainstReference('big sinks causal', { window: 1, sinks: 30, causal: true, positional: { type: 'alibi' } }, { seed: 28 });
  });
  test("positional {type: 'none'} is the default", () =>
    checkAgainstReference('none', { positional: { type: 'none' }, causal: true }, { seed: 24 }));
});

describe('option semantics on hand-made inputs', () => {
  test('scale true divides by √(dk/H), not √dk', () => {
    const q = [[1, 1, 1, 1, 2, 2, 2, 2]], k = [[1, 1, 1, 1, 1, 1, 1, 1]], v = [[1, 2]];
    const { scores } = engine.attention(q, k, v, { heads: 2 });
    assert.equal(scores[0].data[0], 4 / 2);   // head width 4
    assert.equal(scores[1].data[0], 8 / 2);
  });

  test('the ALiBi bias is added after scaling and is not scaled itself', () => {
    const q = [[0], [0], [0]], k = [[0], [0], [0]], v = [[1], [2], [3]];
    const { scores } = engine.attention(q, k, v, { scale: 0.25, positional: { type: 'alibi', slopes: [2] } });
    assert.deepEqual(Array.from(scores[0].data), [0, -2, -4, -2, 0, -2, -4, -2, 0].map((x) => x + 0));
    const causal = engine.attention(q, k, v, { scale: 7, causal: true, positional: { type: 'alibi', slopes: [2] } });
    assert.deepEqual(toRows(causal.scores[0]), [[0, -Infinity, -Infinity], [-2, 0, -Infinity], [-4, -2, 0]]);
  });

  test('causal with m < n: rows with no visible key are zeros (never NaN), scores −Infinity', () => {
    const random = mulberry32(30);
    const n = 6, m = 3;
    const q = randomMatrix(random, n, 4), k = randomMatrix(random, m, 4), v = randomMatrix(random, m, 2);
    for (const normalization of ['softmax', 'naive-softmax', 'sum']) {
      const result = engine.attention(q, k, v, { causal: true, heads: 2, normalization });
      // p = i + (m − n) = i − 3: queries 0, 1, 2 see nothing, query 3 sees key 0.
      for (let h = 0; h < 2; ++h) {
        for (let i = 0; i < 3; ++i) {
          for (let j = 0; j < m; ++j) {
            assert.equal(result.scores[h].data[i * m + j], -Infinity);
            assert.equal(result.weights[h].data[i * m + j], 0, `${normalization} weights[${h}][${i}][${j}]`);
          }
        }
        // (+ 0 turns −0, which 'sum' may give for a masked key, into 0.)
        assert.deepEqual(Array.from(result.weights[h].data.subarray(3 * m, 4 * m), (w) => w + 0), [1, 0, 0]);
      }
      assert.deepEqual(Array.from(result.context.data.subarray(0, 3 * 2), (c) => c + 0), [0, 0, 0, 0, 0, 0]);
      assert.ok(result.context.data.every(Number.isFinite), 'no NaN in context');
      assertMatrixClose(result.context, attentionReference(q, k, v, { causal: true, heads: 2, normalization }).context,
        { rtol: 1e-5, label: normalization });
    }
  });

  test('causal: weights above the shifted diagonal are exactly zero; rows sum to 1', () => {
    const random = mulberry32(31);
    const n = 4, m = 7;
    const q = randomMatrix(random, n, 3), k = randomMatrix(random, m, 3), v = randomMatrix(random, m, 3);
    const { weights } = engine.attention(q, k, v, { causal: true });
    for (let i = 0; i < n; ++i) {
      let total = 0;
      for (let j = 0; j < m; ++j) {
        const w = weights[0].data[i * m + j];
        if (j > i + (m - n)) assert.equal(w, 0, `weights[${i}][${j}]`);
        else assert.ok(w > 0, `weights[${i}][${j}] visible`);
        total += w;
      }
      assert.ok(Math.abs(total - 1) < 1e-6, `row ${i} sums to ${total}`);
    }
  });

  test('window and sinks leave exactly the documented keys visible', () => {
    const n = 8, m = 8;
    const q = randomMatrix(mulberry32(32), n, 2), v = randomMatrix(mulberry32(33), m, 1);
    for (const options of [{ window: 2 }, { window: 3, sinks: 2 }, { window: 2, sinks: 1, causal: true }, { window: 1 }]) {
      const { weights } = engine.attention(q, q, v, options);
      for (let i = 0; i < n; ++i) {
        for (let j = 0; j < m; ++j) {
          const visible = weights[0].data[i * m + j] !== 0;
          assert.equal(visible, isVisible(i, j, n, m, options), `${JSON.stringify(options)} [${i}][${j}]`);
        }
      }
    }
  });

  test('sinks have no effect without a window', () => {
    const random = mulberry32(34);
    const q = randomMatrix(random, 5, 2), v = randomMatrix(random, 5, 2);
    const plain = engine.attention(q, q, v, { causal: true });
    const sinks = engine.attention(q, q, v, { causal: true, sinks: 3 });
    assert.deepEqual(Array.from(sinks.context.data), Array.from(plain.context.data));
    assert.deepEqual(Array.from(sinks.weights[0].data), Array.from(plain.weights[0].data));
  });

  test("the teaching modes show the arithmetic: naive-softmax overflows, 'sum' gives negative weights", () => {
    const q = [[10]], k = [[10], [9.5]], v = [[1], [2]];
    const naive = engine.attention(q, k, v, { scale: false, normalization: 'naive-softmax' });
    assert.ok(!naive.weights[0].data.every(Number.isFinite), `naive-softmax of e^100 should not be finite: ${naive.weights[0].data}`);
    const soft = engine.attention(q, k, v, { scale: false });
    assertMatrixClose(soft.weights[0], attentionReference(q, k, v, { scale: false }).weights[0], { label: 'softmax' });
    const sum = engine.attention([[1]], [[2], [-1]], [[1], [1]], { scale: false, normalization: 'sum' });
    assert.deepEqual(Array.from(sum.weights[0].data), [2, -1]);
    // The walk-through shows the same overflow next to the safe softmax.
    const walk = engine.walkthrough([[10, 10], [9, 9]]);
    assert.ok(!walk.weights.naiveSoftmax.every(Number.isFinite), `naiveSoftmax ${walk.weights.naiveSoftmax}`);
    assert.ok(walk.weights.softmax.every(Number.isFinite));
    assert.ok(Math.abs(walk.weights.softmax[0] + walk.weights.softmax[1] - 1) < 1e-6);
  });

  test('default ALiBi slopes are 2^(−8h/H): one key at distance 1 reveals each slope', () => {
    const H = 4;
    const q = [[0, 0, 0, 0], [0, 0, 0, 0]], v = [[0, 0, 0, 0], [0, 0, 0, 0]];
    const { scores } = engine.attention(q, q, v, { heads: H, positional: { type: 'alibi' } });
    for (let h = 0; h < H; ++h) {
      assert.ok(Math.abs(scores[h].data[1] + 2 ** (-8 * (h + 1) / H)) < 1e-7, `slope of head ${h}: ${-scores[h].data[1]}`);
    }
  });

  test('RoPE makes scores depend only on relative position', () => {
    // The same vector at every position: score(i, j) depends only on i − j.
    const row = [0.3, -0.7, 0.5, 0.2];
    const x = Array.from({ length: 6 }, () => row);
    for (const pairing of ['interleaved', 'half']) {
      const { scores } = engine.attention(x, x, x, { scale: false, positional: { type: 'rope', pairing, base: 10 } });
      const s = toRows(scores[0]);
      for (let i = 1; i < 6; ++i) {
        for (let j = 1; j < 6; ++j) assert.ok(Math.abs(s[i][j] - s[i - 1][j - 1]) < 1e-5, `${pairing} [${i}][${j}]`);
      }
      assert.ok(Math.abs(s[0][1] - s[0][0]) > 1e-3, `${pairing}: RoPE must change the scores`);
    }
  });
});

describe('part: some query rows of some heads', () => {
  // Rows [r0, r1) of a row-major matrix of `cols` columns, columns [c0, c1).
  const block = ({ data, cols }, [r0, r1], [c0, c1]) => {
    const out = [];
    for (let i = r0; i < r1; ++i) out.push(...data.subarray(i * cols + c0, i * cols + c1));
    return Float32Array.from(out);
  };
  const same = (a, b) => a.length === b.length && a.every((value, i) => Object.is(value, b[i]));

  test('a part of attention and selfAttention holds exactly the whole call\'s numbers for its rows and heads', () => {
    const random = mulberry32(20261124);
    for (const options of [
      { heads: 3, causal: true, positional: { type: 'rope' } }, { heads: 3, window: 9, sinks: 2, positional: { type: 'alibi' } },
      { heads: 3, causal: true, prefix: 20, kernel: 'flash' }, { heads: 3, normalization: 'naive-softmax', scale: 0.5 },
    ]) {
      const n = randomInt(random, 70, 200), m = randomInt(random, 70, 200);
      const q = randomMatrix(random, n, 12), k = randomMatrix(random, m, 12), v = randomMatrix(random, m, 6);
      const rows = [randomInt(random, 0, 60), randomInt(random, 61, n)], heads = [1, 3];
      const whole = engine.attention(q, k, v, options);
      const part = engine.attention(q, k, v, { ...options, part: { rows, heads } });
      assert.deepEqual([part.context.rows, part.context.cols], [rows[1] - rows[0], 4]);
      assert.ok(same(part.context.data, block(whole.context, rows, [2, 6])), `${JSON.stringify(options)}: context`);
      assert.equal(whole.scores === null, whole.kernel === 'flash', `${JSON.stringify(options)}: scores unless flash`);
      for (let h = 0; whole.scores && h < 2; ++h) {
        assert.ok(same(part.weights[h].data, block(whole.weights[h + 1], rows, [0, m])), `weights of head ${h + 1}`);
      }
      const x = randomMatrix(random, n, 12);
      const wholeSelf = engine.selfAttention(x, { ...options, positional: { type: 'sinusoidal' } });
      const partSelf = engine.selfAttention(x, { ...options, positional: { type: 'sinusoidal' }, part: { rows, heads } });
      assert.ok(same(partSelf.q.data, block(wholeSelf.q, rows, [4, 12])), 'q: the part\'s rows and heads');
      assert.ok(same(partSelf.k.data, block(wholeSelf.k, [0, n], [4, 12])), 'k: every row, the part\'s heads');
      assert.ok(same(partSelf.output.data, block(wholeSelf.output, rows, [4, 12])), 'output');
    }
  });
});
