#include "attn/self_attention.hpp"

#include <string>
#include <xtensor/xview.hpp>

#include "attention_part.hpp"
#include "attn/errors.hpp"
#include "attn/kernels.hpp"

namespace attn {

namespace {

// Throws unless `weight` can multiply an input of input_rows×input_cols from the right:
// input_cols == weight.rows.
void require_projection(const char* weight_name, const Matrix& weight, const char* input_name,
                        std::size_t input_rows, std::size_t input_cols) {
  require_non_empty(weight_name, weight);
  if (weight.shape(0) != input_cols) {
    fail(std::string(weight_name) + " has " + std::to_string(weight.shape(0)) + " rows but " +
         input_name + " has " + std::to_string(input_cols) + " columns (" + input_name + " is " +
         std::to_string(input_rows) + "×" + std::to_string(input_cols) + ", " + weight_name +
         " is " + shape_string(weight) + "; " + weight_name + " must be " +
         std::to_string(input_cols) + "×d)");
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
    require_projection("wq", *projections.wq, "x", x.shape(0), x.shape(1));
    require_projection("wk", *projections.wk, "x", x.shape(0), x.shape(1));
    require_projection("wv", *projections.wv, "x", x.shape(0), x.shape(1));
    require_same_columns("wk", *projections.wk, "wq", *projections.wq);
  }
  if (projections.bo && !projections.wo) fail("bo is given without wo; the bias belongs to wo");
}

// v is n×dv.
void validate_output_projection(const Projections& projections, std::size_t n, std::size_t dv) {
  if (!projections.wo) return;
  require_projection("wo", *projections.wo, "v", n, dv);
  if (projections.bo) {
    if (projections.bo->size() != projections.wo->shape(1)) {
      fail("bo has " + std::to_string(projections.bo->size()) + " values but wo has " +
           std::to_string(projections.wo->shape(1)) + " columns (wo is " +
           shape_string(*projections.wo) + ")");
    }
    require_finite("bo", *projections.bo);
  }
}

// Columns [first, first + count) of a weight (every column when that is all of them).
Matrix weight_columns(const Matrix& weight, std::size_t first, std::size_t count) {
  if (first == 0 && count == weight.shape(1)) return weight;
  return detail::block(weight, Range{0, static_cast<long>(weight.shape(0))}, first, count);
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
  const std::size_t n = x.shape(0);
  const std::size_t dk = projections.wq ? projections.wq->shape(1) : x.shape(1);
  const std::size_t dv = projections.wv ? projections.wv->shape(1) : x.shape(1);
  validate_output_projection(projections, n, dv);
  const long rows = static_cast<long>(n);
  const detail::CallShape shape =
      detail::check_options(inner, rows, rows, static_cast<long>(dk), static_cast<long>(dv));
  if (projections.wo && shape.heads.size() != options.heads) {
    fail("part.heads must be every head, [0, " + std::to_string(options.heads) +
         "], when wo is given: the output projection mixes the heads' contexts");
  }

  // The part's rows of q and its heads' columns of q, k and v: each column of x·W is
  // computed alone, so these are the whole call's numbers.
  const std::size_t dh = dk / options.heads, dvh = dv / options.heads;
  const std::size_t first_head = shape.heads.begin, heads = shape.heads.size();
  const Range all_rows{0, rows};
  const Matrix query_input =
      shape.whole_rows() ? input : detail::block(input, shape.rows, 0, input.shape(1));
  SelfAttentionResult result;
  if (projections.wq) {
    result.q = kernels::multiply(query_input,
                                 weight_columns(*projections.wq, first_head * dh, heads * dh));
    result.k =
        kernels::multiply(input, weight_columns(*projections.wk, first_head * dh, heads * dh));
    result.v =
        kernels::multiply(input, weight_columns(*projections.wv, first_head * dvh, heads * dvh));
  } else {
    result.q = detail::block(input, shape.rows, first_head * dh, heads * dh);
    result.k = detail::block(input, all_rows, first_head * dh, heads * dh);
    result.v = detail::block(input, all_rows, first_head * dvh, heads * dvh);
  }
  require_finite("q", result.q, shape.rows.begin, first_head * dh);
  require_finite("k", result.k, 0, first_head * dh);
  require_finite("v", result.v, 0, first_head * dvh);

  result.attention = detail::attend(result.q, result.k, result.v, inner, shape);
  if (projections.wo) {
    result.output = kernels::multiply(result.attention.context, *projections.wo);
    if (projections.bo) result.output += xt::view(*projections.bo, xt::newaxis(), xt::all());
  } else {
    result.output = result.attention.context;
  }
  return result;
}

}  // namespace attn
