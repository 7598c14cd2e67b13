#include <cmath>

#include "attn/tutorial.hpp"
#include "fixtures.hpp"
#include "helpers.hpp"

constexpr double kTutorialTolerance = 1e-4;  // the tutorials print four decimals

TEST_CASE("tutorial: dot-product scores match both tutorials", "[tutorial]") {
  for (const char* name : {fixtures::kEmbedding, fixtures::kJourney}) {
    INFO(name);
    const auto& example = fixtures::example(name);
    const attn::Matrix scores = attn::dot_product_scores(fixtures::matrix(example["inputs"]));
    CHECK_CLOSE(scores, fixtures::matrix(example["scores"]), kTutorialTolerance);
  }
}

TEST_CASE("tutorial: softmax weights and context vectors match the embedding tutorial",
          "[tutorial]") {
  const auto& example = fixtures::example(fixtures::kEmbedding);
  const attn::Matrix x = fixtures::matrix(example["inputs"]);
  const attn::Matrix weights =
      attn::normalize_rows(attn::dot_product_scores(x), attn::Normalization::softmax);
  CHECK_CLOSE(weights, fixtures::matrix(example["weights_softmax"]), kTutorialTolerance);
  CHECK_CLOSE(attn::context_vectors(weights, x), fixtures::matrix(example["context"]),
              kTutorialTolerance);
}

TEST_CASE("tutorial: walk_through_query matches each tutorial's query", "[tutorial]") {
  for (const char* name : {fixtures::kEmbedding, fixtures::kJourney}) {
    INFO(name);
    const auto& example = fixtures::example(name);
    const attn::QueryWalkthrough walk = attn::walk_through_query(
        fixtures::matrix(example["inputs"]), example["query_index"].get<long>());
    CHECK_CLOSE(walk.scores, fixtures::vector(example["query_scores"]), kTutorialTolerance);
    CHECK_CLOSE(walk.sum_weights, fixtures::vector(example["query_weights_sum_normalized"]),
                kTutorialTolerance);
    CHECK_CLOSE(walk.softmax_weights, fixtures::vector(example["query_weights_softmax"]),
                kTutorialTolerance);
    CHECK_CLOSE(walk.naive_softmax_weights, fixtures::vector(example["query_weights_softmax"]),
                kTutorialTolerance);
    CHECK_CLOSE(walk.context, fixtures::vector(example["query_context"]), kTutorialTolerance);
  }
}

TEST_CASE("tutorial: a large scale overflows the naive softmax but not the stable one",
          "[tutorial]") {
  const auto& example = fixtures::example(fixtures::kJourney);
  const attn::Matrix x = fixtures::matrix(example["inputs"]);
  const attn::QueryWalkthrough walk = attn::walk_through_query(x, 1, 1000.0);
  const attn::Vector unscaled = fixtures::vector(example["query_scores"]);
  CHECK_CLOSE(walk.scores, unscaled * 1000.0f, 0.1);  // 1e-4 relative of scores near 1000
  bool naive_overflowed = false;
  for (float weight : walk.naive_softmax_weights) naive_overflowed |= !std::isfinite(weight);
  CHECK(naive_overflowed);
  for (float weight : walk.softmax_weights) CHECK(std::isfinite(weight));
  // Query 1's own score 1.495 is the largest, ahead of 1.4754 by ~20 after scaling.
  CHECK(walk.softmax_weights(1) == Approx(1.0).margin(1e-6));
}

TEST_CASE("tutorial: bad arguments name the argument", "[tutorial][errors]") {
  using Catch::Contains;
  const attn::Matrix x = fixtures::matrix(fixtures::example(fixtures::kJourney)["inputs"]);
  REQUIRE_THROWS_AS(attn::walk_through_query(x, 6), attn::InvalidArgument);
  REQUIRE_THROWS_WITH(attn::walk_through_query(x, 6),
                      Contains("query") && Contains("[0, 5]") && Contains("6"));
  REQUIRE_THROWS_WITH(attn::walk_through_query(x, -1), Contains("query") && Contains("-1"));
  REQUIRE_THROWS_WITH(attn::walk_through_query(x, 0, INFINITY),
                      Contains("scale must be a finite number, got Infinity"));

  attn::Matrix with_nan = x;
  with_nan(2, 1) = NAN;
  REQUIRE_THROWS_WITH(attn::dot_product_scores(with_nan), Contains("x[2][1] is NaN"));
  REQUIRE_THROWS_WITH(attn::walk_through_query(with_nan, 0), Contains("x[2][1] is NaN"));

  REQUIRE_THROWS_WITH(attn::context_vectors(attn::Matrix::from_shape({6, 5}), x),
                      Contains("weights is 6×5") && Contains("values is 6×3"));
}
