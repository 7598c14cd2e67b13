// The tokenizer of the text users paste: words, clitics and single symbols, with the rules
// of the GloVe vocabulary the playground page looks words up in. It reads arbitrary bytes
// (attn/text/limits.hpp) and either returns tokens or throws attn::InvalidArgument;
// "<script>" is the three tokens "<", "script", ">".
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "attn/text/limits.hpp"

namespace attn::text {

// The most tokens one call to tokenize returns: twice the page's longest context (8192).
constexpr std::size_t kMaxTokens = 16384;

enum class TokenKind {
  word,    // letters and digits (any script) with their marks, inner hyphens and apostrophes
  clitic,  // n't, 's, 're, 've, 'll, 'd or 'm, split off the word before it
  symbol   // one punctuation mark, symbol, emoji sequence or invalid byte sequence
};

struct Token {
  std::string text;       // the token's bytes, exactly as in the input
  std::size_t begin = 0;  // byte offsets into the input: [begin, end)
  std::size_t end = 0;
  std::size_t utf16_begin = 0;  // the same span in UTF-16 code units: the indices of a
  std::size_t utf16_end = 0;    // JavaScript string holding the same text
  TokenKind kind = TokenKind::word;
};

// Splits UTF-8 text into words, clitics and single symbols, left to right, in the style of
// the Penn Treebank tokenizer that GloVe's vocabulary comes from:
//   1. Decoding: UTF-8 as Unicode defines it. Each maximal invalid subpart (a stray
//      continuation byte, a truncated or overlong sequence, a surrogate, a value past
//      U+10FFFF) is one code point of its own, U+FFFD, a symbol, one UTF-16 unit wide:
//      the offsets agree with a JavaScript string decoded by TextDecoder.
//   2. Separators, never part of a token: whitespace (ASCII and Unicode spaces, line and
//      paragraph separators), C0 and C1 control characters, and the invisible format
//      characters (zero-width space, word joiner, byte-order mark, bidi marks, embeddings,
//      overrides and isolates).
//   3. Word characters: ASCII letters and digits, and every non-ASCII code point that is not
//      a separator, punctuation or a symbol (so letters and digits of any script, and
//      ideographs: a run of CJK characters is one word). Combining marks, variation
//      selectors, emoji modifiers, zero-width (non-)joiners and the soft hyphen are
//      extenders: they belong to the token they follow.
//   4. Clitics: n't, 's, 're, 've, 'll, 'd and 'm, with the apostrophe ' or U+2019 and the
//      letters in either case, are tokens of their own wherever they start, when a word
//      would end after them (at the end of the text, at anything but a word character or
//      an extender, or where another n't starts): "don't" → "do" "n't", "can't" → "ca"
//      "n't", "it's" → "it" "'s", "we'll've" → "we" "'ll" "'ve", "dogs 's" → "dogs" "'s".
//      Not clitics: "don'tcha", "it'sa" (a word character follows), "'tis".
//   5. A word is a maximal run of word characters and extenders, which stops before a
//      clitic. Inside it, a hyphen-minus '-' or an apostrophe followed by a word character
//      joins the two, unless a clitic starts at either: "state-of-the-art", "covid-19",
//      and (as in the Penn Treebank) "o'clock", "l’homme", "rock'n'roll", "y'all" are one
//      word each; "well-don't" is "well-do" "n't". Any other hyphen or apostrophe is a
//      symbol: "'90s" → "'" "90s", "dogs'" → "dogs" "'", "-5" → "-" "5", "a--b" → four.
//      Only the ASCII hyphen-minus joins: GloVe's vocabulary spells its compounds with it.
//   6. Every other code point is a symbol token of its own, with the extenders that follow
//      it; a zero-width joiner between two symbols joins them ("👩‍💻" is one token), and two
//      regional indicators make one flag.
// Throws attn::InvalidArgument when the text is longer than kMaxTextBytes or holds more
// than kMaxTokens tokens.
std::vector<Token> tokenize(std::string_view text);

// The first tokens of a text, and whether more follow.
struct Tokenized {
  std::vector<Token> tokens;
  bool truncated = false;  // the text holds more than `limit` tokens; the rest was not read
};

// The first `limit` tokens of `text` (limit ≤ kMaxTokens), by the rules of tokenize: reading
// stops at the limit, so a long paste is cut instead of refused. Throws
// attn::InvalidArgument when the text is longer than kMaxTextBytes or limit > kMaxTokens.
Tokenized tokenize(std::string_view text, std::size_t limit);

}  // namespace attn::text
