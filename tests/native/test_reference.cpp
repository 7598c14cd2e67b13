#include <cmath>

#include "attn/kernels.hpp"
#include "attn/reference.hpp"
#include "helpers.hpp"

TEST_CASE("reference: matmul of a known product", "[reference]") {
  const attn::Matrix a = {{1, 2, 3}, {4, 5, 6}};
  const attn::Matrix b = {{7, 8}, {9, 10}, {11, 12}};
  const attn::Matrix expected = {{58, 64}, {139, 154}};
  CHECK_CLOSE(attn::reference::matmul(a, b), expected, 0.0);
}

TEST_CASE("reference: attention of a hand-worked example", "[reference]") {
  // One query [1, 0] over keys [1, 0], [0, 1], [0, 0] with scale 1: scores 1, 0, 0.
  const attn::Matrix q = {{1, 0}}, k = {{1, 0}, {0, 1}, {0, 0}}, v = {{1, 0}, {0, 1}, {2, 2}};
  attn::AttentionOptions options;
  options.scale.mode = attn::ScaleOption::Mode::none;
  const double e = std::exp(1.0);
  const auto result = attn::reference::attention(q, k, v, options);
  const attn::Matrix weights = {{float(e / (e + 2)), float(1 / (e + 2)), float(1 / (e + 2))}};
  const attn::Matrix context = {{float((e + 2) / (e + 2)), float(3 / (e + 2))}};
  CHECK_CLOSE(result.weights[0], weights, 1e-7);
  CHECK_CLOSE(result.context, context, 1e-7);

  // Causal with m > n: the query sits at position 2 and sees all three keys; a window of
  // 1 leaves it key 2 alone, and one sink adds key 0 back.
  options.mask = {true, 1, 1};
  const auto windowed = attn::reference::attention(q, k, v, options);
  const attn::Matrix sink_weights = {{float(e / (e + 1)), 0.0f, float(1 / (e + 1))}};
  CHECK_CLOSE(windowed.weights[0], sink_weights, 1e-7);
  CHECK(windowed.scores[0](0, 1) == -INFINITY);
}

TEST_CASE("reference: the fast attention equals the double-precision reference for every option",
          "[reference][kernels]") {
  std::mt19937 rng(61);
  const long heads = GENERATE(1L, 3L);
  // keys across two flash tiles of kFlashTileCols, value heads across two panels of kPanelCols
  std::uniform_int_distribution<long> queries(1, 80),
      keys(1, 2 * attn::kernels::kFlashTileCols + 100), half_width(1, 4), value_width(1, 20);
  for (const attn::AttentionOptions& options : helpers::option_grid(heads)) {
    const long n = queries(rng), m = keys(rng), dh = 2 * half_width(rng), dvh = value_width(rng);
    INFO(helpers::describe(options) << ", n " << n << ", m " << m << ", dh " << dh);
    const attn::Matrix q = helpers::random_matrix(n, heads * dh, rng, 0.0f, 1.0f);
    const attn::Matrix k = helpers::random_matrix(m, heads * dh, rng, 0.0f, 1.0f);
    const attn::Matrix v = helpers::random_matrix(m, heads * dvh, rng);
    const auto fast = attn::attention(q, k, v, options);
    const auto slow = attn::reference::attention(q, k, v, options);
    REQUIRE(fast.kernel_used == attn::Kernel::materialized);
    for (long h = 0; h < heads; ++h) {
      REQUIRE(fast.scores[h].shape() == slow.scores[h].shape());
      CHECK(helpers::max_scaled_difference(fast.scores[h], slow.scores[h]) <= 1e-5);
      CHECK_CLOSE(fast.weights[h], slow.weights[h], 1e-5);
    }
    CHECK_CLOSE(fast.context, slow.context, 1e-5);
  }
}

TEST_CASE(
    "reference: grouped-query attention in both kernels equals the reference for every option",
    "[reference][kernels][grouped]") {
  std::mt19937 rng(63);
  // keys across two flash tiles in every eighth case: the reference's cost, under the sanitizers,
  // grows with them (the test above takes value heads across the packed panels)
  std::uniform_int_distribution<long> queries(1, 80), keys(1, 150),
      many_keys(attn::kernels::kFlashTileCols, 2 * attn::kernels::kFlashTileCols + 100),
      half_width(1, 4), value_width(1, 4);
  long drawn = 0;
  for (const auto& [heads, kv_heads] : helpers::grouped_head_pairs()) {
    for (attn::AttentionOptions options : helpers::option_grid(heads)) {
      options.kv_heads = kv_heads;
      const long n = queries(rng), m = drawn++ % 8 == 0 ? many_keys(rng) : keys(rng);
      const long dh = 2 * half_width(rng), dvh = value_width(rng);
      INFO(helpers::describe(options) << ", n " << n << ", m " << m << ", dh " << dh);
      const attn::Matrix q = helpers::random_matrix(n, heads * dh, rng, 0.0f, 1.0f);
      const attn::Matrix k = helpers::random_matrix(m, kv_heads * dh, rng, 0.0f, 1.0f);
      const attn::Matrix v = helpers::random_matrix(m, kv_heads * dvh, rng);
      const auto slow = attn::reference::attention(q, k, v, options);
      REQUIRE(slow.context.shape(1) == std::size_t(heads * dvh));
      options.kernel = attn::Kernel::materialized;
      const auto materialized = attn::attention(q, k, v, options);
      REQUIRE(materialized.scores.size() == std::size_t(heads));
      for (long h = 0; h < heads; ++h) {
        REQUIRE(materialized.scores[h].shape() == slow.scores[h].shape());
        CHECK(helpers::max_scaled_difference(materialized.scores[h], slow.scores[h]) <= 1e-5);
        CHECK_CLOSE(materialized.weights[h], slow.weights[h], 1e-5);
      }
      CHECK_CLOSE(materialized.context, slow.context, 1e-5);
      options.kernel = attn::Kernel::flash;
      CHECK_CLOSE(attn::attention(q, k, v, options).context, slow.context, 1e-5);
    }
  }
}

TEST_CASE("reference: multi-query attention by hand, two query heads reading one key head",
          "[reference][grouped]") {
  // q: 1×4 (two heads of 2), k and v: 2×2 (one head). Head 0 scores q[0..2)·k, head 1 q[2..4)·k.
  const attn::Matrix q{{1.0f, 0.0f, 0.0f, 2.0f}};
  const attn::Matrix k{{1.0f, 0.0f}, {0.0f, 1.0f}};
  const attn::Matrix v{{10.0f, 0.0f}, {0.0f, 20.0f}};
  attn::AttentionOptions options;
  options.heads = 2;
  options.kv_heads = 1;
  options.scale.mode = attn::ScaleOption::Mode::none;
  const auto result = attn::reference::attention(q, k, v, options);
  // Head 0: scores (1, 0), weights (e/(e+1), 1/(e+1)); head 1: scores (0, 2).
  const double e = std::exp(1.0), e2 = std::exp(2.0);
  CHECK(result.scores[0](0, 0) == 1.0f);
  CHECK(result.scores[1](0, 1) == 2.0f);
  CHECK(result.weights[0](0, 0) == Approx(e / (e + 1)).epsilon(1e-6));
  CHECK(result.weights[1](0, 1) == Approx(e2 / (e2 + 1)).epsilon(1e-6));
  // Context: n×(H·dvh) = 1×4, head 0's then head 1's weighted sum of the same v.
  REQUIRE(result.context.shape(1) == 4);
  CHECK(result.context(0, 0) == Approx(10 * e / (e + 1)).epsilon(1e-6));
  CHECK(result.context(0, 1) == Approx(20 / (e + 1)).epsilon(1e-6));
  CHECK(result.context(0, 2) == Approx(10 / (e2 + 1)).epsilon(1e-6));
  CHECK(result.context(0, 3) == Approx(20 * e2 / (e2 + 1)).epsilon(1e-6));
  // Contexts near 18, where float32's spacing is 2e-6.
  const auto fast = attn::attention(q, k, v, options);
  CHECK_CLOSE(fast.context, result.context, 4e-6);
}
