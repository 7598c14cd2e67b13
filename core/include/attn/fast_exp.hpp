// A fast, vectorisable exp for the softmax's exponents (x ≤ 0, the row maximum subtracted):
// range reduction in base 2 and a degree-5 polynomial, with no branches, no calls and no
// lookup table. One template serves float and the GCC/Clang vector types of float (element by
// element), so the kernels' SIMD loops and the scalar code compute the same function.
#pragma once

#include <cstdint>
#include <cstring>
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

// e^x for the exponents of a softmax, x ≤ 0 (x above 0 is not handled: above 88 it gives
// garbage), with the exponent bias carried by the rounding shift: 19 SIMD operations a vector
// instead of the 28 of a general exp with Cody-Waite reduction and overflow handling, which it
// replaced (a softmax row in wasm, Zen 4: 1.9 cycles an element instead of 3.1, V8 keeping every
// constant in a register; Real: float, or a vector of float). Accuracy, tested
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
  // 2^f: a degree-5 fit of e^r in r = f·ln 2 minimising the relative error on [-ln2/2, ln2/2],
  // its coefficients multiplied by powers of ln 2 (1.07e-7 relative in exact arithmetic), in
  // Estrin's scheme: independent halves, so that the dependent chain is short.
  const Real f2 = f * f;
  const Real p = (f * 0.693147182f + 1.0f) + f2 * (f * 0.0555055998f + 0.240222812f) +
                 (f2 * f2) * (f * 0.00133002235f + 0.00966971461f);
  return p * bit_cast<Real>(bit_cast<Bits>(shifted) << 23);
}

}  // namespace attn
