// Turning a row of scores into weights.
//
//   sum           w_j = s_j / sum_j s_j              the tutorial's first attempt
//   naive-softmax w_j = exp(s_j) / sum_j exp(s_j)    overflows to Infinity / NaN for large scores
//   softmax       w_j = exp(s_j - max) / sum ...     the same weights, computed stably
//
// Masked keys hold -Infinity and take no part in any of them; a row with no visible key
// gets all-zero weights. The two teaching modes return whatever the arithmetic gives.
#pragma once

#include <string>

#include "attn/matrix.hpp"
#include "attn/names.hpp"

namespace attn {

enum class Normalization { softmax, naive_softmax, sum };

inline constexpr OptionNames<Normalization, 3> kNormalizationNames{
    "normalization",
    {{{Normalization::softmax, "softmax"},
      {Normalization::naive_softmax, "naive-softmax"},
      {Normalization::sum, "sum"}}}};
constexpr const auto& names_of(Normalization) { return kNormalizationNames; }

// weights[j] for one row of `count` scores; -Infinity marks a masked key.
void normalize_row(Normalization normalization, const float* scores, float* weights,
                   std::size_t count);

// scores: n×m → weights: n×m, each row normalised on its own.
Matrix normalize_rows(const Matrix& scores, Normalization normalization);

}  // namespace attn
