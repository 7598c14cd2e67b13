#include "attn/attention.hpp"

#include <cmath>
#include <string>
#include <xtensor/xview.hpp>

#include "attn/errors.hpp"
#include "attn/kernels.hpp"

namespace attn {

const char* to_string(Kernel kernel) {
  switch (kernel) {
    case Kernel::automatic: return "auto";
    case Kernel::materialized: return "materialized";
    case Kernel::flash: return "flash";
  }
  return "?";
}

float score_scale(const ScaleOption& scale, long head_width) {
  switch (scale.mode) {
    case ScaleOption::Mode::inverse_sqrt_head_width:
      return static_cast<float>(1.0 / std::sqrt(static_cast<double>(head_width)));
    case ScaleOption::Mode::none: return 1.0f;
    case ScaleOption::Mode::factor: return static_cast<float>(scale.factor);
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
    fail("heads (" + std::to_string(options.heads) + ") must divide dk, the " +
         std::to_string(dk) + " columns of q and k");
  }
  if (dv % options.heads != 0) {
    fail("heads (" + std::to_string(options.heads) + ") must divide dv, the " +
         std::to_string(dv) + " columns of v");
  }
  if (options.scale.mode == ScaleOption::Mode::factor && !std::isfinite(options.scale.factor)) {
    fail("scale must be true, false or a finite number, got " + format_number(options.scale.factor));
  }
  validate(options.mask);
  if (options.positional.type == PositionalType::sinusoidal) {
    fail("positional sinusoidal is added to the input x: use self_attention, or add it to q, k, v");
  }
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

// Columns [first, first + count) of x as a contiguous rows×count matrix.
Matrix column_slice(const Matrix& x, std::size_t first, std::size_t count) {
  return xt::view(x, xt::all(), xt::range(first, first + count));
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
  const Matrix q_positioned =
      rope ? rotate_rope(q, heads, static_cast<long>(m - n), options.positional.base,
                         options.positional.pairing)
           : q;
  const Matrix k_positioned =
      rope ? rotate_rope(k, heads, 0, options.positional.base, options.positional.pairing) : k;
  const bool alibi = options.positional.type == PositionalType::alibi;
  const std::vector<float> slopes = !alibi ? std::vector<float>{}
                                    : options.positional.slopes.empty()
                                        ? alibi_default_slopes(heads)
                                        : options.positional.slopes;

  const float scale = score_scale(options.scale, static_cast<long>(dh));
  for (long h = 0; h < heads; ++h) {
    // Scaling q once costs n·dh multiplications instead of n·m on the scores.
    const Matrix q_head = column_slice(q_positioned, h * dh, dh) * scale;   // n×dh
    const Matrix k_head_transposed = xt::transpose(column_slice(k_positioned, h * dh, dh));  // dh×m
    const Matrix v_head = column_slice(v, h * dvh, dvh);                        // m×dvh

    kernels::Head head;
    head.q = q_head.data();
    head.k_transposed = k_head_transposed.data();
    head.v = v_head.data();
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
  return result;
}

}  // namespace attn
