#include <cmath>

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
  std::uniform_int_distribution<long> queries(1, 80), keys(1, 150), half_width(1, 4);
  for (const attn::AttentionOptions& options : helpers::option_grid(heads)) {
    const long n = queries(rng), m = keys(rng), dh = 2 * half_width(rng), dvh = half_width(rng);
    INFO(helpers::describe(options) << ", n " << n << ", m " << m << ", dh " << dh);
    const attn::Matrix q = helpers::random_matrix(n, heads * dh, rng, 0.0f, 1.0f);
    const attn::Matrix k = helpers::random_matrix(m, heads * dh, rng, 0.0f, 1.0f);
    const attn::Matrix v = helpers::random_matrix(m, heads * dvh, rng);
    const auto fast = attn::attention(q, k, v, options);
    const auto slow = attn::reference::attention(q, k, v, options);
    REQUIRE(fast.kernel_used == attn::Kernel::materialized);
    for (long h = 0; h < heads; ++h) {
      CHECK_CLOSE(fast.scores[h], slow.scores[h], 1e-5);
      CHECK_CLOSE(fast.weights[h], slow.weights[h], 1e-5);
    }
    CHECK_CLOSE(fast.context, slow.context, 1e-5);
  }
}
