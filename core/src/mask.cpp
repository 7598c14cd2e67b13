#include "attn/mask.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>

#include "attn/errors.hpp"

namespace attn {

void validate(const MaskOptions& mask) {
  if (mask.window < 0) {
    fail("window must be 0 (no window) or a positive number of keys, got " +
         std::to_string(mask.window));
  }
  if (mask.sinks < 0) {
    fail("sinks must be 0 or a positive number of keys, got " + std::to_string(mask.sinks));
  }
  if (mask.prefix < 0) {
    fail("prefix must be 0 (none) or a positive number of positions, got " +
         std::to_string(mask.prefix));
  }
}

VisibleKeys visible_keys(const MaskOptions& mask, long query, long n, long m) {
  // 64-bit arithmetic: a window of LONG_MAX keys must not overflow (long is 32-bit in wasm).
  using Wide = std::int64_t;
  const auto clamp_key = [m](Wide key) { return static_cast<long>(std::clamp<Wide>(key, 0, m)); };
  const Wide position = Wide{query} + m - n;
  // No |p - j| reaches n + m, so a wider window sees the same keys (and int64 cannot
  // hold position ± LONG_MAX when long is 64-bit).
  const Wide window = std::min<Wide>(mask.window, Wide{n} + m);
  // A query inside the prefix sees the whole prefix, later keys of it included.
  const Wide causal_limit = position < mask.prefix ? Wide{mask.prefix} : position + 1;
  const long causal_end = mask.causal ? clamp_key(causal_limit) : m;
  VisibleKeys keys;
  if (window > 0) {
    keys.band_begin = clamp_key(position - window + 1);
    keys.band_end = mask.causal ? causal_end : clamp_key(position + window);
    keys.sink_end = std::min(mask.sinks, causal_end);
  } else {
    keys.band_begin = 0;
    keys.band_end = causal_end;
  }
  keys.band_end = std::max(keys.band_end, keys.band_begin);
  return keys;
}

Intervals key_intervals(const VisibleKeys* visible, long queries) {
  long band_begin = std::numeric_limits<long>::max(), band_end = 0, sink_end = 0;
  for (long r = 0; r < queries; ++r) {
    if (visible[r].band_end > visible[r].band_begin) {
      band_begin = std::min(band_begin, visible[r].band_begin);
      band_end = std::max(band_end, visible[r].band_end);
    }
    sink_end = std::max(sink_end, visible[r].sink_end);
  }
  if (band_end == 0) band_begin = 0;  // no row has a band
  Intervals intervals;
  if (band_begin <= sink_end) {
    intervals.add(0, std::max(sink_end, band_end));  // the sinks touch the band: one interval
  } else {
    intervals.add(0, sink_end);
    intervals.add(band_begin, band_end);
  }
  return intervals;
}

}  // namespace attn
