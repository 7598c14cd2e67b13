#include <cmath>

#include "attn/positional.hpp"
#include "helpers.hpp"

using Catch::Contains;

namespace {

// Dot product of columns [first, first + count) of row 0 of a and b.
double dot(const attn::Matrix& a, const attn::Matrix& b, long first, long count) {
  double sum = 0.0;
  for (long t = first; t < first + count; ++t) sum += double(a(0, t)) * b(0, t);
  return sum;
}

// The pairs (a, b) that RoPE rotates together, for both pairings.
std::pair<long, long> rope_pair(attn::RopePairing pairing, long t, long head_width) {
  return pairing == attn::RopePairing::interleaved ? std::make_pair(2 * t, 2 * t + 1)
                                                   : std::make_pair(t, t + head_width / 2);
}

}  // namespace

TEST_CASE("sinusoidal encoding: known values", "[positional]") {
  const attn::Matrix pe = attn::sinusoidal_encoding(6, 8);
  REQUIRE(pe.shape(0) == 6);
  REQUIRE(pe.shape(1) == 8);
  for (long t = 0; t < 4; ++t) {
    CHECK(pe(0, 2 * t) == 0.0f);
    CHECK(pe(0, 2 * t + 1) == 1.0f);
  }
  CHECK(pe(1, 0) == Approx(std::sin(1.0)));
  CHECK(pe(1, 1) == Approx(std::cos(1.0)));
  CHECK(pe(3, 2) == Approx(std::sin(0.3)));  // 3 / 10000^(2/8) = 3 / 10
  CHECK(pe(3, 3) == Approx(std::cos(0.3)));
  CHECK(pe(5, 6) == Approx(std::sin(0.005)));  // 5 / 10000^(6/8) = 5 / 1000
  CHECK(pe(5, 7) == Approx(std::cos(0.005)));

  const attn::Matrix odd = attn::sinusoidal_encoding(3, 5);
  CHECK(odd(2, 4) == Approx(std::sin(2.0 / std::pow(10000.0, 0.8))));
}

TEST_CASE("rope: rotates each pair by position times base^(-2t/dh) for both pairings",
          "[positional]") {
  std::mt19937 rng(31);
  const auto pairing = GENERATE(attn::RopePairing::interleaved, attn::RopePairing::half);
  INFO(attn::to_string(pairing));
  const long heads = 2, head_width = 6, first_position = 3;
  const double base = 500.0;
  const attn::Matrix x = helpers::random_matrix(4, heads * head_width, rng);
  const attn::Matrix rotated = attn::rotate_rope(x, heads, first_position, base, pairing);
  for (long r = 0; r < 4; ++r) {
    for (long h = 0; h < heads; ++h) {
      for (long t = 0; t < head_width / 2; ++t) {
        const auto [a, b] = rope_pair(pairing, t, head_width);
        const long ca = h * head_width + a, cb = h * head_width + b;
        const double angle = (first_position + r) * std::pow(base, -2.0 * t / head_width);
        CHECK(rotated(r, ca) ==
              Approx(x(r, ca) * std::cos(angle) - x(r, cb) * std::sin(angle)).margin(1e-6));
        CHECK(rotated(r, cb) ==
              Approx(x(r, ca) * std::sin(angle) + x(r, cb) * std::cos(angle)).margin(1e-6));
      }
    }
  }
  // Pair 0 at position 1 turns by exactly 1 radian: (1, 0) → (cos 1, sin 1).
  attn::Matrix unit = xt::zeros<float>({1, 4});
  unit(0, 0) = 1.0f;
  const attn::Matrix turned = attn::rotate_rope(unit, 1, 1, 10000.0, pairing);
  CHECK(turned(0, 0) == Approx(std::cos(1.0)));
  CHECK(turned(0, pairing == attn::RopePairing::interleaved ? 1 : 2) == Approx(std::sin(1.0)));
}

TEST_CASE("rope: rotation preserves row norms", "[positional]") {
  std::mt19937 rng(32);
  const auto pairing = GENERATE(attn::RopePairing::interleaved, attn::RopePairing::half);
  const long heads = GENERATE(1L, 3L);
  const attn::Matrix x = helpers::random_matrix(20, heads * 8, rng);
  const attn::Matrix rotated = attn::rotate_rope(x, heads, 5, 10000.0, pairing);
  CHECK(helpers::max_abs_difference(rotated, x) > 0.1);
  for (long r = 0; r < 20; ++r) {
    double before = 0.0, after = 0.0;
    for (long c = 0; c < heads * 8; ++c) {
      before += double(x(r, c)) * x(r, c);
      after += double(rotated(r, c)) * rotated(r, c);
    }
    CHECK(after == Approx(before).epsilon(1e-5));
  }
}

TEST_CASE("rope: q.k depends only on the relative position", "[positional]") {
  std::mt19937 rng(33);
  const auto pairing = GENERATE(attn::RopePairing::interleaved, attn::RopePairing::half);
  INFO(attn::to_string(pairing));
  const long heads = 2, head_width = 8;
  const attn::Matrix q = helpers::random_matrix(1, heads * head_width, rng);
  const attn::Matrix k = helpers::random_matrix(1, heads * head_width, rng);
  auto rotated_dot = [&](long query_position, long key_position, long h) {
    return dot(attn::rotate_rope(q, heads, query_position, 10000.0, pairing),
               attn::rotate_rope(k, heads, key_position, 10000.0, pairing), h * head_width,
               head_width);
  };
  for (long h = 0; h < heads; ++h) {
    for (long distance : {0L, 1L, 5L, -3L}) {
      const double at_origin = rotated_dot(10 + distance, 10, h);
      for (long shift : {-10L, 7L, 123L}) {
        INFO("head " << h << ", distance " << distance << ", shift " << shift);
        CHECK(rotated_dot(10 + distance + shift, 10 + shift, h) == Approx(at_origin).margin(1e-5));
      }
    }
    // Distance 0 is the plain dot product; another distance is not.
    CHECK(rotated_dot(4, 4, h) == Approx(dot(q, k, h * head_width, head_width)).margin(1e-5));
    CHECK(std::abs(rotated_dot(5, 4, h) - rotated_dot(4, 4, h)) > 1e-3);
  }
}

TEST_CASE("alibi: default slopes are 2^(-8h/H)", "[positional]") {
  const std::vector<float> eight = attn::alibi_default_slopes(8);
  REQUIRE(eight.size() == 8);
  for (int h = 1; h <= 8; ++h) CHECK(eight[h - 1] == 1.0f / float(1 << h));
  CHECK(attn::alibi_default_slopes(1) == std::vector<float>{1.0f / 256});
  const std::vector<float> three = attn::alibi_default_slopes(3);
  for (int h = 1; h <= 3; ++h) CHECK(three[h - 1] == Approx(std::pow(2.0, -8.0 * h / 3)));
}

TEST_CASE("alibi: bias is minus slope times the distance", "[positional]") {
  CHECK(attn::alibi_bias(0.5f, 7, 3, true) == -2.0f);
  CHECK(attn::alibi_bias(0.5f, 7, 3, false) == -2.0f);
  CHECK(attn::alibi_bias(0.5f, 3, 7, false) == -2.0f);  // bidirectional: |p - j|
  CHECK(attn::alibi_bias(0.25f, 4, 4, true) == 0.0f);
}

TEST_CASE("rope decay bound: starts at (dh/2 + 1)/2 and never exceeds it", "[positional]") {
  const std::vector<double> bound = attn::rope_decay_bound(16, 10000.0, 300);
  REQUIRE(bound.size() == 301);
  CHECK(bound[0] == Approx(4.5));
  for (double value : bound) CHECK(value <= bound[0] + 1e-12);
  CHECK(bound[300] < bound[0] / 2);

  REQUIRE_THROWS_WITH(attn::rope_decay_bound(7, 10000.0, 3), Contains("headWidth"));
  REQUIRE_THROWS_WITH(attn::rope_decay_bound(8, 1.0, 3), Contains("base"));
  REQUIRE_THROWS_WITH(attn::rope_decay_bound(8, 10000.0, -1), Contains("maxDistance"));
}

TEST_CASE("rope decay bound at given distances: the whole bound's entries, in their order",
          "[positional][golden]") {
  // unsorted, repeated, and reaching 2^20
  const std::vector<long> distances = {300, 0, 1, 1L << 20, 1, 4096};
  for (const double base : {500.0, 10000.0, 500000.0}) {
    INFO("base " << base);
    const std::vector<double> whole = attn::rope_decay_bound(64, base, 1L << 20);
    const std::vector<double> sampled = attn::rope_decay_bound(64, base, distances);
    REQUIRE(sampled.size() == distances.size());
    for (std::size_t i = 0; i < distances.size(); ++i) {
      INFO("distance " << distances[i]);
      REQUIRE(sampled[i] == whole[distances[i]]);  // the same arithmetic, bit for bit
    }
  }
  // golden: dh = 4, base 100, distance 1: θ = (1, 0.1); (|e^{i}| + |e^{i} + e^{0.1i}|) / 2
  // = (1 + 2·cos(0.45)) / 2, from Python's math in float64
  REQUIRE(attn::rope_decay_bound(4, 100.0, std::vector<long>{1})[0] ==
          Approx(1.4004471023526768).epsilon(1e-14));

  REQUIRE_THROWS_WITH(attn::rope_decay_bound(8, 10000.0, std::vector<long>{}),
                      Contains("distances must hold 1 to 1048577 distances, got 0"));
  REQUIRE_THROWS_WITH(attn::rope_decay_bound(8, 10000.0, std::vector<long>{2, -3}),
                      Contains("distances[1] must be a whole number from 0 to 1048576, got -3"));
  REQUIRE_THROWS_WITH(attn::rope_decay_bound(7, 10000.0, std::vector<long>{2}),
                      Contains("headWidth must be an even number ≥ 2, got 7"));
}

TEST_CASE("positional: options that do not fit the heads are rejected", "[positional][errors]") {
  attn::PositionalOptions rope;
  rope.type = attn::PositionalType::rope;
  REQUIRE_NOTHROW(attn::validate(rope, 2, 4));
  REQUIRE_THROWS_AS(attn::validate(rope, 2, 3), attn::InvalidArgument);
  REQUIRE_THROWS_WITH(attn::validate(rope, 2, 3), Contains("rope") && Contains("even head width"));
  rope.base = 0.0;
  REQUIRE_THROWS_WITH(attn::validate(rope, 1, 4), Contains("positional.base"));

  attn::PositionalOptions alibi;
  alibi.type = attn::PositionalType::alibi;
  alibi.slopes = {0.5f, 0.25f, 0.125f};
  REQUIRE_THROWS_WITH(attn::validate(alibi, 2, 4),
                      Contains("slopes has 3 values") && Contains("heads is 2"));
  alibi.slopes = {0.5f, NAN};
  REQUIRE_THROWS_WITH(attn::validate(alibi, 2, 4), Contains("positional.slopes[1]"));
}

TEST_CASE("positional: names match the JavaScript API", "[positional]") {
  CHECK(std::string(attn::to_string(attn::PositionalType::sinusoidal)) == "sinusoidal");
  CHECK(std::string(attn::to_string(attn::PositionalType::alibi)) == "alibi");
  CHECK(std::string(attn::to_string(attn::RopePairing::half)) == "half");
  CHECK(std::string(attn::to_string(attn::RopePairing::interleaved)) == "interleaved");
}
