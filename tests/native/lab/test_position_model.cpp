#include <cmath>
#include <string>
#include <vector>

#include "attn/lab/position_model.hpp"
#include "attn/lab/rollout.hpp"
#include "lab_helpers.hpp"

using attn::lab::RolloutStart;
using Catch::Contains;
using lab_helpers::model;
using lab_helpers::rope_model;

TEST_CASE("position model: invalid options name the option", "[lab][errors]") {
  auto rejects = [](const attn::lab::PositionModel& bad, const std::string& words) {
    INFO(words);
    REQUIRE_THROWS_AS(attn::lab::position_curve(bad, RolloutStart::final_token),
                      attn::InvalidArgument);
    REQUIRE_THROWS_WITH(attn::lab::position_curve(bad, RolloutStart::final_token), Contains(words));
  };
  rejects(model(0, 1, 0.0, true), "n must be a whole number from 1 to 1048576, got 0");
  rejects(model(1, 1, 0.0, true), "n must be a whole number ≥ 2 for a position curve");
  rejects(model(5, 0, 0.0, true), "layers must be a whole number ≥ 1, got 0");
  rejects(model(5, 1, 1.5, true), "residual must be a number in [0, 1], got 1.5");
  attn::lab::PositionModel alibi = model(5, 1, 0.0, true, 0.1);
  alibi.bias.slope = NAN;
  rejects(alibi, "positional.slope must be a finite number ≥ 0, got NaN");
  rejects(model(5, 1, 0.0, true, 0.0, -1), "window");
  attn::lab::PositionModel rope = rope_model(5, 1, 0.0, 1.0, 1.0);
  rejects(rope, "positional.base must be a finite number > 1, got 1");
  rope = rope_model(5, 1, 0.0, -1.0, 100.0);
  rejects(rope, "positional.strength must be a finite number ≥ 0, got -1");
  rope = rope_model(5, 1, 0.0, 1.0, 100.0);
  rope.bias.head_width = 3;
  rejects(rope, "positional.headWidth must be an even number ≥ 2, got 3");
  attn::lab::PositionModel scales = model(5, 1, 0.0, true);
  scales.position_scales = {1.0, 0.0};
  rejects(scales, "positionScales[1] must be a finite number > 0, got 0");
  scales.position_scales = {};
  rejects(scales, "positionScales must hold 1 to 64 numbers");
}

TEST_CASE("distance weights: the final token's attention in one causal layer, in O(n)",
          "[lab][golden]") {
  // One causal layer without a residual: the final token of n attends to the key d before it
  // with K(d) / Σ K, so K(d) = attention(n−1−d) / attention(n−1), read here from the O(n²)
  // position curve.
  for (const attn::lab::PositionModel& rope :
       {rope_model(200, 1, 0.0, 6.0, 10000.0), rope_model(129, 1, 0.0, 2.5, 500.0)}) {
    INFO(lab_helpers::describe(rope));
    const long last = rope.n - 1;
    const std::vector<double> attention =
        attn::lab::position_curve(rope, RolloutStart::final_token).values;
    const std::vector<double> weights = attn::lab::distance_weights(rope.bias, last);
    REQUIRE(weights.size() == static_cast<std::size_t>(last + 1));
    REQUIRE(weights[0] == 1.0);
    for (long d = 0; d <= last; ++d) {
      INFO("d = " << d);
      REQUIRE(weights[d] == Approx(attention[last - d] / attention[last]).epsilon(1e-12));
    }
  }
  // golden: exp(s·(g(d) − 1)) with g(1) = mean of cos(θ_t), θ_t = 10000^(−2t/16), t = 0..7,
  // and ALiBi's exp(−slope·d), from Python's math in float64
  attn::lab::DistanceBias rope = rope_model(2, 1, 0.0, 6.0, 10000.0).bias;
  REQUIRE(attn::lab::distance_weights(rope, 1)[1] == Approx(0.6796853439535551).epsilon(1e-14));
  attn::lab::DistanceBias alibi;
  alibi.type = attn::PositionalType::alibi;
  alibi.slope = 0.25;
  const std::vector<double> alibi_weights = attn::lab::distance_weights(alibi, 8);
  REQUIRE(alibi_weights[8] == Approx(std::exp(-2.0)).epsilon(1e-15));
  attn::lab::DistanceBias none;
  REQUIRE(attn::lab::distance_weights(none, 3) == std::vector<double>{1.0, 1.0, 1.0, 1.0});
}

TEST_CASE("distance weights: invalid options name the option", "[lab][errors]") {
  attn::lab::DistanceBias rope = rope_model(2, 1, 0.0, 6.0, 10000.0).bias;
  REQUIRE_THROWS_WITH(attn::lab::distance_weights(rope, -1),
                      Contains("maxDistance must be a whole number from 0 to 1048576, got -1"));
  REQUIRE_THROWS_WITH(
      attn::lab::distance_weights(rope, (1L << 20) + 1),
      Contains("maxDistance must be a whole number from 0 to 1048576, got 1048577"));
  rope.head_width = 5;
  REQUIRE_THROWS_WITH(attn::lab::distance_weights(rope, 4),
                      Contains("positional.headWidth must be an even number ≥ 2, got 5"));
  REQUIRE(attn::lab::distance_weights(rope_model(2, 1, 0.0, 6.0, 10000.0).bias, 0) ==
          std::vector<double>{1.0});
}

TEST_CASE("distance weights at given distances: the whole table's entries, in their order",
          "[lab][golden]") {
  attn::lab::DistanceBias rope = rope_model(2, 1, 0.0, 6.0, 10000.0).bias;
  attn::lab::DistanceBias alibi;
  alibi.type = attn::PositionalType::alibi;
  alibi.slope = 0.25;
  // unsorted, repeated, and reaching the model's most positions
  const std::vector<long> distances = {1L << 20, 1, 0, 4095, 1, 77, 1L << 19};
  for (const attn::lab::DistanceBias& bias : {rope, alibi, attn::lab::DistanceBias{}}) {
    const std::vector<double> table = attn::lab::distance_weights(bias, 1L << 20);
    const std::vector<double> sampled = attn::lab::distance_weights(bias, distances);
    REQUIRE(sampled.size() == distances.size());
    for (std::size_t i = 0; i < distances.size(); ++i) {
      INFO("distance " << distances[i]);
      REQUIRE(sampled[i] == table[distances[i]]);  // the same arithmetic, bit for bit
    }
  }
  REQUIRE(attn::lab::distance_weights(rope, std::vector<long>{1})[0] ==
          Approx(0.6796853439535551).epsilon(1e-14));

  REQUIRE_THROWS_WITH(attn::lab::distance_weights(rope, std::vector<long>{}),
                      Contains("distances must hold 1 to 1048577 distances, got 0"));
  REQUIRE_THROWS_WITH(attn::lab::distance_weights(rope, std::vector<long>{0, 3, -1}),
                      Contains("distances[2] must be a whole number from 0 to 1048576, got -1"));
  REQUIRE_THROWS_WITH(
      attn::lab::distance_weights(rope, std::vector<long>{(1L << 20) + 1}),
      Contains("distances[0] must be a whole number from 0 to 1048576, got 1048577"));
  rope.head_width = 5;
  REQUIRE_THROWS_WITH(attn::lab::distance_weights(rope, std::vector<long>{4}),
                      Contains("positional.headWidth must be an even number ≥ 2, got 5"));
}
