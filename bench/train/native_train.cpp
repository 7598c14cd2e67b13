// The default training run natively: the same core that runs in wasm, built with g++ -O3
// -march=native, one thread. TrainingOptions' defaults are engine.trainRetrieval()'s: retrieval
// with 16 pairs of 32 keys and 32 values, 2 layers, dModel 32, 2 heads, no MLP, batch 64,
// 1,400 steps, a checkpoint every 100 steps on 2,048 held-out sequences, then the evaluation
// after training. Prints one JSON object on stdout, for bench/train/run.mjs:
//   {"seconds": 5.2, "cpuSeconds": 5.2, "steps": 1400, "batch": 64, "length": 34,
//    "evaluations": 15, "evaluationSeconds": 0.057, "accuracy": 0.637}
// seconds is wall-clock time, cpuSeconds the process's CPU time over the same run (the wall
// time is longer when other processes share the cores); evaluationSeconds is the median of
// kEvaluationRounds more evaluations of the trained model.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <vector>

#include "attn/train/trainer.hpp"

namespace {

constexpr int kEvaluationRounds = 5;

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

}  // namespace

int main() {
  const attn::train::TrainingOptions options;
  const auto start = Clock::now();
  const std::clock_t cpu_start = std::clock();
  attn::train::RetrievalTrainer trainer(options);
  long checkpoints = 0;
  while (!trainer.finished()) {
    if (trainer.advance(trainer.steps())) ++checkpoints;
  }
  // as engine.trainRetrieval: an evaluation per evaluation.pairs entry after training
  double accuracy = 0.0;
  for (long pairs : options.evaluation_pairs) accuracy = trainer.evaluate(pairs).accuracy;
  const double seconds = seconds_since(start);
  const double cpu_seconds = double(std::clock() - cpu_start) / CLOCKS_PER_SEC;

  std::vector<double> evaluation_seconds;
  for (int round = 0; round < kEvaluationRounds; ++round) {
    const auto evaluation_start = Clock::now();
    trainer.evaluate(options.task.pairs);
    evaluation_seconds.push_back(seconds_since(evaluation_start));
  }
  const long length = attn::train::sequence_length(attn::train::Objective::retrieval, options.task,
                                                   options.task.pairs);
  std::printf(
      "{\"seconds\": %.6g, \"cpuSeconds\": %.6g, \"steps\": %ld, \"batch\": %ld, \"length\": %ld, "
      "\"evaluations\": %ld, \"evaluationSeconds\": %.6g, \"accuracy\": %.6g}\n",
      seconds, cpu_seconds, trainer.step(), options.batch, length,
      checkpoints + static_cast<long>(options.evaluation_pairs.size()), median(evaluation_seconds),
      accuracy);
  return 0;
}
