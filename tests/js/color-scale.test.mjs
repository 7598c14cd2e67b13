// The heatmap's log colour scale in Node: the colour steps of weights on it (web/shared/heatmap/
// colors.js colorSteps), its domain and floor (heatmap.js logColorDomain), the legend's ticks
// (legend.js fittingLogTicks), the swatch of the weights under its low end (specialsIn), and the
// playground's setting (web/playground/state.js): linear by default, in the link as cs=log,
// applied to weights alone.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { scaleLog } from 'd3-scale';
import { COLOR_STEPS, colorStep, colorSteps, specialsIn } from '../../web/shared/heatmap/colors.js';
import { colorDomain, logColorDomain } from '../../web/shared/heatmap/heatmap.js';
import { belowLabel, fittingLogTicks } from '../../web/shared/heatmap/legend.js';
import { formatHash, logColors, parseHash, pinnedSettings } from '../../web/playground/state.js';
import { mulberry32 } from './reference.mjs';

const TOP = COLOR_STEPS - 1;

// A panel of the given weights (masked where `masked` says), as the engine's pooled blocks come.
const panel = (weights, masked = weights.map(() => 0)) => ({ weights: Float32Array.from(weights), masked: Uint8Array.from(masked) });

describe('log colour steps', () => {
  const step = colorSteps([1e-6, 1], true);

  test('lo takes the lowest colour, hi the highest, the geometric midpoint the middle one', () => {
    assert.equal(step(1e-6), 0);
    assert.equal(step(1), TOP);
    assert.equal(step(1e-3), Math.round(TOP / 2), '√(1e-6 · 1) = 1e-3, half way');
    assert.equal(step(1e-5), Math.round(TOP / 6), 'each decade a sixth of the colours');
    assert.equal(step(1e-2), Math.round((4 * TOP) / 6));
    assert.equal(step(2), TOP, 'above hi: the highest');
  });

  test('under the floor, 0 and negative weights take the floor\'s colour', () => {
    for (const w of [9.9e-7, 1e-30, 1e-45, 0, -0, -0.25]) assert.equal(step(w), 0, `${w}`);
  });

  test('a domain that is not a power of ten: steps follow log10, the midpoint √(lo·hi)', () => {
    const [lo, hi] = [0.012, 0.75];
    const steps = colorSteps([lo, hi], true);
    assert.equal(steps(lo), 0);
    assert.equal(steps(hi), TOP);
    assert.ok(Math.abs(steps(Math.sqrt(lo * hi)) - TOP / 2) <= 0.5, 'the middle: step 127 or 128 of 0 … 255');
    const random = mulberry32(7);
    for (let c = 0; c < 200; ++c) {
      const w = lo * (hi / lo) ** random();
      assert.equal(steps(w), Math.round((TOP * Math.log(w / lo)) / Math.log(hi / lo)), `${w}`);
    }
  });

  test('linear steps stay colorStep\'s', () => {
    const linear = colorSteps([0, 0.5]);
    for (const w of [-1, 0, 0.1, 0.25, 0.5, 0.7]) assert.equal(linear(w), colorStep(w, 0, 0.5));
    assert.equal(linear(1e-3), 1, 'a weight of 1e-3 over [0, 0.5] is in the second darkest step');
  });
});

describe('the log scale\'s domain', () => {
  test('reaches down to a hundredth of an even share, 1/(100·n), rounded down to a power of ten', () => {
    const causal = panel([1, 0.5, 0.5, 1e-3, 2e-8, 0]);
    assert.deepEqual(logColorDomain([causal], 4096), [1e-6, 1], '1/409,600 = 2.4e-6 → 1e-6');
    assert.deepEqual(logColorDomain([causal], 1000), [1e-5, 1], '1/100,000 exactly');
    assert.deepEqual(logColorDomain([causal], 8), [1e-3, 1], '1/800 = 1.25e-3 → 1e-3');
  });

  test('starts at the smallest weight above 0, rounded down to two digits, when the floor is below it', () => {
    assert.deepEqual(logColorDomain([panel([0.3, 0.0123456, 0.2])], 6), [0.012, Math.fround(0.3)]);
    assert.deepEqual(logColorDomain([panel([0.3, 0.05, 0]), panel([0.125, 0.4])], 6), [0.05, Math.fround(0.4)],
      'every panel, and a zero left under it');
  });

  test('leaves out masked and non-finite cells', () => {
    const weights = panel([1, 0.2, NaN, Infinity, 2 ** -6, 1e-9], [1, 0, 0, 0, 0, 1]);
    assert.deepEqual(logColorDomain([weights], 16), [0.015, Math.fround(0.2)], '2^-6 = 0.015625 rounded down');
  });

  test('a decade below hi when every weight is the same; [floor, 1] without a weight above 0', () => {
    assert.deepEqual(logColorDomain([panel([0.25, 0.25, 0.25, 0.25])], 4), [0.025, 0.25]);
    assert.deepEqual(logColorDomain([panel([0, 0, 1], [0, 0, 1])], 3), [1e-3, 1]);
  });

  test('the linear domain is unchanged: [0, the largest weight]', () => {
    assert.deepEqual(colorDomain([panel([1, 0.5, 1e-3, 0])], 'weights'), [0, 1]);
  });

  test('weights under the low end are listed for the legend\'s swatch, named “≤ lo”', () => {
    const causal = panel([1, 0.5, 2e-8, 0.01, 0.7], [0, 0, 0, 0, 1]);
    assert.equal(specialsIn([causal], 'weights', 1e-6).below, true);
    assert.equal(specialsIn([causal], 'weights', 1e-9).below, false);
    assert.equal(specialsIn([causal], 'weights').below, false, 'a linear scale has none');
    assert.equal(belowLabel(1e-6), '≤ 1e-6');
    assert.equal(belowLabel(0.012), '≤ 1.2e-2');
    assert.equal(belowLabel(0.05), '≤ 0.05');
  });
});

describe('the log legend\'s ticks', () => {
  const labels = (domain, width) => {
    const { ticks, format } = fittingLogTicks(scaleLog().domain(domain).range([0, width]));
    return ticks.map(format);
  };

  test('are the powers of ten, every one where they fit, from the floor up', () => {
    assert.deepEqual(labels([1e-6, 1], 240), ['1e-6', '1e-5', '1e-4', '1e-3', '0.01', '0.1', '1']);
    assert.deepEqual(labels([1e-6, 0.73], 240), ['1e-6', '1e-5', '1e-4', '1e-3', '0.01', '0.1']);
  });

  test('thin to every second, third … power from the lowest where the labels would touch', () => {
    assert.deepEqual(labels([1e-6, 1], 120), ['1e-6', '1e-4', '0.01', '1']);
    assert.deepEqual(labels([1e-6, 1], 90), ['1e-6', '1e-3', '1']);
  });

  test('within a decade or two: 1, 2 and 5 times the powers', () => {
    assert.deepEqual(labels([0.04, 0.4], 240), ['0.05', '0.1', '0.2']);
    assert.deepEqual(labels([0.012, 0.3], 240), ['0.02', '0.05', '0.1', '0.2']);
  });
});

describe('the colour scale setting', () => {
  test('is linear by default and left out of the link, so old links read as before', () => {
    const { state, problems } = parseHash('#c=1&val=weights');
    assert.deepEqual(problems, []);
    assert.equal(state.colorScale, 'linear');
    assert.equal(formatHash(state), 'c=1');
  });

  test('round-trips as cs=log, and a value it does not take is named', () => {
    const { state } = parseHash('#c=1&cs=log');
    assert.equal(state.colorScale, 'log');
    assert.equal(formatHash(state), 'c=1&cs=log');
    assert.deepEqual(parseHash(`#${formatHash(state)}`).state, state);
    const bad = parseHash('#cs=loga');
    assert.equal(bad.state.colorScale, 'linear');
    assert.equal(bad.problems.length, 1);
    assert.match(bad.problems[0], /^cs \(colour scale\) must be one of linear, log/);
  });

  test('applies to weights alone: scores stay linear', () => {
    assert.equal(logColors(parseHash('#cs=log').state), true);
    assert.equal(logColors(parseHash('#cs=log&val=scores').state), false);
    assert.equal(logColors(parseHash('').state), false);
  });

  test('is what is on display, so A (pinned) holds none of it', () => {
    const state = parseHash('#cs=log&h=2').state;
    assert.equal(pinnedSettings(state).colorScale, 'linear');
  });
});
