// How many bytes the score matrices of one attention call need, and how many a decoder's
// key/value cache holds.
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

struct KvCacheQuery {
  double tokens = 0;             // tokens seen so far (prompt and generated)
  double layers = 0;             // decoder layers, each with its own cache
  double kv_heads = 0;           // key/value heads per layer (the query heads when not grouped)
  double head_width = 0;         // dh, the columns of one key (or value) head
  double bytes_per_element = 2;  // fp16 / bf16
  double window = 0;             // > 0: a sliding window keeps only the last `window` tokens
};

// The largest whole number a double (and a JavaScript number) holds exactly.
constexpr double kMaxExactInteger = 9007199254740992.0;  // 2^53

// Bytes of a decoder's key/value cache after `tokens` tokens: a key and a value per token,
// layer and key/value head, each head_width elements: 2 · layers · kv_heads · head_width ·
// bytes_per_element · min(tokens, window) (every token when window is 0). Each field must be
// a whole number (tokens and window ≥ 0, the others ≥ 1) and the bytes at most 2^53, so that
// the answer is exact. Throws attn::InvalidArgument naming the field.
double kv_cache_memory(const KvCacheQuery& query);

}  // namespace attn
