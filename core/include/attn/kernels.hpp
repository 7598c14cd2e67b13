// Hot kernels over contiguous row-major storage, register-blocked so that they vectorise
// (wasm SIMD128 under -msimd128, AVX natively). attn/reference.hpp holds the plain
// version of the same arithmetic; the tests compare the two on random shapes.
#pragma once

#include <cstddef>

#include "attn/mask.hpp"
#include "attn/matrix.hpp"
#include "attn/normalization.hpp"

namespace attn::kernels {

// c (rows×cols, row stride ldc) = a (rows×depth, stride lda) · b (depth×cols, stride ldb),
// or c += a·b when `accumulate`.
void matmul(const float* a, std::size_t lda, const float* b, std::size_t ldb, float* c,
            std::size_t ldc, std::size_t rows, std::size_t depth, std::size_t cols,
            bool accumulate);

// c (rows×cols, row stride ldc) = aᵀ · b, or c += aᵀ·b when `accumulate`, where a is
// depth×rows (stride lda) and b depth×cols (stride ldb): a transposed product without
// forming the transpose (a weight's gradient doutᵀ·x, attention's weightsᵀ·dcontext).
void matmul_transposed_a(const float* a, std::size_t lda, const float* b, std::size_t ldb, float* c,
                         std::size_t ldc, std::size_t rows, std::size_t depth, std::size_t cols,
                         bool accumulate);

// a: rows×depth, b: depth×cols → rows×cols, through matmul. Shapes are assumed to fit.
Matrix multiply(const Matrix& a, const Matrix& b);

// One head of attention: q contiguous and already multiplied by the score scale; k and v
// read in place, the head's columns of the whole matrices (row strides ldk and ldv). q may
// hold some of a call's queries (a part, attn::AttentionPart): its row i is the call's row
// first_row + i of all_rows, at position first_row + i + (m - all_rows).
struct Head {
  const float* q = nullptr;  // n×dh
  const float* k = nullptr;  // m×dh, row stride ldk
  const float* v = nullptr;  // m×dvh, row stride ldv
  long n = 0, m = 0, dh = 0, dvh = 0;
  long first_row = 0, all_rows = 0;
  long ldk = 0, ldv = 0;
  bool alibi = false;
  float alibi_slope = 0.0f;
  MaskOptions mask;
  Normalization normalization = Normalization::softmax;
};

// Materialised head: fills scores (n×m), weights (n×m) and context (n×dvh, row stride ldc).
void attend_materialized(const Head& head, float* scores, float* weights, float* context,
                         std::size_t ldc);

// Tiled online softmax: context (n×dvh, row stride ldc) without storing an n×m matrix.
void attend_flash(const Head& head, float* context, std::size_t ldc);

// Query rows and key columns of one flash tile. Measured in wasm (Zen 4, % of the f32x4 peak,
// the kernel alone, n=1024 / causal / n=256 / 8 heads of 64 at n=512): 64×128 79 / 73 / 77 /
// 73, 32×256 82 / 76 / 79 / 75, 16×512 84 / 80 / 78 / 77, 32×1024 84 / 77 / 78 / 75. Wider
// tiles spread each row's per-tile work (its maximum, the rescaling) over more keys; fewer
// rows keep the causal diagonal's wasted triangle small.
constexpr long kFlashTileRows = 16;
constexpr long kFlashTileCols = 512;

}  // namespace attn::kernels
