// Attention without trainable weights, as the tutorials introduce it: every token is
// its own query, key and value; scores are dot products; weights normalise a row of
// scores; the context vector is the weighted sum of the inputs.
#pragma once

#include "attn/matrix.hpp"
#include "attn/normalization.hpp"

namespace attn {

// x: n×d → scores: n×n, scores[i][j] = x_i · x_j.
Matrix dot_product_scores(const Matrix& x);

// weights: n×m, values: m×d → context: n×d, context_i = sum_j weights[i][j] · values_j.
Matrix context_vectors(const Matrix& weights, const Matrix& values);

// Everything the step-by-step view shows for one query of x.
struct QueryWalkthrough {
  Vector scores;                 // m: (x_query · x_j) · scale
  Vector sum_weights;            // m: scores / sum of scores
  Vector naive_softmax_weights;  // m: exp(scores) / sum exp(scores), may overflow
  Vector softmax_weights;        // m: exp(scores - max) / sum ..., never overflows
  Vector context;                // d: sum_j softmax_weights[j] · x_j
};

// x: n×d. `scale` multiplies every score (a temperature knob: large values make the
// naive softmax overflow while the stable one stays finite).
QueryWalkthrough walk_through_query(const Matrix& x, long query, double scale = 1.0);

}  // namespace attn
