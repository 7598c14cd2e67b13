#include "attn/text/vectors.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "attn/errors.hpp"
#include "attn/text/limits.hpp"
#include "unicode.hpp"

namespace attn::text {

namespace {

// Whether a code point separates numbers on a line: spaces and tabs, and the Unicode
// spaces that spreadsheets and word processors put in tables.
bool is_blank(const CodePoint& point) {
  if (!point.valid) return false;
  switch (point.value) {
    case ' ':
    case '\t':
    case '\v':
    case '\f':
    case 0x00A0:
    case 0x202F:
    case 0x205F:
    case 0x3000:
    case 0xFEFF:
      return true;
    default:
      return point.value >= 0x2000 && point.value <= 0x200A;
  }
}

std::string code_point_name(char32_t value) {
  char name[16];
  std::snprintf(name, sizeof name, "U+%04X", static_cast<unsigned>(value));
  return name;
}

// Whether the code point at `offset` of `line` ends a field: a blank, a comma, a bracket, '#'.
bool ends_field(std::string_view line, std::size_t offset) {
  const char c = line[offset];
  if (c == ',' || c == '[' || c == ']' || c == '#') return true;
  return is_blank(decode(line, offset));
}

// A field read as a number: its value, or (when `expected` is set) what was expected instead.
struct FieldValue {
  float value = 0.0f;
  const char* expected = nullptr;
};

// sign, digits [. digits], [e [sign] digits], the minus sign U+2212 counting as '-', read
// with strtod and rounded to float32.
FieldValue read_decimal(std::string_view field) {
  std::string plain;
  std::size_t i = 0;
  if (field.substr(0, 3) == "\xE2\x88\x92") {
    plain += '-';
    i = 3;
  } else if (!field.empty() && (field[0] == '+' || field[0] == '-')) {
    plain += field[0];
    i = 1;
  }
  const auto digits = [&] {
    std::size_t count = 0;
    while (i < field.size() && field[i] >= '0' && field[i] <= '9') {
      plain += field[i++];
      ++count;
    }
    return count;
  };
  std::size_t mantissa_digits = digits();
  if (i < field.size() && field[i] == '.') {
    plain += field[i++];
    mantissa_digits += digits();
  }
  bool valid = mantissa_digits > 0;
  if (valid && i < field.size() && (field[i] == 'e' || field[i] == 'E')) {
    plain += field[i++];
    if (i < field.size() && (field[i] == '+' || field[i] == '-')) plain += field[i++];
    valid = digits() > 0;
  }
  if (!valid || i != field.size()) {
    std::string word;  // the field without its sign, in lower case: is it NaN or Infinity?
    for (char c : field.substr(std::min(field.find_first_not_of("+-"), field.size()))) {
      word += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    }
    const bool non_finite = word == "nan" || word == "inf" || word == "infinity";
    return {0.0f, non_finite ? "expected a finite number" : "expected a number"};
  }
  // `plain` is a decimal literal that strtod reads whole in the C locale.
  char* parsed_end = nullptr;
  const double value = std::strtod(plain.c_str(), &parsed_end);
  if (parsed_end != plain.c_str() + plain.size()) {
    return {0.0f,
            "expected a number that strtod reads whole (is the C locale's decimal point '.'?)"};
  }
  // Below 2^128 - 2^103 (FLT_MAX plus half its ulp) a value rounds to a finite float.
  constexpr double kFloatOverflow = 0x1.ffffffp127;
  if (!(std::fabs(value) < kFloatOverflow)) {
    return {0.0f, "expected a number within float32's range (±3.4028235e+38)"};
  }
  return {static_cast<float>(value), nullptr};
}

// What stands at byte `at` of `line`, for an error message: the printable run up to the end
// of its field, quoted (at most kShown code points), or the one code point that cannot be
// shown, by number.
std::string describe_found(std::string_view line, std::size_t at) {
  constexpr std::size_t kShown = 24;
  if (at >= line.size()) return "the end of the line";
  const CodePoint first = decode(line, at);
  if (!first.valid) {
    char byte[8];
    std::snprintf(byte, sizeof byte, "0x%02X", static_cast<unsigned char>(line[at]));
    return std::string("the byte ") + byte + ", which is not valid UTF-8";
  }
  if (!is_printable(first)) {
    return (first.value < 0x20 || (first.value >= 0x7F && first.value < 0xA0)
                ? "the control character "
                : "the invisible character ") +
           code_point_name(first.value);
  }
  if (ends_field(line, at)) return "'" + std::string(line.substr(at, first.size)) + "'";
  std::size_t end = at, shown = 0;
  while (end < line.size() && !ends_field(line, end) && shown < kShown) {
    const CodePoint point = decode(line, end);
    if (!is_printable(point)) break;
    end += point.size;
    ++shown;
  }
  const bool whole = end == line.size() || ends_field(line, end);
  return "'" + std::string(line.substr(at, end - at)) + (whole ? "'" : "…'");
}

// One line of the table, with its 1-based number, read left to right.
class LineParser {
 public:
  LineParser(std::string_view line, std::size_t number) : line_(line), number_(number) {}

  // Appends the line's numbers to `values` and returns how many there were.
  std::size_t parse(std::vector<float>& values) {
    skip_blanks();
    while (at('[')) {
      ++at_;
      skip_blanks();
    }
    enum class State { first, after_number, after_comma } state = State::first;
    std::size_t count = 0;
    for (;;) {
      skip_blanks();
      if (at_end() || at('#') || at(']')) break;  // a trailing comma is allowed
      if (at(',')) {
        if (state != State::after_number) fail_here("expected a number");
        state = State::after_comma;
        ++at_;
        continue;
      }
      if (at('[')) {
        fail_here(state == State::after_number
                      ? "expected a comma, a space, ']' or the end of the line"
                      : "expected a number");
      }
      values.push_back(read_number());
      ++count;
      state = State::after_number;
    }
    while (at(']')) {
      ++at_;
      skip_blanks();
    }
    if (at(',')) {
      ++at_;
      skip_blanks();
    }
    if (!at_end() && !at('#')) fail_here("expected the end of the line after ']'");
    return count;
  }

 private:
  bool at_end() const { return at_ >= line_.size(); }
  bool at(char c) const { return !at_end() && line_[at_] == c; }

  void skip_blanks() {
    while (!at_end()) {
      const CodePoint point = decode(line_, at_);
      if (!is_blank(point)) return;
      at_ += point.size;
    }
  }

  // Reads the field under the cursor as a number, or fails naming it.
  float read_number() {
    std::size_t end = at_;
    while (end < line_.size() && !ends_field(line_, end)) end += decode(line_, end).size;
    const FieldValue field = read_decimal(line_.substr(at_, end - at_));
    if (field.expected != nullptr) fail_here(field.expected);
    at_ = end;
    return field.value;
  }

  // "line 3, column 8: <expected>, found 'abc'", then throws.
  [[noreturn]] void fail_here(const std::string& expected) const {
    std::size_t column = 1;
    for (std::size_t offset = 0; offset < at_; offset += decode(line_, offset).size) ++column;
    fail("line " + std::to_string(number_) + ", column " + std::to_string(column) + ": " +
         expected + ", found " + describe_found(line_, at_));
  }

  std::string_view line_;
  std::size_t number_;
  std::size_t at_ = 0;
};

std::string numbers(std::size_t count) {
  return std::to_string(count) + (count == 1 ? " number" : " numbers");
}

}  // namespace

Matrix parse_vectors(std::string_view text) {
  require_text_size(text);
  std::size_t offset = 0;
  if (text.substr(0, 3) == "\xEF\xBB\xBF") offset = 3;  // a byte-order mark

  std::vector<float> values;
  std::size_t rows = 0, cols = 0, first_line = 0;
  for (std::size_t number = 1;; ++number) {
    const std::size_t end = std::min(text.find_first_of("\r\n", offset), text.size());
    const std::size_t count = LineParser(text.substr(offset, end - offset), number).parse(values);
    if (count > 0) {
      if (rows == 0) {
        cols = count;
        first_line = number;
      } else if (count != cols) {
        fail("line " + std::to_string(number) + " has " + numbers(count) + " but line " +
             std::to_string(first_line) + " has " + std::to_string(cols) +
             "; every row needs the same count");
      }
      ++rows;
    }
    if (end == text.size()) break;
    offset = end + (text.compare(end, 2, "\r\n") == 0 ? 2 : 1);
  }
  if (rows == 0) {
    fail(
        "no numbers found: paste one row of numbers per line, separated by spaces, commas or tabs");
  }
  Matrix table = Matrix::from_shape({rows, cols});
  std::copy(values.begin(), values.end(), table.begin());
  return table;
}

}  // namespace attn::text
