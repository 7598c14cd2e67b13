#include "attn/tutorial.hpp"

#include <cmath>
#include <string>

#include "attn/errors.hpp"
#include "attn/kernels.hpp"

namespace attn {

Matrix dot_product_scores(const Matrix& x) {
  require_non_empty("x", x);
  require_finite("x", x);
  return kernels::multiply(x, xt::transpose(x));
}

Matrix context_vectors(const Matrix& weights, const Matrix& values) {
  require_non_empty("weights", weights);
  require_non_empty("values", values);
  if (weights.shape(1) != values.shape(0)) {
    fail("weights has " + std::to_string(weights.shape(1)) + " columns but values has " +
         std::to_string(values.shape(0)) + " rows (weights is " + shape_string(weights) +
         ", values is " + shape_string(values) + ")");
  }
  return kernels::multiply(weights, values);
}

QueryWalkthrough walk_through_query(const Matrix& x, long query, double scale) {
  require_non_empty("x", x);
  require_finite("x", x);
  const long n = static_cast<long>(x.shape(0));
  if (query < 0 || query >= n) {
    fail("query must be a row index of x in [0, " + std::to_string(n - 1) + "], got " +
         std::to_string(query));
  }
  if (!std::isfinite(scale)) fail("scale must be a finite number, got " + format_number(scale));

  const std::size_t d = x.shape(1);
  QueryWalkthrough walk;
  walk.scores = Vector::from_shape({static_cast<std::size_t>(n)});
  for (long j = 0; j < n; ++j) {
    float dot = 0.0f;
    for (std::size_t t = 0; t < d; ++t) dot += x(query, t) * x(j, t);
    walk.scores(j) = static_cast<float>(dot * scale);
    // Float32 overflow here would make even the stable softmax NaN: refuse it by name.
    if (!std::isfinite(walk.scores(j))) {
      fail("scores[" + std::to_string(j) + "] = x[" + std::to_string(query) + "]·x[" +
           std::to_string(j) + "]·scale is " + format_number(walk.scores(j)) +
           ", beyond float32's range (±3.4028235e+38); use a smaller scale or smaller values");
    }
  }
  walk.sum_weights = Vector::from_shape(walk.scores.shape());
  walk.naive_softmax_weights = Vector::from_shape(walk.scores.shape());
  walk.softmax_weights = Vector::from_shape(walk.scores.shape());
  normalize_row(Normalization::sum, walk.scores.data(), walk.sum_weights.data(), n);
  normalize_row(Normalization::naive_softmax, walk.scores.data(), walk.naive_softmax_weights.data(),
                n);
  normalize_row(Normalization::softmax, walk.scores.data(), walk.softmax_weights.data(), n);

  walk.context = xt::zeros<float>({d});
  for (long j = 0; j < n; ++j) {
    for (std::size_t t = 0; t < d; ++t) walk.context(t) += walk.softmax_weights(j) * x(j, t);
  }
  return walk;
}

}  // namespace attn
