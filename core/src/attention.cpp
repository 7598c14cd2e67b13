#include "attn/attention.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

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

void validate(const Matrix& q, const Matrix& k, const Matrix& v, const AttentionOptions& options) {
  require_non_empty("q", q);
  require_non_empty("k", k);
  require_non_empty("v", v);
  require_same_columns("k", k, "q", q);
  require_same_rows("v", v, "k", k);
  if (options.heads < 1) {
    fail("heads must be a whole number ≥ 1, got " + std::to_string(options.heads));
  }
  const long dk = static_cast<long>(q.shape(1)), dv = static_cast<long>(v.shape(1));
  if (dk % options.heads != 0) {
    fail("heads (" + std::to_string(options.heads) + ") must divide dk, the " + std::to_string(dk) +
         " columns of q and k");
  }
  if (dv % options.heads != 0) {
    fail("heads (" + std::to_string(options.heads) + ") must divide dv, the " + std::to_string(dv) +
         " columns of v");
  }
  if (options.scale.mode == ScaleOption::Mode::factor && !std::isfinite(options.scale.factor)) {
    fail("scale must be true, false or a finite number, got " +
         format_number(options.scale.factor));
  }
  validate(options.mask);
  require_one_of(options.positional.type, kAttentionPositionalTypes,
                 "attention applies the encodings that act on q and k; the sinusoidal one is added "
                 "to the input x: use self_attention, or add it to q, k, v");
  validate(options.positional, options.heads, dk / options.heads);
  require_finite("q", q);
  require_finite("k", k);
  require_finite("v", v);
}

// Bytes the materialised kernel holds: scores and weights, H matrices n×m each.
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
// not. Returns the power of two (exact, 1 in all but extreme cases) that v is multiplied by
// so that it stays in range; the context is divided by it after.
float flash_value_scale(const Matrix& v) {
  const float largest = simd::maximum_magnitude(v.data(), v.size());
  const double headroom = std::numeric_limits<float>::max() / 4.0 / static_cast<double>(v.shape(0));
  if (largest <= headroom) return 1.0f;
  return std::ldexp(1.0f, -static_cast<int>(std::ceil(std::log2(largest / headroom))));
}

// The stable softmax promises finite weights for finite inputs, but float32 can overflow
// before it: a score q·kᵀ·scale (+ ALiBi bias) beyond ±3.4e38 becomes ±Infinity, and the
// flash kernel's running sum of weights·v can pass FLT_MAX. The weights would then be NaN,
// or a row of zeros for keys the query does see. Such a call fails instead, naming where.
// Cost: one pass over the context (n×dv), and over a weights row only where a context row
// is exactly zero.
void require_no_overflow(const AttentionResult& result, const MaskOptions& mask, long heads,
                         std::size_t dvh) {
  const std::size_t n = result.context.shape(0), dv = result.context.shape(1);
  const bool materialized = result.kernel_used == Kernel::materialized;
  // Flash fails only on a non-finite value: one pass over the whole context finds none in
  // all but failing calls.
  const std::size_t size = result.context.size();
  if (!materialized && simd::first_non_finite(result.context.data(), size) == size) return;
  for (long h = 0; h < heads; ++h) {
    for (std::size_t i = 0; i < n; ++i) {
      const float* row = result.context.data() + i * dv + h * dvh;
      const bool finite = simd::first_non_finite(row, dvh) == dvh;
      if (finite && simd::maximum_magnitude(row, dvh) > 0.0f) continue;  // finite, not zero
      std::string cause = "the weighted sum of v";
      if (materialized) {
        const Matrix& scores = result.scores[h];
        const std::size_t m = scores.shape(1);
        const VisibleKeys visible =
            visible_keys(mask, static_cast<long>(i), static_cast<long>(n), static_cast<long>(m));
        if (finite) {
          // A zero row is right when the query sees no key, or when v makes it zero.
          float total = 0.0f;
          for (std::size_t j = 0; j < m; ++j) total += result.weights[h](i, j);
          if (visible.empty() || total > 0.5f) continue;
        }
        for (std::size_t j = 0; j < m; ++j) {
          if (visible.contains(static_cast<long>(j)) && !std::isfinite(scores(i, j))) {
            cause = "scores[" + std::to_string(h) + "][" + std::to_string(i) + "][" +
                    std::to_string(j) + "] = q·kᵀ·scale, which is " + format_number(scores(i, j));
            break;
          }
        }
      } else if (finite) {
        continue;  // flash: a row whose every visible score overflowed would be 0/0 = NaN
      } else {
        cause = "the scores q·kᵀ·scale or the weighted sum of v";
      }
      fail("softmax attention overflowed float32 in head " + std::to_string(h) + ", query " +
           std::to_string(i) + ": " + cause +
           " went beyond ±3.4028235e+38; use smaller q, k, v or scale");
    }
  }
}

}  // namespace

AttentionResult attention(const Matrix& q, const Matrix& k, const Matrix& v,
                          const AttentionOptions& options) {
  validate(q, k, v, options);
  const std::size_t n = q.shape(0), m = k.shape(0);
  const long heads = options.heads;
  const std::size_t dh = q.shape(1) / heads, dvh = v.shape(1) / heads;

  AttentionResult result;
  result.kernel_used = choose_kernel(options.kernel, n, m, heads);
  result.context = Matrix::from_shape({n, v.shape(1)});

  const bool rope = options.positional.type == PositionalType::rope;
  const Matrix q_rotated = rope ? rotate_rope(q, heads, static_cast<long>(m - n),
                                              options.positional.base, options.positional.pairing)
                                : Matrix{};
  const Matrix k_rotated =
      rope ? rotate_rope(k, heads, 0, options.positional.base, options.positional.pairing)
           : Matrix{};
  const Matrix& q_positioned = rope ? q_rotated : q;
  const Matrix& k_positioned = rope ? k_rotated : k;
  const bool alibi = options.positional.type == PositionalType::alibi;
  const std::vector<float> slopes = !alibi ? std::vector<float>{}
                                    : options.positional.slopes.empty()
                                        ? alibi_default_slopes(heads)
                                        : options.positional.slopes;

  const float scale = score_scale(options.scale, static_cast<long>(dh));
  const float v_scale = result.kernel_used == Kernel::flash ? flash_value_scale(v) : 1.0f;
  const Matrix v_scaled = v_scale != 1.0f ? scaled_columns(v, 0, v.shape(1), v_scale) : Matrix{};
  const Matrix& v_used = v_scale != 1.0f ? v_scaled : v;
  for (long h = 0; h < heads; ++h) {
    // Scaling q once costs n·dh multiplications instead of n·m on the scores.
    const Matrix q_head = scaled_columns(q_positioned, h * dh, dh, scale);  // n×dh

    kernels::Head head;
    head.q = q_head.data();
    head.k = k_positioned.data() + h * dh;
    head.ldk = static_cast<long>(k_positioned.shape(1));
    head.v = v_used.data() + h * dvh;
    head.ldv = static_cast<long>(v_used.shape(1));
    head.n = static_cast<long>(n);
    head.m = static_cast<long>(m);
    head.dh = static_cast<long>(dh);
    head.dvh = static_cast<long>(dvh);
    head.alibi = alibi;
    head.alibi_slope = alibi ? slopes[h] : 0.0f;
    head.mask = options.mask;
    head.normalization = options.normalization;

    float* context = result.context.data() + h * dvh;
    if (result.kernel_used == Kernel::flash) {
      kernels::attend_flash(head, context, v.shape(1));
    } else {
      Matrix scores = Matrix::from_shape({n, m});
      Matrix weights = Matrix::from_shape({n, m});
      kernels::attend_materialized(head, scores.data(), weights.data(), context, v.shape(1));
      result.scores.push_back(std::move(scores));
      result.weights.push_back(std::move(weights));
    }
  }
  if (v_scale != 1.0f) result.context /= v_scale;
  if (options.normalization == Normalization::softmax) {
    require_no_overflow(result, options.mask, heads, dvh);
  }
  return result;
}

}  // namespace attn
