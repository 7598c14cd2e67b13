// Shared test helpers: seeded random matrices and element-wise comparison that prints
// the largest difference on failure.
#pragma once

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "attn/attention.hpp"
#include "attn/errors.hpp"  // attn::InvalidArgument, which every error test names
#include "attn/matrix.hpp"

namespace helpers {

inline attn::Matrix random_matrix(std::size_t rows, std::size_t cols, std::mt19937& rng,
                                  float low = -1.0f, float high = 1.0f) {
  std::uniform_real_distribution<float> uniform(low, high);
  auto result = attn::Matrix::from_shape({rows, cols});
  for (float& value : result) value = uniform(rng);
  return result;
}

// Largest |a - b| / size(b) over all entries; two equal infinities count as 0, NaN as infinity.
template <class A, class B, class Size>
double max_difference(const A& a, const B& b, Size size) {
  double worst = 0.0;
  auto ai = a.begin();
  for (auto bi = b.begin(); bi != b.end(); ++bi, ++ai) {
    if (*ai == *bi) continue;
    const double difference = std::abs(double(*ai) - double(*bi)) / size(double(*bi));
    worst = std::max(worst, std::isnan(difference) ? INFINITY : difference);
  }
  return worst;
}

// Largest |a - b| over all entries.
template <class A, class B>
double max_abs_difference(const A& a, const B& b) {
  return max_difference(a, b, [](double) { return 1.0; });
}

// Largest |a - b| / max(1, |b|): for numbers that grow with the input (ALiBi's scores at a
// thousand keys reach hundreds, where a float32 is exact to about 3e-5).
template <class A, class B>
double max_scaled_difference(const A& a, const B& b) {
  return max_difference(a, b, [](double expected) { return std::max(1.0, std::abs(expected)); });
}

// Whether two arrays have the same shape, and if so their largest difference.
struct Comparison {
  bool same_shape;
  double max_abs_diff;
};

template <class A, class B>
Comparison compare(const A& a, const B& b) {
  const auto &a_shape = a.shape(), &b_shape = b.shape();
  if (!std::equal(a_shape.begin(), a_shape.end(), b_shape.begin(), b_shape.end())) {
    return {false, INFINITY};
  }
  return {true, max_abs_difference(a, b)};
}

// CHECK that a and b have the same shape and agree to `tolerance` everywhere. Each
// argument is evaluated once (it may be a call that draws random numbers) and used
// while its temporaries live.
#define CHECK_CLOSE(a, b, tolerance)                                                   \
  do {                                                                                 \
    const helpers::Comparison comparison = helpers::compare((a), (b));                 \
    REQUIRE(comparison.same_shape);                                                    \
    INFO("max abs diff " << comparison.max_abs_diff << ", tolerance " << (tolerance)); \
    CHECK(comparison.max_abs_diff <= (tolerance));                                     \
  } while (false)

// The first index at which a and b hold different float32 bit patterns (any NaN equal to any
// NaN), or -1 when they hold the same numbers: "the same numbers", -0 and +0 told apart.
inline long first_bit_difference(const float* a, const float* b, std::size_t count) {
  for (std::size_t index = 0; index < count; ++index) {
    if (std::isnan(a[index]) && std::isnan(b[index])) continue;
    std::uint32_t a_bits, b_bits;
    std::memcpy(&a_bits, a + index, sizeof a_bits);
    std::memcpy(&b_bits, b + index, sizeof b_bits);
    if (a_bits != b_bits) return static_cast<long>(index);
  }
  return -1;
}

// Rows [first_row, first_row + part.rows) and columns [first_col, first_col + part.cols) of
// `whole`, compared bit for bit with `part`: -1 when equal, else the first differing index of part.
inline long first_block_difference(const attn::Matrix& whole, std::size_t first_row,
                                   std::size_t first_col, const attn::Matrix& part) {
  const std::size_t cols = part.shape(1);
  for (std::size_t i = 0; i < part.shape(0); ++i) {
    const long difference = first_bit_difference(
        whole.data() + (first_row + i) * whole.shape(1) + first_col, part.data() + i * cols, cols);
    if (difference >= 0) return static_cast<long>(i * cols) + difference;
  }
  return -1;
}

// A random range [begin, end) of 0..count, at least one long.
inline attn::Range random_range(long count, std::mt19937& rng) {
  const long begin = static_cast<long>(rng() % count);
  return {begin, begin + 1 + static_cast<long>(rng() % (count - begin))};
}

// Checks that `part`, the rows and heads of a call of `all_heads` heads, holds exactly the
// numbers of those rows and heads in `whole`, the whole call's result.
inline void check_part(const attn::AttentionResult& whole, const attn::AttentionResult& part,
                       const attn::Range& rows, const attn::Range& heads, long all_heads) {
  const std::size_t dvh = whole.context.shape(1) / all_heads;
  REQUIRE(part.kernel_used == whole.kernel_used);
  REQUIRE(part.context.shape(0) == std::size_t(rows.size()));
  const std::size_t part_heads = static_cast<std::size_t>(heads.size());
  REQUIRE(part.context.shape(1) == dvh * part_heads);
  CHECK(first_block_difference(whole.context, rows.begin, heads.begin * dvh, part.context) == -1);
  REQUIRE(part.scores.size() == (whole.kernel_used == attn::Kernel::flash ? 0 : part_heads));
  for (std::size_t h = 0; h < part.scores.size(); ++h) {
    INFO("head " << heads.begin + long(h));
    CHECK(first_block_difference(whole.scores[heads.begin + h], rows.begin, 0, part.scores[h]) ==
          -1);
    CHECK(first_block_difference(whole.weights[heads.begin + h], rows.begin, 0, part.weights[h]) ==
          -1);
  }
}

// x (rows×(G·w): G key or value heads of width w) with each head's columns repeated heads / G
// times in place → rows×(heads·w): the multi-head k or v that grouped-query attention reads.
inline attn::Matrix repeat_kv_heads(const attn::Matrix& x, long kv_heads, long heads) {
  const std::size_t rows = x.shape(0), width = x.shape(1) / kv_heads;
  attn::Matrix repeated = attn::Matrix::from_shape({rows, width * heads});
  for (std::size_t i = 0; i < rows; ++i) {
    for (long h = 0; h < heads; ++h) {
      const long g = h * kv_heads / heads;
      for (std::size_t t = 0; t < width; ++t) repeated(i, h * width + t) = x(i, g * width + t);
    }
  }
  return repeated;
}

// The (query heads, key/value heads) pairs the grouped-query tests cover: groups of 2, 3 and
// 4, multi-query (G = 1), and G = H (multi-head) as a control.
inline const std::vector<std::pair<long, long>>& grouped_head_pairs() {
  static const std::vector<std::pair<long, long>> pairs{{2, 1}, {4, 2}, {4, 1}, {6, 3},
                                                        {6, 2}, {8, 2}, {3, 3}};
  return pairs;
}

// Whether query i of n sees key j of m, written straight from the README's table of options.
inline bool api_visible(const attn::MaskOptions& mask, long i, long j, long n, long m) {
  const long p = i + (m - n);
  const bool in_prefix = p < mask.prefix && j < mask.prefix;  // a prefix sees itself both ways
  if (mask.causal && j > p && !in_prefix) return false;
  if (mask.window == 0) return true;
  const long distance = mask.causal ? p - j : std::abs(p - j);
  return distance < mask.window || j < mask.sinks;
}

inline std::string describe(const attn::AttentionOptions& options) {
  std::ostringstream text;
  text << "heads " << options.heads << ", kvHeads " << options.kv_heads.value_or(options.heads)
       << ", " << attn::to_string(options.normalization) << (options.mask.causal ? ", causal" : "")
       << ", window " << options.mask.window << ", sinks " << options.mask.sinks << ", prefix "
       << options.mask.prefix << ", scale mode " << int(options.scale.mode) << ", "
       << attn::to_string(options.positional.type);
  if (options.positional.type == attn::PositionalType::rope) {
    text << " " << attn::to_string(options.positional.pairing);
  }
  if (!options.positional.slopes.empty()) text << " (own slopes)";
  return text.str();
}

// Every combination of normalisation, causality, window and sinks, and positional
// encoding for `heads` heads, taking the three scale modes in turn. The sum normalisation
// divides by a row sum that RoPE and ALiBi can bring near zero, so it is paired with no
// positional encoding only.
inline std::vector<attn::AttentionOptions> option_grid(long heads) {
  using attn::PositionalType;
  std::vector<attn::PositionalOptions> positionals(5);
  positionals[1].type = PositionalType::alibi;
  positionals[2].type = PositionalType::alibi;
  for (long h = 0; h < heads; ++h) positionals[2].slopes.push_back(0.05f * float(h + 1));
  positionals[3].type = PositionalType::rope;
  positionals[3].base = 100.0;  // another base than the default, which the half pairing keeps
  positionals[4].type = PositionalType::rope;
  positionals[4].pairing = attn::RopePairing::half;
  const attn::MaskOptions masks[] = {{false, 0, 0},   {false, 7, 0},  {false, 7, 3},
                                     {false, 70, 5},  {false, 4, 20}, {false, 0, 0, 4},
                                     {false, 5, 0, 6}};
  using Mode = attn::ScaleOption::Mode;
  const attn::ScaleOption scales[] = {
      {Mode::inverse_sqrt_head_width, 1.0}, {Mode::none, 1.0}, {Mode::factor, 0.6}};

  std::vector<attn::AttentionOptions> grid;
  for (auto normalization : {attn::Normalization::softmax, attn::Normalization::naive_softmax,
                             attn::Normalization::sum}) {
    for (bool causal : {false, true}) {
      for (attn::MaskOptions mask : masks) {
        for (const auto& positional : positionals) {
          if (normalization == attn::Normalization::sum &&
              positional.type != PositionalType::none) {
            continue;
          }
          attn::AttentionOptions options;
          options.heads = heads;
          options.normalization = normalization;
          options.mask = mask;
          options.mask.causal = causal;
          options.positional = positional;
          options.scale = scales[grid.size() % 3];
          grid.push_back(options);
        }
      }
    }
  }
  return grid;
}

}  // namespace helpers
