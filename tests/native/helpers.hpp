// Shared test helpers: seeded random matrices and element-wise comparison that prints
// the largest difference on failure.
#pragma once

#include <catch2/catch.hpp>
#include <cmath>
#include <random>
#include <sstream>

#include "attn/matrix.hpp"

namespace helpers {

inline attn::Matrix random_matrix(std::size_t rows, std::size_t cols, std::mt19937& rng,
                                  float low = -1.0f, float high = 1.0f) {
  std::uniform_real_distribution<float> uniform(low, high);
  auto result = attn::Matrix::from_shape({rows, cols});
  for (float& value : result) value = uniform(rng);
  return result;
}

// Largest |a - b| over all entries; two equal infinities count as 0, NaN as infinity.
template <class A, class B>
double max_abs_difference(const A& a, const B& b) {
  double worst = 0.0;
  auto ai = a.begin();
  for (auto bi = b.begin(); bi != b.end(); ++bi, ++ai) {
    if (*ai == *bi) continue;
    const double difference = std::abs(double(*ai) - double(*bi));
    worst = std::max(worst, std::isnan(difference) ? INFINITY : difference);
  }
  return worst;
}

// CHECK that a and b have the same shape and agree to `tolerance` everywhere.
#define CHECK_CLOSE(a, b, tolerance)                                    \
  do {                                                                  \
    REQUIRE((a).shape() == (b).shape());                                \
    const double max_abs_diff = helpers::max_abs_difference((a), (b));  \
    INFO("max abs diff " << max_abs_diff << ", tolerance " << (tolerance)); \
    CHECK(max_abs_diff <= (tolerance));                                 \
  } while (false)

}  // namespace helpers
