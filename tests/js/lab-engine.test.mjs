// The lost-in-the-middle lab's engine calls: rollout and positionCurve against a float64
// reference written here from wasm/attention.d.ts (dense matrices, no shortcut), the shapes
// the lab teaches, the mitigations, and the errors of the new calls.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import createAttention from '../../dist/wasm/attention.mjs';

const engine = await createAttention();
const TOLERANCE = 1e-5;

// Whether query i sees key j (n queries over n keys), straight from the README's option table.
function visible({ causal, window = 0, sinks = 0 }, i, j) {
  if (causal && j > i) return false;
  if (window === 0) return true;
  const distance = causal ? i - j : Math.abs(i - j);
  return distance < window || j < sinks;
}

// Row n-1 of R = ∏ (αI + (1-α)A), A the head-averaged softmax of the positional scores
// (and content scores in the rows that read content) over the visible keys: dense, in float64.
function referenceRollout({
  n, layers = 1, residual = 0, causal = true, window = 0, sinks = 0, slope = 0, scales = [1],
  content = null, contentRows = () => false, start = 'final',
}) {
  const a = Array.from({ length: n }, () => new Float64Array(n));
  for (const scale of scales) {
    for (let i = 0; i < n; ++i) {
      const weights = new Float64Array(n);
      let total = 0;
      for (let j = 0; j < n; ++j) {
        if (!visible({ causal, window, sinks }, i, j)) continue;
        const score = -slope * Math.abs(i - j) / scale + (content && contentRows(i) ? content[j] : 0);
        weights[j] = Math.exp(score);
        total += weights[j];
      }
      for (let j = 0; j < n; ++j) a[i][j] += weights[j] / total / scales.length;
    }
  }
  let x = new Float64Array(n);
  if (start === 'final') x[n - 1] = 1; else x.fill(1 / n);
  for (let layer = 0; layer < layers; ++layer) {
    const next = new Float64Array(n);
    for (let i = 0; i < n; ++i) {
      next[i] += residual * x[i];
      for (let j = 0; j < n; ++j) next[j] += (1 - residual) * x[i] * a[i][j];
    }
    x = next;
  }
  return x;
}

function assertClose(actual, expected, label, tolerance = TOLERANCE) {
  assert.equal(actual.length, expected.length, `${label}: length`);
  let worst = 0;
  for (let k = 0; k < expected.length; ++k) worst = Math.max(worst, Math.abs(actual[k] - expected[k]));
  assert.ok(worst <= tolerance, `${label}: max abs diff ${worst} > ${tolerance}`);
}

const alibi = (slope) => (slope > 0 ? { type: 'alibi', slope } : { type: 'none' });
const maxOverMin = (values) => Math.max(...values) / Math.min(...values);

// (n, layers, residual, causal, slope[, window, sinks])
const SETTINGS = [
  [1, 3, 0.5, true, 0], [2, 1, 0, true, 0], [7, 1, 0, true, 0.3], [16, 4, 0, true, 0],
  [16, 4, 0.5, false, 0.1], [30, 8, 0.7, true, 0.05], [30, 2, 1, true, 0.2], [40, 12, 0.9, false, 0],
  [25, 5, 0.3, true, 0.02, 6, 2], [25, 6, 0.6, false, 0.4, 3, 4], [64, 16, 0.85, true, 0.03],
  [48, 3, 0.2, true, 1.5, 10, 0],
];

describe('lab: rollout against a float64 reference', () => {
  for (const [n, layers, residual, causal, slope, window = 0, sinks = 0] of SETTINGS) {
    const label = `n=${n} layers=${layers} residual=${residual} causal=${causal} slope=${slope} window=${window} sinks=${sinks}`;
    test(label, () => {
      const expected = referenceRollout({ n, layers, residual, causal, window, sinks, slope });
      const options = { n, layers, residual, causal, window, sinks, positional: alibi(slope) };
      const { influence } = engine.rollout(options);
      assertClose(influence, expected, `rollout ${label}`);
      const sum = influence.reduce((s, x) => s + x, 0);
      assert.ok(Math.abs(sum - 1) < 1e-5, `sums to ${sum}`);
      if (n >= 2) assertClose(engine.positionCurve(options).values, expected, `positionCurve ${label}`);
    });
  }
});

describe('lab: positionCurve beyond rollout', () => {
  test('attention received: the mean row of R', () => {
    const options = { n: 30, layers: 4, residual: 0.3, causal: true };
    const { values } = engine.positionCurve({ ...options, positional: alibi(0.1), measure: 'received' });
    assertClose(values, referenceRollout({ ...options, slope: 0.1, start: 'every' }), 'received');
  });

  test('position scales: heads measure distances divided by their scale, then average', () => {
    const scales = [1.2, 1.5, 1.8];
    const { values } = engine.positionCurve({ n: 40, layers: 5, residual: 0.4, positional: alibi(0.2), positionScales: scales });
    assertClose(values, referenceRollout({ n: 40, layers: 5, residual: 0.4, slope: 0.2, scales }), 'Ms-PoE scales');
  });

  test('RoPE: strength · mean cosine as the positional score', () => {
    const headWidth = 8;
    const base = 100;
    const strength = 5;
    const n = 24;
    const meanCos = (d) => {
      let total = 0;
      for (let t = 0; t < headWidth / 2; ++t) total += Math.cos(d * base ** (-2 * t / headWidth));
      return total / (headWidth / 2);
    };
    // The content hook of the reference carries the RoPE score of the final row's keys;
    // for a full check, every row: write the matrix here.
    const a = Array.from({ length: n }, (_, i) => {
      const row = new Float64Array(n);
      let total = 0;
      for (let j = 0; j <= i; ++j) { row[j] = Math.exp(strength * meanCos(i - j)); total += row[j]; }
      return row.map((w) => w / total);
    });
    let x = new Float64Array(n);
    x[n - 1] = 1;
    for (let layer = 0; layer < 3; ++layer) {
      const next = new Float64Array(n);
      for (let i = 0; i < n; ++i) {
        next[i] += 0.25 * x[i];
        for (let j = 0; j < n; ++j) next[j] += 0.75 * x[i] * a[i][j];
      }
      x = next;
    }
    const { values } = engine.positionCurve({ n, layers: 3, residual: 0.25, positional: { type: 'rope', base, headWidth, strength } });
    assertClose(values, x, 'rope');
  });

  test('summary: first, middle and last document, mean, max/min over the context', () => {
    const { values, summary } = engine.positionCurve({ n: 101, layers: 6, residual: 0.5, positional: alibi(0.05) });
    const context = Array.from(values.slice(0, 100));
    assert.ok(Math.abs(summary.begin - context[0]) < 1e-7);
    assert.ok(Math.abs(summary.middle - (context[49] + context[50]) / 2) < 1e-7);
    assert.ok(Math.abs(summary.end - context[99]) < 1e-7);
    assert.ok(Math.abs(summary.maxOverMin - maxOverMin(context)) / summary.maxOverMin < 1e-5);
  });
});

describe('lab: the shapes the page teaches', () => {
  test('causal, two or more layers, no residual, no decay: monotone primacy', () => {
    for (const layers of [2, 3, 8, 24]) {
      const { values } = engine.positionCurve({ n: 2000, layers });
      for (let j = 0; j + 1 < values.length; ++j) assert.ok(values[j] >= values[j + 1], `layers ${layers}, position ${j}`);
      assert.ok(values[0] > 5 * values[1000], `layers ${layers}: first ${values[0]}, middle ${values[1000]}`);
    }
  });

  test('one causal ALiBi layer: monotone recency', () => {
    // (slopes small enough that exp(-slope·2000) stays a normal float32)
    for (const slope of [0.0005, 0.01, 0.04]) {
      const { values } = engine.positionCurve({ n: 2000, layers: 1, positional: alibi(slope) });
      for (let j = 0; j + 1 < values.length; ++j) assert.ok(values[j] < values[j + 1], `slope ${slope}, position ${j}`);
    }
  });

  test('causal + depth + residual: U-shaped, both ends above the middle', () => {
    // with decay: the documents alone (the summary leaves the final token out)
    for (const [n, layers, residual, slope] of [[1024, 12, 0.85, 0.003], [200, 16, 0.9, 0.02], [4000, 16, 0.9, 0.001]]) {
      const { values, summary } = engine.positionCurve({ n, layers, residual, positional: alibi(slope) });
      const label = `n=${n} layers=${layers} residual=${residual} slope=${slope}: ${summary.begin} ${summary.middle} ${summary.end}`;
      assert.ok(summary.begin > 1.1 * summary.middle, label);
      assert.ok(summary.end > 1.1 * summary.middle, label);
      const context = Array.from(values.slice(0, n - 1));
      const lowest = context.indexOf(Math.min(...context));
      assert.ok(lowest > 0 && lowest < n - 2, `${label}: lowest at ${lowest}`);
    }
    // without decay: the residual keeps the final token itself above the middle
    const { values } = engine.positionCurve({ n: 500, layers: 8, residual: 0.5 });
    assert.ok(values[0] > 3 * values[250] && values[499] > 3 * values[250]);
  });

  test('bidirectional, no positional bias, one layer: flat', () => {
    const { values, summary } = engine.positionCurve({ n: 3000, layers: 1, causal: false });
    for (const value of values) assert.ok(Math.abs(value - 1 / 3000) < 1e-9);
    assert.ok(summary.maxOverMin < 1 + 1e-5);
  });
});

// The lab page's defaults (web/lab/state.js).
const LAB = { n: 1024, layers: 12, residual: 0.85, positional: alibi(0.003), signal: 3, noise: 1, trials: 8, depths: 11 };

describe('lab: the needle and its mitigations', () => {
  test('the needle against the reference: content in the final row only', () => {
    const n = 20;
    const sweep = engine.needleSweep({ n, layers: 3, residual: 0.5, positional: alibi(0.1), noise: 0, signal: 2, depths: 3 });
    assert.deepEqual(Array.from(sweep.positions), [0, 9, 18]);
    sweep.positions.forEach((p, d) => {
      const content = new Float64Array(n);
      content[p] = 2;
      const expected = referenceRollout({ n, layers: 3, residual: 0.5, slope: 0.1, content, contentRows: (i) => i === n - 1 });
      assert.ok(Math.abs(sweep.retrieval[d] - expected[p]) < TOLERANCE, `depth ${d}: ${sweep.retrieval[d]} vs ${expected[p]}`);
    });
  });

  test('query-aware: every row after the query copy reads content', () => {
    const n = 20;
    const sweep = engine.needleSweep({
      n, layers: 3, residual: 0.5, positional: alibi(0.1), noise: 0, signal: 2, depths: 2, mitigation: { type: 'query-aware' },
    });
    assert.deepEqual(Array.from(sweep.positions), [1, 18]);
    sweep.positions.forEach((p, d) => {
      const content = new Float64Array(n);
      content[p] = 2;
      const expected = referenceRollout({ n, layers: 3, residual: 0.5, slope: 0.1, content, contentRows: (i) => i >= 1 });
      assert.ok(Math.abs(sweep.retrieval[d] - expected[p]) < TOLERANCE);
    });
  });

  test('the lab defaults are lost in the middle', () => {
    const { summary } = engine.needleSweep(LAB);
    assert.ok(summary.begin > 1.2 * summary.middle && summary.end > 1.2 * summary.middle, JSON.stringify(summary));
  });

  for (const mitigation of [{ type: 'query-aware' }, { type: 'calibration' }, { type: 'ms-poe' }, { type: 'reorder' }]) {
    test(`${mitigation.type} lowers max/min of the needle curve`, () => {
      const before = engine.needleSweep(LAB).summary.maxOverMin;
      const after = engine.needleSweep({ ...LAB, mitigation }).summary.maxOverMin;
      assert.ok(after < 0.9 * before, `max/min ${before} → ${after}`);
    });
  }

  test('top-1 is a share of trials; seeds reproduce, and another seed draws other trials', () => {
    // 13 trials, prime to LAB's 8 (a share of 8 is seldom one of 13), with noise enough that
    // the needle is found in some trials and not others
    const options = { ...LAB, n: 256, metric: 'top1', trials: 13, signal: 6, noise: 2 };
    const sweep = engine.needleSweep({ ...options, seed: 7 });
    for (const rate of sweep.retrieval) assert.ok(Math.abs(rate * 13 - Math.round(rate * 13)) < 1e-5, `${rate} of 13 trials`);
    assert.ok(sweep.retrieval.some((rate) => rate > 0 && rate < 1), `some depth neither always nor never found: ${sweep.retrieval}`);
    assert.deepEqual(engine.needleSweep({ ...options, seed: 7 }).retrieval, sweep.retrieval);
    assert.notDeepEqual(engine.needleSweep({ ...options, seed: 8 }).retrieval, sweep.retrieval);
  });

  test('the grid is one sweep per context length', () => {
    const { n, ...withoutLength } = LAB;
    const lengths = [64, n / 4];
    const grid = engine.needleGrid({ ...withoutLength, lengths, depths: 5 });
    assert.equal(grid.rows, 2);
    assert.equal(grid.cols, 5);
    assert.deepEqual(Array.from(grid.lengths), lengths);
    lengths.forEach((length, r) => {
      const row = engine.needleSweep({ ...LAB, n: length, depths: 5 }).retrieval;
      assert.deepEqual(Array.from(grid.values.slice(5 * r, 5 * r + 5)), Array.from(row), `n = ${length}`);
    });
  });
});

describe('lab: the spellings it shares with attention', () => {
  test("ALiBi's slopes, one for the model's heads, are its slope", () => {
    const options = { n: 40, layers: 3, residual: 0.3 };
    for (const call of ['rollout', 'positionCurve', 'needleSweep']) {
      const bySlope = engine[call]({ ...options, positional: { type: 'alibi', slope: 0.07 } });
      const bySlopes = engine[call]({ ...options, positional: { type: 'alibi', slopes: [0.07] } });
      assert.deepEqual(bySlopes, bySlope, call);
    }
    const grid = { lengths: [16, 32], depths: 3 };
    assert.deepEqual(engine.needleGrid({ ...grid, positional: { type: 'alibi', slopes: new Float32Array([0.25]) } }),
      engine.needleGrid({ ...grid, positional: { type: 'alibi', slope: 0.25 } }));
  });

  test('slopes must hold one slope, and not come with slope', () => {
    assert.throws(() => engine.positionCurve({ n: 10, positional: { type: 'alibi', slopes: [0.1, 0.2] } }),
      /positional.slopes must hold one slope, which the model's heads share, got 2/);
    assert.throws(() => engine.positionCurve({ n: 10, positional: { type: 'alibi', slopes: [0.1], slope: 0.1 } }),
      /positional takes slopes or slope, not both/);
    assert.throws(() => engine.positionCurve({ n: 10, positional: { type: 'alibi', slopes: [NaN] } }),
      /positional.slopes\[0\] must be a finite number, got NaN/);
    assert.throws(() => engine.rollout({ n: 10, positional: { type: 'alibi', slopes: 0.1 } }),
      /positional.slopes must be a number\[\] or Float32Array, got 0.1/);
  });

  test('the needle grid is a matrix {rows, cols, data}; values is the same array', () => {
    const grid = engine.needleGrid({ lengths: [16, 32, 64], depths: 4 });
    assert.ok(grid.data instanceof Float32Array);
    assert.equal(grid.data.length, grid.rows * grid.cols);
    assert.equal(grid.values, grid.data);
  });
});

describe('lab: errors name the argument', () => {
  const cases = [
    [() => engine.positionCurve({ n: 1 }), /n must be a whole number from 2/],
    [() => engine.positionCurve({ n: 10, layer: 2 }), /unknown option 'layer' in positionCurve options/],
    [() => engine.positionCurve({ n: 10, residual: 2 }), /residual must be a number in \[0, 1\], got 2/],
    [() => engine.positionCurve({ n: 10, positional: { type: 'alibi' } }), /positional.slope must be a finite number/],
    [() => engine.positionCurve({ n: 10, positional: { type: 'alibi', slope: -1 } }), /positional.slope must be a finite number ≥ 0, got -1/],
    [() => engine.positionCurve({ n: 10, positional: { type: 'rope', base: 1 } }), /positional.base must be a finite number > 1, got 1/],
    [() => engine.positionCurve({ n: 10, positional: { type: 'rope', headWidth: 7 } }), /positional.headWidth must be an even number ≥ 2, got 7/],
    [() => engine.positionCurve({ n: 10, positional: { type: 'sinusoidal' } }), /positional.type must be one of 'none', 'alibi', 'rope'/],
    [() => engine.positionCurve({ n: 10, positionScales: [1, -2] }), /positionScales\[1\] must be a finite number > 0, got -2/],
    [() => engine.positionCurve({ n: 10, positionScales: 2 }), /positionScales must be an array/],
    [() => engine.positionCurve({ n: 10, measure: 'sum' }), /measure must be one of 'final', 'received'/],
    [() => engine.positionCurve({ n: 2 ** 21 }), /n must be a whole number from 2 to 1048576, got 2097152/],
    [() => engine.rollout({ n: 2 ** 21 }), /n must be a whole number from 1 to 1048576, got 2097152/],
    [() => engine.needleSweep({ n: 2 }), /n must be a whole number from 3/],
    [() => engine.needleSweep({ n: 3, mitigation: { type: 'query-aware' } }), /n must be a whole number ≥ 4 with the query-aware/],
    [() => engine.needleSweep({ n: 10, depths: 1 }), /depths must be a whole number from 2/],
    [() => engine.needleSweep({ n: 10, noise: -1 }), /noise must be a finite number ≥ 0, got -1/],
    [() => engine.needleSweep({ n: 10, signal: NaN }), /signal must be a finite number, got NaN/],
    [() => engine.needleSweep({ n: 10, seed: 2 ** 32 }), /seed must be a whole number from 0 to 4294967295/],
    [() => engine.needleSweep({ n: 10, metric: 'recall' }), /metric must be one of 'mass', 'top1'/],
    [() => engine.needleSweep({ n: 10, mitigation: { type: 'rerank' } }), /mitigation.type must be one of/],
    [() => engine.needleSweep({ n: 10, mitigation: { type: 'calibration', heads: 2 } }), /unknown option 'heads' in mitigation/],
    [() => engine.needleSweep({ n: 10, mitigation: { type: 'ms-poe', minRatio: 2, maxRatio: 1 } }), /mitigation.maxRatio must be a finite number ≥ minRatio \(2\), got 1/],
    [() => engine.needleSweep({ n: 10, mitigation: { type: 'reorder', retrieverNoise: -1 } }), /mitigation.retrieverNoise must be a finite number ≥ 0/],
    [() => engine.needleGrid({ lengths: [] }), /lengths must be a non-empty array/],
    [() => engine.needleGrid({ lengths: [16, 2] }), /lengths\[1\] must be a whole number from 3/],
    [() => engine.needleGrid({ n: 16, lengths: [16] }), /unknown option 'n' in needleGrid options/],
  ];
  for (const [call, message] of cases) {
    test(String(message), () => assert.throws(call, message));
  }

  test('the engine still answers after failed calls, and its memory stays put', () => {
    engine.needleSweep({ n: 512, depths: 3 });
    const [bytes, inUse] = [engine.memoryBytes, engine.memoryInUseBytes];
    // refused by the core, after the JavaScript checks
    for (let k = 0; k < 2000; ++k) assert.throws(() => engine.positionCurve({ n: 10, residual: 5 }), /residual must be a number in \[0, 1\], got 5/);
    assert.equal(engine.memoryBytes, bytes);
    assert.equal(engine.memoryInUseBytes, inUse);
    assertClose(engine.positionCurve({ n: 16, layers: 4 }).values, referenceRollout({ n: 16, layers: 4 }), 'after errors');
  });
});
