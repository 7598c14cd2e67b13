#include "attn/position_bias.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <string>

#include "attn/errors.hpp"

namespace attn {

namespace {

// The most positions a model may have: every call keeps a few vectors of n doubles.
constexpr long kMaxPositions = 1L << 20;
// The most heads (position scales) a model may average.
constexpr std::size_t kMaxHeads = 64;
// The most depths of one sweep, and trials of one depth.
constexpr long kMaxDepths = 10000;
constexpr long kMaxTrials = 100000;

using Wide = std::int64_t;  // long is 32-bit in wasm: window + position must not overflow

long clamp_position(Wide position, long n) {
  return static_cast<long>(std::clamp<Wide>(position, 0, n));
}

bool is_content_row(const Content& content, long row, long n) {
  return !content.score.empty() && (row >= content.first_content_row || row == n - 1);
}

std::string whole(long value) { return std::to_string(value); }

}  // namespace

void validate(const PositionModel& model) {
  if (model.n < 1 || model.n > kMaxPositions) {
    fail("n must be a whole number from 1 to " + whole(kMaxPositions) + ", got " + whole(model.n));
  }
  if (model.layers < 1) fail("layers must be a whole number ≥ 1, got " + whole(model.layers));
  if (!(model.residual >= 0.0 && model.residual <= 1.0)) {
    fail("residual must be a number in [0, 1], got " + format_number(model.residual));
  }
  validate(model.mask);
  const DistanceBias& bias = model.bias;
  if (bias.type == DistanceBias::Type::alibi && !(bias.slope >= 0.0 && std::isfinite(bias.slope))) {
    fail("positional.slope must be a finite number ≥ 0, got " + format_number(bias.slope));
  }
  if (bias.type == DistanceBias::Type::rope) {
    if (bias.head_width < 2 || bias.head_width % 2 != 0) {
      fail("positional.headWidth must be an even number ≥ 2, got " + whole(bias.head_width));
    }
    if (!(bias.base > 1.0) || !std::isfinite(bias.base)) {
      fail("positional.base must be a finite number > 1, got " + format_number(bias.base));
    }
    if (!(bias.strength >= 0.0) || !std::isfinite(bias.strength)) {
      fail("positional.strength must be a finite number ≥ 0, got " + format_number(bias.strength));
    }
  }
  if (model.position_scales.empty() || model.position_scales.size() > kMaxHeads) {
    fail("positionScales must hold 1 to " + std::to_string(kMaxHeads) + " numbers (one per head), got " +
         std::to_string(model.position_scales.size()));
  }
  for (std::size_t h = 0; h < model.position_scales.size(); ++h) {
    const double scale = model.position_scales[h];
    // n / scale must stay finite: RoPE's kernel takes the cosine of distance / scale.
    if (!(scale > 0.0) || !std::isfinite(scale) ||
        !std::isfinite(static_cast<double>(model.n) / scale)) {
      fail("positionScales[" + std::to_string(h) + "] must be a finite number > 0, got " +
           format_number(scale));
    }
  }
}

// ---- the distance kernel and the mask as intervals -------------------------------------------

double rope_mean_cosine(double distance, long head_width, double base) {
  const long half = head_width / 2;
  double total = 0.0;
  for (long t = 0; t < half; ++t) total += std::cos(distance * std::pow(base, -2.0 * t / head_width));
  return total / half;
}

DistanceKernel distance_kernel(const DistanceBias& bias, double position_scale, long n) {
  DistanceKernel kernel;
  kernel.table.resize(n + 1);
  switch (bias.type) {
    case DistanceBias::Type::none:
      std::fill(kernel.table.begin(), kernel.table.end(), 1.0);
      break;
    case DistanceBias::Type::alibi:
      // exp(-slope·d/scale) for each d on its own, not as repeated products of r. K(0) is 1
      // even when slope/scale overflows to Infinity (a subnormal scale): not Infinity·0.
      for (long d = 0; d <= n; ++d) {
        kernel.table[d] = d == 0 ? 1.0 : std::exp(-bias.slope / position_scale * d);
      }
      break;
    case DistanceBias::Type::rope:
      // exp(strength·(g - 1)) rather than exp(strength·g): the same weights after
      // normalisation, and never above 1.
      kernel.exponential = false;
      for (long d = 0; d <= n; ++d) {
        const double g = rope_mean_cosine(d / position_scale, bias.head_width, bias.base);
        kernel.table[d] = std::exp(bias.strength * (g - 1.0));
      }
      break;
  }
  return kernel;
}

Intervals visible_spans(const MaskOptions& mask, long query, long n) {
  const VisibleKeys keys = visible_keys(mask, query, n, n);
  return key_intervals(&keys, 1);
}

Intervals seeing_spans(const MaskOptions& mask, long key, long n) {
  Intervals spans;
  const bool sink = mask.window > 0 && key < mask.sinks;
  if (mask.window == 0 || sink) {
    // Every query at or after the key (causal), or every query.
    spans.add(mask.causal ? key : 0, n);
  } else if (mask.causal) {
    // key ∈ [i - window + 1, i]  ⇔  i ∈ [key, key + window - 1]
    spans.add(key, clamp_position(Wide{key} + mask.window, n));
  } else {
    // |i - key| < window
    spans.add(clamp_position(Wide{key} - mask.window + 1, n),
             clamp_position(Wide{key} + mask.window, n));
  }
  return spans;
}

namespace {

template <class SpansOf>
void direct_gather(const std::vector<double>& table, const std::vector<double>& w, SpansOf spans_of,
                   std::vector<double>& out) {
  const long n = static_cast<long>(w.size());
  // reversed[n - d] = K(d): the keys left of o, read upwards, meet K(o - k) in increasing memory.
  std::vector<double> reversed(table.rbegin(), table.rend());
  for (long o = 0; o < n; ++o) {
    const Intervals spans = spans_of(o);
    double total = 0.0;
    for (int s = 0; s < spans.count; ++s) {
      const long left_end = std::min(spans.end[s], o + 1);
      const double* kernel_left = reversed.data() + (n - o);
      for (long k = spans.begin[s]; k < left_end; ++k) total += w[k] * kernel_left[k];
      const double* kernel_right = table.data() - o;
      for (long k = std::max(spans.begin[s], o + 1); k < spans.end[s]; ++k) total += w[k] * kernel_right[k];
    }
    out[o] = total;
  }
}

// The transpose of direct_gather, pushed from each nonzero input: an independent check of
// seeing_spans, and cheap when few inputs are nonzero.
void direct_scatter(const std::vector<double>& table, const MaskOptions& mask,
                    const std::vector<double>& w, std::vector<double>& out) {
  const long n = static_cast<long>(w.size());
  std::fill(out.begin(), out.end(), 0.0);
  for (long i = 0; i < n; ++i) {
    if (w[i] == 0.0) continue;
    const Intervals spans = visible_spans(mask, i, n);
    for (int s = 0; s < spans.count; ++s) {
      for (long j = spans.begin[s]; j < spans.end[s]; ++j) out[j] += w[i] * table[std::abs(i - j)];
    }
  }
}

// Exponential kernel K(d) = r^d: with running sums from the left, L[k] = w[k] + r·L[k-1],
// and from the right, R[k] = w[k] + r·R[k+1], the sum over any interval is a difference of
// two of them, so each output costs O(1).
template <class SpansOf>
void exponential_sums(const std::vector<double>& table, const std::vector<double>& w,
                      SpansOf spans_of, std::vector<double>& out) {
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
    const Intervals spans = spans_of(o);
    double total = 0.0;
    for (int s = 0; s < spans.count; ++s) {
      const long a = spans.begin[s], b = spans.end[s];
      const long high = std::min(b, o + 1) - 1;  // keys a..high lie left of o (or at o)
      if (high >= a) {
        const double carried = a > 0 ? table[high - a + 1] * left[a - 1] : 0.0;
        total += table[o - high] * stable_difference(left[high], carried, [&] {
          double sum = 0.0;
          for (long k = a; k <= high; ++k) sum += table[high - k] * w[k];
          return sum;
        });
      }
      const long low = std::max(a, o + 1);  // keys low..b-1 lie right of o
      if (low < b) {
        const double carried = b < n ? table[b - low] * right[b] : 0.0;
        total += table[low - o] * stable_difference(right[low], carried, [&] {
          double sum = 0.0;
          for (long k = low; k < b; ++k) sum += table[k - low] * w[k];
          return sum;
        });
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
  const auto gather_spans = [&](long o) { return visible_spans(mask, o, n); };
  const auto scatter_spans = [&](long o) { return seeing_spans(mask, o, n); };
  if (path == KernelPath::fast && kernel.exponential && n > 1) {
    if (transpose) {
      exponential_sums(kernel.table, w, scatter_spans, out);
    } else {
      exponential_sums(kernel.table, w, gather_spans, out);
    }
  } else if (transpose) {
    direct_scatter(kernel.table, mask, w, out);
  } else {
    direct_gather(kernel.table, w, gather_spans, out);
  }
}

// ---- rollout with content ------------------------------------------------------------------

namespace {

// x ↦ x·M with M = α·I + (1-α)·A for one model and one content.
class RolloutStep {
 public:
  RolloutStep(const PositionModel& model, const Content& content, KernelPath path)
      : model_(model), content_(content), path_(path), n_(model.n) {
    key_weight_.assign(n_, 1.0);
    if (!content.score.empty()) {
      // exp(score - max): the same weights after normalisation, without overflow.
      const double top = *std::max_element(content.score.begin(), content.score.end());
      for (long j = 0; j < n_; ++j) key_weight_[j] = std::exp(content.score[j] - top);
    }
    const std::vector<double> ones(n_, 1.0);
    for (double scale : model.position_scales) {
      Head head;
      head.kernel = distance_kernel(model.bias, scale, n_);
      // Each row's normaliser Z(i), for rows without and with content.
      kernel_sums(head.kernel, model.mask, false, ones, head.plain_total, path_);
      if (!content.score.empty()) {
        kernel_sums(head.kernel, model.mask, false, key_weight_, head.content_total, path_);
      }
      heads_.push_back(std::move(head));
    }
    if (content.calibrated_final_row) {
      const Intervals spans = visible_spans(model.mask, n_ - 1, n_);
      for (int s = 0; s < spans.count; ++s) {
        for (long j = spans.begin[s]; j < spans.end[s]; ++j) calibrated_total_ += key_weight_[j];
      }
    }
  }

  void apply(const std::vector<double>& in, std::vector<double>& out) {
    const double alpha = model_.residual;
    const double share = (1.0 - alpha) / static_cast<double>(heads_.size());
    out.resize(n_);
    for (long j = 0; j < n_; ++j) out[j] = alpha * in[j];
    for (const Head& head : heads_) {
      // pass 1: what each row hands out per unit of kernel weight, split by row kind
      bool any_plain = false, any_content = false;
      plain_.assign(n_, 0.0);
      content_rows_.assign(n_, 0.0);
      for (long i = 0; i < n_; ++i) {
        if (in[i] == 0.0 || (i == n_ - 1 && content_.calibrated_final_row)) continue;
        if (is_content_row(content_, i, n_)) {
          content_rows_[i] = share * in[i] / head.content_total[i];
          any_content = true;
        } else {
          plain_[i] = share * in[i] / head.plain_total[i];
          any_plain = true;
        }
      }
      // pass 2: scatter to the keys; rows with content weigh key j by its weight
      if (any_plain) {
        kernel_sums(head.kernel, model_.mask, true, plain_, scattered_, path_);
        for (long j = 0; j < n_; ++j) out[j] += scattered_[j];
      }
      if (any_content) {
        kernel_sums(head.kernel, model_.mask, true, content_rows_, scattered_, path_);
        for (long j = 0; j < n_; ++j) out[j] += key_weight_[j] * scattered_[j];
      }
    }
    if (content_.calibrated_final_row && in[n_ - 1] != 0.0) {
      // The calibrated final row is the same in every head: key weights alone.
      const double row_share = (1.0 - alpha) * in[n_ - 1] / calibrated_total_;
      const Intervals spans = visible_spans(model_.mask, n_ - 1, n_);
      for (int s = 0; s < spans.count; ++s) {
        for (long j = spans.begin[s]; j < spans.end[s]; ++j) out[j] += row_share * key_weight_[j];
      }
    }
  }

 private:
  struct Head {
    DistanceKernel kernel;
    std::vector<double> plain_total, content_total;  // n: Z(i) without and with content
  };

  const PositionModel& model_;
  const Content& content_;
  KernelPath path_;
  long n_;
  std::vector<double> key_weight_;  // n: exp(score - max), or 1
  std::vector<Head> heads_;
  double calibrated_total_ = 0.0;  // Z of the calibrated final row
  std::vector<double> plain_, content_rows_, scattered_;  // scratch, n each
};

}  // namespace

std::vector<double> propagate(const PositionModel& model, const Content& content,
                              RolloutStart start, KernelPath path) {
  validate(model);
  const long n = model.n;
  if (!content.score.empty() && static_cast<long>(content.score.size()) != n) {
    fail("content has " + std::to_string(content.score.size()) + " scores but n is " + whole(n));
  }
  std::vector<double> influence(n, 0.0), next;
  if (start == RolloutStart::final_token) {
    influence[n - 1] = 1.0;
  } else {
    std::fill(influence.begin(), influence.end(), 1.0 / n);
  }
  RolloutStep step(model, content, path);
  for (long layer = 0; layer < model.layers; ++layer) {
    step.apply(influence, next);
    influence.swap(next);
  }
  return influence;
}

// ---- the experiments -----------------------------------------------------------------------

CurveSummary summarize(const std::vector<double>& curve) {
  CurveSummary summary;
  const long count = static_cast<long>(curve.size());
  if (count == 0) return summary;
  summary.begin = curve.front();
  summary.middle = count % 2 == 1 ? curve[count / 2] : (curve[count / 2 - 1] + curve[count / 2]) / 2;
  summary.end = curve.back();
  summary.mean = std::accumulate(curve.begin(), curve.end(), 0.0) / count;
  const auto [low, high] = std::minmax_element(curve.begin(), curve.end());
  summary.max_over_min = *low > 0.0 ? *high / *low : std::numeric_limits<double>::infinity();
  return summary;
}

PositionCurve position_curve(const PositionModel& model, RolloutStart start) {
  validate(model);
  if (model.n < 2) {
    fail("n must be a whole number ≥ 2 for a position curve (the context and the final token), got " +
         whole(model.n));
  }
  PositionCurve curve;
  curve.values = propagate(model, {}, start);
  curve.summary = summarize(std::vector<double>(curve.values.begin(), curve.values.end() - 1));
  return curve;
}

namespace {

void validate(const NeedleOptions& options) {
  validate(options.model);
  const bool query_aware = options.mitigation.type == Mitigation::Type::query_aware;
  const long least = query_aware ? 4 : 3;
  if (options.model.n < least) {
    fail("n must be a whole number ≥ " + whole(least) +
         (query_aware ? " with the query-aware mitigation (the query's copy, two documents and the "
                        "final token), got "
                      : " for a needle sweep (two documents and the final token), got ") +
         whole(options.model.n));
  }
  if (options.depths < 2 || options.depths > kMaxDepths) {
    fail("depths must be a whole number from 2 to " + whole(kMaxDepths) + ", got " + whole(options.depths));
  }
  if (options.trials < 1 || options.trials > kMaxTrials) {
    fail("trials must be a whole number from 1 to " + whole(kMaxTrials) + ", got " + whole(options.trials));
  }
  if (!std::isfinite(options.signal)) {
    fail("signal must be a finite number, got " + format_number(options.signal));
  }
  if (!(options.noise >= 0.0) || !std::isfinite(options.noise)) {
    fail("noise must be a finite number ≥ 0, got " + format_number(options.noise));
  }
  const Mitigation& mitigation = options.mitigation;
  if (mitigation.type == Mitigation::Type::ms_poe) {
    if (mitigation.heads < 1 || mitigation.heads > static_cast<long>(kMaxHeads)) {
      fail("mitigation.heads must be a whole number from 1 to " + std::to_string(kMaxHeads) + ", got " +
           whole(mitigation.heads));
    }
    if (!(mitigation.min_ratio > 0.0) || !std::isfinite(mitigation.min_ratio)) {
      fail("mitigation.minRatio must be a finite number > 0, got " + format_number(mitigation.min_ratio));
    }
    if (!(mitigation.max_ratio >= mitigation.min_ratio) || !std::isfinite(mitigation.max_ratio)) {
      fail("mitigation.maxRatio must be a finite number ≥ minRatio (" +
           format_number(mitigation.min_ratio) + "), got " + format_number(mitigation.max_ratio));
    }
  }
  if (mitigation.type == Mitigation::Type::reorder &&
      (!(mitigation.retriever_noise >= 0.0) || !std::isfinite(mitigation.retriever_noise))) {
    fail("mitigation.retrieverNoise must be a finite number ≥ 0, got " +
         format_number(mitigation.retriever_noise));
  }
}

// Standard normal draws: Box-Muller over 32-bit draws (std::normal_distribution differs
// between standard libraries; this does not).
class Normal {
 public:
  Normal(std::uint32_t seed, std::uint32_t trial) {
    std::seed_seq sequence{seed, trial};
    engine_.seed(sequence);
  }
  double operator()() {
    constexpr double kTwoPi = 6.283185307179586;
    const double u1 = (engine_() + 0.5) / 4294967296.0;  // in (0, 1): log never sees 0
    const double u2 = (engine_() + 0.5) / 4294967296.0;
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(kTwoPi * u2);
  }

 private:
  std::mt19937 engine_;
};

// Positions of `values` from largest to smallest (ties: lower position first).
std::vector<long> ranked(const std::vector<double>& values, long first, long last) {
  std::vector<long> order(last - first + 1);
  std::iota(order.begin(), order.end(), first);
  std::stable_sort(order.begin(), order.end(), [&](long a, long b) { return values[a] > values[b]; });
  return order;
}

}  // namespace

NeedleSweep needle_sweep(const NeedleOptions& options) {
  validate(options);
  const Mitigation& mitigation = options.mitigation;
  using Type = Mitigation::Type;
  PositionModel model = options.model;
  if (mitigation.type == Type::ms_poe) {
    model.position_scales.assign(mitigation.heads, mitigation.min_ratio);
    for (long h = 1; h < mitigation.heads; ++h) {
      model.position_scales[h] = mitigation.min_ratio + (mitigation.max_ratio - mitigation.min_ratio) * h /
                                                            (mitigation.heads - 1);
    }
  }
  const long n = model.n;
  const long first = mitigation.type == Type::query_aware ? 1 : 0;  // first document
  const long last = n - 2;                                           // last document

  NeedleSweep sweep;
  for (long d = 0; d < options.depths; ++d) {
    const double depth = static_cast<double>(d) / (options.depths - 1);
    sweep.depths.push_back(depth);
    sweep.positions.push_back(first + std::lround(depth * (last - first)));
  }
  sweep.retrieval.assign(options.depths, 0.0);

  // Reordering puts documents where the content-free curve says the model looks most.
  std::vector<long> slots_by_preference;
  if (mitigation.type == Type::reorder) {
    slots_by_preference = ranked(propagate(model, {}, RolloutStart::final_token), first, last);
  }

  // Without randomness every trial is the same: run one.
  const bool random = options.noise > 0.0 || (mitigation.type == Type::reorder && mitigation.retriever_noise > 0.0);
  const long trials = random ? options.trials : 1;

  std::vector<double> distractors(n, 0.0), retriever_error(n, 0.0);
  for (long trial = 0; trial < trials; ++trial) {
    Normal normal(options.seed, static_cast<std::uint32_t>(trial));
    for (long j = first; j <= last; ++j) distractors[j] = options.noise * normal();
    if (mitigation.type == Type::reorder) {
      for (long j = first; j <= last; ++j) retriever_error[j] = mitigation.retriever_noise * normal();
    }
    for (long d = 0; d < options.depths; ++d) {
      Content content;
      content.score = distractors;
      content.score[sweep.positions[d]] = options.signal;
      content.first_content_row = mitigation.type == Type::query_aware ? first : n - 1;
      content.calibrated_final_row = mitigation.type == Type::calibration;
      long needle = sweep.positions[d];

      if (mitigation.type == Type::reorder) {
        // The document ranked k-th by the estimate goes to the slot the model weighs k-th.
        std::vector<double> estimate = content.score;
        for (long j = first; j <= last; ++j) estimate[j] += retriever_error[j];
        const std::vector<long> documents = ranked(estimate, first, last);
        std::vector<double> placed = content.score;
        long needle_slot = needle;
        for (std::size_t k = 0; k < documents.size(); ++k) {
          placed[slots_by_preference[k]] = content.score[documents[k]];
          if (documents[k] == needle) needle_slot = slots_by_preference[k];
        }
        needle = needle_slot;
        content.score = placed;
      }

      const std::vector<double> mass = propagate(model, content, RolloutStart::final_token);
      if (options.metric == NeedleMetric::mass) {
        sweep.retrieval[d] += mass[needle];
      } else {
        bool wins = true;
        for (long j = first; j <= last && wins; ++j) wins = j == needle || mass[j] < mass[needle];
        if (wins) sweep.retrieval[d] += 1.0;
      }
    }
  }
  for (double& value : sweep.retrieval) value /= trials;
  sweep.summary = summarize(sweep.retrieval);
  return sweep;
}

NeedleGrid needle_grid(const NeedleOptions& options, const std::vector<long>& lengths) {
  if (lengths.empty()) fail("lengths must hold at least one context length");
  NeedleGrid grid;
  NeedleOptions sweep_options = options;
  for (long length : lengths) {
    sweep_options.model.n = length;
    const NeedleSweep sweep = needle_sweep(sweep_options);
    if (grid.depths.empty()) grid.depths = sweep.depths;
    grid.lengths.push_back(length);
    grid.values.insert(grid.values.end(), sweep.retrieval.begin(), sweep.retrieval.end());
  }
  return grid;
}

}  // namespace attn
