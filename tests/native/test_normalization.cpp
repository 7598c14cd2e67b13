#include <cmath>
#include <limits>
#include <string>

#include "attn/attention.hpp"
#include "attn/normalization.hpp"
#include "helpers.hpp"

TEST_CASE("normalization: names match the JavaScript API", "[normalization]") {
  CHECK(std::string(attn::to_string(attn::Normalization::softmax)) == "softmax");
  CHECK(std::string(attn::to_string(attn::Normalization::naive_softmax)) == "naive-softmax");
  CHECK(std::string(attn::to_string(attn::Normalization::sum)) == "sum");
}

TEST_CASE("softmax: rows sum to one", "[normalization]") {
  std::mt19937 rng(21);
  const long n = GENERATE(1L, 3L, 33L);
  const long m = GENERATE(1L, 7L, 65L, 130L);
  const auto weights = attn::normalize_rows(helpers::random_matrix(n, m, rng, -20.0f, 20.0f),
                                            attn::Normalization::softmax);
  for (long i = 0; i < n; ++i) {
    double total = 0.0;
    for (long j = 0; j < m; ++j) {
      CHECK(weights(i, j) >= 0.0f);
      total += weights(i, j);
    }
    CHECK(total == Approx(1.0).margin(1e-6));
  }
}

TEST_CASE("softmax: rows sum to one in attention for every head", "[normalization]") {
  std::mt19937 rng(22);
  const long heads = GENERATE(1L, 2L, 4L);
  const long n = GENERATE(2L, 19L);
  const long m = GENERATE(5L, 37L);
  attn::AttentionOptions options;
  options.heads = heads;
  const auto result = attn::attention(helpers::random_matrix(n, 4 * heads, rng),
                                      helpers::random_matrix(m, 4 * heads, rng),
                                      helpers::random_matrix(m, heads, rng), options);
  REQUIRE(result.weights.size() == std::size_t(heads));
  for (const attn::Matrix& weights : result.weights) {
    for (long i = 0; i < n; ++i) {
      double total = 0.0;
      for (long j = 0; j < m; ++j) total += weights(i, j);
      CHECK(total == Approx(1.0).margin(1e-6));
    }
  }
}

TEST_CASE("softmax: adding a constant to a whole row leaves the weights unchanged",
          "[normalization]") {
  std::mt19937 rng(23);
  const float shift = GENERATE(-50.0f, -1.5f, 3.0f, 80.0f);
  const attn::Matrix scores = helpers::random_matrix(6, 11, rng, -5.0f, 5.0f);
  const attn::Matrix shifted = scores + shift;
  CHECK_CLOSE(attn::normalize_rows(shifted, attn::Normalization::softmax),
              attn::normalize_rows(scores, attn::Normalization::softmax), 1e-6);
}

TEST_CASE("sum normalization: each weight is its score over the row sum", "[normalization]") {
  std::mt19937 rng(24);
  const attn::Matrix scores = helpers::random_matrix(5, 9, rng, 0.1f, 2.0f);
  const attn::Matrix weights = attn::normalize_rows(scores, attn::Normalization::sum);
  for (long i = 0; i < 5; ++i) {
    double total = 0.0;
    for (long j = 0; j < 9; ++j) total += scores(i, j);
    for (long j = 0; j < 9; ++j) CHECK(weights(i, j) == Approx(scores(i, j) / total).epsilon(1e-6));
  }
  // A teaching mode: negative scores give negative weights, as the arithmetic says.
  const float mixed[] = {2.0f, -1.0f};
  float out[2];
  attn::normalize_row(attn::Normalization::sum, mixed, out, 2);
  CHECK(out[0] == 2.0f);
  CHECK(out[1] == -1.0f);
  // With a negative row total, a masked key and a zero score get +0, not -0.
  const float negative[] = {-2.0f, -std::numeric_limits<float>::infinity(), 0.0f, -1.0f};
  float row[4];
  attn::normalize_row(attn::Normalization::sum, negative, row, 4);
  CHECK(row[0] == Approx(2.0 / 3.0));
  CHECK(row[3] == Approx(1.0 / 3.0));
  CHECK(row[1] == 0.0f);
  CHECK_FALSE(std::signbit(row[1]));
  CHECK_FALSE(std::signbit(row[2]));
}

TEST_CASE("naive softmax: agrees with softmax for moderate scores and overflows for huge ones",
          "[normalization]") {
  std::mt19937 rng(25);
  const attn::Matrix scores = helpers::random_matrix(4, 8, rng, -10.0f, 10.0f);
  CHECK_CLOSE(attn::normalize_rows(scores, attn::Normalization::naive_softmax),
              attn::normalize_rows(scores, attn::Normalization::softmax), 1e-6);

  const float huge[] = {1000.0f, 999.0f, 0.0f};
  float naive[3], stable[3];
  attn::normalize_row(attn::Normalization::naive_softmax, huge, naive, 3);
  attn::normalize_row(attn::Normalization::softmax, huge, stable, 3);
  CHECK(std::isnan(naive[0]));  // Infinity / Infinity
  CHECK(std::isnan(naive[1]));
  CHECK(naive[2] == 0.0f);
  CHECK(stable[0] == Approx(1.0 / (1.0 + std::exp(-1.0))).epsilon(1e-6));
  CHECK(stable[1] == Approx(std::exp(-1.0) / (1.0 + std::exp(-1.0))).epsilon(1e-6));
}

TEST_CASE("softmax: stays finite for scores up to plus or minus 1e30", "[normalization]") {
  const float scores[] = {1e30f, -1e30f, 1e30f, 0.0f, -3e29f};
  float weights[5];
  attn::normalize_row(attn::Normalization::softmax, scores, weights, 5);
  const float expected[] = {0.5f, 0.0f, 0.5f, 0.0f, 0.0f};
  for (int j = 0; j < 5; ++j) {
    CHECK(std::isfinite(weights[j]));
    CHECK(weights[j] == expected[j]);
  }
  const float all_negative[] = {-1e30f, -1e30f};
  attn::normalize_row(attn::Normalization::softmax, all_negative, weights, 2);
  CHECK(weights[0] == 0.5f);
  CHECK(weights[1] == 0.5f);
}

TEST_CASE("normalization: masked keys take no part and a fully masked row is zero",
          "[normalization]") {
  const double e = std::exp(1.0);
  const struct {
    attn::Normalization normalization;
    double first, second;  // the weights of the visible scores 1 and 2
  } cases[] = {{attn::Normalization::softmax, 1 / (1 + e), e / (1 + e)},
               {attn::Normalization::naive_softmax, 1 / (1 + e), e / (1 + e)},
               {attn::Normalization::sum, 1.0 / 3.0, 2.0 / 3.0}};
  for (const auto& test : cases) {
    INFO(attn::to_string(test.normalization));
    const float scores[] = {1.0f, -INFINITY, 2.0f, -INFINITY};
    float weights[4];
    attn::normalize_row(test.normalization, scores, weights, 4);
    CHECK(weights[0] == Approx(test.first).epsilon(1e-6));
    CHECK(weights[1] == 0.0f);
    CHECK(weights[2] == Approx(test.second).epsilon(1e-6));
    CHECK(weights[3] == 0.0f);

    const float nothing_visible[] = {-INFINITY, -INFINITY, -INFINITY};
    float zeros[3] = {7.0f, 7.0f, 7.0f};
    attn::normalize_row(test.normalization, nothing_visible, zeros, 3);
    for (float weight : zeros) CHECK(weight == 0.0f);
  }
}
