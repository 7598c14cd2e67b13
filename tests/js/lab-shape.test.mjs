// The words chart 1 gives its curve's shape (web/lab/views/shape.js): the means of the first,
// middle and last tenth of the context (the engine's summary, in double precision), compared with
// a margin, on hand-made curves and on the engine's curves at the settings the page links to.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { format } from 'd3-format';
import createAttention from '../../dist/wasm/attention.mjs';
import { describeShape, stretchesOf } from '../../web/lab/views/shape.js';
import { DEFAULTS, PRESETS, modelOptions, parseHash } from '../../web/lab/state.js';

const engine = await createAttention();

// The engine's position curve for `settings`, as the page asks for it.
const curveOf = (settings) => engine.positionCurve({ ...modelOptions(settings), measure: settings.measure });

// The page's shares of a curve: each context position's share divided by the average.
const sharesOf = ({ values, summary }) => Array.from(values.subarray(0, values.length - 1), (value) => value / summary.mean);

// The mean of `values` from `start`, over `width` of them.
const meanOf = (values, start, width) => values.slice(start, start + width).reduce((sum, v) => sum + v, 0) / width;

const preset = (id) => ({ ...DEFAULTS, ...PRESETS.find((p) => p.id === id).settings });
const near = (actual, expected, what) => assert.ok(Math.abs(actual - expected) <= 0.005 * expected, `${what}: ${actual}, expected ${expected}`);

test('stretchesOf: the engine\'s tenths ÷ the average, the means of the float32 shares\' first, middle and last tenth where those hold them', () => {
  // 1,023 context positions: tenths of 102, the middle one from 460; 4,095: tenths of 410, from 1,842
  for (const hash of ['', '#n=4096&positional=rope&ropeBase=500&ropeStrength=12', '#measure=received']) {
    const curve = curveOf(parseHash(hash).settings);
    const shares = sharesOf(curve);
    const width = Math.round(shares.length / 10);
    const expected = { first: meanOf(shares, 0, width), middle: meanOf(shares, Math.floor((shares.length - width) / 2), width),
      last: meanOf(shares, shares.length - width, width) };
    const stretches = stretchesOf(curve.summary);
    for (const key of ['first', 'middle', 'last']) near(stretches[key], expected[key], `${hash || 'defaults'}: ${key} tenth`);
  }
  assert.deepEqual(stretchesOf({ firstTenth: 1, middleTenth: 0.5, lastTenth: 3, mean: 2 }), { first: 0.5, middle: 0.25, last: 1.5 });
});

test('a steep ALiBi start keeps its size: slope 0.3162\'s first two tenths, 0 in float32, are 3.2e-116 and 1.5e-55 of the average', () => {
  const curve = curveOf(parseHash('#slope=0.3162').settings);
  const shares = sharesOf(curve);
  assert.equal(meanOf(shares, 0, 102), 0, 'the float32 shares of the first tenth');
  const { first, middle, last } = stretchesOf(curve.summary);
  near(first, 3.153e-116, 'first tenth');
  near(middle, 1.470e-55, 'middle tenth');
  near(last, 10.03, 'last tenth');
  assert.equal(describeShape({ first, middle, last }), 'recency: the end dominates');
});

test('RoPE base 500, s = 12, n = 4,096: recency, though its first token is 3.6× its middle one', () => {
  const curve = curveOf(parseHash('#n=4096&positional=rope&ropeBase=500&ropeStrength=12').settings);
  const shares = sharesOf(curve);
  const middle = shares[Math.floor((shares.length - 1) / 2)];
  assert.ok(shares[0] > 3 * middle && shares.at(-1) > 3 * middle, `single points: ${shares[0]}, ${middle}, ${shares.at(-1)}`);
  const stretches = stretchesOf(curve.summary);
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
    const stretches = stretchesOf(curveOf(settings).summary);
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

test('chart 1\'s explanation: the defaults\' U is a balance for n = 1,024, tipping to primacy at 768 and recency at 1,536; depth alone keeps its shape at every n', () => {
  const page = readFileSync(new URL('../../web/lab/lab.html', import.meta.url), 'utf8').replace(/\s+/g, ' ');
  const tenthsAt = (settings) => stretchesOf(curveOf(settings).summary);
  const cases = [[768, 'primacy: the start dominates', [1.791, 0.8770, 0.9062]], [1024, 'a U: both ends above the middle — the middle is lost', [1.344, 0.9148, 1.130]],
    [1536, 'recency: the end dominates', [0.6941, 0.9131, 1.611]]];
  for (const [n, words, expected] of cases) {
    const stretches = tenthsAt({ ...DEFAULTS, n });
    ['first', 'middle', 'last'].forEach((key, k) => near(stretches[key], expected[k], `n = ${n}, ${key} tenth`));
    assert.equal(describeShape(stretches), words, `n = ${n}`);
    assert.ok(page.includes(`(${expected.map((v) => `${format('.3~g')(v)}×`).join(', ')})`), `the page quotes n = ${n}'s tenths`);
  }
  for (const n of [256, 512, 1024, 2048, 4096]) {
    const depth = tenthsAt({ ...DEFAULTS, n, positional: 'none' });
    ['first', 'middle', 'last'].forEach((key, k) => assert.ok(Math.abs(depth[key] - [3.5, 0.64, 0.37][k]) < 0.02 * [3.5, 0.64, 0.37][k] + 0.05,
      `depth alone, n = ${n}, ${key} tenth: ${depth[key]}`));
  }
  assert.ok(page.includes('about 3.5×, 0.64× and 0.37× the average at every n from 256 to 4,096'));
});

test('no setting keeps a U across lengths: on a sample of the page\'s grid (L, α, slope), none is a U at more than 2 of the 9 lengths from 256 to 4,096', () => {
  const lengths = [256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096];
  const slopes = [-4, -3.5, -3, -2.75, -2.5, -2.25, -2].map((power) => Number((10 ** power).toPrecision(2)));
  let most = 0;
  for (const layers of [2, 4, 12, 32]) {
    for (const residual of [0, 0.5, 0.7, 0.85, 0.95]) {
      for (const slope of slopes) {
        const us = lengths.filter((n) => describeShape(stretchesOf(curveOf({ ...DEFAULTS, n, layers, residual, slope }).summary)).startsWith('a U'));
        most = Math.max(most, us.length);
      }
    }
  }
  assert.equal(most, 2);
  const page = readFileSync(new URL('../../web/lab/lab.html', import.meta.url), 'utf8').replace(/\s+/g, ' ');
  assert.ok(page.includes('none is a U at more than 2 of the 9 lengths from 256 to 4,096'));
});

test('a window\'s reach over L layers is L·(w − 1) tokens: the Sinks + window preset reaches all of 1,024 tokens (the first 2.2e-9 of the average without sinks); at 2,048 positions 4 to 522 get exactly 0', () => {
  const streaming = preset('streaming');
  const noSinks = curveOf({ ...streaming, sinks: 0 });
  near(noSinks.values[0] / noSinks.summary.mean, 2.196e-9, 'the first token without sinks');
  assert.equal(Array.from(noSinks.values).filter((v) => v === 0).length, 0);
  const long = Array.from(curveOf({ ...streaming, n: 2048 }).values);
  const zeros = long.flatMap((v, j) => (v === 0 ? [j] : []));
  assert.deepEqual([zeros.length, zeros[0], zeros.at(-1)], [519, 4, 522]);
  assert.equal(2047 - streaming.layers * (streaming.window - 1), 523, 'the first position the final token reaches beyond the sinks');
  const page = readFileSync(new URL('../../web/lab/lab.html', import.meta.url), 'utf8').replace(/\s+/g, ' ');
  assert.ok(page.includes('12 × 127 = 1,524') && page.includes('still gets 2.2e-9 of the average') && page.includes('at 2,048 tokens positions 4 to 522 get exactly 0'));
});
