// Which tokens the heatmap labels when only every step-th label fits (web/shared/heatmap/heatmap.js
// labelledPositions, which the canvas and the SVG figure both use): golden cases at the region's
// edges, and its properties over generated regions, steps and standouts.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { labelledPositions } from '../../web/shared/heatmap/heatmap.js';
import { mulberry32, randomInt } from './reference.mjs';

const CASES = 2000;

describe('labelled token positions', () => {
  test('golden cases: standouts always, every step-th position away from them, nothing outside the region', () => {
    assert.deepEqual(labelledPositions(0, 10, 3, [4]), [0, 4, 9], '3 and 6 are within a step of the query at 4');
    assert.deepEqual(labelledPositions(5, 5, 2, [4]), [6, 8], 'a query just outside the region thins nothing');
    assert.deepEqual(labelledPositions(5, 5, 2, [4, 9, 9]), [6, 9], 'a standout twice is one label');
    assert.deepEqual(labelledPositions(0, 6, 1, [2]), [0, 1, 2, 3, 4, 5], 'every label fits');
    assert.deepEqual(labelledPositions(100, 64, 16, [163]), [112, 128, 144, 163], 'the query at the last position');
    assert.deepEqual(labelledPositions(0, 0, 2, [0]), [], 'an empty region');
    assert.deepEqual(labelledPositions(0, 10, 3, [9, 4, 5]), [0, 4, 9], 'the marked 5 is within a step of the marked 4 before it');
    assert.deepEqual(labelledPositions(0, 10, 3, [5, 4]), [0, 5, 9], 'the query at 5 takes precedence over the marked 4');
    assert.deepEqual(labelledPositions(0, 6, 1, [3, 2]), [0, 1, 2, 3, 4, 5], 'adjacent standouts both fit');
    assert.deepEqual(labelledPositions(0, 10, 3, [9, 4, 5], 1), [0, 4, 5, 9], 'standouts a standout step apart both stay');
    assert.deepEqual(labelledPositions(0, 10, 3, [9, 4, 5, 6], 2), [0, 4, 6, 9], '5 is within a standout step of 4, 6 is not');
  });

  test('over generated regions: labels never closer than a step, the query always, the grid elsewhere', () => {
    const random = mulberry32(20261124);
    for (let c = 0; c < CASES; ++c) {
      const start = randomInt(random, 0, 200), count = randomInt(random, 0, 120), step = randomInt(random, 1, 20);
      const standoutStep = randomInt(random, 1, step);
      const standouts = Array.from({ length: randomInt(random, 0, 4) }, () => randomInt(random, Math.max(0, start - 30), start + count + 30));
      const got = labelledPositions(start, count, step, standouts, standoutStep);
      const what = `start ${start}, count ${count}, step ${step} (standouts ${standoutStep}), standouts ${standouts}: ${got}`;
      const inside = (t) => t >= start && t < start + count;
      assert.ok(got.every(inside), `inside the region; ${what}`);
      for (let k = 1; k < got.length; ++k) {
        const bothStandouts = standouts.includes(got[k]) && standouts.includes(got[k - 1]);
        assert.ok(got[k] - got[k - 1] >= (bothStandouts ? standoutStep : step), `far enough apart; ${what}`);
      }
      const first = standouts.find(inside);
      if (first !== undefined) assert.ok(got.includes(first), `the first standout inside; ${what}`);
      standouts.filter(inside).forEach((s, k, own) => {
        const before = own.slice(0, k).filter((b) => got.includes(b));
        if (before.every((b) => Math.abs(s - b) >= standoutStep)) assert.ok(got.includes(s), `standout ${s} has room; ${what}`);
      });
      for (const t of got) assert.ok(standouts.includes(t) || t % step === 0, `${t} is a standout or on the grid; ${what}`);
      for (let t = Math.ceil(start / step) * step; inside(t); t += step) {
        if (!got.includes(t)) assert.ok(got.some((l) => standouts.includes(l) && Math.abs(l - t) < step), `${t} left for a standout; ${what}`);
      }
    }
  });
});
