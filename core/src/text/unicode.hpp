// What the text readers need of Unicode: UTF-8 decoded one code point at a time (invalid
// sequences included, as TextDecoder replaces them) and the class of each code point for
// the tokenizer's rules (attn/text/tokenizer.hpp).
#pragma once

#include <cstddef>
#include <string_view>

namespace attn::text {

constexpr char32_t kReplacement = 0xFFFD;
constexpr char32_t kZeroWidthJoiner = 0x200D;
constexpr char32_t kRightSingleQuote = 0x2019;  // the typographic apostrophe

struct CodePoint {
  char32_t value = 0;    // kReplacement for an invalid subpart
  std::size_t size = 0;  // bytes it takes, ≥ 1
  bool valid = false;

  std::size_t utf16_units() const { return valid && value >= 0x10000 ? 2 : 1; }
};

// The code point at byte `at` (< text.size()). Well-formed sequences follow Unicode's
// table 3-7; anything else is its maximal subpart (the longest prefix of a well-formed
// sequence, at least one byte), as the WHATWG decoder that TextDecoder uses replaces it.
CodePoint decode(std::string_view text, std::size_t at);

enum class Class {
  separator,   // whitespace, controls and invisible format characters: never in a token
  word,        // letters and digits of any script, ideographs
  extend,      // belongs to the token before it: combining marks, variation selectors …
  joiner,      // the zero-width joiner
  regional,    // a regional indicator: two make a flag
  apostrophe,  // ' or U+2019
  symbol       // punctuation, symbols, emoji and invalid sequences
};

Class classify(const CodePoint& point);

// Whether a code point may be shown inside an error message as it is: not a control,
// format, bidi or invalid one (those are named by their U+ number instead).
bool is_printable(const CodePoint& point);

}  // namespace attn::text
