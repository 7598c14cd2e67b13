// attn/train/evaluation.hpp: the held-out measures of a trained model, for the trainer's
// own model and for any model with the same parameters, and the errors of a task that does
// not fit the model.
#include "attn/train/evaluation.hpp"
#include "attn/train/trainer.hpp"
#include "helpers.hpp"

using attn::train::RetrievalTrainer;
using attn::train::TrainingOptions;
using Catch::Contains;

namespace {

// 4 pairs of 8 keys and 8 values, 2 layers of width 16: learnt in 300 steps (0.2 s).
TrainingOptions small_run() {
  TrainingOptions options;
  options.task.pairs = 4;
  options.task.keys = 8;
  options.task.values = 8;
  options.model.d_model = 16;
  options.optimizer.schedule.steps = 300;
  options.optimizer.schedule.warmup = 20;
  options.batch = 32;
  options.every = 300;
  options.sequences = 256;
  options.evaluation_pairs = {4, 6};
  return options;
}

void run(RetrievalTrainer& trainer) {
  while (!trainer.finished()) trainer.advance(1000);
}

}  // namespace

TEST_CASE("evaluation: accuracy and attention by position at the trained length and longer",
          "[train][evaluation]") {
  RetrievalTrainer trainer(small_run());
  run(trainer);
  for (long pairs : {4L, 6L}) {
    const attn::train::Evaluation evaluation = trainer.evaluate(pairs);
    CHECK(evaluation.pairs == pairs);
    CHECK(evaluation.accuracy_by_position.size() == std::size_t(pairs));
    REQUIRE(evaluation.to_value.size() == 2);     // layers
    REQUIRE(evaluation.to_value[1].size() == 2);  // heads
    for (std::size_t l = 0; l < 2; ++l) {
      for (std::size_t h = 0; h < 2; ++h) {
        for (long i = 0; i < pairs; ++i) {
          const double value = evaluation.to_value[l][h][i], key = evaluation.to_key[l][h][i],
                       first = evaluation.to_first[l][h][i];
          CHECK(value >= 0.0);
          CHECK(key >= 0.0);
          CHECK(first >= 0.0);
          // three different tokens, except pair 0, whose key is token 0
          CHECK((i == 0 ? value + key : value + key + first) <= 1.0 + 1e-5);
          if (i == 0) CHECK(key == first);
        }
      }
    }
  }
  // At the trained length the model answers nearly every sequence.
  CHECK(trainer.evaluate(4).accuracy > 0.9);
  CHECK(trainer.evaluate(4).loss < 0.3);
}

TEST_CASE("evaluation: any model with the trained parameters measures the same",
          "[train][evaluation]") {
  const TrainingOptions options = small_run();
  RetrievalTrainer trainer(options);
  run(trainer);
  attn::train::Transformer copy(trainer.model().config());
  for (const std::string& name : copy.parameter_names()) {
    copy.set_parameter(name, trainer.model().parameter(name));
  }
  const auto mine = trainer.evaluate(6);
  const auto theirs = attn::train::evaluate_retrieval(copy, options.task, 6, options.sequences,
                                                      attn::train::Context::causal);
  CHECK(theirs.accuracy_by_position == mine.accuracy_by_position);
  CHECK(theirs.to_value == mine.to_value);
  CHECK(theirs.loss == mine.loss);
}

TEST_CASE("evaluation: a task that does not fit the model fails naming why",
          "[train][evaluation][errors]") {
  RetrievalTrainer trainer(small_run());
  attn::train::TaskOptions task = small_run().task;
  task.values = 9;
  CHECK_THROWS_WITH(
      attn::train::evaluate_retrieval(trainer.model(), task, 4, 16, attn::train::Context::causal),
      Contains("this model has a vocabulary of 19 tokens and 8 outputs, but a task of 8 keys and 9 "
               "values needs 20 and 9"));
  task = small_run().task;
  CHECK_THROWS_WITH(
      attn::train::evaluate_retrieval(trainer.model(), task, 9, 16, attn::train::Context::causal),
      Contains("pairs must be from 1 to task.keys (8)"));
  CHECK_THROWS_WITH(
      attn::train::evaluate_retrieval(trainer.model(), task, 4, 0, attn::train::Context::causal),
      Contains("sequences must be a whole number from 1"));
}
