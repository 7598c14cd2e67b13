#include "attn/normalization.hpp"

#include <cmath>
#include <limits>

namespace attn {

const char* to_string(Normalization normalization) {
  switch (normalization) {
    case Normalization::softmax: return "softmax";
    case Normalization::naive_softmax: return "naive-softmax";
    case Normalization::sum: return "sum";
  }
  return "?";
}

namespace {

bool is_masked(float score) { return score == -std::numeric_limits<float>::infinity(); }

}  // namespace

void normalize_row(Normalization normalization, const float* scores, float* weights,
                   std::size_t count) {
  // pass 1: the row maximum over visible keys. Subtracting it before exp() keeps every
  // exponent ≤ 0, so nothing overflows, and cancels out in the ratio (softmax only).
  float row_max = -std::numeric_limits<float>::infinity();
  for (std::size_t j = 0; j < count; ++j) row_max = std::max(row_max, scores[j]);
  if (is_masked(row_max)) {  // no visible key
    for (std::size_t j = 0; j < count; ++j) weights[j] = 0.0f;
    return;
  }
  const float shift = normalization == Normalization::softmax ? row_max : 0.0f;

  // pass 2: unnormalised weights and their sum.
  float total = 0.0f;
  for (std::size_t j = 0; j < count; ++j) {
    float value = 0.0f;
    if (!is_masked(scores[j])) {
      value = normalization == Normalization::sum ? scores[j] : std::exp(scores[j] - shift);
    }
    weights[j] = value;
    total += value;
  }

  // pass 3: normalise.
  for (std::size_t j = 0; j < count; ++j) weights[j] /= total;
}

Matrix normalize_rows(const Matrix& scores, Normalization normalization) {
  Matrix weights(scores.shape());
  const std::size_t cols = scores.shape(1);
  for (std::size_t i = 0; i < scores.shape(0); ++i) {
    normalize_row(normalization, scores.data() + i * cols, weights.data() + i * cols, cols);
  }
  return weights;
}

}  // namespace attn
