// Positional encodings: sinusoidal (added to the input), RoPE (rotates q and k before
// the dot product) and ALiBi (a distance penalty added to the scaled scores); a trained
// model may also learn a table of position vectors (attn/train).
#pragma once

#include <vector>

#include "attn/matrix.hpp"
#include "attn/names.hpp"

namespace attn {

enum class PositionalType { none, sinusoidal, rope, alibi, learned };
enum class RopePairing {
  interleaved,  // rotate pairs (2t, 2t+1), as in the RoFormer paper and GPT-J
  half          // rotate pairs (t, t + dh/2), as in GPT-NeoX and Llama's Hugging Face code
};

// RoPE's base when none is given, RoFormer's.
constexpr double kRopeBase = 10000.0;

struct PositionalOptions {
  PositionalType type = PositionalType::none;
  std::vector<float> slopes;  // ALiBi: one per head; empty means alibi_default_slopes(H)
  double base = kRopeBase;    // RoPE: angle of pair t at position p is p · base^(-2t/dh)
  RopePairing pairing = RopePairing::interleaved;
};

// Listed with the lab's types first, as its messages list them.
inline constexpr OptionNames<PositionalType, 5> kPositionalTypeNames{
    "positional.type",
    {{{PositionalType::none, "none"},
      {PositionalType::alibi, "alibi"},
      {PositionalType::rope, "rope"},
      {PositionalType::sinusoidal, "sinusoidal"},
      {PositionalType::learned, "learned"}}}};
constexpr const auto& names_of(PositionalType) { return kPositionalTypeNames; }

inline constexpr OptionNames<RopePairing, 2> kRopePairingNames{
    "positional.pairing",
    {{{RopePairing::interleaved, "interleaved"}, {RopePairing::half, "half"}}}};
constexpr const auto& names_of(RopePairing) { return kRopePairingNames; }

// → positions×width: PE[p][2t] = sin(p / 10000^(2t/width)), PE[p][2t+1] = cos(same).
Matrix sinusoidal_encoding(long positions, long width);

// RoPE's angle per position of pair t in a head of width dh: base^(-2t/dh), taken modulo 2π
// (below base 1 frequencies pass 2π and position·frequency can overflow; for whole positions
// the angle modulo 2π is the same).
double rope_frequency(double base, long pair, long head_width);

// x: rows×(H·dh), row r at position first_position + r → the same shape, each head's
// slice rotated pair by pair. dh must be even.
Matrix rotate_rope(const Matrix& x, long heads, long first_position, double base,
                   RopePairing pairing);

// ALiBi's geometric slopes 2^(-8h/H), h = 1..H.
std::vector<float> alibi_default_slopes(long heads);

// The bias added to score (query at position p, key j): -slope·(p - j) under a causal
// mask, -slope·|p - j| otherwise.
inline float alibi_bias(float slope, long query_position, long key, bool causal) {
  const long distance = query_position - key;
  return -slope * static_cast<float>(causal ? distance : (distance < 0 ? -distance : distance));
}

// RoPE's long-term decay: the bound (1/(dh/2)) · sum_{k=0}^{dh/2-1} |S_{k+1}| from RoFormer,
// S_j = sum_{t<j} exp(i·distance·θ_t), for each relative distance 0..max_distance (at most
// 2^20).
std::vector<double> rope_decay_bound(long head_width, double base, long max_distance);
// The same bound at each of `distances` (1 to 2^20 + 1 of them, each from 0 to 2^20), in their
// order: O(distances · dh) however far they reach.
std::vector<double> rope_decay_bound(long head_width, double base,
                                     const std::vector<long>& distances);

// Throws attn::InvalidArgument unless the options fit H heads of width dh.
void validate(const PositionalOptions& positional, long heads, long head_width);

}  // namespace attn
