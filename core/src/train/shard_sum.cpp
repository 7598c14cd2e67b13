#include "attn/train/shard_sum.hpp"

#include <algorithm>
#include <string>

#include "attn/errors.hpp"

namespace attn::train {

namespace {

std::string describe(ShardRange range) {
  return "shards " + std::to_string(range.first) + " to " + std::to_string(range.end);
}

bool is_block(ShardRange range) {
  const long size = range.size();
  return range.first >= 0 && range.end <= kGradientShards && size > 0 && (size & (size - 1)) == 0 &&
         range.first % size == 0;
}

// Whether `right` is the right half of the block whose left half is `left`.
bool is_right_sibling(ShardRange left, ShardRange right) {
  return left.size() == right.size() && left.end == right.first &&
         left.first % (2 * left.size()) == 0;
}

}  // namespace

void require_block(const char* name, ShardRange range) {
  if (is_block(range)) return;
  fail(std::string(name) + " must be a block of the " + std::to_string(kGradientShards) +
       " shards (a power of two of them, from a multiple of that number), got " + describe(range));
}

std::vector<ShardRange> shard_blocks(long first, long end) {
  require_whole_number("first", first, 0, kGradientShards - 1);
  require_whole_number("end", end, first + 1, kGradientShards);
  std::vector<ShardRange> blocks;
  while (first < end) {
    long size = 1;
    while (first % (2 * size) == 0 && first + 2 * size <= end) size *= 2;
    blocks.push_back({first, first + size});
    first += size;
  }
  return blocks;
}

void ShardSum::clear(long first) {
  next_ = first;
  pending_.clear();
}

void ShardSum::add(ShardRange block, const float* gradient, double loss) {
  require_block("a block", block);
  if (block.first != next_) {
    fail("blocks must follow one another: " + describe(block) + " came where shard " +
         std::to_string(next_) + " was due");
  }
  next_ = block.end;
  // A block whose left sibling waits adds into it (left + right, elementwise); the sum then
  // merges upwards while it finds its own left sibling waiting.
  if (!pending_.empty() && is_right_sibling(pending_.back().range, block)) {
    merge_into_last(block, gradient, loss);
  } else {
    if (buffers_.size() <= pending_.size()) buffers_.emplace_back();
    std::vector<float>& buffer = buffers_[pending_.size()];
    buffer.resize(parameters_);
    std::copy_n(gradient, parameters_, buffer.data());
    pending_.push_back({block, loss});
  }
  while (pending_.size() >= 2 &&
         is_right_sibling(pending_[pending_.size() - 2].range, pending_.back().range)) {
    const Pending right = pending_.back();
    pending_.pop_back();
    merge_into_last(right.range, buffers_[pending_.size()].data(), right.loss);
  }
}

void ShardSum::merge_into_last(ShardRange right, const float* gradient, double loss) {
  float* left = buffers_[pending_.size() - 1].data();
  for (std::size_t i = 0; i < parameters_; ++i) left[i] += gradient[i];
  pending_.back().range.end = right.end;
  pending_.back().loss += loss;
}

void ShardSum::require_sum_of(ShardRange range) const {
  if (pending_.size() == 1 && pending_[0].range == range) return;
  std::string given = pending_.empty() ? "none" : "";
  for (const Pending& sum : pending_) {
    given += (given.empty() ? "" : ", ") + describe(sum.range);
  }
  fail("the blocks must add up to " + describe(range) + ", got " + given);
}

float* ShardSum::gradient(ShardRange range) {
  require_sum_of(range);
  return buffers_[0].data();
}

double ShardSum::loss(ShardRange range) const {
  require_sum_of(range);
  return pending_[0].loss;
}

}  // namespace attn::train
