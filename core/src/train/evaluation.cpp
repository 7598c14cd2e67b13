#include "attn/train/evaluation.hpp"

#include <algorithm>
#include <string>

#include "attn/errors.hpp"

namespace attn::train {

namespace {

// Held-out sequences per forward: enough rows for the matmuls, little memory.
constexpr long kChunk = 256;

void require_fits(const Transformer& model, const TaskOptions& task, long pairs, long sequences) {
  validate(task);
  const TransformerConfig& config = model.config();
  if (config.vocab != vocabulary_size(task) || config.outputs != task.values) {
    fail("this model has a vocabulary of " + std::to_string(config.vocab) + " tokens and " +
         std::to_string(config.outputs) + " outputs, but a task of " + std::to_string(task.keys) +
         " keys and " + std::to_string(task.values) + " values needs " +
         std::to_string(vocabulary_size(task)) + " and " + std::to_string(task.values));
  }
  if (pairs < 1 || pairs > task.keys) {
    fail("pairs must be from 1 to task.keys (" + std::to_string(task.keys) +
         "), since the keys of a sequence are distinct; got " + std::to_string(pairs));
  }
  if (sequences < 1 || sequences > kMaxEvaluationSequences) {
    fail("sequences must be a whole number from 1 to " + std::to_string(kMaxEvaluationSequences) +
         ", got " + std::to_string(sequences));
  }
  const long length = sequence_length(Objective::retrieval, task, pairs);
  if (length > config.max_length) {
    fail("sequences of " + std::to_string(pairs) + " pairs have " + std::to_string(length) +
         " tokens, more than the model's maxLength (" + std::to_string(config.max_length) + ")");
  }
}

}  // namespace

Evaluation evaluate_retrieval(Transformer& model, const TaskOptions& task, long pairs,
                              long sequences, Context context) {
  require_fits(model, task, pairs, sequences);
  const TaskBatch set = evaluation_set(task, pairs, sequences);
  const long T = set.T, L = model.config().layers, H = model.config().heads;
  const long O = model.config().outputs;
  Evaluation result;
  result.pairs = pairs;
  std::vector<long> correct(pairs, 0), count(pairs, 0);
  const auto zeros =
      AttentionByPosition(L, std::vector<std::vector<double>>(H, std::vector<double>(pairs, 0.0)));
  result.to_value = result.to_key = result.to_first = zeros;
  double loss = 0.0;
  for (long first = 0; first < set.B; first += kChunk) {
    const long B = std::min(kChunk, set.B - first);
    const Batch batch{set.tokens.data() + first * T, set.targets.data() + first, B, T, 1,
                      prefix_length(context, pairs)};
    loss += model.forward(batch) * B;
    // pass 1: the answers (arg-max of the logits), by the queried pair's position.
    const float* logits = model.logits();
    for (long b = 0; b < B; ++b) {
      const float* row = logits + b * O;
      const long guess = std::max_element(row, row + O) - row;
      const int query = set.queried[first + b];
      correct[query] += guess == set.targets[first + b];
      ++count[query];
    }
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
