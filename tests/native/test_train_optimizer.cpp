// attn/train/optimizer.hpp: the learning-rate schedule, global-norm clipping, and AdamW
// as torch.optim.AdamW computes it.
#include <cmath>
#include <vector>

#include "attn/train/optimizer.hpp"
#include "helpers.hpp"

using attn::train::learning_rate_at;
using attn::train::Schedule;
using attn::train::ScheduleOptions;

TEST_CASE("schedule: linear warm-up, then constant", "[train][optimizer]") {
  const ScheduleOptions constant{0.02, 4, Schedule::constant, 100};
  CHECK(learning_rate_at(constant, 0) == Approx(0.005));
  CHECK(learning_rate_at(constant, 1) == Approx(0.010));
  CHECK(learning_rate_at(constant, 3) == Approx(0.020));
  CHECK(learning_rate_at(constant, 4) == Approx(0.020));
  CHECK(learning_rate_at(constant, 99) == Approx(0.020));
  const ScheduleOptions no_warmup{0.02, 0, Schedule::constant, 100};
  CHECK(learning_rate_at(no_warmup, 0) == Approx(0.02));
}

TEST_CASE("schedule: cosine from the rate after warm-up down to 10% at the last step",
          "[train][optimizer]") {
  const ScheduleOptions cosine{1.0, 10, Schedule::cosine, 111};
  CHECK(learning_rate_at(cosine, 9) == Approx(1.0));
  CHECK(learning_rate_at(cosine, 10) == Approx(1.0));
  CHECK(learning_rate_at(cosine, 60) == Approx(0.55));  // half way: 0.1 + 0.9·0.5
  CHECK(learning_rate_at(cosine, 110) == Approx(0.1));
  CHECK(learning_rate_at(cosine, 111) == Approx(0.1));  // after the run: it stays at 10%
  CHECK(learning_rate_at(cosine, 500) == Approx(0.1));
  double previous = 2.0;
  for (long step = 10; step < 111; ++step) {
    CHECK(learning_rate_at(cosine, step) < previous);
    previous = learning_rate_at(cosine, step);
  }
}

TEST_CASE("clip: gradients scaled to the global norm, as clip_grad_norm_", "[train][optimizer]") {
  std::vector<float> gradients = {3.0f, 0.0f, -4.0f};  // norm 5
  CHECK(attn::train::clip_gradients(gradients.data(), 3, 1.0) == Approx(5.0));
  CHECK(gradients[0] == Approx(3.0 / (5.0 + 1e-6)));
  CHECK(gradients[2] == Approx(-4.0 / (5.0 + 1e-6)));
  std::vector<float> small = {0.3f, 0.4f};  // norm 0.5 < 1: left as it is
  CHECK(attn::train::clip_gradients(small.data(), 2, 1.0) == Approx(0.5));
  CHECK(small[0] == 0.3f);
  std::vector<float> unclipped = {30.0f, 40.0f};  // max_norm 0: no clipping
  attn::train::clip_gradients(unclipped.data(), 2, 0.0);
  CHECK(unclipped[1] == 40.0f);
}

TEST_CASE("adamw: three steps equal the update written out by hand", "[train][optimizer]") {
  // ε as trained, and as large as the gradients, where adding it before the bias correction of
  // v, or inside the square root, would show
  const double epsilon = GENERATE(1e-8, 0.1);
  const attn::train::AdamWOptions options{0.9, 0.98, epsilon, 0.1};
  attn::train::AdamW optimizer(2, options);
  std::vector<float> parameters = {0.5f, -1.0f};
  const std::vector<std::vector<float>> gradients = {{0.2f, -0.1f}, {-0.3f, 0.05f}, {0.1f, 0.2f}};
  const double rate = 0.01;
  // torch.optim.AdamW's update in double
  std::vector<double> p = {0.5, -1.0}, m = {0.0, 0.0}, v = {0.0, 0.0};
  for (int step = 1; step <= 3; ++step) {
    optimizer.step(parameters.data(), gradients[step - 1].data(), rate);
    for (int i = 0; i < 2; ++i) {
      const double g = gradients[step - 1][i];
      p[i] *= 1.0 - rate * 0.1;
      m[i] = 0.9 * m[i] + 0.1 * g;
      v[i] = 0.98 * v[i] + 0.02 * g * g;
      const double m_hat = m[i] / (1.0 - std::pow(0.9, step));
      const double v_hat = v[i] / (1.0 - std::pow(0.98, step));
      p[i] -= rate * m_hat / (std::sqrt(v_hat) + epsilon);
      CHECK(parameters[i] == Approx(p[i]).epsilon(1e-6));
    }
  }
  CHECK(optimizer.steps_taken() == 3);
  // The first step moves each parameter by the learning rate against its gradient's sign.
  attn::train::AdamW fresh(1, {});
  float value = 0.0f;
  const float gradient = 123.0f;
  fresh.step(&value, &gradient, 0.01);
  CHECK(value == Approx(-0.01).epsilon(1e-5));
}

TEST_CASE("optimizer: a gradient that is not finite stops the step before any parameter moves",
          "[train][optimizer][errors]") {
  attn::train::Optimizer optimizer(3, {});
  std::vector<float> parameters = {1.0f, 2.0f, 3.0f}, gradients = {0.1f, NAN, 0.2f};
  CHECK_THROWS_WITH(optimizer.step(parameters.data(), gradients.data()),
                    Catch::Contains("training diverged at step 1: the gradients' norm is NaN"));
  CHECK(parameters == std::vector<float>{1.0f, 2.0f, 3.0f});
  gradients = {0.1f, INFINITY, 0.2f};
  CHECK_THROWS_WITH(optimizer.step(parameters.data(), gradients.data()),
                    Catch::Contains("the gradients' norm is Infinity"));
}

TEST_CASE("optimizer: bad options fail naming the option", "[train][optimizer][errors]") {
  attn::train::OptimizerOptions options;
  options.schedule.learning_rate = 2.0;
  options.adamw.weight_decay = 0.5;
  CHECK_THROWS_WITH(
      attn::train::validate(options),
      Catch::Contains("training.learningRate × training.weightDecay must be below 1"));
  options = {};
  options.adamw.epsilon = 0.0;
  CHECK_THROWS_WITH(attn::train::validate(options),
                    Catch::Contains("epsilon must be from 1e-30 to 1, got 0"));
  options = {};
  options.clip = -1.0;
  CHECK_THROWS_WITH(attn::train::validate(options),
                    Catch::Contains("training.clip must be from 0"));
}
