// Self-attention over one sequence x, with or without trainable projections:
//
//   x' = x (+ sinusoidal encoding)        q = x'·Wq, k = x'·Wk, v = x'·Wv   (or q = k = v = x')
//   context = attention(q, k, v)          output = context·Wo + bo          (or context)
#pragma once

#include <optional>

#include "attn/attention.hpp"

namespace attn {

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

// x: n×d_in. options.positional may also be sinusoidal, added to x before projecting.
SelfAttentionResult self_attention(const Matrix& x, const Projections& projections,
                                   const AttentionOptions& options = {});

}  // namespace attn
