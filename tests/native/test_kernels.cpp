#include <xtensor/xview.hpp>

#include "attn/attention.hpp"
#include "attn/kernels.hpp"
#include "attn/reference.hpp"
#include "helpers.hpp"

TEST_CASE("kernels: multiply equals the reference matmul on ragged shapes", "[kernels]") {
  std::mt19937 rng(51);
  const long rows = GENERATE(1L, 3L, 4L, 9L, 33L);
  const long depth = GENERATE(1L, 5L, 64L);
  const long cols = GENERATE(1L, 15L, 16L, 17L, 70L);
  INFO(rows << "×" << depth << " times " << depth << "×" << cols);
  const attn::Matrix a = helpers::random_matrix(rows, depth, rng);
  const attn::Matrix b = helpers::random_matrix(depth, cols, rng);
  CHECK_CLOSE(attn::kernels::multiply(a, b), attn::reference::matmul(a, b), 1e-5);
}

TEST_CASE("kernels: matmul honours row strides and accumulates", "[kernels]") {
  std::mt19937 rng(52);
  const bool accumulate = GENERATE(false, true);
  // Blocks of larger matrices: a is rows 1..6, cols 2..12 of 8×20; b is rows 0..10,
  // cols 3..21 of 11×30; c is rows 2..7, cols 1..19 of 9×25.
  const attn::Matrix a_big = helpers::random_matrix(8, 20, rng);
  const attn::Matrix b_big = helpers::random_matrix(11, 30, rng);
  const attn::Matrix c_big = helpers::random_matrix(9, 25, rng);
  const attn::Matrix a = xt::view(a_big, xt::range(1, 7), xt::range(2, 13));
  const attn::Matrix b = xt::view(b_big, xt::range(0, 11), xt::range(3, 22));
  attn::Matrix expected = c_big;
  const attn::Matrix product = attn::reference::matmul(a, b);
  xt::view(expected, xt::range(2, 8), xt::range(1, 20)) =
      accumulate ? attn::Matrix(xt::view(c_big, xt::range(2, 8), xt::range(1, 20)) + product)
                 : product;

  attn::Matrix c = c_big;
  attn::kernels::matmul(a_big.data() + 1 * 20 + 2, 20, b_big.data() + 3, 30, c.data() + 2 * 25 + 1,
                        25, 6, 11, 19, accumulate);
  CHECK_CLOSE(c, expected, 1e-5);  // and nothing outside the block is touched
}

TEST_CASE("kernels: the transposed product aᵀ·b equals the reference, strided and accumulated",
          "[kernels]") {
  std::mt19937 rng(53);
  const long rows = GENERATE(1L, 3L, 9L, 33L);
  const long depth = GENERATE(1L, 7L, 100L);
  const long cols = GENERATE(1L, 16L, 17L, 40L);
  const bool accumulate = GENERATE(false, true);
  INFO("(" << depth << "×" << rows << ")ᵀ times " << depth << "×" << cols);
  // a is columns 2..rows+1 of a depth×(rows+3) matrix: its row stride is not its width
  const attn::Matrix a_big = helpers::random_matrix(depth, rows + 3, rng);
  const attn::Matrix a = xt::view(a_big, xt::all(), xt::range(2, rows + 2));
  const attn::Matrix b = helpers::random_matrix(depth, cols, rng);
  const attn::Matrix start = helpers::random_matrix(rows, cols, rng);
  const attn::Matrix product = attn::reference::matmul(attn::Matrix(xt::transpose(a)), b);
  attn::Matrix c = start;
  attn::kernels::matmul_transposed_a(a_big.data() + 2, rows + 3, b.data(), cols, c.data(), cols,
                                     rows, depth, cols, accumulate);
  CHECK_CLOSE(c, accumulate ? attn::Matrix(start + product) : product, 1e-4);
}

TEST_CASE("flash: context equals the materialised context for every option", "[kernels]") {
  std::mt19937 rng(53);
  const long heads = GENERATE(1L, 2L);
  for (const attn::AttentionOptions& grid_options : helpers::option_grid(heads)) {
    // Query counts around the tile's rows, key counts around its columns, m < n too.
    constexpr long rows = attn::kernels::kFlashTileRows, cols = attn::kernels::kFlashTileCols;
    for (auto [n, m] : {std::pair{1L, 1L},
                        {rows - 1, cols + 7},
                        {2 * rows + 6, 2 * rows + 6},
                        {3 * rows + 4, rows + 8},
                        {rows + 13, 2 * cols + 1}}) {
      INFO(helpers::describe(grid_options) << ", n " << n << ", m " << m);
      const long dh = 4, dvh = 3;
      // Positive inputs keep the row sums of the sum normalisation away from zero.
      const attn::Matrix q = helpers::random_matrix(n, heads * dh, rng, 0.0f, 1.0f);
      const attn::Matrix k = helpers::random_matrix(m, heads * dh, rng, 0.0f, 1.0f);
      const attn::Matrix v = helpers::random_matrix(m, heads * dvh, rng);
      attn::AttentionOptions options = grid_options;
      options.kernel = attn::Kernel::materialized;
      const auto materialized = attn::attention(q, k, v, options);
      options.kernel = attn::Kernel::flash;
      const auto flash = attn::attention(q, k, v, options);
      REQUIRE(flash.kernel_used == attn::Kernel::flash);
      CHECK(flash.scores.empty());
      CHECK_CLOSE(flash.context, materialized.context, 1e-5);
    }
  }
}

TEST_CASE("flash: heads as wide as the packed panels and wider equal the materialised context",
          "[kernels]") {
  // The flash kernel packs kᵀ and v in panels of 8 columns in wasm (32 with AVX-512) and reads
  // the columns after the last whole panel in place: widths of whole panels, of panels and a
  // remainder, and narrower than one panel.
  std::mt19937 rng(54);
  const auto [dh, dvh] =
      GENERATE(table<long, long>({{8, 8}, {32, 32}, {64, 64}, {40, 12}, {24, 72}}));
  const long heads = GENERATE(1L, 3L);
  const std::vector<attn::AttentionOptions> grid = helpers::option_grid(heads);
  constexpr long rows = attn::kernels::kFlashTileRows, cols = attn::kernels::kFlashTileCols;
  // Every eleventh option of the grid (11 is prime to its inner sizes, 5 encodings, 7 masks
  // and 3 scales: every normalisation, mask, encoding and scale appears).
  for (std::size_t i = 0; i < grid.size(); i += 11) {
    for (auto [n, m] : {std::pair{rows - 3, cols + 7}, {2 * rows + 5, 2 * cols + 3}}) {
      INFO(helpers::describe(grid[i])
           << ", n " << n << ", m " << m << ", dh " << dh << ", dvh " << dvh);
      const attn::Matrix q = helpers::random_matrix(n, heads * dh, rng, 0.0f, 1.0f);
      const attn::Matrix k = helpers::random_matrix(m, heads * dh, rng, 0.0f, 1.0f);
      const attn::Matrix v = helpers::random_matrix(m, heads * dvh, rng);
      attn::AttentionOptions options = grid[i];
      options.kernel = attn::Kernel::materialized;
      const auto materialized = attn::attention(q, k, v, options);
      options.kernel = attn::Kernel::flash;
      const auto flash = attn::attention(q, k, v, options);
      CHECK_CLOSE(flash.context, materialized.context, 1e-5);
    }
  }
}
