// A small decoder-only transformer that the engine trains: forward, backward and the loss.
// Letters as in attn/train/layers.hpp (B, T, N, C, H, D, F, V, O, A, R, P, L).
//
//   x = embedding[tokens] (+ positions: a learned P×C table, or the sinusoidal encoding)
//   per layer:  x += attention(ln1(x))                 RoPE or ALiBi inside attention
//               x += proj(gelu(fc(ln2(x))))            with `mlp`
//   logits = head(final_ln(x)) at the last A positions of each sequence
//   loss = mean cross-entropy of the R = B·A answers
//
// Attention: qkv = x·Wqkvᵀ (rows of Wqkv are [q; k; v]), H heads of width D, scores scaled by
// 1/√D, causal (or a bidirectional prefix), heads concatenated, then ·Woutᵀ; no biases.
// Parameters are named and shaped as PyTorch stores them; initialisation follows PyTorch's
// defaults (Linear U(±1/√fan_in), Embedding N(0, 1), LayerNorm 1 and 0) drawn from the
// engine's PyTorch generator in the order of parameter_names().
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "attn/matrix.hpp"
#include "attn/positional.hpp"
#include "attn/train/layers.hpp"

namespace attn::train {

// Where positions enter a model: inside attention (none, rope, alibi) or added to the
// embedding (learned, sinusoidal).
inline constexpr std::array<PositionalType, 5> kModelPositionalTypes{
    PositionalType::none, PositionalType::rope, PositionalType::alibi, PositionalType::learned,
    PositionalType::sinusoidal};

// RoPE with its default base and pairing: the model's default position scheme.
inline PositionalOptions rope_positions() {
  PositionalOptions positional;
  positional.type = PositionalType::rope;
  return positional;
}

struct TransformerConfig {
  long vocab = 0;     // V
  long outputs = 0;   // O
  long layers = 2;    // L
  long d_model = 32;  // C
  long heads = 2;     // H
  bool mlp = false;
  // none, rope (base, pairing) or alibi (slopes): inside attention; learned or sinusoidal:
  // added to the embedding.
  PositionalOptions positional = rope_positions();
  long max_length = 512;  // P
  std::uint64_t seed = 0;
};

// Throws attn::InvalidArgument naming the option when the configuration cannot be built.
void validate(const TransformerConfig& config);

struct ParameterInfo {
  std::string name;
  long rows = 0, cols = 0;  // a vector is 1×c
  std::size_t offset = 0;   // into the flat parameter (and gradient) storage
  std::size_t size() const { return std::size_t(rows) * cols; }
};

// One batch: B sequences of T tokens, with the class ids of their last A positions.
struct Batch {
  const int* tokens = nullptr;   // B×T token ids in 0..V-1
  const int* targets = nullptr;  // B×A class ids in 0..O-1; null for a forward without loss
  long B = 0, T = 0, A = 1;
  long prefix = 0;  // > 0: positions < prefix see each other both ways
};

class Transformer {
 public:
  explicit Transformer(const TransformerConfig& config);

  const TransformerConfig& config() const { return config_; }
  const std::vector<ParameterInfo>& parameters() const { return layout_; }
  std::vector<std::string> parameter_names() const;
  std::size_t parameter_count() const { return values_.size(); }

  // A copy of one parameter, rows×cols; throws naming the parameter when unknown.
  Matrix parameter(const std::string& name) const;
  // Replaces one parameter; throws unless the shape matches and every value is finite.
  void set_parameter(const std::string& name, const Matrix& value);

  // The flat storage, in the order of parameters(): what the optimizer updates.
  float* values() { return values_.data(); }
  const float* values() const { return values_.data(); }
  float* gradients() { return gradients_.data(); }
  const float* gradients() const { return gradients_.data(); }
  void zero_gradients();

  // Throws attn::InvalidArgument naming the field when the batch does not fit the model.
  void validate(const Batch& batch) const;

  // Forward; with targets, returns the mean loss (0 without). Keeps what backward needs.
  double forward(const Batch& batch);
  // Adds weight × ∂loss/∂parameter into gradients(), for the batch of the last forward.
  void backward(const Batch& batch, float weight = 1.0f);
  // zero_gradients, forward and backward: the loss, and the gradients of the mean loss.
  double loss_and_gradients(const Batch& batch);

  // After a forward: R×O logits (rows batch-major, then answer position).
  const float* logits() const { return activations_.logits.data(); }
  // The query positions layer l computes: all T, but in the last layer only the A answer
  // positions, which are all the head reads.
  long queries(long layer, const Batch& batch) const;
  // After a forward: layer l's attention weights, B×H×Tq×T for Tq = queries(l) (0 where
  // masked): the rows of the last Tq positions. A forward with A = T gives every row.
  const float* attention_weights(long layer) const {
    return activations_.attention[layer].weights.data();
  }

 private:
  struct BlockOffsets {  // offsets of one block's parameters in the flat storage
    std::size_t ln1_weight, ln1_bias, qkv, out;
    std::size_t ln2_weight, ln2_bias, fc_weight, fc_bias, proj_weight, proj_bias;  // with mlp
  };
  struct Offsets {
    std::size_t embedding, positional;  // positional: learned only
    std::vector<BlockOffsets> blocks;
    std::size_t final_weight, final_bias, head_weight, head_bias;
  };
  // Everything a forward keeps for the backward, sized for the last batch shape.
  struct Activations {
    // Per layer a slot of N rows; a layer's outputs fill Nq = B·queries(l) of them.
    std::vector<float>
        residual;  // (L+1)×N×C: the stream entering each layer, then leaving the last (R×C)
    std::vector<float> ln1;                     // L×N×C
    std::vector<float> ln1_mean, ln1_rstd;      // L×N
    std::vector<float> qkv;                     // L×N×3C
    std::vector<float> context;                 // L×Nq×C: heads concatenated, before Wout
    std::vector<float> mid;                     // L×Nq×C: the stream after attention (with mlp)
    std::vector<float> ln2;                     // L×Nq×C (with mlp)
    std::vector<float> ln2_mean, ln2_rstd;      // L×Nq
    std::vector<float> fc;                      // L×Nq×F: before GELU
    std::vector<float> gelu;                    // L×Nq×F
    std::vector<float> final_ln;                // R×C
    std::vector<float> final_mean, final_rstd;  // R
    std::vector<float> logits, probabilities;   // R×O
    std::vector<AttentionCache> attention;      // L
  };
  // The backward's buffers of gradients with respect to activations.
  struct ActivationGradients {
    std::vector<float> stream;     // N×C: ∂loss/∂(the residual stream)
    std::vector<float> stream_in;  // N×C: the same at the last layer's input, which has more rows
    std::vector<float> normed;     // N×C: of a LayerNorm's output
    std::vector<float> sublayer;   // N×C: of the context (attention) before Wout
    std::vector<float> qkv;        // N×3C
    std::vector<float> hidden;     // N×F: of GELU's output, then of fc's output
    std::vector<float> logits;     // R×O
  };

  const float* value(std::size_t offset) const { return values_.data() + offset; }
  float* gradient(std::size_t offset) { return gradients_.data() + offset; }
  std::size_t add_parameter(const std::string& name, long rows, long cols);
  void initialise();
  AttentionShape attention_shape(long prefix) const;
  void resize_activations(long B, long T, long A);

  TransformerConfig config_;
  std::vector<ParameterInfo> layout_;
  Offsets offsets_;
  std::vector<float> values_, gradients_;
  std::vector<float> sinusoidal_;           // P×C (sinusoidal only)
  std::vector<float> rope_cos_, rope_sin_;  // P×(D/2) (rope only)
  std::vector<float> alibi_slopes_;         // H (alibi only)
  Activations activations_;
  ActivationGradients gradients_of_;
  LinearScratch linear_scratch_;
  std::vector<float> sublayer_out_;  // N×C: a sublayer's output before it joins the stream
};

}  // namespace attn::train
