#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "attn/fast_exp.hpp"

TEST_CASE("fast_exp_nonpositive: within the documented bounds for x ≤ 0", "[fast_exp]") {
  double worst_relative = 0.0, worst_absolute = 0.0;
  float relative_at = 0.0f, absolute_at = 0.0f;
  for (double x = -100.0; x <= 0.0; x += 1e-4) {
    const float input = static_cast<float>(x);
    const double exact = std::exp(static_cast<double>(input));
    const double absolute = std::abs(attn::fast_exp_nonpositive(input) - exact);
    if (absolute > worst_absolute) {
      worst_absolute = absolute;
      absolute_at = input;
    }
    if (input >= -1.0f && absolute / exact > worst_relative) {
      worst_relative = absolute / exact;
      relative_at = input;
    }
  }
  INFO("max relative error on [-1, 0] " << worst_relative << " at x = " << relative_at);
  INFO("max absolute error " << worst_absolute << " at x = " << absolute_at);
  CHECK(worst_relative < attn::kFastExpMaxRelativeError);
  CHECK(worst_absolute < attn::kFastExpNonPositiveMaxAbsoluteError);
}

TEST_CASE("fast_exp_nonpositive: 1 at 0, 0 at -Infinity and below -88, NaN stays NaN",
          "[fast_exp]") {
  CHECK(attn::fast_exp_nonpositive(0.0f) == 1.0f);
  CHECK(attn::fast_exp_nonpositive(-std::numeric_limits<float>::infinity()) == 0.0f);
  for (float x = -88.1f; x > -1e37f; x *= 1.7f) REQUIRE(attn::fast_exp_nonpositive(x) == 0.0f);
  CHECK(std::isnan(attn::fast_exp_nonpositive(std::nanf(""))));
}

TEST_CASE("fast_exp_nonpositive: monotone across the reduction boundaries", "[fast_exp]") {
  float previous = attn::fast_exp_nonpositive(-90.0f);
  for (float x = -90.0f + 1e-3f; x <= 0.0f; x += 1e-3f) {
    const float value = attn::fast_exp_nonpositive(x);
    REQUIRE(value >= previous);
    previous = value;
  }
}

TEST_CASE("fast_exp_nonpositive: on SIMD vectors every lane equals the scalar function",
          "[fast_exp]") {
  typedef float Lanes4 __attribute__((vector_size(16)));
  typedef float Lanes16 __attribute__((vector_size(64)));
  const float infinity = std::numeric_limits<float>::infinity();
  for (float x : {-infinity, -1e30f, -88.5f, -87.5f, -20.0f, -1.0f, -1e-30f, 0.0f}) {
    INFO("x = " << x);
    CHECK(attn::fast_exp_nonpositive(Lanes4{} + x)[1] == attn::fast_exp_nonpositive(x));
    CHECK(attn::fast_exp_nonpositive(Lanes16{} + x)[15] == attn::fast_exp_nonpositive(x));
  }
  for (float x = -100.0f; x <= 0.0f; x += 0.37f) {
    const Lanes4 lanes = attn::fast_exp_nonpositive(Lanes4{x, x / 2, x / 3, x / 7});
    REQUIRE(lanes[0] == attn::fast_exp_nonpositive(x));
    REQUIRE(lanes[1] == attn::fast_exp_nonpositive(x / 2));
    REQUIRE(lanes[2] == attn::fast_exp_nonpositive(x / 3));
    REQUIRE(lanes[3] == attn::fast_exp_nonpositive(x / 7));
  }
  CHECK(std::isnan(attn::fast_exp_nonpositive(Lanes4{} + std::nanf(""))[2]));
}
