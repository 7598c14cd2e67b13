// attn/text/limits.hpp: how much text the tokenizer and the vector-table parser read.
#include <string>

#include "attn/text/tokenizer.hpp"
#include "attn/text/vectors.hpp"
#include "helpers.hpp"

using attn::text::kMaxTextBytes;
using attn::text::parse_vectors;
using attn::text::tokenize;
using Catch::Matchers::Contains;

TEST_CASE("tokenize and parse_vectors: text past kMaxTextBytes is refused with its size",
          "[text]") {
  const std::string huge(kMaxTextBytes + 1, ' ');
  REQUIRE_THROWS_WITH(tokenize(huge), Contains("16777217 bytes") && Contains("16777216"));
  REQUIRE_THROWS_WITH(parse_vectors(huge), Contains("16777217 bytes"));
}
