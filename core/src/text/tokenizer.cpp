#include "attn/text/tokenizer.hpp"

#include <algorithm>
#include <iterator>
#include <string>

#include "attn/errors.hpp"
#include "unicode.hpp"

namespace attn::text {

namespace {

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

}  // namespace attn::text
