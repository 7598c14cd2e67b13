// The lab's texts about its own numbers (web/lab/mitigations.js, chart 3 of lab.html) held to
// the engine's numbers at the settings they name: the defaults and the presets.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import createAttention from '../../dist/wasm/attention.mjs';
import { DEFAULTS, PRESETS, drawsAtRandom, mitigationOption, modelOptions, needleOptions } from '../../web/lab/state.js';

const engine = await createAttention();
const preset = (id) => ({ ...DEFAULTS, ...PRESETS.find((p) => p.id === id).settings });
const sweep = (settings, type) => Array.from(engine.needleSweep({
  ...modelOptions(settings), ...needleOptions(settings), ...(type && { mitigation: { type } }),
}).retrieval);
const mean = (values) => values.reduce((a, b) => a + b, 0) / values.length;

test('chart 3: with the defaults the position curve is highest at the start, the needle found best at the end, then the start, least in the middle', () => {
  const { summary } = engine.positionCurve(modelOptions(DEFAULTS));
  assert.ok(summary.begin > summary.end && summary.begin / summary.mean > 5, `position curve ${summary.begin / summary.mean}× at the start, ${summary.end / summary.mean}× at the end`);
  const needle = sweep(DEFAULTS);
  const middle = needle[Math.floor(needle.length / 2)];
  assert.ok(needle.at(-1) > needle[0] && needle[0] > middle, `needle ${needle[0]}, ${middle}, ${needle.at(-1)}`);
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
