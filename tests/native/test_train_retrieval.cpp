// attn/train/retrieval.hpp: the task's tokens, targets and lengths for each objective, the
// distribution of the queried pair, the held-out set, and determinism.
#include <map>
#include <set>

#include "attn/train/retrieval.hpp"
#include "helpers.hpp"

using attn::train::Objective;
using attn::train::TaskOptions;
using Catch::Contains;

namespace {

TaskOptions task_of(long pairs, long keys, long values) {
  TaskOptions task;
  task.pairs = pairs;
  task.keys = keys;
  task.values = values;
  return task;
}

}  // namespace

TEST_CASE("retrieval task: k1 v1 … kk vk SEP q, target q's value", "[train][retrieval]") {
  const TaskOptions task = task_of(5, 8, 6);  // keys 0..7, values 8..13, SEP 14
  CHECK(attn::train::vocabulary_size(task) == 17);
  attn::train::TaskRandom random(1, 0);
  const auto batch = attn::train::sample_batch(task, Objective::retrieval, 5, 50, random);
  CHECK(batch.T == 12);
  CHECK(batch.A == 1);
  for (long b = 0; b < batch.B; ++b) {
    const int* tokens = batch.tokens.data() + b * batch.T;
    std::set<int> keys;
    for (long i = 0; i < 5; ++i) {
      CHECK(tokens[2 * i] >= 0);
      CHECK(tokens[2 * i] < 8);
      CHECK(tokens[2 * i + 1] >= 8);
      CHECK(tokens[2 * i + 1] < 14);
      keys.insert(tokens[2 * i]);
    }
    CHECK(keys.size() == 5);  // distinct within a sequence
    CHECK(tokens[10] == 14);
    const int query = batch.queried[b];
    CHECK(tokens[11] == tokens[2 * query]);
    CHECK(batch.targets[b] == tokens[2 * query + 1] - 8);
  }
}

TEST_CASE("retrieval task: running span and serial recall", "[train][retrieval]") {
  TaskOptions task = task_of(4, 4, 9);  // SEP 13, RS 14, FR 15
  task.span = 3;
  attn::train::TaskRandom random(2, 0);
  const auto span = attn::train::sample_batch(task, Objective::running_span, 4, 10, random);
  CHECK(span.T == 11);  // 2k + s
  CHECK(span.A == 3);
  for (long b = 0; b < span.B; ++b) {
    const int* tokens = span.tokens.data() + b * span.T;
    CHECK(tokens[8] == 14);
    // targets v2 v3 v4; the inputs after RS are v2 v3 (teacher forced)
    for (long i = 0; i < 3; ++i) CHECK(span.targets[b * 3 + i] == tokens[2 * (1 + i) + 1] - 4);
    CHECK(tokens[9] == tokens[3]);
    CHECK(tokens[10] == tokens[5]);
  }
  const auto recall = attn::train::sample_batch(task, Objective::serial_recall, 4, 10, random);
  CHECK(recall.T == 12);  // 3k
  CHECK(recall.A == 4);
  for (long b = 0; b < recall.B; ++b) {
    const int* tokens = recall.tokens.data() + b * recall.T;
    CHECK(tokens[8] == 15);
    for (long i = 0; i < 4; ++i) CHECK(recall.targets[b * 4 + i] == tokens[2 * i + 1] - 4);
    for (long i = 0; i < 3; ++i) CHECK(tokens[9 + i] == tokens[2 * i + 1]);
  }
}

TEST_CASE("retrieval task: the queried pair, uniform or biased to the ends", "[train][retrieval]") {
  TaskOptions task = task_of(8, 16, 16);
  const long draws = 40000;
  for (auto positions :
       {attn::train::AnswerPositions::uniform, attn::train::AnswerPositions::ends}) {
    task.answer_positions = positions;
    attn::train::TaskRandom random(3, 0);
    const auto batch = attn::train::sample_batch(task, Objective::retrieval, 8, draws, random);
    std::vector<double> expected(8), seen(8, 0.0);
    double total = 0.0;
    for (long i = 0; i < 8; ++i) {
      expected[i] = positions == attn::train::AnswerPositions::uniform
                        ? 1.0
                        : 1.0 / std::sqrt((i + 0.5) * (8 - i - 0.5));
      total += expected[i];
    }
    for (int query : batch.queried) seen[query] += 1.0 / draws;
    for (long i = 0; i < 8; ++i) {
      INFO("pair " << i);
      // within 5 standard deviations of a binomial proportion
      const double p = expected[i] / total;
      CHECK(std::abs(seen[i] - p) < 5 * std::sqrt(p * (1 - p) / draws));
    }
    if (positions == attn::train::AnswerPositions::ends) {
      CHECK(seen[0] > 2 * seen[3]);  // the ends dominate: 1/√(0.5·7.5) vs 1/√(3.5·4.5)
    }
  }
}

TEST_CASE("retrieval task: the held-out set cycles the queried pair and never changes",
          "[train][retrieval]") {
  const TaskOptions task = task_of(6, 10, 10);
  const auto set = attn::train::evaluation_set(task, 6, 30);
  for (long s = 0; s < 30; ++s) CHECK(set.queried[s] == s % 6);
  const auto again = attn::train::evaluation_set(task, 6, 30);
  CHECK(again.tokens == set.tokens);
  CHECK(again.targets == set.targets);
  // A seed gives the same batches; another seed other ones.
  attn::train::TaskRandom a(9, 1), b(9, 1), c(10, 1);
  const auto first = attn::train::sample_batch(task, Objective::retrieval, 6, 20, a);
  CHECK(attn::train::sample_batch(task, Objective::retrieval, 6, 20, b).tokens == first.tokens);
  CHECK(attn::train::sample_batch(task, Objective::retrieval, 6, 20, c).tokens != first.tokens);
}

TEST_CASE("retrieval task: bad options fail naming the option", "[train][retrieval][errors]") {
  TaskOptions task = task_of(9, 8, 8);
  CHECK_THROWS_WITH(attn::train::validate(task),
                    Contains("task.pairs must be from 1 to task.keys (8)"));
  task = task_of(4, 8, 0);
  CHECK_THROWS_WITH(attn::train::validate(task),
                    Contains("task.values must be a whole number from 1"));
  task = task_of(4, 8, 8);
  task.mix = {0.0, 0.0, 0.0};
  CHECK_THROWS_WITH(attn::train::validate(task),
                    Contains("task.mix must give at least one objective"));
  task.mix = {1.0, -1.0, 0.0};
  CHECK_THROWS_WITH(attn::train::validate(task),
                    Contains("task.mix.runningSpan must be a finite number ≥ 0, got -1"));
  task.mix = {1.0, 1.0, 0.0};
  task.span = 5;
  CHECK_THROWS_WITH(attn::train::validate(task),
                    Contains("task.span must be from 1 to task.pairs (4), got 5"));
}
