// Training's optimiser: AdamW as PyTorch's torch.optim.AdamW computes it, a learning-rate
// schedule with linear warm-up, and clipping of the gradients' global norm.
#pragma once

#include <cstddef>
#include <vector>

#include "attn/names.hpp"

namespace attn::train {

enum class Schedule {
  constant,  // after warm-up, the learning rate stays
  cosine     // after warm-up, a half cosine from the learning rate down to 10% of it
};

inline constexpr OptionNames<Schedule, 2> kScheduleNames{
    "training.schedule", {{{Schedule::constant, "constant"}, {Schedule::cosine, "cosine"}}}};
constexpr const auto& names_of(Schedule) { return kScheduleNames; }

struct ScheduleOptions {
  double learning_rate = 1e-2;
  long warmup = 100;  // steps of linear rise: step s < warmup uses rate·(s + 1)/warmup
  Schedule schedule = Schedule::constant;
  long steps = 1400;  // the run's length, where the cosine ends
};

// The learning rate of step `step` (0-based).
double learning_rate_at(const ScheduleOptions& options, long step);

// Scales gradients[0, count) so that their global L2 norm is at most max_norm (as
// torch.nn.utils.clip_grad_norm_: by max_norm / (norm + 1e-6) when that is below 1);
// max_norm 0 leaves them. Returns the norm before clipping.
double clip_gradients(float* gradients, std::size_t count, double max_norm);

struct AdamWOptions {
  double beta1 = 0.9;
  double beta2 = 0.98;
  double epsilon = 1e-8;
  double weight_decay = 0.0;  // decoupled: parameter *= 1 - rate·weight_decay, every parameter
};

class AdamW {
 public:
  AdamW(std::size_t count, const AdamWOptions& options);

  // One update of parameters[0, count) by gradients[0, count) at this learning rate.
  void step(float* parameters, const float* gradients, double learning_rate);

  long steps_taken() const { return steps_; }

 private:
  AdamWOptions options_;
  std::vector<float> first_moment_;   // m: running mean of the gradients
  std::vector<float> second_moment_;  // v: running mean of their squares
  long steps_ = 0;
};

// Schedule, clipping and AdamW together: one step of training.
struct OptimizerOptions {
  ScheduleOptions schedule;
  AdamWOptions adamw;
  double clip = 1.0;  // global gradient norm; 0: no clipping
};

struct OptimizerStep {
  double gradient_norm = 0.0;  // before clipping
  double learning_rate = 0.0;  // the schedule's, for this step
};

// The largest number of steps a run may take.
constexpr long kMaxSteps = 10'000'000;

// Throws attn::InvalidArgument naming the option (training.learningRate, training.betas[1] …).
void validate(const OptimizerOptions& options);

class Optimizer {
 public:
  Optimizer(std::size_t count, const OptimizerOptions& options);

  // Clips gradients[0, count) to the global norm, then one AdamW update of parameters at
  // the schedule's rate for the next step.
  OptimizerStep step(float* parameters, float* gradients);

  long steps_taken() const { return adamw_.steps_taken(); }
  const OptimizerOptions& options() const { return options_; }

 private:
  OptimizerOptions options_;
  std::size_t count_;
  AdamW adamw_;
};

}  // namespace attn::train
