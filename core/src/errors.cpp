#include "attn/errors.hpp"

#include <cmath>
#include <cstdio>

#include "simd.hpp"

namespace attn {

std::string shape_string(const Matrix& matrix) {
  return std::to_string(matrix.shape(0)) + "×" + std::to_string(matrix.shape(1));
}

void fail(const std::string& message) { throw InvalidArgument(message); }

std::string format_number(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", value);
  return text;
}

namespace {

const char* describe_non_finite(float value) {
  if (std::isnan(value)) return "NaN";
  return value > 0 ? "Infinity" : "-Infinity";
}

}  // namespace

void require_finite(const char* name, const Matrix& matrix) { require_finite(name, matrix, 0, 0); }

void require_finite(const char* name, const Matrix& block, std::size_t first_row,
                    std::size_t first_col) {
  const std::size_t index = simd::first_non_finite(block.data(), block.size());
  if (index == block.size()) return;
  const std::size_t cols = block.shape(1);
  fail(std::string(name) + "[" + std::to_string(first_row + index / cols) + "][" +
       std::to_string(first_col + index % cols) + "] is " +
       describe_non_finite(block.data()[index]) + "; every entry must be a finite number");
}

void require_finite(const char* name, const Vector& vector) {
  for (std::size_t index = 0; index < vector.size(); ++index) {
    if (!std::isfinite(vector(index))) {
      fail(std::string(name) + "[" + std::to_string(index) + "] is " +
           describe_non_finite(vector(index)) + "; every entry must be a finite number");
    }
  }
}

void require_non_empty(const char* name, const Matrix& matrix) {
  if (matrix.shape(0) == 0 || matrix.shape(1) == 0) {
    fail(std::string(name) + " is " + shape_string(matrix) +
         "; it needs at least one row and one column");
  }
}

void require_same_columns(const char* name, const Matrix& matrix, const char* other_name,
                          const Matrix& other) {
  if (matrix.shape(1) != other.shape(1)) {
    fail(std::string(name) + " has " + std::to_string(matrix.shape(1)) + " columns but " +
         other_name + " has " + std::to_string(other.shape(1)) + " (" + other_name + " is " +
         shape_string(other) + ", " + name + " is " + shape_string(matrix) + ")");
  }
}

void require_same_rows(const char* name, const Matrix& matrix, const char* other_name,
                       const Matrix& other) {
  if (matrix.shape(0) != other.shape(0)) {
    fail(std::string(name) + " has " + std::to_string(matrix.shape(0)) + " rows but " + other_name +
         " has " + std::to_string(other.shape(0)) + " (" + other_name + " is " +
         shape_string(other) + ", " + name + " is " + shape_string(matrix) + ")");
  }
}

void require_whole_number(const char* name, long value, long low, long high) {
  if (value < low || value > high) {
    fail(std::string(name) + " must be a whole number from " + std::to_string(low) + " to " +
         std::to_string(high) + ", got " + std::to_string(value));
  }
}

void require_distances(const std::vector<long>& distances, long max_distance) {
  if (distances.empty() || static_cast<long>(distances.size()) > max_distance + 1) {
    fail("distances must hold 1 to " + std::to_string(max_distance + 1) + " distances, got " +
         std::to_string(distances.size()));
  }
  for (std::size_t i = 0; i < distances.size(); ++i) {
    require_whole_number(("distances[" + std::to_string(i) + "]").c_str(), distances[i], 0,
                         max_distance);
  }
}

void require_number(const char* name, double value, double low, double high) {
  if (!(value >= low && value <= high)) {
    fail(std::string(name) + " must be from " + format_number(low) + " to " + format_number(high) +
         ", got " + format_number(value));
  }
}

}  // namespace attn
