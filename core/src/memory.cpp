#include "attn/memory.hpp"

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
  const double per_head =
      query.kernel == Kernel::flash
          // one tile of scores plus the running maximum and total of each of its rows
          ? static_cast<double>(kernels::kFlashTileRows) * (kernels::kFlashTileCols + 2)
          : static_cast<double>(query.n) * static_cast<double>(query.m);
  return static_cast<double>(query.heads) * per_head * static_cast<double>(query.bytes_per_element);
}

}  // namespace attn
