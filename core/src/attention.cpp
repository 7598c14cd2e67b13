#include "attn/attention.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "attention_part.hpp"
#include "attn/errors.hpp"
#include "attn/kernels.hpp"
#include "simd.hpp"

namespace attn {

float score_scale(const ScaleOption& scale, long head_width) {
  switch (scale.mode) {
    case ScaleOption::Mode::inverse_sqrt_head_width:
      return static_cast<float>(1.0 / std::sqrt(static_cast<double>(head_width)));
    case ScaleOption::Mode::none:
      return 1.0f;
    case ScaleOption::Mode::factor:
      return static_cast<float>(scale.factor);
  }
  return 1.0f;
}

namespace {

// Throws unless `range` is [begin, end) with 0 ≤ begin < end ≤ limit: "part.rows must be
// [begin, end] with 0 ≤ begin < end ≤ n = 6, got [3, 9]".
void require_range(const char* name, const Range& range, const char* limit_name, long limit) {
  if (range.begin < 0 || range.begin >= range.end || range.end > limit) {
    fail(std::string(name) + " must be [begin, end] with 0 ≤ begin < end ≤ " + limit_name + " = " +
         std::to_string(limit) + ", got [" + std::to_string(range.begin) + ", " +
         std::to_string(range.end) + "]");
  }
}

// Bytes a materialised call returns: scores and weights, H matrices n×m each.
std::uint64_t materialized_bytes(std::uint64_t n, std::uint64_t m, std::uint64_t heads) {
  return 2 * heads * n * m * sizeof(float);
}

Kernel choose_kernel(Kernel requested, std::size_t n, std::size_t m, long heads) {
  const std::uint64_t bytes = materialized_bytes(n, m, heads);
  if (requested == Kernel::automatic) {
    return bytes <= kMaterializedBudgetBytes ? Kernel::materialized : Kernel::flash;
  }
  if (requested == Kernel::materialized && bytes > kMaterializedBudgetBytes) {
    fail("materialising " + std::to_string(heads) + " head(s) of " + std::to_string(n) + "×" +
         std::to_string(m) + " scores and weights needs " + std::to_string(bytes) +
         " bytes, more than the " + std::to_string(kMaterializedBudgetBytes) +
         "-byte budget; use kernel: 'flash', which keeps no n×m matrix");
  }
  return requested;
}

// factor · columns [first, first + count) of x (rows×cols), as a contiguous rows×count
// matrix, by plain loops over the storage (xtensor assigns a strided view element by
// element through steppers).
Matrix scaled_columns(const Matrix& x, std::size_t first, std::size_t count, float factor) {
  const std::size_t rows = x.shape(0), cols = x.shape(1);
  Matrix result = Matrix::from_shape({rows, count});
  for (std::size_t i = 0; i < rows; ++i) {
    const float* from = x.data() + i * cols + first;
    float* to = result.data() + i * count;
    for (std::size_t t = 0; t < count; ++t) to[t] = from[t] * factor;
  }
  return result;
}

// The flash kernel sums unnormalised weights (each ≤ 1) times v and divides by their total
// at the end: that sum can reach m·max|v|, past FLT_MAX where the normalised context would
// not. Returns the power of two (exact, 1 in all but extreme cases) that a head's v (columns
// [first, first + count)) is multiplied by so that it stays in range; the head's context is
// divided by it after. Each head's own, so that a head's numbers depend on its columns alone.
float flash_value_scale(const Matrix& v, std::size_t first, std::size_t count) {
  const std::size_t rows = v.shape(0), cols = v.shape(1);
  float largest = 0.0f;
  for (std::size_t j = 0; j < rows; ++j) {
    largest = std::max(largest, simd::maximum_magnitude(v.data() + j * cols + first, count));
  }
  const double headroom = std::numeric_limits<float>::max() / 4.0 / static_cast<double>(rows);
  if (largest <= headroom) return 1.0f;
  return std::ldexp(1.0f, -static_cast<int>(std::ceil(std::log2(largest / headroom))));
}

// Under softmax a context element is a convex combination of v's entries (weights in [0, 1]
// summing to 1), so it lies within ±FLT_MAX: an infinite one is the last bits of the sums
// rounding past FLT_MAX (v at ±FLT_MAX: the materialised sum of weights·v, or flash scaling its
// normalised rows back up), and is FLT_MAX with its sign. A NaN (a score that overflowed) stays,
// for require_no_overflow to name. One pass over `size` floats from `data`.
void clamp_rounded_infinities(float* data, std::size_t size) {
  std::size_t i = simd::first_non_finite(data, size);
  while (i < size) {
    if (std::isinf(data[i])) data[i] = std::copysign(std::numeric_limits<float>::max(), data[i]);
    i += 1 + simd::first_non_finite(data + i + 1, size - i - 1);
  }
}

// The stable softmax promises finite weights for finite inputs, but float32 can overflow
// before it: a score q·kᵀ·scale (+ ALiBi bias) beyond ±3.4e38 becomes ±Infinity, and the
// flash kernel's running sum of weights·v can pass FLT_MAX. The weights would then be NaN,
// or a row of zeros for keys the query does see. Such a call fails instead, naming where.
// Checks head h of the part (its dvh columns of `context`); scores and weights are its
// matrices (materialised) or null (flash). Cost: one pass over the head's context, and over a
// weights row only where a context row is exactly zero. Heads and queries are named by their
// index in the whole call.
void require_no_overflow(const Matrix& context, long h, std::size_t dvh, const Matrix* scores,
                         const Matrix* weights, const MaskOptions& mask,
                         const detail::CallShape& shape) {
  const std::size_t n = context.shape(0), dv = context.shape(1);
  for (std::size_t i = 0; i < n; ++i) {
    const float* row = context.data() + i * dv + h * dvh;
    const bool finite = simd::first_non_finite(row, dvh) == dvh;
    if (finite && simd::maximum_magnitude(row, dvh) > 0.0f) continue;  // finite, not zero
    std::string cause = "the weighted sum of v";
    if (scores) {
      const std::size_t m = scores->shape(1);
      const VisibleKeys visible =
          visible_keys(mask, shape.rows.begin + static_cast<long>(i), shape.n, shape.m);
      if (finite) {
        // A zero row is right when the query sees no key, or when v makes it zero.
        float total = 0.0f;
        for (std::size_t j = 0; j < m; ++j) total += (*weights)(i, j);
        if (visible.empty() || total > 0.5f) continue;
      }
      for (std::size_t j = 0; j < m; ++j) {
        if (visible.contains(static_cast<long>(j)) && !std::isfinite((*scores)(i, j))) {
          cause = "scores[" + std::to_string(shape.heads.begin + h) + "][" +
                  std::to_string(shape.rows.begin + static_cast<long>(i)) + "][" +
                  std::to_string(j) + "] = q·kᵀ·scale, which is " + format_number((*scores)(i, j));
          break;
        }
      }
    } else if (finite) {
      continue;  // flash: a row whose every visible score overflowed would be 0/0 = NaN
    } else {
      cause = "the scores q·kᵀ·scale or the weighted sum of v";
    }
    fail("softmax attention overflowed float32 in head " + std::to_string(shape.heads.begin + h) +
         ", query " + std::to_string(shape.rows.begin + static_cast<long>(i)) + ": " + cause +
         " went beyond ±3.4028235e+38; use smaller q, k, v or scale");
  }
}

// require_no_overflow for every head of a flash call: one pass over the whole context finds
// no non-finite value in all but failing calls, and only those look head by head.
void require_no_flash_overflow(const Matrix& context, long heads, std::size_t dvh,
                               const MaskOptions& mask, const detail::CallShape& shape) {
  if (simd::first_non_finite(context.data(), context.size()) == context.size()) return;
  for (long h = 0; h < heads; ++h)
    require_no_overflow(context, h, dvh, nullptr, nullptr, mask, shape);
}

}  // namespace

namespace detail {

CallShape check_options(const AttentionOptions& options, long n, long m, long dq, long dk, long dv,
                        const ColumnNames& names) {
  const long heads = options.heads;
  if (heads < 1) fail("heads must be a whole number ≥ 1, got " + std::to_string(heads));
  const long kv_heads = options.kv_heads.value_or(heads);
  const bool grouped = kv_heads != heads;
  if (kv_heads < 1) fail("kvHeads must be a whole number ≥ 1, got " + std::to_string(kv_heads));
  if (heads % kv_heads != 0) {
    fail("kvHeads (" + std::to_string(kv_heads) + ") must divide heads (" + std::to_string(heads) +
         "): each key/value head serves the same number of query heads");
  }
  if (dq % heads != 0) {
    fail("heads (" + std::to_string(heads) + ") must divide dk, the " + std::to_string(dq) +
         " columns of " + names.q + (grouped ? "" : std::string(" and ") + names.k));
  }
  const long dh = dq / heads;
  if (grouped && dk != kv_heads * dh) {
    fail(std::string(names.k) + " has " + std::to_string(dk) +
         " columns but kvHeads · dh = " + std::to_string(kv_heads) + " · " + std::to_string(dh) +
         " = " + std::to_string(kv_heads * dh) + " (dh = the " + std::to_string(dq) +
         " columns of " + names.q + " / heads " + std::to_string(heads) + ")");
  }
  if (dv % kv_heads != 0) {
    fail(std::string(grouped ? "kvHeads" : "heads") + " (" + std::to_string(kv_heads) +
         ") must divide dv, the " + std::to_string(dv) + " columns of " + names.v);
  }
  if (options.scale.mode == ScaleOption::Mode::factor && !std::isfinite(options.scale.factor)) {
    fail("scale must be true, false or a finite number, got " +
         format_number(options.scale.factor));
  }
  validate(options.mask);
  require_one_of(options.positional.type, kAttentionPositionalTypes,
                 "attention applies the encodings that act on q and k; the sinusoidal one is added "
                 "to the input x: use self_attention, or add it to q, k, v");
  validate(options.positional, heads, dh);
  CallShape shape;
  shape.n = n;
  shape.m = m;
  shape.dk = dq;
  shape.dv = dv;
  shape.all_heads = heads;
  shape.kv_heads = kv_heads;
  shape.rows = options.part.rows.value_or(Range{0, n});
  shape.heads = options.part.heads.value_or(Range{0, heads});
  require_range("part.rows", shape.rows, "n", n);
  require_range("part.heads", shape.heads, "heads", heads);
  shape.kv_range = {shape.kv_head_of(shape.heads.begin), shape.kv_head_of(shape.heads.end - 1) + 1};
  return shape;
}

Matrix block(const Matrix& x, Range rows, std::size_t first_col, std::size_t cols) {
  const std::size_t stride = x.shape(1);
  Matrix result = Matrix::from_shape({static_cast<std::size_t>(rows.size()), cols});
  for (long i = rows.begin; i < rows.end; ++i) {
    const float* from = x.data() + i * stride + first_col;
    std::copy(from, from + cols, result.data() + (i - rows.begin) * cols);
  }
  return result;
}

AttentionResult attend(const Matrix& q, const Matrix& k, const Matrix& v,
                       const AttentionOptions& options, const CallShape& shape,
                       const HeadSink* sink) {
  const std::size_t rows = q.shape(0), m = k.shape(0);
  const long heads = shape.heads.size(), kv_heads = shape.kv_range.size();  // of this part
  const std::size_t dh = q.shape(1) / heads, dvh = v.shape(1) / kv_heads;

  AttentionResult result;
  result.kernel_used = choose_kernel(options.kernel, shape.n, shape.m, options.heads);
  result.context = Matrix::from_shape({rows, heads * dvh});

  // Query i of the whole call sits at position i + (m - n): the part's first row at this one.
  const long first_position = shape.rows.begin + (shape.m - shape.n);
  const bool rope = options.positional.type == PositionalType::rope;
  const Matrix q_rotated = rope ? rotate_rope(q, heads, first_position, options.positional.base,
                                              options.positional.pairing)
                                : Matrix{};
  const Matrix k_rotated =
      rope ? rotate_rope(k, kv_heads, 0, options.positional.base, options.positional.pairing)
           : Matrix{};
  const Matrix& q_positioned = rope ? q_rotated : q;
  const Matrix& k_positioned = rope ? k_rotated : k;
  const bool alibi = options.positional.type == PositionalType::alibi;
  const std::vector<float> slopes = !alibi ? std::vector<float>{}
                                    : options.positional.slopes.empty()
                                        ? alibi_default_slopes(options.heads)
                                        : options.positional.slopes;

  const float scale = score_scale(options.scale, static_cast<long>(dh));
  const bool materialized = result.kernel_used == Kernel::materialized;
  const bool softmax = options.normalization == Normalization::softmax;
  // A materialised head's matrices: moved into the result, or with a sink written again for
  // the next head.
  Matrix scores, weights;
  for (long h = 0; h < heads; ++h) {
    // The key/value head query head h reads, among the part's k and v columns.
    const long g = shape.kv_head_of(shape.heads.begin + h) - shape.kv_range.begin;
    // Scaling q once costs n·dh multiplications instead of n·m on the scores.
    const Matrix q_head = scaled_columns(q_positioned, h * dh, dh, scale);  // rows×dh
    const float v_scale =
        result.kernel_used == Kernel::flash ? flash_value_scale(v, g * dvh, dvh) : 1.0f;
    const Matrix v_scaled = v_scale != 1.0f ? scaled_columns(v, g * dvh, dvh, v_scale) : Matrix{};

    kernels::Head head;
    head.q = q_head.data();
    head.k = k_positioned.data() + g * dh;
    head.ldk = static_cast<long>(k_positioned.shape(1));
    head.v = v_scale != 1.0f ? v_scaled.data() : v.data() + g * dvh;
    head.ldv = v_scale != 1.0f ? static_cast<long>(dvh) : static_cast<long>(v.shape(1));
    head.n = static_cast<long>(rows);
    head.first_row = shape.rows.begin;
    head.all_rows = shape.n;
    head.m = static_cast<long>(m);
    head.dh = static_cast<long>(dh);
    head.dvh = static_cast<long>(dvh);
    head.alibi = alibi;
    head.alibi_slope = alibi ? slopes[shape.heads.begin + h] : 0.0f;
    head.mask = options.mask;
    head.normalization = options.normalization;

    float* context = result.context.data() + h * dvh;
    const std::size_t ldc = result.context.shape(1);
    if (!materialized) {
      kernels::attend_flash(head, context, ldc);
      if (v_scale != 1.0f) {
        for (std::size_t i = 0; i < rows; ++i) {
          for (std::size_t t = 0; t < dvh; ++t) context[i * ldc + t] /= v_scale;
        }
      }
      continue;
    }
    if (!sink || h == 0) {
      scores = Matrix::from_shape({rows, m});
      weights = Matrix::from_shape({rows, m});
    }
    kernels::attend_materialized(head, scores.data(), weights.data(), context, ldc);
    if (softmax) {
      for (std::size_t i = 0; i < rows; ++i) clamp_rounded_infinities(context + i * ldc, dvh);
      require_no_overflow(result.context, h, dvh, &scores, &weights, options.mask, shape);
    }
    if (sink) {
      (*sink)(h, scores, weights);
    } else {
      result.scores.push_back(std::move(scores));
      result.weights.push_back(std::move(weights));
    }
  }
  if (!materialized && softmax) {
    clamp_rounded_infinities(result.context.data(), result.context.size());
    require_no_flash_overflow(result.context, heads, dvh, options.mask, shape);
  }
  return result;
}

}  // namespace detail

namespace {

AttentionResult checked_attention(const Matrix& q, const Matrix& k, const Matrix& v,
                                  const AttentionOptions& options, const HeadSink* sink) {
  require_non_empty("q", q);
  require_non_empty("k", k);
  require_non_empty("v", v);
  // With fewer key/value heads than query heads, check_options says how many columns k needs.
  if (options.kv_heads.value_or(options.heads) == options.heads) {
    require_same_columns("k", k, "q", q);
  }
  require_same_rows("v", v, "k", k);
  const long n = static_cast<long>(q.shape(0)), m = static_cast<long>(k.shape(0));
  const detail::CallShape shape =
      detail::check_options(options, n, m, static_cast<long>(q.shape(1)),
                            static_cast<long>(k.shape(1)), static_cast<long>(v.shape(1)));
  require_finite("q", q);
  require_finite("k", k);
  require_finite("v", v);
  if (shape.heads.size() == options.heads) {
    if (shape.whole_rows()) return detail::attend(q, k, v, options, shape, sink);
    return detail::attend(detail::block(q, shape.rows, 0, q.shape(1)), k, v, options, shape, sink);
  }
  // The part's heads: their columns of q, and the columns of the key/value heads they read.
  const std::size_t dh = q.shape(1) / options.heads, dvh = v.shape(1) / shape.kv_heads;
  const std::size_t first = shape.heads.begin, count = shape.heads.size();
  const std::size_t first_kv = shape.kv_range.begin, kv_count = shape.kv_range.size();
  const Range all_keys{0, m};
  return detail::attend(detail::block(q, shape.rows, first * dh, count * dh),
                        detail::block(k, all_keys, first_kv * dh, kv_count * dh),
                        detail::block(v, all_keys, first_kv * dvh, kv_count * dvh), options, shape,
                        sink);
}

}  // namespace

AttentionResult attention(const Matrix& q, const Matrix& k, const Matrix& v,
                          const AttentionOptions& options) {
  return checked_attention(q, k, v, options, nullptr);
}

AttentionResult attention(const Matrix& q, const Matrix& k, const Matrix& v,
                          const AttentionOptions& options, const HeadSink& sink) {
  return checked_attention(q, k, v, options, sink ? &sink : nullptr);
}

}  // namespace attn
