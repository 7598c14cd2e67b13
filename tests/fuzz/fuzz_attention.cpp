// libFuzzer target: the core's numerical entry points on arbitrary shapes (every size ≤ 64),
// option values and float bit patterns. One input drives one call:
//
//   attention (every option, kvHeads among them, each kernel; materialised results re-run
//   with flash and against the double-precision reference; a part of the rows and heads,
//   which must hold exactly the whole call's numbers), self_attention with projections,
//   walk_through_query, lab::rollout, lab::propagate (fast and direct paths),
//   lab::position_curve, attention_memory, TorchGenerator, rope_decay_bound, pool_blocks
//   (against a double-precision fold of each block).
//
// A call may fail only with attn::InvalidArgument. When it succeeds, the invariants below
// must hold; a broken one prints what broke and aborts, which libFuzzer reports as a crash
// (and so does any sanitizer finding: the target is built with ASan and UBSan, no recovery).
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "attn/attention.hpp"
#include "attn/block_pooling.hpp"
#include "attn/errors.hpp"
#include "attn/lab/rollout.hpp"
#include "attn/memory.hpp"
#include "attn/positional.hpp"
#include "attn/reference.hpp"
#include "attn/self_attention.hpp"
#include "attn/torch_generator.hpp"
#include "attn/tutorial.hpp"

namespace {

constexpr long kMaxSize = 64;              // every matrix dimension, n, m and positions
constexpr double kRowSumTolerance = 1e-4;  // |sum of a softmax row - 1|, float32, m ≤ 64
// Flash against materialised, and materialised against the reference: the largest context
// difference, relative to the head's largest |v|. Compared only where the scores are well
// conditioned (below): scores rounded differently by a few ulps must not move the weights.
constexpr double kContextTolerance = 1e-3;
constexpr double kConditionLimit = 1e-4;  // largest rounding error the scores may carry
constexpr double kContentRange = 40.0;    // content scores of propagate, ± (see fuzz_propagation)

// Describes the call under test; built only when an invariant breaks.
std::function<std::string()> describe_call = [] { return std::string("(no call)"); };

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", value);
  return text;
}

std::string describe_mask(const attn::MaskOptions& mask) {
  return std::string(mask.causal ? "causal" : "bidirectional") + " window " +
         std::to_string(mask.window) + " sinks " + std::to_string(mask.sinks);
}

[[noreturn]] void broken(const std::string& what) {
  std::fprintf(stderr, "fuzz_attention: invariant broken: %s\n  call: %s\n", what.c_str(),
               describe_call().c_str());
  std::fflush(stderr);
  std::abort();
}

void expect(bool condition, const std::string& what) {
  if (!condition) broken(what);
}

// ---- inputs --------------------------------------------------------------------------------

// Values a matrix is drawn from: the float edge cases and the magnitudes of the teaching
// examples (1e15 squared is a 1e30 score).
constexpr float kPalette[] = {
    0.0f,
    -0.0f,
    1.0f,
    -1.0f,
    0.5f,
    2.0f,
    1e-3f,
    1e3f,
    1e15f,
    -1e15f,
    1e19f,
    -1e19f,
    1e30f,
    -1e30f,
    FLT_MAX,
    -FLT_MAX,
    FLT_MIN,
    std::numeric_limits<float>::denorm_min(),
    std::numeric_limits<float>::infinity(),
    -std::numeric_limits<float>::infinity(),
    std::numeric_limits<float>::quiet_NaN(),
    88.0f,
    -88.0f,
    89.0f,
    1e-30f,
};

float from_bits(std::uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

// xorshift32: dense matrices from a few bytes of input.
struct Xorshift {
  std::uint32_t state;
  std::uint32_t next() {
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    return state;
  }
  float uniform() { return static_cast<float>(next() >> 8) * (2.0f / 16777216.0f) - 1.0f; }
};

attn::Matrix make_matrix(FuzzedDataProvider& data, long rows, long cols) {
  attn::Matrix matrix =
      attn::Matrix::from_shape({static_cast<std::size_t>(rows), static_cast<std::size_t>(cols)});
  const int mode = data.ConsumeIntegralInRange(0, 3);
  Xorshift random{data.ConsumeIntegral<std::uint32_t>() | 1u};
  const float magnitude = std::ldexp(1.0f, data.ConsumeIntegralInRange(-40, 64));
  for (float& value : matrix) {
    switch (mode) {
      case 0:
        value = from_bits(data.ConsumeIntegral<std::uint32_t>());
        break;
      case 1:
        value = magnitude * random.uniform();
        break;
      case 2:
        value = data.PickValueInArray(kPalette);
        break;
      default:
        value = random.next() % 16 == 0 ? kPalette[random.next() % std::size(kPalette)]
                                        : magnitude * random.uniform();
    }
  }
  return matrix;
}

long make_size(FuzzedDataProvider& data, long least = 1) {
  // Mostly in range; sometimes 0 or negative, which the core must refuse.
  if (data.ConsumeIntegralInRange(0, 31) == 0) return data.ConsumeIntegralInRange(-2L, 0L);
  return data.ConsumeIntegralInRange(least, kMaxSize);
}

double make_double(FuzzedDataProvider& data) {
  switch (data.ConsumeIntegralInRange(0, 3)) {
    case 0: {
      const std::uint64_t bits = data.ConsumeIntegral<std::uint64_t>();
      double value;
      std::memcpy(&value, &bits, sizeof value);
      return value;
    }
    case 1:
      return data.PickValueInArray(kPalette);
    case 2:
      return data.ConsumeFloatingPointInRange(-4.0, 4.0);
    default:
      return std::ldexp(data.ConsumeFloatingPointInRange(0.5, 1.0),
                        data.ConsumeIntegralInRange(-1080, 1030));
  }
}

attn::AttentionOptions make_options(FuzzedDataProvider& data, long heads, bool allow_sinusoidal) {
  attn::AttentionOptions options;
  options.heads = heads;
  switch (data.ConsumeIntegralInRange(0, 2)) {
    case 0:
      options.scale.mode = attn::ScaleOption::Mode::inverse_sqrt_head_width;
      break;
    case 1:
      options.scale.mode = attn::ScaleOption::Mode::none;
      break;
    default:
      options.scale.mode = attn::ScaleOption::Mode::factor;
      options.scale.factor = make_double(data);
  }
  options.normalization =
      data.PickValueInArray({attn::Normalization::softmax, attn::Normalization::softmax,
                             attn::Normalization::naive_softmax, attn::Normalization::sum});
  options.mask.causal = data.ConsumeBool();
  const auto mask_size = [&] {
    switch (data.ConsumeIntegralInRange(0, 7)) {
      case 0:
        return data.ConsumeIntegralInRange(-3L, -1L);
      case 1:
        return LONG_MAX;
      case 2:
      case 3:
        return 0L;
      default:
        return data.ConsumeIntegralInRange(1L, 2 * kMaxSize);
    }
  };
  options.mask.window = mask_size();
  options.mask.sinks = mask_size();
  switch (data.ConsumeIntegralInRange(0, allow_sinusoidal ? 4 : 3)) {
    case 0:
      break;
    case 1:
      options.positional.type = attn::PositionalType::alibi;
      if (data.ConsumeBool()) {
        const long count = data.ConsumeBool() ? heads : data.ConsumeIntegralInRange(0L, 5L);
        for (long h = 0; h < std::max(0L, count); ++h) {
          options.positional.slopes.push_back(data.ConsumeBool()
                                                  ? data.ConsumeFloatingPointInRange(0.0f, 1.0f)
                                                  : static_cast<float>(make_double(data)));
        }
      }
      break;
    case 2:
    case 3:
      options.positional.type = attn::PositionalType::rope;
      options.positional.base = data.ConsumeBool() ? 10000.0 : make_double(data);
      options.positional.pairing =
          data.ConsumeBool() ? attn::RopePairing::half : attn::RopePairing::interleaved;
      break;
    default:
      options.positional.type = attn::PositionalType::sinusoidal;
  }
  options.kernel = data.PickValueInArray(
      {attn::Kernel::automatic, attn::Kernel::materialized, attn::Kernel::flash});
  return options;
}

std::string describe_options(const attn::AttentionOptions& options) {
  std::string text = "heads " + std::to_string(options.heads) + " kvHeads " +
                     (options.kv_heads ? std::to_string(*options.kv_heads) : "-") + " " +
                     attn::to_string(options.normalization) + " " + describe_mask(options.mask) +
                     " scale mode " + std::to_string(int(options.scale.mode)) + " " +
                     number(options.scale.factor) + " " + attn::to_string(options.positional.type);
  if (options.positional.type == attn::PositionalType::rope)
    text += " base " + number(options.positional.base);
  for (float slope : options.positional.slopes) text += " slope " + number(slope);
  return text + " kernel " + attn::to_string(options.kernel);
}

bool all_finite(const attn::Matrix& matrix) {
  return std::all_of(matrix.begin(), matrix.end(),
                     [](float value) { return std::isfinite(value); });
}

std::string where(const char* what, long h, long i, long j = -1) {
  return std::string(what) + " head " + std::to_string(h) + " row " + std::to_string(i) +
         (j >= 0 ? " key " + std::to_string(j) : "");
}

// ---- invariants ----------------------------------------------------------------------------

// The largest rounding error any score of head h may carry: each product q·scale·k adds
// about one float ulp of its own size, and ALiBi adds slope·distance.
double score_rounding_error(const attn::Matrix& q, const attn::Matrix& k,
                            const attn::AttentionOptions& options, long h, long dh) {
  const long g = h * options.kv_heads.value_or(options.heads) / options.heads;  // k's head
  const double scale = std::fabs(attn::score_scale(options.scale, dh));
  // ‖q_i‖·‖k_j‖ bounds Σ|q_t·k_t| before and after a RoPE rotation (which keeps norms).
  const auto largest_norm = [&](const attn::Matrix& x, long head) {
    double largest = 0.0;
    for (std::size_t i = 0; i < x.shape(0); ++i) {
      double squares = 0.0;
      for (long t = 0; t < dh; ++t) squares += double(x(i, head * dh + t)) * x(i, head * dh + t);
      largest = std::max(largest, std::sqrt(squares));
    }
    return largest;
  };
  const double worst = largest_norm(q, h) * largest_norm(k, g) * scale;
  double slope = 0.0;
  if (options.positional.type == attn::PositionalType::alibi) {
    slope =
        options.positional.slopes.empty() ? 1.0 : std::fabs(double(options.positional.slopes[h]));
  }
  // RoPE rotates in float: the rotated entries are off by an ulp of the row's norm.
  const double rope = options.positional.type == attn::PositionalType::rope ? 4.0 : 1.0;
  return (rope * (2.0 * dh + 8.0) * worst + slope * 4.0 * kMaxSize) * FLT_EPSILON;
}

double largest_magnitude(const attn::Matrix& matrix, long first_col, long cols) {
  double largest = 0.0;
  for (std::size_t i = 0; i < matrix.shape(0); ++i) {
    for (long t = first_col; t < first_col + cols; ++t)
      largest = std::max(largest, std::fabs(double(matrix(i, t))));
  }
  return largest;
}

// v holds kv_heads heads; query head h's context is read from v's head ⌊h·kv_heads/heads⌋.
void compare_contexts(const attn::Matrix& a, const attn::Matrix& b, const attn::Matrix& v,
                      long heads, long kv_heads, const char* what) {
  expect(a.shape() == b.shape(), std::string(what) + ": context shapes differ");
  const long dvh = static_cast<long>(v.shape(1)) / kv_heads;
  for (long h = 0; h < heads; ++h) {
    const long g = h * kv_heads / heads;
    const double tolerance = kContextTolerance * largest_magnitude(v, g * dvh, dvh) + 1e-30;
    for (std::size_t i = 0; i < a.shape(0); ++i) {
      for (long t = h * dvh; t < (h + 1) * dvh; ++t) {
        const double difference = std::fabs(double(a(i, t)) - double(b(i, t)));
        if (!(difference <= tolerance)) {
          broken(std::string(what) + ": context[" + std::to_string(i) + "][" + std::to_string(t) +
                 "] " + std::to_string(a(i, t)) + " vs " + std::to_string(b(i, t)) +
                 ", tolerance " + std::to_string(tolerance));
        }
      }
    }
  }
}

// What every successful attention call guarantees (README "API", wasm/attention.d.ts), checked on `result`.
void check_attention(const attn::Matrix& q, const attn::Matrix& k, const attn::Matrix& v,
                     const attn::AttentionOptions& options, const attn::AttentionResult& result) {
  expect(all_finite(q) && all_finite(k) && all_finite(v),
         "a call with a non-finite input succeeded");
  const long n = static_cast<long>(q.shape(0)), m = static_cast<long>(k.shape(0)),
             heads = options.heads, kv_heads = options.kv_heads.value_or(heads);
  expect(heads >= 1 && kv_heads >= 1 && heads % kv_heads == 0 && q.shape(1) % heads == 0 &&
             k.shape(1) == kv_heads * (q.shape(1) / heads) && v.shape(1) % kv_heads == 0,
         "heads or kvHeads that do not fit q, k and v succeeded");
  // H query heads, each as wide in the context as one key/value head of v.
  expect(result.context.shape(0) == q.shape(0) &&
             result.context.shape(1) == heads * (v.shape(1) / kv_heads),
         "context shape");
  expect(result.kernel_used != attn::Kernel::automatic, "kernel_used is automatic");
  const bool softmax = options.normalization == attn::Normalization::softmax;
  if (softmax) expect(all_finite(result.context), "softmax: a context entry is not finite");

  if (result.kernel_used == attn::Kernel::flash) {
    expect(result.scores.empty() && result.weights.empty(), "flash returned scores or weights");
    return;
  }
  expect(static_cast<long>(result.scores.size()) == heads &&
             static_cast<long>(result.weights.size()) == heads,
         "materialised: one scores and one weights matrix per head");
  for (long h = 0; h < heads; ++h) {
    const attn::Matrix& scores = result.scores[h];
    const attn::Matrix& weights = result.weights[h];
    expect(scores.shape(0) == q.shape(0) && scores.shape(1) == k.shape(0), "scores shape");
    expect(weights.shape() == scores.shape(), "weights shape");
    for (long i = 0; i < n; ++i) {
      const attn::VisibleKeys visible = attn::visible_keys(options.mask, i, n, m);
      double total = 0.0;
      for (long j = 0; j < m; ++j) {
        if (!visible.contains(j)) {
          expect(scores(i, j) == -std::numeric_limits<float>::infinity(),
                 where("a masked score is not -Infinity:", h, i, j));
          if (softmax)
            expect(weights(i, j) == 0.0f, where("softmax: a masked key has weight", h, i, j));
          continue;
        }
        if (!softmax) continue;
        const float weight = weights(i, j);
        expect(
            std::isfinite(weight) && weight >= 0.0f && weight <= 1.0f + 1e-6f,
            where("softmax: a weight is not in [0, 1]:", h, i, j) + " = " + std::to_string(weight));
        total += weight;
      }
      if (!softmax) continue;
      if (visible.empty()) {
        expect(total == 0.0, where("softmax: a row without visible keys has weights", h, i));
      } else {
        expect(std::fabs(total - 1.0) <= kRowSumTolerance,
               where("softmax: a row's weights do not sum to 1:", h, i) + " sum " +
                   std::to_string(total));
      }
    }
  }
}

// Whether rows [first_row, first_row + part.rows) and columns [first_col, first_col +
// part.cols) of `whole` hold exactly the numbers of `part`, bit for bit (any NaN equal to any NaN).
bool same_block(const attn::Matrix& whole, std::size_t first_row, std::size_t first_col,
                const attn::Matrix& part) {
  for (std::size_t i = 0; i < part.shape(0); ++i) {
    for (std::size_t t = 0; t < part.shape(1); ++t) {
      const float a = whole(first_row + i, first_col + t), b = part(i, t);
      if (std::isnan(a) && std::isnan(b)) continue;
      if (std::memcmp(&a, &b, sizeof a) != 0) return false;
    }
  }
  return true;
}

// A part of a call that succeeded (rows and heads the input chooses) succeeds too, with
// exactly the whole call's numbers for its rows and heads.
void check_part(FuzzedDataProvider& data, const attn::Matrix& q, const attn::Matrix& k,
                const attn::Matrix& v, const attn::AttentionOptions& options,
                const attn::AttentionResult& whole) {
  const long n = static_cast<long>(q.shape(0)), heads = options.heads;
  const long first_row = data.ConsumeIntegralInRange(0L, n - 1);
  const long first_head = data.ConsumeIntegralInRange(0L, heads - 1);
  attn::AttentionOptions part_options = options;
  part_options.part.rows = attn::Range{first_row, data.ConsumeIntegralInRange(first_row + 1, n)};
  part_options.part.heads =
      attn::Range{first_head, data.ConsumeIntegralInRange(first_head + 1, heads)};
  attn::AttentionResult part;
  try {
    part = attn::attention(q, k, v, part_options);
  } catch (const attn::InvalidArgument& error) {
    broken(std::string("the whole call succeeded but a part of it failed: ") + error.what());
  }
  const std::size_t dvh = whole.context.shape(1) / heads, rows = part_options.part.rows->begin;
  expect(part.kernel_used == whole.kernel_used, "a part chose another kernel");
  expect(same_block(whole.context, rows, first_head * dvh, part.context),
         "a part's context differs from the whole call's (rows " + std::to_string(rows) + " to " +
             std::to_string(part_options.part.rows->end) + ", heads " + std::to_string(first_head) +
             " to " + std::to_string(part_options.part.heads->end) + ")");
  for (std::size_t h = 0; h < part.scores.size(); ++h) {
    expect(same_block(whole.scores[first_head + h], rows, 0, part.scores[h]) &&
               same_block(whole.weights[first_head + h], rows, 0, part.weights[h]),
           where("a part's scores or weights differ from the whole call's:", first_head + h, 0));
  }
}

// ---- the calls -----------------------------------------------------------------------------

void fuzz_attention(FuzzedDataProvider& data) {
  const long heads = data.ConsumeIntegralInRange(0, 7) == 0 ? data.ConsumeIntegralInRange(-1L, 9L)
                                                            : data.ConsumeIntegralInRange(1L, 4L);
  const long n = make_size(data), m = make_size(data);
  // Key/value heads: as many as the heads (not given), a divisor of them (1: multi-query),
  // or any count, which must fail unless it divides the heads.
  std::optional<long> kv_heads;
  switch (data.ConsumeIntegralInRange(0, 3)) {
    case 1:
      if (heads >= 1) {
        kv_heads = data.ConsumeIntegralInRange(1L, heads);
        while (heads % *kv_heads != 0) --*kv_heads;
      }
      break;
    case 2:
      kv_heads = 1;
      break;
    case 3:
      kv_heads = data.ConsumeIntegralInRange(-1L, 9L);
      break;
  }
  const long kv_count = kv_heads.value_or(heads);
  const bool fitting = data.ConsumeBool() && heads >= 1 && kv_count >= 1;
  const long dh = fitting ? data.ConsumeIntegralInRange(1L, kMaxSize / 4) : 0;
  const long dq = fitting ? heads * dh : make_size(data);
  const long dk = fitting ? kv_count * dh : kv_heads ? make_size(data) : dq;
  const long dv =
      fitting ? kv_count * data.ConsumeIntegralInRange(1L, kMaxSize / 4) : make_size(data);
  if (n < 0 || m < 0 || dq < 0 || dk < 0 || dv < 0) return;  // shapes are size_t: no negative sizes
  attn::AttentionOptions options = make_options(data, heads, false);
  options.kv_heads = kv_heads;
  const attn::Matrix q = make_matrix(data, n, dq), k = make_matrix(data, m, dk),
                     v = make_matrix(data, m, dv);

  describe_call = [&] {
    return "attention n " + std::to_string(n) + " m " + std::to_string(m) + " dq " +
           std::to_string(dq) + " dk " + std::to_string(dk) + " dv " + std::to_string(dv) + ", " +
           describe_options(options) + ", largest |q| " + number(largest_magnitude(q, 0, dq)) +
           " |k| " + number(largest_magnitude(k, 0, dk)) + " |v| " +
           number(largest_magnitude(v, 0, dv));
  };
  attn::AttentionResult result;
  try {
    result = attn::attention(q, k, v, options);
  } catch (const attn::InvalidArgument&) {
    return;
  }
  check_attention(q, k, v, options, result);
  check_part(data, q, k, v, options, result);
  if (result.kernel_used != attn::Kernel::materialized) return;

  // The same call with the flash kernel, and the reference, agree where the scores are well
  // conditioned (softmax only: the teaching modes return whatever their arithmetic gives).
  attn::AttentionOptions flash_options = options;
  flash_options.kernel = attn::Kernel::flash;
  attn::AttentionResult flash;
  try {
    flash = attn::attention(q, k, v, flash_options);
  } catch (const attn::InvalidArgument& error) {
    broken(std::string("materialised succeeded but flash failed: ") + error.what());
  }
  check_attention(q, k, v, flash_options, flash);
  if (options.normalization != attn::Normalization::softmax) return;
  const long head_width = dq / heads;
  for (long h = 0; h < heads; ++h) {
    if (!(score_rounding_error(q, k, options, h, head_width) <= kConditionLimit)) return;
  }
  compare_contexts(flash.context, result.context, v, heads, kv_count, "flash vs materialised");
  compare_contexts(attn::reference::attention(q, k, v, options).context, result.context, v, heads,
                   kv_count, "reference vs materialised");
}

void fuzz_self_attention(FuzzedDataProvider& data) {
  const long n = make_size(data), d_in = make_size(data);
  const long heads = data.ConsumeIntegralInRange(1L, 4L);
  if (n < 0 || d_in < 0) return;
  attn::AttentionOptions options = make_options(data, heads, true);
  // Sometimes fewer key/value heads (a divisor of the heads), for wk and wv.
  if (data.ConsumeBool()) {
    long kv_heads = data.ConsumeIntegralInRange(1L, heads);
    while (heads % kv_heads != 0) --kv_heads;
    options.kv_heads = kv_heads;
  }
  const long kv_heads = options.kv_heads.value_or(heads);
  const attn::Matrix x = make_matrix(data, n, d_in);
  attn::Projections projections;
  // A projection of `rows` rows and, mostly, a whole number of `group` heads' columns
  // (sometimes of other counts, which the core must refuse).
  const auto projection = [&](long rows, long group) {
    const long cols =
        data.ConsumeBool() ? group * data.ConsumeIntegralInRange(1L, 8L) : make_size(data);
    if (data.ConsumeIntegralInRange(0, 15) == 0) rows = make_size(data);
    return make_matrix(data, std::max(0L, rows), std::max(0L, cols));
  };
  const int given = data.ConsumeIntegralInRange(0, 3);  // 0: none, 3: all, else a partial set
  if (given >= 1) projections.wq = projection(d_in, heads);
  if (given >= 2) {
    projections.wk = given == 3 && kv_heads == heads && data.ConsumeBool()
                         ? *projections.wq
                         : projection(d_in, kv_heads);
  }
  if (given == 3) projections.wv = projection(d_in, kv_heads);
  if (data.ConsumeBool()) {
    // The context is H heads as wide as one of v's key/value heads.
    const long context_width =
        given == 3 ? heads * (static_cast<long>(projections.wv->shape(1)) / kv_heads) : d_in;
    projections.wo = projection(context_width, 1);
    if (data.ConsumeBool()) {
      const long size =
          data.ConsumeBool() ? static_cast<long>(projections.wo->shape(1)) : make_size(data);
      const attn::Matrix bias = make_matrix(data, 1, std::max(0L, size));
      projections.bo = attn::Vector::from_shape({bias.size()});
      std::copy(bias.begin(), bias.end(), projections.bo->begin());
    }
  }
  describe_call = [&] {
    const auto shape = [](const std::optional<attn::Matrix>& w) {
      return w ? attn::shape_string(*w) : std::string("-");
    };
    return "self_attention x " + attn::shape_string(x) + " wq " + shape(projections.wq) + " wk " +
           shape(projections.wk) + " wv " + shape(projections.wv) + " wo " + shape(projections.wo) +
           " bo " + (projections.bo ? std::to_string(projections.bo->size()) : "-") + ", " +
           describe_options(options) + ", largest |x| " + number(largest_magnitude(x, 0, d_in));
  };
  attn::SelfAttentionResult result;
  try {
    result = attn::self_attention(x, projections, options);
  } catch (const attn::InvalidArgument&) {
    return;
  }
  attn::AttentionOptions inner = options;
  if (inner.positional.type == attn::PositionalType::sinusoidal) inner.positional = {};
  check_attention(result.q, result.k, result.v, inner, result.attention);
  expect(result.output.shape(0) == x.shape(0), "self_attention: output rows");
  expect(result.output.shape(1) ==
             (projections.wo ? projections.wo->shape(1) : result.attention.context.shape(1)),
         "self_attention: output columns");
  if (!projections.wq) {
    expect(result.q.shape() == x.shape() && result.k == result.q && result.v == result.q,
           "self_attention without projections: q, k and v are not all x");
  }
}

void fuzz_walkthrough(FuzzedDataProvider& data) {
  const long n = make_size(data), d = make_size(data);
  if (n < 0 || d < 0) return;
  const long query = data.ConsumeIntegralInRange(-2L, kMaxSize + 2);
  const double scale = make_double(data);
  const attn::Matrix x = make_matrix(data, n, d);
  describe_call = [&] {
    return "walk_through_query x " + attn::shape_string(x) + " query " + std::to_string(query) +
           " scale " + number(scale) + ", largest |x| " + number(largest_magnitude(x, 0, d));
  };
  attn::QueryWalkthrough walk;
  try {
    walk = attn::walk_through_query(x, query, scale);
  } catch (const attn::InvalidArgument&) {
    return;
  }
  expect(all_finite(x) && std::isfinite(scale) && query >= 0 && query < n,
         "walkthrough accepted a bad input");
  expect(walk.scores.size() == x.shape(0) && walk.softmax_weights.size() == x.shape(0) &&
             walk.naive_softmax_weights.size() == x.shape(0) &&
             walk.sum_weights.size() == x.shape(0) && walk.context.size() == x.shape(1),
         "walkthrough: sizes");
  // The stable softmax stays finite and sums to 1 whatever the scale (its teaching point).
  double total = 0.0;
  for (float weight : walk.softmax_weights) {
    expect(std::isfinite(weight) && weight >= 0.0f && weight <= 1.0f + 1e-6f,
           "walkthrough: a softmax weight is not in [0, 1]: " + std::to_string(weight));
    total += weight;
  }
  expect(std::fabs(total - 1.0) <= kRowSumTolerance,
         "walkthrough: softmax weights sum to " + std::to_string(total));
}

attn::MaskOptions make_mask(FuzzedDataProvider& data) {
  attn::MaskOptions mask;
  mask.causal = data.ConsumeBool();
  mask.window =
      data.ConsumeIntegralInRange(0, 3) == 0 ? data.ConsumeIntegralInRange(-2L, 2 * kMaxSize) : 0;
  mask.sinks = data.ConsumeIntegralInRange(-2L, 8L);
  return mask;
}

// A distribution over positions: n finite values ≥ 0 that sum to 1.
void check_distribution(const std::vector<double>& values, long n, const char* what) {
  expect(static_cast<long>(values.size()) == n, std::string(what) + ": size");
  double total = 0.0;
  for (double value : values) {
    expect(std::isfinite(value) && value >= -1e-12,
           std::string(what) + ": a value is negative or not finite: " + std::to_string(value));
    total += value;
  }
  expect(std::fabs(total - 1.0) <= 1e-9 * n + 1e-9,
         std::string(what) + ": sums to 1 + " + number(total - 1.0));
}

// The lab's position model without its positional bias: n, layers, residual and mask, read in
// that order by both lab targets.
attn::lab::PositionModel make_position_model(FuzzedDataProvider& data) {
  attn::lab::PositionModel model;
  model.n = make_size(data);
  model.layers = data.ConsumeIntegralInRange(-1L, 6L);
  model.residual =
      data.ConsumeBool() ? data.ConsumeFloatingPointInRange(0.0, 1.0) : make_double(data);
  model.mask = make_mask(data);
  return model;
}

void fuzz_rollout(FuzzedDataProvider& data) {
  attn::lab::PositionModel model = make_position_model(data);
  model.bias.type = attn::PositionalType::alibi;
  model.bias.slope =
      data.ConsumeBool() ? data.ConsumeFloatingPointInRange(0.0, 2.0) : make_double(data);
  describe_call = [&] {
    return "rollout n " + std::to_string(model.n) + " layers " + std::to_string(model.layers) +
           " residual " + number(model.residual) + " " + describe_mask(model.mask) + " slope " +
           number(model.bias.slope);
  };
  std::vector<double> influence;
  try {
    influence = attn::lab::rollout(model);
  } catch (const attn::InvalidArgument&) {
    return;
  }
  check_distribution(influence, model.n, "rollout");
}

void fuzz_propagation(FuzzedDataProvider& data) {
  attn::lab::PositionModel model = make_position_model(data);
  switch (data.ConsumeIntegralInRange(0, 2)) {
    case 0:
      break;
    case 1:
      model.bias.type = attn::PositionalType::alibi;
      model.bias.slope =
          data.ConsumeBool() ? data.ConsumeFloatingPointInRange(0.0, 4.0) : make_double(data);
      break;
    default:
      model.bias.type = attn::PositionalType::rope;
      model.bias.base = data.ConsumeBool() ? 10000.0 : make_double(data);
      model.bias.head_width = data.ConsumeIntegralInRange(-2L, 128L);
      model.bias.strength =
          data.ConsumeBool() ? data.ConsumeFloatingPointInRange(0.0, 12.0) : make_double(data);
  }
  model.position_scales.assign(data.ConsumeIntegralInRange<std::size_t>(0, 4), 1.0);
  for (double& scale : model.position_scales)
    scale = data.ConsumeBool() ? data.ConsumeFloatingPointInRange(0.5, 2.0) : make_double(data);

  attn::lab::Content content;
  if (data.ConsumeBool() && model.n > 0) {
    content.score.resize(model.n);
    // Content scores within ±kContentRange: key weights exp(score - max) spanning e^80, which
    // the fast path's running sums must survive (they sum ill-conditioned intervals term by
    // term; before, spans past e^16 lost digits).
    for (double& score : content.score)
      score = data.ConsumeFloatingPointInRange(-kContentRange, kContentRange);
    content.first_content_row = data.ConsumeIntegralInRange(0L, model.n);
    content.calibrated_final_row = data.ConsumeBool();
  }
  const attn::lab::RolloutStart start = data.ConsumeBool() ? attn::lab::RolloutStart::final_token
                                                           : attn::lab::RolloutStart::every_token;
  describe_call = [&] {
    std::string text =
        "position model n " + std::to_string(model.n) + " layers " + std::to_string(model.layers) +
        " residual " + number(model.residual) + " " + describe_mask(model.mask) + " bias type " +
        std::to_string(int(model.bias.type)) + " slope " + number(model.bias.slope) + " base " +
        number(model.bias.base) + " head width " + std::to_string(model.bias.head_width) +
        " strength " + number(model.bias.strength) + " scales";
    for (double scale : model.position_scales) text += " " + number(scale);
    text += ", content " + std::to_string(content.score.size()) + " from row " +
            std::to_string(content.first_content_row) +
            (content.calibrated_final_row ? " calibrated" : "");
    return text +
           (start == attn::lab::RolloutStart::final_token ? ", final token" : ", every token");
  };

  if (data.ConsumeBool()) {
    attn::lab::PositionCurve curve;
    try {
      curve = attn::lab::position_curve(model, start);
    } catch (const attn::InvalidArgument&) {
      return;
    }
    check_distribution(curve.values, model.n, "position_curve");
    return;
  }
  std::vector<double> fast, direct;
  try {
    fast = attn::lab::propagate(model, content, start, attn::lab::KernelPath::fast);
  } catch (const attn::InvalidArgument&) {
    return;
  }
  check_distribution(fast, model.n, "propagate (fast)");
  try {
    direct = attn::lab::propagate(model, content, start, attn::lab::KernelPath::direct);
  } catch (const attn::InvalidArgument& error) {
    broken(std::string("propagate: the fast path succeeded, the direct one failed: ") +
           error.what());
  }
  check_distribution(direct, model.n, "propagate (direct)");
  for (long j = 0; j < model.n; ++j) {
    expect(std::fabs(fast[j] - direct[j]) <= 1e-6,
           "propagate: fast and direct differ at " + std::to_string(j) + ": " +
               std::to_string(fast[j]) + " vs " + std::to_string(direct[j]));
  }
}

void fuzz_memory(FuzzedDataProvider& data) {
  attn::MemoryQuery query;
  query.n = data.ConsumeIntegral<long>();
  query.m = data.ConsumeIntegral<long>();
  query.heads = data.ConsumeIntegral<long>();
  query.bytes_per_element = data.ConsumeIntegral<long>();
  query.kernel = data.ConsumeBool() ? attn::Kernel::flash : attn::Kernel::materialized;
  double bytes = 0;
  try {
    bytes = attn::attention_memory(query);
  } catch (const attn::InvalidArgument&) {
    return;
  }
  expect(query.n >= 1 && query.m >= 1 && query.heads >= 1 && query.bytes_per_element >= 1,
         "attention_memory accepted a size below 1");
  expect(std::isfinite(bytes) && bytes >= 1.0, "attention_memory: " + std::to_string(bytes));
  if (query.kernel == attn::Kernel::materialized) {
    const double expected =
        double(query.heads) * double(query.n) * double(query.m) * double(query.bytes_per_element);
    expect(std::fabs(bytes - expected) <= 1e-12 * expected,
           "attention_memory: materialised bytes are not heads·n·m·bytes");
  }
}

void fuzz_generator(FuzzedDataProvider& data) {
  const std::uint64_t seed = data.ConsumeIntegral<std::uint64_t>();
  const long rows = make_size(data), cols = make_size(data);
  const bool bias = data.ConsumeBool();
  attn::TorchGenerator first(seed), second(seed);
  try {
    if (data.ConsumeBool()) {
      const attn::Matrix values = first.rand(rows, cols);
      expect(rows >= 0 && cols >= 0, "rand accepted a negative size");
      expect(values.shape(0) == std::size_t(rows) && values.shape(1) == std::size_t(cols),
             "rand: shape");
      for (float value : values)
        expect(value >= 0.0f && value < 1.0f, "rand: a value outside [0, 1)");
      second.skip(std::uint64_t(rows) * cols);
    } else {
      const attn::LinearParameters layer = first.linear(rows, cols, bias);
      expect(rows >= 1 && cols >= 0, "linear accepted a bad size");
      const float bound = static_cast<float>(1.0 / std::sqrt(double(rows)));
      for (float value : layer.weight)
        expect(std::fabs(value) <= bound, "linear: a weight outside ±1/√in");
      expect(layer.bias.has_value() == bias, "linear: bias presence");
      if (layer.bias) {
        for (float value : *layer.bias)
          expect(std::fabs(value) <= bound, "linear: a bias outside ±1/√in");
      }
      second.skip(std::uint64_t(rows) * cols + (bias ? cols : 0));
    }
  } catch (const attn::InvalidArgument&) {
    return;
  }
  // Skipping as many draws as the call consumed leaves both streams at the same place.
  expect(first.draws() == second.draws(), "generator: draws counted differently from skip");
  expect(first.rand(2, 3) == second.rand(2, 3),
         "generator: skip does not match the draws of a call");
}

void fuzz_rope_decay(FuzzedDataProvider& data) {
  const long head_width = data.ConsumeIntegralInRange(-2L, 2 * kMaxSize);
  const double base =
      data.ConsumeBool() ? data.ConsumeFloatingPointInRange(1.0, 1e6) : make_double(data);
  const long max_distance = data.ConsumeIntegralInRange(-2L, 4 * kMaxSize);
  describe_call = [&] {
    return "rope_decay_bound head width " + std::to_string(head_width) + " base " + number(base) +
           " max distance " + std::to_string(max_distance);
  };
  std::vector<double> bound;
  try {
    bound = attn::rope_decay_bound(head_width, base, max_distance);
  } catch (const attn::InvalidArgument&) {
    return;
  }
  expect(head_width >= 2 && head_width % 2 == 0 && base > 1.0 && max_distance >= 0,
         "rope_decay_bound: bad input accepted");
  expect(static_cast<long>(bound.size()) == max_distance + 1, "rope_decay_bound: size");
  // |S_j| ≤ j, so the bound is at most (1/(dh/2))·Σ_{j=1}^{dh/2} j = (dh/2 + 1)/2, reached at 0.
  const double ceiling = (head_width / 2 + 1) / 2.0;
  expect(std::fabs(bound[0] - ceiling) <= 1e-9 * ceiling,
         "rope_decay_bound: distance 0 is not (dh/2 + 1)/2");
  for (double value : bound) {
    expect(std::isfinite(value) && value >= 0.0 && value <= ceiling * (1 + 1e-12),
           "rope_decay_bound: out of range");
  }
  // at drawn distances, the whole bound's entries; a distance past max_distance may be drawn
  std::vector<long> distances(data.ConsumeIntegralInRange(1, 4));
  for (long& distance : distances) distance = data.ConsumeIntegralInRange(0L, max_distance + 1);
  std::vector<double> sampled;
  try {
    sampled = attn::rope_decay_bound(head_width, base, distances);
  } catch (const attn::InvalidArgument&) {
    return;
  }
  for (std::size_t i = 0; i < distances.size(); ++i) {
    expect(distances[i] > max_distance || sampled[i] == bound[distances[i]],
           "rope_decay_bound: a distance's bound differs from the whole bound's");
  }
}

// Block pooling of a rows × cols region (row stride `stride`) of arbitrary floats, a share of
// them masked (−∞), in blocks of any size: each block against the maximum or the mean, in
// double precision, of its visible cells (the maximum bit for bit, −0 below +0; the mean within
// 1e-6 of its largest magnitude); masked blocks and NaN as block_pooling.hpp says.
void fuzz_block_pooling(FuzzedDataProvider& data) {
  attn::ScoreRegion region;
  region.rows = make_size(data);
  region.cols = make_size(data);
  region.stride = region.cols + data.ConsumeIntegralInRange(-1L, 4L);
  region.block =
      data.ConsumeIntegralInRange(0, 15) == 0 ? data.ConsumeIntegral<long>() : make_size(data);
  region.mode = data.ConsumeBool() ? attn::BlockPooling::max : attn::BlockPooling::mean;
  const bool valid =
      region.rows >= 1 && region.cols >= 1 && region.block >= 1 && region.stride >= region.cols;
  const long rows = std::max(region.rows, 1L), stride = std::max(region.stride, 1L);
  const attn::Matrix scores = make_matrix(data, rows, stride);
  const attn::Matrix weights = make_matrix(data, rows, stride);
  attn::Matrix masked_scores = scores;
  Xorshift random{data.ConsumeIntegral<std::uint32_t>() | 1u};
  const std::uint32_t masked_share = data.ConsumeIntegralInRange(0u, 4u);  // of 4
  for (float& value : masked_scores) {
    if (random.next() % 4 < masked_share) value = -std::numeric_limits<float>::infinity();
  }
  region.scores = masked_scores.data();
  region.weights = weights.data();
  describe_call = [region] {
    return "pool_blocks " + std::to_string(region.rows) + "×" + std::to_string(region.cols) +
           " stride " + std::to_string(region.stride) + " block " + std::to_string(region.block) +
           " " + attn::to_string(region.mode);
  };
  const long cells = valid ? attn::block_count(region.rows, region.block) *
                                 attn::block_count(region.cols, region.block)
                           : 1;
  std::vector<float> pooled_scores(cells), pooled_weights(cells);
  std::vector<std::uint8_t> masked(cells);
  try {
    attn::pool_blocks(region, pooled_scores.data(), pooled_weights.data(), masked.data());
  } catch (const attn::InvalidArgument&) {
    expect(!valid, "pool_blocks refused a valid region");
    return;
  }
  expect(valid, "pool_blocks accepted a size below 1 or a stride below cols");
  const long cell_cols = attn::block_count(region.cols, region.block);
  const auto same_bits = [](float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; };
  for (long cell = 0; cell < cells; ++cell) {
    const long i0 = (cell / cell_cols) * region.block, j0 = (cell % cell_cols) * region.block;
    std::vector<float> seen_scores, seen_weights;
    for (long i = i0; i < i0 + std::min(region.block, region.rows - i0); ++i) {
      for (long j = j0; j < j0 + std::min(region.block, region.cols - j0); ++j) {
        const float score = region.scores[i * region.stride + j];
        if (score == -std::numeric_limits<float>::infinity()) continue;
        seen_scores.push_back(score);
        seen_weights.push_back(region.weights[i * region.stride + j]);
      }
    }
    const std::string where = "block " + std::to_string(cell);
    expect(masked[cell] == seen_scores.empty(), where + ": masked is not 'no visible cell'");
    if (seen_scores.empty()) {
      expect(pooled_scores[cell] == -std::numeric_limits<float>::infinity() &&
                 same_bits(pooled_weights[cell], 0.0f),
             where + ": a masked block is not −∞ with weight 0");
      continue;
    }
    const auto check = [&](const std::vector<float>& values, float pooled, const char* what) {
      const bool any_nan =
          std::any_of(values.begin(), values.end(), [](float v) { return v != v; });
      if (any_nan) return expect(pooled != pooled, where + ": " + what + " lost a NaN");
      if (region.mode == attn::BlockPooling::max) {
        float largest = values[0];
        for (float v : values) {
          if (v > largest || (v == largest && !std::signbit(v))) largest = v;
        }
        return expect(same_bits(pooled, largest), where + ": " + what + " max " + number(pooled) +
                                                      ", expected " + number(largest));
      }
      double sum = 0.0, largest = 0.0;
      for (float v : values) {
        sum += v;
        largest = std::max(largest, std::fabs(double(v)));
      }
      const double mean = sum / values.size();
      if (!std::isfinite(mean))
        return expect(
            same_bits(pooled, float(mean)) || (pooled != pooled && mean != mean),
            where + ": " + what + " mean " + number(pooled) + ", expected " + number(mean));
      expect(std::fabs(pooled - mean) <= 1e-6 * largest + 1e-37,
             where + ": " + what + " mean " + number(pooled) + ", expected " + number(mean));
    };
    check(seen_scores, pooled_scores[cell], "score");
    check(seen_weights, pooled_weights[cell], "weight");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* bytes, std::size_t size) {
  FuzzedDataProvider data(bytes, size);
  try {
    switch (data.ConsumeIntegralInRange(0, 9)) {
      case 0:
      case 1:
        fuzz_attention(data);
        break;
      case 2:
        fuzz_self_attention(data);
        break;
      case 3:
        fuzz_walkthrough(data);
        break;
      case 4:
        fuzz_rollout(data);
        break;
      case 5:
        fuzz_propagation(data);
        break;
      case 6:
        fuzz_memory(data);
        break;
      case 7:
        fuzz_generator(data);
        break;
      case 8:
        fuzz_rope_decay(data);
        break;
      default:
        fuzz_block_pooling(data);
    }
  } catch (const attn::InvalidArgument& error) {
    broken(std::string("InvalidArgument escaped a check: ") + error.what());
  } catch (const std::exception& error) {
    broken(std::string("a call threw something other than attn::InvalidArgument: ") + error.what());
  }
  return 0;
}
