#include "attn/lab/kernel_sums.hpp"

#include <algorithm>
#include <cstdint>

namespace attn::lab {

namespace {

using Wide = std::int64_t;  // long is 32-bit in wasm: window + position must not overflow

long clamp_position(Wide position, long n) {
  return static_cast<long>(std::clamp<Wide>(position, 0, n));
}

}  // namespace

Intervals visible_intervals(const MaskOptions& mask, long query, long n) {
  const VisibleKeys keys = visible_keys(mask, query, n, n);
  return key_intervals(&keys, 1);
}

Intervals seeing_intervals(const MaskOptions& mask, long key, long n) {
  Intervals intervals;
  const bool sink = mask.window > 0 && key < mask.sinks;
  if (mask.window == 0 || sink) {
    // Every query at or after the key (causal), or every query.
    intervals.add(mask.causal ? key : 0, n);
  } else if (mask.causal) {
    // key ∈ [i - window + 1, i]  ⇔  i ∈ [key, key + window - 1]
    intervals.add(key, clamp_position(Wide{key} + mask.window, n));
  } else {
    // |i - key| < window
    intervals.add(clamp_position(Wide{key} - mask.window + 1, n),
                  clamp_position(Wide{key} + mask.window, n));
  }
  return intervals;
}

namespace {

template <class IntervalsOf>
void direct_gather(const std::vector<double>& table, const std::vector<double>& w,
                   IntervalsOf intervals_of, std::vector<double>& out) {
  const long n = static_cast<long>(w.size());
  // reversed[n - d] = K(d): the keys left of o, read upwards, meet K(o - k) in increasing memory.
  std::vector<double> reversed(table.rbegin(), table.rend());
  for (long o = 0; o < n; ++o) {
    const Intervals intervals = intervals_of(o);
    double total = 0.0;
    for (int s = 0; s < intervals.count; ++s) {
      const long left_end = std::min(intervals.end[s], o + 1);
      const double* kernel_left = reversed.data() + (n - o);
      for (long k = intervals.begin[s]; k < left_end; ++k) total += w[k] * kernel_left[k];
      const double* kernel_right = table.data() - o;
      for (long k = std::max(intervals.begin[s], o + 1); k < intervals.end[s]; ++k)
        total += w[k] * kernel_right[k];
    }
    out[o] = total;
  }
}

// The transpose of direct_gather, pushed from each nonzero input: an independent check of
// seeing_intervals, and cheap when few inputs are nonzero. Each input's push is a contiguous
// multiply-add over the keys it sees (the kernel read forwards on both sides, as direct_gather
// reads it), which the compiler turns into vector code; every out[j] still adds its terms in
// the order of i.
void direct_scatter(const std::vector<double>& table, const MaskOptions& mask,
                    const std::vector<double>& w, std::vector<double>& out) {
  const long n = static_cast<long>(w.size());
  std::fill(out.begin(), out.end(), 0.0);
  // reversed[n - d] = K(d): the keys left of i, read upwards, meet K(i - j) in increasing memory.
  std::vector<double> reversed(table.rbegin(), table.rend());
  double* const sums = out.data();
  for (long i = 0; i < n; ++i) {
    const double weight = w[i];
    if (weight == 0.0) continue;
    const Intervals intervals = visible_intervals(mask, i, n);
    for (int s = 0; s < intervals.count; ++s) {
      const long left_end = std::min(intervals.end[s], i + 1);
      for (long j = intervals.begin[s]; j < left_end; ++j) sums[j] += weight * reversed[n - i + j];
      for (long j = std::max(intervals.begin[s], i + 1); j < intervals.end[s]; ++j)
        sums[j] += weight * table[j - i];
    }
  }
}

// Exponential kernel K(d) = r^d: with running sums from the left, L[k] = w[k] + r·L[k-1],
// and from the right, R[k] = w[k] + r·R[k+1], the sum over any interval is a difference of
// two of them, so each output costs O(1).
template <class IntervalsOf>
void exponential_sums(const std::vector<double>& table, const std::vector<double>& w,
                      IntervalsOf intervals_of, std::vector<double>& out) {
  const long n = static_cast<long>(w.size());
  const double r = table[1];
  // pass 1: running sums
  std::vector<double> left(n), right(n);
  for (long k = 0; k < n; ++k) left[k] = w[k] + (k > 0 ? r * left[k - 1] : 0.0);
  for (long k = n - 1; k >= 0; --k) right[k] = w[k] + (k + 1 < n ? r * right[k + 1] : 0.0);
  // pass 2: each output from its intervals, as a difference of running sums. Where the
  // part subtracted outweighs the difference by more than kMaxCancellation (a large weight
  // before a small window: the difference would keep few correct digits, or come out
  // below zero), that interval is summed term by term instead.
  constexpr double kMaxCancellation = 1024.0;  // at most 10 bits lost
  const auto stable_difference = [&](double running, double carried, auto term_by_term) {
    const double sum = running - carried;
    return carried > kMaxCancellation * sum ? term_by_term() : sum;
  };
  for (long o = 0; o < n; ++o) {
    const Intervals intervals = intervals_of(o);
    double total = 0.0;
    for (int s = 0; s < intervals.count; ++s) {
      const long a = intervals.begin[s], b = intervals.end[s];
      const long high = std::min(b, o + 1) - 1;  // keys a..high lie left of o (or at o)
      if (high >= a) {
        const double carried = a > 0 ? table[high - a + 1] * left[a - 1] : 0.0;
        const auto term_by_term = [&] {
          double sum = 0.0;
          for (long k = a; k <= high; ++k) sum += table[high - k] * w[k];
          return sum;
        };
        total += table[o - high] * stable_difference(left[high], carried, term_by_term);
      }
      const long low = std::max(a, o + 1);  // keys low..b-1 lie right of o
      if (low < b) {
        const double carried = b < n ? table[b - low] * right[b] : 0.0;
        const auto term_by_term = [&] {
          double sum = 0.0;
          for (long k = low; k < b; ++k) sum += table[k - low] * w[k];
          return sum;
        };
        total += table[low - o] * stable_difference(right[low], carried, term_by_term);
      }
    }
    out[o] = total;
  }
}

}  // namespace

void kernel_sums(const DistanceKernel& kernel, const MaskOptions& mask, bool transpose,
                 const std::vector<double>& w, std::vector<double>& out, KernelPath path) {
  const long n = static_cast<long>(w.size());
  out.assign(n, 0.0);
  if (n == 0) return;
  const auto gather_intervals = [&](long o) { return visible_intervals(mask, o, n); };
  const auto scatter_intervals = [&](long o) { return seeing_intervals(mask, o, n); };
  if (path == KernelPath::fast && kernel.exponential && n > 1) {
    if (transpose) {
      exponential_sums(kernel.table, w, scatter_intervals, out);
    } else {
      exponential_sums(kernel.table, w, gather_intervals, out);
    }
  } else if (transpose) {
    direct_scatter(kernel.table, mask, w, out);
  } else {
    direct_gather(kernel.table, w, gather_intervals, out);
  }
}

}  // namespace attn::lab
