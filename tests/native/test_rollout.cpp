#include <cmath>
#include <numeric>

#include "attn/rollout.hpp"
#include "helpers.hpp"

using Catch::Contains;

namespace {

attn::RolloutOptions rollout(long n, long layers, double residual, bool causal, double slope = 0.0,
                             long window = 0, long sinks = 0) {
  attn::RolloutOptions options;
  options.n = n;
  options.layers = layers;
  options.residual = residual;
  options.mask = {causal, window, sinks};
  options.alibi_slope = slope;
  return options;
}

using Square = std::vector<std::vector<double>>;

Square multiply(const Square& a, const Square& b) {
  const std::size_t n = a.size();
  Square c(n, std::vector<double>(n, 0.0));
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t t = 0; t < n; ++t) {
      for (std::size_t j = 0; j < n; ++j) c[i][j] += a[i][t] * b[t][j];
    }
  }
  return c;
}

// Row n-1 of M^L, M = αI + (1-α)A, with A the row-normalised exp(-slope·|i-j|) over the
// keys API.md's mask shows: the rollout written out as matrices.
std::vector<double> matrix_power_rollout(const attn::RolloutOptions& options) {
  const long n = options.n;
  const double alpha = options.residual;
  Square m(n, std::vector<double>(n, 0.0)), r(n, std::vector<double>(n, 0.0));
  for (long i = 0; i < n; ++i) {
    double total = 0.0;
    for (long j = 0; j < n; ++j) {
      if (helpers::api_visible(options.mask, i, j, n, n)) {
        m[i][j] = std::exp(-options.alibi_slope * std::abs(i - j));
        total += m[i][j];
      }
    }
    for (long j = 0; j < n; ++j) m[i][j] = (1 - alpha) * m[i][j] / total + (i == j ? alpha : 0.0);
    r[i][i] = 1.0;
  }
  for (long layer = 0; layer < options.layers; ++layer) r = multiply(r, m);
  return r[n - 1];
}

}  // namespace

TEST_CASE("rollout: influence sums to one", "[rollout]") {
  for (const auto& options :
       {rollout(1, 1, 0.0, true), rollout(30, 4, 0.3, true, 0.1),
        rollout(17, 6, 0.9, false, 0.5, 4, 2), rollout(50, 12, 0.0, true, 0.0, 5)}) {
    const std::vector<double> influence = attn::rollout_influence(options);
    REQUIRE(influence.size() == std::size_t(options.n));
    CHECK(std::accumulate(influence.begin(), influence.end(), 0.0) == Approx(1.0).margin(1e-12));
  }
}

TEST_CASE("rollout: one causal layer without decay is uniform over the positions", "[rollout]") {
  const long n = GENERATE(1L, 2L, 9L, 100L);
  for (double influence : attn::rollout_influence(rollout(n, 1, 0.0, true))) {
    CHECK(influence == Approx(1.0 / n).margin(1e-15));
  }
}

TEST_CASE("rollout: bidirectional one layer without bias is flat", "[rollout]") {
  for (double influence : attn::rollout_influence(rollout(12, 1, 0.0, false))) {
    CHECK(influence == Approx(1.0 / 12).margin(1e-15));
  }
}

TEST_CASE("rollout: equals the matrix power of alpha I + (1 - alpha) A", "[rollout]") {
  const attn::RolloutOptions settings[] = {
      rollout(1, 3, 0.5, true),
      rollout(8, 1, 0.0, true, 0.2),
      rollout(20, 5, 0.3, true),
      rollout(20, 5, 0.3, false, 0.1),
      rollout(33, 7, 0.6, true, 0.05, 6),
      rollout(33, 4, 0.2, true, 0.0, 5, 2),
      rollout(25, 9, 0.8, false, 0.3, 3, 4),
      rollout(40, 2, 1.0, true, 0.1),
  };
  for (const auto& options : settings) {
    INFO("n " << options.n << ", layers " << options.layers << ", residual " << options.residual
              << ", causal " << options.mask.causal << ", slope " << options.alibi_slope
              << ", window " << options.mask.window << ", sinks " << options.mask.sinks);
    const std::vector<double> influence = attn::rollout_influence(options);
    const std::vector<double> expected = matrix_power_rollout(options);
    for (long j = 0; j < options.n; ++j) CHECK(influence[j] == Approx(expected[j]).margin(1e-9));
  }
}

TEST_CASE("rollout: causal depth without residual or decay favours the start (primacy)",
          "[rollout]") {
  const long layers = GENERATE(2L, 4L, 10L);
  const std::vector<double> influence = attn::rollout_influence(rollout(40, layers, 0.0, true));
  for (std::size_t j = 0; j + 1 < influence.size(); ++j) CHECK(influence[j] >= influence[j + 1]);
  CHECK(influence.front() > 2 * influence.back());
}

TEST_CASE("rollout: one causal layer with an ALiBi slope favours the end (recency)", "[rollout]") {
  const std::vector<double> influence = attn::rollout_influence(rollout(40, 1, 0.0, true, 0.2));
  for (std::size_t j = 0; j + 1 < influence.size(); ++j) CHECK(influence[j] < influence[j + 1]);
}

TEST_CASE("rollout: causal depth with a residual and a small slope is U-shaped", "[rollout]") {
  const long n = 64;
  const std::vector<double> influence = attn::rollout_influence(rollout(n, 8, 0.6, true, 0.02));
  const double middle = influence[n / 2];
  CHECK(influence.front() > 2 * middle);  // depth carries the start forward
  CHECK(influence.back() > 2 * middle);   // the residual keeps α^L of the last token
  const auto lowest = std::min_element(influence.begin(), influence.end()) - influence.begin();
  CHECK(lowest > 0);
  CHECK(lowest < n - 1);
}

TEST_CASE("rollout: invalid options name the option", "[rollout][errors]") {
  auto rejects = [](const attn::RolloutOptions& bad, const std::string& words) {
    INFO(words);
    REQUIRE_THROWS_AS(attn::rollout_influence(bad), attn::InvalidArgument);
    REQUIRE_THROWS_WITH(attn::rollout_influence(bad), Contains(words));
  };
  rejects(rollout(0, 1, 0.0, true), "n must be a whole number ≥ 1, got 0");
  rejects(rollout(5, 0, 0.0, true), "layers must be a whole number ≥ 1, got 0");
  rejects(rollout(5, 1, 1.5, true), "residual must be a number in [0, 1]");
  rejects(rollout(5, 1, -0.1, true), "residual");
  rejects(rollout(5, 1, NAN, true), "residual must be a number in [0, 1], got NaN");
  rejects(rollout(5, 1, 0.0, true, -0.5), "positional.slope");
  rejects(rollout(5, 1, 0.0, true, INFINITY), "positional.slope");
  rejects(rollout(5, 1, 0.0, true, 0.0, -2), "window");
  rejects(rollout(5, 1, 0.0, true, 0.0, 2, -1), "sinks");
}
