// Which keys a query may see: causal mask, sliding window and attention sinks.
//
// Query i sits at position p = i + (m - n). The keys it sees are a band [band_begin,
// band_end) plus, with a window, the sink prefix [0, sink_end). Both kernels and the
// reference use this one definition.
#pragma once

#include <cstddef>

namespace attn {

struct MaskOptions {
  bool causal = false;  // key j visible only where j <= p
  long window = 0;      // > 0: p - j < window (causal) or |p - j| < window (bidirectional)
  long sinks = 0;       // with a window: keys j < sinks stay visible (StreamingLLM)
  long prefix = 0;      // with causal: queries at p < prefix see every key j < prefix (prefix LM)
};

struct VisibleKeys {
  long band_begin = 0;
  long band_end = 0;  // exclusive
  long sink_end = 0;  // keys [0, sink_end) are visible too

  bool contains(long key) const { return (key >= band_begin && key < band_end) || key < sink_end; }
  bool empty() const { return band_end <= band_begin && sink_end <= 0; }
};

// Up to two disjoint intervals [begin[s], end[s]) of positions, s < count, in increasing
// order: the shape of what a mask shows (the sinks, then the band, merged when they touch).
struct Intervals {
  long begin[2] = {0, 0};
  long end[2] = {0, 0};
  int count = 0;

  // Appends [first, last) unless it is empty.
  void add(long first, long last) {
    if (last <= first) return;
    begin[count] = first;
    end[count] = last;
    ++count;
  }
};

// Throws attn::InvalidArgument when window or sinks is negative.
void validate(const MaskOptions& mask);

// Keys visible to query `query` of `n` queries over `m` keys.
VisibleKeys visible_keys(const MaskOptions& mask, long query, long n, long m);

// The keys any of `queries` rows sees (visible: one VisibleKeys per row): the sinks and the
// span of their bands, as intervals. Keys outside both are hidden from every one of them.
Intervals key_intervals(const VisibleKeys* visible, long queries);

}  // namespace attn
