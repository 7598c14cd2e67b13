// The "lost in the middle" experiments: where primacy and recency come from when
// attention follows position alone, and how well a needle among distractors survives.
//
// The model: L identical layers over n positions; the last, n-1, is the final token (the
// query). In every layer, row i attends to the keys j its mask shows with
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
// Rollout then follows the residual stream: R = ∏_l (α·I + (1 - α)·A), and row n-1 of R
// says how much each position feeds the final token (attn/rollout.hpp is the ALiBi-only case).
//
// Letters: n positions, L layers, H heads (position scales), D depths, T trials.
#pragma once

#include <cstdint>
#include <vector>

#include "attn/mask.hpp"

namespace attn {

// The positional part of every score, a function of the distance alone.
struct DistanceBias {
  enum class Type { none, alibi, rope };
  Type type = Type::none;
  double slope = 0.0;       // ALiBi: ≥ 0, the score falls by slope per position of distance
  double base = 10000.0;    // RoPE: > 1
  long head_width = 64;     // RoPE: dh, even ≥ 2
  double strength = 6.0;    // RoPE: ≥ 0, the score of the queries' and keys' shared direction
                            // at distance 0; at distance d it is strength·g(d)
};

struct PositionModel {
  long n = 0;                                // positions, the final token included
  long layers = 1;                           // L ≥ 1
  double residual = 0.0;                     // α in [0, 1]
  MaskOptions mask{true};                    // causal by default; window and sinks as in attention
  DistanceBias bias;
  std::vector<double> position_scales{1.0};  // one per head, each > 0; heads are averaged
};

// Throws attn::InvalidArgument naming the option (JavaScript spelling) that is out of range.
void validate(const PositionModel& model);

// ---- the distance kernel and the mask as intervals -------------------------------------------

// K(d) for one head: exp(-slope·d/scale) (exponential, which the fast path exploits) or a table.
struct DistanceKernel {
  bool exponential = true;
  std::vector<double> table;  // K(d) for d = 0..n, K(0) = 1
};

DistanceKernel distance_kernel(const DistanceBias& bias, double position_scale, long n);

// RoPE's mean cosine g(d) = (1/(dh/2)) Σ_t cos(d·θ_t), θ_t = base^(-2t/dh): the score of a
// direction with equal energy in every rotated pair against itself d positions away, over
// its score at distance 0.
double rope_mean_cosine(double distance, long head_width, double base);

// The keys query i sees (n queries over n keys), as attn::visible_keys defines them.
Intervals visible_spans(const MaskOptions& mask, long query, long n);

// The queries that see key j: the transpose of visible_spans.
Intervals seeing_spans(const MaskOptions& mask, long key, long n);

enum class KernelPath {
  fast,    // exponential kernels in O(n) through running sums; tables fall back to direct
  direct   // every kernel by direct summation over the intervals, O(n · visible keys)
};

// out[o] = Σ_{k in spans(o)} w[k] · K(|o - k|), spans(o) = visible_spans (gather, `transpose`
// false) or seeing_spans (scatter, `transpose` true). w: n, out: n.
void kernel_sums(const DistanceKernel& kernel, const MaskOptions& mask, bool transpose,
                 const std::vector<double>& w, std::vector<double>& out, KernelPath path);

// ---- rollout with content ------------------------------------------------------------------

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

// start · R for R = ∏ (αI + (1-α)A) over model.layers layers. Sums to 1.
std::vector<double> propagate(const PositionModel& model, const Content& content,
                              RolloutStart start, KernelPath path = KernelPath::fast);

// ---- the experiments -----------------------------------------------------------------------

// A curve in a few numbers: its first point, its middle point (the mean of the two middle
// points when their count is even), its last point, its mean, and max / min (+Infinity
// when the minimum is 0).
struct CurveSummary {
  double begin = 0, middle = 0, end = 0, mean = 0, max_over_min = 0;
};

CurveSummary summarize(const std::vector<double>& curve);

struct PositionCurve {
  std::vector<double> values;  // n, sums to 1
  CurveSummary summary;        // over the context, positions 0..n-2 (the final token's own
                               // share is mostly its residual and would dwarf the rest)
};

// The content-free curve: start · R. With RolloutStart::final_token, no content, one head of
// scale 1 and an ALiBi or no bias it is attn::rollout_influence. n ≥ 2.
PositionCurve position_curve(const PositionModel& model, RolloutStart start);

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

enum class NeedleMetric {
  mass,  // mean over trials of R[n-1][needle]: attention mass on the needle through L layers
  top1   // share of trials where the needle feeds the final token more than any other document
};

struct NeedleOptions {
  PositionModel model;
  long depths = 11;       // D ≥ 2 relative depths 0, 1/(D-1), ..., 1
  double signal = 4.0;    // the needle's content score against the final query
  double noise = 1.0;     // ≥ 0, std of the distractors' content scores
  long trials = 8;        // T ≥ 1 seeded draws of the distractors
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

}  // namespace attn
