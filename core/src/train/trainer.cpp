#include "attn/train/trainer.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>

#include "attn/errors.hpp"
#include "buffers.hpp"

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

// The numbers of pairs a run evaluates at: task.pairs at every checkpoint, then
// evaluation.pairs after training.
std::vector<long> evaluated_pairs(const TrainingOptions& options) {
  std::vector<long> pairs = options.evaluation_pairs;
  pairs.insert(pairs.begin(), options.task.pairs);
  return pairs;
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
  for (long pairs : evaluated_pairs(options)) {
    longest = std::max(longest, sequence_length(Objective::retrieval, options.task, pairs));
  }
  return longest;
}

TransformerConfig model_config(const TrainingOptions& options) {
  TransformerConfig config = options.model;
  config.vocab = vocabulary_size(options.task);
  config.outputs = options.task.values;
  config.seed = options.seed;
  if (config.max_length == 0) {
    config.max_length = std::max(kDefaultMaxLength, longest_sequence(options));
  }
  return config;
}

}  // namespace

void validate(const TrainingOptions& options) {
  validate(options.task);
  validate(options.optimizer);
  require_whole_number("training.batch", options.batch, 1, kMaxBatch);
  require_whole_number("evaluation.every", options.every, 1, kMaxSteps);
  require_whole_number("evaluation.sequences", options.sequences, 1, kMaxEvaluationSequences);
  if (options.evaluation_pairs.empty()) {
    fail("evaluation.pairs must list at least one number of pairs");
  }
  for (long pairs : options.evaluation_pairs)
    require_pairs("evaluation.pairs", pairs, options.task);
  const std::array<long, 3> counts = split_batch(options);
  if (counts[0] + counts[1] + counts[2] == 0) {
    fail("training.batch (" + std::to_string(options.batch) +
         ") is too small to give any objective of task.mix a sequence");
  }
  const TransformerConfig config = model_config(options);
  validate(config, "model.");
  const long longest = longest_sequence(options);
  if (longest > config.max_length) {
    fail("the longest sequence of this run has " + std::to_string(longest) +
         " tokens, more than model.maxLength (" + std::to_string(config.max_length) + ")");
  }
  // What each step and each evaluation hold at once, checked before the first step.
  for (std::size_t o = 0; o < kObjectives.size(); ++o) {
    if (counts[o] == 0) continue;
    const long length = sequence_length(kObjectives[o], options.task, options.task.pairs);
    require_task_tokens("training.batch", counts[o], length);
    const std::uint64_t floats = activation_floats(
        config, counts[o], length, answer_count(kObjectives[o], options.task, options.task.pairs));
    if (floats > kMaxActivationFloats) {
      fail("training.batch (" + std::to_string(options.batch) + ") of sequences of " +
           std::to_string(length) + " tokens needs " + std::to_string(floats * sizeof(float)) +
           " bytes of activations, more than the engine's " +
           std::to_string(kMaxActivationFloats * sizeof(float)) + "; use a smaller batch");
    }
  }
  const std::vector<long> evaluated = evaluated_pairs(options);
  for (std::size_t e = 0; e < evaluated.size(); ++e) {
    const long pairs = evaluated[e];
    if (options.sequences < pairs) {
      fail("evaluation.sequences (" + std::to_string(options.sequences) + ") must be at least " +
           (e == 0 ? "task.pairs" : "evaluation.pairs") + " (" + std::to_string(pairs) +
           "), so that every position is asked");
    }
    require_task_tokens("evaluation.sequences", options.sequences,
                        sequence_length(Objective::retrieval, options.task, pairs));
  }
}

RetrievalTrainer::RetrievalTrainer(const TrainingOptions& options)
    : options_((validate(options), options)),
      model_(std::make_shared<Transformer>(model_config(options))),
      optimizer_(model_->parameter_count(), options.optimizer),
      random_(options.seed, kTrainingStream),
      shard_sum_(model_->parameter_count()),
      held_out_(evaluation_set(options.task, options.task.pairs, options.sequences)),
      asked_(options.task.pairs, 0) {
  options_.model = model_->config();
  for (int query : held_out_.queried) ++asked_[query];
}

void RetrievalTrainer::sample_step() {
  if (finished()) fail("the run has finished: it took all " + std::to_string(steps()) + " steps");
  if (checkpoint_due_) {
    fail("step " + std::to_string(step()) +
         " ended at a checkpoint, which must be taken before the next step");
  }
  if (step_sampled_) return;
  const std::array<long, 3> counts = split_batch(options_);
  step_batches_.resize(kObjectives.size());
  for (std::size_t o = 0; o < kObjectives.size(); ++o) {
    step_batches_[o] = counts[o] == 0 ? TaskBatch{}
                                      : sample_batch(options_.task, kObjectives[o],
                                                     options_.task.pairs, counts[o], random_);
  }
  step_sampled_ = true;
}

double RetrievalTrainer::compute_shard(long shard) {
  double total_weight = 0.0;
  for (double weight : options_.task.mix) total_weight += weight;
  model_->zero_gradients();
  double loss = 0.0;
  for (std::size_t o = 0; o < kObjectives.size(); ++o) {
    const TaskBatch& sampled = step_batches_[o];
    const long first = shard * sampled.B / kGradientShards;
    const long end = (shard + 1) * sampled.B / kGradientShards;
    if (first == end) continue;
    // the shard's rows' share of this objective's weighted mean loss
    const double share = options_.task.mix[o] / total_weight * double(end - first) / sampled.B;
    const Batch rows{sampled.tokens.data() + first * sampled.T,
                     sampled.targets.data() + first * sampled.A,
                     end - first,
                     sampled.T,
                     sampled.A,
                     prefix_length(options_.context, sampled.pairs)};
    loss += share * model_->forward(rows);
    model_->backward(rows, static_cast<float>(share));
  }
  return loss;
}

double RetrievalTrainer::block_gradient(ShardRange block, float* gradient) {
  if (!step_sampled_) fail("block_gradient needs the step's batches: call sample_step first");
  require_block("block", block);
  sum_shards(block);
  std::copy_n(shard_sum_.gradient(block), model_->parameter_count(), gradient);
  return shard_sum_.loss(block);
}

void RetrievalTrainer::sum_shards(ShardRange block) {
  shard_sum_.clear(block.first);
  for (long s = block.first; s < block.end; ++s) {
    const double loss = compute_shard(s);
    shard_sum_.add({s, s + 1}, model_->gradients(), loss);
  }
}

bool RetrievalTrainer::apply_blocks(
    const std::vector<ShardRange>& blocks, const std::vector<double>& losses,
    const std::function<void(std::size_t block, float* into)>& read_gradient) {
  if (!step_sampled_) {
    fail("a step's shards can be applied only once its batches are drawn (by computing shards)");
  }
  if (losses.size() != blocks.size()) fail("apply_blocks needs a loss for each block");
  float* buffer = grow(block_buffer_, model_->parameter_count());
  shard_sum_.clear(0);
  for (std::size_t b = 0; b < blocks.size(); ++b) {
    read_gradient(b, buffer);
    shard_sum_.add(blocks[b], buffer, losses[b]);
  }
  const ShardRange all{0, kGradientShards};
  const double loss = shard_sum_.loss(all);
  return take_step(shard_sum_.gradient(all), loss, true);
}

bool RetrievalTrainer::take_step(float* sum, double loss, bool exchanged) {
  if (!std::isfinite(loss)) {
    fail("training diverged at step " + std::to_string(step() + 1) + ": the loss is " +
         format_number(loss) + "; try a lower training.learningRate or clip");
  }
  // Every value is checked before it reaches the parameters (blocks may come from replicas).
  for (const ParameterInfo& parameter : model_->parameters()) {
    for (std::size_t i = 0; i < parameter.size(); ++i) {
      const float value = sum[parameter.offset + i];
      if (std::isfinite(value)) continue;
      const std::string where = " at " + parameter.name + "[" + std::to_string(i) + "]";
      if (!exchanged) {
        fail("training diverged at step " + std::to_string(step() + 1) + ": the gradient is " +
             format_number(value) + where + "; try a lower training.learningRate or clip");
      }
      fail("the shards' gradients of step " + std::to_string(step() + 1) + " sum to " +
           format_number(value) + where + "; every shard's gradient must be finite");
    }
  }
  optimizer_.step(model_->values(), sum);
  step_sampled_ = false;
  loss_since_checkpoint_ += loss;
  ++steps_since_checkpoint_;
  checkpoint_due_ = step() % options_.every == 0 || finished();
  return checkpoint_due_;
}

long RetrievalTrainer::evaluation_chunks() const {
  const long chunk = evaluation_chunk(model_->config(), held_out_.T);
  return (held_out_.B + chunk - 1) / chunk;
}

std::vector<long> RetrievalTrainer::correct_answers(long first, long end) {
  require_whole_number("first", first, 0, evaluation_chunks() - 1);
  require_whole_number("end", end, first + 1, evaluation_chunks());
  return correct_by_position(*model_, held_out_, first, end, options_.context);
}

Checkpoint RetrievalTrainer::checkpoint(const std::vector<long>& correct) {
  if (!checkpoint_due_) {
    fail("checkpoint comes after a step that ends at one (step " + std::to_string(step()) +
         " does not)");
  }
  const long pairs = options_.task.pairs;
  if (long(correct.size()) != pairs) {
    fail("correct must hold a count for each of the " + std::to_string(pairs) + " positions, got " +
         std::to_string(correct.size()));
  }
  Checkpoint result;
  result.step = step();
  result.accuracy_by_position.resize(pairs);
  long total = 0;
  for (long i = 0; i < pairs; ++i) {
    require_whole_number(("correct[" + std::to_string(i) + "]").c_str(), correct[i], 0, asked_[i]);
    total += correct[i];
    result.accuracy_by_position[i] = correct[i] / double(std::max<long>(asked_[i], 1));
  }
  result.accuracy = double(total) / held_out_.B;
  result.loss = loss_since_checkpoint_ / steps_since_checkpoint_;
  loss_since_checkpoint_ = 0.0;
  steps_since_checkpoint_ = 0;
  checkpoint_due_ = false;
  return result;
}

bool RetrievalTrainer::stop() {
  if (steps_since_checkpoint_ > 0) checkpoint_due_ = true;
  return checkpoint_due_;
}

std::optional<Checkpoint> RetrievalTrainer::advance(long max_steps) {
  const ShardRange all{0, kGradientShards};
  for (long taken = 0; taken < max_steps && !finished(); ++taken) {
    sample_step();
    sum_shards(all);
    if (take_step(shard_sum_.gradient(all), shard_sum_.loss(all), false)) {
      return checkpoint(correct_answers(0, evaluation_chunks()));
    }
  }
  return std::nullopt;
}

Evaluation RetrievalTrainer::evaluate(long pairs) {
  return evaluate_retrieval(*model_, options_.task, pairs, options_.sequences, options_.context);
}

}  // namespace attn::train
