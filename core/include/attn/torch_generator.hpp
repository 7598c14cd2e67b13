// PyTorch's CPU random generator, reproduced: after torch.manual_seed(seed) PyTorch draws
// from std::mt19937(seed); a float32 uniform in [0, 1) is (u32 & 0xFFFFFF) · 2^-24, then
// from + x·(to - from) in double, rounded to float. torch.rand and nn.Linear's
// initialisation both consume this one stream in order.
#pragma once

#include <cstdint>
#include <optional>
#include <random>

#include "attn/matrix.hpp"

namespace attn {

struct LinearParameters {
  Matrix weight;               // out×in, as PyTorch stores it (y = x·weightᵀ + bias)
  std::optional<Vector> bias;  // out
};

class TorchGenerator {
 public:
  explicit TorchGenerator(std::uint64_t seed);

  // torch.rand(rows, cols): rows×cols uniform in [0, 1).
  Matrix rand(long rows, long cols);

  // torch.nn.Linear(in_features, out_features, bias): weight by kaiming_uniform_(a=√5),
  // i.e. uniform in ±1/√in, then the bias uniform in the same bound.
  LinearParameters linear(long in_features, long out_features, bool bias = true);

  // torch.randn(rows, cols): standard normal numbers by Box–Muller, as PyTorch's CPU
  // normal_ draws them (nn.Embedding's initialisation too). Tensors of 16 numbers or more
  // take float uniforms in blocks of 16 (the last block redrawn when 16 does not divide the
  // size); smaller ones take pairs of double uniforms, the second value of a pair kept for
  // the next such number.
  Matrix randn(long rows, long cols);

  // Discards `count` 32-bit draws, as if that many floats had been drawn.
  void skip(std::uint64_t count);

  // 32-bit draws consumed since seeding.
  std::uint64_t draws() const { return draws_; }

 private:
  float uniform(float from, float to);
  double uniform_double();          // 53 random bits from two draws, in [0, 1)
  double normal_double();           // one Box–Muller number, caching the pair's second
  void normal_block(float* block);  // 16 uniforms in [0, 1) → 16 normal numbers
  Matrix uniform_matrix(long rows, long cols, float from, float to);

  std::mt19937 engine_;
  std::uint64_t draws_ = 0;
  std::optional<double> next_normal_;  // the cached second number of a Box–Muller pair
};

}  // namespace attn
