// A fast, vectorisable exp for the softmax: Cody-Waite range reduction and a degree-5
// polynomial, with no branches and no calls, so loops over it vectorise (wasm SIMD128,
// AVX). Accuracy, tested in tests/native/test_fast_exp.cpp against double-precision exp:
// relative error below kFastExpMaxRelativeError for x in [-87, 88]; below -87 it
// returns 0 (absolute error under 1.7e-38, and exactly 0 for a masked -Infinity); above
// 88.7 it returns Infinity; NaN gives NaN.
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>

namespace attn {

constexpr float kFastExpMaxRelativeError = 3e-7f;

inline float fast_exp(float x) {
  constexpr float kLowest = -87.0f;          // below: underflow to 0
  constexpr float kHighest = 88.7f;          // above: overflow to Infinity
  constexpr float kLog2E = 1.44269504088896341f;
  constexpr float kLn2High = 0.693359375f;   // ln 2 split in two so that k·kLn2High is exact
  constexpr float kLn2Low = -2.12194440e-4f;
  constexpr float kRoundingShift = 12582912.0f;  // 1.5·2^23: adding it rounds to an integer
  constexpr std::uint32_t kRoundingShiftBits = 0x4B400000;
  constexpr std::uint32_t kExponentBias = 127;

  // k = round(x / ln 2), read from the low mantissa bits after the rounding shift. Outside
  // [kLowest, kHighest] the value computed here is garbage that the last line replaces.
  const float shifted = x * kLog2E + kRoundingShift;
  std::int32_t shifted_bits;
  std::memcpy(&shifted_bits, &shifted, sizeof shifted_bits);
  const float k = shifted - kRoundingShift;
  const float r = x - k * kLn2High - k * kLn2Low;  // |r| ≤ ln2 / 2

  // e^r ≈ 1 + r + r²·P(r): P is a degree-3 fit of (e^r - 1 - r)/r² minimising the relative
  // error on [-ln2/2, ln2/2] (1.05e-7 in exact arithmetic).
  float p = 8.312499617789156e-3f;
  p = p * r + 4.189013953019462e-2f;
  p = p * r + 1.666711487688481e-1f;
  p = p * r + 4.99992315615998e-1f;
  const float e_r = p * r * r + r + 1.0f;

  // 2^k built in the exponent field, in unsigned arithmetic: out of range the signed
  // version would overflow, which C++ leaves undefined.
  const std::uint32_t scale_bits =
      (static_cast<std::uint32_t>(shifted_bits) - kRoundingShiftBits + kExponentBias) << 23;
  float scale;
  std::memcpy(&scale, &scale_bits, sizeof scale);

  const float result = e_r * scale;
  return x < kLowest ? 0.0f : (x > kHighest ? std::numeric_limits<float>::infinity() : result);
}

}  // namespace attn
