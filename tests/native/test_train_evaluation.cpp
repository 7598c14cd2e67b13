// attn/train/evaluation.hpp: the held-out measures of a trained model, for the trainer's
// own model and for any model with the same parameters, and the errors of a task that does
// not fit the model.
#include "attn/train/evaluation.hpp"
#include "attn/train/trainer.hpp"
#include "helpers.hpp"
#include "train_runs.hpp"

using attn::train::RetrievalTrainer;
using attn::train::TrainingOptions;
using Catch::Contains;

using train_runs::run;
using train_runs::small_run;

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
      Contains(
          "sequences must be from pairs (4, so that every position is asked) to 65536, got 0"));
}

TEST_CASE(
    "evaluation: the attention measures are the final row's weights on value, key and token 0",
    "[train][evaluation]") {
  TrainingOptions options = small_run();
  options.optimizer.schedule.steps = 60;
  RetrievalTrainer trainer(options);
  run(trainer);
  attn::train::Transformer& model = trainer.model();
  const long pairs = 4, sequences = 8;  // each position asked twice
  const auto measured = attn::train::evaluate_retrieval(model, options.task, pairs, sequences,
                                                        attn::train::Context::causal);
  // the same set, one sequence at a time, every row of every layer computed (answers = T)
  const attn::train::TaskBatch set = attn::train::evaluation_set(options.task, pairs, sequences);
  const long T = set.T, H = 2;
  std::vector<double> to_value(2 * H * pairs, 0.0), to_key(2 * H * pairs, 0.0),
      to_first(2 * H * pairs, 0.0);
  for (long s = 0; s < sequences; ++s) {
    model.forward({set.tokens.data() + s * T, nullptr, 1, T, T, 0});
    const int query = set.queried[s];
    for (long l = 0; l < 2; ++l) {
      for (long h = 0; h < H; ++h) {
        const float* last_row = model.attention_weights(l) + (h * T + T - 1) * T;
        const long at = (l * H + h) * pairs + query;
        to_value[at] += last_row[2 * query + 1] / 2;
        to_key[at] += last_row[2 * query] / 2;
        to_first[at] += last_row[0] / 2;
      }
    }
  }
  for (long l = 0; l < 2; ++l) {
    for (long h = 0; h < H; ++h) {
      for (long i = 0; i < pairs; ++i) {
        const long at = (l * H + h) * pairs + i;
        CHECK(measured.to_value[l][h][i] == Approx(to_value[at]).margin(1e-6));
        CHECK(measured.to_key[l][h][i] == Approx(to_key[at]).margin(1e-6));
        CHECK(measured.to_first[l][h][i] == Approx(to_first[at]).margin(1e-6));
      }
    }
  }
}
