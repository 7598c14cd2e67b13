#include "attn/positional.hpp"

#include <cmath>
#include <complex>
#include <limits>
#include <string>

#include "attn/errors.hpp"

namespace attn {

Matrix sinusoidal_encoding(long positions, long width) {
  // The base of the wavelengths' geometric progression, from "Attention Is All You Need".
  constexpr double kWavelengthBase = 10000.0;
  auto encoding =
      Matrix::from_shape({static_cast<std::size_t>(positions), static_cast<std::size_t>(width)});
  for (long p = 0; p < positions; ++p) {
    for (long column = 0; column < width; ++column) {
      const long pair = column / 2;
      const double angle = p / std::pow(kWavelengthBase, 2.0 * pair / width);
      encoding(p, column) = static_cast<float>(column % 2 == 0 ? std::sin(angle) : std::cos(angle));
    }
  }
  return encoding;
}

double rope_frequency(double base, long pair, long head_width) {
  constexpr double kTwoPi = 6.283185307179586;
  return std::fmod(std::pow(base, -2.0 * pair / head_width), kTwoPi);
}

Matrix rotate_rope(const Matrix& x, long heads, long first_position, double base,
                   RopePairing pairing) {
  const long rows = static_cast<long>(x.shape(0));
  const long head_width = static_cast<long>(x.shape(1)) / heads;
  const long half = head_width / 2;
  Matrix rotated = x;
  for (long t = 0; t < half; ++t) {
    const double frequency = rope_frequency(base, t, head_width);
    const long a = pairing == RopePairing::interleaved ? 2 * t : t;
    const long b = pairing == RopePairing::interleaved ? 2 * t + 1 : t + half;
    for (long r = 0; r < rows; ++r) {
      const double angle = static_cast<double>(first_position + r) * frequency;
      const double cos_angle = std::cos(angle), sin_angle = std::sin(angle);
      for (long h = 0; h < heads; ++h) {
        const long offset = h * head_width;
        const double xa = x(r, offset + a), xb = x(r, offset + b);
        rotated(r, offset + a) = static_cast<float>(xa * cos_angle - xb * sin_angle);
        rotated(r, offset + b) = static_cast<float>(xa * sin_angle + xb * cos_angle);
      }
    }
  }
  return rotated;
}

std::vector<float> alibi_default_slopes(long heads) {
  std::vector<float> slopes(heads);
  for (long h = 1; h <= heads; ++h) {
    slopes[h - 1] = static_cast<float>(std::exp2(-8.0 * h / heads));
  }
  return slopes;
}

namespace {

constexpr long kMaxDecayDistance = 1L << 20;  // a million positions: more than any page plots

// RoFormer's bound at distance(i) for i = 0..count − 1, after checking head_width and base.
template <class DistanceAt>
std::vector<double> decay_bounds(long head_width, double base, long count, DistanceAt distance_at) {
  if (head_width < 2 || head_width % 2 != 0) {
    fail("headWidth must be an even number ≥ 2, got " + std::to_string(head_width));
  }
  if (!(base > 1.0) || !std::isfinite(base)) {
    fail("base must be a finite number > 1, got " + format_number(base));
  }
  const long half = head_width / 2;
  std::vector<double> thetas(half);
  for (long t = 0; t < half; ++t) thetas[t] = rope_frequency(base, t, head_width);
  std::vector<double> bound(count);
  for (long i = 0; i < count; ++i) {
    const double distance = static_cast<double>(distance_at(i));
    std::complex<double> partial_sum = 0.0;  // S_j = sum_{t<j} exp(i·distance·θ_t)
    double total = 0.0;
    for (long t = 0; t < half; ++t) {
      partial_sum += std::polar(1.0, distance * thetas[t]);
      total += std::abs(partial_sum);
    }
    bound[i] = total / half;
  }
  return bound;
}

}  // namespace

std::vector<double> rope_decay_bound(long head_width, double base, long max_distance) {
  if (max_distance < 0 || max_distance > kMaxDecayDistance) {
    fail("maxDistance must be from 0 to " + std::to_string(kMaxDecayDistance) + ", got " +
         std::to_string(max_distance));
  }
  return decay_bounds(head_width, base, max_distance + 1, [](long i) { return i; });
}

std::vector<double> rope_decay_bound(long head_width, double base,
                                     const std::vector<long>& distances) {
  require_distances(distances, kMaxDecayDistance);
  return decay_bounds(head_width, base, static_cast<long>(distances.size()),
                      [&](long i) { return distances[i]; });
}

void validate(const PositionalOptions& positional, long heads, long head_width) {
  if (positional.type == PositionalType::rope) {
    if (head_width % 2 != 0) {
      fail("positional rope needs an even head width to rotate pairs, got dk/heads = " +
           std::to_string(head_width));
    }
    // A subnormal base would make base^(-2t/dh) overflow to Infinity.
    if (!(positional.base >= std::numeric_limits<double>::min()) ||
        !std::isfinite(positional.base)) {
      fail("positional.base must be a finite number > 0, and not subnormal (below " +
           format_number(std::numeric_limits<double>::min()) + "), got " +
           format_number(positional.base));
    }
  }
  if (positional.type == PositionalType::alibi && !positional.slopes.empty()) {
    if (static_cast<long>(positional.slopes.size()) != heads) {
      fail("positional.slopes has " + std::to_string(positional.slopes.size()) +
           " values but heads is " + std::to_string(heads) + "; give one slope per head");
    }
    for (std::size_t h = 0; h < positional.slopes.size(); ++h) {
      if (!std::isfinite(positional.slopes[h])) {
        fail("positional.slopes[" + std::to_string(h) + "] is not a finite number");
      }
    }
  }
}

}  // namespace attn
