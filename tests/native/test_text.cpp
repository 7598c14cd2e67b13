// attn/text.hpp: the tokenizer and the vector-table parser, on ordinary and hostile text.
#include <cstdlib>
#include <iterator>
#include <string>
#include <vector>

#include "attn/text.hpp"
#include "helpers.hpp"

using attn::text::kMaxTextBytes;
using attn::text::kMaxTokens;
using attn::text::parse_vectors;
using attn::text::tokenize;
using attn::text::TokenKind;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

std::vector<std::string> texts(const std::vector<attn::text::Token>& tokens) {
  std::vector<std::string> result;
  for (const auto& token : tokens) result.push_back(token.text);
  return result;
}

std::vector<std::string> words_of(const std::string& text) {
  return texts(tokenize(text));
}

// The message parse_vectors throws for `text`, or "" when it does not throw.
std::string parse_error(const std::string& text) {
  try {
    parse_vectors(text);
  } catch (const attn::InvalidArgument& error) {
    return error.what();
  }
  return "";
}

// Same shape and the same values (Catch cannot decompose an xtensor comparison).
bool same(const attn::Matrix& a, const attn::Matrix& b) {
  return a.shape() == b.shape() && a == b;
}

bool has_control_byte(const std::string& text) {
  for (unsigned char c : text) {
    if (c < 0x20 || c == 0x7F) return true;
  }
  return false;
}

}  // namespace

// ---- tokenize ------------------------------------------------------------------------------

TEST_CASE("tokenize: words and single punctuation marks, with byte and UTF-16 offsets", "[text]") {
  const auto tokens = tokenize("Your journey starts, with one step.");
  CHECK(texts(tokens) ==
        std::vector<std::string>{"Your", "journey", "starts", ",", "with", "one", "step", "."});
  CHECK(tokens[2].begin == 13);
  CHECK(tokens[2].end == 19);
  CHECK(tokens[3].begin == 19);
  CHECK(tokens[3].kind == TokenKind::symbol);
  CHECK(tokens[2].kind == TokenKind::word);
  for (const auto& token : tokens) {
    CHECK(token.utf16_begin == token.begin);  // ASCII: one unit per byte
    CHECK(token.utf16_end == token.end);
  }
  CHECK(words_of("GPT4 has 175B parameters...") ==
        std::vector<std::string>{"GPT4", "has", "175B", "parameters", ".", ".", "."});
}

TEST_CASE("tokenize: clitics split off as GloVe has them: n't, 's, 're, 've, 'll, 'd, 'm",
          "[text]") {
  CHECK(words_of("don't can't won't isn't") ==
        std::vector<std::string>{"do", "n't", "ca", "n't", "wo", "n't", "is", "n't"});
  CHECK(words_of("it's they're we've I'll she'd I'm") ==
        std::vector<std::string>{"it", "'s", "they", "'re", "we", "'ve", "I", "'ll", "she", "'d",
                                 "I", "'m"});
  // The typographic apostrophe U+2019 and capitals split the same way.
  CHECK(words_of("don’t it’s DON'T It'S WE'Ll") ==
        std::vector<std::string>{"do", "n’t", "it", "’s", "DO", "N'T", "It", "'S", "WE", "'Ll"});
  const auto tokens = tokenize("don't it's");
  CHECK(tokens[0].kind == TokenKind::word);
  CHECK(tokens[1].kind == TokenKind::clitic);
  CHECK(tokens[3].kind == TokenKind::clitic);
  CHECK(tokens[1].begin == 2);
  CHECK(tokens[1].end == 5);
  CHECK(tokens[3].begin == 8);
  CHECK(tokens[3].end == 10);
}

TEST_CASE("tokenize: a clitic is a token only when its word ends after it", "[text]") {
  // A word character after it: no clitic, and the apostrophe stays inside the word.
  CHECK(words_of("don'tcha it'sa we'llx") ==
        std::vector<std::string>{"don'tcha", "it'sa", "we'llx"});
  // Punctuation, another clitic, a hyphen or the end of the text after it: a clitic.
  CHECK(words_of("it's. can't've we'll've don't-know rock'n't") ==
        std::vector<std::string>{"it", "'s", ".", "ca", "n't", "'ve", "we", "'ll", "'ve", "do",
                                 "n't", "-", "know", "rock", "'", "n't"});
  // A clitic with nothing before it is one all the same; other apostrophe words are not.
  CHECK(words_of("'s n't 're 'tis 'S") ==
        std::vector<std::string>{"'s", "n't", "'re", "'", "tis", "'S"});
  CHECK(words_of("dogs 's, U.S.'s nn't") ==
        std::vector<std::string>{"dogs", "'s", ",", "U", ".", "S", ".", "'s", "n", "n't"});
  // Where n't starts, a word would end: the clitic before it splits off too, so that no word
  // holds what would split off when it stands alone.
  CHECK(words_of("it'sn't xn'tn't it'sn'tx") ==
        std::vector<std::string>{"it", "'s", "n't", "x", "n't", "n't", "it", "'s", "n'tx"});
  // A combining mark after the letters continues the word: "s" + U+0301 is no clitic.
  CHECK(words_of("it's\xCC\x81") == std::vector<std::string>{"it's\xCC\x81"});
}

TEST_CASE("tokenize: a hyphen-minus between two word characters joins them", "[text]") {
  CHECK(words_of("state-of-the-art covid-19 x-ray's naïve-café 日本-語") ==
        std::vector<std::string>{"state-of-the-art", "covid-19", "x-ray", "'s", "naïve-café",
                                 "日本-語"});
  CHECK(words_of("-5 a--b well- -well well-don't") ==
        std::vector<std::string>{"-", "5", "a", "-", "-", "b", "well", "-", "-", "well", "well-do",
                                 "n't"});
  // Only the ASCII hyphen-minus: U+2010 HYPHEN, U+2011 and dashes are symbols.
  CHECK(words_of("a\u2010b a\u2011b a\u2014b") ==
        std::vector<std::string>{"a", "\u2010", "b", "a", "\u2011", "b", "a", "\u2014", "b"});
}

TEST_CASE("tokenize: an apostrophe that starts no clitic stays inside its word", "[text]") {
  CHECK(words_of("o'clock l’homme rock'n'roll y'all O'Neill") ==
        std::vector<std::string>{"o'clock", "l’homme", "rock'n'roll", "y'all", "O'Neill"});
  // With no word character after it, it is a symbol.
  CHECK(words_of("rock 'n' roll '90s dogs' o''clock 'quoted'") ==
        std::vector<std::string>{"rock", "'", "n", "'", "roll", "'", "90s", "dogs", "'", "o", "'",
                                 "'", "clock", "'", "quoted", "'"});
}

TEST_CASE("tokenize: UTF-16 offsets around clitics, curly apostrophes and emoji", "[text]") {
  // 😀 is 4 bytes and 2 UTF-16 units; ’ is 3 bytes and 1 unit.
  const auto tokens = tokenize("😀don’t l’homme");
  REQUIRE(texts(tokens) == std::vector<std::string>{"😀", "do", "n’t", "l’homme"});
  const std::size_t utf16[][2] = {{0, 2}, {2, 4}, {4, 7}, {8, 15}};
  const std::size_t bytes[][2] = {{0, 4}, {4, 6}, {6, 11}, {12, 21}};
  for (std::size_t t = 0; t < tokens.size(); ++t) {
    CHECK(tokens[t].utf16_begin == utf16[t][0]);
    CHECK(tokens[t].utf16_end == utf16[t][1]);
    CHECK(tokens[t].begin == bytes[t][0]);
    CHECK(tokens[t].end == bytes[t][1]);
  }
}

TEST_CASE("tokenize: markup, entities and script tags are plain tokens, nothing is interpreted",
          "[text]") {
  CHECK(words_of("<script>alert('x')</script>") ==
        std::vector<std::string>{"<", "script", ">", "alert", "(", "'", "x", "'", ")", "<", "/",
                                 "script", ">"});
  CHECK(words_of("<img src=x onerror=\"alert(1)\">") ==
        std::vector<std::string>{"<", "img", "src", "=", "x", "onerror", "=", "\"", "alert", "(",
                                 "1", ")", "\"", ">"});
  CHECK(words_of("&lt;b&gt; ${x} {{y}}") == std::vector<std::string>{"&", "lt", ";", "b", "&", "gt",
                                                                     ";", "$", "{", "x", "}", "{",
                                                                     "{", "y", "}", "}"});
}

TEST_CASE("tokenize: letters of any script are words; CJK runs are one word", "[text]") {
  const auto tokens = tokenize("café naïve Ελλάδα Москва 日本語です。");
  CHECK(texts(tokens) ==
        std::vector<std::string>{"café", "naïve", "Ελλάδα", "Москва", "日本語です", "。"});
  // "café" is 5 bytes and 4 UTF-16 units.
  CHECK(tokens[0].end == 5);
  CHECK(tokens[0].utf16_end == 4);
  CHECK(tokens[5].kind == TokenKind::symbol);
  // A combining accent stays with its letter: e + U+0301.
  CHECK(words_of("e\xCC\x81te") == std::vector<std::string>{"e\xCC\x81te"});
}

TEST_CASE("tokenize: right-to-left text; bidi controls separate tokens and are dropped", "[text]") {
  CHECK(words_of("שלום עולם! مرحبا بالعالم؟") ==
        std::vector<std::string>{"שלום", "עולם", "!", "مرحبا", "بالعالم", "؟"});
  // U+202E RIGHT-TO-LEFT OVERRIDE and U+2066..2069 isolates never reach a token.
  const auto tokens = tokenize("abc\u202Edcba\u202C x\u2067y\u2069");
  CHECK(texts(tokens) == std::vector<std::string>{"abc", "dcba", "x", "y"});
  CHECK(tokens[1].utf16_begin == 4);  // a, b, c, U+202E
  // The Persian zero-width non-joiner stays inside its word.
  CHECK(words_of("می\u200Cخواهم") == std::vector<std::string>{"می\u200Cخواهم"});
}

TEST_CASE("tokenize: an emoji sequence, a flag or a keycap is one token", "[text]") {
  const auto tokens = tokenize(
      "👩‍💻 🇫🇷🇩🇪 👍🏽 ❤️‍🔥 #️⃣ 🏴󠁧󠁢󠁥󠁮󠁧󠁿 "
      "😀😀");
  CHECK(texts(tokens) == std::vector<std::string>{"👩‍💻", "🇫🇷", "🇩🇪", "👍🏽",
                                                  "❤️‍🔥", "#️⃣",
                                                  "🏴󠁧󠁢󠁥󠁮󠁧󠁿", "😀", "😀"});
  // 👩‍💻 is U+1F469 U+200D U+1F4BB: 11 bytes, 5 UTF-16 units.
  CHECK(tokens[0].end - tokens[0].begin == 11);
  CHECK(tokens[0].utf16_end - tokens[0].utf16_begin == 5);
  for (const auto& token : tokens) CHECK(token.kind == TokenKind::symbol);
}

TEST_CASE("tokenize: control characters and invisible format characters separate tokens",
          "[text]") {
  const std::string text = std::string("a\0b", 3) +
                           "\x07"
                           "c\x1B"
                           "d\x7F"
                           "e\xC2\x85"
                           "f\r\ng\vh\fi\tj\xEF\xBB\xBF"
                           "k\xE2\x80\x8B"
                           "l";
  CHECK(words_of(text) ==
        std::vector<std::string>{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"});
  CHECK(tokenize(" \t\r\n\u00A0\u3000\u2028").empty());
}

TEST_CASE("tokenize: each invalid UTF-8 sequence is one symbol of one UTF-16 unit", "[text]") {
  // A stray continuation byte, a truncated sequence (one maximal subpart), an overlong '/',
  // an encoded surrogate, a code point past U+10FFFF.
  const std::string text =
      "a\x80"
      "b \xE2\x82 \xC0\xAF \xED\xA0\x80 \xF4\x90\x80\x80 z";
  const auto tokens = tokenize(text);
  CHECK(texts(tokens) == std::vector<std::string>{"a", "\x80", "b", "\xE2\x82", "\xC0", "\xAF",
                                                  "\xED", "\xA0", "\x80", "\xF4", "\x90", "\x80",
                                                  "\x80", "z"});
  CHECK(tokens[1].kind == TokenKind::symbol);
  // As TextDecoder sees it: a U+FFFD b space U+FFFD space ... each replacement one unit.
  CHECK(tokens[2].utf16_begin == 2);
  CHECK(tokens[3].utf16_begin == 4);
  CHECK(tokens[3].utf16_end == 5);
  CHECK(tokens.back().utf16_begin == 18);
}

TEST_CASE("tokenize: at most kMaxTokens tokens; one more is an error naming the limit", "[text]") {
  std::string text;
  for (std::size_t i = 0; i < kMaxTokens; ++i) text += "w ";
  CHECK(tokenize(text).size() == kMaxTokens);
  text += "!";
  REQUIRE_THROWS_AS(tokenize(text), attn::InvalidArgument);
  REQUIRE_THROWS_WITH(tokenize(text),
                      Contains("more than 16384 tokens") && Contains("UTF-16 offset 32768"));
}

TEST_CASE("tokenize: 5 MB pastes: spaces, one long word, and too many tokens", "[text]") {
  const std::size_t five_megabytes = 5 << 20;
  CHECK(tokenize(std::string(five_megabytes, ' ')).empty());
  const auto word = tokenize(std::string(five_megabytes, 'a'));
  REQUIRE(word.size() == 1);
  CHECK(word[0].end == five_megabytes);
  std::string sentences;
  while (sentences.size() < five_megabytes) sentences += "The cat sat on the mat. ";
  REQUIRE_THROWS_WITH(tokenize(sentences), Contains("more than 16384 tokens"));
}

TEST_CASE("tokenize with a limit: the first tokens, and whether more follow", "[text]") {
  const auto first = tokenize("Don't stop, it's fine.", 3);
  CHECK(texts(first.tokens) == std::vector<std::string>{"Do", "n't", "stop"});
  CHECK(first.truncated);
  const auto all = tokenize("Don't stop, it's fine.", 8);
  CHECK(texts(all.tokens) == texts(tokenize("Don't stop, it's fine.")));
  CHECK_FALSE(all.truncated);
  // Separators after the last token are not more tokens.
  CHECK_FALSE(tokenize("a b \t\u200B ", 2).truncated);
  CHECK(tokenize("a b \t\u200B c", 2).truncated);
  CHECK(tokenize("", 0).tokens.empty());
  CHECK_FALSE(tokenize("", 0).truncated);
  CHECK(tokenize(" x", 0).truncated);
  REQUIRE_THROWS_WITH(tokenize("x", kMaxTokens + 1),
                      "limit is 16385 tokens, more than the 16384 one call returns");
}

TEST_CASE("tokenize with a limit: a 5 MB paste is cut at the limit, not refused", "[text]") {
  std::string sentences;
  while (sentences.size() < (5u << 20)) sentences += "The cat didn't sit. ";
  const auto cut = tokenize(sentences, 8192);
  REQUIRE(cut.tokens.size() == 8192);
  CHECK(cut.truncated);
  // Six tokens in 20 bytes a sentence: token 8191 is the 2nd of sentence 1365 (from 0).
  CHECK(cut.tokens.back().text == "cat");
  CHECK(cut.tokens.back().begin == 1365 * 20 + 4);
  CHECK(cut.tokens.back().utf16_end == 1365 * 20 + 7);
  CHECK(tokenize(sentences, kMaxTokens).tokens.size() == kMaxTokens);
}

TEST_CASE("tokenize and parse_vectors: text past kMaxTextBytes is refused with its size",
          "[text]") {
  const std::string huge(kMaxTextBytes + 1, ' ');
  REQUIRE_THROWS_WITH(tokenize(huge), Contains("16777217 bytes") && Contains("16777216"));
  REQUIRE_THROWS_WITH(parse_vectors(huge), Contains("16777217 bytes"));
}

// ---- parse_vectors -------------------------------------------------------------------------

TEST_CASE("parse_vectors: spaces, commas and tabs between numbers; one row per line", "[text]") {
  const attn::Matrix table = parse_vectors("0.43 0.15 0.89\n0.55,0.87,0.66\n0.57\t0.85 ,\t0.64\n");
  const attn::Matrix expected = {
      {0.43f, 0.15f, 0.89f}, {0.55f, 0.87f, 0.66f}, {0.57f, 0.85f, 0.64f}};
  CHECK(same(table, expected));
}

TEST_CASE(
    "parse_vectors: NumPy and PyTorch prints, comments, CRLF, a BOM, Unicode minus and spaces",
    "[text]") {
  CHECK(same(parse_vectors("[[ 0.4300,  0.1500],\n [ 0.5500,  0.8700]]\n"),
             attn::Matrix{{0.43f, 0.15f}, {0.55f, 0.87f}}));
  CHECK(same(parse_vectors("[\n  [1, 2,],\n  [3, 4],\n]\n"), attn::Matrix{{1, 2}, {3, 4}}));
  CHECK(same(parse_vectors("# x y\r\n1 2 # first\r\n\r\n3 4\r5 6"),
             attn::Matrix{{1, 2}, {3, 4}, {5, 6}}));
  CHECK(same(parse_vectors("\xEF\xBB\xBF"
                           "1\u00A02\n\u22123 +4"),
             attn::Matrix{{1, 2}, {-3, 4}}));
}

TEST_CASE("parse_vectors: decimal forms, read to the nearest float32", "[text]") {
  const attn::Matrix table = parse_vectors("1 -0.5 .25 3. 6.02e23 -1E-3 1e-45 3.4028235e38 0.1 -0");
  const float expected[] = {1.0f,   -0.5f,  0.25f,         3.0f, 6.02e23f,
                            -1e-3f, 1e-45f, 3.4028235e38f, 0.1f, -0.0f};
  REQUIRE(table.size() == std::size(expected));
  for (std::size_t j = 0; j < table.size(); ++j) CHECK(table(0, j) == expected[j]);
  CHECK(std::signbit(table(0, 9)));
}

TEST_CASE("parse_vectors: errors name the line, the column and what was found", "[text]") {
  CHECK(parse_error("1 2 3\n4 five 6") == "line 2, column 3: expected a number, found 'five'");
  CHECK(parse_error("1 2 3\n4 5\n") ==
        "line 2 has 2 numbers but line 1 has 3; every row needs the same count");
  CHECK(parse_error("# header\n\n1 2\n3") ==
        "line 4 has 1 number but line 3 has 2; every row needs the same count");
  CHECK(parse_error("1,,2") == "line 1, column 3: expected a number, found ','");
  CHECK(parse_error(",1") == "line 1, column 1: expected a number, found ','");
  CHECK(parse_error("1 [2") ==
        "line 1, column 3: expected a comma, a space, ']' or the end of the line, found '['");
  CHECK(parse_error("[1 2] x") ==
        "line 1, column 7: expected the end of the line after ']', found 'x'");
  CHECK(parse_error("1 NaN") == "line 1, column 3: expected a finite number, found 'NaN'");
  CHECK(parse_error("-Infinity 1") ==
        "line 1, column 1: expected a finite number, found '-Infinity'");
  CHECK(
      parse_error("1 1e39") ==
      "line 1, column 3: expected a number within float32's range (±3.4028235e+38), found '1e39'");
  CHECK(parse_error("0x10") == "line 1, column 1: expected a number, found '0x10'");
  CHECK(parse_error("1-2 3") == "line 1, column 1: expected a number, found '1-2'");
  CHECK(parse_error("1e 3") == "line 1, column 1: expected a number, found '1e'");
  CHECK(parse_error("") ==
        "no numbers found: paste one row of numbers per line, separated by spaces, commas or tabs");
  CHECK(parse_error("# only a comment\n[ ]\n") == parse_error(""));
}

TEST_CASE("parse_vectors: columns count characters, not bytes", "[text]") {
  CHECK(parse_error("é 1 x") == "line 1, column 1: expected a number, found 'é'");
  CHECK(parse_error("1 日本 2") == "line 1, column 3: expected a number, found '日本'");
  CHECK(parse_error("\u22121 \u22122 😀") == "line 1, column 7: expected a number, found '😀'");
}

TEST_CASE("parse_vectors: hostile text is named, never echoed raw", "[text]") {
  SECTION("control characters by their code point") {
    CHECK(parse_error("1 2 \x07") ==
          "line 1, column 5: expected a number, found the control character U+0007");
    CHECK(parse_error(std::string("1 \0 2", 5)) ==
          "line 1, column 3: expected a number, found the control character U+0000");
  }
  SECTION("a bidi override by its code point") {
    CHECK(parse_error("1 \u202E2") ==
          "line 1, column 3: expected a number, found the invisible character U+202E");
  }
  SECTION("invalid UTF-8 by its byte") {
    CHECK(parse_error("1 \xFF") ==
          "line 1, column 3: expected a number, found the byte 0xFF, which is not valid UTF-8");
  }
  SECTION("markup quoted as text, and cut after 24 characters") {
    CHECK(parse_error("<script>alert(1)</script>") ==
          "line 1, column 1: expected a number, found '<script>alert(1)</script…'");
    CHECK(parse_error("1 ab\x07"
                      "cd") == "line 1, column 3: expected a number, found 'ab…'");
  }
  for (const std::string text :
       {"1 2 \x07", "<b>\x1B[31m", "1 \u202E2", "1 \xE2\x82", "x\xFF\xFE"}) {
    const std::string message = parse_error(text);
    CHECK_FALSE(message.empty());
    CHECK_FALSE(has_control_byte(message));
  }
}

TEST_CASE("parse_vectors: a 5 MB table", "[text]") {
  std::string text;
  const std::string row = "0.125, -2.5, 3e-2, 4, 5.5, -6.75, 7, 8\n";
  while (text.size() < (5u << 20)) text += row;
  const attn::Matrix table = parse_vectors(text);
  CHECK(table.shape(0) == text.size() / row.size());
  CHECK(table.shape(1) == 8);
  CHECK(table(table.shape(0) - 1, 5) == -6.75f);
  text += "1 2\n";
  REQUIRE_THROWS_WITH(parse_vectors(text),
                      StartsWith("line " + std::to_string(table.shape(0) + 1) + " has 2 numbers"));
}
