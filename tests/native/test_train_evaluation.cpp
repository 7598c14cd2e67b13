// attn/train/evaluation.hpp: the held-out measures of a trained model, for the trainer's
// own model and for any model with the same parameters, the errors of a task that does not
// fit the model, and of sums joined with a model that did not measure them.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "attn/train/evaluation.hpp"
#include "attn/train/trainer.hpp"
#include "helpers.hpp"
#include "train_runs.hpp"

using attn::train::RetrievalTrainer;
using attn::train::TrainingOptions;
using Catch::Contains;

using train_runs::run;
using train_runs::small_run;

namespace {

// A model with `model`'s parameters: a replica holding its own copy.
attn::train::Transformer copy_of(attn::train::Transformer& model) {
  attn::train::Transformer copy(model.config());
  for (const std::string& name : copy.parameter_names()) {
    copy.set_parameter(name, model.parameter(name));
  }
  return copy;
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
  attn::train::Transformer copy = copy_of(trainer.model());
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
    "evaluation: the measures are the final row's weights on value, key and token 0, and its "
    "answers and their cross-entropy, over chunks",
    "[train][evaluation]") {
  TrainingOptions options = small_run();
  options.optimizer.schedule.steps = 60;
  RetrievalTrainer trainer(options);
  run(trainer);
  attn::train::Transformer& model = trainer.model();
  // 300 sequences: chunks of 256 and 44; each position asked 75 times
  const long pairs = 4, sequences = 300, asked = 75;
  REQUIRE(attn::train::evaluation_chunks(model, options.task, pairs, sequences) == 2);
  const auto measured = attn::train::evaluate_retrieval(model, options.task, pairs, sequences,
                                                        attn::train::Context::causal);
  // the same set, one sequence at a time, every row of every layer computed (answers = T)
  const attn::train::TaskBatch set = attn::train::evaluation_set(options.task, pairs, sequences);
  const long T = set.T, H = 2, O = model.config().outputs;
  std::vector<double> to_value(2 * H * pairs, 0.0), to_key(2 * H * pairs, 0.0),
      to_first(2 * H * pairs, 0.0), correct(pairs, 0.0);
  double cross_entropy = 0.0;  // of the answers, summed over the sequences
  for (long s = 0; s < sequences; ++s) {
    model.forward({set.tokens.data() + s * T, nullptr, 1, T, T, 0});
    const int query = set.queried[s];
    const float* last_logits = model.logits() + (T - 1) * O;
    correct[query] +=
        std::max_element(last_logits, last_logits + O) - last_logits == set.targets[s];
    const double largest = *std::max_element(last_logits, last_logits + O);
    double exponentials = 0.0;
    for (long o = 0; o < O; ++o) exponentials += std::exp(double(last_logits[o]) - largest);
    cross_entropy += largest + std::log(exponentials) - last_logits[set.targets[s]];
    for (long l = 0; l < 2; ++l) {
      for (long h = 0; h < H; ++h) {
        const float* last_row = model.attention_weights(l) + (h * T + T - 1) * T;
        const long at = (l * H + h) * pairs + query;
        to_value[at] += last_row[2 * query + 1] / asked;
        to_key[at] += last_row[2 * query] / asked;
        to_first[at] += last_row[0] / asked;
      }
    }
  }
  CHECK(measured.loss == Approx(cross_entropy / sequences).epsilon(1e-5));
  for (long i = 0; i < pairs; ++i) {
    // one sequence's computation against a batch's may round a near tie the other way
    CHECK(measured.accuracy_by_position[i] == Approx(correct[i] / asked).margin(1.0 / asked));
    for (long l = 0; l < 2; ++l) {
      for (long h = 0; h < H; ++h) {
        const long at = (l * H + h) * pairs + i;
        CHECK(measured.to_value[l][h][i] == Approx(to_value[at]).margin(1e-6));
        CHECK(measured.to_key[l][h][i] == Approx(to_key[at]).margin(1e-6));
        CHECK(measured.to_first[l][h][i] == Approx(to_first[at]).margin(1e-6));
      }
    }
  }
}

TEST_CASE("evaluation in chunks: sums computed apart join to evaluate_retrieval's bits",
          "[train][evaluation]") {
  const TrainingOptions options = small_run();
  RetrievalTrainer trainer(options);
  run(trainer);
  attn::train::Transformer& model = trainer.model();
  attn::train::Transformer replica = copy_of(model);
  const auto causal = attn::train::Context::causal;
  // 600 sequences of 6 pairs: chunks of 256, 256 and 88; position 0 asked 43, 43 and 14 times
  const long pairs = 6, sequences = 600;
  REQUIRE(attn::train::evaluation_chunks(model, options.task, pairs, sequences) == 3);
  const auto whole = attn::train::evaluate_retrieval(model, options.task, pairs, sequences, causal);
  // sequence s asks about pair s mod 6: 100 questions each
  CHECK(whole.questions_by_position == std::vector<long>(6, 100));
  for (long i = 0; i < pairs; ++i) {
    const double correct = whole.accuracy_by_position[i] * 100.0;
    CHECK(correct == Approx(std::round(correct)).margin(1e-9));
  }
  for (long cut : {1L, 2L}) {
    std::vector<attn::train::EvaluationSums> sums =
        attn::train::evaluation_sums(replica, options.task, pairs, sequences, causal, cut, 3);
    const auto mine =
        attn::train::evaluation_sums(model, options.task, pairs, sequences, causal, 0, cut);
    sums.insert(sums.begin(), mine.begin(), mine.end());
    REQUIRE(sums.size() == 3);
    CHECK(sums[2].chunk == 2);
    CHECK(sums[2].sequences == 88);
    const auto joined =
        attn::train::join_evaluation(model, options.task, pairs, sequences, causal, sums);
    CHECK(joined.loss == whole.loss);
    CHECK(joined.accuracy == whole.accuracy);
    CHECK(joined.accuracy_by_position == whole.accuracy_by_position);
    CHECK(joined.questions_by_position == whole.questions_by_position);
    CHECK(joined.to_value == whole.to_value);
    CHECK(joined.to_key == whole.to_key);
    CHECK(joined.to_first == whole.to_first);
  }
  // the sums are of the chunk's own sequences: its right answers are at most those asked
  const auto last =
      attn::train::evaluation_sums(model, options.task, pairs, sequences, causal, 2, 3);
  long answered = 0;
  for (long count : last[0].correct) answered += count;
  CHECK(answered <= 88);
  CHECK(last[0].correct[0] <= 14);
  CHECK(last[0].to_value[1][0][0] <= 14.0);
}

TEST_CASE("evaluation in chunks: chunks out of range and sums that the set cannot give fail",
          "[train][evaluation][errors]") {
  const TrainingOptions options = small_run();
  RetrievalTrainer trainer(options);
  attn::train::Transformer& model = trainer.model();
  const auto causal = attn::train::Context::causal;
  const long pairs = 6, sequences = 600;
  CHECK_THROWS_WITH(
      attn::train::evaluation_sums(model, options.task, pairs, sequences, causal, 3, 4),
      Contains("first must be a whole number from 0 to 2, got 3"));
  CHECK_THROWS_WITH(
      attn::train::evaluation_sums(model, options.task, pairs, sequences, causal, 1, 1),
      Contains("end must be a whole number from 2 to 3, got 1"));
  CHECK_THROWS_WITH(attn::train::evaluation_chunks(model, options.task, 9, sequences),
                    Contains("pairs must be from 1 to task.keys (8)"));
  const auto good =
      attn::train::evaluation_sums(model, options.task, pairs, sequences, causal, 0, 3);
  const auto join = [&](const std::vector<attn::train::EvaluationSums>& sums) {
    return attn::train::join_evaluation(model, options.task, pairs, sequences, causal, sums);
  };
  CHECK_NOTHROW(join(good));
  CHECK_THROWS_WITH(join({good[0], good[1]}),
                    Contains("chunks must hold the sums of each of the set's 3 chunks, got 2"));
  CHECK_THROWS_WITH(join({good[0], good[2], good[1]}),
                    Contains("chunks[1].chunk must be 1 (the chunks in order), got 2"));
  auto bad = good;
  bad[2].correct[0] = 15;  // the last chunk asks about position 0 fourteen times
  CHECK_THROWS_WITH(join(bad), Contains("chunk 2's correct[0] must be a whole number from 0 to "
                                        "14, got 15"));
  bad = good;
  bad[2].sequences = 98;
  CHECK_THROWS_WITH(join(bad), Contains("chunk 2's sequences must be 88 (of the set's 600, in "
                                        "chunks of 256), got 98"));
  bad = good;
  bad[0].correct.pop_back();
  CHECK_THROWS_WITH(join(bad), Contains("chunk 0's correct must hold a count for each of the 6 "
                                        "positions, got 5"));
  bad = good;
  bad[1].loss = -1.0;
  CHECK_THROWS_WITH(
      join(bad), Contains("chunk 1's loss must be a sum of cross-entropies, at least 0, got -1"));
  // not a number passes through, as one pass over a model whose logits overflow gives it
  auto overflowed = good;
  overflowed[1].loss = std::nan("");
  overflowed[0].to_value[0][0][0] = std::nan("");
  const auto measured = join(overflowed);
  CHECK(std::isnan(measured.loss));
  CHECK(std::isnan(measured.to_value[0][0][0]));
  CHECK(measured.to_value[0][0][1] == join(good).to_value[0][0][1]);
  bad = good;
  bad[2].to_key[1][0][0] = 14.5;
  CHECK_THROWS_WITH(join(bad), Contains("chunk 2's toKey[1][0][0] must be a sum of 14 weights, "
                                        "from 0 to 14, got 14.5"));
  bad = good;
  bad[0].to_first[0][1][5] = -0.25;
  CHECK_THROWS_WITH(join(bad), Contains("chunk 0's toFirst[0][1][5] must be a sum of 42 weights, "
                                        "from 0 to 42, got -0.25"));
  bad = good;
  bad[0].to_value[1].pop_back();
  CHECK_THROWS_WITH(join(bad), Contains("chunk 0's toValue must be 2 layers of 2 heads of 6 sums, "
                                        "one per position"));
}

TEST_CASE("evaluation in chunks: sums of another model or context fail to join",
          "[train][evaluation][errors]") {
  const TrainingOptions options = small_run();
  RetrievalTrainer trainer(options);
  attn::train::Transformer& model = trainer.model();
  const auto causal = attn::train::Context::causal, prefix = attn::train::Context::prefix;
  const long pairs = 6, sequences = 600;
  const std::uint32_t checksum = attn::train::measured_with(model, causal);
  // a copy has the same checksum; one bit of one parameter, or the context, changes it
  attn::train::Transformer replica = copy_of(model);
  CHECK(attn::train::measured_with(replica, causal) == checksum);
  CHECK(attn::train::measured_with(model, prefix) != checksum);
  std::uint32_t bits;
  std::memcpy(&bits, replica.values() + 100, sizeof bits);
  bits ^= 1u;
  std::memcpy(replica.values() + 100, &bits, sizeof bits);
  CHECK(attn::train::measured_with(replica, causal) != checksum);
  // every chunk carries its model's checksum
  const auto mine =
      attn::train::evaluation_sums(model, options.task, pairs, sequences, causal, 0, 3);
  for (const auto& sums : mine) CHECK(sums.measured_with == checksum);
  const auto join = [&](const std::vector<attn::train::EvaluationSums>& sums,
                        attn::train::Context context) {
    return attn::train::join_evaluation(model, options.task, pairs, sequences, context, sums);
  };
  CHECK_NOTHROW(join(mine, causal));
  // chunk 1 measured by the replica one bit away: the join names it and both checksums
  auto mixed = mine;
  mixed[1] = attn::train::evaluation_sums(replica, options.task, pairs, sequences, causal, 1, 2)[0];
  const std::uint32_t theirs = mixed[1].measured_with;
  CHECK_THROWS_WITH(
      join(mixed, causal),
      Contains("chunk 1's measuredWith must be " + std::to_string(checksum) +
               " (this model's parameters, in the causal context), got " + std::to_string(theirs) +
               ": its sums were measured with another model or context"));
  // the model's own sums, joined as if measured in the other context
  CHECK_THROWS_WITH(join(mine, prefix),
                    Contains("chunk 0's measuredWith must be " +
                             std::to_string(attn::train::measured_with(model, prefix)) +
                             " (this model's parameters, in the prefix context)"));
  // and the model after another step is another model
  run(trainer);
  CHECK(attn::train::measured_with(model, causal) != checksum);
  CHECK_THROWS_WITH(join(mine, causal), Contains("chunk 0's measuredWith must be "));
}
