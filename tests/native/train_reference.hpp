// A double-precision reference of the trainable transformer, written from its description
// in attn/train/transformer.hpp with plain loops and no code of the engine: the tests
// differentiate it by central finite differences and compare with the float32 backward.
// Letters as in attn/train/layers.hpp.
#pragma once

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "attn/train/transformer.hpp"

namespace train_reference {

using Values = std::vector<double>;

// y (rows×out) = x (rows×in) · weightᵀ (weight: out×in) + bias (out, or empty).
inline Values linear(const Values& x, const double* weight, const double* bias, long rows, long in,
                     long out) {
  Values y(rows * out, 0.0);
  for (long r = 0; r < rows; ++r) {
    for (long o = 0; o < out; ++o) {
      double sum = bias != nullptr ? bias[o] : 0.0;
      for (long i = 0; i < in; ++i) sum += x[r * in + i] * weight[o * in + i];
      y[r * out + o] = sum;
    }
  }
  return y;
}

// Each row normalised to mean 0 and variance 1 (ε = 1e-5), then · weight + bias.
inline Values layernorm(const Values& x, const double* weight, const double* bias, long rows,
                        long C) {
  Values y(x.size());
  for (long r = 0; r < rows; ++r) {
    double mean = 0.0, variance = 0.0;
    for (long c = 0; c < C; ++c) mean += x[r * C + c] / C;
    for (long c = 0; c < C; ++c) variance += (x[r * C + c] - mean) * (x[r * C + c] - mean) / C;
    for (long c = 0; c < C; ++c) {
      y[r * C + c] = (x[r * C + c] - mean) / std::sqrt(variance + 1e-5) * weight[c] + bias[c];
    }
  }
  return y;
}

inline Values gelu(const Values& x) {
  Values y(x.size());
  for (std::size_t i = 0; i < x.size(); ++i)
    y[i] = 0.5 * x[i] * (1.0 + std::erf(x[i] / std::sqrt(2.0)));
  return y;
}

// The attention of one layer: context (N×C) from qkv (N×3C).
struct AttentionSpec {
  long H = 1, D = 1;
  attn::PositionalOptions positional;  // none, rope or alibi
  long prefix = 0;
};

inline void rotate(double* row, long D, long position, const attn::PositionalOptions& positional) {
  const long half = D / 2;
  for (long t = 0; t < half; ++t) {
    const bool interleaved = positional.pairing == attn::RopePairing::interleaved;
    const long a = interleaved ? 2 * t : t, b = interleaved ? 2 * t + 1 : t + half;
    const double angle = position * std::pow(positional.base, -2.0 * t / D);
    const double xa = row[a], xb = row[b];
    row[a] = xa * std::cos(angle) - xb * std::sin(angle);
    row[b] = xa * std::sin(angle) + xb * std::cos(angle);
  }
}

// weights (optional out): B×H×T×T.
inline Values attention(const Values& qkv, long B, long T, const AttentionSpec& spec,
                        Values* weights = nullptr) {
  const long H = spec.H, D = spec.D, C = H * D;
  Values context(B * T * C, 0.0);
  if (weights != nullptr) weights->assign(B * H * T * T, 0.0);
  std::vector<double> slopes(H, 0.0);
  if (spec.positional.type == attn::PositionalType::alibi) {
    for (long h = 0; h < H; ++h) {
      slopes[h] = spec.positional.slopes.empty() ? std::pow(2.0, -8.0 * (h + 1) / H)
                                                 : spec.positional.slopes[h];
    }
  }
  for (long b = 0; b < B; ++b) {
    for (long h = 0; h < H; ++h) {
      std::vector<double> q(T * D), k(T * D);
      for (long t = 0; t < T; ++t) {
        for (long d = 0; d < D; ++d) {
          q[t * D + d] = qkv[(b * T + t) * 3 * C + h * D + d];
          k[t * D + d] = qkv[(b * T + t) * 3 * C + C + h * D + d];
        }
        if (spec.positional.type == attn::PositionalType::rope) {
          rotate(&q[t * D], D, t, spec.positional);
          rotate(&k[t * D], D, t, spec.positional);
        }
      }
      for (long i = 0; i < T; ++i) {
        std::vector<double> score(T, -INFINITY);
        double largest = -INFINITY;
        for (long j = 0; j < T; ++j) {
          const bool visible = j <= i || (i < spec.prefix && j < spec.prefix);
          if (!visible) continue;
          double dot = 0.0;
          for (long d = 0; d < D; ++d) dot += q[i * D + d] * k[j * D + d];
          score[j] = dot / std::sqrt(double(D)) - slopes[h] * std::abs(double(i - j));
          largest = std::max(largest, score[j]);
        }
        double total = 0.0;
        for (long j = 0; j < T; ++j)
          total += std::isinf(score[j]) ? 0.0 : std::exp(score[j] - largest);
        for (long j = 0; j < T; ++j) {
          const double w = std::isinf(score[j]) ? 0.0 : std::exp(score[j] - largest) / total;
          if (weights != nullptr) (*weights)[((b * H + h) * T + i) * T + j] = w;
          for (long d = 0; d < D; ++d) {
            context[(b * T + i) * C + h * D + d] +=
                w * qkv[(b * T + j) * 3 * C + 2 * C + h * D + d];
          }
        }
      }
    }
  }
  return context;
}

// Mean cross-entropy of R rows of logits (R×O) against class ids.
inline double cross_entropy(const Values& logits, const int* targets, long R, long O) {
  double total = 0.0;
  for (long r = 0; r < R; ++r) {
    double largest = -INFINITY, sum = 0.0;
    for (long o = 0; o < O; ++o) largest = std::max(largest, logits[r * O + o]);
    for (long o = 0; o < O; ++o) sum += std::exp(logits[r * O + o] - largest);
    total += std::log(sum) + largest - logits[r * O + targets[r]];
  }
  return total / R;
}

// The parameters of a model by name, in double.
struct Parameters {
  const std::vector<attn::train::ParameterInfo>* layout;
  const Values* values;
  const double* operator[](const std::string& name) const {
    for (const auto& info : *layout) {
      if (info.name == name) return values->data() + info.offset;
    }
    throw std::runtime_error("no parameter " + name);
  }
};

// The model's mean loss on a batch (and its logits, R×O), in double.
inline double model_loss(const attn::train::TransformerConfig& config, const Parameters& p,
                         const attn::train::Batch& batch, Values* logits_out = nullptr) {
  const long B = batch.B, T = batch.T, A = batch.A, C = config.d_model, N = B * T;
  const long H = config.heads, F = 4 * C, O = config.outputs;
  Values x(N * C);
  for (long n = 0; n < N; ++n) {
    const long t = n % T;
    for (long c = 0; c < C; ++c) {
      double value = p["embedding.weight"][batch.tokens[n] * C + c];
      if (config.positional.type == attn::PositionalType::learned) {
        value += p["positional.weight"][t * C + c];
      } else if (config.positional.type == attn::PositionalType::sinusoidal) {
        const double angle = t / std::pow(10000.0, 2.0 * (c / 2) / C);
        value += c % 2 == 0 ? std::sin(angle) : std::cos(angle);
      }
      x[n * C + c] = value;
    }
  }
  AttentionSpec spec;
  spec.H = H;
  spec.D = C / H;
  spec.prefix = batch.prefix;
  const auto type = config.positional.type;
  if (type == attn::PositionalType::rope || type == attn::PositionalType::alibi) {
    spec.positional = config.positional;
  }
  for (long l = 0; l < config.layers; ++l) {
    const std::string block = "blocks." + std::to_string(l) + ".";
    const Values h1 = layernorm(x, p[block + "ln1.weight"], p[block + "ln1.bias"], N, C);
    const Values qkv = linear(h1, p[block + "attention.qkv.weight"], nullptr, N, C, 3 * C);
    const Values context = attention(qkv, B, T, spec);
    const Values out = linear(context, p[block + "attention.out.weight"], nullptr, N, C, C);
    for (long i = 0; i < N * C; ++i) x[i] += out[i];
    if (!config.mlp) continue;
    const Values h2 = layernorm(x, p[block + "ln2.weight"], p[block + "ln2.bias"], N, C);
    const Values hidden =
        gelu(linear(h2, p[block + "mlp.fc.weight"], p[block + "mlp.fc.bias"], N, C, F));
    const Values mlp =
        linear(hidden, p[block + "mlp.proj.weight"], p[block + "mlp.proj.bias"], N, F, C);
    for (long i = 0; i < N * C; ++i) x[i] += mlp[i];
  }
  Values answers(B * A * C);
  for (long b = 0; b < B; ++b) {
    std::copy_n(x.begin() + (b * T + T - A) * C, A * C, answers.begin() + b * A * C);
  }
  const Values normed = layernorm(answers, p["final_ln.weight"], p["final_ln.bias"], B * A, C);
  const Values logits = linear(normed, p["head.weight"], p["head.bias"], B * A, C, O);
  if (logits_out != nullptr) *logits_out = logits;
  return cross_entropy(logits, batch.targets, B * A, O);
}

// ∂f/∂values[i] by central differences (double; the step suits values of order 1).
template <class Function>
Values numerical_gradient(Values& values, Function&& f, double step = 1e-5) {
  Values gradient(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double saved = values[i];
    values[i] = saved + step;
    const double above = f();
    values[i] = saved - step;
    const double below = f();
    values[i] = saved;
    gradient[i] = (above - below) / (2 * step);
  }
  return gradient;
}

}  // namespace train_reference
