// Block pooling (core/include/attn/block_pooling.hpp): an attention matrix shrunk to what a
// screen shows, in the engine rather than in JavaScript, whose float maxima branch on every
// cell (bench/README.md "In the page" has the times).
import {
  describe, fail, requireCount, requireKnownKeys, requireName, requireWholeNumber, unwrap,
} from './arguments.mjs';

function requireFloat32Array(name, value) {
  if (!(value instanceof Float32Array)) fail(`${name} must be a Float32Array, got ${describe(value)}`);
  return value;
}

export function poolingCalls(core) {
  /**
   * Blocks of block × block cells over rows [row0, row0 + rows) and columns [col0, col0 + cols)
   * of one head (scores, weights: Float32Arrays, row-major with `stride` columns), each the
   * 'max' or 'mean' of its visible cells → {cellRows, cellCols, scores, weights, masked}.
   */
  function poolBlocks(region) {
    requireKnownKeys('poolBlocks region', region, ['scores', 'weights', 'stride', 'row0', 'col0', 'rows', 'cols', 'block', 'mode']);
    const { row0 = 0, col0 = 0, mode = 'max' } = region;
    const scores = requireFloat32Array('scores', region.scores);
    const weights = requireFloat32Array('weights', region.weights);
    if (weights.length !== scores.length) fail(`weights must hold as many values as scores (${scores.length}), got ${weights.length}`);
    const stride = requireCount('stride', region.stride, 1);
    const rows = requireCount('rows', region.rows, 1);
    const cols = requireCount('cols', region.cols, 1);
    const block = requireCount('block', region.block, 1);
    requireWholeNumber('row0', row0);
    requireWholeNumber('col0', col0);
    if (col0 + cols > stride) fail(`col0 + cols must be at most stride (${stride}), got ${col0 + cols}`);
    const matrixRows = Math.floor(scores.length / stride);
    if (row0 + rows > matrixRows) {
      fail(`row0 + rows must be at most the ${matrixRows} rows of ${scores.length} values in rows of stride ${stride}, got ${row0 + rows}`);
    }
    return unwrap(core.poolBlocks(scores, weights, stride, row0, col0, rows, cols, block, requireName('mode', mode)));
  }

  return { poolBlocks };
}
