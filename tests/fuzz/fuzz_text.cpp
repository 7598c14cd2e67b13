// libFuzzer target: the code that reads user-controlled text (attn/text/), on arbitrary
// bytes. Every input goes through both functions. A call may fail only with
// attn::InvalidArgument; when it succeeds the invariants below must hold, and a broken one
// aborts, which libFuzzer reports as a crash (as it does any ASan or UBSan finding).
//
//   tokenize: tokens in order, non-empty, inside the text, their text equal to their span,
//     no whitespace or control byte inside one; what lies between them tokenizes to nothing
//     (every character that is not a separator is in a token); a word holds no ASCII
//     punctuation but inner hyphens and apostrophes, a clitic is one of the seven, a symbol
//     starts with no letter or digit; for valid UTF-8 the UTF-16 offsets are those of the
//     same text in a JavaScript string; each token alone, and the tokens joined by spaces,
//     tokenize to the same tokens again (no token depends on what stands beside it); with a
//     limit, the first tokens come back and `truncated` says whether more follow. It reads
//     at most kMaxTokens bytes, which never hold more tokens, so it never fails.
//   parse_vectors: a rows×cols table of finite values that reads back bit for bit after
//     printing it with %.9g; failures carry a short message in valid UTF-8 with no control
//     character that names the line or says what is missing.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include "attn/errors.hpp"
#include "attn/text/tokenizer.hpp"
#include "attn/text/vectors.hpp"

namespace {

constexpr std::size_t kMaxMessageBytes = 512;

[[noreturn]] void broken(const std::string& what) {
  std::fprintf(stderr, "fuzz_text: invariant broken: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

void expect(bool condition, const std::string& what) {
  if (!condition) broken(what);
}

// Whether `text` is well-formed UTF-8 (Unicode table 3-7), written independently of the
// decoder in core/src/text/unicode.cpp: by byte ranges, one sequence at a time.
bool valid_utf8(std::string_view text) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  const auto between = [&](std::size_t i, unsigned low, unsigned high) {
    return i < text.size() && byte(i) >= low && byte(i) <= high;
  };
  for (std::size_t i = 0; i < text.size();) {
    const unsigned lead = byte(i);
    if (lead <= 0x7F) {
      i += 1;
    } else if (lead >= 0xC2 && lead <= 0xDF && between(i + 1, 0x80, 0xBF)) {
      i += 2;
    } else if (lead == 0xE0 && between(i + 1, 0xA0, 0xBF) && between(i + 2, 0x80, 0xBF)) {
      i += 3;
    } else if (((lead >= 0xE1 && lead <= 0xEC) || lead == 0xEE || lead == 0xEF) &&
               between(i + 1, 0x80, 0xBF) && between(i + 2, 0x80, 0xBF)) {
      i += 3;
    } else if (lead == 0xED && between(i + 1, 0x80, 0x9F) && between(i + 2, 0x80, 0xBF)) {
      i += 3;
    } else if (lead == 0xF0 && between(i + 1, 0x90, 0xBF) && between(i + 2, 0x80, 0xBF) &&
               between(i + 3, 0x80, 0xBF)) {
      i += 4;
    } else if (lead >= 0xF1 && lead <= 0xF3 && between(i + 1, 0x80, 0xBF) &&
               between(i + 2, 0x80, 0xBF) && between(i + 3, 0x80, 0xBF)) {
      i += 4;
    } else if (lead == 0xF4 && between(i + 1, 0x80, 0x8F) && between(i + 2, 0x80, 0xBF) &&
               between(i + 3, 0x80, 0xBF)) {
      i += 4;
    } else {
      return false;
    }
  }
  return true;
}

// UTF-16 length of the valid UTF-8 text[0, end): one unit per sequence, two for 4-byte ones.
std::size_t utf16_length(std::string_view text, std::size_t end) {
  std::size_t units = 0;
  for (std::size_t i = 0; i < end; ++i) {
    const unsigned char b = static_cast<unsigned char>(text[i]);
    if ((b & 0xC0) != 0x80) ++units;  // a lead byte
    if (b >= 0xF0) ++units;           // a 4-byte sequence: a surrogate pair
  }
  return units;
}

bool is_ascii_space_or_control(unsigned char b) { return b <= 0x20 || b == 0x7F; }
bool is_ascii_alnum(unsigned char b) {
  return (b >= '0' && b <= '9') || (b >= 'A' && b <= 'Z') || (b >= 'a' && b <= 'z');
}

// A clitic in ASCII lower case with the apostrophe U+2019 written as '.
std::string plain_clitic(std::string_view text) {
  std::string plain;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text.substr(i, 3) == "\xE2\x80\x99") {
      plain += '\'';
      i += 2;
    } else {
      const char c = text[i];
      plain += c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
    }
  }
  return plain;
}

bool is_clitic(std::string_view text) {
  const std::string plain = plain_clitic(text);
  for (const char* clitic : {"n't", "'s", "'re", "'ve", "'ll", "'d", "'m"}) {
    if (plain == clitic) return true;
  }
  return false;
}

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

std::vector<attn::text::Token> tokens_of(std::string_view text) {
  try {
    return attn::text::tokenize(text);
  } catch (const attn::InvalidArgument& error) {
    broken(std::string("tokenize failed on a short text: ") + error.what());
  }
}

// Each token's text and kind equal those of `expected`.
bool same_tokens(const std::vector<attn::text::Token>& tokens,
                 const std::vector<attn::text::Token>& expected) {
  if (tokens.size() != expected.size()) return false;
  for (std::size_t t = 0; t < tokens.size(); ++t) {
    if (tokens[t].text != expected[t].text || tokens[t].kind != expected[t].kind) return false;
  }
  return true;
}

void check_kind(const attn::text::Token& token) {
  const std::string_view text = token.text;
  const unsigned char first = static_cast<unsigned char>(text[0]);
  switch (token.kind) {
    case attn::text::TokenKind::word:
      expect(first >= 0x80 || is_ascii_alnum(first),
             "tokenize: a word starts with ASCII punctuation");
      for (unsigned char b : text) {
        expect(b >= 0x80 || is_ascii_alnum(b) || b == '\'' || b == '-',
               "tokenize: ASCII punctuation other than ' and - inside a word");
      }
      expect(!ends_with(text, "'") && !ends_with(text, "-") && !ends_with(text, "\xE2\x80\x99"),
             "tokenize: a word ends with an apostrophe or a hyphen");
      break;
    case attn::text::TokenKind::clitic:
      expect(is_clitic(text), "tokenize: a clitic that is not one of n't 's 're 've 'll 'd 'm");
      break;
    case attn::text::TokenKind::symbol:
      expect(!is_ascii_alnum(first), "tokenize: a symbol starts with a letter or digit");
      break;
  }
}

void check_tokens(std::string_view text) {
  const std::vector<attn::text::Token> tokens = tokens_of(text);
  const bool valid = valid_utf8(text);
  std::size_t previous_end = 0, previous_utf16_end = 0;
  std::string joined;
  for (const attn::text::Token& token : tokens) {
    expect(token.begin >= previous_end && token.begin < token.end && token.end <= text.size(),
           "tokenize: token spans out of order, empty or outside the text");
    expect(token.utf16_begin >= previous_utf16_end && token.utf16_begin < token.utf16_end,
           "tokenize: UTF-16 spans out of order or empty");
    expect(token.utf16_end - token.utf16_begin <= token.end - token.begin,
           "tokenize: more UTF-16 units than bytes");
    expect(token.text == text.substr(token.begin, token.end - token.begin),
           "tokenize: token text is not its span");
    for (std::size_t i = previous_end; i < token.begin; ++i) {
      const unsigned char b = static_cast<unsigned char>(text[i]);
      expect(b >= 0x80 || is_ascii_space_or_control(b),
             "tokenize: a printable ASCII character was dropped");
    }
    expect(tokens_of(text.substr(previous_end, token.begin - previous_end)).empty(),
           "tokenize: a character that is not a separator was dropped");
    for (unsigned char b : token.text)
      expect(!is_ascii_space_or_control(b), "tokenize: whitespace or a control inside a token");
    check_kind(token);
    expect(same_tokens(tokens_of(token.text), {token}),
           "tokenize: a token tokenizes differently on its own");
    if (valid) {
      expect(token.utf16_begin == utf16_length(text, token.begin) &&
                 token.utf16_end == utf16_length(text, token.end),
             "tokenize: UTF-16 offsets differ from the text's in JavaScript");
    }
    previous_end = token.end;
    previous_utf16_end = token.utf16_end;
    joined += token.text;
    joined += ' ';
  }
  for (std::size_t i = previous_end; i < text.size(); ++i) {
    const unsigned char b = static_cast<unsigned char>(text[i]);
    expect(b >= 0x80 || is_ascii_space_or_control(b),
           "tokenize: a printable ASCII character was dropped at the end");
  }
  expect(tokens_of(text.substr(previous_end)).empty(),
         "tokenize: a character that is not a separator was dropped at the end");

  // Tokens are closed: separated by spaces, they come back as they were.
  const std::vector<attn::text::Token> again = tokens_of(joined);
  expect(same_tokens(again, tokens), "tokenize: the joined tokens split differently (" +
                                         std::to_string(again.size()) + " vs " +
                                         std::to_string(tokens.size()) + " tokens)");

  // A limit gives the first tokens, and says whether there were more.
  const std::size_t limit = text.empty() ? 0 : static_cast<unsigned char>(text[0]) % 8;
  const attn::text::Tokenized first = attn::text::tokenize(text, limit);
  const std::vector<attn::text::Token> expected(
      tokens.begin(), tokens.begin() + static_cast<std::ptrdiff_t>(std::min(limit, tokens.size())));
  expect(same_tokens(first.tokens, expected), "tokenize: a limit changed the first tokens");
  expect(first.truncated == (tokens.size() > limit), "tokenize: truncated is wrong");
}

void check_message(const std::string& message) {
  expect(!message.empty() && message.size() <= kMaxMessageBytes,
         "parse_vectors: message empty or too long");
  expect(valid_utf8(message), "parse_vectors: message is not valid UTF-8: " + message);
  for (unsigned char b : message)
    expect(b >= 0x20 && b != 0x7F, "parse_vectors: a control byte in the message");
  expect(message.rfind("line ", 0) == 0 || message.rfind("no numbers found", 0) == 0,
         "parse_vectors: the message names no line: " + message);
}

void check_table(std::string_view text) {
  attn::Matrix table;
  try {
    table = attn::text::parse_vectors(text);
  } catch (const attn::InvalidArgument& error) {
    check_message(error.what());
    return;
  }
  expect(table.shape(0) >= 1 && table.shape(1) >= 1, "parse_vectors: an empty table");
  std::string printed;
  char number[32];
  for (std::size_t i = 0; i < table.shape(0); ++i) {
    for (std::size_t j = 0; j < table.shape(1); ++j) {
      expect(std::isfinite(table(i, j)), "parse_vectors: a value is not finite");
      std::snprintf(number, sizeof number, j == 0 ? "%.9g" : ", %.9g",
                    static_cast<double>(table(i, j)));
      printed += number;
    }
    printed += '\n';
  }
  attn::Matrix again;
  try {
    again = attn::text::parse_vectors(printed);
  } catch (const attn::InvalidArgument& error) {
    broken(std::string("parse_vectors: its own table printed with %.9g does not read back: ") +
           error.what());
  }
  expect(again.shape() == table.shape(),
         "parse_vectors: the printed table reads back with another shape");
  expect(std::memcmp(again.data(), table.data(), table.size() * sizeof(float)) == 0,
         "parse_vectors: the printed table reads back with other bits");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* bytes, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(bytes), size);
  try {
    check_tokens(text.substr(0, attn::text::kMaxTokens));
    check_table(text);
  } catch (const std::exception& error) {
    broken(std::string("an exception escaped: ") + error.what());
  }
  return 0;
}
