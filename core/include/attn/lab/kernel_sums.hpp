// The position model's sums: each row's distance kernel over the keys its mask shows,
// Σ_{visible k} w[k] · K(|o - k|), in O(n) for an exponential kernel (running sums) and by
// direct summation otherwise. The mask's keys are at most two intervals (attn::Intervals).
#pragma once

#include <vector>

#include "attn/lab/position_model.hpp"
#include "attn/mask.hpp"

namespace attn::lab {

// The keys query i sees (n queries over n keys), as attn::visible_keys defines them.
Intervals visible_intervals(const MaskOptions& mask, long query, long n);

// The queries that see key j: the transpose of visible_intervals.
Intervals seeing_intervals(const MaskOptions& mask, long key, long n);

enum class KernelPath {
  fast,   // exponential kernels in O(n) through running sums; tables fall back to direct
  direct  // every kernel by direct summation over the intervals, O(n · visible keys)
};

// out[o] = Σ_{k in intervals(o)} w[k] · K(|o - k|), intervals(o) = visible_intervals (gather,
// `transpose` false) or seeing_intervals (scatter, `transpose` true). w: n, out: n.
void kernel_sums(const DistanceKernel& kernel, const MaskOptions& mask, bool transpose,
                 const std::vector<double>& w, std::vector<double>& out, KernelPath path);

}  // namespace attn::lab
