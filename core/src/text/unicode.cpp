#include "unicode.hpp"

#include <algorithm>

namespace attn::text {

namespace {

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

constexpr Range kRegionalIndicators = {0x1F1E6, 0x1F1FF};

}  // namespace

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

bool is_printable(const CodePoint& point) {
  if (!point.valid) return false;
  if (point.value < 0x80) return point.value >= 0x20 && point.value < 0x7F;
  const Class type = classify(point);
  return type != Class::separator && type != Class::extend && type != Class::joiner;
}

}  // namespace attn::text
