#include <cmath>
#include <string>

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
