#include <regex>
#include <string>

#include "attn/version.hpp"
#include "helpers.hpp"

TEST_CASE("version: is the project version, major.minor.patch", "[version]") {
  const std::string version = attn::version();
  CHECK(std::regex_match(version, std::regex(R"(\d+\.\d+\.\d+)")));
  CHECK(version == ATTN_PROJECT_VERSION);
}
