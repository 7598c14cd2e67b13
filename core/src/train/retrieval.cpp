#include "attn/train/retrieval.hpp"

#include <cmath>
#include <numeric>
#include <string>

#include "attn/errors.hpp"

namespace attn::train {

namespace {

constexpr long kMaxSymbols = 1L << 16;
// The held-out set's seed: fixed, so that every training seed is measured on the same set.
constexpr std::uint64_t kEvaluationSeed = 0x5eed'e7a1;
constexpr std::uint32_t kEvaluationStream = 7;

}  // namespace

void validate(const TaskOptions& task) {
  require_whole_number("task.keys", task.keys, 1, kMaxSymbols);
  require_whole_number("task.values", task.values, 1, kMaxSymbols);
  require_pairs("task.pairs", task.pairs, task);
  double total = 0.0;
  for (std::size_t o = 0; o < kObjectives.size(); ++o) {
    if (!(task.mix[o] >= 0.0) || !std::isfinite(task.mix[o])) {
      fail(std::string("task.mix.") + to_string(kObjectives[o]) +
           " must be a finite number ≥ 0, got " + format_number(task.mix[o]));
    }
    total += task.mix[o];
  }
  if (!(total > 0.0)) fail("task.mix must give at least one objective a weight above 0");
  if (task.mix[1] > 0.0) {
    if (task.span < 1 || task.span > task.pairs) {
      fail("task.span must be from 1 to task.pairs (" + std::to_string(task.pairs) + "), got " +
           std::to_string(task.span));
    }
  }
}

void require_pairs(const char* name, long pairs, const TaskOptions& task) {
  if (pairs < 1 || pairs > task.keys) {
    fail(std::string(name) + " must be from 1 to task.keys (" + std::to_string(task.keys) +
         "), since the keys of a sequence are distinct; got " + std::to_string(pairs));
  }
}

void require_task_tokens(const char* name, long sequences, long length) {
  const std::uint64_t tokens = std::uint64_t(sequences) * std::uint64_t(length);
  if (sequences < 1 || tokens > kMaxTaskTokens) {
    fail(std::string(name) + " must be from 1 to " + std::to_string(kMaxTaskTokens / length) +
         " sequences of " + std::to_string(length) + " tokens (at most " +
         std::to_string(kMaxTaskTokens) + " tokens at once), got " + std::to_string(sequences));
  }
}

long vocabulary_size(const TaskOptions& task) { return task.keys + task.values + 3; }

long sequence_length(Objective objective, const TaskOptions& task, long pairs) {
  switch (objective) {
    case Objective::retrieval:
      return 2 * pairs + 2;
    case Objective::running_span:
      return 2 * pairs + task.span;
    case Objective::serial_recall:
      return 3 * pairs;
  }
  return 0;
}

long answer_count(Objective objective, const TaskOptions& task, long pairs) {
  switch (objective) {
    case Objective::retrieval:
      return 1;
    case Objective::running_span:
      return task.span;
    case Objective::serial_recall:
      return pairs;
  }
  return 0;
}

TaskRandom::TaskRandom(std::uint64_t seed, std::uint32_t stream)
    : engine_([&] {
        std::seed_seq sequence{std::uint32_t(seed), std::uint32_t(seed >> 32), stream};
        return std::mt19937(sequence);
      }()) {}

std::uint32_t TaskRandom::below(std::uint32_t bound) {
  // Rejection of the top partial range keeps every residue equally likely.
  const std::uint32_t limit = std::uint32_t(-bound) % bound;  // 2^32 mod bound
  while (true) {
    const std::uint32_t draw = engine_();
    if (draw >= limit) return draw % bound;
  }
}

double TaskRandom::uniform() {
  const std::uint64_t high = engine_() >> 5, low = engine_() >> 6;  // 27 + 26 bits
  return (double(high) * 67108864.0 + double(low)) / 9007199254740992.0;
}

namespace {

// The cumulative weights of the queried pair for 'ends': P(i) ∝ 1/√((i+½)(k-i-½)), a
// discrete arcsine law.
std::vector<double> end_biased_weights(long pairs) {
  std::vector<double> cumulative(pairs);
  double total = 0.0;
  for (long i = 0; i < pairs; ++i) {
    total += 1.0 / std::sqrt((i + 0.5) * (pairs - i - 0.5));
    cumulative[i] = total;
  }
  return cumulative;
}

int draw_weighted(const std::vector<double>& cumulative, TaskRandom& random) {
  const double draw = random.uniform() * cumulative.back();
  for (std::size_t i = 0; i < cumulative.size(); ++i) {
    if (draw < cumulative[i]) return int(i);
  }
  return int(cumulative.size() - 1);
}

}  // namespace

TaskBatch sample_batch(const TaskOptions& task, Objective objective, long pairs, long B,
                       TaskRandom& random, const std::vector<int>& queried) {
  const int K = int(task.keys), separator = int(task.keys + task.values);
  require_pairs("pairs", pairs, task);
  require_task_tokens("batch", B, sequence_length(objective, task, pairs));
  TaskBatch batch;
  batch.objective = objective;
  batch.B = B;
  batch.pairs = pairs;
  batch.T = sequence_length(objective, task, pairs);
  batch.A = answer_count(objective, task, pairs);
  batch.tokens.resize(std::size_t(B) * batch.T);
  batch.targets.resize(std::size_t(B) * batch.A);
  batch.queried.assign(B, -1);
  const bool biased = objective == Objective::retrieval && queried.empty() &&
                      task.answer_positions == AnswerPositions::ends;
  const std::vector<double> end_weights =
      biased ? end_biased_weights(pairs) : std::vector<double>{};
  std::vector<int> keys(task.keys), values(pairs), swapped_with(pairs);
  std::iota(keys.begin(), keys.end(), 0);
  for (long b = 0; b < B; ++b) {
    // k distinct keys (a partial Fisher–Yates shuffle, undone below so that each sequence
    // costs O(k), not O(K)) and k values with repetition.
    for (long i = 0; i < pairs; ++i) {
      swapped_with[i] = int(i + random.below(std::uint32_t(task.keys - i)));
      std::swap(keys[i], keys[swapped_with[i]]);
      values[i] = int(random.below(std::uint32_t(task.values)));
    }
    int* tokens = batch.tokens.data() + b * batch.T;
    int* targets = batch.targets.data() + b * batch.A;
    for (long i = 0; i < pairs; ++i) {
      tokens[2 * i] = keys[i];
      tokens[2 * i + 1] = K + values[i];
    }
    int* rest = tokens + 2 * pairs;
    switch (objective) {
      case Objective::retrieval: {
        const int query = !queried.empty() ? queried[b]
                          : biased         ? draw_weighted(end_weights, random)
                                           : int(random.below(std::uint32_t(pairs)));
        rest[0] = separator;
        rest[1] = keys[query];
        targets[0] = values[query];
        batch.queried[b] = query;
        break;
      }
      case Objective::running_span: {
        const long first = pairs - task.span;  // the span is values [first, pairs)
        rest[0] = separator + 1;
        for (long i = 0; i + 1 < task.span; ++i) rest[1 + i] = K + values[first + i];
        for (long i = 0; i < task.span; ++i) targets[i] = values[first + i];
        break;
      }
      case Objective::serial_recall: {
        rest[0] = separator + 2;
        for (long i = 0; i + 1 < pairs; ++i) rest[1 + i] = K + values[i];
        for (long i = 0; i < pairs; ++i) targets[i] = values[i];
        break;
      }
    }
    for (long i = pairs - 1; i >= 0; --i) std::swap(keys[i], keys[swapped_with[i]]);
  }
  return batch;
}

TaskBatch evaluation_set(const TaskOptions& task, long pairs, long sequences) {
  TaskRandom random(kEvaluationSeed, kEvaluationStream);
  std::vector<int> queried(sequences);
  for (long s = 0; s < sequences; ++s) queried[s] = evaluation_query(s, pairs);
  return sample_batch(task, Objective::retrieval, pairs, sequences, random, queried);
}

}  // namespace attn::train
