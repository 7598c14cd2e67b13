#include "attn/lab/position_model.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "attn/errors.hpp"

namespace attn::lab {

namespace {

// The most positions a model may have: every call keeps a few vectors of n doubles.
constexpr long kMaxPositions = 1L << 20;

}  // namespace

void validate(const PositionModel& model) {
  if (model.n < 1 || model.n > kMaxPositions) {
    fail("n must be a whole number from 1 to " + std::to_string(kMaxPositions) + ", got " +
         std::to_string(model.n));
  }
  if (model.layers < 1)
    fail("layers must be a whole number ≥ 1, got " + std::to_string(model.layers));
  if (!(model.residual >= 0.0 && model.residual <= 1.0)) {
    fail("residual must be a number in [0, 1], got " + format_number(model.residual));
  }
  attn::validate(model.mask);
  validate(model.bias);
  if (model.position_scales.empty() || model.position_scales.size() > kMaxHeads) {
    fail("positionScales must hold 1 to " + std::to_string(kMaxHeads) +
         " numbers (one per head), got " + std::to_string(model.position_scales.size()));
  }
  for (std::size_t h = 0; h < model.position_scales.size(); ++h) {
    const double scale = model.position_scales[h];
    // n / scale must stay finite: RoPE's kernel takes the cosine of distance / scale.
    if (!(scale > 0.0) || !std::isfinite(scale) ||
        !std::isfinite(static_cast<double>(model.n) / scale)) {
      fail("positionScales[" + std::to_string(h) + "] must be a finite number > 0, got " +
           format_number(scale));
    }
  }
}

void validate(const DistanceBias& bias) {
  require_one_of(bias.type, kDistanceBiasTypes);
  if (bias.type == PositionalType::alibi && !(bias.slope >= 0.0 && std::isfinite(bias.slope))) {
    fail("positional.slope must be a finite number ≥ 0, got " + format_number(bias.slope));
  }
  if (bias.type == PositionalType::rope) {
    if (bias.head_width < 2 || bias.head_width % 2 != 0) {
      fail("positional.headWidth must be an even number ≥ 2, got " +
           std::to_string(bias.head_width));
    }
    if (!(bias.base > 1.0) || !std::isfinite(bias.base)) {
      fail("positional.base must be a finite number > 1, got " + format_number(bias.base));
    }
    if (!(bias.strength >= 0.0) || !std::isfinite(bias.strength)) {
      fail("positional.strength must be a finite number ≥ 0, got " + format_number(bias.strength));
    }
  }
}

double rope_mean_cosine(double distance, const std::vector<double>& angles) {
  double total = 0.0;
  for (const double angle : angles) total += std::cos(distance * angle);
  return total / static_cast<double>(angles.size());
}

namespace {

// K(distance(i) / position_scale) for i = 0..count − 1.
template <class DistanceAt>
std::vector<double> kernel_values(const DistanceBias& bias, double position_scale, long count,
                                  DistanceAt distance_at) {
  std::vector<double> values(count);
  if (bias.type == PositionalType::alibi) {
    // exp(-slope·d/scale) for each d on its own, not as repeated products of r. K(0) is 1
    // even when slope/scale overflows to Infinity (a subnormal scale): not Infinity·0.
    for (long i = 0; i < count; ++i) {
      const long d = distance_at(i);
      values[i] = d == 0 ? 1.0 : std::exp(-bias.slope / position_scale * d);
    }
  } else if (bias.type == PositionalType::rope) {
    // exp(strength·(g - 1)) rather than exp(strength·g): the same weights after
    // normalisation, and never above 1.
    std::vector<double> angles(bias.head_width / 2);
    for (long t = 0; t < long(angles.size()); ++t)
      angles[t] = rope_frequency(bias.base, t, bias.head_width);
    for (long i = 0; i < count; ++i) {
      const double g = rope_mean_cosine(distance_at(i) / position_scale, angles);
      values[i] = std::exp(bias.strength * (g - 1.0));
    }
  } else {
    std::fill(values.begin(), values.end(), 1.0);  // no positional bias
  }
  return values;
}

}  // namespace

DistanceKernel distance_kernel(const DistanceBias& bias, double position_scale, long n) {
  DistanceKernel kernel;
  kernel.exponential = bias.type != PositionalType::rope;
  kernel.table = kernel_values(bias, position_scale, n + 1, [](long d) { return d; });
  return kernel;
}

std::vector<double> distance_weights(const DistanceBias& bias, long max_distance) {
  if (max_distance < 0 || max_distance > kMaxPositions) {
    fail("maxDistance must be a whole number from 0 to " + std::to_string(kMaxPositions) +
         ", got " + std::to_string(max_distance));
  }
  validate(bias);
  return distance_kernel(bias, 1.0, max_distance).table;
}

std::vector<double> distance_weights(const DistanceBias& bias, const std::vector<long>& distances) {
  require_distances(distances, kMaxPositions);
  validate(bias);
  return kernel_values(bias, 1.0, static_cast<long>(distances.size()),
                       [&](long i) { return distances[i]; });
}

}  // namespace attn::lab
