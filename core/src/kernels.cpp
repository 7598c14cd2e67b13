#include "attn/kernels.hpp"

#include <algorithm>
#include <vector>

#include "row_ops.hpp"
#include "simd.hpp"

namespace attn::kernels {

namespace {

// The register block of the matmul: kBlockRows rows of a times kBlockVectors SIMD
// vectors of columns of b, all accumulators in registers. Measured here (n=1024, d=64):
// wasm SIMD128 is fastest with 2×4 f32x4 (V8 spills beyond about eight live vectors;
// the flash kernel ran 4% faster than with 4×2, 3×4 and 6×2 ran 30% slower), AVX-512
// with 8×2 zmm; AVX2 gets 4×2 ymm.
#if defined(__AVX512F__)
constexpr std::size_t kBlockRows = 8, kBlockVectors = 2;
#elif defined(__wasm_simd128__)
constexpr std::size_t kBlockRows = 2, kBlockVectors = 4;
#else
constexpr std::size_t kBlockRows = 4, kBlockVectors = 2;
#endif
using simd::kLanes;
using simd::load;
using simd::store;
using simd::Vec;
constexpr std::size_t kBlockCols = kLanes * kBlockVectors;

// How a is read: row r, column t at a[r·lda + t], or transposed, at a[t·lda + r] (the
// product aᵀ·b without forming aᵀ).
enum class Layout { normal, transposed };

template <Layout kLayout>
inline float element(const float* a, std::size_t lda, std::size_t r, std::size_t t) {
  return kLayout == Layout::normal ? a[r * lda + t] : a[t * lda + r];
}

// The start of a's row block r0.
template <Layout kLayout>
inline const float* row_block(const float* a, std::size_t lda, std::size_t r0) {
  return kLayout == Layout::normal ? a + r0 * lda : a + r0;
}

// c[R × V·kLanes] (+)= a[R × depth] · b[depth × V·kLanes], every accumulator in a register.
template <std::size_t R, std::size_t V, Layout kLayout = Layout::normal>
inline void matmul_block(const float* a, std::size_t lda, const float* b, std::size_t ldb, float* c,
                         std::size_t ldc, std::size_t depth, bool accumulate) {
  Vec acc[R][V];
  for (std::size_t r = 0; r < R; ++r) {
    for (std::size_t v = 0; v < V; ++v)
      acc[r][v] = accumulate ? load(c + r * ldc + v * kLanes) : Vec{};
  }
  for (std::size_t t = 0; t < depth; ++t) {
    Vec b_row[V];
    for (std::size_t v = 0; v < V; ++v) b_row[v] = load(b + t * ldb + v * kLanes);
    for (std::size_t r = 0; r < R; ++r) {
      const Vec a_value = simd::broadcast(element<kLayout>(a, lda, r, t));
      for (std::size_t v = 0; v < V; ++v) acc[r][v] += a_value * b_row[v];
    }
  }
  for (std::size_t r = 0; r < R; ++r) {
    for (std::size_t v = 0; v < V; ++v) store(c + r * ldc + v * kLanes, acc[r][v]);
  }
}

// A strip of V·kLanes columns (V < kBlockVectors: what is left after the full blocks) for
// every row, with as many rows per block as the full blocks' accumulators allow. Without
// it a head narrower than one block (the page's 8 heads of 8 dimensions) multiplied its
// weights by v one element at a time.
template <std::size_t V, Layout kLayout>
void matmul_strip(const float* a, std::size_t lda, const float* b, std::size_t ldb, float* c,
                  std::size_t ldc, std::size_t rows, std::size_t depth, bool accumulate) {
  constexpr std::size_t R = kBlockRows * kBlockVectors / V;
  std::size_t i = 0;
  for (; i + R <= rows; i += R) {
    matmul_block<R, V, kLayout>(row_block<kLayout>(a, lda, i), lda, b, ldb, c + i * ldc, ldc, depth,
                                accumulate);
  }
  for (; i < rows; ++i) {
    matmul_block<1, V, kLayout>(row_block<kLayout>(a, lda, i), lda, b, ldb, c + i * ldc, ldc, depth,
                                accumulate);
  }
}

// Columns [0, vectors·kLanes) of a strip narrower than a full block.
template <Layout kLayout>
void matmul_narrow(std::size_t vectors, const float* a, std::size_t lda, const float* b,
                   std::size_t ldb, float* c, std::size_t ldc, std::size_t rows, std::size_t depth,
                   bool accumulate) {
  static_assert(kBlockVectors <= 4, "matmul_narrow dispatches strips of at most 3 vectors");
  switch (vectors) {
    case 1:
      return matmul_strip<1, kLayout>(a, lda, b, ldb, c, ldc, rows, depth, accumulate);
    case 2:
      if constexpr (kBlockVectors > 2)
        return matmul_strip<2, kLayout>(a, lda, b, ldb, c, ldc, rows, depth, accumulate);
      break;
    case 3:
      if constexpr (kBlockVectors > 3)
        return matmul_strip<3, kLayout>(a, lda, b, ldb, c, ldc, rows, depth, accumulate);
      break;
  }
}

// The last columns, fewer than one vector, one element at a time.
template <Layout kLayout>
void matmul_edge(const float* a, std::size_t lda, const float* b, std::size_t ldb, float* c,
                 std::size_t ldc, std::size_t rows, std::size_t depth, std::size_t cols,
                 bool accumulate) {
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t col = 0; col < cols; ++col) {
      float sum = accumulate ? c[r * ldc + col] : 0.0f;
      for (std::size_t t = 0; t < depth; ++t)
        sum += element<kLayout>(a, lda, r, t) * b[t * ldb + col];
      c[r * ldc + col] = sum;
    }
  }
}

// One head's per-row context: row i of q is the call's row first_row + i, at position
// first_row + i + (m - all_rows).
struct RowContext {
  const Head& head;
  float slope() const { return head.alibi ? head.alibi_slope : 0.0f; }
  long position(long query) const { return head.first_row + query + (head.m - head.all_rows); }
};

// Calls visit(i0, block_rows, keys) for each block of q's rows [i0, i0 + block_rows), with
// visible[r] the keys of row i0 + r and `keys` those any row of the block sees (the tiles
// the kernels compute). Blocks are the whole call's blocks of kFlashTileRows rows, and `keys`
// is taken over all of a block's rows, so that a part of a call (some of its rows) computes
// each row over the same key tiles, in the same order, as the whole call: the same numbers.
template <class Visit>
void for_each_row_block(const Head& head, VisibleKeys (&visible)[kFlashTileRows], Visit&& visit) {
  VisibleKeys block_visible[kFlashTileRows];
  for (long i0 = 0; i0 < head.n;) {
    const long row = head.first_row + i0;  // in the whole call
    const long block_begin = row - row % kFlashTileRows;
    const long block_end = std::min(block_begin + kFlashTileRows, head.all_rows);
    for (long w = block_begin; w < block_end; ++w) {
      block_visible[w - block_begin] = visible_keys(head.mask, w, head.all_rows, head.m);
    }
    const Intervals keys = key_intervals(block_visible, block_end - block_begin);
    const long block_rows = std::min(block_end, head.first_row + head.n) - row;
    std::copy(block_visible + (row - block_begin), block_visible + (row - block_begin) + block_rows,
              visible);
    visit(i0, block_rows, keys);
    i0 += block_rows;
  }
}

// Calls visit(first_key, cols) once for each key tile that meets `keys` (the keys a block of
// query rows sees, attn::key_intervals): tiles start on multiples of kFlashTileCols and hold
// kFlashTileCols keys (fewer at the end of m). Tiles outside both intervals (above the
// diagonal under a causal mask, outside every row's window) are never computed.
template <class Visit>
void for_each_key_tile(const Intervals& keys, long m, Visit&& visit) {
  long next_tile = 0;  // a tile meeting both intervals is visited once
  for (int s = 0; s < keys.count; ++s) {
    const long last_tile = (keys.end[s] + kFlashTileCols - 1) / kFlashTileCols;
    for (long tile = std::max(keys.begin[s] / kFlashTileCols, next_tile); tile < last_tile;
         ++tile) {
      const long first_key = tile * kFlashTileCols;
      visit(first_key, std::min(kFlashTileCols, m - first_key));
    }
    next_tile = std::max(next_tile, last_tile);
  }
}

// kᵀ packed tile by tile, straight from k (m×dh, row stride ldk): tile t holds keys
// [t·kFlashTileCols, (t+1)·kFlashTileCols) as a contiguous dh×kFlashTileCols block, the
// layout the score matmul reads row by row. Transposed a few keys at a time, so that the
// writes stay in a few cache lines: a whole-matrix transpose wrote rows m floats apart (a
// power of two as often as not) into the same L1 sets and took 7% of a flash call.
std::vector<float> pack_key_tiles(const float* k, long ldk, long dh, long m) {
  constexpr long kKeysAtOnce = 16;
  static_assert(kFlashTileCols % kKeysAtOnce == 0, "a group of keys never straddles two tiles");
  const long tiles = (m + kFlashTileCols - 1) / kFlashTileCols;
  std::vector<float> packed(static_cast<std::size_t>(tiles) * dh * kFlashTileCols);
  for (long key0 = 0; key0 < m; key0 += kKeysAtOnce) {
    const long keys = std::min(kKeysAtOnce, m - key0);
    float* tile =
        packed.data() + (key0 / kFlashTileCols) * dh * kFlashTileCols + key0 % kFlashTileCols;
    for (long row = 0; row < dh; ++row) {
      for (long j = 0; j < keys; ++j) tile[row * kFlashTileCols + j] = k[(key0 + j) * ldk + row];
    }
  }
  return packed;
}

// matmul's body, forced inline into the kernels: there the strides are constants, and the
// flash kernel ran 8% faster (wasm, n=1024) than calling matmul.
template <Layout kLayout = Layout::normal>
[[gnu::always_inline]] inline void blocked_matmul(const float* a, std::size_t lda, const float* b,
                                                  std::size_t ldb, float* c, std::size_t ldc,
                                                  std::size_t rows, std::size_t depth,
                                                  std::size_t cols, bool accumulate) {
  const std::size_t full_cols = cols - cols % kBlockCols;
  std::size_t i = 0;
  for (; i + kBlockRows <= rows; i += kBlockRows) {
    for (std::size_t j = 0; j < full_cols; j += kBlockCols) {
      matmul_block<kBlockRows, kBlockVectors, kLayout>(
          row_block<kLayout>(a, lda, i), lda, b + j, ldb, c + i * ldc + j, ldc, depth, accumulate);
    }
  }
  for (; i < rows; ++i) {  // leftover rows, one at a time
    for (std::size_t j = 0; j < full_cols; j += kBlockCols) {
      matmul_block<1, kBlockVectors, kLayout>(row_block<kLayout>(a, lda, i), lda, b + j, ldb,
                                              c + i * ldc + j, ldc, depth, accumulate);
    }
  }
  const std::size_t narrow_vectors = (cols - full_cols) / kLanes;
  const std::size_t vector_cols = full_cols + narrow_vectors * kLanes;
  matmul_narrow<kLayout>(narrow_vectors, a, lda, b + full_cols, ldb, c + full_cols, ldc, rows,
                         depth, accumulate);
  matmul_edge<kLayout>(a, lda, b + vector_cols, ldb, c + vector_cols, ldc, rows, depth,
                       cols - vector_cols, accumulate);
}

// scores (block_rows×cols, row stride ld) = q rows [i0, i0 + block_rows) · the packed key
// tile of keys [j0, j0 + cols) (q arrives already multiplied by the scale).
[[gnu::always_inline]] inline void tile_scores(const Head& head,
                                               const std::vector<float>& key_tiles, long i0,
                                               long block_rows, long j0, long cols, float* scores,
                                               long ld) {
  blocked_matmul(head.q + i0 * head.dh, head.dh,
                 key_tiles.data() + (j0 / kFlashTileCols) * head.dh * kFlashTileCols,
                 kFlashTileCols, scores, ld, block_rows, head.dh, cols, false);
}

}  // namespace

void matmul(const float* a, std::size_t lda, const float* b, std::size_t ldb, float* c,
            std::size_t ldc, std::size_t rows, std::size_t depth, std::size_t cols,
            bool accumulate) {
  blocked_matmul(a, lda, b, ldb, c, ldc, rows, depth, cols, accumulate);
}

void matmul_transposed_a(const float* a, std::size_t lda, const float* b, std::size_t ldb, float* c,
                         std::size_t ldc, std::size_t rows, std::size_t depth, std::size_t cols,
                         bool accumulate) {
  blocked_matmul<Layout::transposed>(a, lda, b, ldb, c, ldc, rows, depth, cols, accumulate);
}

Matrix multiply(const Matrix& a, const Matrix& b) {
  const std::size_t rows = a.shape(0), depth = a.shape(1), cols = b.shape(1);
  Matrix c = Matrix::from_shape({rows, cols});
  matmul(a.data(), depth, b.data(), cols, c.data(), cols, rows, depth, cols, false);
  return c;
}

void attend_materialized(const Head& head, float* scores, float* weights, float* context,
                         std::size_t ldc) {
  const std::size_t m = head.m;
  const RowContext rows{head};
  const std::vector<float> key_tiles = pack_key_tiles(head.k, head.ldk, head.dh, head.m);
  VisibleKeys visible[kFlashTileRows];
  // Blocks of rows, so that key tiles no row of a block sees cost nothing (half the work
  // under a causal mask).
  for_each_row_block(head, visible, [&](long i0, long block_rows, const Intervals& keys) {
    float* block_scores = scores + i0 * m;
    float* block_weights = weights + i0 * m;
    // pass 1: scores = q·kᵀ, tile by tile.
    for_each_key_tile(keys, head.m, [&](long j0, long cols) {
      tile_scores(head, key_tiles, i0, block_rows, j0, cols, block_scores + j0, m);
    });
    for (long r = 0; r < block_rows; ++r) {
      float* row = block_scores + r * m;
      // pass 2: positional bias and mask (every key no tile covered is masked).
      row_ops::bias_and_mask(row, head.m, 0, rows.position(i0 + r), visible[r], rows.slope());
      // pass 3: normalise the row (max subtracted for softmax, so no exp overflows).
      normalize_row(head.normalization, row, block_weights + r * m, m);
    }
    // pass 4: context = weights · v over the same tiles (all other weights are zero).
    float* out = context + i0 * ldc;
    for (long r = 0; r < block_rows; ++r) std::fill(out + r * ldc, out + r * ldc + head.dvh, 0.0f);
    for_each_key_tile(keys, head.m, [&](long j0, long cols) {
      blocked_matmul(block_weights + j0, m, head.v + j0 * head.ldv, head.ldv, out, ldc, block_rows,
                     cols, head.dvh, true);
    });
  });
}

void attend_flash(const Head& head, float* context, std::size_t ldc) {
  const long m = head.m;
  const RowContext rows{head};
  const std::vector<float> key_tiles = pack_key_tiles(head.k, head.ldk, head.dh, m);
  std::vector<float> tile(kFlashTileRows * kFlashTileCols);  // scores, then unnormalised weights
  float row_max[kFlashTileRows], row_total[kFlashTileRows];
  VisibleKeys visible[kFlashTileRows];

  for_each_row_block(head, visible, [&](long i0, long block_rows, const Intervals& keys) {
    float* out = context + i0 * ldc;
    for (long r = 0; r < block_rows; ++r) {
      row_max[r] = row_ops::kMinusInfinity;
      row_total[r] = 0.0f;
      std::fill(out + r * ldc, out + r * ldc + head.dvh, 0.0f);
    }

    for_each_key_tile(keys, m, [&](long j0, long cols) {
      // pass 1: the tile's scores.
      tile_scores(head, key_tiles, i0, block_rows, j0, cols, tile.data(), kFlashTileCols);
      for (long r = 0; r < block_rows; ++r) {
        float* scores = tile.data() + r * kFlashTileCols;
        // pass 2: positional bias, mask, the tile's row maximum.
        const float tile_max = row_ops::bias_and_mask(scores, cols, j0, rows.position(i0 + r),
                                                      visible[r], rows.slope());
        // pass 3: unnormalised weights. Softmax subtracts the running maximum and
        // rescales what was accumulated under the previous one (online softmax).
        float shift = 0.0f;
        if (head.normalization == Normalization::softmax) {
          const float new_max = std::max(row_max[r], tile_max);
          if (new_max == row_ops::kMinusInfinity) {  // nothing visible yet
            std::fill(scores, scores + cols, 0.0f);
            continue;
          }
          if (new_max > row_max[r]) {
            const float correction = fast_exp(row_max[r] - new_max);
            row_total[r] *= correction;
            for (long t = 0; t < head.dvh; ++t) out[r * ldc + t] *= correction;
            row_max[r] = new_max;
          }
          shift = new_max;
        }
        row_total[r] +=
            row_ops::unnormalised_weights(scores, scores, cols, head.normalization, shift);
      }
      // pass 4: accumulate the weighted values.
      blocked_matmul(tile.data(), kFlashTileCols, head.v + j0 * head.ldv, head.ldv, out, ldc,
                     block_rows, cols, head.dvh, true);
    });
    // pass 5: divide by the row totals; rows that see no key stay zero.
    for (long r = 0; r < block_rows; ++r) {
      if (visible[r].empty()) continue;
      row_ops::divide(out + r * ldc, head.dvh, row_total[r]);
    }
  });
}

}  // namespace attn::kernels
