// attn/text/tokenizer.hpp: the tokenizer, on ordinary and hostile text.
#include <cstdlib>
#include <iterator>
#include <string>
#include <vector>

#include "attn/text/tokenizer.hpp"
#include "helpers.hpp"

using attn::text::kMaxTokens;
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

std::vector<std::string> words_of(const std::string& text) { return texts(tokenize(text)); }

}  // namespace

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
