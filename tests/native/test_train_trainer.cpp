// attn/train/trainer.hpp: a short run learns the small task, a seed gives the same run
// twice, checkpoints fall where they should, the evaluation's measures are what they say,
// and bad options fail naming the option.
#include <algorithm>
#include <array>
#include <cmath>

#include "attn/train/trainer.hpp"
#include "helpers.hpp"
#include "train_runs.hpp"

using attn::train::Checkpoint;
using attn::train::RetrievalTrainer;
using attn::train::TrainingOptions;
using Catch::Contains;

using train_runs::run;
using train_runs::small_run;

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

TEST_CASE("trainer: a checkpoint's loss is the mean of the steps' losses since the last one",
          "[train][trainer]") {
  TrainingOptions every_step = small_run();
  every_step.optimizer.schedule.steps = 4;
  every_step.every = 1;
  TrainingOptions every_second = every_step;
  every_second.every = 2;
  RetrievalTrainer one(every_step), two(every_second);
  const auto losses = run(one), means = run(two);
  REQUIRE(losses.size() == 4);
  REQUIRE(means.size() == 2);
  CHECK(means[0].loss == Approx((losses[0].loss + losses[1].loss) / 2).epsilon(1e-12));
  CHECK(means[1].loss == Approx((losses[2].loss + losses[3].loss) / 2).epsilon(1e-12));
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
  fails_with(bad, "model.heads (3) must divide model.dModel (16)");
  bad = small_run();
  bad.task.pairs = 9;
  fails_with(bad, "task.pairs must be from 1 to task.keys (8)");
}

namespace {

// Every shard's gradient and loss of the trainer's sampled step: S×P floats and S losses.
struct Shards {
  std::vector<float> gradients;
  std::vector<double> losses;
};

Shards all_shards(RetrievalTrainer& trainer) {
  const std::size_t P = trainer.parameter_count();
  Shards shards{std::vector<float>(attn::train::kGradientShards * P),
                std::vector<double>(attn::train::kGradientShards)};
  trainer.sample_step();
  for (long s = 0; s < attn::train::kGradientShards; ++s) {
    shards.losses[s] = trainer.shard_gradient(s, shards.gradients.data() + s * P);
  }
  return shards;
}

}  // namespace

TEST_CASE("trainer: a step's shards add up to the gradient of its whole batch",
          "[train][trainer][shards]") {
  using attn::train::Objective;
  TrainingOptions options = small_run();
  options.batch = 30;  // 15, 8 and 8 sequences: shards of 1 and 2 sequences, of 1
  options.task.mix = {0.5, 0.25, 0.25};
  options.task.span = 2;
  RetrievalTrainer trainer(options);
  const Shards shards = all_shards(trainer);

  // The same batches, drawn from the trainer's stream (stream 1 of the seed, objectives in
  // order), and the weighted mean of their losses and gradients on a copy of the model.
  attn::train::TaskRandom random(options.seed, 1);
  attn::train::Transformer model(trainer.model().config());
  const std::size_t P = trainer.parameter_count();
  std::copy_n(trainer.model().values(), P, model.values());
  const std::array<long, 3> counts = {15, 8, 8};
  std::vector<double> expected_gradient(P, 0.0);
  double expected_loss = 0.0;
  for (std::size_t o = 0; o < 3; ++o) {
    const auto sampled = attn::train::sample_batch(options.task, attn::train::kObjectives[o],
                                                   options.task.pairs, counts[o], random);
    const attn::train::Batch batch{sampled.tokens.data(), sampled.targets.data(), sampled.B,
                                   sampled.T, sampled.A};
    expected_loss += options.task.mix[o] * model.loss_and_gradients(batch);
    for (std::size_t i = 0; i < P; ++i)
      expected_gradient[i] += options.task.mix[o] * model.gradients()[i];
  }

  double loss = 0.0, largest = 0.0, error = 0.0;
  for (double part : shards.losses) loss += part;
  for (std::size_t i = 0; i < P; ++i) {
    double sum = 0.0;
    for (long s = 0; s < attn::train::kGradientShards; ++s) sum += shards.gradients[s * P + i];
    largest = std::max(largest, std::abs(expected_gradient[i]));
    error = std::max(error, std::abs(sum - expected_gradient[i]));
  }
  CHECK(loss == Approx(expected_loss).epsilon(1e-6));
  INFO("largest gradient " << largest << ", largest error " << error);
  CHECK(largest > 1e-3);
  CHECK(error < 1e-5 * largest);
  // every shard holds some of every objective's rows, so none is zero
  for (long s = 0; s < attn::train::kGradientShards; ++s) CHECK(shards.losses[s] > 0.0);
}

TEST_CASE("trainer: replicas that share each step's shards give the bits of one trainer",
          "[train][trainer][shards]") {
  TrainingOptions options = small_run();
  options.optimizer.schedule.steps = 40;
  options.every = 20;
  options.task.mix = {0.5, 0.5, 0.0};
  options.task.span = 2;
  options.sequences = 600;  // chunks of 256: 256, 256 and 88 sequences
  RetrievalTrainer alone(options), first(options), second(options);
  REQUIRE(first.evaluation_chunks() == 3);
  const auto expected = run(alone);
  const std::size_t P = first.parameter_count();
  std::vector<float> gradients(attn::train::kGradientShards * P);
  std::vector<double> losses(attn::train::kGradientShards);
  std::vector<Checkpoint> firsts, seconds;
  while (!first.finished()) {
    first.sample_step();
    second.sample_step();
    // the first replica computes shard 0, the second shards 1 to 7
    losses[0] = first.shard_gradient(0, gradients.data());
    for (long s = 1; s < attn::train::kGradientShards; ++s) {
      losses[s] = second.shard_gradient(s, gradients.data() + s * P);
    }
    const bool due = first.apply_shards(gradients.data(), losses.data());
    REQUIRE(second.apply_shards(gradients.data(), losses.data()) == due);
    if (!due) continue;
    // the first counts the answers of the held-out set's first chunk, the second of the rest
    const long chunks = first.evaluation_chunks();
    std::vector<long> correct = first.correct_answers(0, 1);
    const std::vector<long> rest = second.correct_answers(1, chunks);
    for (std::size_t i = 0; i < correct.size(); ++i) correct[i] += rest[i];
    firsts.push_back(first.checkpoint(correct));
    seconds.push_back(second.checkpoint(correct));
  }
  REQUIRE(firsts.size() == expected.size());
  REQUIRE(seconds.size() == expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    CHECK(firsts[i].loss == expected[i].loss);
    CHECK(seconds[i].loss == expected[i].loss);
    CHECK(firsts[i].accuracy_by_position == expected[i].accuracy_by_position);
  }
  const float* values = alone.model().values();
  CHECK(std::equal(values, values + P, first.model().values()));
  CHECK(std::equal(values, values + P, second.model().values()));
}

TEST_CASE("trainer: a shared step's calls out of order fail, and the trainer goes on",
          "[train][trainer][shards][errors]") {
  TrainingOptions options = small_run();
  options.optimizer.schedule.steps = 4;
  options.every = 2;
  RetrievalTrainer trainer(options);
  std::vector<float> gradients(attn::train::kGradientShards * trainer.parameter_count());
  std::vector<double> losses(attn::train::kGradientShards);
  CHECK_THROWS_WITH(trainer.shard_gradient(0, gradients.data()),
                    Contains("shard_gradient needs the step's batches: call sample_step first"));
  CHECK_THROWS_WITH(trainer.apply_shards(gradients.data(), losses.data()),
                    Contains("apply_shards needs the step's batches: call sample_step first"));
  trainer.sample_step();
  CHECK_THROWS_WITH(trainer.shard_gradient(8, gradients.data()),
                    Contains("shard must be a whole number from 0 to 7, got 8"));
  CHECK_THROWS_WITH(trainer.shard_gradient(-1, gradients.data()), Contains("got -1"));
  losses[2] = NAN;
  CHECK_THROWS_WITH(trainer.apply_shards(gradients.data(), losses.data()),
                    Contains("training diverged at step 1: the loss is NaN"));
  losses[2] = 0.0;
  gradients[5 * trainer.parameter_count() + 3] = INFINITY;  // embedding.weight[3] of shard 5
  CHECK_THROWS_WITH(trainer.apply_shards(gradients.data(), losses.data()),
                    Contains("apply_shards needs the step's batches"));
  trainer.sample_step();
  CHECK_THROWS_WITH(
      trainer.apply_shards(gradients.data(), losses.data()),
      Contains("the shards' gradients of step 1 sum to Infinity at embedding.weight[3]"));
  CHECK(trainer.step() == 0);
  CHECK_THROWS_WITH(trainer.checkpoint({}),
                    Contains("checkpoint comes after a step that ends at one (step 0 does not)"));
  CHECK_THROWS_WITH(trainer.correct_answers(0, 2),
                    Contains("end must be a whole number from 1 to 1, got 2"));
  // zero gradients: steps 1 and 2, which ends at a checkpoint
  trainer.sample_step();
  std::fill(gradients.begin(), gradients.end(), 0.0f);
  CHECK_FALSE(trainer.apply_shards(gradients.data(), losses.data()));
  trainer.sample_step();
  CHECK(trainer.apply_shards(gradients.data(), losses.data()));
  CHECK_THROWS_WITH(trainer.checkpoint({1, 2}),
                    Contains("correct must hold a count for each of the 4 positions, got 2"));
  CHECK_THROWS_WITH(trainer.checkpoint({0, 0, 65, 0}),
                    Contains("correct[2] must be a whole number from 0 to 64, got 65"));
  const Checkpoint taken = trainer.checkpoint({64, 32, 0, 16});
  CHECK(taken.step == 2);
  CHECK(taken.accuracy == 112.0 / 256);  // 256 held-out sequences, 64 asking about each pair
  CHECK(taken.accuracy_by_position == std::vector<double>{1.0, 0.5, 0.0, 0.25});
  CHECK_THROWS_WITH(trainer.checkpoint({64, 32, 0, 16}), Contains("step 2 does not"));
  run(trainer);
  CHECK(trainer.step() == 4);
  CHECK_THROWS_WITH(trainer.sample_step(), Contains("the run has finished: it took all 4 steps"));
}
