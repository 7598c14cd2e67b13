// Each layer of attn/train/layers.hpp: its forward against the double-precision reference,
// and its backward against central finite differences of that reference, for the
// objective J = Σ r ⊙ output with a random r.
#include <random>
#include <xtensor/xadapt.hpp>

#include "attn/attention.hpp"
#include "attn/train/layers.hpp"
#include "helpers.hpp"
#include "train_reference.hpp"

namespace {

using train_reference::Values;

std::vector<float> random_floats(std::size_t count, std::mt19937& rng, float scale = 1.0f) {
  std::uniform_real_distribution<float> uniform(-scale, scale);
  std::vector<float> values(count);
  for (float& value : values) value = uniform(rng);
  return values;
}

Values to_double(const std::vector<float>& values) { return Values(values.begin(), values.end()); }

double dot(const Values& a, const std::vector<float>& b) {
  double sum = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) sum += a[i] * b[i];
  return sum;
}

// max |analytic - numerical| ≤ tolerance · max(1, max |numerical|).
void check_gradient(const char* what, const float* analytic, const Values& numerical,
                    double tolerance = 2e-4) {
  double worst = 0.0, largest = 1.0;
  for (std::size_t i = 0; i < numerical.size(); ++i) {
    worst = std::max(worst, std::abs(analytic[i] - numerical[i]));
    largest = std::max(largest, std::abs(numerical[i]));
  }
  INFO(what << ": max abs diff " << worst << " against finite differences, tolerance "
            << tolerance * largest);
  CHECK(worst <= tolerance * largest);
}

void check_values(const char* what, const float* computed, const Values& reference,
                  double tolerance = 1e-5) {
  double worst = 0.0;
  for (std::size_t i = 0; i < reference.size(); ++i) {
    worst = std::max(worst, std::abs(computed[i] - reference[i]));
  }
  INFO(what << ": max abs diff " << worst << " from the double reference");
  CHECK(worst <= tolerance);
}

}  // namespace

TEST_CASE("train layernorm: forward equals the reference, gradients equal finite differences",
          "[train][layers]") {
  std::mt19937 rng(1);
  const long rows = 5, C = 12;
  // inputs of about unit variance, and of a variance (~3e-7) far below layernorm's ε (1e-5)
  const float scale = GENERATE(2.0f, 1e-3f);
  INFO("inputs in ±" << scale);
  const auto x = random_floats(rows * C, rng, scale), weight = random_floats(C, rng),
             bias = random_floats(C, rng), r = random_floats(rows * C, rng);
  std::vector<float> out(rows * C), mean(rows), rstd(rows);
  attn::train::layernorm_forward(out.data(), mean.data(), rstd.data(), x.data(), weight.data(),
                                 bias.data(), rows, C);
  Values xd = to_double(x), wd = to_double(weight), bd = to_double(bias);
  const auto objective = [&] {
    return dot(train_reference::layernorm(xd, wd.data(), bd.data(), rows, C), r);
  };
  check_values("layernorm", out.data(),
               train_reference::layernorm(xd, wd.data(), bd.data(), rows, C));

  std::vector<float> dx(rows * C, 0.0f), dweight(C, 0.0f), dbias(C, 0.0f);
  attn::train::layernorm_backward(dx.data(), dweight.data(), dbias.data(), r.data(), x.data(),
                                  weight.data(), mean.data(), rstd.data(), rows, C);
  check_gradient("dx", dx.data(), train_reference::numerical_gradient(xd, objective));
  check_gradient("dweight", dweight.data(), train_reference::numerical_gradient(wd, objective));
  check_gradient("dbias", dbias.data(), train_reference::numerical_gradient(bd, objective));
}

TEST_CASE("train linear: forward equals the reference, gradients equal finite differences",
          "[train][layers]") {
  std::mt19937 rng(2);
  // 37 rows and 19 outputs: past the matmul's register blocks, with leftover rows and columns.
  const long rows = 37, in = 11, out_features = 19;
  const auto x = random_floats(rows * in, rng), weight = random_floats(out_features * in, rng),
             bias = random_floats(out_features, rng), r = random_floats(rows * out_features, rng);
  attn::train::LinearScratch scratch;
  for (bool with_bias : {true, false}) {
    std::vector<float> y(rows * out_features);
    attn::train::linear_forward(y.data(), x.data(), weight.data(),
                                with_bias ? bias.data() : nullptr, rows, in, out_features, scratch);
    Values xd = to_double(x), wd = to_double(weight), bd = to_double(bias);
    const auto objective = [&] {
      return dot(train_reference::linear(xd, wd.data(), with_bias ? bd.data() : nullptr, rows, in,
                                         out_features),
                 r);
    };
    check_values("linear", y.data(),
                 train_reference::linear(xd, wd.data(), with_bias ? bd.data() : nullptr, rows, in,
                                         out_features));
    std::vector<float> dx(rows * in, 0.0f), dweight(out_features * in, 0.0f),
        dbias(out_features, 0.0f);
    attn::train::linear_backward(dx.data(), dweight.data(), with_bias ? dbias.data() : nullptr,
                                 r.data(), x.data(), weight.data(), rows, in, out_features);
    check_gradient("dx", dx.data(), train_reference::numerical_gradient(xd, objective));
    check_gradient("dweight", dweight.data(), train_reference::numerical_gradient(wd, objective));
    if (with_bias)
      check_gradient("dbias", dbias.data(), train_reference::numerical_gradient(bd, objective));
  }
}

TEST_CASE("train linear: the backward writes dx and adds into the parameters' gradients",
          "[train][layers]") {
  std::mt19937 rng(3);
  const long rows = 6, in = 4, out_features = 5;
  const auto x = random_floats(rows * in, rng), weight = random_floats(out_features * in, rng),
             r = random_floats(rows * out_features, rng);
  std::vector<float> dx_once(rows * in, 0.0f), dw_once(out_features * in, 0.0f),
      db_once(out_features, 0.0f);
  attn::train::linear_backward(dx_once.data(), dw_once.data(), db_once.data(), r.data(), x.data(),
                               weight.data(), rows, in, out_features);
  std::vector<float> dx_twice(dx_once), dw_twice(dw_once), db_twice(db_once);
  attn::train::linear_backward(dx_twice.data(), dw_twice.data(), db_twice.data(), r.data(),
                               x.data(), weight.data(), rows, in, out_features);
  CHECK(dx_twice == dx_once);
  for (std::size_t i = 0; i < dw_once.size(); ++i)
    CHECK(dw_twice[i] == Approx(2 * dw_once[i]).margin(1e-6));
  for (std::size_t i = 0; i < db_once.size(); ++i)
    CHECK(db_twice[i] == Approx(2 * db_once[i]).margin(1e-6));
}

TEST_CASE("train gelu: exact erf GELU and its derivative", "[train][layers]") {
  std::mt19937 rng(4);
  const auto x = random_floats(40, rng, 4.0f), r = random_floats(40, rng);
  std::vector<float> y(40), dx(40);
  attn::train::gelu_forward(y.data(), x.data(), 40);
  Values xd = to_double(x);
  check_values("gelu", y.data(), train_reference::gelu(xd), 1e-6);
  // Golden values of torch.nn.functional.gelu (approximate='none').
  const float points[] = {-3.0f, -1.0f, 0.0f, 0.5f, 2.0f};
  const double torch_gelu[] = {-0.0040496, -0.1586553, 0.0, 0.3457312, 1.9544997};
  for (int i = 0; i < 5; ++i) {
    float value;
    attn::train::gelu_forward(&value, &points[i], 1);
    CHECK(value == Approx(torch_gelu[i]).margin(1e-6));
  }
  attn::train::gelu_backward(dx.data(), r.data(), x.data(), 40);
  check_gradient("dx", dx.data(), train_reference::numerical_gradient(xd, [&] {
                   return dot(train_reference::gelu(xd), r);
                 }));
}

TEST_CASE("train cross-entropy: mean loss, and its gradient scaled by the objective's weight",
          "[train][layers]") {
  std::mt19937 rng(5);
  const long R = 7, O = 6;
  const auto logits = random_floats(R * O, rng, 3.0f);
  const std::vector<int> targets = {0, 5, 2, 2, 3, 1, 4};
  std::vector<float> probabilities(R * O), dlogits(R * O);
  const double loss =
      attn::train::cross_entropy_forward(probabilities.data(), logits.data(), targets.data(), R, O);
  Values ld = to_double(logits);
  CHECK(loss == Approx(train_reference::cross_entropy(ld, targets.data(), R, O)).epsilon(1e-6));
  for (long r = 0; r < R; ++r) {
    double sum = 0.0;
    for (long o = 0; o < O; ++o) sum += probabilities[r * O + o];
    CHECK(sum == Approx(1.0).epsilon(1e-6));
  }
  const float weight = 0.25f;
  attn::train::cross_entropy_backward(dlogits.data(), probabilities.data(), targets.data(), R, O,
                                      weight);
  check_gradient("dlogits", dlogits.data(), train_reference::numerical_gradient(ld, [&] {
                   return weight * train_reference::cross_entropy(ld, targets.data(), R, O);
                 }));
  // A uniform prediction over O classes costs log O.
  const std::vector<float> flat(O, 0.5f);
  std::vector<float> p(O);
  const int target = 3;
  CHECK(attn::train::cross_entropy_forward(p.data(), flat.data(), &target, 1, O) ==
        Approx(std::log(double(O))));
}

TEST_CASE("train embedding and positions: rows looked up and added, gradients summed back",
          "[train][layers]") {
  std::mt19937 rng(6);
  const long V = 5, C = 3, B = 2, T = 4, N = B * T;
  const auto table = random_floats(V * C, rng), positions = random_floats(T * C, rng),
             r = random_floats(N * C, rng);
  const std::vector<int> tokens = {0, 4, 4, 1, 2, 2, 0, 3};
  std::vector<float> out(N * C);
  attn::train::embedding_forward(out.data(), tokens.data(), table.data(), N, C);
  attn::train::positions_forward(out.data(), positions.data(), B, T, C);
  for (long n = 0; n < N; ++n) {
    for (long c = 0; c < C; ++c) {
      CHECK(out[n * C + c] == table[tokens[n] * C + c] + positions[(n % T) * C + c]);
    }
  }
  std::vector<float> dtable(V * C, 0.0f), dpositions(T * C, 0.0f);
  attn::train::embedding_backward(dtable.data(), r.data(), tokens.data(), N, C);
  attn::train::positions_backward(dpositions.data(), r.data(), B, T, C);
  // Each token's gradient is the sum of the rows it appears at (token 2 at rows 4 and 5, token 3
  // at the last), each position's of its row in every sequence.
  std::vector<double> token_sums(V * C, 0.0), position_sums(T * C, 0.0);
  for (long n = 0; n < N; ++n) {
    for (long c = 0; c < C; ++c) {
      token_sums[tokens[n] * C + c] += r[n * C + c];
      position_sums[(n % T) * C + c] += r[n * C + c];
    }
  }
  for (long i = 0; i < V * C; ++i) CHECK(dtable[i] == Approx(token_sums[i]));
  for (long i = 0; i < T * C; ++i) CHECK(dpositions[i] == Approx(position_sums[i]));
}

namespace {

struct AttentionCase {
  const char* name;
  attn::PositionalOptions positional;
  long prefix;
};

std::vector<AttentionCase> attention_cases() {
  using attn::PositionalType;
  attn::PositionalOptions none, rope, rope_half, alibi, alibi_own;
  rope.type = rope_half.type = PositionalType::rope;
  rope_half.pairing = attn::RopePairing::half;
  rope_half.base = 100.0;
  alibi.type = alibi_own.type = PositionalType::alibi;
  alibi_own.slopes = {0.7f, 0.05f};
  return {{"causal", none, 0},
          {"rope interleaved", rope, 0},
          {"rope half, base 100", rope_half, 0},
          {"alibi", alibi, 0},
          {"alibi, own slopes", alibi_own, 0},
          {"prefix 3", none, 3},
          {"rope, prefix 4", rope, 4},
          {"alibi, prefix 5", alibi, 5},
          {"prefix = T", rope_half, 6}};
}

// The layer's view of the case: tables for positions 0..T-1.
struct AttentionLayer {
  std::vector<float> cos, sin, slopes;
  attn::train::AttentionShape shape;

  AttentionLayer(const AttentionCase& c, long H, long D, long T) {
    shape.H = H;
    shape.D = D;
    shape.scale = float(1.0 / std::sqrt(double(D)));
    shape.mask.causal = true;
    shape.mask.prefix = c.prefix;
    if (c.positional.type == attn::PositionalType::alibi) {
      slopes = c.positional.slopes.empty() ? attn::alibi_default_slopes(H) : c.positional.slopes;
      shape.alibi_slopes = &slopes;
    }
    if (c.positional.type == attn::PositionalType::rope) {
      for (long p = 0; p < T; ++p) {
        for (long t = 0; t < D / 2; ++t) {
          cos.push_back(float(std::cos(p * std::pow(c.positional.base, -2.0 * t / D))));
          sin.push_back(float(std::sin(p * std::pow(c.positional.base, -2.0 * t / D))));
        }
      }
      shape.rope_cos = &cos;
      shape.rope_sin = &sin;
      shape.rope_pairing = c.positional.pairing;
    }
  }
};

}  // namespace

TEST_CASE(
    "train attention: forward and weights equal the reference, dqkv equals finite differences",
    "[train][layers]") {
  const long B = 2, T = 6, H = 2, D = 4, C = H * D;
  std::mt19937 rng(7);
  for (const AttentionCase& c : attention_cases()) {
    // Tq = T, as in every layer but the last; Tq = 2, the last layer's answer rows.
    for (long Tq : {T, 2L}) {
      INFO(c.name << ", the last " << Tq << " of " << T << " positions as queries");
      const auto qkv = random_floats(B * T * 3 * C, rng, 1.5f), r = random_floats(B * Tq * C, rng);
      AttentionLayer layer(c, H, D, T);
      attn::train::AttentionCache cache;
      // dqkv starts as garbage: the backward writes every value (zero where a row is no query)
      std::vector<float> context(B * Tq * C), dqkv(B * T * 3 * C, 123.0f);
      attn::train::attention_forward(context.data(), qkv.data(), B, T, Tq, layer.shape, cache);
      const train_reference::AttentionSpec spec{H, D, c.positional, c.prefix};
      // The reference computes every row; the layer's are the last Tq of each sequence.
      // blocks of T rows (a sequence, or a sequence's head) → the last Tq rows of each
      const auto query_rows = [&](const Values& all, long blocks, long width) {
        Values rows;
        for (long b = 0; b < blocks; ++b) {
          rows.insert(rows.end(), all.begin() + (b * T + T - Tq) * width,
                      all.begin() + (b * T + T) * width);
        }
        return rows;
      };
      Values qkvd = to_double(qkv), weights;
      const Values full = train_reference::attention(qkvd, B, T, spec, &weights);
      check_values("context", context.data(), query_rows(full, B, C));
      check_values("weights", cache.weights.data(), query_rows(weights, B * H, T));
      attn::train::attention_backward(dqkv.data(), r.data(), qkv.data(), B, T, Tq, layer.shape,
                                      cache);
      check_gradient("dqkv", dqkv.data(), train_reference::numerical_gradient(qkvd, [&] {
                       return dot(query_rows(train_reference::attention(qkvd, B, T, spec), B, C),
                                  r);
                     }));
    }
  }
}

TEST_CASE("train attention: the forward equals attn::attention with the same options",
          "[train][layers]") {
  const long T = 9, H = 2, D = 6, C = H * D;
  std::mt19937 rng(8);
  for (const AttentionCase& c : attention_cases()) {
    INFO(c.name);
    const auto qkv = random_floats(T * 3 * C, rng);
    AttentionLayer layer(c, H, D, T);
    attn::train::AttentionCache cache;
    std::vector<float> context(T * C);
    attn::train::attention_forward(context.data(), qkv.data(), 1, T, T, layer.shape, cache);

    attn::Matrix q = attn::Matrix::from_shape({std::size_t(T), std::size_t(C)}), k = q, v = q;
    for (long t = 0; t < T; ++t) {
      for (long col = 0; col < C; ++col) {
        q(t, col) = qkv[t * 3 * C + col];
        k(t, col) = qkv[t * 3 * C + C + col];
        v(t, col) = qkv[t * 3 * C + 2 * C + col];
      }
    }
    attn::AttentionOptions options;
    options.heads = H;
    options.mask.causal = true;
    options.mask.prefix = c.prefix;
    options.positional = c.positional;
    options.kernel = attn::Kernel::materialized;
    const attn::AttentionResult engine = attn::attention(q, k, v, options);
    CHECK_CLOSE(engine.context, xt::adapt(context, {std::size_t(T), std::size_t(C)}), 2e-6);
    for (long h = 0; h < H; ++h) {
      const std::vector<float> head(cache.weights.begin() + h * T * T,
                                    cache.weights.begin() + (h + 1) * T * T);
      CHECK_CLOSE(engine.weights[h], xt::adapt(head, {std::size_t(T), std::size_t(T)}), 2e-6);
    }
  }
}
