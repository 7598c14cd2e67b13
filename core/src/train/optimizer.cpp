#include "attn/train/optimizer.hpp"

#include <cmath>
#include <string>

#include "attn/errors.hpp"

namespace attn::train {

double learning_rate_at(const ScheduleOptions& options, long step) {
  if (step < options.warmup) return options.learning_rate * (step + 1) / options.warmup;
  if (options.schedule == Schedule::constant) return options.learning_rate;
  constexpr double kFloor = 0.1;  // the cosine ends at 10% of the learning rate
  constexpr double kPi = 3.14159265358979323846;
  const long decay_steps = options.steps - options.warmup;
  const double progress = decay_steps > 1 ? double(step - options.warmup) / (decay_steps - 1) : 1.0;
  return options.learning_rate * (kFloor + (1.0 - kFloor) * 0.5 * (1.0 + std::cos(kPi * progress)));
}

double clip_gradients(float* gradients, std::size_t count, double max_norm) {
  double squares = 0.0;
  for (std::size_t i = 0; i < count; ++i) squares += double(gradients[i]) * gradients[i];
  const double norm = std::sqrt(squares);
  // torch.nn.utils.clip_grad_norm_'s coefficient; 1e-6 keeps a zero norm from dividing.
  const double coefficient = max_norm / (norm + 1e-6);
  if (max_norm > 0.0 && coefficient < 1.0) {
    const float factor = static_cast<float>(coefficient);
    for (std::size_t i = 0; i < count; ++i) gradients[i] *= factor;
  }
  return norm;
}

AdamW::AdamW(std::size_t count, const AdamWOptions& options)
    : options_(options), first_moment_(count, 0.0f), second_moment_(count, 0.0f) {}

void AdamW::step(float* parameters, const float* gradients, double learning_rate) {
  ++steps_;
  const float beta1 = static_cast<float>(options_.beta1),
              beta2 = static_cast<float>(options_.beta2);
  const float decay = static_cast<float>(1.0 - learning_rate * options_.weight_decay);
  // Bias corrections of the moments, whose running means start at zero.
  const double correction1 = 1.0 - std::pow(options_.beta1, steps_);
  const double correction2_sqrt = std::sqrt(1.0 - std::pow(options_.beta2, steps_));
  const float step_size = static_cast<float>(learning_rate / correction1);
  const float epsilon = static_cast<float>(options_.epsilon);
  const float inverse_correction2_sqrt = static_cast<float>(1.0 / correction2_sqrt);
  for (std::size_t i = 0; i < first_moment_.size(); ++i) {
    const float g = gradients[i];
    parameters[i] *= decay;
    first_moment_[i] += (1.0f - beta1) * (g - first_moment_[i]);
    second_moment_[i] = beta2 * second_moment_[i] + (1.0f - beta2) * g * g;
    const float denominator = std::sqrt(second_moment_[i]) * inverse_correction2_sqrt + epsilon;
    parameters[i] -= step_size * first_moment_[i] / denominator;
  }
}

void validate(const OptimizerOptions& options) {
  require_whole_number("training.steps", options.schedule.steps, 1, kMaxSteps);
  require_whole_number("training.warmup", options.schedule.warmup, 0, kMaxSteps);
  require_number("training.learningRate", options.schedule.learning_rate, 0.0, 10.0);
  if (!(options.schedule.learning_rate > 0.0)) {
    fail("training.learningRate must be above 0, got " +
         format_number(options.schedule.learning_rate));
  }
  require_number("training.weightDecay", options.adamw.weight_decay, 0.0, 1.0);
  // below 1: a moment that never decays would never be corrected
  require_number("training.betas[0]", options.adamw.beta1, 0.0, 0.999999);
  require_number("training.betas[1]", options.adamw.beta2, 0.0, 0.999999);
  require_number("training.clip", options.clip, 0.0, 1e30);
}

Optimizer::Optimizer(std::size_t count, const OptimizerOptions& options)
    : options_((validate(options), options)), count_(count), adamw_(count, options.adamw) {}

OptimizerStep Optimizer::step(float* parameters, float* gradients) {
  OptimizerStep result;
  result.learning_rate = learning_rate_at(options_.schedule, steps_taken());
  result.gradient_norm = clip_gradients(gradients, count_, options_.clip);
  adamw_.step(parameters, gradients, result.learning_rate);
  return result;
}

}  // namespace attn::train
