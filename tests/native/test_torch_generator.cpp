#include <cmath>
#include <xtensor/xview.hpp>

#include "attn/torch_generator.hpp"
#include "helpers.hpp"

using Catch::Contains;

TEST_CASE("torch generator: rand after seed 123 equals torch.rand(3 2)", "[torch_generator]") {
  attn::TorchGenerator generator(123);
  const attn::Matrix expected = {{0.2961f, 0.5166f}, {0.2517f, 0.6886f}, {0.0740f, 0.8665f}};
  CHECK_CLOSE(generator.rand(3, 2), expected, 1e-4);
}

TEST_CASE("torch generator: calls consume one stream in order", "[torch_generator]") {
  attn::TorchGenerator whole(42), in_parts(42), other_seed(43);
  const attn::Matrix all = whole.rand(5, 3);
  const attn::Matrix first = in_parts.rand(2, 3), second = in_parts.rand(3, 3);
  CHECK_CLOSE(first, xt::view(all, xt::range(0, 2), xt::all()), 0.0);
  CHECK_CLOSE(second, xt::view(all, xt::range(2, 5), xt::all()), 0.0);
  CHECK(helpers::max_abs_difference(other_seed.rand(5, 3), all) > 0.01);
  for (float value : all) {
    CHECK(value >= 0.0f);
    CHECK(value < 1.0f);
  }
}

TEST_CASE("torch generator: linear draws the weight within 1/sqrt(in) then the bias",
          "[torch_generator]") {
  const long in = 16, out = 5;
  const float bound = 0.25f;  // 1/sqrt(16)
  attn::TorchGenerator with_bias(7), without_bias(7);
  const attn::LinearParameters layer = with_bias.linear(in, out);
  REQUIRE(layer.weight.shape(0) == std::size_t(out));
  REQUIRE(layer.weight.shape(1) == std::size_t(in));
  REQUIRE(layer.bias.has_value());
  REQUIRE(layer.bias->size() == std::size_t(out));
  for (float value : layer.weight) CHECK(std::abs(value) <= bound);

  const attn::LinearParameters bare = without_bias.linear(in, out, false);
  CHECK_FALSE(bare.bias.has_value());
  CHECK_CLOSE(bare.weight, layer.weight, 0.0);
  // The bias is the next out draws of the stream, mapped from [0, 1) to [-bound, bound).
  const attn::Matrix next = without_bias.rand(1, out);
  for (long j = 0; j < out; ++j) {
    CHECK((*layer.bias)(j) == Approx(-bound + 2 * bound * next(0, j)).margin(1e-6));
  }
}

TEST_CASE("torch generator: draws counts 32-bit draws and skip discards them",
          "[torch_generator]") {
  attn::TorchGenerator drawn(5), skipped(5);
  const attn::Matrix all = drawn.rand(2, 3);
  CHECK(drawn.draws() == 6);
  skipped.skip(4);
  CHECK(skipped.draws() == 4);
  const attn::Matrix tail = skipped.rand(1, 2);
  CHECK(tail(0, 0) == all(1, 1));
  CHECK(tail(0, 1) == all(1, 2));
  drawn.linear(3, 2);  // 6 weights, then 2 biases
  CHECK(drawn.draws() == 14);
}

TEST_CASE("torch generator: negative sizes are rejected", "[torch_generator][errors]") {
  attn::TorchGenerator generator(1);
  REQUIRE_THROWS_AS(generator.rand(-1, 2), attn::InvalidArgument);
  REQUIRE_THROWS_WITH(generator.rand(-1, 2), Contains("rows") && Contains("-1"));
  REQUIRE_THROWS_WITH(generator.rand(2, -3), Contains("cols") && Contains("-3"));
  REQUIRE_THROWS_WITH(generator.linear(0, 2), Contains("inFeatures"));
  REQUIRE_THROWS_WITH(generator.linear(3, -2), Contains("outFeatures") && Contains("-2"));
  CHECK(generator.rand(0, 4).size() == 0);
}

TEST_CASE("torch generator: randn of fewer than 16 numbers matches torch.randn",
          "[torch_generator]") {
  // torch.manual_seed(0); torch.randn(4), as PyTorch prints it.
  attn::TorchGenerator generator(0);
  const attn::Matrix drawn = generator.randn(1, 4);
  const float expected[] = {1.5410f, -0.2934f, -2.1788f, 0.5684f};
  for (int i = 0; i < 4; ++i) CHECK(drawn(0, i) == Approx(expected[i]).margin(1e-4));
}
