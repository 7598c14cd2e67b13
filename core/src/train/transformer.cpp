#include "attn/train/transformer.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <string>

#include "attn/errors.hpp"
#include "attn/torch_generator.hpp"
#include "buffers.hpp"

namespace attn::train {

namespace {

// Limits that keep a model and its batches within a browser tab's memory.
constexpr long kMaxVocabulary = 1L << 20;
constexpr long kMaxLayers = 64;
constexpr long kMaxWidth = 4096;
constexpr long kMaxLength = 1L << 16;
// Parameters and position tables together: 64 MiB, four times over with the gradients and
// AdamW's two moments.
constexpr std::uint64_t kMaxModelFloats = std::uint64_t{1} << 24;

}  // namespace

void validate(const TransformerConfig& config, const std::string& prefix) {
  const auto name = [&](const char* option) { return prefix + option; };
  require_whole_number(name("vocab").c_str(), config.vocab, 1, kMaxVocabulary);
  require_whole_number(name("outputs").c_str(), config.outputs, 1, kMaxVocabulary);
  require_whole_number(name("layers").c_str(), config.layers, 1, kMaxLayers);
  require_whole_number(name("dModel").c_str(), config.d_model, 1, kMaxWidth);
  require_whole_number(name("heads").c_str(), config.heads, 1, config.d_model);
  require_whole_number(name("maxLength").c_str(), config.max_length, 1, kMaxLength);
  if (config.d_model % config.heads != 0) {
    fail(name("heads") + " (" + std::to_string(config.heads) + ") must divide " + name("dModel") +
         " (" + std::to_string(config.d_model) + ")");
  }
  const long head_width = config.d_model / config.heads;
  const PositionalType type = config.positional.type;
  require_one_of(type, kModelPositionalTypes);
  if (type == PositionalType::rope && head_width % 2 != 0) {
    fail("positional rope rotates pairs of a head's columns, so " + name("dModel") + " / " +
         name("heads") + " must be even, got " + std::to_string(config.d_model) + " / " +
         std::to_string(config.heads) + " = " + std::to_string(head_width));
  }
  validate(config.positional, config.heads, head_width);
  if (type == PositionalType::alibi) {
    // ALiBi adds -slope · distance to a score; over the longest distance it must stay half of
    // float32's range, so that a softmax's maximum subtracted from it is still finite.
    const double longest = static_cast<double>(config.max_length - 1);
    const double bound = std::numeric_limits<float>::max() / 2.0;
    for (std::size_t h = 0; h < config.positional.slopes.size(); ++h) {
      const double slope = config.positional.slopes[h];
      if (std::abs(slope) * longest > bound) {
        fail(name("positional.slopes") + "[" + std::to_string(h) + "] is " + format_number(slope) +
             ": over a distance of " + format_number(longest) +
             " its bias leaves float32's range; use a slope within ±" +
             format_number(bound / longest));
      }
    }
  }
  const std::uint64_t C = config.d_model, V = config.vocab, O = config.outputs;
  const std::uint64_t P = config.max_length;
  const std::uint64_t per_layer = 4 * C * C + 2 * C + (config.mlp ? 8 * C * C + 7 * C : 0);
  const std::uint64_t parameters = V * C + (type == PositionalType::learned ? P * C : 0) +
                                   config.layers * per_layer + 2 * C + O * C + O;
  // sinusoidal: a P×C table; RoPE: P×(D/2) cosines and as many sines
  const bool table = type == PositionalType::sinusoidal || type == PositionalType::rope;
  const std::uint64_t count = parameters + (table ? P * C : 0);
  if (count > kMaxModelFloats) {
    fail("this model would hold " + std::to_string(count) +
         " numbers (parameters and position tables), more than the " +
         std::to_string(kMaxModelFloats) + " the engine trains; use a smaller " + name("vocab") +
         ", " + name("dModel") + ", " + name("layers") + " or " + name("maxLength"));
  }
}

std::uint64_t activation_floats(const TransformerConfig& config, long batch, long length,
                                long answers) {
  const std::uint64_t L = config.layers, C = config.d_model, F = 4 * C, O = config.outputs;
  const std::uint64_t H = config.heads, D = C / H, B = batch, T = length;
  const std::uint64_t N = B * T, R = B * answers;
  // per layer: ln1 and its two statistics, qkv, context, the attention caches (q, k, weights)
  std::uint64_t per_layer = N * C + 2 * N + 3 * N * C + N * C + 2 * N * C + B * H * T * T;
  if (config.mlp) per_layer += 2 * N * C + 2 * N + 2 * N * F;  // mid, ln2, fc, gelu
  const std::uint64_t stream = (L + 1) * N * C + N * C;        // residual, sublayer out
  const std::uint64_t head = R * C + 2 * R + 2 * R * O;        // final LN, logits, probabilities
  const std::uint64_t gradients = 4 * N * C + 3 * N * C + (config.mlp ? N * F : 0) + R * O;
  const std::uint64_t scratch = D * T + 2 * T * T + 2 * T * D + std::max(3 * C * C, F * C);
  return L * per_layer + stream + head + gradients + scratch;
}

Transformer::Transformer(const TransformerConfig& config) : config_(config) {
  train::validate(config_);
  const long V = config.vocab, C = config.d_model, F = 4 * C, O = config.outputs;
  const long P = config.max_length, H = config.heads, D = C / H;
  const PositionalType type = config.positional.type;

  offsets_.embedding = add_parameter("embedding.weight", V, C);
  offsets_.positional =
      type == PositionalType::learned ? add_parameter("positional.weight", P, C) : 0;
  for (long l = 0; l < config.layers; ++l) {
    const std::string prefix = "blocks." + std::to_string(l) + ".";
    BlockOffsets block{};
    block.ln1_weight = add_parameter(prefix + "ln1.weight", 1, C);
    block.ln1_bias = add_parameter(prefix + "ln1.bias", 1, C);
    block.qkv = add_parameter(prefix + "attention.qkv.weight", 3 * C, C);
    block.out = add_parameter(prefix + "attention.out.weight", C, C);
    if (config.mlp) {
      block.ln2_weight = add_parameter(prefix + "ln2.weight", 1, C);
      block.ln2_bias = add_parameter(prefix + "ln2.bias", 1, C);
      block.fc_weight = add_parameter(prefix + "mlp.fc.weight", F, C);
      block.fc_bias = add_parameter(prefix + "mlp.fc.bias", 1, F);
      block.proj_weight = add_parameter(prefix + "mlp.proj.weight", C, F);
      block.proj_bias = add_parameter(prefix + "mlp.proj.bias", 1, C);
    }
    offsets_.blocks.push_back(block);
  }
  offsets_.final_weight = add_parameter("final_ln.weight", 1, C);
  offsets_.final_bias = add_parameter("final_ln.bias", 1, C);
  offsets_.head_weight = add_parameter("head.weight", O, C);
  offsets_.head_bias = add_parameter("head.bias", 1, O);
  values_.assign(layout_.back().offset + layout_.back().size(), 0.0f);
  gradients_.assign(values_.size(), 0.0f);
  initialise();

  if (type == PositionalType::sinusoidal) {
    const Matrix table = sinusoidal_encoding(P, C);
    sinusoidal_.assign(table.begin(), table.end());
  }
  if (type == PositionalType::rope) {
    const long half = D / 2;
    rope_cos_.resize(std::size_t(P) * half);
    rope_sin_.resize(std::size_t(P) * half);
    for (long t = 0; t < half; ++t) {
      const double frequency = rope_frequency(config.positional.base, t, D);
      for (long p = 0; p < P; ++p) {
        rope_cos_[p * half + t] = static_cast<float>(std::cos(p * frequency));
        rope_sin_[p * half + t] = static_cast<float>(std::sin(p * frequency));
      }
    }
  }
  if (type == PositionalType::alibi) {
    alibi_slopes_ =
        config.positional.slopes.empty() ? alibi_default_slopes(H) : config.positional.slopes;
  }
  activations_.attention.resize(config.layers);
}

std::size_t Transformer::add_parameter(const std::string& name, long rows, long cols) {
  const std::size_t offset = layout_.empty() ? 0 : layout_.back().offset + layout_.back().size();
  layout_.push_back({name, rows, cols, offset});
  return offset;
}

void Transformer::initialise() {
  // Draws in the order of parameter_names(), as building the PyTorch modules in that order
  // after torch.manual_seed(seed) does.
  TorchGenerator generator(config_.seed);
  const auto store = [&](std::size_t offset, const Matrix& drawn) {
    std::copy(drawn.begin(), drawn.end(), values_.begin() + offset);
  };
  const auto ones = [&](std::size_t offset) {
    std::fill_n(values_.begin() + offset, config_.d_model, 1.0f);
  };
  // nn.Linear(in, out): the weight, then the bias when there is one.
  const auto store_linear = [&](long in, long out, std::size_t weight,
                                std::optional<std::size_t> bias) {
    const LinearParameters linear = generator.linear(in, out, bias.has_value());
    store(weight, linear.weight);
    if (bias) std::copy(linear.bias->begin(), linear.bias->end(), values_.begin() + *bias);
  };
  const long C = config_.d_model, F = 4 * C;
  store(offsets_.embedding, generator.randn(config_.vocab, C));
  if (config_.positional.type == PositionalType::learned) {
    store(offsets_.positional, generator.randn(config_.max_length, C));
  }
  for (const BlockOffsets& block : offsets_.blocks) {
    ones(block.ln1_weight);  // LayerNorm: weight 1, bias 0 (values_ starts at 0)
    store_linear(C, 3 * C, block.qkv, std::nullopt);
    store_linear(C, C, block.out, std::nullopt);
    if (config_.mlp) {
      ones(block.ln2_weight);
      store_linear(C, F, block.fc_weight, block.fc_bias);
      store_linear(F, C, block.proj_weight, block.proj_bias);
    }
  }
  ones(offsets_.final_weight);
  store_linear(C, config_.outputs, offsets_.head_weight, offsets_.head_bias);
}

std::vector<std::string> Transformer::parameter_names() const {
  std::vector<std::string> names;
  for (const ParameterInfo& info : layout_) names.push_back(info.name);
  return names;
}

namespace {

const ParameterInfo& find_parameter(const std::vector<ParameterInfo>& layout,
                                    const std::string& name) {
  for (const ParameterInfo& info : layout) {
    if (info.name == name) return info;
  }
  std::string known;
  for (const ParameterInfo& info : layout) known += (known.empty() ? "" : ", ") + info.name;
  fail("unknown parameter '" + name + "'; this model has " + known);
}

}  // namespace

Matrix Transformer::parameter(const std::string& name) const {
  const ParameterInfo& info = find_parameter(layout_, name);
  Matrix result = Matrix::from_shape({std::size_t(info.rows), std::size_t(info.cols)});
  std::copy_n(values_.begin() + info.offset, info.size(), result.begin());
  return result;
}

void Transformer::set_parameter(const std::string& name, const Matrix& value) {
  const ParameterInfo& info = find_parameter(layout_, name);
  if (long(value.shape(0)) != info.rows || long(value.shape(1)) != info.cols) {
    fail(name + " is " + std::to_string(info.rows) + "×" + std::to_string(info.cols) +
         " but the new value is " + shape_string(value));
  }
  require_finite(name.c_str(), value);
  std::copy(value.begin(), value.end(), values_.begin() + info.offset);
}

void Transformer::zero_gradients() { std::fill(gradients_.begin(), gradients_.end(), 0.0f); }

void Transformer::validate(const Batch& batch) const {
  require_whole_number("batch", batch.B, 1, long(kMaxActivationFloats));
  if (batch.tokens == nullptr) fail("tokens are missing");
  if (batch.T < 1 || batch.T > config_.max_length) {
    fail("sequences of " + std::to_string(batch.T) +
         " tokens do not fit this model: the length "
         "must be from 1 to maxLength (" +
         std::to_string(config_.max_length) + ")");
  }
  if (batch.A < 1 || batch.A > batch.T) {
    fail("answers must be from 1 to the sequence length (" + std::to_string(batch.T) + "), got " +
         std::to_string(batch.A));
  }
  if (batch.prefix < 0 || batch.prefix > batch.T) {
    fail("prefix must be from 0 to the sequence length (" + std::to_string(batch.T) + "), got " +
         std::to_string(batch.prefix));
  }
  const std::uint64_t N = std::uint64_t(batch.B) * batch.T;
  const std::uint64_t floats = activation_floats(config_, batch.B, batch.T, batch.A);
  if (floats > kMaxActivationFloats) {
    fail("a batch of " + std::to_string(batch.B) + " sequences of " + std::to_string(batch.T) +
         " tokens needs " + std::to_string(floats * sizeof(float)) +
         " bytes of activations, more than the engine's " +
         std::to_string(kMaxActivationFloats * sizeof(float)) + "; use a smaller batch");
  }
  for (std::uint64_t n = 0; n < N; ++n) {
    if (batch.tokens[n] < 0 || batch.tokens[n] >= config_.vocab) {
      fail("tokens[" + std::to_string(n) + "] is " + std::to_string(batch.tokens[n]) +
           "; token ids go from 0 to vocab - 1 = " + std::to_string(config_.vocab - 1));
    }
  }
  if (batch.targets == nullptr) return;
  for (long r = 0; r < batch.B * batch.A; ++r) {
    if (batch.targets[r] < 0 || batch.targets[r] >= config_.outputs) {
      fail("targets[" + std::to_string(r) + "] is " + std::to_string(batch.targets[r]) +
           "; class ids go from 0 to outputs - 1 = " + std::to_string(config_.outputs - 1));
    }
  }
}

AttentionShape Transformer::attention_shape(long prefix) const {
  AttentionShape shape;
  shape.H = config_.heads;
  shape.D = config_.d_model / config_.heads;
  shape.scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(shape.D)));
  shape.mask.causal = true;
  shape.mask.prefix = prefix;
  if (!alibi_slopes_.empty()) shape.alibi_slopes = &alibi_slopes_;
  if (!rope_cos_.empty()) {
    shape.rope_cos = &rope_cos_;
    shape.rope_sin = &rope_sin_;
    shape.rope_pairing = config_.positional.pairing;
  }
  return shape;
}

void Transformer::resize_activations(long B, long T, long A) {
  const std::size_t L = config_.layers, N = std::size_t(B) * T, C = config_.d_model, F = 4 * C;
  const std::size_t R = std::size_t(B) * A, O = config_.outputs;
  Activations& a = activations_;
  grow(a.residual, (L + 1) * N * C);
  grow(a.ln1, L * N * C);
  grow(a.ln1_mean, L * N);
  grow(a.ln1_rstd, L * N);
  grow(a.qkv, L * N * 3 * C);
  grow(a.context, L * N * C);
  if (config_.mlp) {
    grow(a.mid, L * N * C);
    grow(a.ln2, L * N * C);
    grow(a.ln2_mean, L * N);
    grow(a.ln2_rstd, L * N);
    grow(a.fc, L * N * F);
    grow(a.gelu, L * N * F);
  }
  grow(a.final_ln, R * C);
  grow(a.final_mean, R);
  grow(a.final_rstd, R);
  grow(a.logits, R * O);
  grow(a.probabilities, R * O);
  grow(sublayer_out_, N * C);
}

namespace {

// The rows of the last Tq positions of each of B sequences of T: to (B·Tq×C) from (B·T×C).
void gather_queries(float* to, const float* from, long B, long T, long Tq, long C) {
  for (long b = 0; b < B; ++b) {
    std::memcpy(to + b * Tq * C, from + (b * T + T - Tq) * C, Tq * C * sizeof(float));
  }
}

// to (B·T×C) = from (B·Tq×C) in the rows of the last Tq positions, 0 elsewhere.
void scatter_queries(float* to, const float* from, long B, long T, long Tq, long C) {
  std::fill_n(to, B * T * C, 0.0f);
  for (long b = 0; b < B; ++b) {
    std::memcpy(to + (b * T + T - Tq) * C, from + b * Tq * C, Tq * C * sizeof(float));
  }
}

}  // namespace

const float* Transformer::attention_weights(long layer) const {
  require_whole_number("layer", layer, 0, config_.layers - 1);
  return activations_.attention[layer].weights.data();
}

long Transformer::queries(long layer, const Batch& batch) const {
  return layer == config_.layers - 1 ? batch.A : batch.T;
}

double Transformer::forward(const Batch& batch) {
  validate(batch);
  const long B = batch.B, T = batch.T, N = B * T, C = config_.d_model, F = 4 * C;
  const long R = B * batch.A, O = config_.outputs;
  resize_activations(B, T, batch.A);
  last_forward_ = {batch.tokens, B, T, batch.A, batch.prefix, batch.targets != nullptr};
  Activations& a = activations_;
  const AttentionShape shape = attention_shape(batch.prefix);

  // embedding, and position vectors when they are added to it
  float* x = a.residual.data();
  embedding_forward(x, batch.tokens, value(offsets_.embedding), N, C);
  if (config_.positional.type == PositionalType::learned) {
    positions_forward(x, value(offsets_.positional), B, T, C);
  } else if (config_.positional.type == PositionalType::sinusoidal) {
    positions_forward(x, sinusoidal_.data(), B, T, C);
  }

  for (long l = 0; l < config_.layers; ++l) {
    // Every layer reads all N rows; it computes Nq = B·Tq: all of them, except in the last
    // layer, where only the answer positions go on to the head.
    const long Tq = queries(l, batch), Nq = B * Tq;
    const BlockOffsets& p = offsets_.blocks[l];
    const float* x_in = a.residual.data() + l * N * C;   // N×C
    float* x_out = a.residual.data() + (l + 1) * N * C;  // Nq×C
    float* ln1 = a.ln1.data() + l * N * C;
    float* qkv = a.qkv.data() + l * N * 3 * C;
    float* context = a.context.data() + l * N * C;
    // attention sublayer: x_mid = x_in + attention(ln1(x_in))·Woutᵀ, on the query rows
    layernorm_forward(ln1, a.ln1_mean.data() + l * N, a.ln1_rstd.data() + l * N, x_in,
                      value(p.ln1_weight), value(p.ln1_bias), N, C);
    linear_forward(qkv, ln1, value(p.qkv), nullptr, N, C, 3 * C, linear_scratch_);
    attention_forward(context, qkv, B, T, Tq, shape, a.attention[l]);
    linear_forward(sublayer_out_.data(), context, value(p.out), nullptr, Nq, C, C, linear_scratch_);
    float* mid = config_.mlp ? a.mid.data() + l * N * C : x_out;
    gather_queries(mid, x_in, B, T, Tq, C);
    for (long i = 0; i < Nq * C; ++i) mid[i] += sublayer_out_[i];
    if (!config_.mlp) continue;
    // MLP sublayer: x_out = x_mid + proj(gelu(fc(ln2(x_mid))))
    float* ln2 = a.ln2.data() + l * N * C;
    float* fc = a.fc.data() + l * N * F;
    float* gelu = a.gelu.data() + l * N * F;
    layernorm_forward(ln2, a.ln2_mean.data() + l * N, a.ln2_rstd.data() + l * N, mid,
                      value(p.ln2_weight), value(p.ln2_bias), Nq, C);
    linear_forward(fc, ln2, value(p.fc_weight), value(p.fc_bias), Nq, C, F, linear_scratch_);
    gelu_forward(gelu, fc, Nq * F);
    linear_forward(sublayer_out_.data(), gelu, value(p.proj_weight), value(p.proj_bias), Nq, F, C,
                   linear_scratch_);
    for (long i = 0; i < Nq * C; ++i) x_out[i] = mid[i] + sublayer_out_[i];
  }

  // the last stream holds the R answer rows: final LayerNorm → head
  const float* answers = a.residual.data() + config_.layers * N * C;  // R×C
  layernorm_forward(a.final_ln.data(), a.final_mean.data(), a.final_rstd.data(), answers,
                    value(offsets_.final_weight), value(offsets_.final_bias), R, C);
  linear_forward(a.logits.data(), a.final_ln.data(), value(offsets_.head_weight),
                 value(offsets_.head_bias), R, C, O, linear_scratch_);
  if (batch.targets == nullptr) return 0.0;
  return cross_entropy_forward(a.probabilities.data(), a.logits.data(), batch.targets, R, O);
}

void Transformer::backward(const Batch& batch, float weight) {
  const ForwardShape& last = last_forward_;
  if (!last.with_targets || last.tokens != batch.tokens || last.B != batch.B || last.T != batch.T ||
      last.A != batch.A || last.prefix != batch.prefix || batch.targets == nullptr) {
    fail("backward needs the batch of the last forward, run with targets");
  }
  const long B = batch.B, T = batch.T, N = B * T, C = config_.d_model, F = 4 * C;
  const long R = B * batch.A, O = config_.outputs;
  const Activations& a = activations_;
  ActivationGradients& d = gradients_of_;
  const AttentionShape shape = attention_shape(batch.prefix);
  grow(d.stream, std::size_t(N) * C);
  grow(d.stream_in, std::size_t(N) * C);
  float* dnormed = grow(d.normed, std::size_t(N) * C);
  float* dsublayer = grow(d.sublayer, std::size_t(N) * C);
  float* dqkv = grow(d.qkv, std::size_t(N) * 3 * C);
  float* dhidden = config_.mlp ? grow(d.hidden, std::size_t(N) * F) : nullptr;
  float* dlogits = grow(d.logits, std::size_t(R) * O);

  // loss → head → final LayerNorm → the answer rows of the last stream
  cross_entropy_backward(dlogits, a.probabilities.data(), batch.targets, R, O, weight);
  linear_backward(dnormed, gradient(offsets_.head_weight), gradient(offsets_.head_bias), dlogits,
                  a.final_ln.data(), value(offsets_.head_weight), R, C, O);
  std::fill_n(d.stream.data(), R * C, 0.0f);
  layernorm_backward(d.stream.data(), gradient(offsets_.final_weight),
                     gradient(offsets_.final_bias), dnormed,
                     a.residual.data() + config_.layers * N * C, value(offsets_.final_weight),
                     a.final_mean.data(), a.final_rstd.data(), R, C);

  for (long l = config_.layers - 1; l >= 0; --l) {
    const long Tq = queries(l, batch), Nq = B * Tq;
    const BlockOffsets& p = offsets_.blocks[l];
    float* dstream = d.stream.data();  // Nq×C: ∂loss/∂(this layer's output)
    if (config_.mlp) {
      // MLP sublayer: dstream flows on unchanged (the residual) and through the MLP.
      const float* mid = a.mid.data() + l * N * C;
      const float* fc = a.fc.data() + l * N * F;
      linear_backward(dhidden, gradient(p.proj_weight), gradient(p.proj_bias), dstream,
                      a.gelu.data() + l * N * F, value(p.proj_weight), Nq, F, C);
      gelu_backward(dhidden, dhidden, fc, Nq * F);
      linear_backward(dnormed, gradient(p.fc_weight), gradient(p.fc_bias), dhidden,
                      a.ln2.data() + l * N * C, value(p.fc_weight), Nq, C, F);
      layernorm_backward(dstream, gradient(p.ln2_weight), gradient(p.ln2_bias), dnormed, mid,
                         value(p.ln2_weight), a.ln2_mean.data() + l * N, a.ln2_rstd.data() + l * N,
                         Nq, C);
    }
    // attention sublayer, the same way; its input has all N rows
    linear_backward(dsublayer, gradient(p.out), nullptr, dstream, a.context.data() + l * N * C,
                    value(p.out), Nq, C, C);
    attention_backward(dqkv, dsublayer, a.qkv.data() + l * N * 3 * C, B, T, Tq, shape,
                       activations_.attention[l]);
    linear_backward(dnormed, gradient(p.qkv), nullptr, dqkv, a.ln1.data() + l * N * C, value(p.qkv),
                    N, C, 3 * C);
    float* dinput = dstream;  // N×C: ∂loss/∂(this layer's input)
    if (Tq != T) {
      dinput = d.stream_in.data();
      scatter_queries(dinput, dstream, B, T, Tq, C);
      std::swap(d.stream, d.stream_in);
    }
    layernorm_backward(dinput, gradient(p.ln1_weight), gradient(p.ln1_bias), dnormed,
                       a.residual.data() + l * N * C, value(p.ln1_weight),
                       a.ln1_mean.data() + l * N, a.ln1_rstd.data() + l * N, N, C);
  }

  const float* dembedded = d.stream.data();  // N×C
  embedding_backward(gradient(offsets_.embedding), dembedded, batch.tokens, N, C);
  if (config_.positional.type == PositionalType::learned) {
    positions_backward(gradient(offsets_.positional), dembedded, B, T, C);
  }
}

double Transformer::loss_and_gradients(const Batch& batch) {
  zero_gradients();
  const double loss = forward(batch);
  backward(batch);
  return loss;
}

}  // namespace attn::train
