// attn/names.hpp: each option's names, read in both directions, and the errors of names a
// table does not hold.
#include <string>

#include "attn/attention.hpp"
#include "attn/lab/needle.hpp"
#include "attn/lab/rollout.hpp"
#include "attn/memory.hpp"
#include "attn/names.hpp"
#include "attn/normalization.hpp"
#include "attn/positional.hpp"
#include "helpers.hpp"

using Catch::Contains;

namespace {

// Every value of the option named `table` parses back from its name, and no two share one.
template <class Enum, std::size_t N>
void round_trip(const attn::OptionNames<Enum, N>& table) {
  for (const auto& named : table.values) {
    INFO(table.option << ": " << named.name);
    CHECK(std::string(attn::to_string(named.value)) == named.name);
    CHECK(attn::parse<Enum>(named.name) == named.value);
    for (const auto& other : table.values) {
      if (&other != &named) CHECK(std::string(other.name) != named.name);
    }
  }
}

}  // namespace

TEST_CASE("names: every value of every option parses back from its name", "[names]") {
  round_trip(attn::kNormalizationNames);
  round_trip(attn::kKernelNames);
  round_trip(attn::kPositionalTypeNames);
  round_trip(attn::kRopePairingNames);
  round_trip(attn::lab::kRolloutStartNames);
  round_trip(attn::lab::kNeedleMetricNames);
  round_trip(attn::lab::kMitigationNames);
}

TEST_CASE("names: an unknown name is an error naming the option, its names and the name given",
          "[names][errors]") {
  REQUIRE_THROWS_AS(attn::parse<attn::Normalization>("softmx"), attn::InvalidArgument);
  REQUIRE_THROWS_WITH(
      attn::parse<attn::Normalization>("softmx"),
      "normalization must be one of 'softmax', 'naive-softmax', 'sum', got 'softmx'");
  REQUIRE_THROWS_WITH(
      attn::parse<attn::lab::Mitigation::Type>(""),
      Contains("mitigation.type must be one of 'none', 'query-aware'") && Contains("got ''"));
  // Names are matched exactly: no other case, no spaces.
  REQUIRE_THROWS_WITH(attn::parse<attn::Kernel>("Flash"), Contains("got 'Flash'"));
  REQUIRE_THROWS_WITH(attn::parse<attn::Kernel>(" flash"), Contains("got ' flash'"));
}

TEST_CASE("names: a call that takes some values refuses the others in the same words",
          "[names][errors]") {
  CHECK(attn::parse<attn::PositionalType>("rope", attn::lab::kDistanceBiasTypes) ==
        attn::PositionalType::rope);
  REQUIRE_THROWS_WITH(
      attn::parse<attn::PositionalType>("sinusoidal", attn::lab::kDistanceBiasTypes),
      "positional.type must be one of 'none', 'alibi', 'rope', got 'sinusoidal'");
  REQUIRE_THROWS_WITH(attn::require_one_of(attn::Kernel::automatic, attn::kMemoryKernels),
                      "kernel must be one of 'materialized', 'flash', got 'auto'");
  REQUIRE_THROWS_WITH(
      attn::require_one_of(attn::PositionalType::rope,
                           {attn::PositionalType::none, attn::PositionalType::alibi}, "the reason"),
      "positional.type must be one of 'none', 'alibi', got 'rope' (the reason)");
  CHECK_NOTHROW(attn::require_one_of(attn::Kernel::flash, attn::kMemoryKernels));
}

TEST_CASE("names: a name given is quoted with every byte but printable ASCII escaped, and cut",
          "[names][errors]") {
  REQUIRE_THROWS_WITH(attn::parse<attn::Kernel>("fl\nash\xE2\x80\xAE"),
                      Contains("got 'fl\\x0Aash\\xE2\\x80\\xAE'"));
  const std::string long_name(100, 'x');
  REQUIRE_THROWS_WITH(attn::parse<attn::Kernel>(long_name),
                      Contains("got '" + std::string(40, 'x') + "…'"));
}
