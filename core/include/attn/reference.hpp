// The clear reference: attention exactly as written in the formulas, in double precision,
// one element at a time. Slow on purpose; the tests hold the fast kernels against it.
#pragma once

#include "attn/attention.hpp"

namespace attn::reference {

// q: n×(H·dh), k: m×(G·dh), v: m×(G·dvh) (G = options.kv_heads, H when not given); same options and result as attn::attention with the
// materialised kernel. Inputs are assumed valid.
AttentionResult attention(const Matrix& q, const Matrix& k, const Matrix& v,
                          const AttentionOptions& options);

// a: rows×depth, b: depth×cols → rows×cols.
Matrix matmul(const Matrix& a, const Matrix& b);

}  // namespace attn::reference
