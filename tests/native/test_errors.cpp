#include <cmath>

#include "attn/errors.hpp"
#include "helpers.hpp"

using Catch::Contains;

TEST_CASE("errors: fail throws attn::InvalidArgument, a std::invalid_argument", "[errors]") {
  REQUIRE_THROWS_AS(attn::fail("boom"), attn::InvalidArgument);
  REQUIRE_THROWS_AS(attn::fail("boom"), std::invalid_argument);
  REQUIRE_THROWS_WITH(attn::fail("boom"), "boom");
}

TEST_CASE("errors: numbers are written as JavaScript prints them", "[errors]") {
  CHECK(attn::format_number(0.5) == "0.5");
  CHECK(attn::format_number(-3.0) == "-3");
  CHECK(attn::format_number(1e30) == "1e+30");
  CHECK(attn::format_number(NAN) == "NaN");
  CHECK(attn::format_number(INFINITY) == "Infinity");
  CHECK(attn::format_number(-INFINITY) == "-Infinity");
}

TEST_CASE("errors: shapes are written rows x cols", "[errors]") {
  CHECK(attn::shape_string(attn::Matrix::from_shape({3, 4})) == "3×4");
}

TEST_CASE("errors: require_finite names the position and kind of a non-finite entry", "[errors]") {
  attn::Matrix q = xt::zeros<float>({2, 3});
  REQUIRE_NOTHROW(attn::require_finite("q", q));
  q(1, 2) = NAN;
  REQUIRE_THROWS_WITH(attn::require_finite("q", q), Contains("q[1][2] is NaN"));
  q(1, 2) = 0.0f;
  q(0, 1) = INFINITY;
  REQUIRE_THROWS_WITH(attn::require_finite("q", q), Contains("q[0][1] is Infinity"));
  q(0, 1) = -INFINITY;
  REQUIRE_THROWS_WITH(attn::require_finite("q", q), Contains("q[0][1] is -Infinity"));

  attn::Vector bo = xt::zeros<float>({4});
  bo(3) = NAN;
  REQUIRE_THROWS_AS(attn::require_finite("bo", bo), attn::InvalidArgument);
  REQUIRE_THROWS_WITH(attn::require_finite("bo", bo), Contains("bo[3] is NaN"));
}

TEST_CASE("errors: require_finite finds the first non-finite entry anywhere in a large matrix",
          "[errors]") {
  // 37×7 = 259 entries: the vectorised scan's whole chunks, then its scalar tail.
  for (auto [row, col] : {std::pair{0, 0}, {9, 1}, {30, 5}, {36, 4}, {36, 6}}) {
    INFO("at [" << row << "][" << col << "]");
    attn::Matrix x = xt::ones<float>({37, 7});
    x(row, col) = -INFINITY;
    x(36, 6) = row == 36 && col == 6 ? -INFINITY : NAN;  // a later one is not the first
    if (row == 36 && col == 6) {
      REQUIRE_THROWS_WITH(attn::require_finite("x", x), Contains("x[36][6] is -Infinity"));
    } else {
      REQUIRE_THROWS_WITH(
          attn::require_finite("x", x),
          Contains("x[" + std::to_string(row) + "][" + std::to_string(col) + "] is -Infinity"));
    }
  }
  const attn::Matrix finite = xt::full_like(attn::Matrix::from_shape({37, 7}), 3.4e38f);
  REQUIRE_NOTHROW(attn::require_finite("x", finite));
}

TEST_CASE("errors: require_non_empty rejects a matrix without rows or columns", "[errors]") {
  REQUIRE_NOTHROW(attn::require_non_empty("x", attn::Matrix::from_shape({1, 1})));
  REQUIRE_THROWS_WITH(attn::require_non_empty("x", attn::Matrix::from_shape({0, 3})),
                      Contains("x is 0×3"));
  REQUIRE_THROWS_WITH(attn::require_non_empty("x", attn::Matrix::from_shape({2, 0})),
                      Contains("x is 2×0"));
}

TEST_CASE("errors: column and row mismatches name both shapes", "[errors]") {
  const auto q = attn::Matrix::from_shape({2, 3});
  const auto k = attn::Matrix::from_shape({5, 4});
  REQUIRE_THROWS_WITH(attn::require_same_columns("k", k, "q", q),
                      "k has 4 columns but q has 3 (q is 2×3, k is 5×4)");
  REQUIRE_THROWS_WITH(attn::require_same_rows("k", k, "q", q),
                      "k has 5 rows but q has 2 (q is 2×3, k is 5×4)");
  REQUIRE_NOTHROW(attn::require_same_columns("v", attn::Matrix::from_shape({5, 3}), "q", q));
}
