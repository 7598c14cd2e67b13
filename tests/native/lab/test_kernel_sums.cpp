#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "attn/lab/kernel_sums.hpp"
#include "lab_helpers.hpp"

using attn::lab::DistanceBias;
using attn::lab::KernelPath;
using lab_helpers::kMasks;

TEST_CASE("position spans: the keys a query sees, as visible_keys defines them", "[lab]") {
  for (const auto& mask : kMasks) {
    for (long n : {1L, 2L, 9L, 40L}) {
      for (long i = 0; i < n; ++i) {
        const attn::Intervals spans = attn::lab::visible_intervals(mask, i, n);
        const attn::VisibleKeys keys = attn::visible_keys(mask, i, n, n);
        REQUIRE(spans.count <= 2);
        for (long j = 0; j < n; ++j) {
          bool inside = false;
          for (int s = 0; s < spans.count; ++s) inside |= j >= spans.begin[s] && j < spans.end[s];
          INFO("n " << n << " query " << i << " key " << j << " window " << mask.window);
          CHECK(inside == keys.contains(j));
        }
      }
    }
  }
}

TEST_CASE("position spans: the queries that see a key are the transpose", "[lab]") {
  for (const auto& mask : kMasks) {
    for (long n : {1L, 2L, 9L, 40L}) {
      for (long j = 0; j < n; ++j) {
        const attn::Intervals spans = attn::lab::seeing_intervals(mask, j, n);
        for (long i = 0; i < n; ++i) {
          bool inside = false;
          for (int s = 0; s < spans.count; ++s) inside |= i >= spans.begin[s] && i < spans.end[s];
          INFO("n " << n << " key " << j << " query " << i << " window " << mask.window << " sinks "
                    << mask.sinks << " causal " << mask.causal);
          CHECK(inside == helpers::api_visible(mask, i, j, n, n));
        }
      }
    }
  }
}

TEST_CASE("kernel sums: the O(n) running sums equal direct summation", "[lab]") {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> uniform(0.0, 3.0);
  for (const auto& mask : kMasks) {
    for (double slope : {0.0, 0.01, 0.3, 5.0}) {
      for (long n : {2L, 17L, 300L}) {
        DistanceBias bias;
        bias.type = slope > 0 ? attn::PositionalType::alibi : attn::PositionalType::none;
        bias.slope = slope;
        const attn::lab::DistanceKernel kernel = attn::lab::distance_kernel(bias, 1.3, n);
        std::vector<double> w(n);
        for (double& value : w) value = uniform(rng) * (uniform(rng) < 0.5 ? 1.0 : 1e-3);
        for (bool transpose : {false, true}) {
          std::vector<double> fast, direct;
          attn::lab::kernel_sums(kernel, mask, transpose, w, fast, KernelPath::fast);
          attn::lab::kernel_sums(kernel, mask, transpose, w, direct, KernelPath::direct);
          double worst = 0.0;
          for (long o = 0; o < n; ++o)
            worst = std::max(worst, std::abs(fast[o] - direct[o]) / (1.0 + direct[o]));
          INFO("n " << n << ", slope " << slope << ", window " << mask.window << ", sinks "
                    << mask.sinks << ", causal " << mask.causal << ", transpose " << transpose
                    << ": max rel diff " << worst);
          CHECK(worst <= 1e-12);
        }
      }
    }
  }
}

TEST_CASE("kernel sums: running sums keep their digits when weights span e^20", "[lab]") {
  // Content weights exp(score - max) for scores over 20 units: a difference of running sums
  // across a large weight lost up to 7 digits (3.6e-7 on the causal diagonal) before such
  // intervals were summed term by term.
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> score(-20.0, 0.0);
  for (const auto& mask : kMasks) {
    for (double slope : {0.0, 0.05, 0.5}) {
      const long n = 400;
      DistanceBias bias;
      bias.type = slope > 0 ? attn::PositionalType::alibi : attn::PositionalType::none;
      bias.slope = slope;
      const attn::lab::DistanceKernel kernel = attn::lab::distance_kernel(bias, 1.0, n);
      std::vector<double> w(n);
      for (double& value : w) value = std::exp(score(rng));
      for (bool transpose : {false, true}) {
        std::vector<double> fast, direct;
        attn::lab::kernel_sums(kernel, mask, transpose, w, fast, KernelPath::fast);
        attn::lab::kernel_sums(kernel, mask, transpose, w, direct, KernelPath::direct);
        double worst = 0.0;
        for (long o = 0; o < n; ++o) {
          if (direct[o] > 0.0) worst = std::max(worst, std::abs(fast[o] - direct[o]) / direct[o]);
        }
        INFO("slope " << slope << ", window " << mask.window << ", sinks " << mask.sinks
                      << ", causal " << mask.causal << ", transpose " << transpose
                      << ": max rel diff " << worst);
        CHECK(worst <= 1e-12);
      }
    }
  }
}

TEST_CASE("kernel sums: a table kernel (RoPE's) gathers and scatters as plain loops over the mask",
          "[lab]") {
  // RoPE's kernel has no running sums: both directions go through the direct path, here
  // against out[o] = Σ_k w[k]·K(|o − k|) over the keys o sees (gather) and over the queries
  // that see o (scatter), summed in the same order, with some weights 0 (skipped by the scatter).
  std::mt19937 rng(13);
  std::uniform_real_distribution<double> uniform(0.0, 2.0);
  for (const auto& mask : kMasks) {
    for (long n : {1L, 2L, 17L, 300L}) {
      DistanceBias bias;
      bias.type = attn::PositionalType::rope;
      bias.base = 500.0;
      bias.strength = 4.0;
      const attn::lab::DistanceKernel kernel = attn::lab::distance_kernel(bias, 1.4, n);
      REQUIRE_FALSE(kernel.exponential);
      std::vector<double> w(n);
      for (double& value : w) value = uniform(rng) < 0.3 ? 0.0 : uniform(rng);
      std::vector<double> gather_loop(n, 0.0), scatter_loop(n, 0.0);
      for (long o = 0; o < n; ++o) {
        for (long k = 0; k < n; ++k) {
          if (helpers::api_visible(mask, o, k, n, n))
            gather_loop[o] += w[k] * kernel.table[std::abs(o - k)];
        }
      }
      for (long i = 0; i < n; ++i) {
        for (long j = 0; j < n; ++j) {
          if (helpers::api_visible(mask, i, j, n, n))
            scatter_loop[j] += w[i] * kernel.table[std::abs(i - j)];
        }
      }
      for (KernelPath path : {KernelPath::fast, KernelPath::direct}) {
        std::vector<double> gathered, scattered;
        attn::lab::kernel_sums(kernel, mask, false, w, gathered, path);
        attn::lab::kernel_sums(kernel, mask, true, w, scattered, path);
        double worst = 0.0;
        for (long o = 0; o < n; ++o) {
          worst = std::max(
              worst, std::abs(gathered[o] - gather_loop[o]) / (1.0 + std::abs(gather_loop[o])));
          worst = std::max(
              worst, std::abs(scattered[o] - scatter_loop[o]) / (1.0 + std::abs(scatter_loop[o])));
        }
        INFO("n " << n << ", window " << mask.window << ", sinks " << mask.sinks << ", causal "
                  << mask.causal << ": max rel diff " << worst);
        CHECK(worst <= 1e-14);
      }
    }
  }
}
