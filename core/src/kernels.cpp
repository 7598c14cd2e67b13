#include "attn/kernels.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "attn/positional.hpp"

namespace attn::kernels {

namespace {

constexpr float kMinusInfinity = -std::numeric_limits<float>::infinity();

// Register block of the matmul: kBlockRows rows of a times kBlockCols columns of b, held
// in kBlockRows·kBlockCols/4 vector accumulators. V8 spills beyond about eight live
// f32x4 registers, so wasm keeps the block small; x86 has sixteen 256-bit registers.
#if defined(__wasm__)
constexpr std::size_t kBlockRows = 2;
constexpr std::size_t kBlockCols = 8;
#else
constexpr std::size_t kBlockRows = 4;
constexpr std::size_t kBlockCols = 16;
#endif

// c[R×C] (+)= a[R×depth] · b[depth×C] with the accumulators in registers.
template <std::size_t R, std::size_t C>
inline void matmul_block(const float* a, std::size_t lda, const float* b, std::size_t ldb,
                         float* c, std::size_t ldc, std::size_t depth, bool accumulate) {
  float acc[R][C];
  for (std::size_t r = 0; r < R; ++r) {
    for (std::size_t col = 0; col < C; ++col) acc[r][col] = accumulate ? c[r * ldc + col] : 0.0f;
  }
  for (std::size_t t = 0; t < depth; ++t) {
    const float* b_row = b + t * ldb;
    for (std::size_t r = 0; r < R; ++r) {
      const float a_value = a[r * lda + t];
      for (std::size_t col = 0; col < C; ++col) acc[r][col] += a_value * b_row[col];
    }
  }
  for (std::size_t r = 0; r < R; ++r) {
    for (std::size_t col = 0; col < C; ++col) c[r * ldc + col] = acc[r][col];
  }
}

// The ragged edge of the matmul, one element at a time.
void matmul_edge(const float* a, std::size_t lda, const float* b, std::size_t ldb, float* c,
                 std::size_t ldc, std::size_t rows, std::size_t depth, std::size_t cols,
                 bool accumulate) {
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t col = 0; col < cols; ++col) {
      float sum = accumulate ? c[r * ldc + col] : 0.0f;
      for (std::size_t t = 0; t < depth; ++t) sum += a[r * lda + t] * b[t * ldb + col];
      c[r * ldc + col] = sum;
    }
  }
}

// The score of query `query` for key `key` after scaling and positional bias, or
// -Infinity when the mask hides the key.
inline float biased_score(const Head& head, const VisibleKeys& visible, long query, long key,
                          float raw_score) {
  if (!visible.contains(key)) return kMinusInfinity;
  float score = raw_score * head.scale;
  if (head.alibi) {
    score += alibi_bias(head.alibi_slope, query + (head.m - head.n), key, head.mask.causal);
  }
  return score;
}

}  // namespace

void matmul(const float* a, std::size_t lda, const float* b, std::size_t ldb, float* c,
            std::size_t ldc, std::size_t rows, std::size_t depth, std::size_t cols,
            bool accumulate) {
  const std::size_t full_rows = rows - rows % kBlockRows;
  const std::size_t full_cols = cols - cols % kBlockCols;
  for (std::size_t i = 0; i < full_rows; i += kBlockRows) {
    for (std::size_t j = 0; j < full_cols; j += kBlockCols) {
      matmul_block<kBlockRows, kBlockCols>(a + i * lda, lda, b + j, ldb, c + i * ldc + j, ldc,
                                           depth, accumulate);
    }
  }
  matmul_edge(a, lda, b + full_cols, ldb, c + full_cols, ldc, full_rows, depth, cols - full_cols,
              accumulate);
  matmul_edge(a + full_rows * lda, lda, b, ldb, c + full_rows * ldc, ldc, rows - full_rows, depth,
              cols, accumulate);
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
  // pass 1: raw scores q·kᵀ.
  matmul(head.q, head.dh, head.k_transposed, m, scores, m, head.n, head.dh, m, false);
  for (long i = 0; i < head.n; ++i) {
    float* row = scores + i * m;
    const VisibleKeys visible = visible_keys(head.mask, i, head.n, head.m);
    // pass 2: scale, positional bias, mask.
    for (long j = 0; j < head.m; ++j) row[j] = biased_score(head, visible, i, j, row[j]);
    // pass 3: normalise the row.
    normalize_row(head.normalization, row, weights + i * m, m);
  }
  // pass 4: context = weights · v.
  matmul(weights, m, head.v, head.dvh, context, ldc, head.n, m, head.dvh, false);
}

void attend_flash(const Head& head, float* context, std::size_t ldc) {
  const long n = head.n, m = head.m;
  std::vector<float> tile(kFlashTileRows * kFlashTileCols);  // scores, then unnormalised weights
  std::vector<float> row_max(kFlashTileRows), row_total(kFlashTileRows);
  std::vector<VisibleKeys> visible(kFlashTileRows);

  for (long i0 = 0; i0 < n; i0 += kFlashTileRows) {
    const long rows = std::min(kFlashTileRows, n - i0);
    float* out = context + i0 * ldc;
    long band_begin = m, band_end = 0, sink_end = 0;
    for (long r = 0; r < rows; ++r) {
      visible[r] = visible_keys(head.mask, i0 + r, n, m);
      row_max[r] = kMinusInfinity;
      row_total[r] = 0.0f;
      std::fill(out + r * ldc, out + r * ldc + head.dvh, 0.0f);
      if (visible[r].band_end > visible[r].band_begin) {
        band_begin = std::min(band_begin, visible[r].band_begin);
        band_end = std::max(band_end, visible[r].band_end);
      }
      sink_end = std::max(sink_end, visible[r].sink_end);
    }
    // The keys any row of this block sees: the sinks, then the band. Tiles wholly
    // outside both (above the diagonal under a causal mask) are never computed.
    const bool overlap = band_begin <= sink_end;
    const long ranges[2][2] = {{0, overlap ? std::max(sink_end, band_end) : sink_end},
                               {overlap ? 0 : band_begin, overlap ? 0 : band_end}};

    for (const auto& range : ranges) {
      for (long j0 = range[0]; j0 < range[1]; j0 += kFlashTileCols) {
        const long cols = std::min(kFlashTileCols, range[1] - j0);
        // pass 1: the tile's raw scores.
        matmul(head.q + i0 * head.dh, head.dh, head.k_transposed + j0, m, tile.data(),
               kFlashTileCols, rows, head.dh, cols, false);
        for (long r = 0; r < rows; ++r) {
          float* scores = tile.data() + r * kFlashTileCols;
          // pass 2: scale, bias, mask, and the tile's row maximum.
          float tile_max = kMinusInfinity;
          for (long c = 0; c < cols; ++c) {
            scores[c] = biased_score(head, visible[r], i0 + r, j0 + c, scores[c]);
            tile_max = std::max(tile_max, scores[c]);
          }
          // pass 3: unnormalised weights. For softmax, subtract the running maximum and
          // rescale what was accumulated under the old maximum (online softmax).
          float shift = 0.0f;
          if (head.normalization == Normalization::softmax) {
            const float new_max = std::max(row_max[r], tile_max);
            if (new_max == kMinusInfinity) {  // nothing visible yet
              std::fill(scores, scores + cols, 0.0f);
              continue;
            }
            const float correction = std::exp(row_max[r] - new_max);
            if (correction != 1.0f) {
              row_total[r] *= correction;
              for (long t = 0; t < head.dvh; ++t) out[r * ldc + t] *= correction;
            }
            row_max[r] = new_max;
            shift = new_max;
          }
          float total = 0.0f;
          for (long c = 0; c < cols; ++c) {
            float weight = 0.0f;
            if (scores[c] != kMinusInfinity) {
              weight = head.normalization == Normalization::sum ? scores[c]
                                                                 : std::exp(scores[c] - shift);
            }
            scores[c] = weight;
            total += weight;
          }
          row_total[r] += total;
        }
        // pass 4: accumulate the weighted values.
        matmul(tile.data(), kFlashTileCols, head.v + j0 * head.dvh, head.dvh, out, ldc, rows, cols,
               head.dvh, true);
      }
    }
    // pass 5: divide by the row totals; rows that see no key stay zero.
    for (long r = 0; r < rows; ++r) {
      if (visible[r].empty()) continue;
      for (long t = 0; t < head.dvh; ++t) out[r * ldc + t] /= row_total[r];
    }
  }
}

}  // namespace attn::kernels
