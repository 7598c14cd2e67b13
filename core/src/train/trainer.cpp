#include "attn/train/trainer.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "attn/errors.hpp"

namespace attn::train {

namespace {

constexpr long kMaxBatch = 1L << 16;
constexpr long kDefaultMaxLength = 512;
// The batch's random stream (the model's initialisation draws from the seed's own stream).
constexpr std::uint32_t kTrainingStream = 1;

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

// The longest sequence a run trains (on the objectives it mixes) or evaluates on.
long longest_sequence(const TrainingOptions& options) {
  long longest = 0;
  for (std::size_t o = 0; o < kObjectives.size(); ++o) {
    if (options.task.mix[o] > 0.0) {
      longest =
          std::max(longest, sequence_length(kObjectives[o], options.task, options.task.pairs));
    }
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
  require_whole_number("training.batch", options.batch, 1, kMaxBatch);
  require_whole_number("evaluation.every", options.every, 1, kMaxSteps);
  require_whole_number("evaluation.sequences", options.sequences, 1, kMaxEvaluationSequences);
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
    const Batch batch{sampled.tokens.data(),
                      sampled.targets.data(),
                      sampled.B,
                      sampled.T,
                      sampled.A,
                      prefix_length(options_.context, sampled.pairs)};
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
  return evaluate_retrieval(*model_, options_.task, pairs, options_.sequences, options_.context);
}

}  // namespace attn::train
