// The words chart 1 gives its curve's shape (web/lab/views/shape.js): the means of the first,
// middle and last tenth of the context, compared with a margin, on hand-made curves and on the
// engine's curves at the settings the page links to.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import createAttention from '../../dist/wasm/attention.mjs';
import { describeShape, stretchMeans } from '../../web/lab/views/shape.js';
import { DEFAULTS, PRESETS, modelOptions, parseHash } from '../../web/lab/state.js';

const engine = await createAttention();

// The page's shares for `settings`: each context position's share divided by the average.
function sharesOf(settings) {
  const { values, summary } = engine.positionCurve({ ...modelOptions(settings), measure: settings.measure });
  return Array.from(values.subarray(0, values.length - 1), (value) => value / summary.mean);
}
const preset = (id) => ({ ...DEFAULTS, ...PRESETS.find((p) => p.id === id).settings });
const near = (actual, expected, what) => assert.ok(Math.abs(actual - expected) <= 0.005 * expected, `${what}: ${actual}, expected ${expected}`);

test('stretchMeans: the means of the first, middle and last tenth, at least one position each', () => {
  // 20 positions: stretches of 2, the middle one positions 9 and 10
  const shares = Array.from({ length: 20 }, (_, j) => j);
  assert.deepEqual(stretchMeans(shares), { first: 0.5, middle: 9.5, last: 18.5 });
  assert.deepEqual(stretchMeans([3, 1, 2]), { first: 3, middle: 1, last: 2 });
});

test('RoPE base 500, s = 12, n = 4,096: recency, though its first token is 3.6× its middle one', () => {
  const shares = sharesOf(parseHash('#n=4096&positional=rope&ropeBase=500&ropeStrength=12').settings);
  const middle = shares[Math.floor((shares.length - 1) / 2)];
  assert.ok(shares[0] > 3 * middle && shares.at(-1) > 3 * middle, `single points: ${shares[0]}, ${middle}, ${shares.at(-1)}`);
  const stretches = stretchMeans(shares);
  near(stretches.first, 0.1432, 'first tenth');
  near(stretches.middle, 0.1418, 'middle tenth');
  near(stretches.last, 9.143, 'last tenth');
  assert.equal(describeShape(stretches), 'recency: the end dominates');
});

test('the presets and the defaults keep their words: a U, primacy, recency, flat; a window\'s sinks below a tenth of a fair share are no start', () => {
  const cases = [
    [DEFAULTS, 'a U: both ends above the middle — the middle is lost', { first: 1.344, middle: 0.9148, last: 1.130 }],
    [preset('primacy'), 'primacy: the start dominates', { first: 10.00 }],
    [preset('recency'), 'recency: the end dominates', { first: 0.04032, middle: 0.4021, last: 4.031 }],
    [preset('bidirectional'), 'nearly flat: no position is favoured', { first: 1, middle: 1, last: 1 }],
    // the four sinks take 0.044× of the first tenth's fair share, the windowed middle 0.013×
    [preset('streaming'), 'recency: the end dominates', { first: 0.04371, middle: 0.01280, last: 4.502 }],
  ];
  for (const [settings, words, expected] of cases) {
    const stretches = stretchMeans(sharesOf(settings));
    for (const [key, value] of Object.entries(expected)) near(stretches[key], value, `${words}, ${key}`);
    assert.equal(describeShape(stretches), words);
  }
});

test('describeShape: an end is above the middle by more than 10% of the larger of the middle and the average', () => {
  const cases = [
    [{ first: 1.11, middle: 1, last: 1.11 }, 'a U: both ends above the middle — the middle is lost'],
    [{ first: 1.09, middle: 1, last: 1.11 }, 'recency: the end dominates'],
    [{ first: 0.11, middle: 0, last: 0.09 }, 'primacy: the start dominates'],
    [{ first: 1e-13, middle: 0, last: 0.09 }, 'nearly flat: no position is favoured'],
    [{ first: 3.52, middle: 3.97, last: 0 }, 'the middle above both ends'],
    [{ first: 0.49, middle: 1.03, last: 1.03 }, 'low at the start, level from the middle to the end'],
    [{ first: 1.64, middle: 1.69, last: 0.02 }, 'level from the start to the middle, low at the end'],
    [{ first: 1.09, middle: 1, last: 0.91 }, 'nearly flat: no position is favoured'],
  ];
  for (const [stretches, words] of cases) assert.equal(describeShape(stretches), words, JSON.stringify(stretches));
});
