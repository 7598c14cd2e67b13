#include "attn/train/layers.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "../row_ops.hpp"
#include "attn/kernels.hpp"
#include "attn/normalization.hpp"
#include "buffers.hpp"

namespace attn::train {

namespace {

// to (cols×rows) = fromᵀ, from: rows×cols with row stride ld.
void transpose(float* to, const float* from, long rows, long cols, long ld) {
  for (long r = 0; r < rows; ++r) {
    for (long c = 0; c < cols; ++c) to[c * rows + r] = from[r * ld + c];
  }
}

}  // namespace

// ---- embedding ------------------------------------------------------------------------

void embedding_forward(float* out, const int* tokens, const float* table, long N, long C) {
  for (long n = 0; n < N; ++n) std::memcpy(out + n * C, table + tokens[n] * C, C * sizeof(float));
}

void embedding_backward(float* dtable, const float* dout, const int* tokens, long N, long C) {
  for (long n = 0; n < N; ++n) {
    float* row = dtable + tokens[n] * C;
    const float* gradient = dout + n * C;
    for (long c = 0; c < C; ++c) row[c] += gradient[c];
  }
}

void positions_forward(float* out, const float* positions, long B, long T, long C) {
  for (long b = 0; b < B; ++b) {
    for (long t = 0; t < T; ++t) {
      float* row = out + (b * T + t) * C;
      const float* position = positions + t * C;
      for (long c = 0; c < C; ++c) row[c] += position[c];
    }
  }
}

void positions_backward(float* dpositions, const float* dout, long B, long T, long C) {
  for (long b = 0; b < B; ++b) {
    for (long t = 0; t < T; ++t) {
      float* row = dpositions + t * C;
      const float* gradient = dout + (b * T + t) * C;
      for (long c = 0; c < C; ++c) row[c] += gradient[c];
    }
  }
}

// ---- layer normalisation --------------------------------------------------------------

void layernorm_forward(float* out, float* mean, float* rstd, const float* x, const float* weight,
                       const float* bias, long rows, long C) {
  for (long r = 0; r < rows; ++r) {
    const float* row = x + r * C;
    // pass 1: mean; pass 2: variance about it (two passes: no cancellation).
    float sum = 0.0f;
#pragma omp simd reduction(+ : sum)
    for (long c = 0; c < C; ++c) sum += row[c];
    const float row_mean = sum / C;
    float squares = 0.0f;
#pragma omp simd reduction(+ : squares)
    for (long c = 0; c < C; ++c) squares += (row[c] - row_mean) * (row[c] - row_mean);
    const float row_rstd = 1.0f / std::sqrt(squares / C + kLayerNormEpsilon);
    // pass 3: normalise, scale and shift.
    float* result = out + r * C;
    for (long c = 0; c < C; ++c) result[c] = (row[c] - row_mean) * row_rstd * weight[c] + bias[c];
    mean[r] = row_mean;
    rstd[r] = row_rstd;
  }
}

void layernorm_backward(float* dx, float* dweight, float* dbias, const float* dout, const float* x,
                        const float* weight, const float* mean, const float* rstd, long rows,
                        long C) {
  for (long r = 0; r < rows; ++r) {
    const float* gradient = dout + r * C;
    const float* row = x + r * C;
    // locals, so that the stores below cannot be taken to change them (and the loops vectorise)
    const float row_mean = mean[r], row_rstd = rstd[r];
    // pass 1: the two means the input's gradient subtracts (through the mean and the variance).
    float dnorm_mean = 0.0f, dnorm_norm_mean = 0.0f;
#pragma omp simd reduction(+ : dnorm_mean, dnorm_norm_mean)
    for (long c = 0; c < C; ++c) {
      const float norm = (row[c] - row_mean) * row_rstd;
      const float dnorm = weight[c] * gradient[c];
      dnorm_mean += dnorm;
      dnorm_norm_mean += dnorm * norm;
    }
    dnorm_mean /= C;
    dnorm_norm_mean /= C;
    // pass 2: accumulate the parameters' gradients and add the input's.
    float* dinput = dx + r * C;
#pragma omp simd
    for (long c = 0; c < C; ++c) {
      const float norm = (row[c] - row_mean) * row_rstd;
      const float dnorm = weight[c] * gradient[c];
      dbias[c] += gradient[c];
      dweight[c] += norm * gradient[c];
      dinput[c] += (dnorm - dnorm_mean - norm * dnorm_norm_mean) * row_rstd;
    }
  }
}

// ---- linear ---------------------------------------------------------------------------

void linear_forward(float* out, const float* x, const float* weight, const float* bias, long rows,
                    long in_features, long out_features, LinearScratch& scratch) {
  // weightᵀ (in×out) once, so that the matmul streams rows of both operands.
  float* weight_t = grow(scratch.transposed, std::size_t(in_features) * out_features);
  transpose(weight_t, weight, out_features, in_features, in_features);
  kernels::matmul(x, in_features, weight_t, out_features, out, out_features, rows, in_features,
                  out_features, false);
  if (bias == nullptr) return;
  for (long r = 0; r < rows; ++r) {
    float* row = out + r * out_features;
    for (long o = 0; o < out_features; ++o) row[o] += bias[o];
  }
}

void linear_backward(float* dx, float* dweight, float* dbias, const float* dout, const float* x,
                     const float* weight, long rows, long in_features, long out_features) {
  // dx (rows×in) = dout (rows×out) · weight (out×in)
  kernels::matmul(dout, out_features, weight, in_features, dx, in_features, rows, out_features,
                  in_features, false);
  // dweight (out×in) += doutᵀ (out×rows) · x (rows×in)
  kernels::matmul_transposed_a(dout, out_features, x, in_features, dweight, in_features,
                               out_features, rows, in_features, true);
  if (dbias == nullptr) return;
  for (long r = 0; r < rows; ++r) {
    const float* row = dout + r * out_features;
    for (long o = 0; o < out_features; ++o) dbias[o] += row[o];
  }
}

// ---- GELU -----------------------------------------------------------------------------

namespace {
constexpr float kInverseSqrt2 = 0.70710678118654752f;
constexpr float kInverseSqrt2Pi = 0.39894228040143268f;  // 1/√(2π): the normal density at 0
}  // namespace

void gelu_forward(float* out, const float* x, long count) {
  for (long i = 0; i < count; ++i) out[i] = 0.5f * x[i] * (1.0f + std::erf(x[i] * kInverseSqrt2));
}

void gelu_backward(float* dx, const float* dout, const float* x, long count) {
  for (long i = 0; i < count; ++i) {
    const float cdf = 0.5f * (1.0f + std::erf(x[i] * kInverseSqrt2));
    const float density = kInverseSqrt2Pi * std::exp(-0.5f * x[i] * x[i]);
    dx[i] = dout[i] * (cdf + x[i] * density);
  }
}

// ---- attention ------------------------------------------------------------------------

void rope_rotate(float* rows, long ld, long count, long first_position, const AttentionShape& shape,
                 bool inverse) {
  const long half = shape.D / 2;
  const bool interleaved = shape.rope_pairing == RopePairing::interleaved;
  const float sign = inverse ? -1.0f : 1.0f;
  for (long r = 0; r < count; ++r) {
    const float* cos_row = shape.rope_cos->data() + (first_position + r) * half;
    const float* sin_row = shape.rope_sin->data() + (first_position + r) * half;
    float* row = rows + r * ld;
    for (long pair = 0; pair < half; ++pair) {
      const long a = interleaved ? 2 * pair : pair;
      const long b = interleaved ? 2 * pair + 1 : pair + half;
      const float cos_angle = cos_row[pair], sin_angle = sign * sin_row[pair];
      const float xa = row[a], xb = row[b];
      row[a] = xa * cos_angle - xb * sin_angle;
      row[b] = xa * sin_angle + xb * cos_angle;
    }
  }
}

namespace {

// Copies count rows of width D (row stride ld) into a contiguous block.
void gather_rows(float* to, const float* from, long count, long D, long ld) {
  for (long r = 0; r < count; ++r) std::memcpy(to + r * D, from + r * ld, D * sizeof(float));
}

}  // namespace

void attention_forward(float* context, const float* qkv, long B, long T, long Tq,
                       const AttentionShape& shape, AttentionCache& cache) {
  const long H = shape.H, D = shape.D, C = H * D, ld = 3 * C, first_query = T - Tq;
  float* q_all = grow(cache.q, std::size_t(B) * H * Tq * D);
  float* k_all = grow(cache.k, std::size_t(B) * H * T * D);
  float* weights_all = grow(cache.weights, std::size_t(B) * H * Tq * T);
  float* k_t = grow(cache.scratch, std::size_t(D) * T);  // one head's keys, transposed: D×T
  for (long b = 0; b < B; ++b) {
    const float* sequence = qkv + b * T * ld;
    for (long h = 0; h < H; ++h) {
      const std::size_t block = std::size_t(b * H + h);
      float* q = q_all + block * Tq * D;
      float* k = k_all + block * T * D;
      float* weights = weights_all + block * Tq * T;
      // pass 1: this head's queries and keys, rotated (RoPE), the queries scaled.
      gather_rows(q, sequence + first_query * ld + h * D, Tq, D, ld);
      gather_rows(k, sequence + C + h * D, T, D, ld);
      if (shape.rope_cos != nullptr) {
        rope_rotate(q, D, Tq, first_query, shape, false);
        rope_rotate(k, D, T, 0, shape, false);
      }
      for (long i = 0; i < Tq * D; ++i) q[i] *= shape.scale;
      // pass 2: scores = q·kᵀ (Tq×T), in the weights' place.
      transpose(k_t, k, T, D, D);
      kernels::matmul(q, D, k_t, T, weights, T, Tq, D, T, false);
      // pass 3: ALiBi bias and mask (the engine's row operations), then the stable softmax.
      const float slope = shape.alibi_slopes != nullptr ? (*shape.alibi_slopes)[h] : 0.0f;
      for (long i = 0; i < Tq; ++i) {
        float* row = weights + i * T;
        const VisibleKeys visible = visible_keys(shape.mask, i, Tq, T);
        row_ops::bias_and_mask(row, T, 0, first_query + i, visible, slope);
        normalize_row(Normalization::softmax, row, row, T);
      }
      // pass 4: context = weights · v, into this head's columns.
      kernels::matmul(weights, T, sequence + 2 * C + h * D, ld, context + b * Tq * C + h * D, C, Tq,
                      T, D, false);
    }
  }
}

void attention_backward(float* dqkv, const float* dcontext, const float* qkv, long B, long T,
                        long Tq, const AttentionShape& shape, AttentionCache& cache) {
  const long H = shape.H, D = shape.D, C = H * D, ld = 3 * C, first_query = T - Tq;
  // One head's scratch: vᵀ (D×T), dS (Tq×T), dq (Tq×D), dk (T×D).
  float* v_t = grow(cache.scratch, std::size_t(D * T + Tq * T + Tq * D + T * D));
  float* dscores = v_t + D * T;
  float* dq = dscores + Tq * T;
  float* dk = dq + Tq * D;
  for (long b = 0; b < B; ++b) {
    const float* sequence = qkv + b * T * ld;
    const float* dctx = dcontext + b * Tq * C;
    float* dsequence = dqkv + b * T * ld;
    // rows that are no query get no query gradient
    for (long t = 0; t < first_query; ++t) std::fill_n(dsequence + t * ld, C, 0.0f);
    for (long h = 0; h < H; ++h) {
      const std::size_t block = std::size_t(b * H + h);
      const float* q = cache.q.data() + block * Tq * D;  // rotated and scaled
      const float* k = cache.k.data() + block * T * D;   // rotated
      const float* weights = cache.weights.data() + block * Tq * T;
      const float* dctx_h = dctx + h * D;  // Tq×D, row stride C
      // pass 1: dv (T×D) = weightsᵀ · dcontext.
      kernels::matmul_transposed_a(weights, T, dctx_h, C, dsequence + 2 * C + h * D, ld, T, Tq, D,
                                   false);
      // pass 2: dweights (Tq×T) = dcontext · vᵀ.
      transpose(v_t, sequence + 2 * C + h * D, T, D, ld);
      kernels::matmul(dctx_h, C, v_t, T, dscores, T, Tq, D, T, false);
      // pass 3: through the softmax, row by row: dS = P ⊙ (dP - Σ_j P·dP). Masked keys have
      // P = 0, so they get no gradient.
      for (long i = 0; i < Tq; ++i) {
        const float* p = weights + i * T;
        float* d = dscores + i * T;
        float dot = 0.0f;
#pragma omp simd reduction(+ : dot)
        for (long j = 0; j < T; ++j) dot += p[j] * d[j];
        for (long j = 0; j < T; ++j) d[j] = p[j] * (d[j] - dot);
      }
      // pass 4: dq = dS · k · scale (Tq×D) and dk = dSᵀ · q (T×D; q holds the scale).
      kernels::matmul(dscores, T, k, D, dq, D, Tq, T, D, false);
      for (long i = 0; i < Tq * D; ++i) dq[i] *= shape.scale;
      kernels::matmul_transposed_a(dscores, T, q, D, dk, D, T, Tq, D, false);
      // pass 5: undo the rotation (its transpose is the rotation by -angle), write into dqkv.
      if (shape.rope_cos != nullptr) {
        rope_rotate(dq, D, Tq, first_query, shape, true);
        rope_rotate(dk, D, T, 0, shape, true);
      }
      for (long i = 0; i < Tq; ++i) {
        std::memcpy(dsequence + (first_query + i) * ld + h * D, dq + i * D, D * sizeof(float));
      }
      for (long t = 0; t < T; ++t) {
        std::memcpy(dsequence + t * ld + C + h * D, dk + t * D, D * sizeof(float));
      }
    }
  }
}

// ---- loss -----------------------------------------------------------------------------

double cross_entropy_forward(float* probabilities, const float* logits, const int* targets, long R,
                             long O) {
  double total = 0.0;
  for (long r = 0; r < R; ++r) {
    const float* row = logits + r * O;
    float* p = probabilities + r * O;
    // Subtract the row's maximum so that no exp overflows.
    const float row_max = *std::max_element(row, row + O);
    double sum = 0.0;
    for (long o = 0; o < O; ++o) sum += std::exp(double(row[o]) - row_max);
    for (long o = 0; o < O; ++o)
      p[o] = static_cast<float>(std::exp(double(row[o]) - row_max) / sum);
    total += std::log(sum) + row_max - row[targets[r]];
  }
  return total / R;
}

void cross_entropy_backward(float* dlogits, const float* probabilities, const int* targets, long R,
                            long O, float scale) {
  const float factor = scale / R;
  for (long r = 0; r < R; ++r) {
    for (long o = 0; o < O; ++o) {
      const float indicator = o == targets[r] ? 1.0f : 0.0f;
      dlogits[r * O + o] = (probabilities[r * O + o] - indicator) * factor;
    }
  }
}

}  // namespace attn::train
