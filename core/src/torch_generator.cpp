#include "attn/torch_generator.hpp"

#include <cmath>
#include <string>

#include "attn/errors.hpp"

namespace attn {

namespace {

void require_size(const char* name, long value) {
  if (value < 0) fail(std::string(name) + " must be ≥ 0, got " + std::to_string(value));
}

constexpr double kPi = 3.14159265358979323846;

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

double TorchGenerator::uniform_double() {
  // at::uniform_real_distribution<double>: random64() is two draws, the first the high word;
  // its low 53 bits scaled by 2^-53.
  const std::uint64_t high = engine_(), low = engine_();
  draws_ += 2;
  const std::uint64_t bits = ((high << 32) | low) & ((std::uint64_t{1} << 53) - 1);
  return std::ldexp(static_cast<double>(bits), -53);
}

double TorchGenerator::normal_double() {
  // at::normal_distribution<double>: returns the cached number of the last pair if any.
  if (next_normal_) {
    const double cached = *next_normal_;
    next_normal_.reset();
    return cached;
  }
  const double u1 = uniform_double(), u2 = uniform_double();
  const double radius = std::sqrt(-2.0 * std::log(1.0 - u2));  // as PyTorch 1.13 (later: log1p)
  const double theta = 2.0 * kPi * u1;
  next_normal_ = radius * std::sin(theta);
  return radius * std::cos(theta);
}

void TorchGenerator::normal_block(float* block) {
  // normal_fill_16: lanes j and j + 8 are one Box–Muller pair; 1 - u keeps log away from 0.
  for (int j = 0; j < 8; ++j) {
    const float u1 = 1.0f - block[j], u2 = block[j + 8];
    const float radius = std::sqrt(-2.0f * std::log(u1));
    const float theta = static_cast<float>(2.0 * kPi * u2);
    block[j] = radius * std::cos(theta);
    block[j + 8] = radius * std::sin(theta);
  }
}

Matrix TorchGenerator::randn(long rows, long cols) {
  require_size("rows", rows);
  require_size("cols", cols);
  require_draws("rows×cols", rows, cols);
  constexpr long kBlock = 16;
  Matrix result =
      Matrix::from_shape({static_cast<std::size_t>(rows), static_cast<std::size_t>(cols)});
  float* data = result.data();
  const long size = rows * cols;
  if (size < kBlock) {
    for (long i = 0; i < size; ++i) data[i] = static_cast<float>(normal_double());
    return result;
  }
  for (long i = 0; i < size; ++i) data[i] = uniform(0.0f, 1.0f);
  for (long i = 0; i + kBlock <= size; i += kBlock) normal_block(data + i);
  if (size % kBlock != 0) {  // the last 16 numbers again, from new uniforms
    float* last = data + size - kBlock;
    for (long i = 0; i < kBlock; ++i) last[i] = uniform(0.0f, 1.0f);
    normal_block(last);
  }
  return result;
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
