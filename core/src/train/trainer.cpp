#include "attn/train/trainer.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "attn/errors.hpp"

namespace attn::train {

namespace {

constexpr long kMaxBatch = 1L << 16;
constexpr long kMaxSequences = 1L << 16;
constexpr long kDefaultMaxLength = 512;
// Held-out sequences per forward: enough rows for the matmuls, little memory.
constexpr long kEvaluationChunk = 256;
// The batch's random stream (the model's initialisation draws from the seed's own stream).
constexpr std::uint32_t kTrainingStream = 1;

void require_whole(const char* name, long value, long low, long high) {
  if (value < low || value > high) {
    fail(std::string(name) + " must be a whole number from " + std::to_string(low) + " to " +
         std::to_string(high) + ", got " + std::to_string(value));
  }
}

// The sequences per objective of one step: round(batch · w / Σw).
std::array<long, 3> split_batch(const TrainingOptions& options) {
  double total = 0.0;
  for (double weight : options.task.mix) total += weight;
  std::array<long, 3> counts{};
  for (std::size_t o = 0; o < counts.size(); ++o) {
    counts[o] = std::lround(options.batch * options.task.mix[o] / total);
  }
  return counts;
}

// The longest sequence a run trains or evaluates on.
long longest_sequence(const TrainingOptions& options) {
  long longest = 0;
  for (Objective objective : kObjectives) {
    longest = std::max(longest, sequence_length(objective, options.task, options.task.pairs));
  }
  for (long pairs : options.evaluation_pairs) {
    longest = std::max(longest, sequence_length(Objective::retrieval, options.task, pairs));
  }
  return longest;
}

TransformerConfig model_config(const TrainingOptions& options) {
  TransformerConfig config = options.model;
  config.vocab = vocabulary_size(options.task);
  config.outputs = options.task.values;
  config.seed = options.seed;
  if (config.max_length == 0)
    config.max_length = std::max(kDefaultMaxLength, longest_sequence(options));
  return config;
}

}  // namespace

void validate(const TrainingOptions& options) {
  validate(options.task);
  validate(options.optimizer);
  require_whole("training.batch", options.batch, 1, kMaxBatch);
  require_whole("evaluation.every", options.every, 1, kMaxSteps);
  require_whole("evaluation.sequences", options.sequences, 1, kMaxSequences);
  if (options.evaluation_pairs.empty())
    fail("evaluation.pairs must list at least one number of pairs");
  for (long pairs : options.evaluation_pairs) {
    if (pairs < 1 || pairs > options.task.keys) {
      fail("evaluation.pairs must be from 1 to task.keys (" + std::to_string(options.task.keys) +
           "), since the keys of a sequence are distinct; got " + std::to_string(pairs));
    }
  }
  const std::array<long, 3> counts = split_batch(options);
  if (counts[0] + counts[1] + counts[2] == 0) {
    fail("training.batch (" + std::to_string(options.batch) +
         ") is too small to give any objective of task.mix a sequence");
  }
  const TransformerConfig config = model_config(options);
  validate(config);
  const long longest = longest_sequence(options);
  if (longest > config.max_length) {
    fail("the longest sequence of this run has " + std::to_string(longest) +
         " tokens, more than model.maxLength (" + std::to_string(config.max_length) + ")");
  }
}

RetrievalTrainer::RetrievalTrainer(const TrainingOptions& options)
    : options_((validate(options), options)),
      model_(std::make_shared<Transformer>(model_config(options))),
      optimizer_(model_->parameter_count(), options.optimizer),
      random_(options.seed, kTrainingStream) {
  options_.model = model_->config();
}

long RetrievalTrainer::prefix(long pairs) const {
  return options_.context == Context::prefix ? 2 * pairs : 0;
}

double RetrievalTrainer::train_step() {
  const std::array<long, 3> counts = split_batch(options_);
  double total_weight = 0.0;
  for (double weight : options_.task.mix) total_weight += weight;
  model_->zero_gradients();
  double loss = 0.0;
  for (std::size_t o = 0; o < kObjectives.size(); ++o) {
    if (counts[o] == 0) continue;
    const double weight = options_.task.mix[o] / total_weight;
    const TaskBatch sampled =
        sample_batch(options_.task, kObjectives[o], options_.task.pairs, counts[o], random_);
    const Batch batch{
        sampled.tokens.data(), sampled.targets.data(), sampled.B, sampled.T, sampled.A,
        prefix(sampled.pairs)};
    loss += weight * model_->forward(batch);
    model_->backward(batch, static_cast<float>(weight));
  }
  if (!std::isfinite(loss)) {
    fail("training diverged at step " + std::to_string(step() + 1) + ": the loss is " +
         format_number(loss) + "; try a lower training.learningRate or clip");
  }
  optimizer_.step(model_->values(), model_->gradients());
  return loss;
}

std::optional<Checkpoint> RetrievalTrainer::advance(long max_steps) {
  for (long taken = 0; taken < max_steps && !finished(); ++taken) {
    loss_since_checkpoint_ += train_step();
    ++steps_since_checkpoint_;
    if (step() % options_.every != 0 && !finished()) continue;
    const Evaluation evaluation = evaluate(options_.task.pairs);
    Checkpoint checkpoint;
    checkpoint.step = step();
    checkpoint.loss = loss_since_checkpoint_ / steps_since_checkpoint_;
    checkpoint.accuracy = evaluation.accuracy;
    checkpoint.accuracy_by_position = evaluation.accuracy_by_position;
    loss_since_checkpoint_ = 0.0;
    steps_since_checkpoint_ = 0;
    return checkpoint;
  }
  return std::nullopt;
}

Evaluation RetrievalTrainer::evaluate(long pairs) {
  if (pairs < 1 || pairs > options_.task.keys) {
    fail("pairs must be from 1 to task.keys (" + std::to_string(options_.task.keys) + "), got " +
         std::to_string(pairs));
  }
  const TaskBatch set = evaluation_set(options_.task, pairs, options_.sequences);
  const long T = set.T, L = options_.model.layers, H = options_.model.heads;
  const long O = options_.model.outputs;
  Evaluation result;
  result.pairs = pairs;
  std::vector<long> correct(pairs, 0), count(pairs, 0);
  const auto zeros =
      AttentionByPosition(L, std::vector<std::vector<double>>(H, std::vector<double>(pairs, 0.0)));
  result.to_value = result.to_key = result.to_first = zeros;
  double loss = 0.0;
  for (long first = 0; first < set.B; first += kEvaluationChunk) {
    const long B = std::min(kEvaluationChunk, set.B - first);
    const Batch batch{
        set.tokens.data() + first * T, set.targets.data() + first, B, T, 1, prefix(pairs)};
    loss += model_->forward(batch) * B;
    const float* logits = model_->logits();
    for (long b = 0; b < B; ++b) {
      const float* row = logits + b * O;
      const long guess = std::max_element(row, row + O) - row;
      const int query = set.queried[first + b];
      correct[query] += guess == set.targets[first + b];
      ++count[query];
    }
    // The final position's row of each head's weights: on the queried value, key and token 0.
    for (long l = 0; l < L; ++l) {
      const float* weights = model_->attention_weights(l);  // B×H×Tq×T
      const long Tq = model_->queries(l, batch);
      for (long b = 0; b < B; ++b) {
        const int query = set.queried[first + b];
        for (long h = 0; h < H; ++h) {
          const float* last_row = weights + ((b * H + h) * Tq + (Tq - 1)) * T;
          result.to_value[l][h][query] += last_row[2 * query + 1];
          result.to_key[l][h][query] += last_row[2 * query];
          result.to_first[l][h][query] += last_row[0];
        }
      }
    }
  }
  result.accuracy_by_position.resize(pairs);
  long total_correct = 0;
  for (long i = 0; i < pairs; ++i) {
    total_correct += correct[i];
    result.accuracy_by_position[i] = count[i] > 0 ? double(correct[i]) / count[i] : 0.0;
    for (long l = 0; l < L; ++l) {
      for (long h = 0; h < H; ++h) {
        const double n = std::max<long>(count[i], 1);
        result.to_value[l][h][i] /= n;
        result.to_key[l][h][i] /= n;
        result.to_first[l][h][i] /= n;
      }
    }
  }
  result.accuracy = double(total_correct) / set.B;
  result.loss = loss / set.B;
  return result;
}

}  // namespace attn::train
