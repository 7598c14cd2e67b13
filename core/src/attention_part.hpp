// What attention() and self_attention() share to compute a call or a part of it
// (attn::AttentionPart): the checks of the options against the whole call's shape, and the
// computation of a part from its rows and heads of q, k and v.
#pragma once

#include <cstddef>

#include "attn/attention.hpp"

namespace attn::detail {

// The whole call's sizes, and the rows and heads of the part computed (all of them by default).
struct CallShape {
  long n = 0, m = 0;  // queries and keys of the whole call
  long dk = 0, dv = 0;
  Range rows;   // of 0..n
  Range heads;  // of 0..H

  bool whole_rows() const { return rows.begin == 0 && rows.end == n; }
};

// Checks the options that need no numbers against a call of n queries and m keys, dk columns
// of q and k and dv of v (heads dividing them, scale, mask, positions, the part); returns the
// call's shape. Throws attn::InvalidArgument.
CallShape check_options(const AttentionOptions& options, long n, long m, long dk, long dv);

// The part `shape` of a call whose inputs have been checked. q: the part's rows and its
// heads' columns of the whole call's q (before RoPE); k, v: every row and the part's heads'
// columns. Returns the part's scores and weights (a matrix per head of the part) and
// context (its rows × its heads' value columns).
AttentionResult attend(const Matrix& q, const Matrix& k, const Matrix& v,
                       const AttentionOptions& options, const CallShape& shape);

// Rows `rows` and columns [first_col, first_col + cols) of x, as a contiguous matrix.
Matrix block(const Matrix& x, Range rows, std::size_t first_col, std::size_t cols);

}  // namespace attn::detail
