// SIMD registers through the GCC/Clang vector extension: the same source becomes f32x4
// in wasm (-msimd128) and ymm/zmm natively (-march=native).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#endif

namespace attn::simd {

#if defined(__wasm_simd128__)
constexpr std::size_t kLanes = 4;
#elif defined(__AVX512F__)
constexpr std::size_t kLanes = 16;
#elif defined(__AVX__)
constexpr std::size_t kLanes = 8;
#else
constexpr std::size_t kLanes = 4;
#endif

typedef float Vec __attribute__((vector_size(kLanes * sizeof(float))));
typedef std::int32_t Mask __attribute__((vector_size(kLanes * sizeof(float))));

inline Vec load(const float* from) {
  Vec v;
  std::memcpy(&v, from, sizeof v);
  return v;
}

inline void store(float* to, Vec v) { std::memcpy(to, &v, sizeof v); }

inline Vec broadcast(float value) {
#if defined(__wasm_simd128__)
  // One f32x4.splat: Clang compiles `Vec{} + value` to a splat and an add of zero in wasm,
  // which cost the matmul a quarter of its speed (21 → 28 GFLOP/s measured).
  return reinterpret_cast<Vec>(wasm_f32x4_splat(value));
#else
  return Vec{} + value;
#endif
}

// Lane-wise maximum; a NaN in `a` is ignored, as in the scalar `a > b ? a : b`.
inline Vec max(Vec a, Vec b) {
  const Mask a_greater = a > b;
  return reinterpret_cast<Vec>((reinterpret_cast<Mask>(a) & a_greater) |
                               (reinterpret_cast<Mask>(b) & ~a_greater));
}

// The largest of values[0, count), or -Infinity when count is 0. Written with explicit
// vectors: Clang does not vectorise a float max reduction without fast-math.
inline float maximum(const float* values, std::size_t count) {
  float result = -std::numeric_limits<float>::infinity();
  std::size_t c = 0;
  if (count >= kLanes) {
    Vec lanes = load(values);
    for (c = kLanes; c + kLanes <= count; c += kLanes) lanes = max(load(values + c), lanes);
    for (std::size_t lane = 0; lane < kLanes; ++lane) result = lanes[lane] > result ? lanes[lane] : result;
  }
  for (; c < count; ++c) result = values[c] > result ? values[c] : result;
  return result;
}

}  // namespace attn::simd
