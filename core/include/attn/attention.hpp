// Scaled dot-product attention, multi-head by column split:
//
//   for each head h: weights_h = normalise(q_h · k_hᵀ · scale + bias_h, masked to -Infinity)
//                    context[:, head h's value columns] = weights_h · v_h
//
// where q_h is columns [h·dh, (h+1)·dh) of q. With as many key/value heads as query heads
// (multi-head attention), k_h and v_h are the same head's columns of k and v; with G < H
// key/value heads (grouped-query attention; G = 1 is multi-query attention), k and v hold G
// heads and query head h reads key/value head g = ⌊h·G/H⌋: k_h = columns [g·dh, (g+1)·dh) of k,
// v_h = columns [g·dvh, (g+1)·dvh) of v.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "attn/mask.hpp"
#include "attn/matrix.hpp"
#include "attn/names.hpp"
#include "attn/normalization.hpp"
#include "attn/positional.hpp"

namespace attn {

enum class Kernel {
  automatic,     // materialise when the matrices fit in kMaterializedBudgetBytes, else flash
  materialized,  // keep the n×m scores and weights of every head
  flash          // tiled online softmax: context only, memory independent of n·m
};

inline constexpr OptionNames<Kernel, 3> kKernelNames{"kernel",
                                                     {{{Kernel::automatic, "auto"},
                                                       {Kernel::materialized, "materialized"},
                                                       {Kernel::flash, "flash"}}}};
constexpr const auto& names_of(Kernel) { return kKernelNames; }

// The positional encodings attention applies: those that act on q and k (self_attention
// also adds the sinusoidal one to its input).
inline constexpr std::array<PositionalType, 3> kAttentionPositionalTypes{
    PositionalType::none, PositionalType::rope, PositionalType::alibi};

struct ScaleOption {
  enum class Mode { inverse_sqrt_head_width, none, factor };
  Mode mode = Mode::inverse_sqrt_head_width;  // default: divide scores by sqrt(dh)
  double factor = 1.0;                        // Mode::factor: multiply scores by this
};

// Whole numbers [begin, end): rows or heads.
struct Range {
  long begin = 0;
  long end = 0;
  long size() const { return end - begin; }
};

// One part of a call: query rows [rows.begin, rows.end) of heads [heads.begin, heads.end)
// (all of them where a range is not given), reading the key/value heads its heads map to. A part gives exactly the numbers of those rows
// and heads in the whole call, the same float operations in the same order: each head's
// columns, positions (query i stays at i + (m - n)), ALiBi slope (of H heads), row blocks
// and key tiles are the whole call's. The whole call's inputs and options are checked, and
// its kernel chosen, as without a part, so that workers can each compute a part of one call
// and join them (wasm/pool.mjs).
struct AttentionPart {
  std::optional<Range> rows;   // of 0..n
  std::optional<Range> heads;  // of 0..H
};

struct AttentionOptions {
  long heads = 1;
  std::optional<long> kv_heads;  // G, the key/value heads: must divide heads; heads when not given
  ScaleOption scale;
  Normalization normalization = Normalization::softmax;
  MaskOptions mask;
  PositionalOptions positional;  // one of kAttentionPositionalTypes
  Kernel kernel = Kernel::automatic;
  AttentionPart part;  // by default the whole call
};

// With a part of n' rows and H' heads, read n' for n and H' for H below.
struct AttentionResult {
  // H matrices n×m, scaled, biased, masked -Infinity; empty for flash or with a HeadSink
  std::vector<Matrix> scores;
  std::vector<Matrix> weights;  // H matrices n×m, rows normalised; empty as scores
  Matrix context;               // n×(H·dvh), the query heads concatenated in head order
  Kernel kernel_used = Kernel::materialized;
};

// Receives each head's scores and weights (n×m, as AttentionResult's) once the materialised
// kernel has computed and checked them, in head order; `head` counts the part's heads from 0.
// The matrices are written again for the next head, so a sink copies what it keeps. With a
// sink the result's scores and weights stay empty, and the call holds one head's matrices
// instead of all H. A call that throws (an overflow in head h) has handed over heads 0..h−1.
// An empty sink is as none.
using HeadSink = std::function<void(long head, const Matrix& scores, const Matrix& weights)>;

// The most a materialised call may return: scores and weights of all heads together (the
// caller holds them all; the call itself, given a HeadSink, one head's).
constexpr std::uint64_t kMaterializedBudgetBytes = std::uint64_t{1} << 30;

// q: n×(H·dh), k: m×(G·dh), v: m×(G·dvh), G = options.kv_heads (H when not given). Throws
// attn::InvalidArgument on bad shapes, non-finite entries, or options that do not fit (for
// example heads not dividing dk, kv_heads not dividing heads, or a part beyond n rows or H heads).
AttentionResult attention(const Matrix& q, const Matrix& k, const Matrix& v,
                          const AttentionOptions& options = {});

// attention, each head's scores and weights handed to `sink` instead of kept (flash has none).
AttentionResult attention(const Matrix& q, const Matrix& k, const Matrix& v,
                          const AttentionOptions& options, const HeadSink& sink);

// The factor every score is multiplied by for heads of width `head_width`.
float score_scale(const ScaleOption& scale, long head_width);

}  // namespace attn
