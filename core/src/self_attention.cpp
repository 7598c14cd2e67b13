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

// grouped: fewer key/value heads than query heads, whose wk columns check_options checks.
void validate(const Matrix& x, const Projections& projections, bool grouped) {
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
    if (!grouped) require_same_columns("wk", *projections.wk, "wq", *projections.wq);
  }
  if (grouped && given == 0) {
    fail(
        "kvHeads below heads needs wq, wk and wv: without them q = k = v = x, and k cannot "
        "have fewer heads than q");
  }
  if (projections.bo && !projections.wo) fail("bo is given without wo; the bias belongs to wo");
}

// The context wo multiplies is n×width, named `context_name` in the errors.
void validate_output_projection(const Projections& projections, const char* context_name,
                                std::size_t n, std::size_t width) {
  if (!projections.wo) return;
  require_projection("wo", *projections.wo, context_name, n, width);
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

SelfAttentionResult checked_self_attention(const Matrix& x, const Projections& projections,
                                           const AttentionOptions& options, const HeadSink* sink) {
  const long kv_heads = options.kv_heads.value_or(options.heads);
  validate(x, projections, kv_heads != options.heads);
  AttentionOptions inner = options;
  Matrix input = x;
  if (options.positional.type == PositionalType::sinusoidal) {
    input += sinusoidal_encoding(static_cast<long>(x.shape(0)), static_cast<long>(x.shape(1)));
    inner.positional = PositionalOptions{};
  }
  const std::size_t n = x.shape(0);
  const std::size_t dq = projections.wq ? projections.wq->shape(1) : x.shape(1);
  const std::size_t dk = projections.wk ? projections.wk->shape(1) : x.shape(1);
  const std::size_t dv = projections.wv ? projections.wv->shape(1) : x.shape(1);
  const long rows = static_cast<long>(n);
  const detail::CallShape shape =
      detail::check_options(inner, rows, rows, static_cast<long>(dq), static_cast<long>(dk),
                            static_cast<long>(dv), {"wq", "wk", "wv"});
  // The context has H heads of dv / G columns: as wide as v unless heads are grouped.
  const std::size_t dh = dq / options.heads, dvh = dv / kv_heads;
  validate_output_projection(projections, kv_heads == options.heads ? "v" : "the context", n,
                             options.heads * dvh);
  if (projections.wo && shape.heads.size() != options.heads) {
    fail("part.heads must be every head, [0, " + std::to_string(options.heads) +
         "], when wo is given: the output projection mixes the heads' contexts");
  }

  // The part's rows of q and its heads' columns of q, and the columns of k and v of the
  // key/value heads they read: each column of x·W is computed alone, so these are the whole
  // call's numbers.
  const std::size_t first_head = shape.heads.begin, heads = shape.heads.size();
  const std::size_t first_kv = shape.kv_range.begin, kv_count = shape.kv_range.size();
  const Range all_rows{0, rows};
  const Matrix query_input =
      shape.whole_rows() ? input : detail::block(input, shape.rows, 0, input.shape(1));
  SelfAttentionResult result;
  if (projections.wq) {
    result.q = kernels::multiply(query_input,
                                 weight_columns(*projections.wq, first_head * dh, heads * dh));
    result.k =
        kernels::multiply(input, weight_columns(*projections.wk, first_kv * dh, kv_count * dh));
    result.v =
        kernels::multiply(input, weight_columns(*projections.wv, first_kv * dvh, kv_count * dvh));
  } else {
    result.q = detail::block(input, shape.rows, first_head * dh, heads * dh);
    result.k = detail::block(input, all_rows, first_kv * dh, kv_count * dh);
    result.v = detail::block(input, all_rows, first_kv * dvh, kv_count * dvh);
  }
  require_finite("q", result.q, shape.rows.begin, first_head * dh);
  require_finite("k", result.k, 0, first_kv * dh);
  require_finite("v", result.v, 0, first_kv * dvh);

  result.attention = detail::attend(result.q, result.k, result.v, inner, shape, sink);
  if (projections.wo) {
    result.output = kernels::multiply(result.attention.context, *projections.wo);
    if (projections.bo) result.output += xt::view(*projections.bo, xt::newaxis(), xt::all());
  } else {
    result.output = result.attention.context;
  }
  return result;
}

}  // namespace

SelfAttentionResult self_attention(const Matrix& x, const Projections& projections,
                                   const AttentionOptions& options) {
  return checked_self_attention(x, projections, options, nullptr);
}

SelfAttentionResult self_attention(const Matrix& x, const Projections& projections,
                                   const AttentionOptions& options, const HeadSink& sink) {
  return checked_self_attention(x, projections, options, sink ? &sink : nullptr);
}

}  // namespace attn
