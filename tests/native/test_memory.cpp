#include "attn/memory.hpp"
#include "helpers.hpp"

using Catch::Contains;

namespace {

attn::MemoryQuery query(long n, long m, long heads, long bytes, attn::Kernel kernel) {
  attn::MemoryQuery result;
  result.n = n;
  result.m = m;
  result.heads = heads;
  result.bytes_per_element = bytes;
  result.kernel = kernel;
  return result;
}

}  // namespace

TEST_CASE("attention memory: materialised is heads times n times m times bytes", "[memory]") {
  CHECK(attn::attention_memory(query(10, 20, 3, 4, attn::Kernel::materialized)) == 2400.0);
  CHECK(attn::attention_memory(query(7, 5, 1, 2, attn::Kernel::materialized)) == 70.0);
  // 32768 tokens, one head, fp16: 2 GiB.
  CHECK(attn::attention_memory(query(32768, 32768, 1, 2, attn::Kernel::materialized)) ==
        2.0 * (1 << 30));
}

TEST_CASE("attention memory: flash does not grow with n or m", "[memory]") {
  const double small = attn::attention_memory(query(16, 16, 2, 4, attn::Kernel::flash));
  CHECK(attn::attention_memory(query(1 << 20, 1 << 20, 2, 4, attn::Kernel::flash)) == small);
  CHECK(attn::attention_memory(query(16, 16, 4, 4, attn::Kernel::flash)) == 2 * small);
  CHECK(small < attn::attention_memory(query(1024, 1024, 2, 4, attn::Kernel::materialized)));
}

TEST_CASE("attention memory: invalid sizes name the argument", "[memory][errors]") {
  auto rejects = [](const attn::MemoryQuery& bad, const std::string& words) {
    INFO(words);
    REQUIRE_THROWS_AS(attn::attention_memory(bad), attn::InvalidArgument);
    REQUIRE_THROWS_WITH(attn::attention_memory(bad), Contains(words));
  };
  rejects(query(0, 4, 1, 4, attn::Kernel::materialized), "n must be");
  rejects(query(4, 0, 1, 4, attn::Kernel::materialized), "m must be");
  rejects(query(4, 4, 0, 4, attn::Kernel::flash), "heads must be");
  rejects(query(4, 4, 1, 0, attn::Kernel::materialized), "bytesPerElement");
}
