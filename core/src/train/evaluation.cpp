#include "attn/train/evaluation.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "attn/errors.hpp"
#include "attn/names.hpp"

namespace attn::train {

namespace {

// Held-out sequences per forward: enough rows for the matmuls, and fewer when sequences
// are so long that so many would not fit the activation budget.
constexpr long kMostPerChunk = 256;

// Adds the answers of the last forward (B sequences from `first` of the set) to `correct`.
void count_answers(const Transformer& model, const TaskBatch& set, long first, long B,
                   std::vector<long>& correct) {
  const long O = model.config().outputs;
  const float* logits = model.logits();
  for (long b = 0; b < B; ++b) {
    const float* row = logits + b * O;
    const long guess = std::max_element(row, row + O) - row;
    correct[set.queried[first + b]] += guess == set.targets[first + b];
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

AttentionByPosition zero_table(long L, long H, long pairs) {
  return AttentionByPosition(L, std::vector<std::vector<double>>(H, std::vector<double>(pairs)));
}

// A chunk's table of summed weights: L × H × pairs, each a sum of at most as many weights
// (each from 0 to 1) as the chunk's sequences that ask about that position, or not a number
// (from a model whose weights are not).
void require_sums(const std::string& name, const AttentionByPosition& table, long L, long H,
                  const std::vector<long>& asked) {
  const long pairs = long(asked.size());
  bool shaped = long(table.size()) == L;
  for (const auto& heads : table) {
    shaped = shaped && long(heads.size()) == H;
    for (const auto& values : heads) shaped = shaped && long(values.size()) == pairs;
  }
  if (!shaped) {
    fail(name + " must be " + std::to_string(L) + " layers of " + std::to_string(H) + " heads of " +
         std::to_string(pairs) + " sums, one per position");
  }
  for (long l = 0; l < L; ++l) {
    for (long h = 0; h < H; ++h) {
      for (long i = 0; i < pairs; ++i) {
        const double sum = table[l][h][i];
        if (!(sum < 0.0 || sum > double(asked[i]))) continue;
        fail(name + "[" + std::to_string(l) + "][" + std::to_string(h) + "][" + std::to_string(i) +
             "] must be a sum of " + std::to_string(asked[i]) + " weights, from 0 to " +
             std::to_string(asked[i]) + ", got " + format_number(sum));
      }
    }
  }
}

}  // namespace

long evaluation_chunk(const TransformerConfig& config, long length) {
  const std::uint64_t per_sequence = activation_floats(config, 1, length, 1);
  return long(std::clamp<std::uint64_t>(kMaxActivationFloats / per_sequence, 1, kMostPerChunk));
}

namespace {

// The sequences of a chunk of `model`'s held-out set with `pairs` pairs.
long held_out_chunk(const Transformer& model, const TaskOptions& task, long pairs) {
  return evaluation_chunk(model.config(), sequence_length(Objective::retrieval, task, pairs));
}

}  // namespace

std::vector<long> correct_by_position(Transformer& model, const TaskBatch& set, long first_chunk,
                                      long end_chunk, Context context) {
  const long chunk = evaluation_chunk(model.config(), set.T);
  std::vector<long> correct(set.pairs, 0);
  for (long first = first_chunk * chunk; first < std::min(end_chunk * chunk, set.B);
       first += chunk) {
    const long B = std::min(chunk, set.B - first);
    model.forward(Batch{set.tokens.data() + first * set.T, nullptr, B, set.T, 1,
                        prefix_length(context, set.pairs)});
    count_answers(model, set, first, B, correct);
  }
  return correct;
}

long evaluation_chunks(const Transformer& model, const TaskOptions& task, long pairs,
                       long sequences) {
  require_fits(model, task, pairs, sequences);
  const long size = held_out_chunk(model, task, pairs);
  return (sequences + size - 1) / size;
}

std::uint32_t measured_with(const Transformer& model, Context context) {
  // FNV-1a over 32-bit words: the context, then each parameter's bits
  constexpr std::uint32_t kOffset = 2166136261u, kPrime = 16777619u;
  std::uint32_t hash = (kOffset ^ std::uint32_t(context)) * kPrime;
  const float* values = model.values();
  for (std::size_t p = 0; p < model.parameter_count(); ++p) {
    std::uint32_t bits;
    std::memcpy(&bits, values + p, sizeof bits);
    hash = (hash ^ bits) * kPrime;
  }
  return hash;
}

std::vector<EvaluationSums> evaluation_sums(Transformer& model, const TaskOptions& task, long pairs,
                                            long sequences, Context context, long first_chunk,
                                            long end_chunk) {
  const long chunks = evaluation_chunks(model, task, pairs, sequences);
  require_whole_number("first", first_chunk, 0, chunks - 1);
  require_whole_number("end", end_chunk, first_chunk + 1, chunks);
  const TaskBatch set = evaluation_set(task, pairs, sequences);
  const long T = set.T, L = model.config().layers, H = model.config().heads;
  const long size = held_out_chunk(model, task, pairs);
  const std::uint32_t checksum = measured_with(model, context);
  std::vector<EvaluationSums> result;
  for (long chunk = first_chunk; chunk < end_chunk; ++chunk) {
    const long first = chunk * size, B = std::min(size, set.B - first);
    EvaluationSums sums;
    sums.chunk = chunk;
    sums.sequences = B;
    sums.measured_with = checksum;
    sums.correct.assign(pairs, 0);
    sums.to_value = sums.to_key = sums.to_first = zero_table(L, H, pairs);
    const Batch batch{set.tokens.data() + first * T, set.targets.data() + first, B, T, 1,
                      prefix_length(context, pairs)};
    sums.loss = model.forward(batch) * B;
    count_answers(model, set, first, B, sums.correct);
    // the final position's row of each head's weights: on the queried value, key, token 0
    for (long l = 0; l < L; ++l) {
      const float* weights = model.attention_weights(l);  // B×H×Tq×T
      const long Tq = model.queries(l, batch);
      for (long b = 0; b < B; ++b) {
        const int query = set.queried[first + b];
        for (long h = 0; h < H; ++h) {
          const float* last_row = weights + ((b * H + h) * Tq + (Tq - 1)) * T;
          sums.to_value[l][h][query] += last_row[2 * query + 1];
          sums.to_key[l][h][query] += last_row[2 * query];
          sums.to_first[l][h][query] += last_row[0];
        }
      }
    }
    result.push_back(std::move(sums));
  }
  return result;
}

namespace {

// join_evaluation with the model's checksum in `context` given (measured_with(model, context)),
// so that a caller that has just measured the sums does not read every parameter again.
Evaluation join_sums(const Transformer& model, const TaskOptions& task, long pairs, long sequences,
                     Context context, std::uint32_t checksum,
                     const std::vector<EvaluationSums>& chunks) {
  const long count = evaluation_chunks(model, task, pairs, sequences);
  const long size = held_out_chunk(model, task, pairs);
  const long L = model.config().layers, H = model.config().heads;
  if (long(chunks.size()) != count) {
    fail("chunks must hold the sums of each of the set's " + std::to_string(count) +
         " chunks, got " + std::to_string(chunks.size()));
  }
  Evaluation result;
  result.pairs = pairs;
  result.to_value = result.to_key = result.to_first = zero_table(L, H, pairs);
  std::vector<long> correct(pairs, 0), asked(pairs, 0);
  double loss = 0.0;
  for (long c = 0; c < count; ++c) {
    const EvaluationSums& sums = chunks[c];
    if (sums.chunk != c) {
      fail("chunks[" + std::to_string(c) + "].chunk must be " + std::to_string(c) +
           " (the chunks in order), got " + std::to_string(sums.chunk));
    }
    const std::string name = "chunk " + std::to_string(c) + "'s ";
    const long first = c * size, end = std::min(first + size, sequences);
    if (sums.sequences != end - first) {
      fail(name + "sequences must be " + std::to_string(end - first) + " (of the set's " +
           std::to_string(sequences) + ", in chunks of " + std::to_string(size) + "), got " +
           std::to_string(sums.sequences));
    }
    if (sums.measured_with != checksum) {
      fail(name + "measuredWith must be " + std::to_string(checksum) +
           " (this model's parameters, in the " + std::string(attn::to_string(context)) +
           " context), got " + std::to_string(sums.measured_with) +
           ": its sums were measured with another model or context, and the members of a " +
           "team must hold the same model");
    }
    // the chunk's sequences that ask about each position
    std::vector<long> chunk_asked(pairs, 0);
    for (long s = first; s < end; ++s) ++chunk_asked[evaluation_query(s, pairs)];
    // (not a number passes, as from a model whose logits overflow: evaluate_retrieval's own)
    if (sums.loss < 0.0) {
      fail(name + "loss must be a sum of cross-entropies, at least 0, got " +
           format_number(sums.loss));
    }
    if (long(sums.correct.size()) != pairs) {
      fail(name + "correct must hold a count for each of the " + std::to_string(pairs) +
           " positions, got " + std::to_string(sums.correct.size()));
    }
    for (long i = 0; i < pairs; ++i) {
      require_whole_number((name + "correct[" + std::to_string(i) + "]").c_str(), sums.correct[i],
                           0, chunk_asked[i]);
    }
    require_sums(name + "toValue", sums.to_value, L, H, chunk_asked);
    require_sums(name + "toKey", sums.to_key, L, H, chunk_asked);
    require_sums(name + "toFirst", sums.to_first, L, H, chunk_asked);
    loss += sums.loss;
    for (long i = 0; i < pairs; ++i) {
      correct[i] += sums.correct[i];
      asked[i] += chunk_asked[i];
      for (long l = 0; l < L; ++l) {
        for (long h = 0; h < H; ++h) {
          result.to_value[l][h][i] += sums.to_value[l][h][i];
          result.to_key[l][h][i] += sums.to_key[l][h][i];
          result.to_first[l][h][i] += sums.to_first[l][h][i];
        }
      }
    }
  }
  // counts → fractions and means
  result.accuracy_by_position.resize(pairs);
  result.questions_by_position = asked;
  long total_correct = 0;
  for (long i = 0; i < pairs; ++i) {
    total_correct += correct[i];
    const double n = std::max<long>(asked[i], 1);
    result.accuracy_by_position[i] = correct[i] / n;
    for (long l = 0; l < L; ++l) {
      for (long h = 0; h < H; ++h) {
        result.to_value[l][h][i] /= n;
        result.to_key[l][h][i] /= n;
        result.to_first[l][h][i] /= n;
      }
    }
  }
  result.accuracy = double(total_correct) / sequences;
  result.loss = loss / sequences;
  return result;
}

}  // namespace

Evaluation join_evaluation(const Transformer& model, const TaskOptions& task, long pairs,
                           long sequences, Context context,
                           const std::vector<EvaluationSums>& chunks) {
  return join_sums(model, task, pairs, sequences, context, measured_with(model, context), chunks);
}

Evaluation evaluate_retrieval(Transformer& model, const TaskOptions& task, long pairs,
                              long sequences, Context context) {
  const long chunks = evaluation_chunks(model, task, pairs, sequences);
  const std::vector<EvaluationSums> sums =
      evaluation_sums(model, task, pairs, sequences, context, 0, chunks);
  // every chunk carries the checksum evaluation_sums computed (there is at least one)
  return join_sums(model, task, pairs, sequences, context, sums.front().measured_with, sums);
}

}  // namespace attn::train
