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

TEST_CASE("attention memory: flash does not grow with n or m beyond one tile", "[memory]") {
  // a tile of 16 query rows × 512 keys, and two numbers per row, for each head
  const double tile = attn::attention_memory(query(16, 512, 2, 4, attn::Kernel::flash));
  CHECK(tile == 2 * 16 * (512 + 2) * 4);
  CHECK(attn::attention_memory(query(1 << 20, 1 << 20, 2, 4, attn::Kernel::flash)) == tile);
  CHECK(attn::attention_memory(query(16, 512, 4, 4, attn::Kernel::flash)) == 2 * tile);
  CHECK(tile < attn::attention_memory(query(1024, 1024, 2, 4, attn::Kernel::materialized)));
}

TEST_CASE("attention memory: flash on fewer queries or keys than a tile uses that much of it",
          "[memory]") {
  // 11 tokens, 4 heads: 11 rows of 11 scores and two numbers each, where materialised keeps 11²
  CHECK(attn::attention_memory(query(11, 11, 4, 4, attn::Kernel::flash)) == 4 * 11 * (11 + 2) * 4);
  CHECK(attn::attention_memory(query(11, 11, 4, 4, attn::Kernel::materialized)) == 4 * 11 * 11 * 4);
  // fewer rows than a tile, more keys; more rows, fewer keys
  CHECK(attn::attention_memory(query(3, 5000, 1, 2, attn::Kernel::flash)) == 3 * (512 + 2) * 2);
  CHECK(attn::attention_memory(query(5000, 40, 1, 2, attn::Kernel::flash)) == 16 * (40 + 2) * 2);
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

namespace {

attn::KvCacheQuery cache(double tokens, double layers, double kv_heads, double head_width,
                         double window = 0) {
  attn::KvCacheQuery result;
  result.tokens = tokens;
  result.layers = layers;
  result.kv_heads = kv_heads;
  result.head_width = head_width;
  result.window = window;
  return result;
}

constexpr double kMiB = 1024.0 * 1024.0, kGiB = 1024.0 * kMiB;

}  // namespace

TEST_CASE("kv cache memory: published configurations in fp16", "[memory][kv_cache]") {
  // Llama 2 7B: 32 layers × 32 kv heads × 128 × 2 bytes × (k and v) = 524,288 bytes a token.
  CHECK(attn::kv_cache_memory(cache(1, 32, 32, 128)) == 524288.0);
  CHECK(attn::kv_cache_memory(cache(1, 32, 32, 128)) == 0.5 * kMiB);
  CHECK(attn::kv_cache_memory(cache(4096, 32, 32, 128)) == 2 * kGiB);
  // Llama 3 8B has 8 kv heads: a quarter, 128 KiB a token, 16 GiB at 128K tokens.
  CHECK(attn::kv_cache_memory(cache(1, 32, 8, 128)) == 131072.0);
  CHECK(attn::kv_cache_memory(cache(131072, 32, 8, 128)) == 16 * kGiB);
  // GPT-2 small: 12 layers × 12 heads × 64: 36 KiB a token, 144 MiB at 4K tokens.
  CHECK(attn::kv_cache_memory(cache(1, 12, 12, 64)) == 36864.0);
  CHECK(attn::kv_cache_memory(cache(4096, 12, 12, 64)) == 144 * kMiB);
  // Mistral 7B keeps a 4,096-token window: 512 MiB however long the text.
  CHECK(attn::kv_cache_memory(cache(4096, 32, 8, 128, 4096)) == 512 * kMiB);
  CHECK(attn::kv_cache_memory(cache(131072, 32, 8, 128, 4096)) == 512 * kMiB);
  CHECK(attn::kv_cache_memory(cache(100, 32, 8, 128, 4096)) == 100 * 131072.0);
  CHECK(attn::kv_cache_memory(cache(0, 32, 8, 128)) == 0.0);
  attn::KvCacheQuery fp32 = cache(10, 2, 3, 4);
  fp32.bytes_per_element = 4;
  CHECK(attn::kv_cache_memory(fp32) == 2.0 * 2 * 3 * 4 * 4 * 10);
}

TEST_CASE("kv cache memory: exact up to 2^53 bytes, an error beyond", "[memory][kv_cache]") {
  // 2 · 2^20 layers · 2^20 heads · 2^5 · 2 bytes · 2^6 tokens = 2^53 exactly.
  CHECK(attn::kv_cache_memory(cache(64, 1 << 20, 1 << 20, 32)) == attn::kMaxExactInteger);
  // One more token: past 2^53, where doubles skip whole numbers.
  REQUIRE_THROWS_WITH(attn::kv_cache_memory(cache(65, 1 << 20, 1 << 20, 32)),
                      Contains("more than 2^53 bytes"));
  // A product of odd factors just below 2^53 stays exact: 2 · 3 tokens · (2^50 − 1) wide.
  attn::KvCacheQuery odd = cache(3, 1, 1, 1);
  odd.bytes_per_element = 1;
  odd.head_width = std::ldexp(1.0, 50) - 1;
  CHECK(attn::kv_cache_memory(odd) == 6 * (std::ldexp(1.0, 50) - 1));
}

TEST_CASE("kv cache memory: invalid sizes name the field, the range and the value",
          "[memory][kv_cache][errors]") {
  auto rejects = [](const attn::KvCacheQuery& bad, const std::string& words) {
    INFO(words);
    REQUIRE_THROWS_AS(attn::kv_cache_memory(bad), attn::InvalidArgument);
    REQUIRE_THROWS_WITH(attn::kv_cache_memory(bad), Contains(words));
  };
  rejects(cache(-1, 32, 8, 128), "tokens must be a whole number from 0 to 2^53, got -1");
  rejects(cache(10.5, 32, 8, 128), "tokens must be a whole number from 0 to 2^53, got 10.5");
  rejects(cache(10, 0, 8, 128), "layers must be a whole number from 1 to 2^53, got 0");
  rejects(cache(10, 32, NAN, 128), "kvHeads must be a whole number from 1 to 2^53, got NaN");
  rejects(cache(10, 32, 8, INFINITY),
          "headWidth must be a whole number from 1 to 2^53, got Infinity");
  rejects(cache(10, 32, 8, 128, -4), "window must be a whole number from 0 to 2^53, got -4");
  rejects(cache(1e300, 32, 8, 128), "tokens must be a whole number from 0 to 2^53, got 1e+300");
  attn::KvCacheQuery half_byte = cache(10, 32, 8, 128);
  half_byte.bytes_per_element = 0.5;
  rejects(half_byte, "bytesPerElement must be a whole number from 1 to 2^53, got 0.5");
}
