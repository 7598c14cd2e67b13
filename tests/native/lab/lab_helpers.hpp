// Helpers shared by the tests of the lab's position model (core/include/attn/lab/): models
// built in one line, the dense double-precision rollout they are held against, the masks
// every sum is tried under, and the lab page's defaults for the needle.
#pragma once

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "attn/lab/needle.hpp"
#include "attn/lab/rollout.hpp"
#include "helpers.hpp"

namespace lab_helpers {

using attn::lab::DistanceBias;
using attn::lab::RolloutStart;

inline attn::lab::PositionModel model(long n, long layers, double residual, bool causal,
                                      double slope = 0.0, long window = 0, long sinks = 0) {
  attn::lab::PositionModel result;
  result.n = n;
  result.layers = layers;
  result.residual = residual;
  result.mask = {causal, window, sinks};
  if (slope != 0.0) {
    result.bias.type = attn::PositionalType::alibi;
    result.bias.slope = slope;
  }
  return result;
}

inline attn::lab::PositionModel rope_model(long n, long layers, double residual, double strength,
                                           double base) {
  attn::lab::PositionModel result = model(n, layers, residual, true);
  result.bias.type = attn::PositionalType::rope;
  result.bias.strength = strength;
  result.bias.base = base;
  result.bias.head_width = 16;
  return result;
}

inline std::string describe(const attn::lab::PositionModel& m) {
  std::ostringstream text;
  text << "n " << m.n << ", layers " << m.layers << ", residual " << m.residual
       << (m.mask.causal ? ", causal" : ", bidirectional") << ", window " << m.mask.window
       << ", sinks " << m.mask.sinks << ", bias " << int(m.bias.type) << " slope " << m.bias.slope
       << ", heads " << m.position_scales.size();
  return text.str();
}

// The positional score of distance d for one head, written from the formulas.
inline double reference_bias(const DistanceBias& bias, double d) {
  if (bias.type == attn::PositionalType::alibi) return -bias.slope * d;
  if (bias.type == attn::PositionalType::rope) {
    double total = 0.0;
    const long half = bias.head_width / 2;
    for (long t = 0; t < half; ++t)
      total += std::cos(d * std::pow(bias.base, -2.0 * t / bias.head_width));
    return bias.strength * total / half;
  }
  return 0.0;
}

// start · ∏(αI + (1-α)A), A the head-averaged softmax of position and content scores over the
// keys API.md's mask shows, as dense n×n matrices in double precision.
inline std::vector<double> dense_rollout(const attn::lab::PositionModel& m,
                                         const attn::lab::Content& content, RolloutStart start) {
  const long n = m.n;
  std::vector<std::vector<double>> a(n, std::vector<double>(n, 0.0));
  for (double scale : m.position_scales) {
    for (long i = 0; i < n; ++i) {
      const bool reads_content =
          !content.score.empty() && (i >= content.first_content_row || i == n - 1);
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

inline double max_abs_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double worst = 0.0;
  for (std::size_t k = 0; k < a.size(); ++k) worst = std::max(worst, std::abs(a[k] - b[k]));
  return worst;
}

inline const attn::MaskOptions kMasks[] = {
    {true, 0, 0}, {false, 0, 0}, {true, 5, 0},  {true, 5, 2},   {false, 4, 0}, {false, 4, 3},
    {true, 1, 1}, {false, 1, 0}, {true, 50, 7}, {false, 2, 30}, {true, 3, 3}};

inline std::vector<double> context_of(const std::vector<double>& values) {
  return std::vector<double>(values.begin(), values.end() - 1);
}

inline attn::lab::NeedleOptions lab_defaults() {
  // The lab page's defaults for the needle experiments (web/lab/state.js).
  attn::lab::NeedleOptions options;
  options.model = model(1024, 12, 0.85, true, 0.003);
  options.depths = 11;
  options.signal = 3.0;
  options.noise = 1.0;
  options.trials = 8;
  options.seed = 1;
  return options;
}

}  // namespace lab_helpers
