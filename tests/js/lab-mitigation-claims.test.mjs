// The lab's texts about its own numbers (web/lab/mitigations.js, chart 3 of lab.html) held to
// the engine's numbers at the settings they name: the defaults and the presets.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { format } from 'd3-format';
import createAttention from '../../dist/wasm/attention.mjs';
import { MITIGATIONS } from '../../web/lab/mitigations.js';
import { DEFAULTS, PRESETS, drawsAtRandom, mitigationOption, modelOptions, needleOptions } from '../../web/lab/state.js';

const engine = await createAttention();
const preset = (id) => ({ ...DEFAULTS, ...PRESETS.find((p) => p.id === id).settings });
const sweep = (settings, type) => Array.from(engine.needleSweep({
  ...modelOptions(settings), ...needleOptions(settings), ...(type && { mitigation: { type } }),
}).retrieval);
const mean = (values) => values.reduce((a, b) => a + b, 0) / values.length;

test('chart 3: with the defaults the position curve is highest at the start, the needle found best at the end, worst near depth 10%, every depth from the second document to the middle below the middle; the page quotes the numbers', () => {
  const { summary } = engine.positionCurve(modelOptions(DEFAULTS));
  assert.ok(summary.begin > summary.end && summary.begin / summary.mean > 5, `position curve ${summary.begin / summary.mean}× at the start, ${summary.end / summary.mean}× at the end`);
  const needle = sweep(DEFAULTS);
  const mass = format('.3g');
  assert.deepEqual([needle[0], needle[1], needle[5], needle.at(-1)].map(mass), ['0.00601', '0.00144', '0.00300', '0.0110']);
  assert.equal(needle.indexOf(Math.min(...needle)), 1, 'the worst of 11 depths is 10%');
  needle.slice(1).forEach((value, k) => k === 0 || assert.ok(value > needle[k], `rises from 10% to the end: ${needle}`));
  // 201 depths, every 0.5%: the worst at 9.5%; every depth from 0.5% to 49.5% below the middle's
  const fine = Array.from(engine.needleSweep({ ...modelOptions(DEFAULTS), ...needleOptions(DEFAULTS), depths: 201 }).retrieval);
  assert.equal(fine.indexOf(Math.min(...fine)), 19);
  assert.ok(fine.slice(1, 100).every((value) => value < fine[100]) && fine[0] > fine[100]);
  // the worst depth is 10% or 20% of 11 at every length the grid shows from 256 on
  for (const [n, worst] of [[256, 2], [512, 2], [768, 1], [1024, 1], [2048, 1], [4096, 1]]) {
    const values = sweep({ ...DEFAULTS, n });
    assert.equal(values.indexOf(Math.min(...values)), worst, `n = ${n}: ${values}`);
  }
  const page = readFileSync(new URL('../../web/lab/lab.html', import.meta.url), 'utf8').replace(/\s+/g, ' ');
  for (const quote of ['a mass of 0.0110 at 100%', 'worst near depth 10% (0.00144)', 'less than the middle one (0.00300)', 'gets more (0.00601)']) {
    assert.ok(page.includes(quote), quote);
  }
});

test('reordering: with the defaults the mean falls; with the Recency preset the mean and the worst depth rise, the last depths lose', () => {
  assert.ok(mean(sweep(DEFAULTS, 'reorder')) < mean(sweep(DEFAULTS)));
  const recency = preset('recency');
  const [before, after] = [sweep(recency), sweep(recency, 'reorder')];
  assert.ok(mean(after) > mean(before) && Math.min(...after) > Math.min(...before), `${before} → ${after}`);
  assert.ok(after.at(-1) < before.at(-1) && after.at(-2) < before.at(-2), `${before} → ${after}`);
});

test('query-aware: with the defaults the mass rises at every depth, the top-1 rate rises at the first document and falls at the last', () => {
  const [before, after] = [sweep(DEFAULTS), sweep(DEFAULTS, 'query-aware')];
  after.forEach((value, k) => assert.ok(value > before[k], `depth ${k}: ${before[k]} → ${value}`));
  const top1 = { ...DEFAULTS, metric: 'top1' };
  const [rateBefore, rateAfter] = [sweep(top1), sweep(top1, 'query-aware')];
  assert.ok(rateAfter[0] > rateBefore[0] && rateAfter.at(-1) < rateBefore.at(-1), `${rateBefore} → ${rateAfter}`);
  assert.ok(mean(rateAfter) < mean(rateBefore), 'and its mean falls');
});

test('calibration: nearly flat (to 1%) with the Recency preset; with the defaults the late depths lose and the early ones gain; no change with the Primacy preset', () => {
  const flat = sweep(preset('recency'), 'calibration');
  assert.ok(Math.max(...flat) - Math.min(...flat) < 0.01 * Math.max(...flat), `${flat}`);
  const [before, after] = [sweep(DEFAULTS), sweep(DEFAULTS, 'calibration')];
  assert.ok(after.at(-1) < before.at(-1) && after.at(-2) < before.at(-2), 'the last depths lose');
  assert.ok(after[0] > before[0] && after[1] > before[1], 'the first depths gain');
  assert.deepEqual(sweep(preset('primacy'), 'calibration'), sweep(preset('primacy')));
});

test('Ms-PoE: with the defaults the end loses and the middle and start gain; no change with the Primacy preset', () => {
  const [before, after] = [sweep(DEFAULTS), sweep(DEFAULTS, 'ms-poe')];
  const middle = Math.floor(before.length / 2);
  assert.ok(after.at(-1) < before.at(-1) && after[middle] > before[middle] && after[0] > before[0], `${before} → ${after}`);
  assert.deepEqual(sweep(preset('primacy'), 'ms-poe'), sweep(preset('primacy')));
});

test('the needle note\'s trials: a sweep\'s seeded trials differ exactly when drawsAtRandom says so, without noise only after reordering (its retriever\'s error), with the page\'s mitigation options', () => {
  const trialsOf = (settings, mitigated) => (trials) => Array.from(engine.needleSweep({
    ...modelOptions(settings), ...needleOptions({ ...settings, trials }), ...(mitigated && { mitigation: mitigationOption(settings) }),
  }).retrieval);
  for (const noise of [0, 0.25]) {
    for (const mitigation of ['query-aware', 'calibration', 'ms-poe', 'reorder']) {
      const settings = { ...DEFAULTS, n: 256, noise, mitigation };
      for (const mitigated of [false, true]) {
        const run = trialsOf(settings, mitigated);
        const differ = JSON.stringify(run(8)) !== JSON.stringify(run(1));
        assert.equal(drawsAtRandom(settings, { mitigated }), differ, `noise ${noise}, ${mitigated ? mitigation : 'no mitigation'}: 8 trials ${differ ? 'differ from' : 'give'} one`);
      }
    }
  }
  assert.equal(drawsAtRandom({ ...DEFAULTS, noise: 0, mitigation: 'reorder' }, { mitigated: true }), true);
});

test('the texts name the page\'s controls as the page labels them: query-aware\'s “Retrieval measured as” is chart 3\'s select, whose options include the top-1 rate', () => {
  const page = readFileSync(new URL('../../web/lab/lab.html', import.meta.url), 'utf8');
  // the element labelled by `heading`, up to its closing tag
  const part = (heading, end) => page.slice(page.indexOf(`aria-labelledby="${heading}"`), page.indexOf(end, page.indexOf(`aria-labelledby="${heading}"`)));
  const named = Object.values(MITIGATIONS).flatMap(({ what, model, helps }) => [...`${what} ${model} ${helps}`.matchAll(/“([^”]+)”/g)].map((m) => m[1]));
  assert.deepEqual(named, ['Retrieval measured as']);
  assert.match(MITIGATIONS['query-aware'].helps, /set “Retrieval measured as”, above chart 3, to the top-1 rate/);
  assert.match(part('needle-heading', '</section>'), /<label for="metric">Retrieval measured as<\/label>\s*<select id="metric" name="metric">[^]*<option value="top1">top-1 rate over trials<\/option>/);
  assert.doesNotMatch(part('controls-heading', '</form>'), /top-1/, 'the Measure fieldset has no top-1 option');
});
