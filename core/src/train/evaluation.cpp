#include "attn/train/evaluation.hpp"

#include <algorithm>
#include <string>

#include "attn/errors.hpp"

namespace attn::train {

namespace {

// Held-out sequences per forward: enough rows for the matmuls, and fewer when sequences
// are so long that so many would not fit the activation budget.
constexpr long kMostPerChunk = 256;

// Adds the answers of the last forward (B sequences from `first` of the set) to `correct`,
// and with `count`, the sequences asked about each position.
void count_answers(const Transformer& model, const TaskBatch& set, long first, long B,
                   std::vector<long>& correct, std::vector<long>* count) {
  const long O = model.config().outputs;
  const float* logits = model.logits();
  for (long b = 0; b < B; ++b) {
    const float* row = logits + b * O;
    const long guess = std::max_element(row, row + O) - row;
    const int query = set.queried[first + b];
    correct[query] += guess == set.targets[first + b];
    if (count != nullptr) ++(*count)[query];
  }
}

void require_fits(const Transformer& model, const TaskOptions& task, long pairs, long sequences) {
  validate(task);
  const TransformerConfig& config = model.config();
  if (config.vocab != vocabulary_size(task) || config.outputs != task.values) {
    fail("this model has a vocabulary of " + std::to_string(config.vocab) + " tokens and " +
         std::to_string(config.outputs) + " outputs, but a task of " + std::to_string(task.keys) +
         " keys and " + std::to_string(task.values) + " values needs " +
         std::to_string(vocabulary_size(task)) + " and " + std::to_string(task.values));
  }
  require_pairs("pairs", pairs, task);
  if (sequences < pairs || sequences > kMaxEvaluationSequences) {
    fail("sequences must be from pairs (" + std::to_string(pairs) +
         ", so that every position is asked) to " + std::to_string(kMaxEvaluationSequences) +
         ", got " + std::to_string(sequences));
  }
  const long length = sequence_length(Objective::retrieval, task, pairs);
  if (length > config.max_length) {
    fail("sequences of " + std::to_string(pairs) + " pairs have " + std::to_string(length) +
         " tokens, more than the model's maxLength (" + std::to_string(config.max_length) + ")");
  }
  require_task_tokens("sequences", sequences, length);
}

}  // namespace

long evaluation_chunk(const TransformerConfig& config, long length) {
  const std::uint64_t per_sequence = activation_floats(config, 1, length, 1);
  return long(std::clamp<std::uint64_t>(kMaxActivationFloats / per_sequence, 1, kMostPerChunk));
}

std::vector<long> correct_by_position(Transformer& model, const TaskBatch& set, long first_chunk,
                                      long end_chunk, Context context) {
  const long chunk = evaluation_chunk(model.config(), set.T);
  std::vector<long> correct(set.pairs, 0);
  for (long first = first_chunk * chunk; first < std::min(end_chunk * chunk, set.B);
       first += chunk) {
    const long B = std::min(chunk, set.B - first);
    model.forward(Batch{set.tokens.data() + first * set.T, nullptr, B, set.T, 1,
                        prefix_length(context, set.pairs)});
    count_answers(model, set, first, B, correct, nullptr);
  }
  return correct;
}

Evaluation evaluate_retrieval(Transformer& model, const TaskOptions& task, long pairs,
                              long sequences, Context context) {
  require_fits(model, task, pairs, sequences);
  const TaskBatch set = evaluation_set(task, pairs, sequences);
  const long T = set.T, L = model.config().layers, H = model.config().heads;
  const long chunk = evaluation_chunk(model.config(), T);
  Evaluation result;
  result.pairs = pairs;
  std::vector<long> correct(pairs, 0), count(pairs, 0);
  const auto zeros =
      AttentionByPosition(L, std::vector<std::vector<double>>(H, std::vector<double>(pairs, 0.0)));
  result.to_value = result.to_key = result.to_first = zeros;
  double loss = 0.0;
  for (long first = 0; first < set.B; first += chunk) {
    const long B = std::min(chunk, set.B - first);
    const Batch batch{set.tokens.data() + first * T, set.targets.data() + first, B, T, 1,
                      prefix_length(context, pairs)};
    loss += model.forward(batch) * B;
    // pass 1: the answers (arg-max of the logits), by the queried pair's position.
    count_answers(model, set, first, B, correct, &count);
    // pass 2: the final position's row of each head's weights: on the queried value, key, token 0.
    for (long l = 0; l < L; ++l) {
      const float* weights = model.attention_weights(l);  // B×H×Tq×T
      const long Tq = model.queries(l, batch);
      for (long b = 0; b < B; ++b) {
        const int query = set.queried[first + b];
        for (long h = 0; h < H; ++h) {
          const float* last_row = weights + ((b * H + h) * Tq + (Tq - 1)) * T;
          result.to_value[l][h][query] += last_row[2 * query + 1];
          result.to_key[l][h][query] += last_row[2 * query];
          result.to_first[l][h][query] += last_row[0];
        }
      }
    }
  }
  // pass 3: counts → fractions and means.
  result.accuracy_by_position.resize(pairs);
  long total_correct = 0;
  for (long i = 0; i < pairs; ++i) {
    total_correct += correct[i];
    const double n = std::max<long>(count[i], 1);
    result.accuracy_by_position[i] = correct[i] / n;
    for (long l = 0; l < L; ++l) {
      for (long h = 0; h < H; ++h) {
        result.to_value[l][h][i] /= n;
        result.to_key[l][h][i] /= n;
        result.to_first[l][h][i] /= n;
      }
    }
  }
  result.accuracy = double(total_correct) / set.B;
  result.loss = loss / set.B;
  return result;
}

}  // namespace attn::train
