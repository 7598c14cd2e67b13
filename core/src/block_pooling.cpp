// Block pooling (block_pooling.hpp): the maxima of a row of blocks kept as integer keys of the
// floats' bits, column by column over the block's rows, then folded across each block's columns;
// the means as double sums the same way.
#include "attn/block_pooling.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <vector>

#include "attn/errors.hpp"
#include "simd.hpp"

namespace attn {
namespace {

using simd::kLanes;
using simd::Mask;
using simd::Vec;

constexpr float kMasked = -std::numeric_limits<float>::infinity();
// Below the key of every float but a NaN with its sign bit set (NaN is tracked apart).
constexpr std::int32_t kLowestKey = std::numeric_limits<std::int32_t>::min();
constexpr std::int32_t kScoreNaN = 1, kWeightNaN = 2;  // a column's (and a block's) NaN flags

// A float's bits as an int32 that orders as the float does, −0 below +0: the bits of a
// negative float with all but the sign flipped. Integer maxima of these keys are exact and
// need no branch, where a float comparison would pass over NaN and not tell −0 from +0.
inline std::int32_t key_of(float value) {
  std::int32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits ^ ((bits >> 31) & 0x7fffffff);
}

inline float float_of(std::int32_t key) {
  const std::int32_t bits = key ^ ((key >> 31) & 0x7fffffff);
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

inline Mask keys_of(Vec values) {
  const Mask bits = reinterpret_cast<Mask>(values);
  return bits ^ ((bits >> 31) & 0x7fffffff);
}

inline Mask larger(Mask a, Mask b) {
  const Mask a_greater = a > b;
  return (a & a_greater) | (b & ~a_greater);
}

inline Mask load_lanes(const std::int32_t* from) {
  Mask keys;
  std::memcpy(&keys, from, sizeof keys);
  return keys;
}

inline void store_lanes(std::int32_t* to, Mask keys) { std::memcpy(to, &keys, sizeof keys); }

// The running maxima of one row of blocks, column by column: each column's largest score key
// and largest visible weight key over the rows seen, and its NaN flags.
struct ColumnMaxima {
  std::vector<std::int32_t> scores, weights, nans;
  explicit ColumnMaxima(long cols) : scores(cols), weights(cols), nans(cols) {}

  void start() {
    std::fill(scores.begin(), scores.end(), kLowestKey);
    std::fill(weights.begin(), weights.end(), kLowestKey);
    std::fill(nans.begin(), nans.end(), 0);
  }

  void add_row(const float* score_row, const float* weight_row, long cols) {
    const Vec masked = simd::broadcast(kMasked);
    const Mask lowest = Mask{} + kLowestKey;
    long j = 0;
    for (; j + static_cast<long>(kLanes) <= cols; j += kLanes) {
      const Vec s = simd::load(score_row + j), w = simd::load(weight_row + j);
      const Mask visible = s != masked;  // NaN is visible
      const Mask weight_keys = (keys_of(w) & visible) | (lowest & ~visible);
      store_lanes(&scores[j], larger(load_lanes(&scores[j]), keys_of(s)));
      store_lanes(&weights[j], larger(load_lanes(&weights[j]), weight_keys));
      const Mask flags = ((s != s) & kScoreNaN) | ((w != w) & visible & kWeightNaN);
      store_lanes(&nans[j], load_lanes(&nans[j]) | flags);
    }
    for (; j < cols; ++j) {
      const float s = score_row[j], w = weight_row[j];
      const bool visible = s != kMasked;
      scores[j] = std::max(scores[j], key_of(s));
      if (visible) weights[j] = std::max(weights[j], key_of(w));
      nans[j] |= (s != s ? kScoreNaN : 0) | (visible && w != w ? kWeightNaN : 0);
    }
  }

  // The columns in blocks of `block` (the last one cut short at `cols`) into a row of cells.
  void fold_row(long block, long cols, float* score, float* weight, std::uint8_t* masked) const {
    // Blocks of the common widths folded with a width the compiler knows: a loop of a width it
    // does not know cost more than the rest of the pooling together.
    switch (block) {
      case 2:
        return fold_blocks<2>(block, cols, score, weight, masked);
      case 4:
        return fold_blocks<4>(block, cols, score, weight, masked);
      case 8:
        return fold_blocks<8>(block, cols, score, weight, masked);
      default:
        return fold_blocks<0>(block, cols, score, weight, masked);
    }
  }

 private:
  // kWidth: the block's width, or 0 for `block`.
  template <long kWidth>
  void fold_blocks(long block, long cols, float* score, float* weight, std::uint8_t* masked) const {
    const long width = kWidth > 0 ? kWidth : block;
    const std::int32_t* score_keys = scores.data();
    const std::int32_t* weight_keys = weights.data();
    const std::int32_t* flags = nans.data();
    const long whole = cols / width;
    for (long c = 0; c < whole; ++c) {
      fold_cell(score_keys + c * width, weight_keys + c * width, flags + c * width, width,
                score + c, weight + c, masked + c);
    }
    if (whole * width < cols) {
      fold_cell(score_keys + whole * width, weight_keys + whole * width, flags + whole * width,
                cols - whole * width, score + whole, weight + whole, masked + whole);
    }
  }

  static void fold_cell(const std::int32_t* score_keys, const std::int32_t* weight_keys,
                        const std::int32_t* flags, long width, float* score, float* weight,
                        std::uint8_t* masked) {
    std::int32_t score_key = kLowestKey, weight_key = kLowestKey, nan = 0;
    for (long j = 0; j < width; ++j) {
      score_key = std::max(score_key, score_keys[j]);
      weight_key = std::max(weight_key, weight_keys[j]);
      nan |= flags[j];
    }
    const bool none_visible = !(nan & kScoreNaN) && score_key == key_of(kMasked);
    *masked = none_visible;
    *score = nan & kScoreNaN ? std::numeric_limits<float>::quiet_NaN() : float_of(score_key);
    *weight = none_visible       ? 0.0f
              : nan & kWeightNaN ? std::numeric_limits<float>::quiet_NaN()
                                 : float_of(weight_key);
  }
};

// The running sums of one row of blocks, column by column: the visible cells' scores and
// weights, and how many there are.
struct ColumnSums {
  typedef double Doubles __attribute__((vector_size(kLanes * sizeof(double))));
  std::vector<double> scores, weights;
  std::vector<std::int32_t> visible;
  explicit ColumnSums(long cols) : scores(cols), weights(cols), visible(cols) {}

  void start() {
    std::fill(scores.begin(), scores.end(), 0.0);
    std::fill(weights.begin(), weights.end(), 0.0);
    std::fill(visible.begin(), visible.end(), 0);
  }

  void add_row(const float* score_row, const float* weight_row, long cols) {
    const Vec masked = simd::broadcast(kMasked);
    long j = 0;
    for (; j + static_cast<long>(kLanes) <= cols; j += kLanes) {
      const Vec s = simd::load(score_row + j), w = simd::load(weight_row + j);
      const Mask seen = s != masked;
      // masked cells add 0 (selected by bits: a NaN weight of a masked cell takes no part)
      add(&scores[j], reinterpret_cast<Vec>(reinterpret_cast<Mask>(s) & seen));
      add(&weights[j], reinterpret_cast<Vec>(reinterpret_cast<Mask>(w) & seen));
      store_lanes(&visible[j], load_lanes(&visible[j]) - seen);  // seen is −1 where visible
    }
    for (; j < cols; ++j) {
      const float s = score_row[j];
      const bool seen = s != kMasked;
      scores[j] += seen ? s : 0.0;
      weights[j] += seen ? weight_row[j] : 0.0f;
      visible[j] += seen;
    }
  }

  // sums[0, kLanes) += values, in double precision.
  static void add(double* sums, Vec values) {
    Doubles total;
    std::memcpy(&total, sums, sizeof total);
    total += __builtin_convertvector(values, Doubles);
    std::memcpy(sums, &total, sizeof total);
  }

  void fold_row(long block, long cols, float* score, float* weight, std::uint8_t* masked) const {
    for (long c = 0; c < block_count(cols, block); ++c) {
      double score_sum = 0.0, weight_sum = 0.0;
      long count = 0;
      const long first = c * block;
      for (long j = first; j < first + std::min(block, cols - first); ++j) {
        score_sum += scores[j];
        weight_sum += weights[j];
        count += visible[j];
      }
      masked[c] = count == 0;
      score[c] = count == 0 ? kMasked : static_cast<float>(score_sum / count);
      weight[c] = count == 0 ? 0.0f : static_cast<float>(weight_sum / count);
    }
  }
};

template <class Columns>
void pool_rows_of_blocks(const ScoreRegion& region, float* scores, float* weights,
                         std::uint8_t* masked) {
  const long block = region.block;
  const long cell_cols = block_count(region.cols, block);
  Columns columns(region.cols);
  for (long r = 0; r < block_count(region.rows, block); ++r) {
    const long i0 = r * block;  // not i0 + block, which overflows for a block near the largest long
    columns.start();
    for (long i = i0; i < i0 + std::min(block, region.rows - i0); ++i) {
      columns.add_row(region.scores + i * region.stride, region.weights + i * region.stride,
                      region.cols);
    }
    const long first_cell = r * cell_cols;
    columns.fold_row(block, region.cols, scores + first_cell, weights + first_cell,
                     masked + first_cell);
  }
}

// Blocks of one cell, which both modes give: the cells themselves, a masked one's weight 0.
void copy_cells(const ScoreRegion& region, float* scores, float* weights, std::uint8_t* masked) {
  for (long i = 0; i < region.rows; ++i) {
    const float* score_row = region.scores + i * region.stride;
    const float* weight_row = region.weights + i * region.stride;
    float* score = scores + i * region.cols;
    float* weight = weights + i * region.cols;
    std::uint8_t* masked_row = masked + i * region.cols;
    std::copy(score_row, score_row + region.cols, score);
    for (long j = 0; j < region.cols; ++j) {
      const bool none_visible = score_row[j] == kMasked;
      masked_row[j] = none_visible;
      weight[j] = none_visible ? 0.0f : weight_row[j];
    }
  }
}

}  // namespace

void pool_blocks(const ScoreRegion& region, float* scores, float* weights, std::uint8_t* masked) {
  constexpr long kMost = std::numeric_limits<long>::max();
  require_whole_number("rows", region.rows, 1, kMost);
  require_whole_number("cols", region.cols, 1, kMost);
  require_whole_number("stride", region.stride, region.cols, kMost);
  require_whole_number("block", region.block, 1, kMost);
  if (region.block == 1) {
    copy_cells(region, scores, weights, masked);
  } else if (region.mode == BlockPooling::max) {
    pool_rows_of_blocks<ColumnMaxima>(region, scores, weights, masked);
  } else {
    pool_rows_of_blocks<ColumnSums>(region, scores, weights, masked);
  }
}

}  // namespace attn
