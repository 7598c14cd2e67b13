// The sum of a training step's gradient over fixed shards of its batch, in a fixed order, so
// that the step gives the same bits whoever computes which shards (trainer.hpp).
//
// A step's batch is cut into S = kGradientShards shards. A block is a range of shards whose
// size is a power of two and whose first shard is a multiple of that size; a block of two or
// more shards sums as (its left half) + (its right half), elementwise, down to single shards:
// a binary tree over the S shards. So a block's sum is the same whether one thread adds up
// its shards or two add up its halves, and replicas of a trainer that each compute some
// blocks need to exchange one sum per block, not one per shard.
#pragma once

#include <cstddef>
#include <vector>

namespace attn::train {

constexpr long kGradientShards = 8;
static_assert((kGradientShards & (kGradientShards - 1)) == 0, "S must be a power of two");

// Shards [first, end) of a step.
struct ShardRange {
  long first = 0, end = 0;
  long size() const { return end - first; }
  bool operator==(const ShardRange& other) const {
    return first == other.first && end == other.end;
  }
};

// Throws attn::InvalidArgument naming `name` unless `range` is a block of the S shards.
void require_block(const char* name, ShardRange range);

// The fewest blocks that tile shards [first, end), in order, each as large as alignment
// lets it be; throws unless 0 ≤ first < end ≤ S.
std::vector<ShardRange> shard_blocks(long first, long end);

// Adds up the gradients (P floats each) and losses of blocks given in order, merging a block
// into its left sibling as soon as both are in, so that at most log2(S) sums wait at once
// (P floats each, kept from call to call).
class ShardSum {
 public:
  explicit ShardSum(std::size_t parameters) : parameters_(parameters) {}

  // Starts a sum of blocks from shard `first` on.
  void clear(long first);
  // Adds the next block: it must be a block and start where the last one ended (throws
  // naming it otherwise). gradient: P floats, read during the call.
  void add(ShardRange block, const float* gradient, double loss);
  // The sum of the blocks added, which must have merged into `range` (throws otherwise):
  // its gradient (P floats, the caller's to change until the next clear or add: the optimizer
  // clips it in place) and its loss.
  float* gradient(ShardRange range);
  double loss(ShardRange range) const;

 private:
  struct Pending {
    ShardRange range;
    double loss = 0.0;
  };
  void require_sum_of(ShardRange range) const;
  // Adds block `right` (its gradient and loss) into the last waiting sum, its left sibling.
  void merge_into_last(ShardRange right, const float* gradient, double loss);

  std::size_t parameters_;
  long next_ = 0;                            // where the next block must start
  std::vector<Pending> pending_;             // the sums waiting for their right sibling
  std::vector<std::vector<float>> buffers_;  // buffers_[d]: pending_[d]'s gradient
};

}  // namespace attn::train
