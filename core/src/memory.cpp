#include "attn/memory.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "attn/errors.hpp"
#include "attn/kernels.hpp"

namespace attn {

double attention_memory(const MemoryQuery& query) {
  if (query.n < 1) fail("n must be a whole number ≥ 1, got " + std::to_string(query.n));
  if (query.m < 1) fail("m must be a whole number ≥ 1, got " + std::to_string(query.m));
  if (query.heads < 1) fail("heads must be a whole number ≥ 1, got " + std::to_string(query.heads));
  require_one_of(query.kernel, kMemoryKernels);
  if (query.bytes_per_element < 1) {
    fail("bytesPerElement must be a whole number ≥ 1, got " +
         std::to_string(query.bytes_per_element));
  }
  // Flash: the tile of scores it works in, plus the running maximum and total of each of the
  // tile's rows; a call with fewer queries or keys than a tile has uses that much of it.
  const double tile_rows = static_cast<double>(std::min(query.n, kernels::kFlashTileRows));
  const double tile_cols = static_cast<double>(std::min(query.m, kernels::kFlashTileCols));
  const double per_head = query.kernel == Kernel::flash
                              ? tile_rows * (tile_cols + 2)
                              : static_cast<double>(query.n) * static_cast<double>(query.m);
  return static_cast<double>(query.heads) * per_head * static_cast<double>(query.bytes_per_element);
}

namespace {

// Throws unless `value` is a whole number from `min` to 2^53: "layers must be a whole number
// from 1 to 2^53, got 2.5".
void require_whole(const char* name, double value, double min) {
  if (!(value >= min && value <= kMaxExactInteger && std::floor(value) == value)) {
    fail(std::string(name) + " must be a whole number from " + format_number(min) +
         " to 2^53, got " + format_number(value));
  }
}

}  // namespace

double kv_cache_memory(const KvCacheQuery& query) {
  require_whole("tokens", query.tokens, 0);
  require_whole("layers", query.layers, 1);
  require_whole("kvHeads", query.kv_heads, 1);
  require_whole("headWidth", query.head_width, 1);
  require_whole("bytesPerElement", query.bytes_per_element, 1);
  require_whole("window", query.window, 0);
  const double cached = query.window > 0 ? std::min(query.tokens, query.window) : query.tokens;
  // Each factor is a whole number, so each product is exact while it stays within 2^53; the
  // check before each multiplication keeps it there.
  const double factors[] = {query.layers, query.kv_heads, query.head_width, query.bytes_per_element,
                            cached};
  double bytes = 2;
  for (double factor : factors) {
    if (factor != 0 && bytes > kMaxExactInteger / factor) {
      fail("the key/value cache of " + format_number(query.tokens) + " tokens, " +
           format_number(query.layers) + " layers, " + format_number(query.kv_heads) +
           " kvHeads of width " + format_number(query.head_width) + " at " +
           format_number(query.bytes_per_element) +
           " bytes per element is more than 2^53 bytes, beyond what a JavaScript number holds "
           "exactly");
    }
    bytes *= factor;
  }
  return bytes;
}

}  // namespace attn
