// Which tokens the heatmap labels when only every step-th label fits (web/shared/heatmap/heatmap.js
// labelledPositions, which the canvas and the SVG figure both use): golden cases at the region's
// edges, and the rule checked over generated regions, steps and standouts.
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
  });

  test('over generated regions: the rule holds for every position', () => {
    const random = mulberry32(20261124);
    for (let c = 0; c < CASES; ++c) {
      const start = randomInt(random, 0, 200), count = randomInt(random, 0, 120), step = randomInt(random, 1, 20);
      const standouts = Array.from({ length: randomInt(random, 0, 4) }, () => randomInt(random, Math.max(0, start - 30), start + count + 30));
      const got = labelledPositions(start, count, step, standouts);
      const inside = (t) => t >= start && t < start + count;
      const own = standouts.filter(inside);
      const expected = [];
      for (let t = start; t < start + count; ++t) {
        if (own.includes(t) || (t % step === 0 && own.every((s) => Math.abs(t - s) >= step))) expected.push(t);
      }
      assert.deepEqual(got, expected, `start ${start}, count ${count}, step ${step}, standouts ${standouts}`);
    }
  });
});
