#include <cmath>
#include <string>
#include <utility>
#include <vector>
#include <xtensor/xmanipulation.hpp>
#include <xtensor/xview.hpp>

#include "attn/attention.hpp"
#include "fixtures.hpp"
#include "helpers.hpp"

using Catch::Contains;

namespace {

// Columns [first, first + count) of row i of a dotted with row j of b, in double.
double dot(const attn::Matrix& a, long i, const attn::Matrix& b, long j, long first, long count) {
  double sum = 0.0;
  for (long t = first; t < first + count; ++t) sum += double(a(i, t)) * b(j, t);
  return sum;
}

attn::AttentionOptions with_heads(long heads) {
  attn::AttentionOptions options;
  options.heads = heads;
  return options;
}

}  // namespace

TEST_CASE("attention: kernel names match the JavaScript API", "[attention]") {
  CHECK(std::string(attn::to_string(attn::Kernel::automatic)) == "auto");
  CHECK(std::string(attn::to_string(attn::Kernel::materialized)) == "materialized");
  CHECK(std::string(attn::to_string(attn::Kernel::flash)) == "flash");
}

TEST_CASE("attention: scale true is 1/sqrt(dh), false is 1 and a number multiplies",
          "[attention]") {
  using Mode = attn::ScaleOption::Mode;
  CHECK(attn::score_scale({Mode::inverse_sqrt_head_width, 1.0}, 16) == 0.25f);
  CHECK(attn::score_scale({Mode::none, 3.0}, 16) == 1.0f);
  CHECK(attn::score_scale({Mode::factor, 3.0}, 16) == 3.0f);

  std::mt19937 rng(41);
  const attn::Matrix q = helpers::random_matrix(3, 8, rng), k = helpers::random_matrix(5, 8, rng);
  const attn::Matrix v = helpers::random_matrix(5, 2, rng);
  const struct {
    attn::ScaleOption scale;
    double factor;
  } cases[] = {{{Mode::inverse_sqrt_head_width, 1.0}, 0.5},  // two heads of width 4
               {{Mode::none, 1.0}, 1.0},
               {{Mode::factor, -0.75}, -0.75}};
  for (const auto& test : cases) {
    INFO("expected factor " << test.factor);
    attn::AttentionOptions options = with_heads(2);
    options.scale = test.scale;
    const auto result = attn::attention(q, k, v, options);
    for (long h = 0; h < 2; ++h) {
      for (long i = 0; i < 3; ++i) {
        for (long j = 0; j < 5; ++j) {
          CHECK(result.scores[h](i, j) ==
                Approx(test.factor * dot(q, i, k, j, 4 * h, 4)).margin(1e-6));
        }
      }
    }
  }
}

TEST_CASE("attention: without scaling it reproduces the embedding tutorial", "[attention]") {
  const auto& example = fixtures::example(fixtures::kEmbedding);
  const attn::Matrix x = fixtures::matrix(example["inputs"]);
  attn::AttentionOptions options;
  options.scale.mode = attn::ScaleOption::Mode::none;
  const auto result = attn::attention(x, x, x, options);
  REQUIRE(result.kernel_used == attn::Kernel::materialized);
  CHECK_CLOSE(result.scores[0], fixtures::matrix(example["scores"]), 1e-4);
  CHECK_CLOSE(result.weights[0], fixtures::matrix(example["weights_softmax"]), 1e-4);
  CHECK_CLOSE(result.context, fixtures::matrix(example["context"]), 1e-4);
}

TEST_CASE("attention: ALiBi adds minus slope times distance to the scaled scores", "[attention]") {
  std::mt19937 rng(42);
  const bool causal = GENERATE(false, true);
  const bool own_slopes = GENERATE(false, true);
  const long n = GENERATE(4L, 9L), m = 7, heads = 2;
  const attn::Matrix q = helpers::random_matrix(n, 6, rng), k = helpers::random_matrix(m, 6, rng);
  const attn::Matrix v = helpers::random_matrix(m, 2, rng);
  attn::AttentionOptions plain = with_heads(heads);
  plain.scale.mode = attn::ScaleOption::Mode::factor;
  plain.scale.factor = 0.3;  // the bias must not be scaled with the scores
  plain.mask.causal = causal;
  attn::AttentionOptions alibi = plain;
  alibi.positional.type = attn::PositionalType::alibi;
  if (own_slopes) alibi.positional.slopes = {0.7f, 2.0f};
  const std::vector<double> slopes =
      own_slopes ? std::vector<double>{0.7, 2.0} : std::vector<double>{1.0 / 16, 1.0 / 256};
  const auto without = attn::attention(q, k, v, plain);
  const auto with = attn::attention(q, k, v, alibi);
  for (long h = 0; h < heads; ++h) {
    for (long i = 0; i < n; ++i) {
      for (long j = 0; j < m; ++j) {
        if (without.scores[h](i, j) == -INFINITY) continue;
        const long distance = i + (m - n) - j;
        const double bias = -slopes[h] * (causal ? distance : std::abs(distance));
        INFO("head " << h << ", query " << i << ", key " << j);
        CHECK(with.scores[h](i, j) == Approx(without.scores[h](i, j) + bias).margin(1e-5));
      }
    }
  }
}

TEST_CASE("attention: RoPE puts query i at position i + m - n and key j at j", "[attention]") {
  std::mt19937 rng(43);
  const auto pairing = GENERATE(attn::RopePairing::interleaved, attn::RopePairing::half);
  const long n = GENERATE(5L, 11L), m = 8, heads = 2, head_width = 4;
  // Every query row equal and every key row equal: only positions tell scores apart.
  const attn::Matrix q_row = helpers::random_matrix(1, heads * head_width, rng);
  const attn::Matrix k_row = helpers::random_matrix(1, heads * head_width, rng);
  const attn::Matrix q = xt::repeat(q_row, n, 0), k = xt::repeat(k_row, m, 0);
  attn::AttentionOptions options = with_heads(heads);
  options.positional.type = attn::PositionalType::rope;
  options.positional.pairing = pairing;
  const auto result = attn::attention(q, k, helpers::random_matrix(m, 2, rng), options);
  for (long h = 0; h < heads; ++h) {
    const double same_position = dot(q_row, 0, k_row, 0, h * head_width, head_width) / 2.0;
    for (long i = 0; i < n; ++i) {
      for (long j = 0; j < m; ++j) {
        const long distance = i + (m - n) - j;
        INFO(attn::to_string(pairing) << ", head " << h << ", query " << i << ", key " << j);
        if (distance == 0) CHECK(result.scores[h](i, j) == Approx(same_position).margin(1e-5));
        if (i > 0 && j > 0) {
          CHECK(result.scores[h](i, j) == Approx(result.scores[h](i - 1, j - 1)).margin(1e-5));
        }
      }
    }
  }
}

TEST_CASE("attention: heads split the columns and concatenate their contexts", "[attention]") {
  std::mt19937 rng(44);
  const long heads = 3, n = 6, m = 10;
  const attn::Matrix q = helpers::random_matrix(n, 3 * heads, rng);
  const attn::Matrix k = helpers::random_matrix(m, 3 * heads, rng);
  const attn::Matrix v = helpers::random_matrix(m, 2 * heads, rng);
  attn::AttentionOptions options = with_heads(heads);
  options.mask.causal = true;
  options.positional.type = attn::PositionalType::alibi;
  options.positional.slopes = {0.1f, 0.2f, 0.3f};
  const auto together = attn::attention(q, k, v, options);
  for (long h = 0; h < heads; ++h) {
    INFO("head " << h);
    attn::AttentionOptions single = options;
    single.heads = 1;
    single.positional.slopes = {options.positional.slopes[h]};
    // One head of width 3 keeps the scale 1/sqrt(3) of a head in the split.
    const auto alone = attn::attention(xt::view(q, xt::all(), xt::range(3 * h, 3 * h + 3)),
                                       xt::view(k, xt::all(), xt::range(3 * h, 3 * h + 3)),
                                       xt::view(v, xt::all(), xt::range(2 * h, 2 * h + 2)), single);
    CHECK_CLOSE(together.weights[h], alone.weights[0], 1e-6);
    const attn::Matrix slice = xt::view(together.context, xt::all(), xt::range(2 * h, 2 * h + 2));
    CHECK_CLOSE(slice, alone.context, 1e-6);
  }
}

TEST_CASE("attention: fully masked rows give zero weights and zero context, never NaN",
          "[attention]") {
  std::mt19937 rng(45);
  const long n = 50, m = 20;  // causal with m < n: queries 0..29 see no key
  const attn::Matrix q = helpers::random_matrix(n, 4, rng, 0.1f, 1.0f);
  const attn::Matrix k = helpers::random_matrix(m, 4, rng, 0.1f, 1.0f);
  const attn::Matrix v = helpers::random_matrix(m, 4, rng);
  const auto normalization = GENERATE(attn::Normalization::softmax,
                                      attn::Normalization::naive_softmax, attn::Normalization::sum);
  const auto kernel = GENERATE(attn::Kernel::materialized, attn::Kernel::flash);
  INFO(attn::to_string(normalization) << ", " << attn::to_string(kernel));
  attn::AttentionOptions options = with_heads(2);
  options.mask.causal = true;
  options.normalization = normalization;
  options.kernel = kernel;
  const auto result = attn::attention(q, k, v, options);
  for (long i = 0; i < n; ++i) {
    const bool masked = i < n - m;
    for (long t = 0; t < 4; ++t) {
      CHECK(std::isfinite(result.context(i, t)));
      if (masked) CHECK(result.context(i, t) == 0.0f);
    }
    for (const attn::Matrix& weights : result.weights) {
      for (long j = 0; j < m; ++j) {
        if (masked) CHECK(weights(i, j) == 0.0f);
      }
    }
  }
  CHECK(result.context(n - 1, 0) != 0.0f);
}

TEST_CASE("attention: softmax stays finite for scores of plus or minus 1e30 in both kernels",
          "[attention]") {
  const attn::Matrix q = {{1e15f}}, k = {{1e15f}, {-1e15f}, {1e15f}, {0.0f}};
  const attn::Matrix v = {{1.0f}, {100.0f}, {3.0f}, {100.0f}};
  for (auto kernel : {attn::Kernel::materialized, attn::Kernel::flash}) {
    INFO(attn::to_string(kernel));
    attn::AttentionOptions options;
    options.scale.mode = attn::ScaleOption::Mode::none;
    options.kernel = kernel;
    const auto result = attn::attention(q, k, v, options);
    CHECK(result.context(0, 0) == Approx(2.0));  // half of key 0, half of key 2
    if (kernel == attn::Kernel::materialized) {
      CHECK(result.scores[0](0, 1) == Approx(-1e30));
      CHECK_CLOSE(result.weights[0], (attn::Matrix{{0.5f, 0.0f, 0.5f, 0.0f}}), 0.0);
    }
  }
}

TEST_CASE("attention: the automatic kernel materialises small inputs and streams large ones",
          "[attention]") {
  std::mt19937 rng(46);
  const auto small =
      attn::attention(helpers::random_matrix(4, 2, rng), helpers::random_matrix(6, 2, rng),
                      helpers::random_matrix(6, 2, rng));
  CHECK(small.kernel_used == attn::Kernel::materialized);
  CHECK(small.scores.size() == 1);
  CHECK(small.weights.size() == 1);

  // 2 matrices · 12000² · 4 bytes > 1 GiB. A causal window of 1 shows each query only
  // itself, so the context is v and the flash kernel computes only the diagonal tiles.
  const long n = 12000;
  const attn::Matrix x = helpers::random_matrix(n, 1, rng);
  const attn::Matrix v = helpers::random_matrix(n, 2, rng);
  attn::AttentionOptions options;
  options.mask = {true, 1, 0};
  const auto large = attn::attention(x, x, v, options);
  CHECK(large.kernel_used == attn::Kernel::flash);
  CHECK(large.scores.empty());
  CHECK(large.weights.empty());
  CHECK_CLOSE(large.context, v, 0.0);
}

TEST_CASE("attention: shape mismatches name both shapes", "[attention][errors]") {
  const auto q = attn::Matrix::from_shape({2, 3});
  REQUIRE_THROWS_AS(
      attn::attention(q, attn::Matrix::from_shape({5, 4}), attn::Matrix::from_shape({5, 2})),
      attn::InvalidArgument);
  REQUIRE_THROWS_WITH(
      attn::attention(q, attn::Matrix::from_shape({5, 4}), attn::Matrix::from_shape({5, 2})),
      Contains("k has 4 columns but q has 3") && Contains("q is 2×3") && Contains("k is 5×4"));
  REQUIRE_THROWS_WITH(
      attn::attention(q, attn::Matrix::from_shape({5, 3}), attn::Matrix::from_shape({4, 2})),
      Contains("v has 4 rows but k has 5") && Contains("k is 5×3") && Contains("v is 4×2"));
  REQUIRE_THROWS_WITH(attn::attention(attn::Matrix::from_shape({0, 3}), q, q),
                      Contains("q is 0×3"));
}

TEST_CASE("attention: a NaN or infinite input is reported with its position",
          "[attention][errors]") {
  attn::Matrix q = xt::zeros<float>({2, 3}), k = xt::zeros<float>({4, 3});
  attn::Matrix v = xt::zeros<float>({4, 2});
  q(1, 2) = NAN;
  REQUIRE_THROWS_WITH(attn::attention(q, k, v), Contains("q[1][2] is NaN"));
  q(1, 2) = 0.0f;
  k(3, 0) = INFINITY;
  REQUIRE_THROWS_WITH(attn::attention(q, k, v), Contains("k[3][0] is Infinity"));
  k(3, 0) = 0.0f;
  v(2, 1) = -INFINITY;
  REQUIRE_THROWS_WITH(attn::attention(q, k, v), Contains("v[2][1] is -Infinity"));
}

TEST_CASE("attention: options that do not fit are rejected naming the option",
          "[attention][errors]") {
  const attn::Matrix q = xt::zeros<float>({2, 6}), v = xt::zeros<float>({3, 4});
  const attn::Matrix k = xt::zeros<float>({3, 6});
  auto rejects = [&](const attn::AttentionOptions& options, const std::string& words) {
    INFO(words);
    REQUIRE_THROWS_AS(attn::attention(q, k, v, options), attn::InvalidArgument);
    REQUIRE_THROWS_WITH(attn::attention(q, k, v, options), Contains(words));
  };
  rejects(with_heads(0), "heads must be a whole number");
  rejects(with_heads(4), "heads (4) must divide dk, the 6 columns");
  rejects(with_heads(3), "heads (3) must divide dv, the 4 columns");
  attn::AttentionOptions options = with_heads(2);
  options.mask.window = -3;
  rejects(options, "window");
  options.mask = {false, 2, -1};
  rejects(options, "sinks");
  options = with_heads(2);
  options.positional.type = attn::PositionalType::alibi;
  options.positional.slopes = {0.5f};
  rejects(options, "positional.slopes has 1 values but heads is 2");
  options.positional = {};
  options.positional.type = attn::PositionalType::rope;  // heads of width 3
  rejects(options, "positional rope needs an even head width");
  options.positional.type = attn::PositionalType::sinusoidal;
  rejects(options, "self_attention");
  options.positional = {};
  options.scale.mode = attn::ScaleOption::Mode::factor;
  options.scale.factor = NAN;
  rejects(options, "scale must be true, false or a finite number, got NaN");
}

TEST_CASE("attention: the automatic kernel materialises up to the budget's last byte",
          "[attention]") {
  // 128 heads of width 1 over 1,024 × 1,024: scores and weights take 2 · 128 · 1024² · 4 bytes,
  // the budget exactly (a HeadSink holds one head's at a time); one key more is beyond it.
  const long heads = 128, n = 1024;
  REQUIRE(2 * heads * n * n * 4 == long(attn::kMaterializedBudgetBytes));
  const attn::Matrix q = xt::zeros<float>({std::size_t(n), std::size_t(heads)});
  long sunk = 0;
  const attn::HeadSink count_heads = [&sunk](long, const attn::Matrix&, const attn::Matrix&) {
    ++sunk;
  };
  attn::AttentionOptions options = with_heads(heads);
  CHECK(attn::attention(q, q, q, options, count_heads).kernel_used == attn::Kernel::materialized);
  CHECK(sunk == heads);
  const attn::Matrix longer = xt::zeros<float>({std::size_t(n + 1), std::size_t(heads)});
  CHECK(attn::attention(q, longer, longer, options, count_heads).kernel_used ==
        attn::Kernel::flash);
  CHECK(sunk == heads);  // flash has no matrices to hand over
  options.kernel = attn::Kernel::materialized;
  CHECK_THROWS_WITH(attn::attention(q, longer, longer, options, count_heads),
                    Contains("1074790400 bytes, more than the 1073741824-byte budget"));
}

TEST_CASE("attention: materialising beyond the budget names the bytes and suggests flash",
          "[attention][errors]") {
  const long n = 8193;  // 2 heads · 2 matrices · 8193² · 4 bytes = 1074003984 > 2^30
  const attn::Matrix x = xt::zeros<float>({std::size_t(n), std::size_t(2)});
  attn::AttentionOptions options = with_heads(2);
  options.kernel = attn::Kernel::materialized;
  REQUIRE_THROWS_AS(attn::attention(x, x, x, options), attn::InvalidArgument);
  REQUIRE_THROWS_WITH(attn::attention(x, x, x, options),
                      Contains("1074003984 bytes") && Contains("8193×8193") && Contains("flash"));
}

TEST_CASE("attention: after many failed calls the engine still returns the same numbers",
          "[attention][errors]") {
  const auto& example = fixtures::example(fixtures::kEmbedding);
  const attn::Matrix x = fixtures::matrix(example["inputs"]);
  attn::Matrix poisoned = x;
  poisoned(0, 0) = NAN;
  attn::AttentionOptions bad_heads = with_heads(2), too_big = with_heads(1);
  too_big.kernel = attn::Kernel::materialized;
  const attn::Matrix wide = xt::zeros<float>({20000, 1});
  for (int call = 0; call < 300; ++call) {
    CHECK_THROWS_AS(attn::attention(poisoned, x, x), attn::InvalidArgument);
    CHECK_THROWS_AS(attn::attention(x, x, x, bad_heads), attn::InvalidArgument);
    CHECK_THROWS_AS(attn::attention(x, xt::zeros<float>({5, 2}), x), attn::InvalidArgument);
    CHECK_THROWS_AS(attn::attention(wide, wide, wide, too_big), attn::InvalidArgument);
  }
  attn::AttentionOptions options;
  options.scale.mode = attn::ScaleOption::Mode::none;
  const auto result = attn::attention(x, x, x, options);
  CHECK_CLOSE(result.weights[0], fixtures::matrix(example["weights_softmax"]), 1e-4);
  CHECK_CLOSE(result.context, fixtures::matrix(example["context"]), 1e-4);
}

namespace {

// A random call's sizes and inputs: 1 to max_n queries, 1 to max_m keys, `heads` query heads
// of an even dh from 2 to 8 (RoPE pairs columns) over `kv_heads` key/value heads, and 1 to
// max_dvh value columns a head.
struct RandomCall {
  long n, m, dh, dvh;
  attn::Matrix q, k, v;
};

RandomCall random_call(std::mt19937& rng, long heads, long kv_heads, long max_n, long max_m,
                       long max_dvh) {
  RandomCall call;
  call.n = 1 + long(rng() % max_n);
  call.m = 1 + long(rng() % max_m);
  call.dh = 2 * (1 + long(rng() % 4));
  call.dvh = 1 + long(rng() % max_dvh);
  call.q = helpers::random_matrix(call.n, heads * call.dh, rng);
  call.k = helpers::random_matrix(call.m, kv_heads * call.dh, rng);
  call.v = helpers::random_matrix(call.m, kv_heads * call.dvh, rng);
  return call;
}

// For each option of the grid and each kernel, a random call of `heads` query heads over
// `kv_heads` key/value heads and a random part of its rows and heads, held bit for bit to the
// whole call. Sizes cross several 16-row blocks and 512-key tiles, m < n included; heads of v
// both narrower and wider than a panel of the flash kernel (8 columns in wasm, 32 with AVX-512),
// so that a part's last rows take a smaller register block than the whole call's.
void check_random_parts(std::mt19937& rng, long heads, long kv_heads) {
  for (attn::AttentionOptions options : helpers::option_grid(heads)) {
    for (attn::Kernel kernel : {attn::Kernel::materialized, attn::Kernel::flash}) {
      const auto [n, m, dh, dvh, q, k, v] = random_call(rng, heads, kv_heads, 200, 700, 40);
      options.kv_heads = kv_heads;
      options.kernel = kernel;
      options.part = {};
      const auto whole = attn::attention(q, k, v, options);
      const attn::Range rows = helpers::random_range(n, rng),
                        part_heads = helpers::random_range(heads, rng);
      INFO(helpers::describe(options)
           << ", kvHeads " << kv_heads << ", " << attn::to_string(kernel) << ", n " << n << ", m "
           << m << ", rows [" << rows.begin << ", " << rows.end << "), heads [" << part_heads.begin
           << ", " << part_heads.end << ")");
      options.part.rows = rows;
      options.part.heads = part_heads;
      helpers::check_part(whole, attn::attention(q, k, v, options), rows, part_heads, heads);
    }
  }
}

}  // namespace

TEST_CASE("attention: a part of the rows and heads gives exactly the whole call's numbers",
          "[attention][part]") {
  std::mt19937 rng(61);
  for (long heads : {1L, 3L}) check_random_parts(rng, heads, heads);
}

TEST_CASE("attention: parts that split a call by rows and by heads join into the whole call",
          "[attention][part]") {
  std::mt19937 rng(62);
  const long n = 300, m = 300, heads = 4;
  const attn::Matrix q = helpers::random_matrix(n, heads * 8, rng);
  const attn::Matrix k = helpers::random_matrix(m, heads * 8, rng);
  const attn::Matrix v = helpers::random_matrix(m, heads * 8, rng);
  attn::AttentionOptions options = with_heads(heads);
  options.mask.causal = true;
  options.positional.type = attn::PositionalType::rope;
  const auto whole = attn::attention(q, k, v, options);
  // Row cuts inside 64-row blocks, and heads two by two.
  for (attn::Range rows : {attn::Range{0, 100}, attn::Range{100, 211}, attn::Range{211, 300}}) {
    for (attn::Range part_heads : {attn::Range{0, 2}, attn::Range{2, 4}}) {
      options.part = {rows, part_heads};
      helpers::check_part(whole, attn::attention(q, k, v, options), rows, part_heads, heads);
    }
  }
}

namespace {

// A head sink that keeps copies of the heads it is handed, and the order they came in.
struct HeadCopies {
  std::vector<long> order;
  attn::AttentionResult kept;
  attn::HeadSink sink() {
    return [this](long head, const attn::Matrix& scores, const attn::Matrix& weights) {
      order.push_back(head);
      kept.scores.push_back(scores);
      kept.weights.push_back(weights);
    };
  }
};

}  // namespace

TEST_CASE("attention: a head sink is handed each materialised head, bit for bit the kept ones",
          "[attention][part][sink]") {
  std::mt19937 rng(63);
  for (long heads : {1L, 3L}) {
    for (attn::AttentionOptions options : helpers::option_grid(heads)) {
      for (attn::Kernel kernel : {attn::Kernel::materialized, attn::Kernel::flash}) {
        const auto [n, m, dh, dvh, q, k, v] = random_call(rng, heads, heads, 150, 600, 20);
        options.kernel = kernel;
        const auto whole = attn::attention(q, k, v, options);
        // the whole call, then a random part of its rows and heads
        const attn::Range all_rows{0, n}, all_heads{0, heads};
        const attn::Range rows = helpers::random_range(n, rng);
        const attn::Range part_heads = helpers::random_range(heads, rng);
        for (const auto& [range_rows, range_heads] :
             {std::pair{all_rows, all_heads}, std::pair{rows, part_heads}}) {
          INFO(helpers::describe(options)
               << ", " << attn::to_string(kernel) << ", n " << n << ", m " << m << ", rows ["
               << range_rows.begin << ", " << range_rows.end << "), heads [" << range_heads.begin
               << ", " << range_heads.end << ")");
          options.part = {range_rows, range_heads};
          HeadCopies copies;
          attn::AttentionResult streamed = attn::attention(q, k, v, options, copies.sink());
          CHECK(streamed.scores.empty());
          CHECK(streamed.weights.empty());
          std::vector<long> expected_order;
          if (kernel == attn::Kernel::materialized) {
            for (long h = 0; h < range_heads.size(); ++h) expected_order.push_back(h);
          }
          CHECK(copies.order == expected_order);  // flash hands over nothing
          streamed.scores = std::move(copies.kept.scores);
          streamed.weights = std::move(copies.kept.weights);
          helpers::check_part(whole, streamed, range_rows, range_heads, heads);
        }
        options.part = {};
      }
    }
  }
}

TEST_CASE(
    "attention: with a head sink an overflow still names its head and query, and the sink "
    "has the heads before it",
    "[attention][sink][errors]") {
  attn::Matrix q = xt::zeros<float>({5, 6}), k = xt::zeros<float>({2, 6});
  const attn::Matrix v = xt::ones<float>({2, 3});
  q(3, 3) = 1e20f;  // head 1 of 3
  k(0, 3) = 1e20f;
  attn::AttentionOptions options = with_heads(3);
  options.scale.mode = attn::ScaleOption::Mode::none;
  options.kernel = attn::Kernel::materialized;
  HeadCopies copies;
  REQUIRE_THROWS_WITH(
      attn::attention(q, k, v, options, copies.sink()),
      Contains("overflowed float32 in head 1, query 3") && Contains("scores[1][3][0]"));
  CHECK(copies.order == std::vector<long>{0});
}

TEST_CASE("attention: an empty head sink is as none: the heads are kept", "[attention][sink]") {
  std::mt19937 rng(64);
  const attn::Matrix x = helpers::random_matrix(20, 6, rng);
  attn::AttentionOptions options = with_heads(3);
  options.kernel = attn::Kernel::materialized;
  const auto kept = attn::attention(x, x, x, options);
  const auto given_empty = attn::attention(x, x, x, options, attn::HeadSink{});
  helpers::check_part(kept, given_empty, attn::Range{0, 20}, attn::Range{0, 3}, 3);
}

TEST_CASE("attention: a part outside the call is rejected naming the range and its limit",
          "[attention][part][errors]") {
  const attn::Matrix q = xt::zeros<float>({6, 4}), k = xt::zeros<float>({5, 4});
  const attn::Matrix v = xt::zeros<float>({5, 2});
  attn::AttentionOptions options = with_heads(2);
  options.part.rows = attn::Range{3, 9};
  REQUIRE_THROWS_WITH(attn::attention(q, k, v, options),
                      Contains("part.rows must be [begin, end] with 0 ≤ begin < end ≤ n = 6, got "
                               "[3, 9]"));
  options.part.rows = attn::Range{2, 2};
  REQUIRE_THROWS_WITH(attn::attention(q, k, v, options), Contains("got [2, 2]"));
  options.part.rows.reset();
  options.part.heads = attn::Range{-1, 1};
  REQUIRE_THROWS_WITH(attn::attention(q, k, v, options),
                      Contains("part.heads must be [begin, end] with 0 ≤ begin < end ≤ heads = 2, "
                               "got [-1, 1]"));
  // The whole call's problems come first, as without a part.
  options.heads = 3;
  REQUIRE_THROWS_WITH(attn::attention(q, k, v, options), Contains("heads (3) must divide dk"));
}

TEST_CASE("attention: a part's overflow names the whole call's head and query",
          "[attention][part][errors]") {
  attn::Matrix q = xt::zeros<float>({5, 2}), k = xt::zeros<float>({2, 2});
  const attn::Matrix v = xt::ones<float>({2, 2});
  q(3, 1) = 1e20f;
  k(0, 1) = 1e20f;
  attn::AttentionOptions options = with_heads(2);
  options.scale.mode = attn::ScaleOption::Mode::none;
  options.kernel = attn::Kernel::materialized;
  REQUIRE_THROWS_WITH(
      attn::attention(q, k, v, options),
      Contains("overflowed float32 in head 1, query 3") && Contains("scores[1][3][0]"));
  options.part = {attn::Range{2, 5}, attn::Range{1, 2}};
  REQUIRE_THROWS_WITH(
      attn::attention(q, k, v, options),
      Contains("overflowed float32 in head 1, query 3") && Contains("scores[1][3][0]"));
}

// The kernels read a key/value head in place whatever the row stride of k and v, and each
// query head computes alone: grouped-query attention does for query head h exactly what
// multi-head attention does with key/value head ⌊h·G/H⌋ copied to head h. So the two agree
// bit for bit, not merely to a tolerance.
TEST_CASE("attention: kvHeads = G equals repeating each key/value head H/G times, bit for bit",
          "[attention][grouped]") {
  std::mt19937 rng(64);
  for (const auto& [heads, kv_heads] : helpers::grouped_head_pairs()) {
    for (attn::AttentionOptions options : helpers::option_grid(heads)) {
      for (attn::Kernel kernel : {attn::Kernel::materialized, attn::Kernel::flash}) {
        const auto [n, m, dh, dvh, q, k, v] = random_call(rng, heads, kv_heads, 90, 140, 9);
        options.kernel = kernel;
        options.kv_heads.reset();
        INFO(helpers::describe(options)
             << ", G " << kv_heads << ", " << attn::to_string(kernel) << ", n " << n << ", m " << m
             << ", dh " << dh << ", dvh " << dvh);
        const auto repeated =
            attn::attention(q, helpers::repeat_kv_heads(k, kv_heads, heads),
                            helpers::repeat_kv_heads(v, kv_heads, heads), options);
        options.kv_heads = kv_heads;
        const auto grouped = attn::attention(q, k, v, options);
        REQUIRE(grouped.context.shape(1) == std::size_t(heads * dvh));
        helpers::check_part(repeated, grouped, attn::Range{0, n}, attn::Range{0, heads}, heads);
      }
    }
  }
}

TEST_CASE(
    "attention: a part of the rows and heads with kvHeads gives exactly the whole call's "
    "numbers",
    "[attention][part][grouped]") {
  std::mt19937 rng(65);
  for (const auto& [heads, kv_heads] : helpers::grouped_head_pairs()) {
    check_random_parts(rng, heads, kv_heads);
  }
}

TEST_CASE("attention: kvHeads that do not fit are rejected naming heads, kvHeads and the columns",
          "[attention][grouped][errors]") {
  // 4 query heads of width 2 (q 3×8), 2 key/value heads: k 5×4, v 5×6.
  const attn::Matrix q = xt::zeros<float>({3, 8}), k = xt::zeros<float>({5, 4});
  const attn::Matrix v = xt::zeros<float>({5, 6});
  auto rejects = [](const attn::Matrix& q, const attn::Matrix& k, const attn::Matrix& v, long heads,
                    long kv_heads, const std::string& words) {
    INFO(words);
    attn::AttentionOptions options = with_heads(heads);
    options.kv_heads = kv_heads;
    REQUIRE_THROWS_AS(attn::attention(q, k, v, options), attn::InvalidArgument);
    REQUIRE_THROWS_WITH(attn::attention(q, k, v, options), Contains(words));
  };
  rejects(q, k, v, 4, 0, "kvHeads must be a whole number ≥ 1, got 0");
  rejects(q, k, v, 4, 3, "kvHeads (3) must divide heads (4)");
  rejects(q, k, v, 4, 8, "kvHeads (8) must divide heads (4)");
  rejects(q, xt::zeros<float>({5, 6}), v, 4, 2,
          "k has 6 columns but kvHeads · dh = 2 · 2 = 4 (dh = the 8 columns of q / heads 4)");
  rejects(q, k, xt::zeros<float>({5, 5}), 4, 2, "kvHeads (2) must divide dv, the 5 columns of v");
  rejects(xt::zeros<float>({3, 9}), k, v, 4, 2, "heads (4) must divide dk, the 9 columns of q");
  // kvHeads equal to heads is multi-head attention: k must then match q, as without kvHeads.
  rejects(q, k, v, 4, 4, "k has 4 columns but q has 8");
  attn::AttentionOptions fits = with_heads(4);
  fits.kv_heads = 2;
  CHECK(attn::attention(q, k, v, fits).context.shape(1) == 12);
}
