#include <cmath>
#include <utility>
#include <vector>
#include <xtensor/xview.hpp>

#include "attn/reference.hpp"
#include "attn/self_attention.hpp"
#include "attn/torch_generator.hpp"
#include "fixtures.hpp"
#include "helpers.hpp"

using Catch::Contains;

namespace {

const nlohmann::json& journey() { return fixtures::example(fixtures::kJourney); }

attn::Projections projections(attn::Matrix wq, attn::Matrix wk, attn::Matrix wv) {
  attn::Projections result;
  result.wq = std::move(wq);
  result.wk = std::move(wk);
  result.wv = std::move(wv);
  return result;
}

}  // namespace

TEST_CASE("self_attention: trainable v1 with torch.rand weights matches the tutorial",
          "[self_attention]") {
  attn::TorchGenerator generator(journey()["trainable_v1"]["seed"].get<std::uint64_t>());
  const attn::Matrix wq = generator.rand(3, 2), wk = generator.rand(3, 2),
                     wv = generator.rand(3, 2);
  const auto result =
      attn::self_attention(fixtures::matrix(journey()["inputs"]), projections(wq, wk, wv));
  CHECK_CLOSE(result.output, fixtures::matrix(journey()["trainable_v1"]["context"]), 1e-4);
  CHECK_CLOSE(result.attention.context, result.output, 0.0);
}

TEST_CASE("self_attention: trainable v2 with nn.Linear weights matches the tutorial",
          "[self_attention]") {
  attn::TorchGenerator generator(journey()["trainable_v2"]["seed"].get<std::uint64_t>());
  const attn::Matrix wq = xt::transpose(generator.linear(3, 2, false).weight);
  const attn::Matrix wk = xt::transpose(generator.linear(3, 2, false).weight);
  const attn::Matrix wv = xt::transpose(generator.linear(3, 2, false).weight);
  const auto result =
      attn::self_attention(fixtures::matrix(journey()["inputs"]), projections(wq, wk, wv));
  CHECK_CLOSE(result.output, fixtures::matrix(journey()["trainable_v2"]["context"]), 1e-4);
}

TEST_CASE("self_attention: without weights q, k and v are x", "[self_attention]") {
  const auto& example = fixtures::example(fixtures::kEmbedding);
  const attn::Matrix x = fixtures::matrix(example["inputs"]);
  attn::AttentionOptions options;
  options.scale.mode = attn::ScaleOption::Mode::none;
  const auto result = attn::self_attention(x, {}, options);
  CHECK_CLOSE(result.q, x, 0.0);
  CHECK_CLOSE(result.k, x, 0.0);
  CHECK_CLOSE(result.v, x, 0.0);
  CHECK_CLOSE(result.output, fixtures::matrix(example["context"]), 1e-4);
}

TEST_CASE("self_attention: the sinusoidal encoding is added to x before projecting",
          "[self_attention]") {
  std::mt19937 rng(71);
  const long n = 7, d_in = 4;
  const attn::Matrix x = helpers::random_matrix(n, d_in, rng);
  attn::Matrix encoded = x;  // x + PE, PE[p][2t] = sin(p / 10000^(2t/d)), PE[p][2t+1] = cos
  for (long p = 0; p < n; ++p) {
    for (long t = 0; t < d_in / 2; ++t) {
      const double angle = p / std::pow(10000.0, 2.0 * t / d_in);
      encoded(p, 2 * t) += float(std::sin(angle));
      encoded(p, 2 * t + 1) += float(std::cos(angle));
    }
  }
  attn::AttentionOptions options;
  options.positional.type = attn::PositionalType::sinusoidal;
  options.mask.causal = true;

  const auto unprojected = attn::self_attention(x, {}, options);
  CHECK_CLOSE(unprojected.q, encoded, 1e-6);

  const attn::Matrix wq = helpers::random_matrix(d_in, 2, rng);
  const attn::Matrix wk = helpers::random_matrix(d_in, 2, rng);
  const attn::Matrix wv = helpers::random_matrix(d_in, 3, rng);
  const auto result = attn::self_attention(x, projections(wq, wk, wv), options);
  CHECK_CLOSE(result.q, attn::reference::matmul(encoded, wq), 1e-5);
  CHECK_CLOSE(result.k, attn::reference::matmul(encoded, wk), 1e-5);
  CHECK_CLOSE(result.v, attn::reference::matmul(encoded, wv), 1e-5);
  attn::AttentionOptions plain;
  plain.mask.causal = true;
  CHECK_CLOSE(result.output, attn::attention(result.q, result.k, result.v, plain).context, 1e-6);
}

TEST_CASE("self_attention: the output projection applies wo then bo", "[self_attention]") {
  std::mt19937 rng(72);
  const attn::Matrix x = helpers::random_matrix(5, 4, rng);
  attn::Projections weights =
      projections(helpers::random_matrix(4, 4, rng), helpers::random_matrix(4, 4, rng),
                  helpers::random_matrix(4, 6, rng));
  weights.wo = helpers::random_matrix(6, 3, rng);
  attn::AttentionOptions options;
  options.heads = 2;
  const auto without_bias = attn::self_attention(x, weights, options);
  const attn::Matrix projected =
      attn::reference::matmul(without_bias.attention.context, *weights.wo);
  CHECK_CLOSE(without_bias.output, projected, 1e-5);

  weights.bo = attn::Vector{0.5f, -1.0f, 2.0f};
  const auto with_bias = attn::self_attention(x, weights, options);
  const attn::Matrix expected = projected + xt::view(*weights.bo, xt::newaxis(), xt::all());
  CHECK_CLOSE(with_bias.output, expected, 1e-5);
}

TEST_CASE("self_attention: projection errors name the weight and both shapes",
          "[self_attention][errors]") {
  std::mt19937 rng(73);
  const attn::Matrix x = helpers::random_matrix(6, 3, rng);
  const attn::Matrix w = helpers::random_matrix(3, 2, rng);
  auto rejects = [&](const attn::Projections& weights, const std::string& words) {
    INFO(words);
    REQUIRE_THROWS_AS(attn::self_attention(x, weights), attn::InvalidArgument);
    REQUIRE_THROWS_WITH(attn::self_attention(x, weights), Contains(words));
  };
  attn::Projections weights;
  weights.wq = w;
  rejects(weights, "wk is missing");
  weights.wk = w;
  rejects(weights, "wv is missing");
  rejects(projections(helpers::random_matrix(4, 2, rng), w, w),
          "wq has 4 rows but x has 3 columns (x is 6×3, wq is 4×2");
  rejects(projections(w, helpers::random_matrix(3, 5, rng), w), "wk has 5 columns but wq has 2");

  weights = projections(w, w, w);
  weights.wo = helpers::random_matrix(3, 4, rng);
  rejects(weights, "wo has 3 rows but v has 2 columns (v is 6×2, wo is 3×4");
  weights.wo = helpers::random_matrix(2, 4, rng);
  weights.bo = attn::Vector{1.0f, 2.0f};
  rejects(weights, "bo has 2 values but wo has 4 columns");
  weights.bo = attn::Vector{1.0f, NAN, 0.0f, 0.0f};
  rejects(weights, "bo[1] is NaN");
  weights.wo.reset();
  rejects(weights, "bo is given without wo");

  attn::Matrix poisoned = x;
  poisoned(4, 0) = INFINITY;
  REQUIRE_THROWS_WITH(attn::self_attention(poisoned, {}), Contains("x[4][0] is Infinity"));
  attn::AttentionOptions options;
  options.heads = 2;  // x has 3 columns
  REQUIRE_THROWS_WITH(attn::self_attention(x, {}, options), Contains("heads (2) must divide dk"));
}

TEST_CASE(
    "self_attention: a part of the rows and heads gives exactly the whole call's numbers, its "
    "heads kept or handed to a sink",
    "[self_attention][part][sink]") {
  std::mt19937 rng(74);
  using attn::PositionalType;
  const long heads = 3, d_in = 10, dh = 4, dvh = 3, d_model = 5;
  int checked = 0;
  for (int weights_kind = 0; weights_kind < 3; ++weights_kind) {  // none, wq/wk/wv, and wo too
    for (PositionalType positional : {PositionalType::none, PositionalType::sinusoidal,
                                      PositionalType::rope, PositionalType::alibi}) {
      for (attn::Kernel kernel : {attn::Kernel::materialized, attn::Kernel::flash}) {
        const long n = 1 + long(rng() % 150);
        // Without projections q = k = v = x, so x needs heads·dh columns (and dh = dvh).
        const attn::Matrix x =
            helpers::random_matrix(n, weights_kind == 0 ? heads * dh : d_in, rng);
        attn::Projections weights;
        if (weights_kind > 0) {
          weights = projections(helpers::random_matrix(d_in, heads * dh, rng),
                                helpers::random_matrix(d_in, heads * dh, rng),
                                helpers::random_matrix(d_in, heads * dvh, rng));
        }
        if (weights_kind == 2) {
          weights.wo = helpers::random_matrix(heads * dvh, d_model, rng);
          weights.bo = attn::Vector{0.5f, -1.0f, 2.0f, 0.25f, 0.0f};
        }
        attn::AttentionOptions options;
        options.heads = heads;
        options.mask.causal = checked % 2 == 0;
        options.mask.prefix = checked % 4 == 0 ? 5 : 0;
        options.positional.type = positional;
        options.kernel = kernel;
        const auto whole = attn::self_attention(x, weights, options);
        const attn::Range rows = helpers::random_range(n, rng);
        // The output projection mixes the heads: with wo a part takes every head.
        const attn::Range part_heads =
            weights_kind == 2 ? attn::Range{0, heads} : helpers::random_range(heads, rng);
        INFO("weights " << weights_kind << ", " << attn::to_string(positional) << ", "
                        << attn::to_string(kernel) << ", n " << n << ", rows [" << rows.begin
                        << ", " << rows.end << "), heads [" << part_heads.begin << ", "
                        << part_heads.end << ")");
        options.part = {rows, part_heads};
        const auto part = attn::self_attention(x, weights, options);
        const std::size_t qk_width = whole.q.shape(1) / heads, v_width = whole.v.shape(1) / heads;
        CHECK(helpers::first_block_difference(whole.q, rows.begin, part_heads.begin * qk_width,
                                              part.q) == -1);
        CHECK(helpers::first_block_difference(whole.k, 0, part_heads.begin * qk_width, part.k) ==
              -1);
        CHECK(helpers::first_block_difference(whole.v, 0, part_heads.begin * v_width, part.v) ==
              -1);
        helpers::check_part(whole.attention, part.attention, rows, part_heads, heads);
        const std::size_t output_col = weights_kind == 2 ? 0 : part_heads.begin * v_width;
        CHECK(helpers::first_block_difference(whole.output, rows.begin, output_col, part.output) ==
              -1);
        std::vector<attn::Matrix> sunk_scores, sunk_weights;
        auto sunk = attn::self_attention(
            x, weights, options,
            [&](long, const attn::Matrix& scores, const attn::Matrix& weights_of_head) {
              sunk_scores.push_back(scores);
              sunk_weights.push_back(weights_of_head);
            });
        CHECK(sunk.attention.scores.empty());
        sunk.attention.scores = std::move(sunk_scores);
        sunk.attention.weights = std::move(sunk_weights);
        helpers::check_part(whole.attention, sunk.attention, rows, part_heads, heads);
        CHECK(helpers::first_block_difference(whole.output, rows.begin, output_col, sunk.output) ==
              -1);
        ++checked;
      }
    }
  }
  CHECK(checked == 24);
}

TEST_CASE("self_attention: a part of the heads with wo is rejected: wo mixes every head",
          "[self_attention][part][errors]") {
  std::mt19937 rng(75);
  const attn::Matrix x = helpers::random_matrix(4, 4, rng);
  attn::Projections weights =
      projections(helpers::random_matrix(4, 4, rng), helpers::random_matrix(4, 4, rng),
                  helpers::random_matrix(4, 4, rng));
  weights.wo = helpers::random_matrix(4, 2, rng);
  attn::AttentionOptions options;
  options.heads = 2;
  options.part.heads = attn::Range{1, 2};
  REQUIRE_THROWS_WITH(attn::self_attention(x, weights, options),
                      Contains("part.heads must be every head, [0, 2], when wo is given"));
}

TEST_CASE("self_attention: with kvHeads, wk and wv of G heads give attention of the projections",
          "[self_attention][grouped]") {
  std::mt19937 rng(76);
  const long d_in = 10, dh = 4, dvh = 3, d_model = 5;
  for (const auto& [heads, kv_heads] : helpers::grouped_head_pairs()) {
    for (attn::Kernel kernel : {attn::Kernel::materialized, attn::Kernel::flash}) {
      const long n = 1 + long(rng() % 70);
      const attn::Matrix x = helpers::random_matrix(n, d_in, rng);
      attn::Projections weights = projections(helpers::random_matrix(d_in, heads * dh, rng),
                                              helpers::random_matrix(d_in, kv_heads * dh, rng),
                                              helpers::random_matrix(d_in, kv_heads * dvh, rng));
      weights.wo = helpers::random_matrix(heads * dvh, d_model, rng);
      attn::AttentionOptions options;
      options.heads = heads;
      options.kv_heads = kv_heads;
      options.mask.causal = true;
      options.positional.type = attn::PositionalType::rope;
      options.kernel = kernel;
      INFO("heads " << heads << ", kvHeads " << kv_heads << ", " << attn::to_string(kernel));
      const auto result = attn::self_attention(x, weights, options);
      REQUIRE(result.k.shape(1) == std::size_t(kv_heads * dh));
      REQUIRE(result.v.shape(1) == std::size_t(kv_heads * dvh));
      REQUIRE(result.attention.context.shape(1) == std::size_t(heads * dvh));
      // q, k and v are x times their own weights (wk and wv of G heads' columns)
      CHECK_CLOSE(result.q, attn::reference::matmul(x, *weights.wq), 1e-5);
      CHECK_CLOSE(result.k, attn::reference::matmul(x, *weights.wk), 1e-5);
      CHECK_CLOSE(result.v, attn::reference::matmul(x, *weights.wv), 1e-5);
      const auto direct = attn::attention(result.q, result.k, result.v, options);
      CHECK(helpers::first_block_difference(direct.context, 0, 0, result.attention.context) == -1);
      CHECK_CLOSE(result.attention.context,
                  attn::reference::attention(result.q, result.k, result.v, options).context, 1e-5);
      CHECK_CLOSE(result.output, attn::reference::matmul(direct.context, *weights.wo), 1e-5);
    }
  }
}

TEST_CASE(
    "self_attention: a part of the rows and heads with kvHeads gives the whole call's "
    "numbers",
    "[self_attention][part][grouped]") {
  std::mt19937 rng(77);
  const long d_in = 9, dh = 2, dvh = 3;
  for (const auto& [heads, kv_heads] : helpers::grouped_head_pairs()) {
    for (attn::PositionalType positional :
         {attn::PositionalType::none, attn::PositionalType::rope, attn::PositionalType::alibi}) {
      for (attn::Kernel kernel : {attn::Kernel::materialized, attn::Kernel::flash}) {
        const long n = 1 + long(rng() % 150);
        const attn::Matrix x = helpers::random_matrix(n, d_in, rng);
        const attn::Projections weights =
            projections(helpers::random_matrix(d_in, heads * dh, rng),
                        helpers::random_matrix(d_in, kv_heads * dh, rng),
                        helpers::random_matrix(d_in, kv_heads * dvh, rng));
        attn::AttentionOptions options;
        options.heads = heads;
        options.kv_heads = kv_heads;
        options.mask.causal = true;
        options.positional.type = positional;
        options.kernel = kernel;
        const auto whole = attn::self_attention(x, weights, options);
        const attn::Range rows = helpers::random_range(n, rng),
                          part_heads = helpers::random_range(heads, rng);
        // The key/value heads the part's query heads read: ⌊h·G/H⌋ for its first and last.
        const long first_kv = part_heads.begin * kv_heads / heads;
        const long kv_end = (part_heads.end - 1) * kv_heads / heads + 1;
        INFO("heads " << heads << ", kvHeads " << kv_heads << ", " << attn::to_string(positional)
                      << ", " << attn::to_string(kernel) << ", n " << n << ", rows [" << rows.begin
                      << ", " << rows.end << "), heads [" << part_heads.begin << ", "
                      << part_heads.end << ")");
        options.part = {rows, part_heads};
        const auto part = attn::self_attention(x, weights, options);
        REQUIRE(part.k.shape(1) == std::size_t((kv_end - first_kv) * dh));
        REQUIRE(part.v.shape(1) == std::size_t((kv_end - first_kv) * dvh));
        // Bit for bit: every product in the core is a chain of multiply-adds fused where the
        // target has FMA and nowhere else (simd::multiply_add, -ffp-contract=off), so x·W over
        // some of W's columns rounds as x·W over all of them, whichever block or edge a column
        // falls on.
        CHECK(helpers::first_block_difference(whole.q, rows.begin, part_heads.begin * dh, part.q) ==
              -1);
        CHECK(helpers::first_block_difference(whole.k, 0, first_kv * dh, part.k) == -1);
        CHECK(helpers::first_block_difference(whole.v, 0, first_kv * dvh, part.v) == -1);
        CHECK(helpers::first_block_difference(whole.attention.context, rows.begin,
                                              part_heads.begin * dvh,
                                              part.attention.context) == -1);
      }
    }
  }
}

TEST_CASE("self_attention: kvHeads errors name wk, wv, wo and the columns expected",
          "[self_attention][grouped][errors]") {
  std::mt19937 rng(78);
  const attn::Matrix x = helpers::random_matrix(5, 4, rng);
  attn::AttentionOptions options;
  options.heads = 4;
  options.kv_heads = 2;
  auto rejects = [&](const attn::Projections& weights, const std::string& words) {
    INFO(words);
    REQUIRE_THROWS_AS(attn::self_attention(x, weights, options), attn::InvalidArgument);
    REQUIRE_THROWS_WITH(attn::self_attention(x, weights, options), Contains(words));
  };
  // Without weights q = k = v = x: k cannot have fewer heads than q.
  rejects({}, "kvHeads below heads needs wq, wk and wv");
  // wq: 4×8 (4 heads of 2), so wk must be 4×(2·2) and wv 4×(2·dvh).
  const attn::Matrix wq = helpers::random_matrix(4, 8, rng);
  rejects(projections(wq, helpers::random_matrix(4, 8, rng), helpers::random_matrix(4, 6, rng)),
          "wk has 8 columns but kvHeads · dh = 2 · 2 = 4 (dh = the 8 columns of wq / heads 4)");
  rejects(projections(wq, helpers::random_matrix(4, 4, rng), helpers::random_matrix(4, 5, rng)),
          "kvHeads (2) must divide dv, the 5 columns of wv");
  attn::Projections weights =
      projections(wq, helpers::random_matrix(4, 4, rng), helpers::random_matrix(4, 6, rng));
  // The context is 4 heads of 3 = 12 columns, not v's 6.
  weights.wo = helpers::random_matrix(6, 2, rng);
  rejects(weights, "wo has 6 rows but the context has 12 columns");
  weights.wo = helpers::random_matrix(12, 2, rng);
  CHECK(attn::self_attention(x, weights, options).output.shape(1) == 2);
}
