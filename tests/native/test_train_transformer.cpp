// The whole model of attn/train/transformer.hpp: names and shapes, initialisation, the
// loss against the double-precision reference, every parameter's gradient against finite
// differences of that reference, and the errors of bad configurations and batches.
#include <random>

#include "attn/torch_generator.hpp"
#include "attn/train/optimizer.hpp"
#include "attn/train/transformer.hpp"
#include "helpers.hpp"
#include "train_reference.hpp"

using attn::PositionalType;
using attn::train::Batch;
using attn::train::Transformer;
using attn::train::TransformerConfig;
using Catch::Contains;

namespace {

TransformerConfig small_config(PositionalType type, bool mlp) {
  TransformerConfig config;
  config.vocab = 11;
  config.outputs = 5;
  config.layers = 2;
  config.d_model = 8;
  config.heads = 2;
  config.mlp = mlp;
  config.positional.type = type;
  config.max_length = 12;
  config.seed = 3;
  return config;
}

struct RandomBatch {
  std::vector<int> tokens, targets;
  Batch batch;
  RandomBatch(const TransformerConfig& config, long B, long T, long A, long prefix, unsigned seed) {
    std::mt19937 rng(seed);
    for (long i = 0; i < B * T; ++i) tokens.push_back(int(rng() % config.vocab));
    for (long i = 0; i < B * A; ++i) targets.push_back(int(rng() % config.outputs));
    batch = Batch{tokens.data(), targets.data(), B, T, A, prefix};
  }
};

// Every parameter's gradient against central differences of the reference loss.
void check_model_gradients(Transformer& model, const Batch& batch) {
  const double loss = model.loss_and_gradients(batch);
  train_reference::Values values(model.values(), model.values() + model.parameter_count());
  const train_reference::Parameters parameters{&model.parameters(), &values};
  const auto reference_loss = [&] {
    return train_reference::model_loss(model.config(), parameters, batch);
  };
  CHECK(loss == Approx(reference_loss()).epsilon(1e-5));
  const train_reference::Values numerical =
      train_reference::numerical_gradient(values, reference_loss);
  for (const attn::train::ParameterInfo& info : model.parameters()) {
    double worst = 0.0, largest = 0.0;
    for (std::size_t i = info.offset; i < info.offset + info.size(); ++i) {
      worst = std::max(worst, std::abs(model.gradients()[i] - numerical[i]));
      largest = std::max(largest, std::abs(numerical[i]));
    }
    INFO(info.name << ": max abs diff " << worst << " from finite differences (largest gradient "
                   << largest << ")");
    CHECK(worst <= 1e-6 + 1e-4 * largest);
  }
}

}  // namespace

TEST_CASE("transformer: parameters named and shaped as PyTorch stores them",
          "[train][transformer]") {
  TransformerConfig config = small_config(PositionalType::learned, true);
  config.layers = 1;
  const Transformer model(config);
  const std::vector<std::string> expected = {"embedding.weight",
                                             "positional.weight",
                                             "blocks.0.ln1.weight",
                                             "blocks.0.ln1.bias",
                                             "blocks.0.attention.qkv.weight",
                                             "blocks.0.attention.out.weight",
                                             "blocks.0.ln2.weight",
                                             "blocks.0.ln2.bias",
                                             "blocks.0.mlp.fc.weight",
                                             "blocks.0.mlp.fc.bias",
                                             "blocks.0.mlp.proj.weight",
                                             "blocks.0.mlp.proj.bias",
                                             "final_ln.weight",
                                             "final_ln.bias",
                                             "head.weight",
                                             "head.bias"};
  CHECK(model.parameter_names() == expected);
  const auto shape = [&](const std::string& name) {
    const attn::Matrix p = model.parameter(name);
    return std::make_pair(long(p.shape(0)), long(p.shape(1)));
  };
  CHECK(shape("embedding.weight") == std::make_pair(11L, 8L));
  CHECK(shape("positional.weight") == std::make_pair(12L, 8L));
  CHECK(shape("blocks.0.attention.qkv.weight") == std::make_pair(24L, 8L));
  CHECK(shape("blocks.0.mlp.fc.weight") == std::make_pair(32L, 8L));
  CHECK(shape("blocks.0.mlp.fc.bias") == std::make_pair(1L, 32L));
  CHECK(shape("blocks.0.mlp.proj.weight") == std::make_pair(8L, 32L));
  CHECK(shape("head.weight") == std::make_pair(5L, 8L));
  CHECK(model.parameter_count() ==
        11 * 8 + 12 * 8 + 2 * 8 + 24 * 8 + 64 + 2 * 8 + 256 + 32 + 256 + 8 + 2 * 8 + 40 + 5);

  const Transformer plain(small_config(PositionalType::rope, false));
  CHECK(plain.parameter_names().size() == 1 + 2 * 4 + 4);
}

TEST_CASE("transformer: PyTorch's default initialisation from the seed", "[train][transformer]") {
  TransformerConfig config = small_config(PositionalType::none, true);
  config.vocab = 200;
  config.d_model = 16;
  const Transformer model(config);
  const auto bound_of = [&](const std::string& name) {
    return double(xt::amax(xt::abs(model.parameter(name)))());
  };
  // nn.Linear: U(±1/√fan_in); the bounds are nearly reached with this many draws.
  CHECK(bound_of("blocks.0.attention.qkv.weight") <= 1.0 / 4.0);
  CHECK(bound_of("blocks.0.attention.qkv.weight") > 0.95 / 4.0);
  CHECK(bound_of("blocks.1.mlp.proj.weight") <= 1.0 / 8.0);
  CHECK(bound_of("blocks.1.mlp.proj.bias") <= 1.0 / 8.0);
  CHECK(bound_of("head.bias") <= 1.0 / 4.0);
  // LayerNorm: weight 1, bias 0.
  CHECK(xt::all(xt::equal(model.parameter("blocks.1.ln2.weight"), 1.0f)));
  CHECK(xt::all(xt::equal(model.parameter("final_ln.bias"), 0.0f)));
  // nn.Embedding: N(0, 1): 3,200 draws have mean within ±0.07 and deviation within 1 ± 0.05.
  const attn::Matrix embedding = model.parameter("embedding.weight");
  const double mean = xt::mean(embedding)(), deviation = xt::stddev(embedding)();
  CHECK(std::abs(mean) < 0.07);
  CHECK(std::abs(deviation - 1.0) < 0.05);
  // The embedding is the first draw of the seed's stream: torch.randn(200, 16).
  attn::TorchGenerator generator(config.seed);
  CHECK_CLOSE(embedding, generator.randn(200, 16), 0.0);
  // The seed decides every value; another seed gives other values.
  CHECK_CLOSE(Transformer(config).parameter("head.weight"), model.parameter("head.weight"), 0.0);
  config.seed = 4;
  CHECK(xt::amax(xt::abs(Transformer(config).parameter("head.weight") -
                         model.parameter("head.weight")))() > 0.01f);
}

TEST_CASE("transformer: every gradient equals finite differences of the double reference",
          "[train][transformer]") {
  struct Case {
    const char* name;
    PositionalType type;
    bool mlp;
    long heads, T, A, prefix;
  };
  const Case cases[] = {
      {"rope", PositionalType::rope, false, 2, 8, 1, 0},
      {"rope, mlp, 2 answers", PositionalType::rope, true, 2, 8, 2, 0},
      {"alibi, mlp", PositionalType::alibi, true, 2, 7, 1, 0},
      {"learned, mlp, 3 answers", PositionalType::learned, true, 1, 9, 3, 0},
      {"sinusoidal", PositionalType::sinusoidal, false, 4, 8, 1, 0},
      {"none, mlp, prefix 5", PositionalType::none, true, 2, 8, 1, 5},
      {"rope, prefix 6, 2 answers", PositionalType::rope, false, 2, 8, 2, 6},
      {"alibi, prefix 5", PositionalType::alibi, true, 2, 8, 1, 5},
      {"answers inside the prefix", PositionalType::rope, true, 2, 7, 3, 6},
      {"every position an answer", PositionalType::learned, false, 2, 6, 6, 0},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    TransformerConfig config = small_config(c.type, c.mlp);
    config.heads = c.heads;
    config.layers = c.A == c.T ? 1 : 2;  // one layer whose queries are every position
    Transformer model(config);
    const RandomBatch data(config, 3, c.T, c.A, c.prefix, 11);
    check_model_gradients(model, data.batch);
  }
}

TEST_CASE("transformer: rope's half pairing, base and ALiBi's own slopes reach the gradients",
          "[train][transformer]") {
  TransformerConfig config = small_config(PositionalType::rope, true);
  config.positional.pairing = attn::RopePairing::half;
  config.positional.base = 50.0;
  Transformer rope_half(config);
  const RandomBatch data(config, 2, 10, 1, 0, 12);
  check_model_gradients(rope_half, data.batch);

  config.positional = attn::PositionalOptions{};
  config.positional.type = PositionalType::alibi;
  config.positional.slopes = {1.0f, 0.125f};
  Transformer alibi(config);
  check_model_gradients(alibi, data.batch);
}

TEST_CASE("transformer: backward adds weight × each batch's gradients (the mixed objectives)",
          "[train][transformer]") {
  const TransformerConfig config = small_config(PositionalType::rope, true);
  Transformer model(config);
  const RandomBatch first(config, 2, 8, 1, 0, 21), second(config, 3, 9, 3, 4, 22);
  const auto gradients_of = [&](const Batch& batch) {
    model.loss_and_gradients(batch);
    return std::vector<float>(model.gradients(), model.gradients() + model.parameter_count());
  };
  const std::vector<float> g1 = gradients_of(first.batch), g2 = gradients_of(second.batch);
  model.zero_gradients();
  model.forward(first.batch);
  model.backward(first.batch, 0.25f);
  model.forward(second.batch);
  model.backward(second.batch, 0.75f);
  double worst = 0.0;
  for (std::size_t i = 0; i < g1.size(); ++i) {
    worst = std::max(worst, std::abs(model.gradients()[i] - (0.25 * g1[i] + 0.75 * g2[i])));
  }
  INFO("max abs diff " << worst);
  CHECK(worst <= 1e-6);
}

TEST_CASE("transformer: backward needs the last forward's batch, with targets",
          "[train][transformer][errors]") {
  const TransformerConfig config = small_config(PositionalType::rope, false);
  Transformer model(config);
  const RandomBatch data(config, 2, 6, 1, 0, 23), other(config, 2, 7, 1, 0, 24);
  CHECK_THROWS_WITH(model.backward(data.batch),
                    Contains("backward needs the batch of the last forward"));
  model.forward({data.tokens.data(), nullptr, 2, 6, 1, 0});
  CHECK_THROWS_WITH(model.backward(data.batch), Contains("run with targets"));
  model.forward(data.batch);
  CHECK_THROWS_WITH(model.backward(other.batch),
                    Contains("backward needs the batch of the last forward"));
  CHECK_THROWS_WITH(model.attention_weights(2),
                    Contains("layer must be a whole number from 0 to 1, got 2"));
}

TEST_CASE("transformer: logits, loss and attention of a forward", "[train][transformer]") {
  TransformerConfig config = small_config(PositionalType::rope, true);
  Transformer model(config);
  const RandomBatch data(config, 3, 8, 2, 0, 13);
  const double loss = model.forward(data.batch);
  train_reference::Values values(model.values(), model.values() + model.parameter_count()), logits;
  const train_reference::Parameters parameters{&model.parameters(), &values};
  CHECK(loss ==
        Approx(train_reference::model_loss(config, parameters, data.batch, &logits)).epsilon(1e-5));
  for (std::size_t i = 0; i < logits.size(); ++i)
    CHECK(model.logits()[i] == Approx(logits[i]).margin(1e-5));
  // Attention rows sum to one, and nothing lies above the diagonal (causal); the last layer
  // computes the two answer rows only.
  CHECK(model.queries(0, data.batch) == 8);
  CHECK(model.queries(1, data.batch) == 2);
  for (long l = 0; l < config.layers; ++l) {
    const float* weights = model.attention_weights(l);
    const long Tq = model.queries(l, data.batch);
    for (long row = 0; row < 3 * 2 * Tq; ++row) {
      const long i = row % Tq + (8 - Tq);
      double sum = 0.0;
      for (long j = 0; j < 8; ++j) {
        sum += weights[row * 8 + j];
        if (j > i) CHECK(weights[row * 8 + j] == 0.0f);
      }
      CHECK(sum == Approx(1.0).epsilon(1e-5));
    }
  }
}

TEST_CASE("transformer: the loss falls when AdamW fits a fixed batch", "[train][transformer]") {
  TransformerConfig config = small_config(PositionalType::rope, false);
  Transformer model(config);
  const RandomBatch data(config, 8, 10, 1, 0, 14);
  attn::train::AdamW optimizer(model.parameter_count(), {});
  const double first = model.loss_and_gradients(data.batch);
  double last = first;
  for (int step = 0; step < 60; ++step) {
    optimizer.step(model.values(), model.gradients(), 1e-2);
    last = model.loss_and_gradients(data.batch);
  }
  INFO("loss " << first << " → " << last);
  CHECK(first > 1.2);         // about log 5 = 1.61 at initialisation
  CHECK(last < 0.1 * first);  // eight sequences memorised
}

TEST_CASE("transformer: bad configurations fail naming the option",
          "[train][transformer][errors]") {
  TransformerConfig config = small_config(PositionalType::rope, false);
  const auto fails_with = [](TransformerConfig bad, const std::string& words) {
    CHECK_THROWS_WITH(Transformer(bad), Contains(words));
  };
  TransformerConfig bad = config;
  bad.heads = 3;
  fails_with(bad, "heads (3) must divide dModel (8)");
  bad = config;
  bad.heads = 8;  // head width 1: odd
  fails_with(bad, "dModel / heads must be even, got 8 / 8 = 1");
  bad = config;
  bad.vocab = 0;
  fails_with(bad, "vocab must be a whole number from 1");
  bad = config;
  bad.outputs = -2;
  fails_with(bad, "outputs must be a whole number from 1");
  bad = config;
  bad.layers = 0;
  fails_with(bad, "layers must be a whole number from 1 to 64, got 0");
  bad = config;
  bad.max_length = 0;
  fails_with(bad, "maxLength must be a whole number from 1");
  bad = config;
  bad.d_model = 4096;
  bad.heads = 2;
  bad.layers = 64;
  fails_with(bad, "(parameters and position tables), more than the 16777216");
  bad = config;
  bad.positional.type = PositionalType::alibi;
  bad.positional.slopes = {0.5f};
  fails_with(bad, "positional.slopes has 1 values but heads is 2");
  bad.positional.slopes = {0.5f, -2e37f};  // 2e37 × 11 positions of distance > float32's max / 2
  fails_with(bad,
             "positional.slopes[1] is -1.99999999e+37: over a distance of 11 its bias leaves "
             "float32's range; use a slope within ±1.54");
}

TEST_CASE("transformer: the largest ALiBi slopes allowed keep the loss finite",
          "[train][transformer]") {
  TransformerConfig config = small_config(PositionalType::alibi, false);
  // the float just inside the bound (the bound itself rounds up to a float above it)
  const float largest = std::nextafter(
      static_cast<float>(std::numeric_limits<float>::max() / 2.0 / (config.max_length - 1)), 0.0f);
  config.positional.slopes = {largest, -largest};
  Transformer model(config);
  const RandomBatch data(config, 2, config.max_length, 1, 0, 21);
  CHECK(std::isfinite(model.loss_and_gradients(data.batch)));
  CHECK(std::all_of(model.gradients(), model.gradients() + model.parameter_count(),
                    [](float g) { return std::isfinite(g); }));
}

TEST_CASE("transformer: bad batches fail naming the field, and the model still answers",
          "[train][transformer][errors]") {
  const TransformerConfig config = small_config(PositionalType::rope, false);
  Transformer model(config);
  const RandomBatch good(config, 2, 6, 1, 0, 15);
  const double loss = model.loss_and_gradients(good.batch);
  const std::vector<float> gradients(model.gradients(),
                                     model.gradients() + model.parameter_count());

  std::vector<int> tokens = good.tokens, targets = good.targets;
  Batch bad = good.batch;
  tokens[7] = 11;
  bad.tokens = tokens.data();
  CHECK_THROWS_WITH(model.loss_and_gradients(bad),
                    Contains("tokens[7] is 11; token ids go from 0 to vocab - 1 = 10"));
  tokens[7] = -1;
  CHECK_THROWS_WITH(model.loss_and_gradients(bad), Contains("tokens[7] is -1"));
  bad = good.batch;
  targets[1] = 5;
  bad.targets = targets.data();
  CHECK_THROWS_WITH(model.loss_and_gradients(bad),
                    Contains("targets[1] is 5; class ids go from 0 to outputs - 1 = 4"));
  bad = good.batch;
  bad.T = 13;
  std::vector<int> long_tokens(2 * 13, 0);
  bad.tokens = long_tokens.data();
  CHECK_THROWS_WITH(model.loss_and_gradients(bad),
                    Contains("sequences of 13 tokens do not fit this model"));
  bad = good.batch;
  bad.prefix = 7;
  CHECK_THROWS_WITH(model.loss_and_gradients(bad),
                    Contains("prefix must be from 0 to the sequence length (6), got 7"));
  bad = good.batch;
  bad.A = 0;
  CHECK_THROWS_WITH(model.loss_and_gradients(bad),
                    Contains("answers must be from 1 to the sequence length (6), got 0"));
  CHECK_THROWS_WITH(model.parameter("blocks.9.ln1.weight"),
                    Contains("unknown parameter 'blocks.9.ln1.weight'"));
  CHECK_THROWS_WITH(model.set_parameter("head.bias", attn::Matrix::from_shape({5, 1})),
                    Contains("head.bias is 1×5 but the new value is 5×1"));
  attn::Matrix not_finite = model.parameter("head.bias");
  not_finite(0, 2) = NAN;
  CHECK_THROWS_WITH(model.set_parameter("head.bias", not_finite),
                    Contains("head.bias[0][2] is NaN"));

  // The failed calls changed nothing: the same batch gives the same loss and gradients.
  CHECK(model.loss_and_gradients(good.batch) == loss);
  CHECK(std::equal(gradients.begin(), gradients.end(), model.gradients()));
}

TEST_CASE("transformer: set_parameter then parameter gives the value back",
          "[train][transformer]") {
  Transformer model(small_config(PositionalType::sinusoidal, false));
  attn::Matrix weight = model.parameter("blocks.1.attention.out.weight");
  weight(3, 4) = 0.125f;
  model.set_parameter("blocks.1.attention.out.weight", weight);
  CHECK_CLOSE(model.parameter("blocks.1.attention.out.weight"), weight, 0.0);
}
