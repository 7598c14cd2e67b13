// How many bytes the score matrices of one attention call need.
#pragma once

#include <array>

#include "attn/attention.hpp"

namespace attn {

// The kernels whose memory is estimated (Kernel::automatic picks one of them per call).
inline constexpr std::array<Kernel, 2> kMemoryKernels{Kernel::materialized, Kernel::flash};

struct MemoryQuery {
  long n = 0;
  long m = 0;
  long heads = 1;
  long bytes_per_element = 4;
  Kernel kernel = Kernel::materialized;  // one of kMemoryKernels
};

// Materialised: heads·n·m·bytes_per_element (one n×m matrix per head).
// Flash: heads · (tile of scores + running max and sum per query row) · bytes_per_element,
// the working set of the tiled kernel, which does not grow with n·m.
double attention_memory(const MemoryQuery& query);

}  // namespace attn
