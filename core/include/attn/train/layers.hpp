// The layers of the trainable transformer, each forward beside its backward, over
// contiguous row-major float32 storage (in the manner of llm.c's train_gpt2.c).
//
// Legend of letters, used by every file of attn/train:
//   B  batch: sequences in one call             T  length: tokens per sequence
//   N  = B·T rows of activations, one per token C  channels (dModel)
//   H  heads                                    D  = C / H, one head's width
//   F  = 4·C, the MLP's hidden width            V  vocabulary (token ids 0..V-1)
//   O  outputs (answer classes)                 A  answers: the last A positions of a row
//   R  = B·A answer rows                        P  maxLength, positions a model may see
//   L  layers
//
// Conventions: a weight is stored as PyTorch stores it, out×in, and a linear layer computes
// y = x·Wᵀ + b. Every backward ADDS into the gradients of parameters (dweight, dbias), so
// that several batches may accumulate into one step; the gradient of the layer's input is
// written (=) unless the comment says it is added.
#pragma once

#include <cstddef>
#include <vector>

#include "attn/mask.hpp"
#include "attn/positional.hpp"

namespace attn::train {

// ---- embedding ------------------------------------------------------------------------

// out[n] = table[tokens[n]] for every row n; tokens are already checked to lie in 0..V-1.
// out: N×C, tokens: N, table: V×C.
void embedding_forward(float* out, const int* tokens, const float* table, long N, long C);

// dtable[tokens[n]] += dout[n]. dtable: V×C, dout: N×C.
void embedding_backward(float* dtable, const float* dout, const int* tokens, long N, long C);

// out[b·T + t] += positions[t]: learned or sinusoidal position vectors added to the
// embedding. out: N×C, positions: (at least T)×C.
void positions_forward(float* out, const float* positions, long B, long T, long C);

// dpositions[t] += Σ_b dout[b·T + t]. dpositions: (at least T)×C, dout: N×C.
void positions_backward(float* dpositions, const float* dout, long B, long T, long C);

// ---- layer normalisation --------------------------------------------------------------

constexpr float kLayerNormEpsilon = 1e-5f;

// out = (x - mean) / sqrt(var + ε) · weight + bias, row by row; saves each row's mean and
// 1/sqrt(var + ε) for the backward. out, x: rows×C; weight, bias: C; mean, rstd: rows.
void layernorm_forward(float* out, float* mean, float* rstd, const float* x, const float* weight,
                       const float* bias, long rows, long C);

// dx += the gradient through the normalisation; dweight, dbias accumulate.
// dx, dout, x: rows×C; weight, dweight, dbias: C; mean, rstd: rows.
void layernorm_backward(float* dx, float* dweight, float* dbias, const float* dout, const float* x,
                        const float* weight, const float* mean, const float* rstd, long rows,
                        long C);

// ---- linear ---------------------------------------------------------------------------

// Scratch space the matmuls need for a transposed operand; kept by the caller so that a
// training step allocates nothing once it has run once.
struct LinearScratch {
  std::vector<float> transposed;
};

// out = x·weightᵀ (+ bias when not null). out: rows×out_features, x: rows×in_features,
// weight: out_features×in_features, bias: out_features.
void linear_forward(float* out, const float* x, const float* weight, const float* bias, long rows,
                    long in_features, long out_features, LinearScratch& scratch);

// dx = dout·weight; dweight += doutᵀ·x; dbias += Σ dout
// (when not null). dx, x: rows×in_features; dout: rows×out_features; weight, dweight:
// out_features×in_features; dbias: out_features.
void linear_backward(float* dx, float* dweight, float* dbias, const float* dout, const float* x,
                     const float* weight, long rows, long in_features, long out_features);

// ---- GELU (exact, with erf) -----------------------------------------------------------

// out = x·Φ(x) = 0.5·x·(1 + erf(x/√2)). out, x: count.
void gelu_forward(float* out, const float* x, long count);

// dx = dout·Φ'(x), Φ'(x) = Φ(x) + x·φ(x). dx, dout, x: count.
void gelu_backward(float* dx, const float* dout, const float* x, long count);

// ---- attention ------------------------------------------------------------------------

// The fixed part of one attention layer: heads, positions and mask. RoPE tables cover
// positions 0..P-1; ALiBi slopes hold one slope per head.
struct AttentionShape {
  long H = 1;
  long D = 1;  // head width
  float scale = 1.0f;
  MaskOptions mask;  // causal, with `prefix` for bidirectional context
  const std::vector<float>* alibi_slopes = nullptr;  // H slopes, or null: no ALiBi
  const std::vector<float>* rope_cos = nullptr;  // P×(D/2): cos of pair t's angle at p, or null
  const std::vector<float>* rope_sin = nullptr;  // P×(D/2)
  RopePairing rope_pairing = RopePairing::interleaved;
};

// What the backward needs from the forward, and the forward's scratch.
struct AttentionCache {
  std::vector<float> q;        // B×H×Tq×D: each head's queries, rotated and scaled
  std::vector<float> k;        // B×H×T×D: each head's keys, rotated
  std::vector<float> weights;  // B×H×Tq×T: the attention weights (0 where masked)
  std::vector<float> scratch;  // one head's transposes, and the backward's dS, dq, dk
};

// Attention of the last Tq positions of each sequence over all T (Tq = T everywhere but in
// the last layer, which only the answer positions leave). Query i sits at position
// T - Tq + i. context: B·Tq×C (heads concatenated); qkv: B·T×3C with rows [q | k | v] and
// head h at columns h·D of each third.
void attention_forward(float* context, const float* qkv, long B, long T, long Tq,
                       const AttentionShape& shape, AttentionCache& cache);

// dqkv (B·T×3C) = the gradient of qkv from dcontext (B·Tq×C); the query columns of rows
// that are not queries get 0.
void attention_backward(float* dqkv, const float* dcontext, const float* qkv, long B, long T,
                        long Tq, const AttentionShape& shape, AttentionCache& cache);

// Rotates the pairs of one head's rows (count rows of width D, row stride ld) at positions
// first_position, first_position + 1, … by +angle, or by -angle (the backward of a rotation).
void rope_rotate(float* rows, long ld, long count, long first_position, const AttentionShape& shape,
                 bool inverse);

// ---- loss -----------------------------------------------------------------------------

// Softmax cross-entropy of R rows of logits against class ids: probabilities: R×O (the
// softmax, kept for the backward), returns the mean loss over the R rows.
double cross_entropy_forward(float* probabilities, const float* logits, const int* targets, long R,
                             long O);

// dlogits = (probabilities - one_hot(targets)) · scale / R: the gradient of scale × the mean
// loss. dlogits, probabilities: R×O.
void cross_entropy_backward(float* dlogits, const float* probabilities, const int* targets, long R,
                            long O, float scale);

}  // namespace attn::train
