// Attention rollout across layers with a residual stream (Abnar & Zuidema, 2020):
//
//   R = ∏_l (α·I + (1 - α)·A_l)
//
// Here content scores are zero, so A_l is what the mask and positional bias alone make:
// the positional part of attention, which is where primacy and recency come from.
#pragma once

#include <vector>

#include "attn/mask.hpp"

namespace attn {

struct RolloutOptions {
  long n = 0;              // positions, ≥ 1
  long layers = 1;         // L, ≥ 1
  double residual = 0.0;   // α in [0, 1]
  MaskOptions mask{true};  // causal by default; window and sinks as in attention
  double alibi_slope = 0;  // ≥ 0; 0 means no positional bias
};

// Row n-1 of R: how much each position feeds the final token. Sums to 1.
std::vector<double> rollout_influence(const RolloutOptions& options);

}  // namespace attn
