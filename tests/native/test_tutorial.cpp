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
