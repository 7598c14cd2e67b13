// Self-attention over one sequence x, with or without trainable projections:
//
//   x' = x (+ sinusoidal encoding)        q = x'·Wq, k = x'·Wk, v = x'·Wv   (or q = k = v = x')
//   context = attention(q, k, v)          output = context·Wo + bo          (or context)
#pragma once

#include <array>
#include <optional>

#include "attn/attention.hpp"

namespace attn {

// The positional encodings self_attention takes: attention's, and the sinusoidal one that it
// adds to x before projecting.
inline constexpr std::array<PositionalType, 4> kSelfAttentionPositionalTypes{
    PositionalType::none, PositionalType::rope, PositionalType::alibi, PositionalType::sinusoidal};

// With H query heads and G key/value heads (options.kv_heads, H when not given): d_out = H·dh,
// d_v = G·dvh, and the context H·dvh wide (d_v when G = H).
struct Projections {
  std::optional<Matrix> wq;  // d_in×(H·dh); wq, wk, wv come together or not at all
  std::optional<Matrix> wk;  // d_in×(G·dh)
  std::optional<Matrix> wv;  // d_in×(G·dvh)
  std::optional<Matrix> wo;  // (H·dvh)×d_model
  std::optional<Vector> bo;  // d_model, only with wo
};

struct SelfAttentionResult {
  AttentionResult attention;
  Matrix q;       // n×(H·dh)
  Matrix k;       // n×(G·dh)
  Matrix v;       // n×(G·dvh)
  Matrix output;  // n×d_model with wo, else the context n×(H·dvh)
};

// x: n×d_in. Without projections q = k = v = x, so kv_heads must then be heads.
// options.positional is one of kSelfAttentionPositionalTypes; sinusoidal is added
// to x before projecting. With options.part, q holds the part's rows and heads' columns, k
// and v every row and the columns of the key/value heads those heads read, output the part's rows; wo needs every head.
SelfAttentionResult self_attention(const Matrix& x, const Projections& projections,
                                   const AttentionOptions& options = {});

// self_attention, each head's scores and weights handed to `sink` instead of kept (HeadSink).
SelfAttentionResult self_attention(const Matrix& x, const Projections& projections,
                                   const AttentionOptions& options, const HeadSink& sink);

}  // namespace attn
