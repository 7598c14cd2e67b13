#include "attn/torch_generator.hpp"

#include <cmath>
#include <string>

#include "attn/errors.hpp"

namespace attn {

namespace {

void require_size(const char* name, long value) {
  if (value < 0) fail(std::string(name) + " must be ≥ 0, got " + std::to_string(value));
}

// The most numbers one call may draw: 1 GiB of float32.
constexpr std::uint64_t kMaxDrawsPerCall = std::uint64_t{1} << 28;

void require_draws(const char* what, std::uint64_t rows, std::uint64_t cols) {
  if (rows * cols > kMaxDrawsPerCall) {
    fail(std::string(what) + " " + std::to_string(rows) + "×" + std::to_string(cols) + " = " +
         std::to_string(rows * cols) + " numbers is more than one call may draw (" +
         std::to_string(kMaxDrawsPerCall) + ")");
  }
}

}  // namespace

TorchGenerator::TorchGenerator(std::uint64_t seed) : engine_(static_cast<std::uint32_t>(seed)) {}

float TorchGenerator::uniform(float from, float to) {
  // at::uniform_real_distribution<float>: 24 random bits, scaled in double (the CPU
  // accumulate type of float), then rounded to float.
  constexpr std::uint32_t kMantissaMask = (1u << 24) - 1;
  constexpr double kMantissaScale = 1.0 / (1u << 24);
  ++draws_;
  const double x = (engine_() & kMantissaMask) * kMantissaScale;
  return static_cast<float>(x * (static_cast<double>(to) - from) + from);
}

void TorchGenerator::skip(std::uint64_t count) {
  engine_.discard(count);
  draws_ += count;
}

Matrix TorchGenerator::uniform_matrix(long rows, long cols, float from, float to) {
  Matrix result =
      Matrix::from_shape({static_cast<std::size_t>(rows), static_cast<std::size_t>(cols)});
  for (float& value : result) value = uniform(from, to);
  return result;
}

Matrix TorchGenerator::rand(long rows, long cols) {
  require_size("rows", rows);
  require_size("cols", cols);
  require_draws("rows×cols", rows, cols);
  return uniform_matrix(rows, cols, 0.0f, 1.0f);
}

LinearParameters TorchGenerator::linear(long in_features, long out_features, bool bias) {
  if (in_features < 1) fail("inFeatures must be ≥ 1, got " + std::to_string(in_features));
  require_size("outFeatures", out_features);
  require_draws("outFeatures×inFeatures", out_features, in_features);
  // kaiming_uniform_(a=√5): gain = √(2 / (1 + a²)) = √(1/3), bound = gain · √(3 / fan_in),
  // computed in double as torch.nn.init does; the bias bound is 1/√fan_in.
  const double gain = std::sqrt(2.0 / (1.0 + 5.0));
  const double weight_bound = std::sqrt(3.0) * (gain / std::sqrt(static_cast<double>(in_features)));
  const double bias_bound = 1.0 / std::sqrt(static_cast<double>(in_features));

  LinearParameters parameters;
  parameters.weight = uniform_matrix(out_features, in_features, static_cast<float>(-weight_bound),
                                     static_cast<float>(weight_bound));
  if (bias) {
    parameters.bias = xt::flatten(uniform_matrix(1, out_features, static_cast<float>(-bias_bound),
                                                 static_cast<float>(bias_bound)));
  }
  return parameters;
}

}  // namespace attn
