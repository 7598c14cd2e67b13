// The lab's needle grid computed in parallel (web/lab/grid-parts.js): the lengths dealt out to
// workers with about equal work, and the groups' grids joined back into exactly the grid one
// engine computes for all the lengths.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import createAttention from '../../dist/wasm/attention.mjs';
import { dealLengths, joinGrids, lengthCost } from '../../web/lab/grid-parts.js';
import { DEFAULTS, GRID_LENGTHS, gridLengths, modelOptions, needleOptions } from '../../web/lab/state.js';

const engine = await createAttention();

test('lengths are dealt costliest first to the least loaded worker, every length once', () => {
  const linear = (n) => lengthCost(n, { type: 'alibi' });
  assert.deepEqual(dealLengths(GRID_LENGTHS, 2, linear), [[6], [0, 1, 2, 3, 4, 5]], '4,096 alone, the rest (4,032) together');
  assert.deepEqual(dealLengths([64, 128, 256, 512, 1024], 3, (n) => lengthCost(n, { type: 'rope' })), [[4], [3], [0, 1, 2]]);
  assert.deepEqual(dealLengths([100, 200], 4, linear), [[1], [0]], 'no empty group');
  assert.deepEqual(dealLengths(GRID_LENGTHS, 1, linear), [[0, 1, 2, 3, 4, 5, 6]]);
});

test('the joined grid is exactly the grid of all the lengths, for each positional encoding and mitigation', () => {
  const cases = [
    { positional: 'alibi', slope: 0.003 }, { positional: 'none' }, { positional: 'rope' },
    { positional: 'alibi', slope: 0.01, window: 128, sinks: 4, mitigation: { type: 'ms-poe' } },
    { positional: 'none', metric: 'top1', mitigation: { type: 'reorder' } },
  ];
  for (const { mitigation, ...changes } of cases) {
    const settings = { ...DEFAULTS, layers: 2, trials: 2, ...changes };
    const { n, ...model } = modelOptions(settings);
    const options = { ...model, ...needleOptions(settings), ...(mitigation && { mitigation }) };
    const lengths = gridLengths(settings).filter((length) => length <= 1024);
    const whole = engine.needleGrid({ ...options, lengths });
    for (const workers of [2, 3]) {
      const groups = dealLengths(lengths, workers, (length) => lengthCost(length, model.positional));
      const grids = groups.map((indices) => engine.needleGrid({ ...options, lengths: indices.map((index) => lengths[index]) }));
      const joined = joinGrids(lengths, groups, grids);
      const label = `${JSON.stringify(changes)} on ${workers} workers`;
      assert.deepEqual([joined.rows, joined.cols], [whole.rows, whole.cols], label);
      assert.deepEqual(joined.lengths, whole.lengths, label);
      assert.deepEqual(joined.depths, whole.depths, label);
      assert.ok(Buffer.from(joined.data.buffer).equals(Buffer.from(whole.data.buffer)), `${label}: the numbers`);
      assert.equal(joined.values, joined.data);
    }
  }
});
