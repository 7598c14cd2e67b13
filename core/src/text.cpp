#include "attn/text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iterator>

#include "attn/errors.hpp"

namespace attn::text {

namespace {

// ---- UTF-8 decoding ------------------------------------------------------------------------

constexpr char32_t kReplacement = 0xFFFD;

struct CodePoint {
  char32_t value = 0;    // kReplacement for an invalid subpart
  std::size_t size = 0;  // bytes it takes, ≥ 1
  bool valid = false;

  std::size_t utf16_units() const { return valid && value >= 0x10000 ? 2 : 1; }
};

// The code point at byte `at` (< text.size()). Well-formed sequences follow Unicode's
// table 3-7; anything else is its maximal subpart (the longest prefix of a well-formed
// sequence, at least one byte), as the WHATWG decoder that TextDecoder uses replaces it.
CodePoint decode(std::string_view text, std::size_t at) {
  const auto byte = [&](std::size_t index) { return static_cast<unsigned char>(text[index]); };
  const unsigned char lead = byte(at);
  if (lead < 0x80) return {lead, 1, true};
  std::size_t length = 0;
  char32_t value = 0;
  unsigned char low = 0x80, high = 0xBF;  // the allowed range of the second byte
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
    value = lead & 0x1F;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    value = lead & 0x0F;
    if (lead == 0xE0) low = 0xA0;   // no overlong forms
    if (lead == 0xED) high = 0x9F;  // no surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    value = lead & 0x07;
    if (lead == 0xF0) low = 0x90;   // no overlong forms
    if (lead == 0xF4) high = 0x8F;  // nothing past U+10FFFF
  } else {
    return {kReplacement, 1, false};
  }
  for (std::size_t size = 1; size < length; ++size) {
    if (at + size >= text.size()) return {kReplacement, size, false};
    const unsigned char next = byte(at + size);
    if (next < low || next > high) return {kReplacement, size, false};
    value = (value << 6) | (next & 0x3F);
    low = 0x80;
    high = 0xBF;
  }
  return {value, length, true};
}

// ---- character classes ---------------------------------------------------------------------

struct Range {
  char32_t first, last;
};

bool in(const Range* begin, const Range* end, char32_t value) {
  const Range* after = std::upper_bound(
      begin, end, value, [](char32_t v, const Range& range) { return v < range.first; });
  return after != begin && value <= (after - 1)->last;
}

template <std::size_t N>
bool in(const Range (&ranges)[N], char32_t value) {
  return in(ranges, ranges + N, value);
}

// Separators past ASCII: C1 controls, Unicode spaces, line and paragraph separators, and
// invisible format characters (bidi marks, embeddings, overrides, isolates, zero-width
// space, word joiner, byte-order mark). Sorted, as every table here.
constexpr Range kSeparators[] = {
    {0x0080, 0x00A0}, {0x061C, 0x061C}, {0x1680, 0x1680},   {0x180E, 0x180E},   {0x2000, 0x200B},
    {0x200E, 0x200F}, {0x2028, 0x202F}, {0x205F, 0x2064},   {0x2066, 0x206F},   {0x3000, 0x3000},
    {0xFEFF, 0xFEFF}, {0xFFF9, 0xFFFB}, {0x1BCA0, 0x1BCA3}, {0x1D173, 0x1D17A},
};

// Code points that extend the token before them: soft hyphen, combining diacritical marks
// (also for symbols, such as the keycap U+20E3), zero-width non-joiner, variation
// selectors, emoji skin-tone modifiers and tag characters (subdivision flags).
constexpr Range kExtenders[] = {
    {0x00AD, 0x00AD},   {0x0300, 0x036F},   {0x1AB0, 0x1AFF},   {0x1DC0, 0x1DFF},
    {0x200C, 0x200C},   {0x20D0, 0x20FF},   {0xFE00, 0xFE0F},   {0xFE20, 0xFE2F},
    {0x1F3FB, 0x1F3FF}, {0xE0001, 0xE0001}, {0xE0020, 0xE007F}, {0xE0100, 0xE01EF},
};

// Punctuation and symbols past ASCII: Latin-1's, the punctuation of the common scripts,
// General Punctuation, currency, letterlike symbols, arrows through the miscellaneous
// symbols and arrows, CJK and fullwidth punctuation, emoji and pictographs, private use.
constexpr Range kSymbols[] = {
    {0x00A1, 0x00A9},    {0x00AB, 0x00AC},   {0x00AE, 0x00B1},   {0x00B4, 0x00B4},
    {0x00B6, 0x00B8},    {0x00BB, 0x00BB},   {0x00BF, 0x00BF},   {0x00D7, 0x00D7},
    {0x00F7, 0x00F7},    {0x02C2, 0x02C5},   {0x02D2, 0x02DF},   {0x02E5, 0x02EB},
    {0x02ED, 0x02ED},    {0x02EF, 0x02FF},   {0x037E, 0x037E},   {0x0384, 0x0385},
    {0x0387, 0x0387},    {0x03F6, 0x03F6},   {0x055A, 0x055F},   {0x0589, 0x058A},
    {0x058D, 0x058F},    {0x05BE, 0x05BE},   {0x05C0, 0x05C0},   {0x05C3, 0x05C3},
    {0x05C6, 0x05C6},    {0x05F3, 0x05F4},   {0x0606, 0x060F},   {0x061B, 0x061B},
    {0x061D, 0x061F},    {0x066A, 0x066D},   {0x06D4, 0x06D4},   {0x06DE, 0x06DE},
    {0x06E9, 0x06E9},    {0x06FD, 0x06FE},   {0x0700, 0x070D},   {0x0964, 0x0965},
    {0x0970, 0x0970},    {0x0E3F, 0x0E3F},   {0x0E4F, 0x0E4F},   {0x0E5A, 0x0E5B},
    {0x104A, 0x104F},    {0x10FB, 0x10FB},   {0x1360, 0x1368},   {0x166D, 0x166E},
    {0x17D4, 0x17DA},    {0x2010, 0x2018},   {0x201A, 0x2027},   {0x2030, 0x205E},
    {0x207A, 0x207E},    {0x208A, 0x208E},   {0x20A0, 0x20CF},   {0x2100, 0x214F},
    {0x2190, 0x2BFF},    {0x2CF9, 0x2CFC},   {0x2CFE, 0x2CFF},   {0x2E00, 0x2E7F},
    {0x3001, 0x3004},    {0x3008, 0x3020},   {0x3030, 0x3030},   {0x303D, 0x303F},
    {0x30FB, 0x30FB},    {0xE000, 0xF8FF},   {0xFD3E, 0xFD3F},   {0xFDD0, 0xFDEF},
    {0xFDFC, 0xFDFD},    {0xFE10, 0xFE19},   {0xFE30, 0xFE6F},   {0xFF01, 0xFF0F},
    {0xFF1A, 0xFF20},    {0xFF3B, 0xFF40},   {0xFF5B, 0xFF65},   {0xFFE0, 0xFFEE},
    {0xFFFC, 0xFFFF},    {0x1D000, 0x1D0FF}, {0x1D100, 0x1D1FF}, {0x1F000, 0x1FBFF},
    {0xF0000, 0x10FFFF},
};

constexpr char32_t kZeroWidthJoiner = 0x200D;
constexpr char32_t kRightSingleQuote = 0x2019;  // the typographic apostrophe
constexpr Range kRegionalIndicators = {0x1F1E6, 0x1F1FF};

enum class Class { separator, word, extend, joiner, regional, apostrophe, symbol };

Class classify(const CodePoint& point) {
  if (!point.valid) return Class::symbol;
  const char32_t c = point.value;
  if (c < 0x80) {
    if (c <= 0x20 || c == 0x7F) return Class::separator;  // controls, whitespace, space
    if ((c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'))
      return Class::word;
    return c == '\'' ? Class::apostrophe : Class::symbol;
  }
  if (in(kSeparators, c)) return Class::separator;
  if (c == kZeroWidthJoiner) return Class::joiner;
  if (in(kExtenders, c)) return Class::extend;
  if (c >= kRegionalIndicators.first && c <= kRegionalIndicators.last) return Class::regional;
  if (c == kRightSingleQuote) return Class::apostrophe;
  if (in(kSymbols, c)) return Class::symbol;
  return Class::word;
}

void require_text_size(std::string_view text) {
  if (text.size() > kMaxTextBytes) {
    fail("text is " + std::to_string(text.size()) + " bytes of UTF-8, more than the " +
         std::to_string(kMaxTextBytes) + " accepted; paste less");
  }
}

// ---- tokenizer -----------------------------------------------------------------------------

// Walks the text one code point at a time, keeping the byte and UTF-16 offsets.
class Cursor {
 public:
  explicit Cursor(std::string_view text) : text_(text) {}

  std::string_view text() const { return text_; }
  bool done() const { return byte_ == text_.size(); }
  std::size_t byte() const { return byte_; }
  std::size_t utf16() const { return utf16_; }

  // The code point under the cursor (done() must be false).
  CodePoint peek() const { return decode(text_, byte_); }
  Class peek_class() const { return classify(peek()); }

  void advance() {
    const CodePoint point = peek();
    byte_ += point.size;
    utf16_ += point.utf16_units();
  }

  // Advances to byte `end`, a code point boundary ahead.
  void advance_to(std::size_t end) {
    while (byte_ < end) advance();
  }

 private:
  std::string_view text_;
  std::size_t byte_ = 0, utf16_ = 0;
};

bool is_apostrophe(const CodePoint& point) {
  return point.valid && (point.value == '\'' || point.value == kRightSingleQuote);
}

// Whether the ASCII letters `lower` (in lower case) stand at byte `at`, in either case.
bool letters_at(std::string_view text, std::size_t at, std::string_view lower) {
  if (at > text.size() || text.size() - at < lower.size()) return false;
  for (std::size_t i = 0; i < lower.size(); ++i) {
    const char c = text[at + i];
    if (c != lower[i] && c != lower[i] - 'a' + 'A') return false;
  }
  return true;
}

// Whether the letters n't (either apostrophe, letters in either case) start at byte `at`.
bool negation_at(std::string_view text, std::size_t at) {
  if (!letters_at(text, at, "n") || at + 1 >= text.size()) return false;
  const CodePoint apostrophe = decode(text, at + 1);
  return is_apostrophe(apostrophe) && letters_at(text, at + 1 + apostrophe.size, "t");
}

// Whether a word ends before byte `at`: the text ends there, or a code point that is not a
// word character, an extender or a joiner starts there, or the letters n't do ("it'sn't" is
// "it" "'s" "n't": a word then never holds what would split off when it stands alone).
bool word_ends_at(std::string_view text, std::size_t at) {
  if (at == text.size()) return true;
  const Class next = classify(decode(text, at));
  return (next != Class::word && next != Class::extend && next != Class::joiner) ||
         negation_at(text, at);
}

// What follows the apostrophe of a clitic other than n't, in lower case.
constexpr std::string_view kApostropheClitics[] = {"s", "re", "ve", "ll", "d", "m"};

// The length in bytes of the clitic that starts at byte `at` (n't, or an apostrophe and one
// of kApostropheClitics, followed by the end of a word), or 0 when none starts there.
std::size_t clitic_at(std::string_view text, std::size_t at) {
  std::size_t end = at;
  if (negation_at(text, at)) {
    end += 1 + decode(text, at + 1).size + 1;  // n, the apostrophe, t
  } else {
    if (at >= text.size()) return 0;
    const CodePoint apostrophe = decode(text, at);
    if (!is_apostrophe(apostrophe)) return 0;
    end += apostrophe.size;
    const auto* clitic =
        std::find_if(std::begin(kApostropheClitics), std::end(kApostropheClitics),
                     [&](std::string_view letters) { return letters_at(text, end, letters); });
    if (clitic == std::end(kApostropheClitics)) return 0;
    end += clitic->size();
  }
  return word_ends_at(text, end) ? end - at : 0;
}

// The rest of a word: word characters, extenders and joiners, a hyphen-minus or an
// apostrophe followed by a word character; it stops before a clitic.
void read_word(Cursor& cursor) {
  const std::string_view text = cursor.text();
  while (!cursor.done()) {
    const CodePoint next = cursor.peek();
    const Class type = classify(next);
    if (type == Class::extend || type == Class::joiner) {
      cursor.advance();
      continue;
    }
    if (clitic_at(text, cursor.byte()) > 0) return;  // "do|n't", "it|'s"
    if (type == Class::word) {
      cursor.advance();
      continue;
    }
    const bool inner = type == Class::apostrophe || (next.valid && next.value == '-');
    const std::size_t after = cursor.byte() + next.size;
    if (inner && after < text.size() && classify(decode(text, after)) == Class::word &&
        clitic_at(text, after) == 0) {
      cursor.advance();  // the word character after it is read next
      continue;
    }
    return;
  }
}

// The rest of a symbol token that began with a code point of class `first`: a second
// regional indicator, then extenders, and symbols joined by zero-width joiners.
void read_symbol(Cursor& cursor, Class first) {
  if (first == Class::regional && !cursor.done() && cursor.peek_class() == Class::regional) {
    cursor.advance();
  }
  while (!cursor.done()) {
    const Class next = cursor.peek_class();
    if (next == Class::extend) {
      cursor.advance();
    } else if (next == Class::joiner) {
      cursor.advance();
      if (cursor.done()) return;
      const Class joined = cursor.peek_class();
      if (joined == Class::symbol || joined == Class::regional) cursor.advance();
    } else {
      return;
    }
  }
}

// Reads tokens from the cursor until the text ends or `limit` tokens are read; the cursor
// stops at the next token's first code point, or at the end.
std::vector<Token> read_tokens(Cursor& cursor, std::size_t limit) {
  std::vector<Token> tokens;
  const std::string_view text = cursor.text();
  for (;;) {
    while (!cursor.done() && cursor.peek_class() == Class::separator) cursor.advance();
    if (cursor.done() || tokens.size() == limit) return tokens;
    Token token;
    token.begin = cursor.byte();
    token.utf16_begin = cursor.utf16();
    const Class first = cursor.peek_class();
    if (const std::size_t clitic = clitic_at(text, cursor.byte()); clitic > 0) {
      token.kind = TokenKind::clitic;
      cursor.advance_to(token.begin + clitic);
    } else if (first == Class::word) {
      token.kind = TokenKind::word;
      cursor.advance();
      read_word(cursor);
    } else {
      token.kind = TokenKind::symbol;
      cursor.advance();
      read_symbol(cursor, first);
    }
    token.end = cursor.byte();
    token.utf16_end = cursor.utf16();
    token.text = std::string(text.substr(token.begin, token.end - token.begin));
    tokens.push_back(std::move(token));
  }
}

// ---- vector tables -------------------------------------------------------------------------

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

// Whether a code point may be shown inside an error message as it is: not a control,
// format, bidi or invalid one (those are named by their U+ number instead).
bool is_printable(const CodePoint& point) {
  if (!point.valid) return false;
  if (point.value < 0x80) return point.value >= 0x20 && point.value < 0x7F;
  const Class type = classify(point);
  return type != Class::separator && type != Class::extend && type != Class::joiner;
}

std::string code_point_name(char32_t value) {
  char name[16];
  std::snprintf(name, sizeof name, "U+%04X", static_cast<unsigned>(value));
  return name;
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

  // Whether the code point at `offset` ends a field: a blank, a comma, a bracket, '#'.
  bool ends_field(std::size_t offset) const {
    const char c = line_[offset];
    if (c == ',' || c == '[' || c == ']' || c == '#') return true;
    return is_blank(decode(line_, offset));
  }

  // Reads the field under the cursor as a number, or fails naming it.
  float read_number() {
    const std::size_t begin = at_;
    std::size_t end = begin;
    while (end < line_.size() && !ends_field(end)) end += decode(line_, end).size;
    const std::string_view field = line_.substr(begin, end - begin);

    // sign, digits [. digits], [e [sign] digits]; the minus sign U+2212 counts as '-'.
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
      fail_here(non_finite ? "expected a finite number" : "expected a number");
    }
    // `plain` is a decimal literal that strtod reads whole in the C locale.
    char* parsed_end = nullptr;
    const double value = std::strtod(plain.c_str(), &parsed_end);
    if (parsed_end != plain.c_str() + plain.size()) {
      fail_here("expected a number that strtod reads whole (is the C locale's decimal point '.'?)");
    }
    // Below 2^128 - 2^103 (FLT_MAX plus half its ulp) a value rounds to a finite float.
    constexpr double kFloatOverflow = 0x1.ffffffp127;
    if (!(std::fabs(value) < kFloatOverflow)) {
      fail_here("expected a number within float32's range (±3.4028235e+38)");
    }
    at_ = end;
    return static_cast<float>(value);
  }

  // "line 3, column 8: <expected>, found 'abc'", then throws.
  [[noreturn]] void fail_here(const std::string& expected) const {
    std::size_t column = 1;
    for (std::size_t offset = 0; offset < at_; offset += decode(line_, offset).size) ++column;
    fail("line " + std::to_string(number_) + ", column " + std::to_string(column) + ": " +
         expected + ", found " + describe_found());
  }

  // What stands at the cursor: the printable run up to the end of its field, quoted (at
  // most kShown code points), or the one code point that cannot be shown, by number.
  std::string describe_found() const {
    constexpr std::size_t kShown = 24;
    if (at_end()) return "the end of the line";
    const CodePoint first = decode(line_, at_);
    if (!first.valid) {
      char byte[8];
      std::snprintf(byte, sizeof byte, "0x%02X", static_cast<unsigned char>(line_[at_]));
      return std::string("the byte ") + byte + ", which is not valid UTF-8";
    }
    if (!is_printable(first)) {
      return (first.value < 0x20 || (first.value >= 0x7F && first.value < 0xA0)
                  ? "the control character "
                  : "the invisible character ") +
             code_point_name(first.value);
    }
    if (ends_field(at_)) return "'" + std::string(line_.substr(at_, first.size)) + "'";
    std::size_t end = at_, shown = 0;
    while (end < line_.size() && !ends_field(end) && shown < kShown) {
      const CodePoint point = decode(line_, end);
      if (!is_printable(point)) break;
      end += point.size;
      ++shown;
    }
    const bool whole = end == line_.size() || ends_field(end);
    return "'" + std::string(line_.substr(at_, end - at_)) + (whole ? "'" : "…'");
  }

  std::string_view line_;
  std::size_t number_;
  std::size_t at_ = 0;
};

std::string numbers(std::size_t count) {
  return std::to_string(count) + (count == 1 ? " number" : " numbers");
}

}  // namespace

std::vector<Token> tokenize(std::string_view text) {
  require_text_size(text);
  Cursor cursor(text);
  std::vector<Token> tokens = read_tokens(cursor, kMaxTokens);
  if (!cursor.done()) {
    fail("text has more than " + std::to_string(kMaxTokens) +
         " tokens, the most one call returns (token " + std::to_string(kMaxTokens + 1) +
         " starts at UTF-16 offset " + std::to_string(cursor.utf16()) + ", byte " +
         std::to_string(cursor.byte()) + "); tokenize a shorter text, or give a limit");
  }
  return tokens;
}

Tokenized tokenize(std::string_view text, std::size_t limit) {
  require_text_size(text);
  if (limit > kMaxTokens) {
    fail("limit is " + std::to_string(limit) + " tokens, more than the " +
         std::to_string(kMaxTokens) + " one call returns");
  }
  Cursor cursor(text);
  Tokenized result;
  result.tokens = read_tokens(cursor, limit);
  result.truncated = !cursor.done();
  return result;
}

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
