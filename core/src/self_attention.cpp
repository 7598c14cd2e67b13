#include "attn/self_attention.hpp"

#include <string>
#include <xtensor/xview.hpp>

#include "attn/errors.hpp"
#include "attn/kernels.hpp"

namespace attn {

namespace {

// Throws unless `weight` can multiply `input` from the right: input.cols == weight.rows.
void require_projection(const char* weight_name, const Matrix& weight, const char* input_name,
                        const Matrix& input) {
  require_non_empty(weight_name, weight);
  if (weight.shape(0) != input.shape(1)) {
    fail(std::string(weight_name) + " has " + std::to_string(weight.shape(0)) + " rows but " +
         input_name + " has " + std::to_string(input.shape(1)) + " columns (" + input_name +
         " is " + shape_string(input) + ", " + weight_name + " is " + shape_string(weight) + "; " +
         weight_name + " must be " + std::to_string(input.shape(1)) + "×d)");
  }
  require_finite(weight_name, weight);
}

void validate(const Matrix& x, const Projections& projections) {
  require_non_empty("x", x);
  require_finite("x", x);
  const int given =
      projections.wq.has_value() + projections.wk.has_value() + projections.wv.has_value();
  if (given != 0 && given != 3) {
    const char* missing = !projections.wq ? "wq" : !projections.wk ? "wk" : "wv";
    fail(std::string("wq, wk and wv come together, but ") + missing + " is missing");
  }
  if (given == 3) {
    require_projection("wq", *projections.wq, "x", x);
    require_projection("wk", *projections.wk, "x", x);
    require_projection("wv", *projections.wv, "x", x);
    require_same_columns("wk", *projections.wk, "wq", *projections.wq);
  }
  if (projections.bo && !projections.wo) fail("bo is given without wo; the bias belongs to wo");
}

void validate_output_projection(const Projections& projections, const Matrix& v) {
  if (!projections.wo) return;
  require_projection("wo", *projections.wo, "v", v);
  if (projections.bo) {
    if (projections.bo->size() != projections.wo->shape(1)) {
      fail("bo has " + std::to_string(projections.bo->size()) + " values but wo has " +
           std::to_string(projections.wo->shape(1)) + " columns (wo is " +
           shape_string(*projections.wo) + ")");
    }
    require_finite("bo", *projections.bo);
  }
}

}  // namespace

SelfAttentionResult self_attention(const Matrix& x, const Projections& projections,
                                   const AttentionOptions& options) {
  validate(x, projections);
  AttentionOptions inner = options;
  Matrix input = x;
  if (options.positional.type == PositionalType::sinusoidal) {
    input += sinusoidal_encoding(static_cast<long>(x.shape(0)), static_cast<long>(x.shape(1)));
    inner.positional = PositionalOptions{};
  }

  SelfAttentionResult result;
  if (projections.wq) {
    result.q = kernels::multiply(input, *projections.wq);
    result.k = kernels::multiply(input, *projections.wk);
    result.v = kernels::multiply(input, *projections.wv);
  } else {
    result.q = input;
    result.k = input;
    result.v = input;
  }
  validate_output_projection(projections, result.v);

  result.attention = attention(result.q, result.k, result.v, inner);
  if (projections.wo) {
    result.output = kernels::multiply(result.attention.context, *projections.wo);
    if (projections.bo) result.output += xt::view(*projections.bo, xt::newaxis(), xt::all());
  } else {
    result.output = result.attention.context;
  }
  return result;
}

}  // namespace attn
