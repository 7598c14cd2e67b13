#include "attn/position_bias.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "attn/rollout.hpp"
#include "helpers.hpp"

using Catch::Contains;
using attn::DistanceBias;
using attn::KernelPath;
using attn::Mitigation;
using attn::RolloutStart;

namespace {

attn::PositionModel model(long n, long layers, double residual, bool causal, double slope = 0.0,
                          long window = 0, long sinks = 0) {
  attn::PositionModel result;
  result.n = n;
  result.layers = layers;
  result.residual = residual;
  result.mask = {causal, window, sinks};
  if (slope > 0.0) {
    result.bias.type = DistanceBias::Type::alibi;
    result.bias.slope = slope;
  }
  return result;
}

attn::PositionModel rope_model(long n, long layers, double residual, double strength, double base) {
  attn::PositionModel result = model(n, layers, residual, true);
  result.bias.type = DistanceBias::Type::rope;
  result.bias.strength = strength;
  result.bias.base = base;
  result.bias.head_width = 16;
  return result;
}

std::string describe(const attn::PositionModel& m) {
  std::ostringstream text;
  text << "n " << m.n << ", layers " << m.layers << ", residual " << m.residual
       << (m.mask.causal ? ", causal" : ", bidirectional") << ", window " << m.mask.window
       << ", sinks " << m.mask.sinks << ", bias " << int(m.bias.type) << " slope " << m.bias.slope
       << ", heads " << m.position_scales.size();
  return text.str();
}

// The positional score of distance d for one head, written from the formulas.
double reference_bias(const DistanceBias& bias, double d) {
  if (bias.type == DistanceBias::Type::alibi) return -bias.slope * d;
  if (bias.type == DistanceBias::Type::rope) {
    double total = 0.0;
    const long half = bias.head_width / 2;
    for (long t = 0; t < half; ++t) total += std::cos(d * std::pow(bias.base, -2.0 * t / bias.head_width));
    return bias.strength * total / half;
  }
  return 0.0;
}

// start · ∏(αI + (1-α)A), A the head-averaged softmax of position and content scores over the
// keys API.md's mask shows, as dense n×n matrices in double precision.
std::vector<double> dense_rollout(const attn::PositionModel& m, const attn::Content& content,
                                  RolloutStart start) {
  const long n = m.n;
  std::vector<std::vector<double>> a(n, std::vector<double>(n, 0.0));
  for (double scale : m.position_scales) {
    for (long i = 0; i < n; ++i) {
      const bool reads_content = !content.score.empty() && (i >= content.first_content_row || i == n - 1);
      std::vector<double> row(n, 0.0);
      double total = 0.0;
      for (long j = 0; j < n; ++j) {
        if (!helpers::api_visible(m.mask, i, j, n, n)) continue;
        const double score = reference_bias(m.bias, std::abs(i - j) / scale) +
                             (reads_content ? content.score[j] : 0.0);
        row[j] = std::exp(score);
        total += row[j];
      }
      for (long j = 0; j < n; ++j) a[i][j] += row[j] / total / m.position_scales.size();
    }
  }
  std::vector<double> x(n, start == RolloutStart::final_token ? 0.0 : 1.0 / n);
  if (start == RolloutStart::final_token) x[n - 1] = 1.0;
  for (long layer = 0; layer < m.layers; ++layer) {
    std::vector<double> next(n, 0.0);
    for (long i = 0; i < n; ++i) {
      next[i] += m.residual * x[i];
      for (long j = 0; j < n; ++j) next[j] += (1.0 - m.residual) * x[i] * a[i][j];
    }
    x = next;
  }
  return x;
}

double max_abs_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double worst = 0.0;
  for (std::size_t k = 0; k < a.size(); ++k) worst = std::max(worst, std::abs(a[k] - b[k]));
  return worst;
}

const attn::MaskOptions kMasks[] = {{true, 0, 0},  {false, 0, 0}, {true, 5, 0},  {true, 5, 2},
                                    {false, 4, 0}, {false, 4, 3}, {true, 1, 1},  {false, 1, 0},
                                    {true, 50, 7}, {false, 2, 30}, {true, 3, 3}};

std::vector<double> context_of(const std::vector<double>& values) {
  return std::vector<double>(values.begin(), values.end() - 1);
}

attn::NeedleOptions lab_defaults() {
  // The lab page's defaults for the needle experiments (web/lab/state.js).
  attn::NeedleOptions options;
  options.model = model(1024, 12, 0.85, true, 0.003);
  options.depths = 11;
  options.signal = 3.0;
  options.noise = 1.0;
  options.trials = 8;
  options.seed = 1;
  return options;
}

}  // namespace

TEST_CASE("position spans: the keys a query sees, as visible_keys defines them", "[position_bias]") {
  for (const auto& mask : kMasks) {
    for (long n : {1L, 2L, 9L, 40L}) {
      for (long i = 0; i < n; ++i) {
        const attn::Intervals spans = attn::visible_spans(mask, i, n);
        const attn::VisibleKeys keys = attn::visible_keys(mask, i, n, n);
        REQUIRE(spans.count <= 2);
        for (long j = 0; j < n; ++j) {
          bool inside = false;
          for (int s = 0; s < spans.count; ++s) inside |= j >= spans.begin[s] && j < spans.end[s];
          INFO("n " << n << " query " << i << " key " << j << " window " << mask.window);
          CHECK(inside == keys.contains(j));
        }
      }
    }
  }
}

TEST_CASE("position spans: the queries that see a key are the transpose", "[position_bias]") {
  for (const auto& mask : kMasks) {
    for (long n : {1L, 2L, 9L, 40L}) {
      for (long j = 0; j < n; ++j) {
        const attn::Intervals spans = attn::seeing_spans(mask, j, n);
        for (long i = 0; i < n; ++i) {
          bool inside = false;
          for (int s = 0; s < spans.count; ++s) inside |= i >= spans.begin[s] && i < spans.end[s];
          INFO("n " << n << " key " << j << " query " << i << " window " << mask.window << " sinks "
                    << mask.sinks << " causal " << mask.causal);
          CHECK(inside == helpers::api_visible(mask, i, j, n, n));
        }
      }
    }
  }
}

TEST_CASE("kernel sums: the O(n) running sums equal direct summation", "[position_bias]") {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> uniform(0.0, 3.0);
  for (const auto& mask : kMasks) {
    for (double slope : {0.0, 0.01, 0.3, 5.0}) {
      for (long n : {2L, 17L, 300L}) {
        DistanceBias bias;
        bias.type = slope > 0 ? DistanceBias::Type::alibi : DistanceBias::Type::none;
        bias.slope = slope;
        const attn::DistanceKernel kernel = attn::distance_kernel(bias, 1.3, n);
        std::vector<double> w(n);
        for (double& value : w) value = uniform(rng) * (uniform(rng) < 0.5 ? 1.0 : 1e-3);
        for (bool transpose : {false, true}) {
          std::vector<double> fast, direct;
          attn::kernel_sums(kernel, mask, transpose, w, fast, KernelPath::fast);
          attn::kernel_sums(kernel, mask, transpose, w, direct, KernelPath::direct);
          double worst = 0.0;
          for (long o = 0; o < n; ++o) worst = std::max(worst, std::abs(fast[o] - direct[o]) / (1.0 + direct[o]));
          INFO("n " << n << ", slope " << slope << ", window " << mask.window << ", sinks " << mask.sinks
                    << ", causal " << mask.causal << ", transpose " << transpose << ": max rel diff " << worst);
          CHECK(worst <= 1e-12);
        }
      }
    }
  }
}

TEST_CASE("kernel sums: running sums keep their digits when weights span e^20", "[position_bias]") {
  // Content weights exp(score - max) for scores over 20 units: a difference of running sums
  // across a large weight lost up to 7 digits (3.6e-7 on the causal diagonal) before such
  // intervals were summed term by term.
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> score(-20.0, 0.0);
  for (const auto& mask : kMasks) {
    for (double slope : {0.0, 0.05, 0.5}) {
      const long n = 400;
      DistanceBias bias;
      bias.type = slope > 0 ? DistanceBias::Type::alibi : DistanceBias::Type::none;
      bias.slope = slope;
      const attn::DistanceKernel kernel = attn::distance_kernel(bias, 1.0, n);
      std::vector<double> w(n);
      for (double& value : w) value = std::exp(score(rng));
      for (bool transpose : {false, true}) {
        std::vector<double> fast, direct;
        attn::kernel_sums(kernel, mask, transpose, w, fast, KernelPath::fast);
        attn::kernel_sums(kernel, mask, transpose, w, direct, KernelPath::direct);
        double worst = 0.0;
        for (long o = 0; o < n; ++o) {
          if (direct[o] > 0.0) worst = std::max(worst, std::abs(fast[o] - direct[o]) / direct[o]);
        }
        INFO("slope " << slope << ", window " << mask.window << ", sinks " << mask.sinks << ", causal "
                      << mask.causal << ", transpose " << transpose << ": max rel diff " << worst);
        CHECK(worst <= 1e-12);
      }
    }
  }
}

TEST_CASE("propagate: both paths equal the dense matrix product", "[position_bias]") {
  std::vector<attn::PositionModel> models = {
      model(1, 3, 0.5, true),           model(8, 1, 0.0, true, 0.2),
      model(20, 5, 0.3, true),          model(20, 5, 0.3, false, 0.1),
      model(33, 7, 0.6, true, 0.05, 6), model(33, 4, 0.2, true, 0.0, 5, 2),
      model(25, 9, 0.8, false, 0.3, 3, 4), model(40, 2, 1.0, true, 0.1),
      rope_model(30, 4, 0.5, 6.0, 100.0), rope_model(24, 3, 0.2, 2.0, 10000.0)};
  attn::PositionModel ms_poe = model(28, 6, 0.4, true, 0.15);
  ms_poe.position_scales = {1.2, 1.5, 1.8};
  models.push_back(ms_poe);
  attn::PositionModel rope_heads = rope_model(22, 3, 0.3, 4.0, 50.0);
  rope_heads.position_scales = {1.0, 1.7};
  models.push_back(rope_heads);

  std::mt19937 rng(11);
  std::normal_distribution<double> normal(0.0, 1.5);
  for (const auto& m : models) {
    for (long first_content_row : {-1L, m.n - 1, 1L}) {
      attn::Content content;
      if (first_content_row >= 0) {
        content.score.resize(m.n);
        for (double& score : content.score) score = normal(rng);
        content.first_content_row = first_content_row;
      }
      for (RolloutStart start : {RolloutStart::final_token, RolloutStart::every_token}) {
        const std::vector<double> expected = dense_rollout(m, content, start);
        for (KernelPath path : {KernelPath::fast, KernelPath::direct}) {
          const std::vector<double> got = attn::propagate(m, content, start, path);
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

TEST_CASE("propagate: the fast path holds at a few thousand positions", "[position_bias]") {
  for (const auto& m : {model(3000, 16, 0.7, true, 0.004), model(3000, 8, 0.5, true, 0.0, 200, 4),
                        model(2000, 6, 0.6, false, 0.01)}) {
    const double worst = max_abs_difference(attn::propagate(m, {}, RolloutStart::final_token, KernelPath::fast),
                                            attn::propagate(m, {}, RolloutStart::final_token, KernelPath::direct));
    INFO(describe(m) << ": max abs diff " << worst);
    CHECK(worst <= 1e-12);
  }
}

TEST_CASE("position curve: equals attn::rollout_influence for ALiBi and no bias", "[position_bias]") {
  for (const auto& m : {model(50, 6, 0.4, true, 0.05), model(30, 3, 0.0, false), model(64, 8, 0.5, true, 0.0, 9, 2)}) {
    attn::RolloutOptions options;
    options.n = m.n;
    options.layers = m.layers;
    options.residual = m.residual;
    options.mask = m.mask;
    options.alibi_slope = m.bias.slope;
    const std::vector<double> rollout = attn::rollout_influence(options);
    const attn::PositionCurve curve = attn::position_curve(m, RolloutStart::final_token);
    INFO(describe(m));
    CHECK(max_abs_difference(curve.values, rollout) == 0.0);
  }
}

TEST_CASE("position curve: causal depth without residual or decay is monotone primacy",
          "[position_bias][shapes]") {
  const long layers = GENERATE(2L, 4L, 16L);
  const std::vector<double> values = attn::position_curve(model(500, layers, 0.0, true), RolloutStart::final_token).values;
  for (std::size_t j = 0; j + 1 < values.size(); ++j) CHECK(values[j] >= values[j + 1]);
  CHECK(values.front() > 5 * values[values.size() / 2]);
}

TEST_CASE("position curve: one causal ALiBi layer is monotone recency", "[position_bias][shapes]") {
  const double slope = GENERATE(0.001, 0.02, 0.5);
  const std::vector<double> values = attn::position_curve(model(400, 1, 0.0, true, slope), RolloutStart::final_token).values;
  for (std::size_t j = 0; j + 1 < values.size(); ++j) CHECK(values[j] < values[j + 1]);
}

TEST_CASE("position curve: causal depth with a residual is U-shaped", "[position_bias][shapes]") {
  SECTION("with decay: the documents alone, both ends above the middle") {
    for (const auto& m : {model(200, 16, 0.9, true, 0.02), model(1000, 16, 0.9, true, 0.004),
                          lab_defaults().model}) {
      const attn::PositionCurve curve = attn::position_curve(m, RolloutStart::final_token);
      INFO(describe(m) << ": begin " << curve.summary.begin << ", middle " << curve.summary.middle << ", end "
                       << curve.summary.end);
      CHECK(curve.summary.begin > 1.1 * curve.summary.middle);
      CHECK(curve.summary.end > 1.1 * curve.summary.middle);
      const std::vector<double> context = context_of(curve.values);
      const auto lowest = std::min_element(context.begin(), context.end()) - context.begin();
      CHECK(lowest > 0);
      CHECK(lowest < static_cast<long>(context.size()) - 1);
    }
  }
  SECTION("without decay: the residual keeps the final token itself above the middle") {
    const std::vector<double> values = attn::position_curve(model(200, 8, 0.5, true), RolloutStart::final_token).values;
    const double middle = values[values.size() / 2];
    CHECK(values.front() > 10 * middle);
    CHECK(values.back() > 3 * middle);
  }
}

TEST_CASE("position curve: bidirectional without positional bias is flat", "[position_bias][shapes]") {
  const long layers = GENERATE(1L, 6L);
  for (double value : attn::position_curve(model(300, layers, 0.0, false), RolloutStart::final_token).values) {
    CHECK(value == Approx(1.0 / 300).epsilon(1e-9));
  }
}

TEST_CASE("position curve: attention received sums over every query", "[position_bias]") {
  const attn::PositionModel m = model(40, 3, 0.2, true, 0.1);
  const std::vector<double> received = attn::position_curve(m, RolloutStart::every_token).values;
  CHECK(max_abs_difference(received, dense_rollout(m, {}, RolloutStart::every_token)) <= 1e-12);
  CHECK(received.front() > received.back());  // under a causal mask every query sees position 0
}

TEST_CASE("position curve: RoPE decay favours the end in one causal layer", "[position_bias][shapes]") {
  const std::vector<double> values = attn::position_curve(rope_model(300, 1, 0.0, 8.0, 10000.0), RolloutStart::final_token).values;
  CHECK(values.back() > 5 * values.front());
  CHECK(values[values.size() - 2] > values[values.size() / 2]);
}

TEST_CASE("position curve: sinks and a window keep the start alive", "[position_bias][shapes]") {
  const attn::PositionCurve windowed = attn::position_curve(model(400, 8, 0.3, true, 0.0, 32, 0), RolloutStart::final_token);
  const attn::PositionCurve with_sinks = attn::position_curve(model(400, 8, 0.3, true, 0.0, 32, 4), RolloutStart::final_token);
  CHECK(windowed.values.front() == 0.0);  // 8 layers of a 32-key window reach 8·31 positions back
  CHECK(with_sinks.values.front() > 0.05);
}

TEST_CASE("summary: first, middle and last points, mean and max over min", "[position_bias]") {
  std::vector<double> curve(20);
  std::iota(curve.begin(), curve.end(), 1.0);
  const attn::CurveSummary summary = attn::summarize(curve);
  CHECK(summary.begin == 1.0);
  CHECK(summary.middle == Approx(10.5));
  CHECK(summary.end == 20.0);
  CHECK(attn::summarize({3.0, 7.0, 5.0}).middle == 7.0);
  CHECK(summary.mean == Approx(10.5));
  CHECK(summary.max_over_min == Approx(20.0));
  CHECK(std::isinf(attn::summarize({0.0, 1.0}).max_over_min));
}

TEST_CASE("needle sweep: positions, determinism and ranges", "[position_bias][needle]") {
  attn::NeedleOptions options = lab_defaults();
  const attn::NeedleSweep sweep = attn::needle_sweep(options);
  REQUIRE(sweep.depths.size() == 11);
  CHECK(sweep.positions.front() == 0);
  CHECK(sweep.positions.back() == 1022);
  CHECK(sweep.positions[5] == 511);
  for (double value : sweep.retrieval) {
    CHECK(value > 0.0);
    CHECK(value < 1.0);
  }
  const attn::NeedleSweep again = attn::needle_sweep(options);
  CHECK(again.retrieval == sweep.retrieval);
  options.metric = attn::NeedleMetric::top1;
  options.trials = 20;
  for (double rate : attn::needle_sweep(options).retrieval) {
    CHECK(rate >= 0.0);
    CHECK(rate <= 1.0);
    CHECK(std::abs(rate * 20 - std::round(rate * 20)) < 1e-9);
  }
}

TEST_CASE("needle sweep: the lab's defaults are lost in the middle", "[position_bias][needle][shapes]") {
  const attn::NeedleSweep sweep = attn::needle_sweep(lab_defaults());
  const double middle = sweep.retrieval[5];
  CHECK(sweep.retrieval.front() > 1.2 * middle);
  CHECK(sweep.retrieval.back() > 1.2 * middle);
}

TEST_CASE("needle sweep: a stronger needle is easier to find everywhere", "[position_bias][needle]") {
  attn::NeedleOptions options = lab_defaults();
  const attn::NeedleSweep weak = attn::needle_sweep(options);
  options.signal = 8.0;
  const attn::NeedleSweep strong = attn::needle_sweep(options);
  for (std::size_t d = 0; d < weak.retrieval.size(); ++d) CHECK(strong.retrieval[d] > weak.retrieval[d]);
}

TEST_CASE("needle sweep: each mitigation lowers max / min", "[position_bias][needle][mitigations]") {
  const auto type = GENERATE(Mitigation::Type::query_aware, Mitigation::Type::calibration,
                             Mitigation::Type::ms_poe, Mitigation::Type::reorder);
  attn::NeedleOptions options = lab_defaults();
  const attn::NeedleSweep before = attn::needle_sweep(options);
  options.mitigation.type = type;
  const attn::NeedleSweep after = attn::needle_sweep(options);
  INFO("mitigation " << int(type) << ": max/min " << before.summary.max_over_min << " → "
                     << after.summary.max_over_min);
  CHECK(after.summary.max_over_min < 0.9 * before.summary.max_over_min);
}

TEST_CASE("needle sweep: in one layer, calibration leaves content alone", "[position_bias][needle]") {
  attn::NeedleOptions options = lab_defaults();
  options.model.layers = 1;
  options.noise = 0.0;
  const double before = attn::needle_sweep(options).summary.max_over_min;
  options.mitigation.type = Mitigation::Type::calibration;
  const attn::NeedleSweep after = attn::needle_sweep(options);
  CHECK(before > 5.0);
  // (1 - α) · exp(3) / (exp(3) + 1023): the needle against 1022 distractors and the final
  // token, all of score 0, wherever it is
  const double expected = (1 - 0.85) * std::exp(3.0) / (std::exp(3.0) + 1023);
  for (double mass : after.retrieval) CHECK(mass == Approx(expected).epsilon(1e-9));
}

TEST_CASE("needle sweep: reordering puts the needle where the model looks most", "[position_bias][needle]") {
  attn::NeedleOptions options = lab_defaults();
  options.noise = 0.0;
  options.mitigation.type = Mitigation::Type::reorder;
  options.mitigation.retriever_noise = 0.0;
  const attn::NeedleSweep sweep = attn::needle_sweep(options);
  const std::vector<double> dummy = context_of(attn::position_curve(options.model, RolloutStart::final_token).values);
  const long best = std::max_element(dummy.begin(), dummy.end()) - dummy.begin();
  options.mitigation.type = Mitigation::Type::none;
  options.depths = 1023;  // every position
  const attn::NeedleSweep everywhere = attn::needle_sweep(options);
  for (double mass : sweep.retrieval) CHECK(mass == Approx(everywhere.retrieval[best]).epsilon(1e-9));
}

TEST_CASE("needle grid: one sweep per context length", "[position_bias][needle]") {
  attn::NeedleOptions options = lab_defaults();
  options.depths = 5;
  const attn::NeedleGrid grid = attn::needle_grid(options, {16, 64, 256});
  REQUIRE(grid.values.size() == 15);
  options.model.n = 64;
  const attn::NeedleSweep sweep = attn::needle_sweep(options);
  for (long d = 0; d < 5; ++d) CHECK(grid.values[5 + d] == sweep.retrieval[d]);
}

TEST_CASE("position model: invalid options name the option", "[position_bias][errors]") {
  auto rejects = [](const attn::PositionModel& bad, const std::string& words) {
    INFO(words);
    REQUIRE_THROWS_AS(attn::position_curve(bad, RolloutStart::final_token), attn::InvalidArgument);
    REQUIRE_THROWS_WITH(attn::position_curve(bad, RolloutStart::final_token), Contains(words));
  };
  rejects(model(0, 1, 0.0, true), "n must be a whole number from 1 to 1048576, got 0");
  rejects(model(1, 1, 0.0, true), "n must be a whole number ≥ 2 for a position curve");
  rejects(model(5, 0, 0.0, true), "layers must be a whole number ≥ 1, got 0");
  rejects(model(5, 1, 1.5, true), "residual must be a number in [0, 1], got 1.5");
  attn::PositionModel alibi = model(5, 1, 0.0, true, 0.1);
  alibi.bias.slope = NAN;
  rejects(alibi, "positional.slope must be a finite number ≥ 0, got NaN");
  rejects(model(5, 1, 0.0, true, 0.0, -1), "window");
  attn::PositionModel rope = rope_model(5, 1, 0.0, 1.0, 1.0);
  rejects(rope, "positional.base must be a finite number > 1, got 1");
  rope = rope_model(5, 1, 0.0, -1.0, 100.0);
  rejects(rope, "positional.strength must be a finite number ≥ 0, got -1");
  rope = rope_model(5, 1, 0.0, 1.0, 100.0);
  rope.bias.head_width = 3;
  rejects(rope, "positional.headWidth must be an even number ≥ 2, got 3");
  attn::PositionModel scales = model(5, 1, 0.0, true);
  scales.position_scales = {1.0, 0.0};
  rejects(scales, "positionScales[1] must be a finite number > 0, got 0");
  scales.position_scales = {};
  rejects(scales, "positionScales must hold 1 to 64 numbers");

  auto rejects_sweep = [](const attn::NeedleOptions& bad, const std::string& words) {
    INFO(words);
    REQUIRE_THROWS_WITH(attn::needle_sweep(bad), Contains(words));
  };
  attn::NeedleOptions options = lab_defaults();
  options.depths = 1;
  rejects_sweep(options, "depths must be a whole number from 2 to 10000, got 1");
  options = lab_defaults();
  options.trials = 0;
  rejects_sweep(options, "trials must be a whole number from 1 to 100000, got 0");
  options = lab_defaults();
  options.noise = -1;
  rejects_sweep(options, "noise must be a finite number ≥ 0, got -1");
  options = lab_defaults();
  options.signal = INFINITY;
  rejects_sweep(options, "signal must be a finite number, got Infinity");
  options = lab_defaults();
  options.model.n = 3;
  options.mitigation.type = Mitigation::Type::query_aware;
  rejects_sweep(options, "n must be a whole number ≥ 4 with the query-aware mitigation");
  options = lab_defaults();
  options.mitigation.type = Mitigation::Type::ms_poe;
  options.mitigation.max_ratio = 1.0;
  rejects_sweep(options, "mitigation.maxRatio must be a finite number ≥ minRatio (1.2), got 1");
  options = lab_defaults();
  options.mitigation.type = Mitigation::Type::reorder;
  options.mitigation.retriever_noise = NAN;
  rejects_sweep(options, "mitigation.retrieverNoise must be a finite number ≥ 0, got NaN");
  REQUIRE_THROWS_WITH(attn::needle_grid(lab_defaults(), {}), Contains("lengths must hold at least one"));
  REQUIRE_THROWS_WITH(attn::needle_grid(lab_defaults(), {64, 2}), Contains("n must be a whole number ≥ 3"));
}
