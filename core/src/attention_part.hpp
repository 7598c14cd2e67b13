// What attention() and self_attention() share to compute a call or a part of it
// (attn::AttentionPart): the checks of the options against the whole call's shape, and the
// computation of a part from its rows and heads of q, k and v.
#pragma once

#include <cstddef>

#include "attn/attention.hpp"

namespace attn::detail {

// The whole call's sizes, and the rows and heads of the part computed (all of them by default).
struct CallShape {
  long n = 0, m = 0;                 // queries and keys of the whole call
  long dk = 0, dv = 0;               // columns of q (H heads) and of v (G heads)
  long all_heads = 1, kv_heads = 1;  // H and G of the whole call
  Range rows;                        // of 0..n
  Range heads;                       // of 0..H
  Range kv_range;                    // of 0..G: the key/value heads the part's query heads read

  bool whole_rows() const { return rows.begin == 0 && rows.end == n; }
  // The key/value head (of 0..G) that query head h (of 0..H) reads: ⌊h·G/H⌋.
  long kv_head_of(long h) const { return h * kv_heads / all_heads; }
};

// The names the shape errors give the matrices whose columns make q, k and v: attention's
// q, k, v, or self_attention's wq, wk, wv.
struct ColumnNames {
  const char* q;
  const char* k;
  const char* v;
};

// Checks the options that need no numbers against a call of n queries and m keys, dq columns
// of q, dk of k and dv of v (heads and kv_heads dividing them, scale, mask, positions, the
// part); returns the call's shape. Throws attn::InvalidArgument.
CallShape check_options(const AttentionOptions& options, long n, long m, long dq, long dk, long dv,
                        const ColumnNames& names = {"q", "k", "v"});

// The part `shape` of a call whose inputs have been checked. q: the part's rows and its
// heads' columns of the whole call's q (before RoPE); k, v: every row and the columns of the
// key/value heads shape.kv_range. Returns the part's scores and weights (a matrix per head
// of the part; handed to `sink` instead when it is not null) and context (its rows × its heads'
// value columns).
AttentionResult attend(const Matrix& q, const Matrix& k, const Matrix& v,
                       const AttentionOptions& options, const CallShape& shape,
                       const HeadSink* sink = nullptr);

// Rows `rows` and columns [first_col, first_col + cols) of x, as a contiguous matrix.
Matrix block(const Matrix& x, Range rows, std::size_t first_col, std::size_t cols);

}  // namespace attn::detail
