#include "attn/lab/rollout.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

#include "attn/errors.hpp"

namespace attn::lab {

namespace {

bool is_content_row(const Content& content, long row, long n) {
  return !content.score.empty() && (row >= content.first_content_row || row == n - 1);
}

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
      const Intervals keys = visible_intervals(model.mask, n_ - 1, n_);
      for (int s = 0; s < keys.count; ++s) {
        for (long j = keys.begin[s]; j < keys.end[s]; ++j) calibrated_total_ += key_weight_[j];
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
      const Intervals keys = visible_intervals(model_.mask, n_ - 1, n_);
      for (int s = 0; s < keys.count; ++s) {
        for (long j = keys.begin[s]; j < keys.end[s]; ++j) out[j] += row_share * key_weight_[j];
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
  double calibrated_total_ = 0.0;                         // Z of the calibrated final row
  std::vector<double> plain_, content_rows_, scattered_;  // scratch, n each
};

}  // namespace

std::vector<double> propagate(const PositionModel& model, const Content& content,
                              RolloutStart start, KernelPath path) {
  validate(model);
  const long n = model.n;
  if (!content.score.empty() && static_cast<long>(content.score.size()) != n) {
    fail("content has " + std::to_string(content.score.size()) + " scores but n is " +
         std::to_string(n));
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

std::vector<double> rollout(const PositionModel& model) {
  if (model.n < 1) fail("n must be a whole number ≥ 1, got " + std::to_string(model.n));
  return propagate(model, {}, RolloutStart::final_token);
}

CurveSummary summarize(const std::vector<double>& curve) {
  CurveSummary summary;
  const long count = static_cast<long>(curve.size());
  if (count == 0) return summary;
  summary.begin = curve.front();
  summary.middle =
      count % 2 == 1 ? curve[count / 2] : (curve[count / 2 - 1] + curve[count / 2]) / 2;
  summary.end = curve.back();
  summary.mean = std::accumulate(curve.begin(), curve.end(), 0.0) / count;
  const auto [low, high] = std::minmax_element(curve.begin(), curve.end());
  summary.max_over_min = *low > 0.0 ? *high / *low : std::numeric_limits<double>::infinity();
  const long width = std::max(1L, std::lround(static_cast<double>(count) * 0.1));
  const auto mean_from = [&](long start) {
    return std::accumulate(curve.begin() + start, curve.begin() + start + width, 0.0) / width;
  };
  summary.first_tenth = mean_from(0);
  summary.middle_tenth = mean_from((count - width) / 2);
  summary.last_tenth = mean_from(count - width);
  return summary;
}

PositionCurve position_curve(const PositionModel& model, RolloutStart start) {
  validate(model);
  if (model.n < 2) {
    fail(
        "n must be a whole number ≥ 2 for a position curve (the context and the final token), "
        "got " +
        std::to_string(model.n));
  }
  PositionCurve curve;
  curve.values = propagate(model, {}, start);
  curve.summary = summarize(std::vector<double>(curve.values.begin(), curve.values.end() - 1));
  return curve;
}

}  // namespace attn::lab
