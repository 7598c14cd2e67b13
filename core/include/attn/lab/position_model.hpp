// The "lost in the middle" lab's model: where attention goes when it follows position alone.
//
// L identical layers over n positions; the last, n-1, is the final token (the query). In
// every layer, row i attends to the keys j its mask shows with
//
//   A[i][j] = (1/H) · Σ_h  u_j^(i) · K_h(|i - j|) / Z_h(i),   Z_h(i) = Σ_{visible j} u_j^(i) · K_h(|i - j|)
//
//   K_h(d)   the distance kernel, exp(positional bias) for a distance d / scale_h:
//            ALiBi exp(-slope·d), RoPE exp(strength·(g(d) - 1)) with g(d) = (1/(dh/2)) Σ_t cos(d·θ_t),
//            θ_t = base^(-2t/dh), or 1 without a positional bias
//   scale_h  head h's position scale (Ms-PoE divides positions by 1.2 ... 1.8); one head of
//            scale 1 unless asked otherwise
//   u_j^(i)  exp(content score of key j) for the rows that read content, 1 for the others:
//            the content-free model has no content at all, the needle experiment gives it
//            to the final row (and, query-aware, to every row after the query's copy)
//
// attn/lab/kernel_sums.hpp sums the kernel over the mask in O(n), attn/lab/rollout.hpp follows
// the residual stream through the layers, attn/lab/needle.hpp hides a needle among distractors.
//
// Letters: n positions, L layers, H heads (position scales), D depths, T trials.
#pragma once

#include <array>
#include <cstddef>
#include <vector>

#include "attn/mask.hpp"
#include "attn/positional.hpp"

namespace attn::lab {

// The most heads (position scales) a model may average.
constexpr std::size_t kMaxHeads = 64;

// The positional types the model takes: those that are a function of the distance alone.
inline constexpr std::array<PositionalType, 3> kDistanceBiasTypes{
    PositionalType::none, PositionalType::alibi, PositionalType::rope};

// The positional part of every score, a function of the distance alone.
struct DistanceBias {
  PositionalType type = PositionalType::none;  // one of kDistanceBiasTypes
  double slope = 0.0;       // ALiBi: ≥ 0, the score falls by slope per position of distance
  double base = kRopeBase;  // RoPE: > 1
  long head_width = 64;     // RoPE: dh, even ≥ 2
  double strength = 6.0;    // RoPE: ≥ 0, the score of the queries' and keys' shared direction
                            // at distance 0; at distance d it is strength·g(d)
};

struct PositionModel {
  long n = 0;              // positions, the final token included
  long layers = 1;         // L ≥ 1
  double residual = 0.0;   // α in [0, 1]
  MaskOptions mask{true};  // causal by default; window and sinks as in attention
  DistanceBias bias;
  std::vector<double> position_scales{1.0};  // one per head, each > 0; heads are averaged
};

// Throws attn::InvalidArgument naming the option (JavaScript spelling) that is out of range.
void validate(const PositionModel& model);
void validate(const DistanceBias& bias);

// K(d) for one head: exp(-slope·d/scale) (exponential, which the fast path exploits) or a table.
struct DistanceKernel {
  bool exponential = true;
  std::vector<double> table;  // K(d) for d = 0..n, K(0) = 1
};

DistanceKernel distance_kernel(const DistanceBias& bias, double position_scale, long n);

// RoPE's mean cosine g(d) = (1/(dh/2)) Σ_t cos(d·θ_t) over `angles`, θ_t = base^(-2t/dh) for
// t = 0..dh/2 − 1 (attn/positional.hpp rope_frequency of each pair): the score
// of a direction with equal energy in every rotated pair against itself d positions away,
// over its score at distance 0.
double rope_mean_cosine(double distance, const std::vector<double>& angles);

// K(d) for d = 0..max_distance at position scale 1: the weight the positional bias alone gives
// a key d positions from the query, over a key's at distance 0. In one causal layer without a
// residual the final token's attention to the key d before it is K(d) over the sum of K
// (position_curve), which costs O(n²) to read; this is O(max_distance). max_distance from 0
// to the model's most positions.
std::vector<double> distance_weights(const DistanceBias& bias, long max_distance);
// The same weights at each of `distances` (1 to 2^20 + 1 of them, each from 0 to the model's
// most positions), in their order: O(distances) however far they reach.
std::vector<double> distance_weights(const DistanceBias& bias, const std::vector<long>& distances);

}  // namespace attn::lab
