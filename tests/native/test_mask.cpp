#include <cmath>
#include <limits>

#include "attn/attention.hpp"
#include "attn/mask.hpp"
#include "helpers.hpp"

using Catch::Contains;

namespace {

// Every (causal, window, sinks) setting worth telling apart on sequences of up to ~12.
std::vector<attn::MaskOptions> mask_settings() {
  std::vector<attn::MaskOptions> settings;
  for (bool causal : {false, true}) {
    for (long window : {0L, 1L, 2L, 5L, 20L}) {
      for (long sinks : {0L, 1L, 3L, 30L}) {
        for (long prefix : {0L, 3L}) settings.push_back({causal, window, sinks, prefix});
      }
    }
  }
  return settings;
}

}  // namespace

TEST_CASE("mask: visible_keys shows exactly the keys the README's options define", "[mask]") {
  const long n = GENERATE(1L, 4L, 9L);
  const long m = GENERATE(1L, 4L, 12L);
  for (const attn::MaskOptions& mask : mask_settings()) {
    INFO("n " << n << ", m " << m << ", causal " << mask.causal << ", window " << mask.window
              << ", sinks " << mask.sinks << ", prefix " << mask.prefix);
    for (long i = 0; i < n; ++i) {
      const attn::VisibleKeys visible = attn::visible_keys(mask, i, n, m);
      bool any = false;
      for (long j = 0; j < m; ++j) {
        INFO("query " << i << ", key " << j);
        CHECK(visible.contains(j) == helpers::api_visible(mask, i, j, n, m));
        any = any || helpers::api_visible(mask, i, j, n, m);
      }
      CHECK(visible.empty() == !any);
    }
  }
}

TEST_CASE("causal mask: nothing above the offset diagonal", "[mask]") {
  std::mt19937 rng(11);
  const long n = GENERATE(1L, 5L, 17L, 40L);
  const long m = GENERATE(1L, 6L, 17L, 70L);
  const long heads = GENERATE(1L, 3L);
  attn::AttentionOptions options;
  options.heads = heads;
  options.mask.causal = true;
  const auto result = attn::attention(helpers::random_matrix(n, 2 * heads, rng),
                                      helpers::random_matrix(m, 2 * heads, rng),
                                      helpers::random_matrix(m, heads, rng), options);
  for (long h = 0; h < heads; ++h) {
    for (long i = 0; i < n; ++i) {
      for (long j = 0; j < m; ++j) {
        INFO("n " << n << ", m " << m << ", head " << h << ", query " << i << ", key " << j);
        const bool above = j > i + (m - n);
        CHECK((result.scores[h](i, j) == -INFINITY) == above);
        CHECK((result.weights[h](i, j) == 0.0f) == above);
      }
    }
  }
}

TEST_CASE("mask: attention hides exactly the keys a window with sinks hides", "[mask]") {
  std::mt19937 rng(12);
  const long n = GENERATE(3L, 10L);
  const long m = GENERATE(4L, 10L, 13L);
  for (const attn::MaskOptions& mask : mask_settings()) {
    INFO("n " << n << ", m " << m << ", causal " << mask.causal << ", window " << mask.window
              << ", sinks " << mask.sinks << ", prefix " << mask.prefix);
    attn::AttentionOptions options;
    options.mask = mask;
    const auto result =
        attn::attention(helpers::random_matrix(n, 4, rng), helpers::random_matrix(m, 4, rng),
                        helpers::random_matrix(m, 2, rng), options);
    for (long i = 0; i < n; ++i) {
      for (long j = 0; j < m; ++j) {
        INFO("query " << i << ", key " << j);
        const bool visible = helpers::api_visible(mask, i, j, n, m);
        CHECK(std::isfinite(result.scores[0](i, j)) == visible);
        CHECK((result.weights[0](i, j) > 0.0f) == visible);
      }
    }
  }
}

TEST_CASE("mask: sinks have no effect without a window", "[mask]") {
  for (bool causal : {false, true}) {
    for (long i = 0; i < 6; ++i) {
      const attn::VisibleKeys with_sinks = attn::visible_keys({causal, 0, 4}, i, 6, 9);
      const attn::VisibleKeys without = attn::visible_keys({causal, 0, 0}, i, 6, 9);
      for (long j = 0; j < 9; ++j) CHECK(with_sinks.contains(j) == without.contains(j));
    }
  }
  // With a window the same sinks do show keys the window hides.
  CHECK(attn::visible_keys({true, 2, 4}, 5, 6, 9).contains(0));
  CHECK_FALSE(attn::visible_keys({true, 2, 0}, 5, 6, 9).contains(0));
}

TEST_CASE("mask: a window or sinks of LONG_MAX keys shows every key", "[mask]") {
  const long huge = std::numeric_limits<long>::max();
  for (long i = 0; i < 5; ++i) {
    for (const attn::MaskOptions mask :
         {attn::MaskOptions{false, huge, 0}, attn::MaskOptions{false, 1, huge}}) {
      const attn::VisibleKeys visible = attn::visible_keys(mask, i, 5, 8);
      for (long j = 0; j < 8; ++j) CHECK(visible.contains(j));
    }
    const attn::VisibleKeys causal = attn::visible_keys({true, huge, huge}, i, 5, 8);
    for (long j = 0; j < 8; ++j) CHECK(causal.contains(j) == (j <= i + 3));
  }
  std::mt19937 rng(14);
  const attn::Matrix q = helpers::random_matrix(9, 2, rng), k = helpers::random_matrix(4, 2, rng);
  attn::AttentionOptions options;
  const auto unwindowed = attn::attention(q, k, k, options);
  options.mask.window = huge;
  CHECK_CLOSE(attn::attention(q, k, k, options).weights[0], unwindowed.weights[0], 0.0);
}

TEST_CASE("mask: a negative window or negative sinks is rejected", "[mask][errors]") {
  REQUIRE_NOTHROW(attn::validate(attn::MaskOptions{true, 0, 0}));
  REQUIRE_THROWS_AS(attn::validate(attn::MaskOptions{false, -1, 0}), attn::InvalidArgument);
  REQUIRE_THROWS_WITH(attn::validate(attn::MaskOptions{false, -1, 0}),
                      Contains("window") && Contains("-1"));
  REQUIRE_THROWS_WITH(attn::validate(attn::MaskOptions{false, 4, -2}),
                      Contains("sinks") && Contains("-2"));
}

TEST_CASE("causal mask with a prefix: the prefix sees itself both ways, the rest stays causal",
          "[mask]") {
  attn::MaskOptions mask;
  mask.causal = true;
  mask.prefix = 3;
  // queries 0..2 see keys 0..2; query 3, the first after the prefix, keys 0..3; query 4 keys 0..4
  for (long i = 0; i < 3; ++i) {
    const attn::VisibleKeys keys = attn::visible_keys(mask, i, 6, 6);
    CHECK(keys.band_begin == 0);
    CHECK(keys.band_end == 3);
  }
  CHECK(attn::visible_keys(mask, 3, 6, 6).band_begin == 0);
  CHECK(attn::visible_keys(mask, 3, 6, 6).band_end == 4);
  CHECK(attn::visible_keys(mask, 4, 6, 6).band_end == 5);
  mask.prefix = -1;
  CHECK_THROWS_WITH(attn::validate(mask),
                    Catch::Contains("prefix must be 0 (none) or a positive number"));
}
