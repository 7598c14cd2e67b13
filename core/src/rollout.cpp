#include "attn/rollout.hpp"

#include <cmath>
#include <string>

#include "attn/errors.hpp"

namespace attn {

namespace {

void validate(const RolloutOptions& options) {
  if (options.n < 1) fail("n must be a whole number ≥ 1, got " + std::to_string(options.n));
  if (options.layers < 1) {
    fail("layers must be a whole number ≥ 1, got " + std::to_string(options.layers));
  }
  if (!(options.residual >= 0.0 && options.residual <= 1.0)) {
    fail("residual must be a number in [0, 1], got " + format_number(options.residual));
  }
  if (!(options.alibi_slope >= 0.0) || !std::isfinite(options.alibi_slope)) {
    fail("positional.slope must be a finite number ≥ 0, got " + format_number(options.alibi_slope));
  }
  validate(options.mask);
}

}  // namespace

std::vector<double> rollout_influence(const RolloutOptions& options) {
  validate(options);
  const long n = options.n;
  const double alpha = options.residual;
  // With zero content scores, query i weighs key j by exp(-slope·distance), over the keys
  // the mask leaves visible: the weights depend only on the distance, so tabulate them.
  std::vector<double> decay(n);
  for (long distance = 0; distance < n; ++distance) decay[distance] = std::exp(-options.alibi_slope * distance);

  // Row n-1 of R = M^L with M = α·I + (1-α)·A, as influence ← influence · M, L times.
  std::vector<double> influence(n, 0.0), next(n);
  influence[n - 1] = 1.0;
  for (long layer = 0; layer < options.layers; ++layer) {
    for (long j = 0; j < n; ++j) next[j] = alpha * influence[j];
    for (long i = 0; i < n; ++i) {
      if (influence[i] == 0.0) continue;
      const VisibleKeys visible = visible_keys(options.mask, i, n, n);
      double row_total = 0.0;
      for (long j = 0; j < n; ++j) {
        if (visible.contains(j)) row_total += decay[std::abs(i - j)];
      }
      const double share = (1.0 - alpha) * influence[i] / row_total;
      for (long j = 0; j < n; ++j) {
        if (visible.contains(j)) next[j] += share * decay[std::abs(i - j)];
      }
    }
    influence.swap(next);
  }
  return influence;
}

}  // namespace attn
