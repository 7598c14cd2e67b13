#include "attn/kernels.hpp"

#include <algorithm>
#include <memory>
#include <type_traits>
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
      for (std::size_t v = 0; v < V; ++v)
        acc[r][v] = simd::multiply_add(a_value, b_row[v], acc[r][v]);
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
        sum = simd::multiply_add(element<kLayout>(a, lda, r, t), b[t * ldb + col], sum);
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
// query rows sees, attn::key_intervals), with the part of the tile the intervals cover: tiles
// start on multiples of kFlashTileCols and hold kFlashTileCols keys (fewer at the end of m);
// the part starts on a multiple of `align` (which divides kFlashTileCols). Tiles outside both
// intervals (above the diagonal under a causal mask, outside every row's window) are never
// computed, nor the keys of a tile past the last one the block sees (the diagonal's tile).
template <class Visit>
void for_each_key_tile(const Intervals& keys, long m, long align, Visit&& visit) {
  long next_tile = 0;  // a tile meeting both intervals is visited once
  for (int s = 0; s < keys.count; ++s) {
    const long last_tile = (keys.end[s] + kFlashTileCols - 1) / kFlashTileCols;
    for (long tile = std::max(keys.begin[s] / kFlashTileCols, next_tile); tile < last_tile;
         ++tile) {
      const long tile_begin = tile * kFlashTileCols;
      const long tile_end = std::min(tile_begin + kFlashTileCols, m);
      // The tile meets interval s, and the next one too when that starts inside it.
      const bool next_meets = s + 1 < keys.count && keys.begin[s + 1] < tile_end;
      long first_key = std::max(tile_begin, keys.begin[s]);
      first_key -= first_key % align;
      const long end = std::min(tile_end, next_meets ? keys.end[s + 1] : keys.end[s]);
      visit(first_key, end - first_key);
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
  if (vector_cols == cols) return;
  if (!accumulate && cols >= kLanes) {
    // The last columns as the last vector's worth: the columns it shares with the vectors
    // before are computed again, the same sums in the same order. Element by element they
    // took a third of the time of the trainer's 34×16·16×34 products (47% → 71% of the wasm peak).
    matmul_strip<1, kLayout>(a, lda, b + cols - kLanes, ldb, c + cols - kLanes, ldc, rows, depth,
                             false);
    return;
  }
  matmul_edge<kLayout>(a, lda, b + vector_cols, ldb, c + vector_cols, ldc, rows, depth,
                       cols - vector_cols, accumulate);
}

// scores (block_rows×cols, row stride ld) = q rows [i0, i0 + block_rows) · keys [j0, j0 + cols)
// of one packed key tile (q arrives already multiplied by the scale).
[[gnu::always_inline]] inline void tile_scores(const Head& head,
                                               const std::vector<float>& key_tiles, long i0,
                                               long block_rows, long j0, long cols, float* scores,
                                               long ld) {
  blocked_matmul(
      head.q + i0 * head.dh, head.dh,
      key_tiles.data() + (j0 / kFlashTileCols) * head.dh * kFlashTileCols + j0 % kFlashTileCols,
      kFlashTileCols, scores, ld, block_rows, head.dh, cols, false);
}

// The flash kernel's scratch: every element is written before it is read, so none is zeroed.
using Buffer = std::unique_ptr<float[]>;
Buffer uninitialized(std::size_t size) { return Buffer(new float[size]); }

// ---- The flash kernel's packed operands ----------------------------------------------------
//
// The flash kernel's products read both operands from buffers laid out for them, so that the
// inner loop moves two pointers by constants and finds everything else at constant offsets:
// - b (kᵀ, and v) in panels of kPanelCols columns, each row of a panel contiguous: one panel is
//   depth × kPanelCols floats in a row, so a step reads one or two whole cache lines. Read in
//   place, a tile's kᵀ rows were 512 bytes apart (v's rows ldv·4 apart): the 64 rows of a column
//   block all fell into 8 of L1's 64 sets (2 for 8 heads of 64), and missed;
// - a (q) in groups of kPanelRows rows, interleaved (step t of the group's rows side by side);
//   the weights of a tile are read in place, their rows a constant kFlashTileCols apart.
// Measured in wasm on a 64×64 by 64×128 product (the score tile, Zen 4): 67% of the f32x4
// peak as before, 76% with kᵀ in panels, 90% with the pointer-walking loop over packed
// operands and the register block turned to 4 rows × 2 vectors (2×4: 82%; 3×3 and 5×2 let V8
// load all the broadcasts first and spill, 48%).
#if defined(__AVX512F__)
constexpr std::size_t kPanelRows = 8, kPanelVectors = 2;
#else
constexpr std::size_t kPanelRows = 4, kPanelVectors = 2;
#endif
constexpr std::size_t kPanelCols = kPanelVectors * kLanes;
static_assert(kFlashTileCols % kPanelCols == 0, "a key tile is whole panels");
static_assert(kFlashTileRows % kPanelRows == 0, "a row block is whole groups of rows");

// A step of a pointer in panel_block: a constant (std::integral_constant, the flash kernel's
// packed operands) or a std::size_t (matmul's operands, read in place).
template <std::size_t kStep>
using Step = std::integral_constant<std::size_t, kStep>;

// c[R × kPanelCols] (+)= a[R × depth] · b[depth × kPanelCols], where b's row t is at
// b + t·b_step and a's row r at step t is a[r·kRowOffset + t·a_step].
template <std::size_t R, std::size_t kRowOffset, class AStep, class BStep>
inline void panel_block(const float* a, AStep a_step, const float* b, BStep b_step, float* c,
                        std::size_t ldc, std::size_t depth, bool accumulate) {
  constexpr std::size_t V = kPanelVectors;
  Vec acc[R][V];
  for (std::size_t r = 0; r < R; ++r) {
    for (std::size_t v = 0; v < V; ++v)
      acc[r][v] = accumulate ? load(c + r * ldc + v * kLanes) : Vec{};
  }
  for (const float* const end = b + depth * b_step; b != end; b += b_step, a += a_step) {
    Vec b_lanes[V];
    for (std::size_t v = 0; v < V; ++v) b_lanes[v] = load(b + v * kLanes);
    for (std::size_t r = 0; r < R; ++r) {
      const Vec a_lanes = simd::broadcast(a[r * kRowOffset]);
      for (std::size_t v = 0; v < V; ++v)
        acc[r][v] = simd::multiply_add(a_lanes, b_lanes[v], acc[r][v]);
    }
  }
  for (std::size_t r = 0; r < R; ++r) {
    for (std::size_t v = 0; v < V; ++v) store(c + r * ldc + v * kLanes, acc[r][v]);
  }
}

// panel_block for `rows` (1 ≤ rows ≤ R) rows: the last rows of a block.
template <std::size_t R, std::size_t kRowOffset, class AStep, class BStep>
inline void panel_rows(std::size_t rows, const float* a, AStep a_step, const float* b, BStep b_step,
                       float* c, std::size_t ldc, std::size_t depth, bool accumulate) {
  if constexpr (R > 1) {
    if (rows < R) {
      return panel_rows<R - 1, kRowOffset>(rows, a, a_step, b, b_step, c, ldc, depth, accumulate);
    }
  }
  panel_block<R, kRowOffset>(a, a_step, b, b_step, c, ldc, depth, accumulate);
}

// kᵀ in panels, straight from k (m×dh, row stride ldk): panel p holds keys [p·kPanelCols,
// (p+1)·kPanelCols) as dh rows of kPanelCols, the keys past m zero. A key tile starting at
// j0 is the kFlashTileCols / kPanelCols panels from panel j0 / kPanelCols on.
Buffer pack_key_panels(const float* k, long ldk, long dh, long m) {
  const long panels = (m + kPanelCols - 1) / kPanelCols;
  Buffer packed = uninitialized(static_cast<std::size_t>(panels) * dh * kPanelCols);
  for (long key = 0; key < panels * static_cast<long>(kPanelCols); ++key) {
    float* column = packed.get() + (key / kPanelCols) * dh * kPanelCols + key % kPanelCols;
    if (key < m) {
      for (long t = 0; t < dh; ++t) column[t * kPanelCols] = k[key * ldk + t];
    } else {
      for (long t = 0; t < dh; ++t) column[t * kPanelCols] = 0.0f;
    }
  }
  return packed;
}

// Columns [0, panels·kPanelCols) of v (m×dvh, row stride ldv) in panels: panel p holds the
// columns [p·kPanelCols, (p+1)·kPanelCols) as m rows of kPanelCols.
Buffer pack_value_panels(const float* v, long ldv, long m, long panels) {
  Buffer packed = uninitialized(static_cast<std::size_t>(panels) * m * kPanelCols);
  for (long key = 0; key < m; ++key) {
    for (long p = 0; p < panels; ++p) {
      const float* from = v + key * ldv + p * kPanelCols;
      std::copy(from, from + kPanelCols, packed.get() + (p * m + key) * kPanelCols);
    }
  }
  return packed;
}

// Rows [0, rows) of q (row stride dh) in groups of kPanelRows, interleaved: row r's value at
// step t goes to packed[(r / kPanelRows)·dh·kPanelRows + t·kPanelRows + r % kPanelRows]; the
// rows that complete the last group are zero.
void pack_query_rows(const float* q, long dh, long rows, float* packed) {
  const long groups = (rows + kPanelRows - 1) / kPanelRows;
  for (long r = 0; r < groups * static_cast<long>(kPanelRows); ++r) {
    float* to = packed + (r / kPanelRows) * dh * kPanelRows + r % kPanelRows;
    if (r < rows) {
      for (long t = 0; t < dh; ++t) to[t * kPanelRows] = q[r * dh + t];
    } else {
      for (long t = 0; t < dh; ++t) to[t * kPanelRows] = 0.0f;
    }
  }
}

// matmul_transposed_a's body over panel_block: rows in groups of kPanelRows (a group's values
// at a step side by side in a, which advances lda a step), columns in panels of kPanelCols (b
// advances ldb), both read in place, kDepthChunk steps of depth at a time so that the strips of
// a and b a chunk reads stay in L1 for every group and panel; the rows and columns left over go
// through blocked_matmul. Measured in wasm on the trainer's transposed products (% of the f32x4
// peak, blocked_matmul → this): 96×2176·2176×32 65 → 88–95, 32×2176·2176×32 68 → 95,
// 34×34·34×16 82 → 93 (the whole depth at once: 72, 77 and 93; chunks of 256 steps: 82, 80).
// Not for matmul: there a's rows had to be copied a group at a time into step-major order, and
// its products ran slower than blocked_matmul's (2176×96·96×32: 90 → 72).
constexpr std::size_t kDepthChunk = 64;
void panel_matmul_transposed_a(const float* a, std::size_t lda, const float* b, std::size_t ldb,
                               float* c, std::size_t ldc, std::size_t rows, std::size_t depth,
                               std::size_t cols, bool accumulate) {
  const std::size_t full_rows = rows - rows % kPanelRows, full_cols = cols - cols % kPanelCols;
  for (std::size_t t0 = 0; t0 < depth; t0 += kDepthChunk) {
    const std::size_t steps = std::min(kDepthChunk, depth - t0);
    const float* a_chunk = a + t0 * lda;
    const float* b_chunk = b + t0 * ldb;
    for (std::size_t i = 0; i < full_rows; i += kPanelRows) {
      for (std::size_t j = 0; j < full_cols; j += kPanelCols) {
        panel_block<kPanelRows, 1>(a_chunk + i, lda, b_chunk + j, ldb, c + i * ldc + j, ldc, steps,
                                   accumulate || t0 > 0);
      }
    }
  }
  if (full_cols < cols) {
    blocked_matmul<Layout::transposed>(a, lda, b + full_cols, ldb, c + full_cols, ldc, full_rows,
                                       depth, cols - full_cols, accumulate);
  }
  if (full_rows < rows) {
    blocked_matmul<Layout::transposed>(a + full_rows, lda, b, ldb, c + full_rows * ldc, ldc,
                                       rows - full_rows, depth, cols, accumulate);
  }
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
  panel_matmul_transposed_a(a, lda, b, ldb, c, ldc, rows, depth, cols, accumulate);
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
    for_each_key_tile(keys, head.m, 1, [&](long j0, long cols) {
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
    for_each_key_tile(keys, head.m, 1, [&](long j0, long cols) {
      blocked_matmul(block_weights + j0, m, head.v + j0 * head.ldv, head.ldv, out, ldc, block_rows,
                     cols, head.dvh, true);
    });
  });
}

void attend_flash(const Head& head, float* context, std::size_t ldc) {
  const long m = head.m, dh = head.dh, dvh = head.dvh;
  const RowContext rows{head};
  const Buffer key_panels = pack_key_panels(head.k, head.ldk, dh, m);
  // v's whole panels; the columns after them (dvh not a multiple of kPanelCols) are read in
  // place.
  const long value_panel_count = dvh / static_cast<long>(kPanelCols);
  const long panel_cols = value_panel_count * static_cast<long>(kPanelCols);
  const Buffer value_panels = pack_value_panels(head.v, head.ldv, m, value_panel_count);
  const Buffer query_rows = uninitialized(kFlashTileRows * dh);        // the block's q rows, packed
  const Buffer tile = uninitialized(kFlashTileRows * kFlashTileCols);  // scores, then weights
  float row_max[kFlashTileRows], row_total[kFlashTileRows];
  VisibleKeys visible[kFlashTileRows];

  for_each_row_block(head, visible, [&](long i0, long block_rows, const Intervals& keys) {
    const long row_groups = (block_rows + kPanelRows - 1) / kPanelRows;
    float* out = context + i0 * ldc;
    pack_query_rows(head.q + i0 * dh, dh, block_rows, query_rows.get());
    for (long r = 0; r < block_rows; ++r) {
      row_max[r] = row_ops::kMinusInfinity;
      row_total[r] = 0.0f;
      std::fill(out + r * ldc, out + r * ldc + dvh, 0.0f);
    }

    for_each_key_tile(keys, m, kPanelCols, [&](long j0, long cols) {
      // pass 1: the tile's scores, whole groups of rows by whole panels of keys (the rows and
      // keys that complete them are zeros, their scores never read).
      const long key_panel_count = (cols + kPanelCols - 1) / kPanelCols;
      const float* tile_keys = key_panels.get() + (j0 / kPanelCols) * dh * kPanelCols;
      for (long g = 0; g < row_groups; ++g) {
        for (long p = 0; p < key_panel_count; ++p) {
          panel_block<kPanelRows, 1>(query_rows.get() + g * kPanelRows * dh, Step<kPanelRows>{},
                                     tile_keys + p * dh * kPanelCols, Step<kPanelCols>{},
                                     tile.get() + g * kPanelRows * kFlashTileCols + p * kPanelCols,
                                     kFlashTileCols, dh, false);
        }
      }
      for (long r = 0; r < block_rows; ++r) {
        float* scores = tile.get() + r * kFlashTileCols;
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
            const float correction = fast_exp_nonpositive(row_max[r] - new_max);
            row_total[r] *= correction;
            for (long t = 0; t < dvh; ++t) out[r * ldc + t] *= correction;
            row_max[r] = new_max;
          }
          shift = new_max;
        }
        row_total[r] +=
            row_ops::unnormalised_weights(scores, scores, cols, head.normalization, shift);
      }
      // pass 4: accumulate the weighted values, whole panels of v, then its last columns.
      for (long r0 = 0; r0 < block_rows; r0 += kPanelRows) {
        const std::size_t group_rows = std::min<long>(kPanelRows, block_rows - r0);
        for (long p = 0; p < value_panel_count; ++p) {
          panel_rows<kPanelRows, kFlashTileCols>(
              group_rows, tile.get() + r0 * kFlashTileCols, Step<1>{},
              value_panels.get() + (p * m + j0) * kPanelCols, Step<kPanelCols>{},
              out + r0 * ldc + p * kPanelCols, ldc, cols, true);
        }
      }
      if (panel_cols < dvh) {
        blocked_matmul(tile.get(), kFlashTileCols, head.v + j0 * head.ldv + panel_cols, head.ldv,
                       out + panel_cols, ldc, block_rows, cols, dvh - panel_cols, true);
      }
    });
    // pass 5: divide by the row totals; rows that see no key stay zero.
    for (long r = 0; r < block_rows; ++r) {
      if (visible[r].empty()) continue;
      row_ops::divide(out + r * ldc, dvh, row_total[r]);
    }
  });
}

}  // namespace attn::kernels
