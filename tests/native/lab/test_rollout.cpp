#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include "attn/lab/rollout.hpp"
#include "lab_helpers.hpp"

using attn::lab::KernelPath;
using attn::lab::RolloutStart;
using Catch::Contains;
using lab_helpers::context_of;
using lab_helpers::dense_rollout;
using lab_helpers::describe;
using lab_helpers::lab_defaults;
using lab_helpers::max_abs_difference;
using lab_helpers::model;
using lab_helpers::rope_model;

namespace {

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
// keys the mask of the README's options shows: the rollout written out as matrices.
std::vector<double> matrix_power_rollout(const attn::lab::PositionModel& options) {
  const long n = options.n;
  const double alpha = options.residual;
  Square m(n, std::vector<double>(n, 0.0)), r(n, std::vector<double>(n, 0.0));
  for (long i = 0; i < n; ++i) {
    double total = 0.0;
    for (long j = 0; j < n; ++j) {
      if (helpers::api_visible(options.mask, i, j, n, n)) {
        m[i][j] = std::exp(-options.bias.slope * std::abs(i - j));
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
       {model(1, 1, 0.0, true), model(30, 4, 0.3, true, 0.1), model(17, 6, 0.9, false, 0.5, 4, 2),
        model(50, 12, 0.0, true, 0.0, 5)}) {
    const std::vector<double> influence = attn::lab::rollout(options);
    REQUIRE(influence.size() == std::size_t(options.n));
    CHECK(std::accumulate(influence.begin(), influence.end(), 0.0) == Approx(1.0).margin(1e-12));
  }
}

TEST_CASE("rollout: one causal layer without decay is uniform over the positions", "[rollout]") {
  const long n = GENERATE(1L, 2L, 9L, 100L);
  for (double influence : attn::lab::rollout(model(n, 1, 0.0, true))) {
    CHECK(influence == Approx(1.0 / n).margin(1e-15));
  }
}

TEST_CASE("rollout: bidirectional one layer without bias is flat", "[rollout]") {
  for (double influence : attn::lab::rollout(model(12, 1, 0.0, false))) {
    CHECK(influence == Approx(1.0 / 12).margin(1e-15));
  }
}

TEST_CASE("rollout: equals the matrix power of alpha I + (1 - alpha) A", "[rollout]") {
  const attn::lab::PositionModel settings[] = {
      model(1, 3, 0.5, true),
      model(8, 1, 0.0, true, 0.2),
      model(20, 5, 0.3, true),
      model(20, 5, 0.3, false, 0.1),
      model(33, 7, 0.6, true, 0.05, 6),
      model(33, 4, 0.2, true, 0.0, 5, 2),
      model(25, 9, 0.8, false, 0.3, 3, 4),
      model(40, 2, 1.0, true, 0.1),
  };
  for (const auto& options : settings) {
    INFO("n " << options.n << ", layers " << options.layers << ", residual " << options.residual
              << ", causal " << options.mask.causal << ", slope " << options.bias.slope
              << ", window " << options.mask.window << ", sinks " << options.mask.sinks);
    const std::vector<double> influence = attn::lab::rollout(options);
    const std::vector<double> expected = matrix_power_rollout(options);
    for (long j = 0; j < options.n; ++j) CHECK(influence[j] == Approx(expected[j]).margin(1e-9));
  }
}

TEST_CASE("rollout: causal depth without residual or decay favours the start (primacy)",
          "[rollout]") {
  const long layers = GENERATE(2L, 4L, 10L);
  const std::vector<double> influence = attn::lab::rollout(model(40, layers, 0.0, true));
  for (std::size_t j = 0; j + 1 < influence.size(); ++j) CHECK(influence[j] >= influence[j + 1]);
  CHECK(influence.front() > 2 * influence.back());
}

TEST_CASE("rollout: one causal layer with an ALiBi slope favours the end (recency)", "[rollout]") {
  const std::vector<double> influence = attn::lab::rollout(model(40, 1, 0.0, true, 0.2));
  for (std::size_t j = 0; j + 1 < influence.size(); ++j) CHECK(influence[j] < influence[j + 1]);
}

TEST_CASE("rollout: causal depth with a residual and a small slope is U-shaped", "[rollout]") {
  const long n = 64;
  const std::vector<double> influence = attn::lab::rollout(model(n, 8, 0.6, true, 0.02));
  const double middle = influence[n / 2];
  CHECK(influence.front() > 2 * middle);  // depth carries the start forward
  CHECK(influence.back() > 2 * middle);   // the residual keeps α^L of the last token
  const auto lowest = std::min_element(influence.begin(), influence.end()) - influence.begin();
  CHECK(lowest > 0);
  CHECK(lowest < n - 1);
}

TEST_CASE("rollout: invalid options name the option", "[rollout][errors]") {
  auto rejects = [](const attn::lab::PositionModel& bad, const std::string& words) {
    INFO(words);
    REQUIRE_THROWS_AS(attn::lab::rollout(bad), attn::InvalidArgument);
    REQUIRE_THROWS_WITH(attn::lab::rollout(bad), Contains(words));
  };
  rejects(model(0, 1, 0.0, true), "n must be a whole number ≥ 1, got 0");
  rejects(model(5, 0, 0.0, true), "layers must be a whole number ≥ 1, got 0");
  rejects(model(5, 1, 1.5, true), "residual must be a number in [0, 1]");
  rejects(model(5, 1, -0.1, true), "residual");
  rejects(model(5, 1, NAN, true), "residual must be a number in [0, 1], got NaN");
  rejects(model(5, 1, 0.0, true, -0.5), "positional.slope");
  rejects(model(5, 1, 0.0, true, INFINITY), "positional.slope");
  rejects(model(5, 1, 0.0, true, 0.0, -2), "window");
  rejects(model(5, 1, 0.0, true, 0.0, 2, -1), "sinks");
}

TEST_CASE("propagate: both paths equal the dense matrix product", "[lab]") {
  std::vector<attn::lab::PositionModel> models = {model(1, 3, 0.5, true),
                                                  model(8, 1, 0.0, true, 0.2),
                                                  model(20, 5, 0.3, true),
                                                  model(20, 5, 0.3, false, 0.1),
                                                  model(33, 7, 0.6, true, 0.05, 6),
                                                  model(33, 4, 0.2, true, 0.0, 5, 2),
                                                  model(25, 9, 0.8, false, 0.3, 3, 4),
                                                  model(40, 2, 1.0, true, 0.1),
                                                  rope_model(30, 4, 0.5, 6.0, 100.0),
                                                  rope_model(24, 3, 0.2, 2.0, 10000.0)};
  attn::lab::PositionModel ms_poe = model(28, 6, 0.4, true, 0.15);
  ms_poe.position_scales = {1.2, 1.5, 1.8};
  models.push_back(ms_poe);
  attn::lab::PositionModel rope_heads = rope_model(22, 3, 0.3, 4.0, 50.0);
  rope_heads.position_scales = {1.0, 1.7};
  models.push_back(rope_heads);

  std::mt19937 rng(11);
  std::normal_distribution<double> normal(0.0, 1.5);
  for (const auto& m : models) {
    for (long first_content_row : {-1L, m.n - 1, 1L}) {
      attn::lab::Content content;
      if (first_content_row >= 0) {
        content.score.resize(m.n);
        for (double& score : content.score) score = normal(rng);
        content.first_content_row = first_content_row;
      }
      for (RolloutStart start : {RolloutStart::final_token, RolloutStart::every_token}) {
        const std::vector<double> expected = dense_rollout(m, content, start);
        for (KernelPath path : {KernelPath::fast, KernelPath::direct}) {
          const std::vector<double> got = attn::lab::propagate(m, content, start, path);
          const double worst = max_abs_difference(got, expected);
          INFO(describe(m) << ", content from row " << first_content_row << ", start " << int(start)
                           << ", path " << int(path) << ": max abs diff " << worst);
          CHECK(worst <= 1e-10);
          CHECK(std::accumulate(got.begin(), got.end(), 0.0) == Approx(1.0).margin(1e-10));
        }
      }
    }
  }
}

TEST_CASE("propagate: the fast path holds at a few thousand positions", "[lab]") {
  for (const auto& m : {model(3000, 16, 0.7, true, 0.004), model(3000, 8, 0.5, true, 0.0, 200, 4),
                        model(2000, 6, 0.6, false, 0.01)}) {
    const double worst = max_abs_difference(
        attn::lab::propagate(m, {}, RolloutStart::final_token, KernelPath::fast),
        attn::lab::propagate(m, {}, RolloutStart::final_token, KernelPath::direct));
    INFO(describe(m) << ": max abs diff " << worst);
    CHECK(worst <= 1e-12);
  }
}

TEST_CASE("position curve: the final token's curve is the rollout", "[lab]") {
  for (const auto& m : {model(50, 6, 0.4, true, 0.05), model(30, 3, 0.0, false),
                        model(64, 8, 0.5, true, 0.0, 9, 2)}) {
    const std::vector<double> rollout = attn::lab::rollout(m);
    const attn::lab::PositionCurve curve = attn::lab::position_curve(m, RolloutStart::final_token);
    INFO(describe(m));
    CHECK(max_abs_difference(curve.values, rollout) == 0.0);
  }
}

TEST_CASE("position curve: causal depth without residual or decay is monotone primacy",
          "[lab][shapes]") {
  const long layers = GENERATE(2L, 4L, 16L);
  const std::vector<double> values =
      attn::lab::position_curve(model(500, layers, 0.0, true), RolloutStart::final_token).values;
  for (std::size_t j = 0; j + 1 < values.size(); ++j) CHECK(values[j] >= values[j + 1]);
  CHECK(values.front() > 5 * values[values.size() / 2]);
}

TEST_CASE("position curve: one causal ALiBi layer is monotone recency", "[lab][shapes]") {
  const double slope = GENERATE(0.001, 0.02, 0.5);
  const std::vector<double> values =
      attn::lab::position_curve(model(400, 1, 0.0, true, slope), RolloutStart::final_token).values;
  for (std::size_t j = 0; j + 1 < values.size(); ++j) CHECK(values[j] < values[j + 1]);
}

TEST_CASE("position curve: causal depth with a residual is U-shaped", "[lab][shapes]") {
  SECTION("with decay: the documents alone, both ends above the middle") {
    for (const auto& m : {model(200, 16, 0.9, true, 0.02), model(1000, 16, 0.9, true, 0.004),
                          lab_defaults().model}) {
      const attn::lab::PositionCurve curve =
          attn::lab::position_curve(m, RolloutStart::final_token);
      INFO(describe(m) << ": begin " << curve.summary.begin << ", middle " << curve.summary.middle
                       << ", end " << curve.summary.end);
      CHECK(curve.summary.begin > 1.1 * curve.summary.middle);
      CHECK(curve.summary.end > 1.1 * curve.summary.middle);
      const std::vector<double> context = context_of(curve.values);
      const auto lowest = std::min_element(context.begin(), context.end()) - context.begin();
      CHECK(lowest > 0);
      CHECK(lowest < static_cast<long>(context.size()) - 1);
    }
  }
  SECTION("without decay: the residual keeps the final token itself above the middle") {
    const std::vector<double> values =
        attn::lab::position_curve(model(200, 8, 0.5, true), RolloutStart::final_token).values;
    const double middle = values[values.size() / 2];
    CHECK(values.front() > 10 * middle);
    CHECK(values.back() > 3 * middle);
  }
}

TEST_CASE("position curve: bidirectional without positional bias is flat", "[lab][shapes]") {
  const long layers = GENERATE(1L, 6L);
  for (double value :
       attn::lab::position_curve(model(300, layers, 0.0, false), RolloutStart::final_token)
           .values) {
    CHECK(value == Approx(1.0 / 300).epsilon(1e-9));
  }
}

TEST_CASE("position curve: attention received sums over every query", "[lab]") {
  const attn::lab::PositionModel m = model(40, 3, 0.2, true, 0.1);
  const std::vector<double> received =
      attn::lab::position_curve(m, RolloutStart::every_token).values;
  CHECK(max_abs_difference(received, dense_rollout(m, {}, RolloutStart::every_token)) <= 1e-12);
  CHECK(received.front() > received.back());  // under a causal mask every query sees position 0
}

TEST_CASE("position curve: RoPE decay favours the end in one causal layer", "[lab][shapes]") {
  const std::vector<double> values =
      attn::lab::position_curve(rope_model(300, 1, 0.0, 8.0, 10000.0), RolloutStart::final_token)
          .values;
  CHECK(values.back() > 5 * values.front());
  CHECK(values[values.size() - 2] > values[values.size() / 2]);
}

TEST_CASE("position curve: sinks and a window keep the start alive", "[lab][shapes]") {
  const attn::lab::PositionCurve windowed =
      attn::lab::position_curve(model(400, 8, 0.3, true, 0.0, 32, 0), RolloutStart::final_token);
  const attn::lab::PositionCurve with_sinks =
      attn::lab::position_curve(model(400, 8, 0.3, true, 0.0, 32, 4), RolloutStart::final_token);
  CHECK(windowed.values.front() == 0.0);  // 8 layers of a 32-key window reach 8·31 positions back
  CHECK(with_sinks.values.front() > 0.05);
}

TEST_CASE("summary: first, middle and last points, mean and max over min", "[lab]") {
  std::vector<double> curve(20);
  std::iota(curve.begin(), curve.end(), 1.0);
  const attn::lab::CurveSummary summary = attn::lab::summarize(curve);
  CHECK(summary.begin == 1.0);
  CHECK(summary.middle == Approx(10.5));
  CHECK(summary.end == 20.0);
  CHECK(attn::lab::summarize({3.0, 7.0, 5.0}).middle == 7.0);
  CHECK(summary.mean == Approx(10.5));
  CHECK(summary.max_over_min == Approx(20.0));
  CHECK(std::isinf(attn::lab::summarize({0.0, 1.0}).max_over_min));
}

TEST_CASE("summary: the means of the first, middle and last tenth, one point each at least",
          "[lab]") {
  std::vector<double> curve(20);  // 0 … 19: tenths of 2 points, the middle one from 9
  std::iota(curve.begin(), curve.end(), 0.0);
  const attn::lab::CurveSummary summary = attn::lab::summarize(curve);
  CHECK(summary.first_tenth == 0.5);
  CHECK(summary.middle_tenth == 9.5);
  CHECK(summary.last_tenth == 18.5);
  const attn::lab::CurveSummary short_curve = attn::lab::summarize({3.0, 1.0, 2.0});
  CHECK(short_curve.first_tenth == 3.0);
  CHECK(short_curve.middle_tenth == 1.0);
  CHECK(short_curve.last_tenth == 2.0);
  std::vector<double> long_curve(1023, 1.0);   // tenths of 102 points, the middle one from 460
  long_curve[459] = long_curve[562] = 1000.0;  // just outside the middle tenth
  long_curve[101] = 3.0;
  const attn::lab::CurveSummary long_summary = attn::lab::summarize(long_curve);
  CHECK(long_summary.middle_tenth == 1.0);
  CHECK(long_summary.first_tenth == Approx(104.0 / 102.0));
}

TEST_CASE("summary: a steep ALiBi start, 0 in float32, keeps its tenth's mean in double", "[lab]") {
  // the lab's defaults with the slope 0.3162 (#slope=0.3162): 1,024 tokens, 12 layers, residual 0.85
  const attn::lab::PositionCurve curve =
      attn::lab::position_curve(model(1024, 12, 0.85, true, 0.3162), RolloutStart::final_token);
  const attn::lab::CurveSummary& summary = curve.summary;
  INFO("tenths " << summary.first_tenth << ", " << summary.middle_tenth << ", "
                 << summary.last_tenth);
  CHECK(static_cast<float>(summary.first_tenth) == 0.0f);
  CHECK(summary.first_tenth > 0.0);
  CHECK(summary.first_tenth < summary.middle_tenth);
  CHECK(summary.middle_tenth < summary.last_tenth);
}
