#include "attn/mask.hpp"

#include <algorithm>
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
}

VisibleKeys visible_keys(const MaskOptions& mask, long query, long n, long m) {
  const long position = query + (m - n);
  const long causal_end = mask.causal ? std::clamp(position + 1, 0L, m) : m;
  VisibleKeys keys;
  if (mask.window > 0) {
    keys.band_begin = std::clamp(position - mask.window + 1, 0L, m);
    keys.band_end = mask.causal ? causal_end : std::clamp(position + mask.window, 0L, m);
    keys.sink_end = std::min(mask.sinks, causal_end);
  } else {
    keys.band_begin = 0;
    keys.band_end = causal_end;
  }
  keys.band_end = std::max(keys.band_end, keys.band_begin);
  return keys;
}

}  // namespace attn
