// Training a transformer on the retrieval task, and measuring where it looks.
// Letters as in attn/train/layers.hpp.
//
// Each step draws a batch per objective (round(batch·w) sequences for weight w of the
// normalised mix), minimises Σ w·loss with AdamW, after warm-up and global-norm clipping.
// The step's gradient is a sum over fixed shards of its batch in a fixed order
// (shard_sum.hpp), so that replicas of a trainer on several threads can share a step's work
// and still give its bits.
// Checkpoints measure the model on a fixed held-out retrieval set whose queried pair cycles
// through every position, so accuracy by position is exact to the set, not to a sample.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "attn/train/evaluation.hpp"
#include "attn/train/optimizer.hpp"
#include "attn/train/retrieval.hpp"
#include "attn/train/shard_sum.hpp"
#include "attn/train/transformer.hpp"

namespace attn::train {

// A step's shard s holds rows [s·n/S, (s+1)·n/S) of each objective's batch of n sequences; its
// gradient is computed from zero over those rows, and its loss is their share of the mean.
// Float sums depend on their order, so fixing the shards and their sum (shard_sum.hpp), not
// the threads, is what makes a step's bits the same whether one trainer computes every shard
// or several replicas each compute some blocks of them and exchange those (the Train page's
// workers).

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
  // batches, unless drawn already), computes some blocks of shards with block_gradient and
  // sends them to the others, and, holding blocks that tile all S shards, calls apply_blocks.
  // At a checkpoint each counts the right answers of some chunks of the held-out set
  // (correct_answers), and with every chunk's counts added up, calls checkpoint.

  // Draws the step's batches, unless drawn already. Throws when the run has finished, or when
  // the last step ended at a checkpoint not yet taken.
  void sample_step();
  // Writes block `block`'s gradient (parameter_count() floats, in the model's flat order), the
  // sum of its shards' (shard_sum.hpp), to `gradient`, and returns its part of the step's loss.
  // Throws unless the step's batches are drawn and `block` is a block of the S shards.
  double block_gradient(ShardRange block, float* gradient);
  // Takes the step from blocks that tile the S shards, in order, with their losses; each
  // block's gradient (parameter_count() floats) is written by read_gradient(b, into) when its
  // turn comes, so that the blocks need not all be in memory at once. Sums them, checks that
  // the loss and the sum are finite, and steps the optimizer. Returns whether the step ends
  // at a checkpoint (every `every` steps and the last), which must then be taken before the
  // next step. Throws, and leaves the step to be taken again, unless the batches are drawn,
  // the blocks tile the shards and their sum is finite.
  bool apply_blocks(const std::vector<ShardRange>& blocks, const std::vector<double>& losses,
                    const std::function<void(std::size_t block, float* into)>& read_gradient);
  std::size_t parameter_count() const { return model_->parameter_count(); }
  // The chunks of the held-out set a checkpoint measures (evaluation_chunk sequences each).
  long evaluation_chunks() const;
  // Right answers by the queried pair's position (task.pairs) in chunks [first, end) of it.
  std::vector<long> correct_answers(long first, long end);
  // The checkpoint of the steps since the last one, from the right answers of every chunk
  // (task.pairs counts, added up); throws unless a step just ended at a checkpoint, or when a
  // count is more than the set asks about that position.
  Checkpoint checkpoint(const std::vector<long>& correct);
  // A page's Stop: makes a checkpoint of the steps since the last one (if any) due, to be
  // taken as after a step that ends at one; returns whether a checkpoint is due. Changes
  // nothing of the steps taken; once the checkpoint is taken, advance trains on.
  bool stop();

  // The model measured on the held-out set with `pairs` pairs (evaluate_retrieval).
  Evaluation evaluate(long pairs);

  const TrainingOptions& options() const { return options_; }
  Transformer& model() { return *model_; }
  // The model, shared: it outlives the trainer when its holder keeps it.
  std::shared_ptr<Transformer> shared_model() const { return model_; }

 private:
  // The gradient and part of the loss of shard `shard`, left in the model's gradients().
  double compute_shard(long shard);
  // Computes the shards of `block` and adds them up in shard_sum_, which then holds its sum.
  void sum_shards(ShardRange block);
  // Steps the optimizer with the step's gradient `sum` (P floats) and loss; checks them first
  // (`exchanged`: whether the sum came from blocks given to apply_blocks, for the message).
  bool take_step(float* sum, double loss, bool exchanged);

  TrainingOptions options_;
  std::shared_ptr<Transformer> model_;
  Optimizer optimizer_;
  TaskRandom random_;
  std::vector<TaskBatch> step_batches_;  // the sampled step's batch of each objective (or empty)
  bool step_sampled_ = false;
  ShardSum shard_sum_;               // one block's shards, or the step's blocks or shards
  std::vector<float> block_buffer_;  // P: apply_blocks's block being read
  bool checkpoint_due_ = false;      // the last step ended at a checkpoint not yet taken
  TaskBatch held_out_;               // what checkpoints measure: evaluation_set at task.pairs
  std::vector<long> asked_;          // the held-out sequences asking about each position
  double loss_since_checkpoint_ = 0.0;
  long steps_since_checkpoint_ = 0;
};

}  // namespace attn::train
