// Input validation. Every entry point of the engine checks its arguments with these
// helpers and throws attn::InvalidArgument whose message names the argument, what was
// expected and what was given.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "attn/matrix.hpp"

namespace attn {

class InvalidArgument : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

[[noreturn]] void fail(const std::string& message);

// A number as JavaScript prints it: "0.5", "1e+30", "NaN", "Infinity", "-Infinity".
std::string format_number(double value);

// Throws unless every entry of `matrix` is finite: "q[1][2] is NaN".
void require_finite(const char* name, const Matrix& matrix);
// The same for a block of a larger matrix whose entry (0, 0) is the larger one's (first_row,
// first_col): the message names the entry of the larger matrix.
void require_finite(const char* name, const Matrix& block, std::size_t first_row,
                    std::size_t first_col);
void require_finite(const char* name, const Vector& vector);

// Throws unless low ≤ value ≤ high: "layers must be a whole number from 1 to 64, got 0".
void require_whole_number(const char* name, long value, long low, long high);

// Throws unless `distances` holds 1 to max_distance + 1 distances, each from 0 to
// max_distance: "distances[2] must be a whole number from 0 to 1048576, got -1".
void require_distances(const std::vector<long>& distances, long max_distance);

// Throws unless low ≤ value ≤ high (NaN is not): "training.clip must be from 0 to 1e+30, got NaN".
void require_number(const char* name, double value, double low, double high);

// Throws unless the matrix has at least one row and one column.
void require_non_empty(const char* name, const Matrix& matrix);

// Throws unless matrix.shape(1) == expected: "k has 4 columns but q has 3 (q is 2×3, k is 5×4)".
void require_same_columns(const char* name, const Matrix& matrix, const char* other_name,
                          const Matrix& other);

// Throws unless a.shape(0) == b.shape(0).
void require_same_rows(const char* name, const Matrix& matrix, const char* other_name,
                       const Matrix& other);

}  // namespace attn
