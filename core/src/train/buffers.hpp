// The trainer's scratch buffers grow to the largest batch they have held and never shrink, so
// that a training step allocates nothing once it has run once.
#pragma once

#include <cstddef>
#include <vector>

namespace attn::train {

// buffer's storage, grown to hold at least `size` floats.
inline float* grow(std::vector<float>& buffer, std::size_t size) {
  if (buffer.size() < size) buffer.resize(size);
  return buffer.data();
}

}  // namespace attn::train
