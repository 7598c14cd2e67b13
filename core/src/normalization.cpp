#include "attn/normalization.hpp"

#include <algorithm>

#include "row_ops.hpp"

namespace attn {

void normalize_row(Normalization normalization, const float* scores, float* weights,
                   std::size_t count) {
  // pass 1: the row maximum. Softmax subtracts it before exp() so that every exponent is
  // ≤ 0: nothing overflows, and the factor exp(-max) cancels in the ratio.
  const float row_max = simd::maximum(scores, count);
  if (row_max == row_ops::kMinusInfinity) {  // no visible key
    std::fill(weights, weights + count, 0.0f);
    return;
  }
  // pass 2: unnormalised weights and their sum.
  const float shift = normalization == Normalization::softmax ? row_max : 0.0f;
  const long length = static_cast<long>(count);
  const float total = row_ops::unnormalised_weights(scores, weights, length, normalization, shift);
  // pass 3: normalise.
  row_ops::divide(weights, length, total);
  if (normalization == Normalization::sum && total < 0.0f) {
    // 0 / (negative total) is -0 (a masked key, or a score of exactly 0), which a table
    // would print as "-0"; adding +0 turns -0 into 0 and leaves every other value as it is.
    for (long j = 0; j < length; ++j) weights[j] += 0.0f;
  }
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
