// attn/text/vectors.hpp: the vector-table parser, on ordinary and hostile text.
#include <cstdlib>
#include <string>
#include <vector>

#include "attn/text/vectors.hpp"
#include "helpers.hpp"

using attn::text::parse_vectors;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

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
bool same(const attn::Matrix& a, const attn::Matrix& b) { return a.shape() == b.shape() && a == b; }

bool has_control_byte(const std::string& text) {
  for (unsigned char c : text) {
    if (c < 0x20 || c == 0x7F) return true;
  }
  return false;
}

}  // namespace

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
