#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "attn/block_pooling.hpp"
#include "helpers.hpp"

using Catch::Contains;

namespace {

constexpr float kMasked = -std::numeric_limits<float>::infinity();

struct Pooled {
  std::vector<float> scores, weights;
  std::vector<std::uint8_t> masked;
};

Pooled pooled(const attn::ScoreRegion& region) {
  const long cells =
      attn::block_count(region.rows, region.block) * attn::block_count(region.cols, region.block);
  Pooled out{std::vector<float>(cells), std::vector<float>(cells),
             std::vector<std::uint8_t>(cells)};
  attn::pool_blocks(region, out.scores.data(), out.weights.data(), out.masked.data());
  return out;
}

// JavaScript's Math.max of two numbers: NaN if either is, +0 above −0.
double math_max(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return NAN;
  if (a == b) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}

// The reference: each block gathers its visible cells, then folds them in one go, in double
// precision (web/shared/heatmap's former JavaScript pooling, and tests/js/pooling.test.mjs).
Pooled reference(const attn::ScoreRegion& region) {
  Pooled out;
  for (long r = 0; r * region.block < region.rows; ++r) {
    for (long c = 0; c * region.block < region.cols; ++c) {
      std::vector<double> scores, weights;
      for (long i = r * region.block; i < std::min(region.rows, (r + 1) * region.block); ++i) {
        for (long j = c * region.block; j < std::min(region.cols, (c + 1) * region.block); ++j) {
          const float s = region.scores[i * region.stride + j];
          if (s == kMasked) continue;
          scores.push_back(s);
          weights.push_back(region.weights[i * region.stride + j]);
        }
      }
      const auto fold = [&](const std::vector<double>& values) {
        double folded = region.mode == attn::BlockPooling::max ? -INFINITY : 0.0;
        for (double value : values) {
          folded =
              region.mode == attn::BlockPooling::max ? math_max(folded, value) : folded + value;
        }
        return region.mode == attn::BlockPooling::max ? folded : folded / values.size();
      };
      out.masked.push_back(scores.empty());
      out.scores.push_back(scores.empty() ? kMasked : static_cast<float>(fold(scores)));
      out.weights.push_back(scores.empty() ? 0.0f : static_cast<float>(fold(weights)));
    }
  }
  return out;
}

// Bit for bit for the maximum (any NaN as NaN), within float rounding for the mean.
void require_same(const std::vector<float>& actual, const std::vector<float>& expected,
                  attn::BlockPooling mode, const char* what) {
  REQUIRE(actual.size() == expected.size());
  for (std::size_t k = 0; k < expected.size(); ++k) {
    INFO(what << "[" << k << "]: " << actual[k] << " vs " << expected[k]);
    if (std::isnan(expected[k])) {
      REQUIRE(std::isnan(actual[k]));
    } else if (mode == attn::BlockPooling::max || !std::isfinite(expected[k])) {
      REQUIRE(std::memcmp(&actual[k], &expected[k], sizeof(float)) == 0);
    } else {
      REQUIRE(std::abs(actual[k] - expected[k]) <= 1e-6f * std::max(1.0f, std::abs(expected[k])));
    }
  }
}

// A negative NaN, as x86 computes one (its sign bit set).
float negative_nan() { return -std::numeric_limits<float>::quiet_NaN(); }

}  // namespace

TEST_CASE("block pooling: the maximum and the mean of every block equal the reference",
          "[block_pooling]") {
  std::mt19937 rng(20261126);
  std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
  for (int c = 0; c < 300; ++c) {
    const long rows = 1 + static_cast<long>(uniform(rng) * 40);
    const long cols = 1 + static_cast<long>(uniform(rng) * 40);
    const long stride = cols + static_cast<long>(uniform(rng) * 5);
    const long block = 1 + static_cast<long>(uniform(rng) * 9);
    std::vector<float> scores(rows * stride), weights(rows * stride);
    const bool causal = c % 3 == 0;
    for (long i = 0; i < rows; ++i) {
      for (long j = 0; j < stride; ++j) {
        const float pick = uniform(rng);
        float s = uniform(rng) * 8 - 4,
              w = uniform(rng) * 2 - 0.5f;  // negative too, as 'sum' gives
        if (pick < 0.01f)
          s = NAN;
        else if (pick < 0.02f)
          s = negative_nan();
        else if (pick < 0.03f)
          s = INFINITY;
        else if (pick < 0.05f)
          s = pick < 0.04f ? 0.0f : -0.0f;
        if (uniform(rng) < 0.02f) w = uniform(rng) < 0.5f ? NAN : negative_nan();
        if (uniform(rng) < 0.05f) w = uniform(rng) < 0.5f ? 0.0f : -0.0f;
        if ((causal && j > i) || uniform(rng) < 0.1f) s = kMasked;
        scores[i * stride + j] = s;
        weights[i * stride + j] = w;
      }
    }
    for (attn::BlockPooling mode : {attn::BlockPooling::max, attn::BlockPooling::mean}) {
      INFO("case " << c << ": " << rows << "×" << cols << " (stride " << stride << "), block "
                   << block << ", " << attn::to_string(mode));
      const attn::ScoreRegion region{scores.data(), weights.data(), stride, rows,
                                     cols,          block,          mode};
      const Pooled actual = pooled(region), expected = reference(region);
      CHECK(actual.masked == expected.masked);
      require_same(actual.scores, expected.scores, mode, "scores");
      require_same(actual.weights, expected.weights, mode, "weights");
    }
  }
}

TEST_CASE("block pooling: golden blocks of a 3×5 head", "[block_pooling]") {
  // scores (−∞ masked) and weights
  const std::vector<float> scores = {1,     kMasked, kMasked, kMasked, kMasked,  //
                                     2,     -0.0f,   kMasked, kMasked, kMasked,  //
                                     -0.0f, 0.0f,    NAN,     kMasked, 7};
  const std::vector<float> weights = {1,     0,     0,    0, 0,  //
                                      0.25f, 0.75f, 0,    0, 0,  //
                                      -1,    0.5f,  0.5f, 0, 9};
  const attn::ScoreRegion max{scores.data(), weights.data(), 5, 3, 5, 2, attn::BlockPooling::max};
  const Pooled blocks = pooled(max);
  // blocks: rows {0,1} × cols {0,1}, {2,3}, {4}; row {2} × the same
  CHECK(blocks.masked == std::vector<std::uint8_t>{0, 1, 1, 0, 0, 0});
  CHECK(blocks.scores[0] == 2.0f);
  CHECK(blocks.scores[1] == kMasked);
  CHECK(blocks.weights[1] == 0.0f);  // a masked block's weight
  CHECK(blocks.weights[0] == 1.0f);
  CHECK(std::isnan(blocks.scores[4]));  // NaN in the block
  CHECK(blocks.weights[4] == 0.5f);     // the NaN score's cell is visible, its weight counts
  CHECK(blocks.scores[3] == 0.0f);
  CHECK_FALSE(std::signbit(blocks.scores[3]));  // +0 above −0
  CHECK(blocks.scores[5] == 7.0f);
  CHECK(blocks.weights[5] == 9.0f);

  const attn::ScoreRegion mean{scores.data(), weights.data(), 5, 3, 5, 2, attn::BlockPooling::mean};
  const Pooled means = pooled(mean);
  CHECK(means.masked == blocks.masked);
  CHECK(means.scores[0] == Approx((1.0 + 2.0 - 0.0) / 3));
  CHECK(means.weights[0] == Approx((1.0 + 0.25 + 0.75) / 3));
  CHECK(means.scores[3] == 0.0f);
  CHECK(means.weights[3] == Approx(-0.25));
  CHECK(std::isnan(means.scores[4]));
}

TEST_CASE("block pooling: a block larger than the region is its one cell, however large",
          "[block_pooling]") {
  const std::vector<float> scores = {1, 4, -2, kMasked, 3, 0};  // 2 rows of 3
  const std::vector<float> weights = {0.5f, 0.25f, 0.125f, 7, 0.0625f, 1};
  for (long block : {3L, 4L, 1000L, std::numeric_limits<long>::max()}) {
    for (attn::BlockPooling mode : {attn::BlockPooling::max, attn::BlockPooling::mean}) {
      INFO("block " << block << ", " << attn::to_string(mode));
      const Pooled one = pooled({scores.data(), weights.data(), 3, 2, 3, block, mode});
      REQUIRE(one.scores.size() == 1);
      CHECK(one.masked[0] == 0);
      // the visible cells: scores 1, 4, −2, 3, 0 and weights 0.5, 0.25, 0.125, 0.0625, 1
      const bool max = mode == attn::BlockPooling::max;
      CHECK(one.scores[0] == Approx(max ? 4.0 : 6.0 / 5));
      CHECK(one.weights[0] == Approx(max ? 1.0 : 1.9375 / 5));
    }
  }
}

TEST_CASE("block pooling: rows, cols and block below 1, or a stride below cols, are errors",
          "[block_pooling][errors]") {
  const std::vector<float> values(12);
  float out_scores[12], out_weights[12];
  std::uint8_t out_masked[12];
  const auto pool = [&](long stride, long rows, long cols, long block) {
    attn::pool_blocks(
        {values.data(), values.data(), stride, rows, cols, block, attn::BlockPooling::max},
        out_scores, out_weights, out_masked);
  };
  CHECK_THROWS_WITH(pool(3, 2, 3, 0),
                    Contains("block must be a whole number from 1") && Contains("got 0"));
  CHECK_THROWS_WITH(pool(3, 0, 3, 1),
                    Contains("rows must be a whole number from 1") && Contains("got 0"));
  CHECK_THROWS_WITH(pool(3, 2, -1, 1),
                    Contains("cols must be a whole number from 1") && Contains("got -1"));
  CHECK_THROWS_WITH(pool(2, 2, 3, 1),
                    Contains("stride must be a whole number from 3") && Contains("got 2"));
  CHECK_THROWS_AS(pool(3, 2, 3, -5), attn::InvalidArgument);
}
