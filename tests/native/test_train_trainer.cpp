// attn/train/trainer.hpp: a short run learns the small task, a seed gives the same run
// twice, checkpoints fall where they should, the evaluation's measures are what they say,
// and bad options fail naming the option.
#include "attn/train/trainer.hpp"
#include "helpers.hpp"

using attn::train::Checkpoint;
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
  options.every = 60;
  options.sequences = 256;
  options.evaluation_pairs = {4, 6};
  return options;
}

std::vector<Checkpoint> run(RetrievalTrainer& trainer) {
  std::vector<Checkpoint> checkpoints;
  while (!trainer.finished()) {
    if (auto checkpoint = trainer.advance(1000)) checkpoints.push_back(*checkpoint);
  }
  return checkpoints;
}

}  // namespace

TEST_CASE("trainer: a short run learns the small retrieval task", "[train][trainer]") {
  RetrievalTrainer trainer(small_run());
  const std::vector<Checkpoint> checkpoints = run(trainer);
  REQUIRE(checkpoints.size() == 5);
  INFO("loss " << checkpoints.front().loss << " → " << checkpoints.back().loss << ", accuracy "
               << checkpoints.front().accuracy << " → " << checkpoints.back().accuracy);
  CHECK(checkpoints.front().loss > 1.5);  // log 8 = 2.08 at chance
  CHECK(checkpoints.back().loss < 0.3);
  CHECK(checkpoints.back().accuracy > 0.9);
  CHECK(checkpoints.back().accuracy_by_position.size() == 4);
  // accuracy is the mean of the positions' accuracies (the set cycles them evenly)
  double mean = 0.0;
  for (double accuracy : checkpoints.back().accuracy_by_position) mean += accuracy / 4;
  CHECK(checkpoints.back().accuracy == Approx(mean));
}

TEST_CASE("trainer: a seed gives the same run twice; another seed another run",
          "[train][trainer]") {
  TrainingOptions options = small_run();
  options.optimizer.schedule.steps = 40;
  options.every = 20;
  RetrievalTrainer first(options), second(options);
  const auto a = run(first), b = run(second);
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].loss == b[i].loss);
    CHECK(a[i].accuracy_by_position == b[i].accuracy_by_position);
  }
  CHECK(std::equal(first.model().values(), first.model().values() + first.model().parameter_count(),
                   second.model().values()));
  options.seed = 1;
  RetrievalTrainer other(options);
  CHECK(run(other).back().loss != a.back().loss);
}

TEST_CASE("trainer: checkpoints every `every` steps and after the last", "[train][trainer]") {
  TrainingOptions options = small_run();
  options.optimizer.schedule.steps = 25;
  options.every = 10;
  RetrievalTrainer trainer(options);
  // advance stops at a checkpoint, or after the steps it was given
  CHECK_FALSE(trainer.advance(7).has_value());
  CHECK(trainer.step() == 7);
  CHECK(trainer.advance(100)->step == 10);
  CHECK(trainer.advance(100)->step == 20);
  CHECK(trainer.advance(100)->step == 25);
  CHECK(trainer.finished());
  CHECK_FALSE(trainer.advance(100).has_value());
}

TEST_CASE("trainer: the mixed objectives, prefix context and end-biased answers run",
          "[train][trainer]") {
  TrainingOptions options = small_run();
  options.optimizer.schedule.steps = 30;
  options.every = 30;
  options.task.mix = {0.5, 0.25, 0.25};
  options.task.span = 2;
  options.task.answer_positions = attn::train::AnswerPositions::ends;
  options.context = attn::train::Context::prefix;
  options.model.mlp = true;
  options.model.positional.type = attn::PositionalType::learned;
  RetrievalTrainer trainer(options);
  const auto checkpoints = run(trainer);
  REQUIRE(checkpoints.size() == 1);
  CHECK(std::isfinite(checkpoints[0].loss));
  CHECK(trainer.model().config().vocab == 8 + 8 + 3);
  CHECK(trainer.model().config().outputs == 8);
  CHECK(trainer.model().config().max_length == 512);
}

TEST_CASE("trainer: bad options fail naming the option", "[train][trainer][errors]") {
  const auto fails_with = [](TrainingOptions options, const std::string& words) {
    CHECK_THROWS_WITH(RetrievalTrainer(options), Contains(words));
  };
  TrainingOptions bad = small_run();
  bad.optimizer.schedule.steps = 0;
  fails_with(bad, "training.steps must be a whole number from 1");
  bad = small_run();
  bad.batch = 0;
  fails_with(bad, "training.batch must be a whole number from 1");
  bad = small_run();
  bad.optimizer.schedule.learning_rate = NAN;
  fails_with(bad, "training.learningRate must be from 0 to 10, got NaN");
  bad = small_run();
  bad.optimizer.schedule.learning_rate = 0.0;
  fails_with(bad, "training.learningRate must be above 0");
  bad = small_run();
  bad.optimizer.adamw.beta2 = 1.0;
  fails_with(bad, "training.betas[1] must be from 0 to");
  bad = small_run();
  bad.evaluation_pairs = {4, 9};
  fails_with(bad, "evaluation.pairs must be from 1 to task.keys (8)");
  bad = small_run();
  bad.every = 0;
  fails_with(bad, "evaluation.every must be a whole number from 1");
  bad = small_run();
  bad.model.max_length = 9;
  fails_with(bad, "the longest sequence of this run has 14 tokens, more than model.maxLength (9)");
  bad = small_run();
  bad.batch = 1;
  bad.task.mix = {1.0, 1.0, 1.0};
  fails_with(bad, "training.batch (1) is too small to give any objective of task.mix a sequence");
  bad = small_run();
  bad.model.heads = 3;
  fails_with(bad, "heads (3) must divide dModel (16)");
  bad = small_run();
  bad.task.pairs = 9;
  fails_with(bad, "task.pairs must be from 1 to task.keys (8)");
}
