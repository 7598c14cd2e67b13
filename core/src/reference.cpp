#include "attn/reference.hpp"

#include <cmath>
#include <limits>
#include <vector>

namespace attn::reference {

Matrix matmul(const Matrix& a, const Matrix& b) {
  Matrix c = xt::zeros<float>({a.shape(0), b.shape(1)});
  for (std::size_t i = 0; i < a.shape(0); ++i) {
    for (std::size_t j = 0; j < b.shape(1); ++j) {
      double sum = 0.0;
      for (std::size_t t = 0; t < a.shape(1); ++t) sum += double(a(i, t)) * double(b(t, j));
      c(i, j) = static_cast<float>(sum);
    }
  }
  return c;
}

AttentionResult attention(const Matrix& q, const Matrix& k, const Matrix& v,
                          const AttentionOptions& options) {
  const long n = q.shape(0), m = k.shape(0), heads = options.heads;
  const long kv_heads = options.kv_heads.value_or(heads);
  const long dh = q.shape(1) / heads, dvh = v.shape(1) / kv_heads;
  const double minus_infinity = -std::numeric_limits<double>::infinity();
  const auto& positional = options.positional;
  const std::vector<float> slopes =
      positional.slopes.empty() ? alibi_default_slopes(heads) : positional.slopes;
  const bool rope = positional.type == PositionalType::rope;
  const Matrix q_rotated =
      rope ? rotate_rope(q, heads, m - n, positional.base, positional.pairing) : q;
  const Matrix k_rotated =
      rope ? rotate_rope(k, kv_heads, 0, positional.base, positional.pairing) : k;

  AttentionResult result;
  result.kernel_used = Kernel::materialized;
  result.context = xt::zeros<float>({std::size_t(n), std::size_t(heads * dvh)});
  for (long h = 0; h < heads; ++h) {
    const long g = h * kv_heads / heads;  // the key/value head query head h reads
    Matrix scores = xt::zeros<float>({n, m});
    Matrix weights = xt::zeros<float>({n, m});
    for (long i = 0; i < n; ++i) {
      const long position = i + (m - n);
      std::vector<double> row(m, minus_infinity);
      for (long j = 0; j < m; ++j) {
        const bool in_prefix = position < options.mask.prefix && j < options.mask.prefix;
        const bool causal_ok = !options.mask.causal || j <= position || in_prefix;
        const long distance = position - j;
        const bool in_window = options.mask.window == 0 ||
                               (options.mask.causal ? distance < options.mask.window
                                                    : std::abs(distance) < options.mask.window);
        const bool sink = options.mask.window > 0 && j < options.mask.sinks;
        if (!causal_ok || !(in_window || sink)) continue;
        double dot = 0.0;
        for (long t = 0; t < dh; ++t)
          dot += double(q_rotated(i, h * dh + t)) * k_rotated(j, g * dh + t);
        double score = dot * score_scale(options.scale, dh);
        if (positional.type == PositionalType::alibi) {
          // |distance| is the causal distance for every key a causal query sees, and stays
          // a penalty for the later keys a prefix query sees.
          score -= slopes[h] * double(std::abs(distance));
        }
        row[j] = score;
      }
      double row_max = minus_infinity, total = 0.0;
      for (double s : row) row_max = std::max(row_max, s);
      std::vector<double> unnormalised(m, 0.0);
      for (long j = 0; j < m; ++j) {
        if (row[j] == minus_infinity) continue;
        switch (options.normalization) {
          case Normalization::softmax:
            unnormalised[j] = std::exp(row[j] - row_max);
            break;
          case Normalization::naive_softmax:
            unnormalised[j] = std::exp(row[j]);
            break;
          case Normalization::sum:
            unnormalised[j] = row[j];
            break;
        }
        total += unnormalised[j];
      }
      std::vector<double> context(dvh, 0.0);
      for (long j = 0; j < m; ++j) {
        const double weight = row_max == minus_infinity ? 0.0 : unnormalised[j] / total;
        scores(i, j) = static_cast<float>(row[j]);
        weights(i, j) = static_cast<float>(weight);
        for (long t = 0; t < dvh; ++t) context[t] += weight * v(j, g * dvh + t);
      }
      for (long t = 0; t < dvh; ++t)
        result.context(i, h * dvh + t) = static_cast<float>(context[t]);
    }
    result.scores.push_back(scores);
    result.weights.push_back(weights);
  }
  return result;
}

}  // namespace attn::reference
