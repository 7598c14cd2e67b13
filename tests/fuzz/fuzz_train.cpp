// libFuzzer target: the trainer (attn/train) on arbitrary configurations, batches, parameter
// values and training options. One input drives one of:
//
//   a model (every size ≤ 16, every positional type with arbitrary base, pairing and slopes)
//   with parameters overwritten by arbitrary floats, then loss_and_gradients, forward with
//   every answer position, and one optimizer step with arbitrary options, on a batch of
//   arbitrary token ids, targets, answers and prefix;
//   a short RetrievalTrainer run (≤ 3 steps) with arbitrary task, model and training options,
//   and as often the same run shared by two replicas (their shards and held-out chunks split
//   at arbitrary points; a shard split out of range must be refused as a block), which must
//   give the run's bits, and its final evaluation measured in parts by both and joined, which
//   must give the trainer's.
//
// A call may fail only with attn::InvalidArgument. When it succeeds: a batch with a token,
// target, answers or prefix out of range was not accepted; with parameters of moderate size
// the loss, logits and every gradient are finite, the loss is ≥ 0, each attention row sums
// to 1 with nothing above the (prefix-extended) diagonal, and the same call gives the same
// loss twice; a training run's checkpoints are finite.
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "attn/errors.hpp"
#include "attn/train/optimizer.hpp"
#include "attn/train/trainer.hpp"
#include "attn/train/transformer.hpp"

namespace {

constexpr long kMaxSize = 16;
constexpr double kRowSumTolerance = 1e-4;
constexpr float kModerate = 1e3f;  // parameters within ± this keep every number finite

std::function<std::string()> describe_call = [] { return std::string("(no call)"); };

[[noreturn]] void broken(const std::string& what) {
  std::fprintf(stderr, "fuzz_train: invariant broken: %s\n  call: %s\n", what.c_str(),
               describe_call().c_str());
  std::fflush(stderr);
  std::abort();
}

void expect(bool condition, const std::string& what) {
  if (!condition) broken(what);
}

constexpr float kPalette[] = {0.0f,  1.0f,  -1.0f,  0.5f,     3.0f,      -7.0f, 1e-3f, 1e3f,
                              -1e3f, 1e30f, 1e-30f, INFINITY, -INFINITY, NAN,   1e38f};

float draw_float(FuzzedDataProvider& data) {
  switch (data.ConsumeIntegralInRange(0, 2)) {
    case 0:
      return kPalette[data.ConsumeIntegralInRange<std::size_t>(0, std::size(kPalette) - 1)];
    case 1:
      return data.ConsumeFloatingPointInRange(-4.0f, 4.0f);
    default: {
      const std::uint32_t bits = data.ConsumeIntegral<std::uint32_t>();
      float value;
      std::memcpy(&value, &bits, sizeof value);
      return value;
    }
  }
}

attn::PositionalOptions draw_positional(FuzzedDataProvider& data) {
  attn::PositionalOptions positional;
  positional.type = static_cast<attn::PositionalType>(data.ConsumeIntegralInRange(0, 4));
  if (data.ConsumeBool()) positional.base = draw_float(data);
  if (data.ConsumeBool()) positional.pairing = attn::RopePairing::half;
  const long slopes = data.ConsumeIntegralInRange(0, 4);
  for (long h = 0; h < slopes; ++h) positional.slopes.push_back(draw_float(data));
  return positional;
}

attn::train::TransformerConfig draw_config(FuzzedDataProvider& data) {
  attn::train::TransformerConfig config;
  config.vocab = data.ConsumeIntegralInRange<long>(-1, 40);
  config.outputs = data.ConsumeIntegralInRange<long>(-1, 20);
  config.layers = data.ConsumeIntegralInRange<long>(0, 3);
  config.d_model = data.ConsumeIntegralInRange<long>(0, kMaxSize);
  config.heads = data.ConsumeIntegralInRange<long>(0, 8);
  config.mlp = data.ConsumeBool();
  config.positional = draw_positional(data);
  config.max_length = data.ConsumeIntegralInRange<long>(0, 2 * kMaxSize);
  config.seed = data.ConsumeIntegral<std::uint32_t>();
  return config;
}

std::string describe_slopes(const attn::PositionalOptions& positional) {
  std::string text;
  for (const float slope : positional.slopes) text += " " + std::to_string(slope);
  return positional.slopes.empty() ? "" : " slopes" + text;
}

std::string describe(const attn::train::TransformerConfig& c, const attn::train::Batch& b) {
  return "vocab " + std::to_string(c.vocab) + " outputs " + std::to_string(c.outputs) + " layers " +
         std::to_string(c.layers) + " dModel " + std::to_string(c.d_model) + " heads " +
         std::to_string(c.heads) + (c.mlp ? " mlp" : "") + " positional " +
         attn::to_string(c.positional.type) + describe_slopes(c.positional) + " base " +
         std::to_string(c.positional.base) + " maxLength " + std::to_string(c.max_length) +
         "; batch " + std::to_string(b.B) + "×" + std::to_string(b.T) + " answers " +
         std::to_string(b.A) + " prefix " + std::to_string(b.prefix);
}

bool finite(const float* values, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) {
    if (!std::isfinite(values[i])) return false;
  }
  return true;
}

void fuzz_model(FuzzedDataProvider& data) {
  const attn::train::TransformerConfig config = draw_config(data);
  std::optional<attn::train::Transformer> built;
  try {
    built.emplace(config);
  } catch (const attn::InvalidArgument&) {
    return;
  }
  attn::train::Transformer& model = *built;
  // overwrite some parameters: non-finite values must be refused
  bool moderate = true;
  const long overwrites = data.ConsumeIntegralInRange(0, 3);
  for (long i = 0; i < overwrites; ++i) {
    const auto& info = model.parameters()[data.ConsumeIntegralInRange<std::size_t>(
        0, model.parameters().size() - 1)];
    attn::Matrix value = model.parameter(info.name);
    const float drawn = draw_float(data);
    value.data()[data.ConsumeIntegralInRange<std::size_t>(0, value.size() - 1)] = drawn;
    try {
      model.set_parameter(info.name, value);
      expect(std::isfinite(drawn), "set_parameter accepted " + std::to_string(drawn));
      moderate = moderate && std::abs(drawn) <= kModerate;
    } catch (const attn::InvalidArgument&) {
      expect(!std::isfinite(drawn), "set_parameter refused a finite value");
    }
  }

  const long B = data.ConsumeIntegralInRange<long>(0, 4),
             T = data.ConsumeIntegralInRange<long>(0, 2 * kMaxSize);
  const long A = data.ConsumeIntegralInRange<long>(-1, T + 1),
             prefix = data.ConsumeIntegralInRange<long>(-1, T + 1);
  std::vector<int> tokens(std::max(0L, B * T)), targets(std::max(0L, B * std::max(A, 0L)));
  bool tokens_valid = true, targets_valid = true;
  for (int& token : tokens) {
    token = data.ConsumeIntegralInRange<int>(-2, int(std::max(1L, config.vocab)) + 1);
    tokens_valid = tokens_valid && token >= 0 && token < config.vocab;
  }
  for (int& target : targets) {
    target = data.ConsumeIntegralInRange<int>(-2, int(std::max(1L, config.outputs)) + 1);
    targets_valid = targets_valid && target >= 0 && target < config.outputs;
  }
  const attn::train::Batch batch{tokens.data(), targets.data(), B, T, A, prefix};
  describe_call = [=] { return describe(config, batch); };
  const bool batch_valid = B >= 1 && T >= 1 && T <= config.max_length && A >= 1 && A <= T &&
                           prefix >= 0 && prefix <= T && tokens_valid && targets_valid;
  double loss;
  try {
    loss = model.loss_and_gradients(batch);
  } catch (const attn::InvalidArgument&) {
    expect(!batch_valid, "a valid batch was refused");
    return;
  }
  expect(batch_valid, "an invalid batch was accepted");
  if (!moderate) return;
  expect(std::isfinite(loss) && loss >= 0.0, "loss " + std::to_string(loss));
  expect(finite(model.gradients(), model.parameter_count()), "a gradient is not finite");
  expect(finite(model.logits(), std::size_t(B * A * config.outputs)), "a logit is not finite");
  expect(model.forward(batch) == loss, "the same batch gave another loss");

  // every position's attention: rows sum to 1, nothing above the diagonal but the prefix
  model.forward({tokens.data(), nullptr, B, T, T, prefix});
  const long H = config.heads;
  for (long l = 0; l < config.layers; ++l) {
    const float* weights = model.attention_weights(l);
    for (long row = 0; row < B * H * T; ++row) {
      const long i = row % T;
      double sum = 0.0;
      for (long j = 0; j < T; ++j) {
        const float w = weights[row * T + j];
        expect(w >= 0.0f && w <= 1.0f, "attention weight " + std::to_string(w));
        if (j > i && !(i < prefix && j < prefix)) expect(w == 0.0f, "a weight above the diagonal");
        sum += w;
      }
      expect(std::abs(sum - 1.0) < kRowSumTolerance,
             "an attention row sums to " + std::to_string(sum));
    }
  }

  // one optimizer step with arbitrary options
  attn::train::OptimizerOptions options;
  options.schedule.learning_rate = draw_float(data);
  options.schedule.warmup = data.ConsumeIntegralInRange<long>(-1, 4);
  options.schedule.steps = data.ConsumeIntegralInRange<long>(-1, 4);
  options.adamw.beta1 = draw_float(data);
  options.adamw.weight_decay = draw_float(data);
  options.clip = draw_float(data);
  try {
    attn::train::Optimizer optimizer(model.parameter_count(), options);
    model.loss_and_gradients(batch);
    const attn::train::OptimizerStep step = optimizer.step(model.values(), model.gradients());
    expect(std::isfinite(step.gradient_norm) && std::isfinite(step.learning_rate),
           "an optimizer step's norm or rate is not finite");
    expect(finite(model.values(), model.parameter_count()),
           "a parameter is not finite after a step");
  } catch (const attn::InvalidArgument&) {
  }
}

// The run of `options` taken step by step by two replicas, the first computing the shards
// before `shard_split` and counting the held-out chunks before `chunk_split` (both clamped to
// their range), the second the rest, each as the fewest blocks, against the trainer's own
// advance: the same checkpoints and parameters, to the bit. A split out of range must be
// refused as a block when asked for.
void check_shared_run(const attn::train::TrainingOptions& options, long shard_split,
                      long chunk_split) {
  using attn::train::kGradientShards;
  using attn::train::ShardRange;
  attn::train::RetrievalTrainer alone(options), first(options), second(options);
  const std::size_t P = alone.parameter_count();
  const long split = std::clamp(shard_split, 0L, kGradientShards);
  while (!alone.finished()) {
    const auto expected = alone.advance(1);
    first.sample_step();
    second.sample_step();
    std::vector<float> scratch(P);
    if (shard_split != split) {
      bool refused = false;
      try {
        first.block_gradient({shard_split, shard_split + 1}, scratch.data());
      } catch (const attn::InvalidArgument&) {
        refused = true;
      }
      expect(refused, "shard " + std::to_string(shard_split) + " was accepted as a block");
    }
    std::vector<ShardRange> blocks;
    std::vector<std::vector<float>> gradients;
    std::vector<double> losses;
    for (const auto& [replica, from, to] :
         {std::tuple{&first, 0L, split}, std::tuple{&second, split, kGradientShards}}) {
      if (from == to) continue;
      for (const ShardRange block : attn::train::shard_blocks(from, to)) {
        blocks.push_back(block);
        gradients.emplace_back(P);
        losses.push_back(replica->block_gradient(block, gradients.back().data()));
      }
    }
    const auto read = [&](std::size_t b, float* into) {
      std::copy(gradients[b].begin(), gradients[b].end(), into);
    };
    const bool due = first.apply_blocks(blocks, losses, read);
    expect(second.apply_blocks(blocks, losses, read) == due,
           "the replicas disagree on a checkpoint");
    expect(due == expected.has_value(), "a replica's checkpoint is not the trainer's");
    if (!due) continue;
    const long chunks = first.evaluation_chunks();
    const long chunk = std::clamp(chunk_split, 0L, chunks);
    std::vector<long> correct(options.task.pairs, 0);
    for (const auto& [replica, from, to] :
         {std::tuple{&first, 0L, chunk}, std::tuple{&second, chunk, chunks}}) {
      if (from == to) continue;
      const std::vector<long> counted = replica->correct_answers(from, to);
      for (std::size_t i = 0; i < correct.size(); ++i) correct[i] += counted[i];
    }
    const attn::train::Checkpoint shared = first.checkpoint(correct);
    const attn::train::Checkpoint other = second.checkpoint(correct);
    expect(std::isfinite(shared.loss) && shared.accuracy >= 0.0 && shared.accuracy <= 1.0,
           "a shared checkpoint is not finite");
    expect(shared.step == expected->step && other.step == shared.step &&
               other.loss == shared.loss && shared.loss == expected->loss &&
               shared.accuracy == expected->accuracy &&
               shared.accuracy_by_position == expected->accuracy_by_position,
           "a shared checkpoint differs from the trainer's");
  }
  expect(first.finished() && second.finished(), "a replica did not finish with the trainer");
  for (auto* replica : {&first, &second}) {
    expect(
        std::equal(alone.model().values(), alone.model().values() + P, replica->model().values()),
        "a replica's parameters differ from the trainer's");
  }
  // the final evaluation measured in parts by the replicas (cut at the same chunk) and joined
  const attn::train::TaskOptions& task = options.task;
  const long pairs = options.evaluation_pairs[0], sequences = options.sequences;
  const long chunks = attn::train::evaluation_chunks(first.model(), task, pairs, sequences);
  const long chunk = std::clamp(chunk_split, 0L, chunks);
  std::vector<attn::train::EvaluationSums> sums;
  for (const auto& [replica, from, to] :
       {std::tuple{&first, 0L, chunk}, std::tuple{&second, chunk, chunks}}) {
    if (from == to) continue;
    const auto part = attn::train::evaluation_sums(replica->model(), task, pairs, sequences,
                                                   options.context, from, to);
    sums.insert(sums.end(), part.begin(), part.end());
  }
  const auto joined =
      attn::train::join_evaluation(second.model(), task, pairs, sequences, options.context, sums);
  const auto expected = alone.evaluate(pairs);
  const auto same = [](double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); };
  bool equal = same(joined.loss, expected.loss) && joined.accuracy == expected.accuracy &&
               joined.accuracy_by_position == expected.accuracy_by_position;
  for (const auto& [mine, theirs] : {std::pair{&joined.to_value, &expected.to_value},
                                     std::pair{&joined.to_key, &expected.to_key},
                                     std::pair{&joined.to_first, &expected.to_first}}) {
    for (std::size_t l = 0; l < mine->size(); ++l) {
      for (std::size_t h = 0; h < (*mine)[l].size(); ++h) {
        for (std::size_t i = 0; i < (*mine)[l][h].size(); ++i) {
          equal = equal && same((*mine)[l][h][i], (*theirs)[l][h][i]);
        }
      }
    }
  }
  expect(equal, "the replicas' joined evaluation differs from the trainer's");
}

void fuzz_training(FuzzedDataProvider& data) {
  attn::train::TrainingOptions options;
  options.task.pairs = data.ConsumeIntegralInRange<long>(0, 6);
  options.task.keys = data.ConsumeIntegralInRange<long>(0, 8);
  options.task.values = data.ConsumeIntegralInRange<long>(0, 8);
  options.task.answer_positions = data.ConsumeBool() ? attn::train::AnswerPositions::ends
                                                     : attn::train::AnswerPositions::uniform;
  for (double& weight : options.task.mix) weight = data.ConsumeBool() ? draw_float(data) : 0.0;
  options.task.span = data.ConsumeIntegralInRange<long>(-1, 7);
  options.model = draw_config(data);
  options.model.max_length = data.ConsumeBool() ? 0 : options.model.max_length;
  options.context =
      data.ConsumeBool() ? attn::train::Context::prefix : attn::train::Context::causal;
  options.optimizer.schedule.steps = data.ConsumeIntegralInRange<long>(-1, 3);
  options.optimizer.schedule.learning_rate = data.ConsumeFloatingPointInRange(-1e-2f, 2e-2f);
  options.batch = data.ConsumeIntegralInRange<long>(-1, 4);
  options.every = data.ConsumeIntegralInRange<long>(-1, 3);
  options.sequences = data.ConsumeIntegralInRange<long>(-1, 8);
  options.evaluation_pairs = {data.ConsumeIntegralInRange<long>(-1, 8)};
  options.seed = data.ConsumeIntegral<std::uint32_t>();
  const bool shared = data.ConsumeBool();
  // a shared run's held-out set in two chunks (of 256 and the rest) one time in eight: its
  // evaluations cost three trainers 264 sequences each, which would slow every other input
  if (shared && data.ConsumeIntegralInRange<int>(0, 7) == 0) options.sequences += 256;
  const long shard_split = data.ConsumeIntegralInRange<long>(-1, attn::train::kGradientShards + 1);
  const long chunk_split = data.ConsumeIntegralInRange<long>(-1, 3);
  describe_call = [=] {
    const auto& t = options.task;
    return "training: " + describe(options.model, {}) + "; task pairs " + std::to_string(t.pairs) +
           " keys " + std::to_string(t.keys) + " values " + std::to_string(t.values) + " span " +
           std::to_string(t.span) + " mix " + std::to_string(t.mix[0]) + " " +
           std::to_string(t.mix[1]) + " " + std::to_string(t.mix[2]) + "; steps " +
           std::to_string(options.optimizer.schedule.steps) + " learning rate " +
           std::to_string(options.optimizer.schedule.learning_rate) + " batch " +
           std::to_string(options.batch) + " evaluation pairs " +
           std::to_string(options.evaluation_pairs[0]) + " seed " + std::to_string(options.seed) +
           (shared ? "; shared at shard " + std::to_string(shard_split) + " and chunk " +
                         std::to_string(chunk_split)
                   : "");
  };
  try {
    if (shared) return check_shared_run(options, shard_split, chunk_split);
    attn::train::RetrievalTrainer trainer(options);
    while (!trainer.finished()) {
      if (const auto checkpoint = trainer.advance(2)) {
        expect(std::isfinite(checkpoint->loss) && checkpoint->accuracy >= 0.0 &&
                   checkpoint->accuracy <= 1.0,
               "a checkpoint is not finite");
      }
    }
    const attn::train::Evaluation evaluation = trainer.evaluate(options.evaluation_pairs[0]);
    expect(std::isfinite(evaluation.loss), "the evaluation's loss is not finite");
  } catch (const attn::InvalidArgument&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* bytes, std::size_t size) {
  FuzzedDataProvider data(bytes, size);
  if (data.ConsumeBool()) {
    fuzz_model(data);
  } else {
    fuzz_training(data);
  }
  return 0;
}
