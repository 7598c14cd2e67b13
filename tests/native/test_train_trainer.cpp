// attn/train/trainer.hpp: a short run learns the small task, a seed gives the same run
// twice, checkpoints fall where they should, the evaluation's measures are what they say,
// and bad options fail naming the option.
#include <algorithm>
#include <array>
#include <cmath>
#include <tuple>

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
  every_step.optimizer.schedule.steps = 5;
  every_step.every = 1;
  TrainingOptions every_second = every_step;
  every_second.every = 2;
  RetrievalTrainer one(every_step), two(every_second);
  const auto losses = run(one), means = run(two);
  REQUIRE(losses.size() == 5);
  REQUIRE(means.size() == 3);
  CHECK(means[0].loss == Approx((losses[0].loss + losses[1].loss) / 2).epsilon(1e-12));
  CHECK(means[1].loss == Approx((losses[2].loss + losses[3].loss) / 2).epsilon(1e-12));
  // the last checkpoint comes one step after the one before: that step's loss alone
  CHECK(means[2].loss == Approx(losses[4].loss).epsilon(1e-12));
}

TEST_CASE(
    "trainer: stop makes a checkpoint of the steps since the last one due, at the step reached",
    "[train][trainer]") {
  TrainingOptions every_step = small_run();
  every_step.optimizer.schedule.steps = 10;
  every_step.every = 1;
  TrainingOptions every_fourth = every_step;
  every_fourth.every = 4;
  RetrievalTrainer one(every_step), four(every_fourth);
  const auto losses = run(one);
  REQUIRE(four.advance(100)->step == 4);
  CHECK_FALSE(four.advance(2).has_value());
  // nothing due before the stop: the next step may not be skipped
  REQUIRE_THROWS_WITH(four.checkpoint(std::vector<long>(4, 0)), Contains("does not"));
  REQUIRE(four.stop());
  // due: training waits for it; it covers steps 5 and 6 and measures the model as it is
  REQUIRE_THROWS_WITH(four.advance(1), Contains("must be taken before the next step"));
  const Checkpoint stopped = four.checkpoint(four.correct_answers(0, four.evaluation_chunks()));
  CHECK(stopped.step == 6);
  CHECK(stopped.loss == Approx((losses[4].loss + losses[5].loss) / 2).epsilon(1e-12));
  CHECK(stopped.accuracy_by_position == losses[5].accuracy_by_position);
  // taken, and no step since: another stop has nothing to make due
  CHECK_FALSE(four.stop());
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
  // checkpoints measure task.pairs: every position must be asked, and fit maxLength
  bad = small_run();
  bad.sequences = 3;
  bad.evaluation_pairs = {2};
  fails_with(bad,
             "evaluation.sequences (3) must be at least task.pairs (4), so that every "
             "position is asked");
  bad = small_run();
  bad.task.mix = {0.0, 1.0, 0.0};
  bad.task.span = 1;
  bad.evaluation_pairs = {2};
  bad.model.max_length = 9;  // running span of 4 pairs: 9 tokens; a checkpoint's retrieval: 10
  fails_with(bad, "the longest sequence of this run has 10 tokens, more than model.maxLength (9)");
}

namespace {

using attn::train::kGradientShards;
using attn::train::ShardRange;

// Every shard's gradient and loss of the trainer's sampled step: S×P floats and S losses.
struct Shards {
  std::vector<float> gradients;
  std::vector<double> losses;
};

Shards all_shards(RetrievalTrainer& trainer) {
  const std::size_t P = trainer.parameter_count();
  Shards shards{std::vector<float>(kGradientShards * P), std::vector<double>(kGradientShards)};
  trainer.sample_step();
  for (long s = 0; s < kGradientShards; ++s) {
    shards.losses[s] = trainer.block_gradient({s, s + 1}, shards.gradients.data() + s * P);
  }
  return shards;
}

// A replica's blocks of a step: their ranges, gradients (P floats each) and losses.
struct Blocks {
  std::vector<ShardRange> ranges;
  std::vector<std::vector<float>> gradients;
  std::vector<double> losses;
};

// The blocks of shards [first, end) of the trainer's step, added to `blocks`.
void compute_blocks(RetrievalTrainer& trainer, long first, long end, Blocks& blocks) {
  trainer.sample_step();
  for (const ShardRange block : attn::train::shard_blocks(first, end)) {
    blocks.ranges.push_back(block);
    blocks.gradients.emplace_back(trainer.parameter_count());
    blocks.losses.push_back(trainer.block_gradient(block, blocks.gradients.back().data()));
  }
}

bool apply(RetrievalTrainer& trainer, const Blocks& blocks) {
  return trainer.apply_blocks(blocks.ranges, blocks.losses, [&](std::size_t b, float* into) {
    std::copy(blocks.gradients[b].begin(), blocks.gradients[b].end(), into);
  });
}

}  // namespace

TEST_CASE("shard blocks: the fewest aligned blocks tile a range; sums merge as a binary tree",
          "[train][shards]") {
  using attn::train::shard_blocks;
  const auto ranges = [](long first, long end) {
    std::vector<std::pair<long, long>> result;
    for (const ShardRange block : shard_blocks(first, end))
      result.emplace_back(block.first, block.end);
    return result;
  };
  using Pairs = std::vector<std::pair<long, long>>;
  CHECK(ranges(0, 8) == Pairs{{0, 8}});
  CHECK(ranges(0, 3) == Pairs{{0, 2}, {2, 3}});
  CHECK(ranges(3, 8) == Pairs{{3, 4}, {4, 8}});
  CHECK(ranges(1, 7) == Pairs{{1, 2}, {2, 4}, {4, 6}, {6, 7}});
  CHECK(ranges(5, 6) == Pairs{{5, 6}});
  CHECK_THROWS_WITH(shard_blocks(3, 3), Contains("end must be a whole number from 4 to 8, got 3"));
  CHECK_THROWS_WITH(shard_blocks(8, 9),
                    Contains("first must be a whole number from 0 to 7, got 8"));

  // one value per shard: 1, 2^-24, 2^-24, … The binary tree adds the seven small ones among
  // themselves before they meet the 1, so they survive; one left-to-right pass would lose
  // every one of them (1 + 2^-24 rounds back to 1).
  attn::train::ShardSum sum(1);
  const float tiny = std::ldexp(1.0f, -24);
  sum.clear(0);
  for (long s = 0; s < kGradientShards; ++s) {
    const float value = s == 0 ? 1.0f : tiny;
    sum.add({s, s + 1}, &value, double(s));
  }
  CHECK(*sum.gradient({0, 8}) == 1.0f + 4 * tiny + 2 * tiny);  // 1 + 6·2^-24 exactly
  CHECK(sum.loss({0, 8}) == 28.0);
  // the same sum from blocks [0, 1), [1, 2), [2, 4), [4, 8) that were summed the same way
  const float quarter = tiny + tiny, half = quarter + quarter;
  const float one = 1.0f;
  sum.clear(0);
  sum.add({0, 1}, &one, 0);
  sum.add({1, 2}, &tiny, 1);
  sum.add({2, 4}, &quarter, 5);
  sum.add({4, 8}, &half, 22);
  CHECK(*sum.gradient({0, 8}) == 1.0f + 4 * tiny + 2 * tiny);

  // blocks out of order, not aligned, or not adding up to what is asked
  sum.clear(0);
  CHECK_THROWS_WITH(
      sum.add({1, 2}, &one, 0),
      Contains("blocks must follow one another: shards 1 to 2 came where shard 0 was due"));
  CHECK_THROWS_WITH(
      sum.add({0, 3}, &one, 0),
      Contains("a block must be a block of the 8 shards (a power of two of them, from a "
               "multiple of that number), got shards 0 to 3"));
  sum.add({0, 2}, &one, 0);
  CHECK_THROWS_WITH(sum.gradient({0, 8}),
                    Contains("the blocks must add up to shards 0 to 8, got shards 0 to 2"));
  sum.add({2, 3}, &one, 0);
  CHECK_THROWS_WITH(
      sum.loss({0, 4}),
      Contains("the blocks must add up to shards 0 to 4, got shards 0 to 2, shards 2 to 3"));
}

TEST_CASE("trainer: a step's shards add up to the gradient of its whole batch",
          "[train][trainer][shards]") {
  using attn::train::Context;
  // the objectives' weights as fractions with the causal context, then as {2, 1, 1} (the
  // trainer divides by their sum) with the prefix context
  const auto [mix, context] =
      GENERATE(std::make_tuple(std::array<double, 3>{0.5, 0.25, 0.25}, Context::causal),
               std::make_tuple(std::array<double, 3>{2.0, 1.0, 1.0}, Context::prefix));
  TrainingOptions options = small_run();
  options.batch = 30;  // 15, 8 and 8 sequences: shards of 1 and 2 sequences, of 1
  options.task.mix = mix;
  options.task.span = 2;
  options.context = context;
  RetrievalTrainer trainer(options);
  const Shards shards = all_shards(trainer);

  // The same batches, drawn from the trainer's stream (stream 1 of the seed, objectives in
  // order), and the weighted mean of their losses and gradients on a copy of the model.
  attn::train::TaskRandom random(options.seed, 1);
  attn::train::Transformer model(trainer.model().config());
  const std::size_t P = trainer.parameter_count();
  std::copy_n(trainer.model().values(), P, model.values());
  const std::array<long, 3> counts = {15, 8, 8};
  const double total = mix[0] + mix[1] + mix[2];
  std::vector<double> expected_gradient(P, 0.0);
  double expected_loss = 0.0;
  for (std::size_t o = 0; o < 3; ++o) {
    const auto sampled = attn::train::sample_batch(options.task, attn::train::kObjectives[o],
                                                   options.task.pairs, counts[o], random);
    const attn::train::Batch batch{sampled.tokens.data(),
                                   sampled.targets.data(),
                                   sampled.B,
                                   sampled.T,
                                   sampled.A,
                                   context == Context::prefix ? 2 * sampled.pairs : 0};
    const double weight = mix[o] / total;
    expected_loss += weight * model.loss_and_gradients(batch);
    for (std::size_t i = 0; i < P; ++i) expected_gradient[i] += weight * model.gradients()[i];
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

TEST_CASE("trainer: replicas that share each step's blocks give the bits of one trainer",
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
  std::vector<Checkpoint> firsts, seconds;
  while (!first.finished()) {
    // the first replica computes shards 0 to 2 (blocks 0–2 and 2–3), the second 3 to 8 (3–4, 4–8)
    Blocks blocks;
    compute_blocks(first, 0, 3, blocks);
    compute_blocks(second, 3, 8, blocks);
    REQUIRE(blocks.ranges.size() == 4);
    const bool due = apply(first, blocks);
    REQUIRE(apply(second, blocks) == due);
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
  RetrievalTrainer alone(options), trainer(options);
  run(alone);
  const std::size_t P = trainer.parameter_count();
  std::vector<float> gradient(P);
  Blocks none;
  CHECK_THROWS_WITH(trainer.block_gradient({0, 1}, gradient.data()),
                    Contains("block_gradient needs the step's batches: call sample_step first"));
  CHECK_THROWS_WITH(apply(trainer, none),
                    Contains("a step's shards can be applied only once its batches are drawn"));
  trainer.sample_step();
  CHECK_THROWS_WITH(
      trainer.block_gradient({8, 9}, gradient.data()),
      Contains("block must be a block of the 8 shards (a power of two of them, from a "
               "multiple of that number), got shards 8 to 9"));
  CHECK_THROWS_WITH(trainer.block_gradient({2, 5}, gradient.data()), Contains("got shards 2 to 5"));
  // refused steps: blocks that do not tile the shards, a loss or a sum that is not finite;
  // each leaves the step's batches drawn, and the step is then taken as if nothing happened
  Blocks blocks;
  compute_blocks(trainer, 0, 8, blocks);
  Blocks partial = blocks;
  partial.ranges = {{0, 4}};
  CHECK_THROWS_WITH(apply(trainer, partial),
                    Contains("the blocks must add up to shards 0 to 8, got shards 0 to 4"));
  Blocks diverged = blocks;
  diverged.losses[0] = NAN;
  CHECK_THROWS_WITH(apply(trainer, diverged),
                    Contains("training diverged at step 1: the loss is NaN"));
  Blocks poisoned = blocks;
  poisoned.gradients[0][3] = INFINITY;  // embedding.weight[3]
  CHECK_THROWS_WITH(
      apply(trainer, poisoned),
      Contains("the shards' gradients of step 1 sum to Infinity at embedding.weight[3]; every "
               "shard's gradient must be finite"));
  CHECK(trainer.step() == 0);
  CHECK_FALSE(apply(trainer, blocks));
  // a checkpoint: taken before the next step, from counts that fit the held-out set
  CHECK_THROWS_WITH(trainer.checkpoint({}),
                    Contains("checkpoint comes after a step that ends at one (step 1 does not)"));
  CHECK_THROWS_WITH(trainer.correct_answers(0, 2),
                    Contains("end must be a whole number from 1 to 1, got 2"));
  Blocks second;
  compute_blocks(trainer, 0, 8, second);
  CHECK(apply(trainer, second));
  CHECK_THROWS_WITH(
      trainer.sample_step(),
      Contains("step 2 ended at a checkpoint, which must be taken before the next step"));
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
  // after every refusal, the run is the one of a trainer that met none
  CHECK(std::equal(alone.model().values(), alone.model().values() + P, trainer.model().values()));
}
