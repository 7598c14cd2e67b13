// Row operations shared by the materialised and the flash kernels, written as simple
// loops under `omp simd` (compiled with -fopenmp-simd: no OpenMP runtime) so that the
// compiler may vectorise their reductions.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>

#include "attn/fast_exp.hpp"
#include "attn/mask.hpp"
#include "attn/normalization.hpp"
#include "simd.hpp"

namespace attn::row_ops {

constexpr float kMinusInfinity = -std::numeric_limits<float>::infinity();

// Adds -slope·|position - key| to scores[c] for c in [begin, end); key = first_key + c.
inline void add_distance_bias(float* scores, long begin, long end, long first_key, long position,
                              float slope) {
  const float offset = static_cast<float>(position - first_key);
#pragma omp simd
  for (long c = begin; c < end; ++c) scores[c] -= slope * std::fabs(offset - static_cast<float>(c));
}

// scores[c] is the raw score of key first_key + c for a query at `position`. Adds the
// ALiBi bias (slope 0: none), sets keys the mask hides to -Infinity, returns the maximum.
// Under a causal mask every visible key has key ≤ position, so |position - key| is the
// causal distance too.
inline float bias_and_mask(float* scores, long count, long first_key, long position,
                           const VisibleKeys& visible, float slope) {
  const auto local = [&](long key) { return std::clamp(key - first_key, 0L, count); };
  // The visible keys of this stretch: [0, sinks) and [band_begin, band_end), locally.
  const long sinks = local(visible.sink_end);
  const long band_begin = std::max(local(visible.band_begin), sinks);
  const long band_end = std::max(local(visible.band_end), sinks);
  std::fill(scores + sinks, scores + band_begin, kMinusInfinity);
  std::fill(scores + band_end, scores + count, kMinusInfinity);
  if (slope != 0.0f) {
    add_distance_bias(scores, 0, sinks, first_key, position, slope);
    add_distance_bias(scores, band_begin, band_end, first_key, position, slope);
  }
  return simd::maximum(scores, count);
}

// weights[c] ← the unnormalised weight of scores[c] (masked → 0), for c in [0, count);
// returns their sum. scores and weights may be the same array.
// softmax: exp(s - shift), s ≤ shift; naive-softmax: exp(s), overflow and all; sum: s itself.
inline float unnormalised_weights(const float* scores, float* weights, long count,
                                  Normalization normalization, float shift) {
  float total = 0.0f;
  switch (normalization) {
    case Normalization::softmax: {
      // Explicit vectors, so that the loop is SIMD whatever the compiler's vectoriser does.
      const simd::Vec shift_lanes = simd::broadcast(shift);
      simd::Vec totals = {};
      long c = 0;
      for (; c + static_cast<long>(simd::kLanes) <= count; c += simd::kLanes) {
        const simd::Vec lanes =
            fast_exp_nonpositive(simd::load(scores + c) - shift_lanes);  // masked → 0
        simd::store(weights + c, lanes);
        totals += lanes;
      }
      for (std::size_t lane = 0; lane < simd::kLanes; ++lane) total += totals[lane];
      for (; c < count; ++c) {
        weights[c] = fast_exp_nonpositive(scores[c] - shift);
        total += weights[c];
      }
      break;
    }
    case Normalization::naive_softmax:
      for (long c = 0; c < count; ++c) {
        weights[c] = std::exp(scores[c]);  // the textbook formula, for teaching: may overflow
        total += weights[c];
      }
      break;
    case Normalization::sum:
      for (long c = 0; c < count; ++c) {
        weights[c] = scores[c] == kMinusInfinity ? 0.0f : scores[c];
        total += weights[c];
      }
      break;
  }
  return total;
}

// values[c] /= divisor for c in [0, count).
inline void divide(float* values, long count, float divisor) {
  const simd::Vec divisors = simd::broadcast(divisor);
  long c = 0;
  for (; c + static_cast<long>(simd::kLanes) <= count; c += simd::kLanes) {
    simd::store(values + c, simd::load(values + c) / divisors);
  }
  for (; c < count; ++c) values[c] /= divisor;
}

}  // namespace attn::row_ops
