// Shrinking an attention matrix to what a screen shows: square blocks of cells become one cell,
// the maximum or the mean of their visible cells' scores and weights. A cell whose score is
// −Infinity is masked and takes no part; a block with no visible cell is masked itself (score
// −Infinity, weight 0). A NaN in a block's visible cells makes its value NaN, so that overflow
// stays visible at any zoom. The maximum is the exact largest value, −0 below +0, as
// JavaScript's Math.max gives it; the mean sums in double precision.
#pragma once

#include <cstdint>

#include "attn/names.hpp"

namespace attn {

enum class BlockPooling { max, mean };

inline constexpr OptionNames<BlockPooling, 2> kBlockPoolingNames{
    "mode", {{{BlockPooling::max, "max"}, {BlockPooling::mean, "mean"}}}};
constexpr const auto& names_of(BlockPooling) { return kBlockPoolingNames; }

// rows × cols cells of one head: its scores and weights (row-major, `stride` values from one
// row to the next, stride ≥ cols), pooled in blocks of block × block cells.
struct ScoreRegion {
  const float* scores = nullptr;
  const float* weights = nullptr;
  long stride = 0;
  long rows = 0;
  long cols = 0;
  long block = 1;
  BlockPooling mode = BlockPooling::max;
};

// ⌈count / block⌉ blocks of at most `block` cells cover `count` cells (count, block ≥ 1), without
// the overflow of count + block − 1 for a block near the largest long.
constexpr long block_count(long count, long block) { return 1 + (count - 1) / block; }

// The blocks of `region`, ⌈rows/block⌉ × ⌈cols/block⌉ of them row-major (the last row and
// column of blocks cut short at the region's edge): each block's score, weight and whether it
// is masked (1) into the arrays given, which hold that many values each. Throws
// attn::InvalidArgument unless rows, cols and block are at least 1 and stride at least cols.
void pool_blocks(const ScoreRegion& region, float* scores, float* weights, std::uint8_t* masked);

}  // namespace attn
