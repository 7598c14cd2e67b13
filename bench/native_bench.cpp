// Native benchmark of the engine's kernels: the same core that runs in wasm, built with
// g++ -O3 -march=native. Prints one JSON object per line on stdout, for bench/run.mjs:
//   {"n": 1024, "d": 64, "causal": false, "kernel": "flash", "seconds": 0.00248}
// Variants are interleaved round by round; the median of the rounds is reported.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "attn/attention.hpp"

namespace {

constexpr long kHeadWidth = 64;  // d

struct Variant {
  long n;
  bool causal;
  attn::Kernel kernel;
  std::vector<double> seconds;
};

attn::Matrix random_matrix(long rows, long cols, std::mt19937& rng) {
  std::normal_distribution<float> normal(0.0f, 1.0f);
  attn::Matrix matrix = attn::Matrix::from_shape({std::size_t(rows), std::size_t(cols)});
  for (float& value : matrix) value = normal(rng);
  return matrix;
}

double time_once(const Variant& variant, const attn::Matrix& q, const attn::Matrix& k,
                 const attn::Matrix& v) {
  attn::AttentionOptions options;
  options.mask.causal = variant.causal;
  options.kernel = variant.kernel;
  const auto start = std::chrono::steady_clock::now();
  const attn::AttentionResult result = attn::attention(q, k, v, options);
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
  if (!std::isfinite(result.context(0, 0))) std::fprintf(stderr, "non-finite result\n");
  return elapsed.count();
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  // Sizes and rounds come from the command line: native_bench ROUNDS N...
  const int rounds = argc > 1 ? std::stoi(argv[1]) : 5;
  std::vector<long> sizes;
  for (int a = 2; a < argc; ++a) sizes.push_back(std::stol(argv[a]));
  if (sizes.empty()) sizes = {256, 1024, 4096};

  std::vector<Variant> variants;
  for (long n : sizes) {
    for (bool causal : {false, true}) {
      for (attn::Kernel kernel : {attn::Kernel::materialized, attn::Kernel::flash}) {
        const double bytes = 2.0 * n * n * sizeof(float);
        if (kernel == attn::Kernel::materialized && bytes > attn::kMaterializedBudgetBytes)
          continue;
        variants.push_back({n, causal, kernel, {}});
      }
    }
  }
  std::mt19937 rng(42);
  std::vector<std::vector<attn::Matrix>> inputs;
  for (long n : sizes) {
    inputs.push_back({random_matrix(n, kHeadWidth, rng), random_matrix(n, kHeadWidth, rng),
                      random_matrix(n, kHeadWidth, rng)});
  }
  const auto inputs_for = [&](long n) -> const std::vector<attn::Matrix>& {
    return inputs[std::find(sizes.begin(), sizes.end(), n) - sizes.begin()];
  };

  for (Variant& variant : variants) {  // warm-up
    const auto& qkv = inputs_for(variant.n);
    time_once(variant, qkv[0], qkv[1], qkv[2]);
  }
  for (int round = 0; round < rounds; ++round) {
    for (Variant& variant : variants) {
      const auto& qkv = inputs_for(variant.n);
      variant.seconds.push_back(time_once(variant, qkv[0], qkv[1], qkv[2]));
    }
  }
  for (const Variant& variant : variants) {
    std::printf("{\"n\": %ld, \"d\": %ld, \"causal\": %s, \"kernel\": \"%s\", \"seconds\": %.6g}\n",
                variant.n, kHeadWidth, variant.causal ? "true" : "false",
                attn::to_string(variant.kernel), median(variant.seconds));
  }
  return 0;
}
