// Measuring a trained model on the retrieval task: a fixed held-out set whose queried pair
// cycles through every position, so that accuracy by position is exact to the set, and where
// the final position looks. Letters as in attn/train/layers.hpp.
#pragma once

#include <cstdint>
#include <vector>

#include "attn/train/retrieval.hpp"
#include "attn/train/transformer.hpp"

namespace attn::train {

// Where the final position looks, [layer][head][i] for the queried pair at position i.
using AttentionByPosition = std::vector<std::vector<std::vector<double>>>;

struct Evaluation {
  long pairs = 0;
  double accuracy = 0.0;
  double loss = 0.0;                         // mean cross-entropy on the set
  std::vector<double> accuracy_by_position;  // pairs
  std::vector<long> questions_by_position;   // pairs: the sequences asking about each position
  AttentionByPosition to_value;  // mean weight of the final position on the queried value
  AttentionByPosition to_key;    // … on the queried key
  AttentionByPosition to_first;  // … on token 0
};

// The most held-out sequences one evaluation takes.
constexpr long kMaxEvaluationSequences = 1L << 16;

// The held-out set's forwards take `evaluation_chunk` sequences at a time (the last chunk
// fewer). A chunk's logits are the same wherever it is computed, so that replicas of a trainer
// can each count the answers of some chunks and add their counts up (trainer.hpp).
long evaluation_chunk(const TransformerConfig& config, long length);

// For each position i of the queried pair: how many of the set's sequences in chunks
// [first_chunk, end_chunk) that ask about pair i the model answers right (arg-max).
std::vector<long> correct_by_position(Transformer& model, const TaskBatch& set, long first_chunk,
                                      long end_chunk, Context context);

// `model` on `sequences` held-out retrieval sequences of `pairs` pairs (evaluation_set). Throws
// attn::InvalidArgument naming the problem when the model's vocabulary or outputs do not fit
// the task, or pairs, sequences or the length are out of range. It is the join of every
// chunk's sums, below.
Evaluation evaluate_retrieval(Transformer& model, const TaskOptions& task, long pairs,
                              long sequences, Context context);

// An evaluation in parts, so that replicas of a model (a team of the Train page's workers) can
// each measure some chunks of the held-out set: each chunk's sums are computed from zero, and
// the join adds them in chunk order before dividing, so that chunks computed anywhere give
// evaluate_retrieval's bits.
struct EvaluationSums {
  long chunk = 0;      // its index: sequences [chunk·size, (chunk + 1)·size) of the set
  long sequences = 0;  // how many: size, or fewer in the last chunk
  std::uint32_t measured_with = 0;  // measured_with(model, context) of the model that measured it
  double loss = 0.0;                // the chunk's cross-entropies, summed
  std::vector<long> correct;        // pairs: right answers by the queried pair's position
  // [layer][head][i]: the weights of the final position (on the queried value, key, token 0)
  // summed over the chunk's sequences that ask about pair i
  AttentionByPosition to_value, to_key, to_first;
};

// A checksum of a model's parameters (every bit of each, in their flat order) and of the
// context it is measured in: the join's check that every chunk was measured with its model.
// Another model or context gives another checksum, but for a chance of one in 2^32.
std::uint32_t measured_with(const Transformer& model, Context context);

// The chunks of the held-out set of evaluate_retrieval with these arguments (checked as it
// checks them).
long evaluation_chunks(const Transformer& model, const TaskOptions& task, long pairs,
                       long sequences);

// The sums of chunks [first_chunk, end_chunk) of that set, one per chunk, in order.
std::vector<EvaluationSums> evaluation_sums(Transformer& model, const TaskOptions& task, long pairs,
                                            long sequences, Context context, long first_chunk,
                                            long end_chunk);

// The evaluation from every chunk's sums, in chunk order. Each is checked against the set and
// the model: its index and sequences, that it was measured with this model in this context
// (measured_with), its tables' sizes, counts no larger than the chunk's sequences that ask
// about each position (and the weights' sums likewise), a loss of at least 0 (sums that are
// not numbers pass, as a model whose logits overflow gives them).
Evaluation join_evaluation(const Transformer& model, const TaskOptions& task, long pairs,
                           long sequences, Context context,
                           const std::vector<EvaluationSums>& chunks);

}  // namespace attn::train
