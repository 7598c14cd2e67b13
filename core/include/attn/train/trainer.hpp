// Training a transformer on the retrieval task, and measuring where it looks.
// Letters as in attn/train/layers.hpp.
//
// Each step draws a batch per objective (round(batch·w) sequences for weight w of the
// normalised mix), minimises Σ w·loss with AdamW, after warm-up and global-norm clipping.
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

struct TrainingOptions {
  TaskOptions task;
  // The model: vocab, outputs and (when 0) max_length are set from the task; seed from `seed`.
  TransformerConfig model;
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

  // The model measured on the held-out set with `pairs` pairs (evaluate_retrieval).
  Evaluation evaluate(long pairs);

  const TrainingOptions& options() const { return options_; }
  Transformer& model() { return *model_; }
  // The model, shared: it outlives the trainer when its holder keeps it.
  std::shared_ptr<Transformer> shared_model() const { return model_; }

 private:
  double train_step();

  TrainingOptions options_;
  std::shared_ptr<Transformer> model_;
  Optimizer optimizer_;
  TaskRandom random_;
  double loss_since_checkpoint_ = 0.0;
  long steps_since_checkpoint_ = 0;
};

}  // namespace attn::train
