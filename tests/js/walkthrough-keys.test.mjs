// The walk-through's keys of a long row (web/playground/walkthrough-keys.js): the largest weights,
// the query's own among them, and a well-defined order when naive softmax's overflow gives NaN.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import createAttention from '../../dist/wasm/attention.mjs';
import { byWeight, shownKeys } from '../../web/playground/walkthrough-keys.js';

const engine = await createAttention();
const MAX_ROWS = 24;

describe('the walk-through\'s keys', () => {
  test('NaN weights rank before every number, ties in the keys\' order', () => {
    const weights = [0.1, NaN, 0.3, NaN, 0.2, 0.1];
    // the same order whatever order the keys come in
    for (const keys of [[5, 4, 3, 2, 1, 0], [0, 1, 2, 3, 4, 5], [2, 5, 0, 3, 4, 1]]) {
      assert.deepEqual([...keys].sort(byWeight(weights)), [1, 3, 2, 4, 0, 5], `from ${keys}`);
    }
    assert.deepEqual(shownKeys(weights, 2, 3), [1, 2, 3], 'the two NaN keys and the largest number');
    assert.deepEqual(shownKeys(weights, 5, 3), [1, 3, 5], 'the query\'s own in place of the third');
  });

  test('naive softmax overflowing: the keys whose exp overflowed (NaN) are shown, then the largest numbers', () => {
    // 40 tokens of 350 dimensions in [0, 1), unscaled: scores about 87.5 ± 4, around exp's float32 limit 88.72
    const n = 40;
    const x = engine.torchGenerator(7).rand(n, 350);
    const { weights } = engine.selfAttention(x, { normalization: 'naive-softmax', scale: false });
    let checked = 0;
    for (let query = 0; query < n; ++query) {
      const row = weights[0].data.subarray(query * n, (query + 1) * n);
      const overflowed = Array.from(row.keys()).filter((j) => Number.isNaN(row[j]));
      const numbers = Array.from(row.keys()).filter((j) => !Number.isNaN(row[j]));
      if (overflowed.length === 0 || overflowed.length >= MAX_ROWS) continue;
      const expected = [...overflowed, ...numbers.sort((a, b) => row[b] - row[a] || a - b)].slice(0, MAX_ROWS);
      if (!expected.includes(query)) expected[MAX_ROWS - 1] = query;
      assert.deepEqual(shownKeys(row, query, MAX_ROWS), expected.sort((a, b) => a - b), `query ${query}`);
      checked += 1;
    }
    assert.ok(checked >= 5, `${checked} rows with some NaN weights`);
  });
});
