// Training a transformer on the retrieval task, and measuring where it looks.
// Letters as in attn/train/layers.hpp.
//
// Each step draws a batch per objective (round(batch·w) sequences for weight w of the
// normalised mix), minimises Σ w·loss with AdamW, after warm-up and global-norm clipping.
// The step's gradient is the sum of kGradientShards shards' gradients (see below), so that
// replicas of a trainer on several threads can share a step's work and still give its bits.
// Checkpoints measure the model on a fixed held-out retrieval set whose queried pair cycles
// through every position, so accuracy by position is exact to the set, not to a sample.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "attn/train/evaluation.hpp"
#include "attn/train/optimizer.hpp"
#include "attn/train/retrieval.hpp"
#include "attn/train/transformer.hpp"

namespace attn::train {

// A step's gradient is the sum of the gradients of S = kGradientShards fixed shards, each
// computed from zero over its rows of every objective's batch (shard s holds rows
// [s·n/S, (s+1)·n/S) of an objective's n), added in the order 0, 1, …, S−1; a shard's loss is
// its rows' share of the mean. Float sums depend on their order, so fixing the shards, not
// the threads, is what makes a step's bits the same whether one trainer computes every shard
// or several replicas each compute some and exchange them (the Train page's workers).
constexpr long kGradientShards = 8;

struct TrainingOptions {
  TaskOptions task;
  // The model: vocab and outputs are set from the task, seed from `seed`; max_length 0 (the
  // default here) means the longest sequence the run trains or evaluates on, at least 512.
  TransformerConfig model = [] {
    TransformerConfig config;
    config.max_length = 0;
    return config;
  }();
  Context context = Context::causal;
  OptimizerOptions optimizer;  // learning rate, warm-up, schedule, steps, AdamW, clipping
  long batch = 64;
  std::uint64_t seed = 0;
  long every = 100;       // steps between checkpoints
  long sequences = 2048;  // held-out sequences per evaluation
  std::vector<long> evaluation_pairs = {16};
};

// Throws attn::InvalidArgument naming the option.
void validate(const TrainingOptions& options);

struct Checkpoint {
  long step = 0;          // steps taken
  double loss = 0.0;      // mean training loss (Σ w·loss) since the previous checkpoint
  double accuracy = 0.0;  // on the held-out set at task.pairs
  std::vector<double> accuracy_by_position;  // k: accuracy when the queried pair is the i-th
};

class RetrievalTrainer {
 public:
  explicit RetrievalTrainer(const TrainingOptions& options);

  long step() const { return optimizer_.steps_taken(); }
  long steps() const { return options_.optimizer.schedule.steps; }
  bool finished() const { return step() >= steps(); }

  // Trains at most `max_steps` steps, stopping early at a checkpoint (every `every` steps
  // and after the last step), which it returns. Throws when the loss stops being finite.
  std::optional<Checkpoint> advance(long max_steps);

  // One step shared by replicas (trainers made from the same options, stepped alike); advance
  // makes the same calls alone. Each replica calls sample_step (which draws the step's
  // batches, unless drawn already), computes some shards with shard_gradient and sends them to
  // the others, and, holding every shard, calls apply_shards. At a checkpoint each counts the
  // right answers of some chunks of the held-out set (correct_answers), and with every chunk's
  // counts added up, calls checkpoint.
  void sample_step();
  // Writes shard `shard`'s gradient (parameter_count() floats, in the model's flat order) to
  // `gradient`, and returns the shard's part of the step's loss. Throws unless 0 ≤ shard < S.
  double shard_gradient(long shard, float* gradient);
  // Takes the step from every shard's gradient (S×parameter_count() floats, shard-major) and
  // loss (S): sums them in order, checks that the loss and the sum are finite, and steps the
  // optimizer. Returns whether the step ends at a checkpoint (every `every` steps and the
  // last). Throws unless a step was sampled.
  bool apply_shards(const float* gradients, const double* losses);
  std::size_t parameter_count() const { return model_->parameter_count(); }
  // The chunks of the held-out set a checkpoint measures (evaluation_chunk sequences each).
  long evaluation_chunks() const;
  // Right answers by the queried pair's position (task.pairs) in chunks [first, end) of it.
  std::vector<long> correct_answers(long first, long end);
  // The checkpoint of the steps since the last one, from the right answers of every chunk
  // (task.pairs counts, added up); throws unless a step just ended at a checkpoint, or when a
  // count is more than the set asks about that position.
  Checkpoint checkpoint(const std::vector<long>& correct);

  // The model measured on the held-out set with `pairs` pairs (evaluate_retrieval).
  Evaluation evaluate(long pairs);

  const TrainingOptions& options() const { return options_; }
  Transformer& model() { return *model_; }
  // The model, shared: it outlives the trainer when its holder keeps it.
  std::shared_ptr<Transformer> shared_model() const { return model_; }

 private:
  TrainingOptions options_;
  std::shared_ptr<Transformer> model_;
  Optimizer optimizer_;
  TaskRandom random_;
  std::vector<TaskBatch> step_batches_;  // the sampled step's batch of each objective (or empty)
  bool step_sampled_ = false;
  std::vector<float> shard_gradients_;  // S×P: advance's shards
  bool checkpoint_due_ = false;         // the last step ended at a checkpoint not yet taken
  TaskBatch held_out_;                  // what checkpoints measure: evaluation_set at task.pairs
  std::vector<long> asked_;             // the held-out sequences asking about each position
  double loss_since_checkpoint_ = 0.0;
  long steps_since_checkpoint_ = 0;
};

}  // namespace attn::train
