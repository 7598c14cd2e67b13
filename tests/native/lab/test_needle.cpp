#include <algorithm>
#include <cmath>
#include <vector>

#include "attn/lab/needle.hpp"
#include "lab_helpers.hpp"

using attn::lab::Mitigation;
using attn::lab::RolloutStart;
using Catch::Contains;
using lab_helpers::context_of;
using lab_helpers::lab_defaults;

TEST_CASE("needle sweep: positions, determinism and ranges", "[lab][needle]") {
  attn::lab::NeedleOptions options = lab_defaults();
  const attn::lab::NeedleSweep sweep = attn::lab::needle_sweep(options);
  REQUIRE(sweep.depths.size() == 11);
  CHECK(sweep.positions.front() == 0);
  CHECK(sweep.positions.back() == 1022);
  CHECK(sweep.positions[5] == 511);
  for (double value : sweep.retrieval) {
    CHECK(value > 0.0);
    CHECK(value < 1.0);
  }
  const attn::lab::NeedleSweep again = attn::lab::needle_sweep(options);
  CHECK(again.retrieval == sweep.retrieval);
  options.metric = attn::lab::NeedleMetric::top1;
  options.trials = 20;
  for (double rate : attn::lab::needle_sweep(options).retrieval) {
    CHECK(rate >= 0.0);
    CHECK(rate <= 1.0);
    CHECK(std::abs(rate * 20 - std::round(rate * 20)) < 1e-9);
  }
}

TEST_CASE("needle sweep: the lab's defaults are lost in the middle", "[lab][needle][shapes]") {
  const attn::lab::NeedleSweep sweep = attn::lab::needle_sweep(lab_defaults());
  const double middle = sweep.retrieval[5];
  CHECK(sweep.retrieval.front() > 1.2 * middle);
  CHECK(sweep.retrieval.back() > 1.2 * middle);
}

TEST_CASE("needle sweep: a stronger needle is easier to find everywhere", "[lab][needle]") {
  attn::lab::NeedleOptions options = lab_defaults();
  const attn::lab::NeedleSweep weak = attn::lab::needle_sweep(options);
  options.signal = 8.0;
  const attn::lab::NeedleSweep strong = attn::lab::needle_sweep(options);
  for (std::size_t d = 0; d < weak.retrieval.size(); ++d)
    CHECK(strong.retrieval[d] > weak.retrieval[d]);
}

TEST_CASE("needle sweep: each mitigation lowers max / min", "[lab][needle][mitigations]") {
  const auto type = GENERATE(Mitigation::Type::query_aware, Mitigation::Type::calibration,
                             Mitigation::Type::ms_poe, Mitigation::Type::reorder);
  attn::lab::NeedleOptions options = lab_defaults();
  const attn::lab::NeedleSweep before = attn::lab::needle_sweep(options);
  options.mitigation.type = type;
  const attn::lab::NeedleSweep after = attn::lab::needle_sweep(options);
  INFO("mitigation " << int(type) << ": max/min " << before.summary.max_over_min << " → "
                     << after.summary.max_over_min);
  CHECK(after.summary.max_over_min < 0.9 * before.summary.max_over_min);
}

TEST_CASE("needle sweep: in one layer, calibration leaves content alone", "[lab][needle]") {
  attn::lab::NeedleOptions options = lab_defaults();
  options.model.layers = 1;
  options.noise = 0.0;
  const double before = attn::lab::needle_sweep(options).summary.max_over_min;
  options.mitigation.type = Mitigation::Type::calibration;
  const attn::lab::NeedleSweep after = attn::lab::needle_sweep(options);
  CHECK(before > 5.0);
  // (1 - α) · exp(3) / (exp(3) + 1023): the needle against 1022 distractors and the final
  // token, all of score 0, wherever it is
  const double expected = (1 - 0.85) * std::exp(3.0) / (std::exp(3.0) + 1023);
  for (double mass : after.retrieval) CHECK(mass == Approx(expected).epsilon(1e-9));
}

TEST_CASE("needle sweep: reordering puts the needle where the model looks most", "[lab][needle]") {
  attn::lab::NeedleOptions options = lab_defaults();
  options.noise = 0.0;
  options.mitigation.type = Mitigation::Type::reorder;
  options.mitigation.retriever_noise = 0.0;
  const attn::lab::NeedleSweep sweep = attn::lab::needle_sweep(options);
  const std::vector<double> dummy =
      context_of(attn::lab::position_curve(options.model, RolloutStart::final_token).values);
  const long best = std::max_element(dummy.begin(), dummy.end()) - dummy.begin();
  options.mitigation.type = Mitigation::Type::none;
  options.depths = 1023;  // every position
  const attn::lab::NeedleSweep everywhere = attn::lab::needle_sweep(options);
  for (double mass : sweep.retrieval)
    CHECK(mass == Approx(everywhere.retrieval[best]).epsilon(1e-9));
}

TEST_CASE("needle grid: one sweep per context length", "[lab][needle]") {
  attn::lab::NeedleOptions options = lab_defaults();
  options.depths = 5;
  const attn::lab::NeedleGrid grid = attn::lab::needle_grid(options, {16, 64, 256});
  REQUIRE(grid.values.size() == 15);
  options.model.n = 64;
  const attn::lab::NeedleSweep sweep = attn::lab::needle_sweep(options);
  for (long d = 0; d < 5; ++d) CHECK(grid.values[5 + d] == sweep.retrieval[d]);
}

TEST_CASE("needle sweep: invalid options name the option", "[lab][needle][errors]") {
  auto rejects_sweep = [](const attn::lab::NeedleOptions& bad, const std::string& words) {
    INFO(words);
    REQUIRE_THROWS_WITH(attn::lab::needle_sweep(bad), Contains(words));
  };
  attn::lab::NeedleOptions options = lab_defaults();
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
  REQUIRE_THROWS_WITH(attn::lab::needle_grid(lab_defaults(), {}),
                      Contains("lengths must hold at least one"));
  REQUIRE_THROWS_WITH(attn::lab::needle_grid(lab_defaults(), {64, 2}),
                      Contains("n must be a whole number ≥ 3"));
}
