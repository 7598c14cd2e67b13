// The short training run the trainer's tests share, and running a trainer to its end.
#pragma once

#include <vector>

#include "attn/train/trainer.hpp"

namespace train_runs {

// 4 pairs of 8 keys and 8 values, 2 layers of width 16: learnt in 300 steps (0.2 s).
inline attn::train::TrainingOptions small_run() {
  attn::train::TrainingOptions options;
  options.task.pairs = 4;
  options.task.keys = 8;
  options.task.values = 8;
  options.model.d_model = 16;
  options.optimizer.schedule.steps = 300;
  options.optimizer.schedule.warmup = 20;
  options.batch = 32;
  options.every = 60;
  options.sequences = 256;
  options.evaluation_pairs = {4, 6};
  return options;
}

// Every checkpoint of a trainer advanced to its last step.
inline std::vector<attn::train::Checkpoint> run(attn::train::RetrievalTrainer& trainer) {
  std::vector<attn::train::Checkpoint> checkpoints;
  while (!trainer.finished()) {
    if (auto checkpoint = trainer.advance(1000)) checkpoints.push_back(*checkpoint);
  }
  return checkpoints;
}

}  // namespace train_runs
