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

struct Projections {
  std::optional<Matrix> wq;  // d_in×d_out; wq, wk, wv come together or not at all
  std::optional<Matrix> wk;  // d_in×d_out
  std::optional<Matrix> wv;  // d_in×d_v
  std::optional<Matrix> wo;  // d_v×d_model
  std::optional<Vector> bo;  // d_model, only with wo
};

struct SelfAttentionResult {
  AttentionResult attention;
  Matrix q;       // n×d_out
  Matrix k;       // n×d_out
  Matrix v;       // n×d_v
  Matrix output;  // n×d_model with wo, else the context n×d_v
};

// x: n×d_in. options.positional is one of kSelfAttentionPositionalTypes; sinusoidal is added
// to x before projecting. With options.part, q holds the part's rows and heads' columns, k
// and v every row and the heads' columns, output the part's rows; wo needs every head.
SelfAttentionResult self_attention(const Matrix& x, const Projections& projections,
                                   const AttentionOptions& options = {});

}  // namespace attn
