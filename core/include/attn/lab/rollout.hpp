// Attention rollout across layers with a residual stream (Abnar & Zuidema, 2020), on the
// lab's position model (attn/lab/position_model.hpp):
//
//   R = ∏_l (α·I + (1 - α)·A_l)
//
// Without content A_l is what the mask and the positional bias alone make: the positional
// part of attention, which is where primacy and recency come from. Row n-1 of R says how
// much each position feeds the final token.
#pragma once

#include <vector>

#include "attn/lab/kernel_sums.hpp"
#include "attn/lab/position_model.hpp"
#include "attn/names.hpp"

namespace attn::lab {

// Content scores: score[j] is added to the score of key j in the rows that read content,
// rows [first_content_row, n) and always the final row n-1. Empty: no content anywhere.
struct Content {
  std::vector<double> score;  // n
  long first_content_row = 0;
  // Calibration: the final row's positional factor divided out, A[n-1][j] ∝ exp(score[j])
  // over the keys it sees (its scores minus a content-free dummy's at the same position).
  bool calibrated_final_row = false;
};

enum class RolloutStart {
  final_token,  // e_{n-1}: row n-1 of R, what feeds the final token
  every_token   // (1/n)·1: the mean row of R, the attention each position receives
};

inline constexpr OptionNames<RolloutStart, 2> kRolloutStartNames{
    "measure", {{{RolloutStart::final_token, "final"}, {RolloutStart::every_token, "received"}}}};
constexpr const auto& names_of(RolloutStart) { return kRolloutStartNames; }

// start · R for R = ∏ (αI + (1-α)A) over model.layers layers. Sums to 1.
std::vector<double> propagate(const PositionModel& model, const Content& content,
                              RolloutStart start, KernelPath path = KernelPath::fast);

// The content-free rollout: row n-1 of R, how much each position feeds the final token.
// Sums to 1. n ≥ 1 (one position feeds itself).
std::vector<double> rollout(const PositionModel& model);

// A curve in a few numbers: its first point, its middle point (the mean of the two middle
// points when their count is even), its last point, its mean, and max / min (+Infinity
// when the minimum is 0); and the means of its first, middle and last tenth (each
// max(1, round(count / 10)) points, the middle one starting at ⌊(count − width) / 2⌋), which
// stand for a stretch of the curve where a single point ripples (RoPE). In double: a curve's
// steep start (ALiBi's, 3e-116 of the average) is 0 in the float32 values handed to a page.
struct CurveSummary {
  double begin = 0, middle = 0, end = 0, mean = 0, max_over_min = 0;
  double first_tenth = 0, middle_tenth = 0, last_tenth = 0;
};

CurveSummary summarize(const std::vector<double>& curve);

struct PositionCurve {
  std::vector<double> values;  // n, sums to 1
  CurveSummary summary;        // over the context, positions 0..n-2 (the final token's own
                               // share is mostly its residual and would dwarf the rest)
};

// The content-free curve: start · R. With RolloutStart::final_token its values are rollout's.
// n ≥ 2.
PositionCurve position_curve(const PositionModel& model, RolloutStart start);

}  // namespace attn::lab
