// Numerical robustness at the edges of float32: the stable softmax stays finite where the
// naive one overflows (the teaching point), fully masked rows are zeros, flash equals the
// materialised kernel on extreme inputs, and what float32 cannot hold fails by name.
#include <cfloat>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "attn/kernels.hpp"
#include "attn/reference.hpp"
#include "attn/tutorial.hpp"
#include "helpers.hpp"

using Catch::Matchers::Contains;

namespace {

constexpr attn::Kernel kKernels[] = {attn::Kernel::materialized, attn::Kernel::flash};

attn::AttentionOptions unscaled(attn::Kernel kernel,
                                attn::Normalization normalization = attn::Normalization::softmax) {
  attn::AttentionOptions options;
  options.scale.mode = attn::ScaleOption::Mode::none;
  options.kernel = kernel;
  options.normalization = normalization;
  return options;
}

attn::Matrix filled(std::size_t rows, std::size_t cols, float value) {
  attn::Matrix matrix = attn::Matrix::from_shape({rows, cols});
  matrix.fill(value);
  return matrix;
}

bool all_finite(const attn::Matrix& matrix) {
  for (float value : matrix) {
    if (!std::isfinite(value)) return false;
  }
  return true;
}

// Largest |a - b| relative to the largest |b|.
double relative_difference(const attn::Matrix& a, const attn::Matrix& b) {
  double largest = 0.0;
  for (float value : b) largest = std::max(largest, std::fabs(double(value)));
  return helpers::max_abs_difference(a, b) / (largest > 0.0 ? largest : 1.0);
}

}  // namespace

TEST_CASE("numerics: stable softmax is finite for scores of ±1e30 made by the scale",
          "[numerics]") {
  const attn::Matrix q = {{1.0f, 0.0f}},
                     k = {{1.0f, 0.0f}, {-1.0f, 0.0f}, {0.5f, 0.0f}, {1.0f, 0.0f}};
  const attn::Matrix v = {{1.0f}, {100.0f}, {-100.0f}, {3.0f}};
  for (attn::Kernel kernel : kKernels) {
    INFO(attn::to_string(kernel));
    attn::AttentionOptions options = unscaled(kernel);
    options.scale.mode = attn::ScaleOption::Mode::factor;
    options.scale.factor = 1e30;
    const auto result = attn::attention(q, k, v, options);
    REQUIRE(all_finite(result.context));
    CHECK(result.context(0, 0) == Approx(2.0));  // keys 0 and 3 tie at 1e30
    if (kernel == attn::Kernel::materialized) {
      CHECK(result.scores[0](0, 1) == Approx(-1e30));
      CHECK(helpers::max_abs_difference(result.weights[0],
                                        attn::Matrix{{0.5f, 0.0f, 0.0f, 0.5f}}) == 0.0);
    }
  }
}

TEST_CASE("numerics: stable softmax is finite for inputs around 1e15 (scores near 1e30)",
          "[numerics]") {
  std::mt19937 rng(71);
  const attn::Matrix q = helpers::random_matrix(5, 4, rng, 0.9e15f, 1.1e15f);
  const attn::Matrix k = helpers::random_matrix(7, 4, rng, -1.1e15f, 1.1e15f);
  const attn::Matrix v = helpers::random_matrix(7, 3, rng);
  for (attn::Kernel kernel : kKernels) {
    INFO(attn::to_string(kernel));
    const auto result = attn::attention(q, k, v, unscaled(kernel));
    CHECK(all_finite(result.context));
    if (kernel == attn::Kernel::materialized) {
      for (std::size_t i = 0; i < 5; ++i) {
        double total = 0.0;
        for (std::size_t j = 0; j < 7; ++j) {
          CHECK(std::isfinite(result.weights[0](i, j)));
          total += result.weights[0](i, j);
        }
        CHECK(total == Approx(1.0).margin(1e-6));
      }
    }
  }
}

TEST_CASE(
    "numerics: naive softmax overflows to Infinity and NaN (the teaching point), never a crash",
    "[numerics]") {
  const attn::Matrix q = {{1.0f}}, k = {{100.0f}, {0.0f}, {-100.0f}}, v = {{1.0f}, {2.0f}, {3.0f}};
  for (attn::Kernel kernel : kKernels) {
    INFO(attn::to_string(kernel));
    const auto result =
        attn::attention(q, k, v, unscaled(kernel, attn::Normalization::naive_softmax));
    CHECK(std::isnan(result.context(0, 0)));  // exp(100) = Infinity in float32; Infinity / Infinity
    if (kernel == attn::Kernel::materialized) {
      CHECK(std::isnan(result.weights[0](0, 0)));
      CHECK(result.weights[0](0, 1) == 0.0f);  // 1 / Infinity
      CHECK(result.weights[0](0, 2) == 0.0f);
    }
  }
  // The walk-through shows both on the same scores; scores near 1e30 as well.
  const attn::Matrix x = {{1e15f, 0.0f}, {0.5e15f, 0.0f}, {0.0f, 1.0f}};
  const attn::QueryWalkthrough walk = attn::walk_through_query(x, 0, 1.0);
  CHECK(walk.scores(0) == Approx(1e30));
  CHECK(std::isnan(walk.naive_softmax_weights(0)));
  CHECK(walk.softmax_weights(0) == 1.0f);
  CHECK(walk.softmax_weights(1) == 0.0f);
  CHECK(walk.softmax_weights(2) == 0.0f);
}

TEST_CASE("numerics: a fully masked row has zero weights and a zero context in every mode",
          "[numerics]") {
  // Causal with m < n: queries 0 and 1 of 4 see none of the 2 keys.
  const attn::Matrix q = filled(4, 2, 0.5f), k = {{1e15f, -1e15f}, {3.0f, 4.0f}},
                     v = {{1.0f}, {-2.0f}};
  for (attn::Kernel kernel : kKernels) {
    for (auto normalization : {attn::Normalization::softmax, attn::Normalization::naive_softmax,
                               attn::Normalization::sum}) {
      INFO(attn::to_string(kernel) << ", " << attn::to_string(normalization));
      attn::AttentionOptions options = unscaled(kernel, normalization);
      options.mask.causal = true;
      const auto result = attn::attention(q, k, v, options);
      for (std::size_t i = 0; i < 2; ++i) {
        CHECK(result.context(i, 0) == 0.0f);
        if (kernel == attn::Kernel::materialized) {
          CHECK(result.weights[0](i, 0) == 0.0f);
          CHECK(result.weights[0](i, 1) == 0.0f);
          CHECK(result.scores[0](i, 0) == -std::numeric_limits<float>::infinity());
        }
      }
      CHECK(std::isfinite(result.context(3, 0)));
    }
  }
}

TEST_CASE("numerics: flash equals materialised on extreme inputs", "[numerics]") {
  std::mt19937 rng(72);
  // m spans three flash tiles, so the online softmax rescales what it accumulated.
  const std::size_t n = 40, m = 2 * attn::kernels::kFlashTileCols + 100, d = 4;
  const attn::Matrix v = helpers::random_matrix(m, 3, rng);
  struct Case {
    const char* name;
    attn::Matrix q, k;
  };
  std::vector<Case> cases;
  cases.push_back({"large magnitudes (scores to ±1e30)",
                   helpers::random_matrix(n, d, rng, -1e15f, 1e15f),
                   helpers::random_matrix(m, d, rng, -1e15f, 1e15f)});
  cases.push_back({"tiny magnitudes (scores underflow to 0)",
                   helpers::random_matrix(n, d, rng, -1e-30f, 1e-30f),
                   helpers::random_matrix(m, d, rng, -1e-30f, 1e-30f)});
  cases.push_back({"all scores equal", filled(n, d, 0.25f), filled(m, d, 2.0f)});
  attn::Matrix dominant = helpers::random_matrix(m, d, rng);
  for (std::size_t t = 0; t < d; ++t)
    dominant(m - 7, t) = 60.0f;  // one key far ahead, in the last tile
  cases.push_back({"one dominant key", filled(n, d, 1.0f), dominant});
  for (const Case& c : cases) {
    for (bool causal : {false, true}) {
      INFO(c.name << (causal ? ", causal" : ""));
      attn::AttentionOptions options = unscaled(attn::Kernel::materialized);
      options.mask.causal = causal;
      const auto materialized = attn::attention(c.q, c.k, v, options);
      options.kernel = attn::Kernel::flash;
      const auto flash = attn::attention(c.q, c.k, v, options);
      REQUIRE(all_finite(flash.context));
      CHECK(relative_difference(flash.context, materialized.context) <= 1e-5);
      CHECK(relative_difference(materialized.context,
                                attn::reference::attention(c.q, c.k, v, options).context) <= 1e-5);
    }
  }
  // All-equal scores average v; one dominant key returns its value.
  attn::AttentionOptions options = unscaled(attn::Kernel::flash);
  const auto uniform = attn::attention(cases[2].q, cases[2].k, v, options);
  double column_mean = 0.0;
  for (std::size_t j = 0; j < m; ++j) column_mean += v(j, 1) / double(m);
  CHECK(uniform.context(0, 1) == Approx(column_mean).margin(1e-5));
  const auto one = attn::attention(cases[3].q, cases[3].k, v, options);
  CHECK(one.context(5, 2) == Approx(v(m - 7, 2)).margin(1e-6));
}

TEST_CASE("numerics: flash keeps values near FLT_MAX in range, as the materialised kernel does",
          "[numerics]") {
  // 64 equal scores: the unnormalised sum of weights·v would be 64·3e38 before dividing.
  const std::size_t m = 64;
  const attn::Matrix q = {{0.0f}}, k = filled(m, 1, 0.0f), v = filled(m, 2, 3e38f);
  for (attn::Kernel kernel : kKernels) {
    INFO(attn::to_string(kernel));
    const auto result = attn::attention(q, k, v, unscaled(kernel));
    CHECK(result.context(0, 0) == Approx(3e38));
    CHECK(result.context(0, 1) == Approx(3e38));
  }
}

TEST_CASE("numerics: v at ±FLT_MAX gives a context at ±FLT_MAX, not an overflow, in both kernels",
          "[numerics]") {
  // The context is a convex combination of v's entries, so within ±FLT_MAX; flash sums a
  // scaled-down v and scales the normalised rows back up by a power of two, where the sums'
  // last bits could round past FLT_MAX (found by fuzz_attention: 19 keys, |v| = FLT_MAX).
  std::mt19937 random(7);
  std::uniform_real_distribution<float> small(-1e-3f, 1e-3f);
  for (std::size_t m : {2, 3, 7, 19, 64, 300}) {
    attn::Matrix q = attn::Matrix::from_shape({5, 2}), k = attn::Matrix::from_shape({m, 2});
    for (float& value : q) value = small(random);
    for (float& value : k) value = small(random);
    attn::Matrix v = filled(m, 3, FLT_MAX);
    for (std::size_t j = 0; j < m; ++j) v(j, 1) = -FLT_MAX;
    for (attn::Kernel kernel : kKernels) {
      INFO("m = " << m << ", " << attn::to_string(kernel));
      const auto result = attn::attention(q, k, v, unscaled(kernel));
      for (std::size_t i = 0; i < 5; ++i) {
        CHECK(result.context(i, 0) == Approx(FLT_MAX));
        CHECK(result.context(i, 1) == Approx(-FLT_MAX));
        CHECK(std::isfinite(result.context(i, 2)));
      }
    }
  }
}

TEST_CASE("numerics: scores past float32's range fail by name instead of giving NaN or zeros",
          "[numerics]") {
  SECTION("a score of +Infinity") {
    const attn::Matrix q = {{1e20f}}, k = {{1e20f}, {1.0f}}, v = {{1.0f}, {2.0f}};
    for (attn::Kernel kernel : kKernels) {
      INFO(attn::to_string(kernel));
      REQUIRE_THROWS_AS(attn::attention(q, k, v, unscaled(kernel)), attn::InvalidArgument);
      REQUIRE_THROWS_WITH(
          attn::attention(q, k, v, unscaled(kernel)),
          Contains("overflowed float32 in head 0, query 0") && Contains("3.4028235e+38"));
    }
    REQUIRE_THROWS_WITH(attn::attention(q, k, v, unscaled(attn::Kernel::materialized)),
                        Contains("scores[0][0][0] = q·kᵀ·scale, which is Infinity"));
  }
  SECTION("every visible score -Infinity, which would look like a fully masked row") {
    const attn::Matrix q = {{1e20f}}, k = {{-1e20f}, {-3e19f}}, v = {{1.0f}, {2.0f}};
    REQUIRE_THROWS_WITH(attn::attention(q, k, v, unscaled(attn::Kernel::materialized)),
                        Contains("scores[0][0][0] = q·kᵀ·scale, which is -Infinity"));
    REQUIRE_THROWS_WITH(attn::attention(q, k, v, unscaled(attn::Kernel::flash)),
                        Contains("overflowed float32"));
  }
  SECTION("a scale that overflows q") {
    attn::AttentionOptions options = unscaled(attn::Kernel::materialized);
    options.scale.mode = attn::ScaleOption::Mode::factor;
    options.scale.factor = 1e30;
    REQUIRE_THROWS_WITH(
        attn::attention(attn::Matrix{{1e10f}}, attn::Matrix{{1.0f}}, attn::Matrix{{1.0f}}, options),
        Contains("overflowed float32"));
  }
  SECTION("the teaching modes still return whatever their arithmetic gives") {
    const attn::Matrix q = {{1e20f}}, k = {{1e20f}, {1.0f}}, v = {{1.0f}, {2.0f}};
    const auto result = attn::attention(
        q, k, v, unscaled(attn::Kernel::materialized, attn::Normalization::naive_softmax));
    CHECK(std::isinf(result.scores[0](0, 0)));
    CHECK(std::isnan(result.weights[0](0, 0)));
  }
  SECTION("the walk-through names the score") {
    const attn::Matrix x = {{1e20f, 0.0f}, {1.0f, 1.0f}};
    REQUIRE_THROWS_WITH(attn::walk_through_query(x, 0, 1.0),
                        Contains("scores[0] = x[0]·x[0]·scale is Infinity") && Contains("float32"));
    REQUIRE_THROWS_WITH(attn::walk_through_query(attn::Matrix{{1.0f}, {2.0f}}, 0, 1e300),
                        Contains("scores[0]") && Contains("Infinity"));
  }
}

TEST_CASE("numerics: RoPE with a subnormal base fails by name; tiny normal bases stay finite",
          "[numerics]") {
  const attn::Matrix x = {
      {1.0f, 2.0f, 3.0f, 4.0f}, {0.5f, -1.0f, 2.0f, 1.0f}, {1.0f, 1.0f, 1.0f, 1.0f}};
  attn::AttentionOptions options;
  options.positional.type = attn::PositionalType::rope;
  for (double base : {1e-300, 0.5, 100.0, 1e300}) {
    INFO("base " << base);
    options.positional.base = base;
    const attn::Matrix context = attn::attention(x, x, x, options).context;
    CHECK(all_finite(context));
    CHECK(relative_difference(context, attn::reference::attention(x, x, x, options).context) <=
          1e-5);
  }
  options.positional.base = 1e-320;
  REQUIRE_THROWS_WITH(attn::attention(x, x, x, options),
                      Contains("positional.base") && Contains("> 0"));
}
