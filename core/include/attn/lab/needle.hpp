// The needle experiment on the lab's position model: a needle whose key matches the final
// query, at each depth among seeded distractors, retrieved through the layers' rollout
// (attn/lab/rollout.hpp); and the mitigations that flatten the curve it draws.
#pragma once

#include <cstdint>
#include <vector>

#include "attn/lab/position_model.hpp"
#include "attn/lab/rollout.hpp"
#include "attn/names.hpp"

namespace attn::lab {

struct Mitigation {
  enum class Type {
    none,
    query_aware,  // the query also at position 0: rows 1..n-1 read content (Liu et al. 2023)
    calibration,  // the final query's scores minus a content-free dummy's at each position
    ms_poe,       // heads with position scales evenly spaced in [min_ratio, max_ratio]
    reorder       // rank documents by a noisy relevance estimate, best where R looks most
  };
  Type type = Type::none;
  long heads = 8;                // ms_poe
  double min_ratio = 1.2;        // ms_poe
  double max_ratio = 1.8;        // ms_poe
  double retriever_noise = 1.0;  // reorder: std of the estimate's error, in score units
};

inline constexpr OptionNames<Mitigation::Type, 5> kMitigationNames{
    "mitigation.type",
    {{{Mitigation::Type::none, "none"},
      {Mitigation::Type::query_aware, "query-aware"},
      {Mitigation::Type::calibration, "calibration"},
      {Mitigation::Type::ms_poe, "ms-poe"},
      {Mitigation::Type::reorder, "reorder"}}}};
constexpr const auto& names_of(Mitigation::Type) { return kMitigationNames; }

enum class NeedleMetric {
  mass,  // mean over trials of R[n-1][needle]: attention mass on the needle through L layers
  top1   // share of trials where the needle feeds the final token more than any other document
};

inline constexpr OptionNames<NeedleMetric, 2> kNeedleMetricNames{
    "metric", {{{NeedleMetric::mass, "mass"}, {NeedleMetric::top1, "top1"}}}};
constexpr const auto& names_of(NeedleMetric) { return kNeedleMetricNames; }

struct NeedleOptions {
  PositionModel model;
  long depths = 11;     // D ≥ 2 relative depths 0, 1/(D-1), ..., 1
  double signal = 4.0;  // the needle's content score against the final query
  double noise = 1.0;   // ≥ 0, std of the distractors' content scores
  long trials = 8;      // T ≥ 1 seeded draws of the distractors
  std::uint32_t seed = 1;
  NeedleMetric metric = NeedleMetric::mass;
  Mitigation mitigation;
};

struct NeedleSweep {
  std::vector<double> depths;     // D relative depths in [0, 1]
  std::vector<long> positions;    // D needle positions (before any reordering)
  std::vector<double> retrieval;  // D values of the metric
  CurveSummary summary;           // of retrieval
};

// The documents are positions 0..n-2 (1..n-2 when query-aware: position 0 holds the query's
// copy); the needle goes to first + round(depth · (n-2 - first)). Distractor scores are
// noise · N(0, 1), drawn per trial (Box-Muller over std::mt19937 seeded by seed_seq{seed,
// trial}: the same draws on every platform, up to the last bit of log and cos) and shared
// by all depths; the needle's score is `signal`. n ≥ 3 (4 when query-aware).
NeedleSweep needle_sweep(const NeedleOptions& options);

// needle_sweep for every context length: row r of the result is the sweep at lengths[r].
struct NeedleGrid {
  std::vector<long> lengths;   // rows
  std::vector<double> depths;  // columns
  std::vector<double> values;  // lengths × depths, row-major
};

NeedleGrid needle_grid(const NeedleOptions& options, const std::vector<long>& lengths);

}  // namespace attn::lab
