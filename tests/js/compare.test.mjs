// The playground's comparison in Node: B − A of two pooled panels (web/shared/heatmap/difference.js)
// against the engine's two results cell by cell and against a plain loop over generated
// sizes and masks, its symmetric colour domain, and the link that carries A beside B
// (web/playground/state.js): round trip, A's problems named, a text too long for a link.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import createAttention from '../../dist/wasm/attention.mjs';
import { scaleLinear } from 'd3-scale';
import { panelDifference, symmetricDomain } from '../../web/shared/heatmap/difference.js';
import { fittingTicks } from '../../web/shared/heatmap/legend.js';
import {
  LIMITS, formatHash, formatLink, parseHash, pinnedSettings, settingsDifferences,
} from '../../web/playground/state.js';
import { mulberry32, randomInt } from './reference.mjs';

const engine = await createAttention();
const CASES = 60;
const MAX_CELLS = 40;

// A panel of rows×cols cells: weights in [0, 1), scores in [−4, 4), each masked with
// probability `maskRate` (score −Infinity, weight 0, as engine.poolBlocks marks them).
function panel(random, rows, cols, maskRate) {
  const cells = rows * cols;
  const result = {
    cellRows: rows, cellCols: cols, scores: new Float32Array(cells), weights: new Float32Array(cells), masked: new Uint8Array(cells),
  };
  for (let k = 0; k < cells; ++k) {
    if (random() < maskRate) {
      result.masked[k] = 1;
      result.scores[k] = -Infinity;
    } else {
      result.weights[k] = random();
      result.scores[k] = random() * 8 - 4;
    }
  }
  return result;
}

// The whole n×n matrix of one head as the worker's `blocks` gives it to the page, cell by cell.
const wholeHead = (result, head, n) => engine.poolBlocks({
  scores: result.scores[head].data, weights: result.weights[head].data, stride: n, row0: 0, col0: 0, rows: n, cols: n, block: 1, mode: 'max',
});

describe('B − A', () => {
  test('of the engine’s results without and with a causal mask: each cell is the float32 difference of the two', () => {
    const random = mulberry32(20261124);
    const n = 9;
    const x = { rows: n, cols: 4, data: Float32Array.from({ length: n * 4 }, () => random()) };
    const a = engine.selfAttention(x, { heads: 2 });
    const b = engine.selfAttention(x, { heads: 2, causal: true });
    for (const head of [0, 1]) {
      const difference = panelDifference(wholeHead(a, head, n), wholeHead(b, head, n));
      for (let i = 0; i < n; ++i) {
        for (let j = 0; j < n; ++j) {
          const k = i * n + j;
          const [wa, wb] = [a.weights[head].data[k], b.weights[head].data[k]];
          assert.equal(difference.weights[k], Math.fround(wb - wa), `head ${head}, cell (${i}, ${j})`);
          assert.equal(difference.masked[k], 0, 'A masks nothing, so no cell is masked in both');
          if (j > i) {
            assert.equal(difference.weights[k], -wa, 'masked in B: B − A is minus A\'s weight');
            assert.equal(difference.scores[k], -Infinity, 'masked in B: the score difference is −Infinity');
          } else {
            assert.equal(difference.scores[k], Math.fround(b.scores[head].data[k] - a.scores[head].data[k]));
          }
        }
      }
      // rows of weights sum to one in both, so each row of B − A sums to zero
      for (let i = 0; i < n; ++i) {
        const sum = difference.weights.subarray(i * n, (i + 1) * n).reduce((s, v) => s + v, 0);
        assert.ok(Math.abs(sum) < 1e-6, `row ${i} of B − A sums to ${sum}`);
      }
    }
  });

  test('over generated sizes and masks: masked where both are, ±Infinity scores where one is, zero for A − A', () => {
    const random = mulberry32(7);
    for (let c = 0; c < CASES; ++c) {
      const rows = randomInt(random, 1, MAX_CELLS);
      const cols = randomInt(random, 1, MAX_CELLS);
      const a = panel(random, rows, cols, random() * 0.5);
      const b = panel(random, rows, cols, random() * 0.5);
      const difference = panelDifference(a, b);
      assert.deepEqual([difference.cellRows, difference.cellCols], [rows, cols]);
      for (let k = 0; k < rows * cols; ++k) {
        const both = a.masked[k] === 1 && b.masked[k] === 1;
        assert.equal(difference.masked[k], both ? 1 : 0);
        if (both) continue;
        assert.equal(difference.weights[k], Math.fround(b.weights[k] - a.weights[k]));
        const expectedScore = a.masked[k] ? Infinity : b.masked[k] ? -Infinity : Math.fround(b.scores[k] - a.scores[k]);
        assert.equal(difference.scores[k], expectedScore, `case ${c}, cell ${k}`);
      }
      const same = panelDifference(a, a);
      assert.ok(same.weights.every((v) => v === 0));
      assert.ok(same.scores.every((v, k) => v === 0 || same.masked[k] === 1));
      assert.deepEqual(same.masked, a.masked);
    }
  });

  test('panels of other sizes are refused, naming both', () => {
    const random = mulberry32(3);
    assert.throws(() => panelDifference(panel(random, 3, 4, 0), panel(random, 4, 3, 0)), { message: 'b has 4×3 cells but a has 3×4' });
  });

  test('the symmetric domain holds every finite, unmasked value with 0 in its middle', () => {
    const random = mulberry32(11);
    for (let c = 0; c < CASES; ++c) {
      const values = Float32Array.from({ length: randomInt(random, 1, 200) }, () => (random() - 0.7) * 3);
      const masked = Uint8Array.from(values, () => (random() < 0.2 ? 1 : 0));
      values[0] = masked[0] ? values[0] : NaN;
      const [lo, hi] = symmetricDomain(values, masked);
      assert.equal(lo, -hi);
      const visible = [...values].filter((v, k) => !masked[k] && Number.isFinite(v)).map(Math.abs);
      if (visible.length > 0) assert.equal(hi, Math.max(...visible));
    }
    assert.deepEqual(symmetricDomain(new Float32Array(4), new Uint8Array(4)), [-1, 1], 'all zero');
    assert.deepEqual(symmetricDomain(Float32Array.of(Infinity, 5, -0.5), Uint8Array.of(0, 1, 0)), [-0.5, 0.5], 'masked and infinite cells left out');
  });
});

describe('legend ticks', () => {
  test('fit their width: a small signed range gets fewer ticks than d3 offers, the weights keep theirs', () => {
    const labels = (domain, width) => {
      const { ticks, format } = fittingTicks(scaleLinear().domain(domain).range([0, width]), width);
      return ticks.map(format);
    };
    assert.equal(scaleLinear().domain([-0.0078, 0.0078]).ticks(5).length, 7, 'what d3 offers for 5');
    assert.deepEqual(labels([-0.0078, 0.0078], 288), ['−0.005', '0.000', '0.005']);
    assert.deepEqual(labels([0, 1], 288), ['0.0', '0.2', '0.4', '0.6', '0.8', '1.0']);
    const random = mulberry32(5);
    for (let c = 0; c < CASES; ++c) {
      const hi = 10 ** (random() * 8 - 5);
      const width = randomInt(random, 60, 400);
      const shown = labels([-hi * random(), hi], width);
      assert.ok(shown.length >= 1);
      const needed = shown.reduce((sum, label) => sum + label.length * 7 + 10, 0);
      assert.ok(needed <= width || shown.length <= 3, `${shown.join(' ')} in ${width} px`);
    }
  });
});

describe('the link with A and B', () => {
  const compared = () => {
    const b = parseHash('#t=The+cat+sat&h=2&c=1&w=3&q=1&val=scores').state;
    b.pinned = pinnedSettings({ ...b, heads: 1, causal: false, positional: 'rope', text: 'The dog sat' });
    return b;
  };

  test('round-trips A and B, A holding only computed settings', () => {
    const state = compared();
    const hash = formatHash(state);
    assert.match(hash, /(^|&)a=/);
    const { state: back, problems } = parseHash(`#${hash}`);
    assert.deepEqual(problems, []);
    assert.deepEqual(back, state);
    assert.equal(back.pinned.heads, 1);
    assert.equal(back.pinned.positional, 'rope');
    assert.equal(back.pinned.text, 'The dog sat');
    assert.equal(back.pinned.window, 3, 'A keeps what it was pinned with');
    assert.equal(back.pinned.query, parseHash('').state.query, 'the query shown is B\'s: A holds the default');
    assert.equal(back.pinned.value, 'weights', 'so is the colour');
    assert.equal(back.pinned.pinned, null);
    assert.deepEqual(formatLink(state), { hash, textLeftOut: false });
  });

  test('A at its defaults still pins: a=', () => {
    const state = parseHash('#h=2').state;
    state.pinned = pinnedSettings(parseHash('').state);
    assert.equal(formatHash(state), 'h=2&a=');
    assert.deepEqual(parseHash('#h=2&a=').state, state);
    assert.equal(parseHash('#h=2').state.pinned, null);
  });

  test('A\'s bad parts are ignored and named “A: …”, beside B\'s', () => {
    const { state, problems } = parseHash(`#h=0&c=1&a=${encodeURIComponent('h=2&w=%ZZ&c=2&zz=1&a=h%3D1')}`);
    assert.equal(state.heads, 1);
    assert.equal(state.causal, true);
    assert.equal(state.pinned.heads, 2);
    assert.equal(state.pinned.causal, false);
    assert.deepEqual(problems, [
      'h (number of heads) must be a whole number from 1 to 16, got “0”',
      'A: malformed percent-encoding in “w=%ZZ” (a % must start an escape such as %C3%A9)',
      'A: c (causal mask) must be 0 or 1, got “2”',
      'A: unknown setting “zz”',
      'A: unknown setting “a”',
    ]);
  });

  test('a text of A too long for a link is left out, and the link says so', () => {
    const state = parseHash('#h=2').state;
    state.pinned = pinnedSettings({ ...state, text: 'a'.repeat(LIMITS.MAX_LINK_TEXT + 1) });
    assert.deepEqual(formatLink(state), { hash: 'h=2&a=h%3D2', textLeftOut: true });
  });

  test('what B changed, as the comparison says it', () => {
    const state = compared();
    assert.deepEqual(settingsDifferences(state.pinned, state), [
      { label: 'text', a: 'The dog sat', b: 'The cat sat' },
      { label: 'number of heads', a: '1', b: '2' },
      { label: 'causal mask', a: 'off', b: 'on' },
      { label: 'positional encoding', a: 'rope', b: 'none' },
    ]);
    assert.deepEqual(settingsDifferences(state, state), []);
  });
});
