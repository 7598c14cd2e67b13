#include "attn/rollout.hpp"

#include <cmath>
#include <string>

#include "attn/errors.hpp"
#include "attn/position_bias.hpp"

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
  // With zero content scores, query i weighs key j by exp(-slope·|i - j|) over the keys the
  // mask leaves visible: the content-free model of attn/position_bias.hpp, whose fast path
  // follows row n-1 of R in O(L·n) (the plain O(L·n²) sums are its KernelPath::direct).
  PositionModel model;
  model.n = options.n;
  model.layers = options.layers;
  model.residual = options.residual;
  model.mask = options.mask;
  if (options.alibi_slope > 0.0) {
    model.bias.type = DistanceBias::Type::alibi;
    model.bias.slope = options.alibi_slope;
  }
  return propagate(model, {}, RolloutStart::final_token);
}

}  // namespace attn
