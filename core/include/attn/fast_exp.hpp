// A fast, vectorisable exp for the softmax: Cody-Waite range reduction and a degree-5
// polynomial, with no branches, no calls and no lookup table. One template serves float
// and the GCC/Clang vector types of float (element by element), so the kernels' SIMD
// loops and the scalar code compute the same function. Accuracy, tested in
// tests/native/test_fast_exp.cpp against double-precision exp: relative error below
// kFastExpMaxRelativeError for x in [-87, 88]; below -87 it returns 0 (absolute error
// under 1.7e-38, and exactly 0 for a masked -Infinity); above 88.7 it returns Infinity;
// NaN gives NaN.
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#endif

namespace attn {

constexpr float kFastExpMaxRelativeError = 3e-7f;

namespace fast_exp_detail {

template <class To, class From>
inline To bit_cast(From from) {
  static_assert(sizeof(To) == sizeof(From));
  To to;
  std::memcpy(&to, &from, sizeof to);
  return to;
}

// A comparison's result as unsigned lane bits, all ones where it holds (unsigned, so that
// the exponent arithmetic below wraps instead of overflowing).
inline std::uint32_t all_ones_where(bool condition) {
  return 0u - static_cast<std::uint32_t>(condition);
}

template <class LaneMask>
struct UnsignedLanes {
  typedef std::uint32_t type __attribute__((vector_size(sizeof(LaneMask))));
};

template <class LaneMask, class = std::enable_if_t<!std::is_same_v<LaneMask, bool>>>
inline typename UnsignedLanes<LaneMask>::type all_ones_where(LaneMask condition) {
  return reinterpret_cast<typename UnsignedLanes<LaneMask>::type>(condition);
}

// x < lowest ? lowest : x, lane by lane (NaN stays NaN). In wasm one f32x4.pmax: written as the
// comparison, Clang emits f32x4.max, whose NaN rules cost V8 eight instructions.
template <class Real>
inline Real at_least(Real x, float lowest) {
#if defined(__wasm_simd128__)
  if constexpr (sizeof(Real) == sizeof(v128_t)) {
    return bit_cast<Real>(wasm_f32x4_pmax(bit_cast<v128_t>(x), wasm_f32x4_splat(lowest)));
  }
#endif
  if constexpr (std::is_same_v<Real, float>) {
    return x < lowest ? lowest : x;
  } else {
    return x < lowest ? Real{} + lowest : x;
  }
}

}  // namespace fast_exp_detail

// Real: float, or a vector of float (__attribute__((vector_size(N)))).
template <class Real>
inline Real fast_exp(Real x) {
  using fast_exp_detail::all_ones_where;
  using fast_exp_detail::bit_cast;
  using Bits = decltype(all_ones_where(x < 0.0f));  // uint32, or a vector of uint32
  constexpr float kLowest = -87.0f;                 // below: underflow to 0
  constexpr float kHighest = 88.7f;                 // above: overflow to Infinity
  constexpr float kLog2E = 1.44269504088896341f;
  constexpr float kLn2High = 0.693359375f;  // ln 2 split in two so that k·kLn2High is exact
  constexpr float kLn2Low = -2.12194440e-4f;
  constexpr float kRoundingShift = 12582912.0f;  // 1.5·2^23: adding it rounds to an integer
  // Subtracting the shift's bits leaves k in the low bits; adding 127 makes it an exponent.
  constexpr std::uint32_t kExponentFromShifted = 127u - 0x4B400000u;

  // k = round(x / ln 2), read from the low mantissa bits after the rounding shift. Outside
  // [kLowest, kHighest] the value computed here is garbage that the last line replaces.
  const Real shifted = x * kLog2E + kRoundingShift;
  const Real k = shifted - kRoundingShift;
  const Real r = x - k * kLn2High - k * kLn2Low;  // |r| ≤ ln2 / 2

  // e^r ≈ 1 + r + r²·P(r): P is a degree-3 fit of (e^r - 1 - r)/r² minimising the relative
  // error on [-ln2/2, ln2/2] (1.05e-7 in exact arithmetic), evaluated in Estrin's scheme:
  // two independent halves, so that the dependent chain is short.
  const Real r2 = r * r;
  const Real p = (r * 1.666711487688481e-1f + 4.99992315615998e-1f) +
                 r2 * (r * 8.312499617789156e-3f + 4.189013953019462e-2f);
  const Real e_r = p * r2 + (r + 1.0f);

  // 2^k built in the exponent field.
  const Bits scale_bits = (bit_cast<Bits>(shifted) + kExponentFromShifted) << 23;
  const Real result = e_r * bit_cast<Real>(scale_bits);

  const Bits below = all_ones_where(x < kLowest), above = all_ones_where(x > kHighest);
  const std::uint32_t infinity = bit_cast<std::uint32_t>(std::numeric_limits<float>::infinity());
  return bit_cast<Real>((bit_cast<Bits>(result) & ~(below | above)) | (infinity & above));
}

// e^x for the exponents of a softmax, x ≤ 0 (the row maximum subtracted): fast_exp without
// its overflow handling (x above 88 gives garbage), in base 2 with the exponent bias carried by
// the rounding shift: 19 SIMD operations a vector instead of 28 (a softmax row in wasm, Zen 4:
// 1.9 cycles an element instead of 3.1, V8 keeping every constant in a register). Accuracy, tested
// in tests/native/test_fast_exp.cpp: relative error below kFastExpMaxRelativeError for x in
// [-1, 0], absolute error below kFastExpNonPositiveMaxAbsoluteError for every x ≤ 0 (x·log2(e)
// is rounded once, so the relative error grows with |x|, by 4e-8 per unit of x·log2(e), while
// the value shrinks as 2^(x·log2(e))); exactly 1 at 0, exactly 0 at -88 and below and for the
// masked -Infinity; NaN gives NaN.
constexpr float kFastExpNonPositiveMaxAbsoluteError = 2e-7f;

template <class Real>
inline Real fast_exp_nonpositive(Real x) {
  using fast_exp_detail::all_ones_where;
  using fast_exp_detail::bit_cast;
  using Bits = decltype(all_ones_where(x < 0.0f));
  constexpr float kLog2E = 1.44269504088896341f;
  // Below, 2^k would be subnormal: k = -127 makes the exponent field 0 and the result 0.
  constexpr float kLowest = -127.0f;
  // 1.5·2^23 + 127: adding it rounds t to an integer k and leaves k + 127 (the biased exponent)
  // in the low mantissa bits; shifting the bits left by 23 drops everything above them.
  constexpr float kRoundingShift = 12582912.0f + 127.0f;

  // t = x·log2(e) ≥ -127 (a comparison that keeps NaN), k = round(t), f = t - k in [-0.5, 0.5].
  const Real t = fast_exp_detail::at_least(x * kLog2E, kLowest);
  const Real shifted = t + kRoundingShift;
  const Real f = t - (shifted - kRoundingShift);
  // 2^f: fast_exp's polynomial in r = f·ln 2, its coefficients multiplied by powers of ln 2
  // (1.07e-7 relative in exact arithmetic), in Estrin's scheme.
  const Real f2 = f * f;
  const Real p = (f * 0.693147182f + 1.0f) + f2 * (f * 0.0555055998f + 0.240222812f) +
                 (f2 * f2) * (f * 0.00133002235f + 0.00966971461f);
  return p * bit_cast<Real>(bit_cast<Bits>(shifted) << 23);
}

}  // namespace attn
