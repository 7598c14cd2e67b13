// The key-value retrieval task a model is trained on, and its batches.
//
// With K key symbols and O value symbols (O is the model's outputs): keys are tokens 0..K-1,
// values K..K+O-1, then three cues: SEP = K+O, RS = K+O+1 (running span), FR = K+O+2 (serial
// recall); the vocabulary has V = K+O+3 tokens. An answer is a value's class id (token - K,
// in 0..O-1).
// With k pairs (keys distinct within a sequence, values drawn with repetition):
//   retrieval        k1 v1 … kk vk SEP q                  target: q's value        T = 2k+2, A = 1
//   running span s   k1 v1 … kk vk RS v(k-s+1) … v(k-1)    targets v(k-s+1) … vk    T = 2k+s, A = s
//   serial recall    k1 v1 … kk vk FR v1 … v(k-1)          targets v1 … vk          T = 3k,   A = k
// The last A positions carry the targets (teacher forcing: each predicts the next value).
#pragma once

#include <array>
#include <cstdint>
#include <random>
#include <vector>

#include "attn/names.hpp"

namespace attn::train {

enum class Objective { retrieval, running_span, serial_recall };
constexpr std::array<Objective, 3> kObjectives = {Objective::retrieval, Objective::running_span,
                                                  Objective::serial_recall};
inline constexpr OptionNames<Objective, 3> kObjectiveNames{
    "objective",
    {{{Objective::retrieval, "retrieval"},
      {Objective::running_span, "runningSpan"},
      {Objective::serial_recall, "serialRecall"}}}};
constexpr const auto& names_of(Objective) { return kObjectiveNames; }

enum class AnswerPositions {
  uniform,  // the queried pair uniformly among the k
  ends      // pair i with weight ∝ 1/√((i+½)(k-i-½)): mostly near the start and the end
};
inline constexpr OptionNames<AnswerPositions, 2> kAnswerPositionsNames{
    "task.answerPositions",
    {{{AnswerPositions::uniform, "uniform"}, {AnswerPositions::ends, "ends"}}}};
constexpr const auto& names_of(AnswerPositions) { return kAnswerPositionsNames; }

enum class Context {
  causal,  // every position sees only itself and earlier positions
  prefix   // the 2k context tokens see each other both ways; the rest stays causal
};
inline constexpr OptionNames<Context, 2> kContextNames{
    "model.context", {{{Context::causal, "causal"}, {Context::prefix, "prefix"}}}};
constexpr const auto& names_of(Context) { return kContextNames; }

// The bidirectional prefix of a sequence with `pairs` pairs: its 2k context tokens, or none.
inline long prefix_length(Context context, long pairs) {
  return context == Context::prefix ? 2 * pairs : 0;
}

struct TaskOptions {
  long pairs = 16;   // k
  long keys = 32;    // K
  long values = 32;  // V
  AnswerPositions answer_positions = AnswerPositions::uniform;
  std::array<double, 3> mix = {1.0, 0.0, 0.0};  // weight of each objective, in kObjectives' order
  long span = 4;                                // s, running span's items
};

// Throws attn::InvalidArgument naming the option (task.pairs, task.mix.runningSpan …).
void validate(const TaskOptions& task);

// Throws naming `name` unless 1 ≤ pairs ≤ task.keys (a sequence's keys are distinct).
void require_pairs(const char* name, long pairs, const TaskOptions& task);

// The most tokens one batch of the task holds: 256 MiB of token ids.
constexpr std::uint64_t kMaxTaskTokens = std::uint64_t{1} << 26;

// Throws naming `name` unless 1 ≤ sequences and sequences × length ≤ kMaxTaskTokens.
void require_task_tokens(const char* name, long sequences, long length);

long vocabulary_size(const TaskOptions& task);
long sequence_length(Objective objective, const TaskOptions& task, long pairs);
long answer_count(Objective objective, const TaskOptions& task, long pairs);

// B sequences of one objective.
struct TaskBatch {
  Objective objective = Objective::retrieval;
  long B = 0, T = 0, A = 0;
  long pairs = 0;
  std::vector<int> tokens;   // B×T
  std::vector<int> targets;  // B×A class ids
  std::vector<int> queried;  // B: the queried pair's index (retrieval; -1 otherwise)
};

// A deterministic stream of random numbers for the task: the same seed and stream give the
// same numbers on every platform (no std:: distribution, whose algorithms vary).
class TaskRandom {
 public:
  TaskRandom(std::uint64_t seed, std::uint32_t stream);
  std::uint32_t below(std::uint32_t bound);  // uniform in [0, bound), bound ≥ 1
  double uniform();                          // uniform in [0, 1), 53 bits

 private:
  std::mt19937 engine_;
};

// B sequences of `objective` with `pairs` pairs. `queried`, when not empty, gives the
// queried pair of each retrieval sequence; otherwise it is drawn as task.answer_positions says.
TaskBatch sample_batch(const TaskOptions& task, Objective objective, long pairs, long B,
                       TaskRandom& random, const std::vector<int>& queried = {});

// The held-out retrieval set: `sequences` sequences with `pairs` pairs whose queried pair
// cycles through 0..pairs-1, drawn from a fixed seed (the same for every training seed).
TaskBatch evaluation_set(const TaskOptions& task, long pairs, long sequences);
// The pair that sequence s of the held-out set with `pairs` pairs asks about.
inline int evaluation_query(long s, long pairs) { return int(s % pairs); }

}  // namespace attn::train
