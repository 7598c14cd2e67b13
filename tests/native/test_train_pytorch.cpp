// The transformer and its optimiser against PyTorch (tests/fixtures/torch/: golden values of
// Debian's PyTorch 1.13 in float64, made by make_transformer_fixture.py): initial parameters
// from the seed, loss, logits, every gradient and the attention weights for ten
// configurations, and three AdamW steps with warm-up and clipping.
#include <fstream>
#include <nlohmann/json.hpp>

#include "attn/torch_generator.hpp"
#include "attn/train/optimizer.hpp"
#include "attn/train/transformer.hpp"
#include "helpers.hpp"

using attn::train::Transformer;
using attn::train::TransformerConfig;
using nlohmann::json;

namespace {

const json& torch_fixture() {
  static const json fixture = [] {
    std::ifstream file(std::string(ATTN_FIXTURES_DIR) + "/torch/transformer-torch.json");
    return json::parse(file);
  }();
  return fixture;
}

const json& torch_case(const std::string& name) {
  for (const json& entry : torch_fixture()["cases"]) {
    if (entry["name"] == name) return entry;
  }
  throw std::runtime_error("no case " + name);
}

attn::Matrix to_matrix(const json& matrix) {
  attn::Matrix result = attn::Matrix::from_shape(
      {matrix["rows"].get<std::size_t>(), matrix["cols"].get<std::size_t>()});
  std::size_t i = 0;
  for (const json& value : matrix["data"]) result.data()[i++] = value.get<float>();
  return result;
}

TransformerConfig to_config(const json& config) {
  TransformerConfig result;
  result.vocab = config["vocab"];
  result.outputs = config["outputs"];
  result.layers = config["layers"];
  result.d_model = config["dModel"];
  result.heads = config["heads"];
  result.mlp = config["mlp"];
  result.max_length = config["maxLength"];
  result.seed = config["seed"];
  const json& positional = config["positional"];
  const std::string type = positional["type"];
  result.positional = attn::PositionalOptions{};
  if (type == "rope") result.positional.type = attn::PositionalType::rope;
  if (type == "alibi") result.positional.type = attn::PositionalType::alibi;
  if (type == "learned") result.positional.type = attn::PositionalType::learned;
  if (type == "sinusoidal") result.positional.type = attn::PositionalType::sinusoidal;
  if (positional.contains("base")) result.positional.base = positional["base"];
  if (positional.contains("pairing") && positional["pairing"] == "half") {
    result.positional.pairing = attn::RopePairing::half;
  }
  if (positional.contains("slopes")) {
    for (const json& slope : positional["slopes"])
      result.positional.slopes.push_back(slope.get<float>());
  }
  return result;
}

// The largest |ours - torch| of a matrix, and torch's largest |value|.
std::pair<double, double> difference(const float* ours, const json& golden) {
  double worst = 0.0, largest = 0.0;
  std::size_t i = 0;
  for (const json& value : golden["data"]) {
    worst = std::max(worst, std::abs(ours[i++] - value.get<double>()));
    largest = std::max(largest, std::abs(value.get<double>()));
  }
  return {worst, largest};
}

}  // namespace

TEST_CASE("pytorch: a seed gives PyTorch's initial parameters", "[train][pytorch]") {
  for (const json& entry : torch_fixture()["cases"]) {
    INFO("case " << entry["name"].get<std::string>() << ": "
                 << entry["description"].get<std::string>());
    const Transformer model(to_config(entry["config"]));
    const auto names = model.parameter_names();
    CHECK(names == entry["parameterNames"].get<std::vector<std::string>>());
    for (const std::string& name : names) {
      INFO(name);
      // PyTorch's AVX2 log and sincos differ from the C library's in the last bits.
      CHECK_CLOSE(model.parameter(name), to_matrix(entry["parameters"][name]), 2e-6);
    }
  }
}

TEST_CASE("pytorch: loss, logits, gradients and attention equal PyTorch's", "[train][pytorch]") {
  for (const json& entry : torch_fixture()["cases"]) {
    INFO("case " << entry["name"].get<std::string>() << ": "
                 << entry["description"].get<std::string>());
    Transformer model(to_config(entry["config"]));
    for (const std::string& name : model.parameter_names()) {
      model.set_parameter(name, to_matrix(entry["parameters"][name]));
    }
    const std::vector<int> tokens = entry["tokens"], targets = entry["targets"];
    const long B = entry["batch"], T = entry["length"], A = entry["answers"],
               prefix = entry["prefix"];
    const double loss = model.loss_and_gradients({tokens.data(), targets.data(), B, T, A, prefix});
    CHECK(loss == Approx(entry["loss"].get<double>()).epsilon(2e-6));
    const auto [logits_diff, logits_largest] = difference(model.logits(), entry["logits"]);
    INFO("logits: max abs diff " << logits_diff);
    CHECK(logits_diff <= 1e-5 * std::max(1.0, logits_largest));
    for (const attn::train::ParameterInfo& info : model.parameters()) {
      const auto [diff, largest] =
          difference(model.gradients() + info.offset, entry["gradients"][info.name]);
      INFO(info.name << " gradient: max abs diff " << diff << " (largest " << largest << ")");
      CHECK(diff <= 1e-6 + 1e-5 * largest);
    }
    // every position's attention of the first sequence: a forward whose answers are all T
    model.forward({tokens.data(), nullptr, 1, T, T, prefix});
    for (long l = 0; l < model.config().layers; ++l) {
      for (long h = 0; h < model.config().heads; ++h) {
        const auto [diff, largest] =
            difference(model.attention_weights(l) + h * T * T, entry["attention"][l][h]);
        INFO("attention layer " << l << " head " << h << ": max abs diff " << diff);
        CHECK(diff <= 1e-6);
      }
    }
  }
}

TEST_CASE("pytorch: three AdamW steps with warm-up and clipping equal torch.optim.AdamW",
          "[train][pytorch]") {
  const json& adamw = torch_fixture()["adamw"];
  const json& entry = torch_case(adamw["case"]);
  Transformer model(to_config(entry["config"]));
  for (const std::string& name : model.parameter_names()) {
    model.set_parameter(name, to_matrix(entry["parameters"][name]));
  }
  const json& settings = adamw["optimizer"];
  attn::train::OptimizerOptions options;
  options.schedule.learning_rate = settings["learningRate"];
  options.schedule.warmup = settings["warmup"];
  options.schedule.steps = 3;
  options.adamw.beta1 = settings["betas"][0];
  options.adamw.beta2 = settings["betas"][1];
  options.adamw.epsilon = settings["eps"];
  options.adamw.weight_decay = settings["weightDecay"];
  options.clip = settings["clip"];
  attn::train::Optimizer optimizer(model.parameter_count(), options);
  const std::vector<int> tokens = entry["tokens"], targets = entry["targets"];
  const attn::train::Batch batch{tokens.data(),   targets.data(),   entry["batch"],
                                 entry["length"], entry["answers"], entry["prefix"]};
  for (const json& step : adamw["steps"]) {
    INFO("step " << step["step"].get<int>());
    CHECK(model.loss_and_gradients(batch) == Approx(step["loss"].get<double>()).epsilon(1e-5));
    const attn::train::OptimizerStep taken = optimizer.step(model.values(), model.gradients());
    CHECK(taken.learning_rate == Approx(step["learningRate"].get<double>()));
    CHECK(taken.gradient_norm == Approx(step["gradientNorm"].get<double>()).epsilon(1e-5));
  }
  for (const attn::train::ParameterInfo& info : model.parameters()) {
    const auto [diff, largest] =
        difference(model.values() + info.offset, adamw["parametersAfter"][info.name]);
    INFO(info.name << ": max abs diff " << diff);
    CHECK(diff <= 2e-6 * std::max(1.0, largest));
  }
  CHECK(model.forward(batch) == Approx(adamw["lossAfter"].get<double>()).epsilon(1e-5));
}

TEST_CASE("pytorch: randn and rand consume one stream as torch.randn and torch.rand do",
          "[train][pytorch][torch_generator]") {
  for (const json& entry : torch_fixture()["randn"]) {
    attn::TorchGenerator generator(entry["seed"].get<std::uint64_t>());
    INFO("seed " << entry["seed"] << ", randn(" << entry["rows"] << ", " << entry["cols"] << ")");
    const attn::Matrix drawn = generator.randn(entry["rows"], entry["cols"]);
    const auto [diff, largest] = difference(drawn.data(), json{{"data", entry["data"]}});
    CHECK(diff <= 2e-6);
    CHECK(generator.draws() == entry["draws"].get<std::uint64_t>());
  }
  const json& stream = torch_fixture()["stream"];
  attn::TorchGenerator generator(stream["seed"].get<std::uint64_t>());
  for (const json& call : stream["calls"]) {
    INFO(call["op"].get<std::string>());
    CHECK(generator.draws() == call["firstDraw"].get<std::uint64_t>());
    const attn::Matrix drawn = call["op"] == "rand" ? generator.rand(call["rows"], call["cols"])
                                                    : generator.randn(call["rows"], call["cols"]);
    CHECK(difference(drawn.data(), call).first <= 2e-6);
  }
}
