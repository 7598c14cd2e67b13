// SIMD registers through the GCC/Clang vector extension: the same source becomes f32x4
// in wasm (-msimd128) and ymm/zmm natively (-march=native).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#elif defined(__FMA__)
#include <immintrin.h>
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

// acc + a·b, rounded once where the target has fused multiply-add (natively, and in the
// relaxed-SIMD wasm build on CPUs with FMA, where f32x4.relaxed_madd fuses) and as a product
// then a sum where it has none (wasm SIMD128). Written out instead of left to the compiler's
// contraction (the core builds with -ffp-contract=off), which fused some instantiations of a
// kernel and not others: a row then came out 1 ulp apart in a block of 8 rows and of 3, and a
// part of a call (AttentionOptions::part) no longer held exactly the whole call's numbers.
inline Vec multiply_add(Vec a, Vec b, Vec acc) {
#if defined(__wasm_relaxed_simd__)
  // LLVM 14 compiles this to the relaxed-SIMD proposal's first fma, which read a + b·acc; the
  // build gives it the opcode of the standard's f32x4.relaxed_madd (scripts/relaxed-simd.mjs),
  // which reads its operands, pushed in this order, as a·b + acc: what is meant here.
  return reinterpret_cast<Vec>(__builtin_wasm_fma_f32x4(a, b, acc));
#elif defined(__wasm_simd128__) || !defined(__FMA__)
  return acc + a * b;
#elif defined(__AVX512F__)
  return reinterpret_cast<Vec>(_mm512_fmadd_ps(
      reinterpret_cast<__m512>(a), reinterpret_cast<__m512>(b), reinterpret_cast<__m512>(acc)));
#elif defined(__AVX__)
  return reinterpret_cast<Vec>(_mm256_fmadd_ps(
      reinterpret_cast<__m256>(a), reinterpret_cast<__m256>(b), reinterpret_cast<__m256>(acc)));
#else
  return reinterpret_cast<Vec>(_mm_fmadd_ps(
      reinterpret_cast<__m128>(a), reinterpret_cast<__m128>(b), reinterpret_cast<__m128>(acc)));
#endif
}

// The same for one float, rounded as a lane of the vector form: a kernel's scalar tail then
// gives a column the numbers its vector body would, whichever columns a call has.
inline float multiply_add(float a, float b, float acc) {
#if defined(__wasm_relaxed_simd__)
  // wasm has no scalar fused multiply-add: lane 0 of the vector one.
  return multiply_add(broadcast(a), broadcast(b), broadcast(acc))[0];
#elif defined(__wasm_simd128__) || !defined(__FMA__)
  return acc + a * b;
#else
  return std::fma(a, b, acc);
#endif
}

// Lane-wise maximum; a NaN in `a` is ignored, as in the scalar `a > b ? a : b`.
inline Vec max(Vec a, Vec b) {
#if defined(__wasm_simd128__)
  // f32x4.pmax(b, a) = b < a ? a : b: one maxps. The generic form below costs four
  // dependent instructions in V8, which made the row maximum a quarter of the softmax.
  return reinterpret_cast<Vec>(
      wasm_f32x4_pmax(reinterpret_cast<v128_t>(b), reinterpret_cast<v128_t>(a)));
#else
  const Mask a_greater = a > b;
  return reinterpret_cast<Vec>((reinterpret_cast<Mask>(a) & a_greater) |
                               (reinterpret_cast<Mask>(b) & ~a_greater));
#endif
}

// The largest of `start` and the lanes of `lanes` (a NaN lane is ignored).
inline float largest_lane(Vec lanes, float start) {
  float result = start;
  for (std::size_t lane = 0; lane < kLanes; ++lane)
    result = lanes[lane] > result ? lanes[lane] : result;
  return result;
}

// The largest of values[0, count), or -Infinity when count is 0. Written with explicit
// vectors (Clang does not vectorise a float max reduction without fast-math), four
// independent running maxima so that the loop is not one long dependency chain.
inline float maximum(const float* values, std::size_t count) {
  constexpr std::size_t kChains = 4, kStep = kChains * kLanes;
  const Vec minus_infinity = broadcast(-std::numeric_limits<float>::infinity());
  Vec chains[kChains] = {minus_infinity, minus_infinity, minus_infinity, minus_infinity};
  std::size_t c = 0;
  for (; c + kStep <= count; c += kStep) {
    for (std::size_t i = 0; i < kChains; ++i)
      chains[i] = max(load(values + c + i * kLanes), chains[i]);
  }
  for (; c + kLanes <= count; c += kLanes) chains[0] = max(load(values + c), chains[0]);
  float result = largest_lane(max(max(chains[0], chains[1]), max(chains[2], chains[3])),
                              -std::numeric_limits<float>::infinity());
  for (; c < count; ++c) result = values[c] > result ? values[c] : result;
  return result;
}

// The index of the first NaN or ±Infinity in values[0, count), or count when all are
// finite. Tests the exponent bits a chunk of vectors at a time; only a chunk that holds
// one is searched element by element.
inline std::size_t first_non_finite(const float* values, std::size_t count) {
  constexpr std::size_t kChunk = 16 * kLanes;
  const Mask exponent = Mask{} + 0x7f800000;
  std::size_t c = 0;
  for (; c + kChunk <= count; c += kChunk) {
    Mask non_finite = {};
    for (std::size_t v = c; v < c + kChunk; v += kLanes) {
      non_finite |= (reinterpret_cast<Mask>(load(values + v)) & exponent) == exponent;
    }
    std::int32_t any = 0;
    for (std::size_t lane = 0; lane < kLanes; ++lane) any |= non_finite[lane];
    if (any != 0) break;
  }
  for (; c < count; ++c) {
    std::uint32_t bits;
    std::memcpy(&bits, values + c, sizeof bits);
    if ((bits & 0x7f800000u) == 0x7f800000u) return c;
  }
  return count;
}

// The largest |values[c]| for c in [0, count), 0 when count is 0 (NaN is ignored).
inline float maximum_magnitude(const float* values, std::size_t count) {
  const Mask magnitude_bits = Mask{} + 0x7fffffff;
  Vec lanes = Vec{};
  std::size_t c = 0;
  for (; c + kLanes <= count; c += kLanes) {
    lanes = max(reinterpret_cast<Vec>(reinterpret_cast<Mask>(load(values + c)) & magnitude_bits),
                lanes);
  }
  float result = largest_lane(lanes, 0.0f);
  for (; c < count; ++c) result = std::fabs(values[c]) > result ? std::fabs(values[c]) : result;
  return result;
}

}  // namespace attn::simd
