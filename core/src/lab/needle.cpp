#include "attn/lab/needle.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>

#include "attn/errors.hpp"

namespace attn::lab {

namespace {

// The most depths of one sweep, and trials of one depth.
constexpr long kMaxDepths = 10000;
constexpr long kMaxTrials = 100000;

void validate(const NeedleOptions& options) {
  validate(options.model);
  const bool query_aware = options.mitigation.type == Mitigation::Type::query_aware;
  const long least = query_aware ? 4 : 3;
  if (options.model.n < least) {
    fail("n must be a whole number ≥ " + std::to_string(least) +
         (query_aware ? " with the query-aware mitigation (the query's copy, two documents and the "
                        "final token), got "
                      : " for a needle sweep (two documents and the final token), got ") +
         std::to_string(options.model.n));
  }
  if (options.depths < 2 || options.depths > kMaxDepths) {
    fail("depths must be a whole number from 2 to " + std::to_string(kMaxDepths) + ", got " +
         std::to_string(options.depths));
  }
  if (options.trials < 1 || options.trials > kMaxTrials) {
    fail("trials must be a whole number from 1 to " + std::to_string(kMaxTrials) + ", got " +
         std::to_string(options.trials));
  }
  if (!std::isfinite(options.signal)) {
    fail("signal must be a finite number, got " + format_number(options.signal));
  }
  if (!(options.noise >= 0.0) || !std::isfinite(options.noise)) {
    fail("noise must be a finite number ≥ 0, got " + format_number(options.noise));
  }
  const Mitigation& mitigation = options.mitigation;
  if (mitigation.type == Mitigation::Type::ms_poe) {
    if (mitigation.heads < 1 || mitigation.heads > static_cast<long>(kMaxHeads)) {
      fail("mitigation.heads must be a whole number from 1 to " + std::to_string(kMaxHeads) +
           ", got " + std::to_string(mitigation.heads));
    }
    if (!(mitigation.min_ratio > 0.0) || !std::isfinite(mitigation.min_ratio)) {
      fail("mitigation.minRatio must be a finite number > 0, got " +
           format_number(mitigation.min_ratio));
    }
    if (!(mitigation.max_ratio >= mitigation.min_ratio) || !std::isfinite(mitigation.max_ratio)) {
      fail("mitigation.maxRatio must be a finite number ≥ minRatio (" +
           format_number(mitigation.min_ratio) + "), got " + format_number(mitigation.max_ratio));
    }
  }
  if (mitigation.type == Mitigation::Type::reorder &&
      (!(mitigation.retriever_noise >= 0.0) || !std::isfinite(mitigation.retriever_noise))) {
    fail("mitigation.retrieverNoise must be a finite number ≥ 0, got " +
         format_number(mitigation.retriever_noise));
  }
}

// Standard normal draws: Box-Muller over 32-bit draws (std::normal_distribution differs
// between standard libraries; this does not).
class Normal {
 public:
  Normal(std::uint32_t seed, std::uint32_t trial) {
    std::seed_seq sequence{seed, trial};
    engine_.seed(sequence);
  }
  double operator()() {
    constexpr double kTwoPi = 6.283185307179586;
    const double u1 = (engine_() + 0.5) / 4294967296.0;  // in (0, 1): log never sees 0
    const double u2 = (engine_() + 0.5) / 4294967296.0;
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(kTwoPi * u2);
  }

 private:
  std::mt19937 engine_;
};

// Positions of `values` from largest to smallest (ties: lower position first).
std::vector<long> ranked(const std::vector<double>& values, long first, long last) {
  std::vector<long> order(last - first + 1);
  std::iota(order.begin(), order.end(), first);
  std::stable_sort(order.begin(), order.end(),
                   [&](long a, long b) { return values[a] > values[b]; });
  return order;
}

}  // namespace

NeedleSweep needle_sweep(const NeedleOptions& options) {
  validate(options);
  const Mitigation& mitigation = options.mitigation;
  using Type = Mitigation::Type;
  PositionModel model = options.model;
  if (mitigation.type == Type::ms_poe) {
    model.position_scales.assign(mitigation.heads, mitigation.min_ratio);
    for (long h = 1; h < mitigation.heads; ++h) {
      model.position_scales[h] =
          mitigation.min_ratio +
          (mitigation.max_ratio - mitigation.min_ratio) * h / (mitigation.heads - 1);
    }
  }
  const long n = model.n;
  const long first = mitigation.type == Type::query_aware ? 1 : 0;  // first document
  const long last = n - 2;                                          // last document

  NeedleSweep sweep;
  for (long d = 0; d < options.depths; ++d) {
    const double depth = static_cast<double>(d) / (options.depths - 1);
    sweep.depths.push_back(depth);
    sweep.positions.push_back(first + std::lround(depth * (last - first)));
  }
  sweep.retrieval.assign(options.depths, 0.0);

  // Reordering puts documents where the content-free curve says the model looks most.
  std::vector<long> slots_by_preference;
  if (mitigation.type == Type::reorder) {
    slots_by_preference = ranked(propagate(model, {}, RolloutStart::final_token), first, last);
  }

  // Without randomness every trial is the same: run one.
  const bool random =
      options.noise > 0.0 || (mitigation.type == Type::reorder && mitigation.retriever_noise > 0.0);
  const long trials = random ? options.trials : 1;

  std::vector<double> distractors(n, 0.0), retriever_error(n, 0.0);
  for (long trial = 0; trial < trials; ++trial) {
    Normal normal(options.seed, static_cast<std::uint32_t>(trial));
    for (long j = first; j <= last; ++j) distractors[j] = options.noise * normal();
    if (mitigation.type == Type::reorder) {
      for (long j = first; j <= last; ++j)
        retriever_error[j] = mitigation.retriever_noise * normal();
    }
    for (long d = 0; d < options.depths; ++d) {
      Content content;
      content.score = distractors;
      content.score[sweep.positions[d]] = options.signal;
      content.first_content_row = mitigation.type == Type::query_aware ? first : n - 1;
      content.calibrated_final_row = mitigation.type == Type::calibration;
      long needle = sweep.positions[d];

      if (mitigation.type == Type::reorder) {
        // The document ranked k-th by the estimate goes to the slot the model weighs k-th.
        std::vector<double> estimate = content.score;
        for (long j = first; j <= last; ++j) estimate[j] += retriever_error[j];
        const std::vector<long> documents = ranked(estimate, first, last);
        std::vector<double> placed = content.score;
        long needle_slot = needle;
        for (std::size_t k = 0; k < documents.size(); ++k) {
          placed[slots_by_preference[k]] = content.score[documents[k]];
          if (documents[k] == needle) needle_slot = slots_by_preference[k];
        }
        needle = needle_slot;
        content.score = placed;
      }

      const std::vector<double> mass = propagate(model, content, RolloutStart::final_token);
      if (options.metric == NeedleMetric::mass) {
        sweep.retrieval[d] += mass[needle];
      } else {
        bool wins = true;
        for (long j = first; j <= last && wins; ++j) wins = j == needle || mass[j] < mass[needle];
        if (wins) sweep.retrieval[d] += 1.0;
      }
    }
  }
  for (double& value : sweep.retrieval) value /= trials;
  sweep.summary = summarize(sweep.retrieval);
  return sweep;
}

NeedleGrid needle_grid(const NeedleOptions& options, const std::vector<long>& lengths) {
  if (lengths.empty()) fail("lengths must hold at least one context length");
  NeedleGrid grid;
  NeedleOptions sweep_options = options;
  for (long length : lengths) {
    sweep_options.model.n = length;
    const NeedleSweep sweep = needle_sweep(sweep_options);
    if (grid.depths.empty()) grid.depths = sweep.depths;
    grid.lengths.push_back(length);
    grid.values.insert(grid.values.end(), sweep.retrieval.begin(), sweep.retrieval.end());
  }
  return grid;
}

}  // namespace attn::lab
