// Embind bindings: the thin layer between the JavaScript API (attention.mjs and the modules
// of its call groups) and the core.
//
// Matrices arrive as {rows, cols, data: Float32Array} (attention's q, k and v and selfAttention's
// x, the calls made most, as their data, their shapes among the call's numbers: see CallNumber)
// and leave as copies. Options
// arrive checked for type by the JavaScript side, holding only what the caller gave: an option
// that is undefined keeps the core's default, and every name (normalization, kernel,
// positional.type …) is read through the core's table for it (attn/names.hpp), so that an
// unknown name is an error naming it. Every call catches C++ exceptions here and returns
// {ok: true, value} or {ok: false, error}: a throw that crosses into JavaScript leaks wasm
// memory, a value does not. arguments.mjs's unwrap turns errors into JavaScript Errors.
//
// The calls come in groups, each a section below and a paragraph of the one
// EMSCRIPTEN_BINDINGS block at the end: attention, the generator, the lab, text, training.
#include <emscripten/bind.h>
#include <emscripten/val.h>
#include <malloc.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "attn/attention.hpp"
#include "attn/block_pooling.hpp"
#include "attn/errors.hpp"
#include "attn/lab/needle.hpp"
#include "attn/lab/rollout.hpp"
#include "attn/memory.hpp"
#include "attn/names.hpp"
#include "attn/positional.hpp"
#include "attn/self_attention.hpp"
#include "attn/text/tokenizer.hpp"
#include "attn/text/vectors.hpp"
#include "attn/torch_generator.hpp"
#include "attn/train/evaluation.hpp"
#include "attn/train/optimizer.hpp"
#include "attn/train/trainer.hpp"
#include "attn/train/transformer.hpp"
#include "attn/tutorial.hpp"
#include "attn/version.hpp"

using emscripten::val;

namespace {

// ---- JavaScript → core ---------------------------------------------------------------

// A whole number from JavaScript, clamped into long (32-bit in wasm). The JavaScript side keeps
// sizes within 2^31 - 1; window, sinks, prefix and part's ranges may be larger (a window, sinks
// or prefix past the sequence length sees the same keys; a range past it is an error, naming
// the clamped value).
long to_long(double value) {
  return static_cast<long>(std::clamp(value, double(LONG_MIN), double(LONG_MAX)));
}

long to_long(const val& number) { return to_long(number.as<double>()); }

// A JavaScript array of whole numbers, each clamped into long.
std::vector<long> to_longs(const val& array) {
  std::vector<long> values;
  for (double value : emscripten::convertJSArrayToNumberVector<double>(array))
    values.push_back(to_long(value));
  return values;
}

// {rows, cols, data: Float32Array} → rows×cols.
attn::Matrix to_matrix(const val& matrix) {
  const std::size_t rows = matrix["rows"].as<unsigned>(), cols = matrix["cols"].as<unsigned>();
  attn::Matrix result = attn::Matrix::from_shape({rows, cols});
  // One copy, by Float32Array.set: the JavaScript side hands over data as a Float32Array of
  // exactly rows·cols values.
  val(emscripten::typed_memory_view(result.size(), result.data()))
      .call<void>("set", matrix["data"]);
  return result;
}

attn::Vector to_vector(const val& array) {
  const std::vector<float> data = emscripten::convertJSArrayToNumberVector<float>(array);
  attn::Vector result = attn::Vector::from_shape({data.size()});
  std::copy(data.begin(), data.end(), result.begin());
  return result;
}

std::optional<attn::Matrix> optional_matrix(const val& matrix) {
  if (matrix.isNull() || matrix.isUndefined()) return std::nullopt;
  return to_matrix(matrix);
}

// Whether the caller gave options[key]; when not, the field it would set keeps the core's
// default.
bool given(const val& options, const char* key) { return !options[key].isUndefined(); }

void read(const val& options, const char* key, long& field) {
  if (given(options, key)) field = to_long(options[key]);
}

void read(const val& options, const char* key, double& field) {
  if (given(options, key)) field = options[key].as<double>();
}

void read(const val& options, const char* key, bool& field) {
  if (given(options, key)) field = options[key].as<bool>();
}

// A name, read through the core's table for its option: one of `accepted` or an error.
template <class Enum>
void read(const val& options, const char* key, Enum& field, attn::AcceptedOf<Enum> accepted = {}) {
  if (given(options, key)) field = attn::parse<Enum>(options[key].as<std::string>(), accepted);
}

// ---- core → JavaScript ---------------------------------------------------------------

val to_float32_array(const float* data, std::size_t size) {
  // view.slice() copies: the view dies when wasm memory grows, the copy does not. (Embind's
  // new Float32Array(view) costs a bound constructor each call: 1 µs of a small call.)
  return val(emscripten::typed_memory_view(size, data)).call<val>("slice");
}

// data copied into `destination`, a Float32Array of a previous result (the JavaScript side
// passes nothing else), when it has exactly `size` elements; otherwise into a new
// Float32Array. Overwriting spares the allocation, which costs ten times the copy itself
// (16 MiB of results: 0.6 ms into a reused array, 7.5 ms into a new one, in Chromium here).
val to_float32_array(const float* data, std::size_t size, const val& destination) {
  if (destination.isNull() || destination.isUndefined() ||
      destination["length"].as<double>() != size) {
    return to_float32_array(data, size);
  }
  destination.call<void>("set", emscripten::typed_memory_view(size, data));
  return destination;
}

// Doubles computed in the core, as a Float32Array.
val to_float32_array(const std::vector<double>& values) {
  const std::vector<float> single(values.begin(), values.end());
  return to_float32_array(single.data(), single.size());
}

val to_int32_array(const std::vector<std::int32_t>& values) {
  return val::global("Int32Array")
      .new_(emscripten::typed_memory_view(values.size(), values.data()));
}

val to_int32_array(const std::vector<long>& values) {
  return to_int32_array(std::vector<std::int32_t>(values.begin(), values.end()));
}

val to_js(const attn::Matrix& matrix, const val& destination = val::null()) {
  val result = val::object();
  result.set("rows", matrix.shape(0));
  result.set("cols", matrix.shape(1));
  result.set("data", to_float32_array(matrix.data(), matrix.size(), destination));
  return result;
}

// Runs `body` and returns {ok: true, value} or {ok: false, error}.
template <class Body>
val guarded(Body&& body) {
  val outcome = val::object();
  try {
    outcome.set("value", body());
    outcome.set("ok", true);
    return outcome;
  } catch (const std::bad_alloc&) {
    outcome.set("error", std::string("out of memory: the engine could not allocate what this call "
                                     "needs; use smaller sizes (fewer tokens, kernel: 'flash', a "
                                     "smaller batch or model)"));
  } catch (const std::length_error&) {
    outcome.set("error", std::string("too large: this call asks for more elements than the engine "
                                     "can hold; use fewer tokens or smaller sizes"));
  } catch (const std::exception& error) {
    outcome.set("error", std::string(error.what()));
  }
  outcome.set("ok", false);
  return outcome;
}

// ---- attention (attn/attention.hpp, self_attention.hpp, tutorial.hpp, memory.hpp) -----

// positional.type: one of `accepted` (by default any that self_attention takes; attention
// refuses sinusoidal, saying why).
attn::PositionalOptions to_positional(
    const val& positional,
    attn::AcceptedOf<attn::PositionalType> accepted = attn::kSelfAttentionPositionalTypes) {
  attn::PositionalOptions result;
  read(positional, "type", result.type, accepted);
  if (given(positional, "slopes")) {
    const attn::Vector slopes = to_vector(positional["slopes"]);
    result.slopes.assign(slopes.begin(), slopes.end());
  }
  read(positional, "base", result.base);
  read(positional, "pairing", result.pairing);
  return result;
}

// The numbers of an attention or selfAttention call: a Float64Array laid out as CallNumber,
// written by attention-arguments.mjs's coreArguments (its CALL_NUMBERS lists the same slots in
// the same order). The matrices' data travel alone and the options as numbers, NaN where the
// caller gave none: reading them object by object, key by key, took about a hundred calls between
// wasm and JavaScript.
namespace call_slot {
enum CallNumber : std::size_t {
  first_rows,  // q's, or selfAttention's x's
  first_cols,
  key_rows,  // attention's k (NaN for selfAttention)
  key_cols,
  value_rows,  // attention's v (NaN for selfAttention)
  value_cols,
  heads,
  kv_heads,
  scale,      // the factor given; NaN: the default 1/√d (scale true or not given)
  scale_off,  // 1: scale false (none)
  causal,     // 1 or 0
  window,
  sinks,
  prefix,
  part_rows_begin,
  part_rows_end,
  part_heads_begin,
  part_heads_end,
  count,
};
}  // namespace call_slot
using call_slot::CallNumber;

using CallNumbers = std::vector<double>;

CallNumbers to_call_numbers(const val& numbers) {
  CallNumbers result = emscripten::convertJSArrayToNumberVector<double>(numbers);
  if (result.size() != call_slot::count) {
    throw std::invalid_argument("the call's numbers must have " + std::to_string(call_slot::count) +
                                " slots, got " + std::to_string(result.size()));
  }
  return result;
}

bool given(const CallNumbers& numbers, CallNumber slot) { return !std::isnan(numbers[slot]); }

// rows×cols from a Float32Array of rows·cols values (the JavaScript side checked it; a length
// that differs is an error here, not uninitialised values), with one copy by Float32Array.set.
attn::Matrix to_matrix(const val& data, double rows, double cols) {
  attn::Matrix result = attn::Matrix::from_shape({std::size_t(rows), std::size_t(cols)});
  if (data["length"].as<double>() != double(result.size())) {
    throw std::invalid_argument(
        "a matrix's data must hold rows·cols = " + std::to_string(result.size()) + " values");
  }
  val(emscripten::typed_memory_view(result.size(), result.data())).call<void>("set", data);
  return result;
}

// Whether the JavaScript side left an argument out (undefined or null).
bool absent(const val& value) { return value.isUndefined() || value.isNull(); }

// A name read through the core's table for its option, unless it was not given.
template <class Enum>
void read_name(const val& name, Enum& field) {
  if (!absent(name)) field = attn::parse<Enum>(name.as<std::string>());
}

// The options: the numbers above, the names normalization and kernel (strings) and positional
// ({type, ...}), each undefined or null where not given.
attn::AttentionOptions to_options(const CallNumbers& numbers, const val& normalization,
                                  const val& kernel, const val& positional) {
  using namespace call_slot;
  attn::AttentionOptions result;
  if (given(numbers, heads)) result.heads = to_long(numbers[heads]);
  if (given(numbers, kv_heads)) result.kv_heads = to_long(numbers[kv_heads]);
  if (numbers[scale_off] == 1) {
    result.scale.mode = attn::ScaleOption::Mode::none;
  } else if (given(numbers, scale)) {
    result.scale.mode = attn::ScaleOption::Mode::factor;
    result.scale.factor = numbers[scale];
  }
  read_name(normalization, result.normalization);
  if (given(numbers, causal)) result.mask.causal = numbers[causal] == 1;
  if (given(numbers, window)) result.mask.window = to_long(numbers[window]);
  if (given(numbers, sinks)) result.mask.sinks = to_long(numbers[sinks]);
  if (given(numbers, prefix)) result.mask.prefix = to_long(numbers[prefix]);
  if (!absent(positional)) result.positional = to_positional(positional);
  read_name(kernel, result.kernel);
  if (given(numbers, part_rows_begin)) {
    result.part.rows =
        attn::Range{to_long(numbers[part_rows_begin]), to_long(numbers[part_rows_end])};
  }
  if (given(numbers, part_heads_begin)) {
    result.part.heads =
        attn::Range{to_long(numbers[part_heads_begin]), to_long(numbers[part_heads_end])};
  }
  return result;
}

// The materialised heads' scores and weights, copied out as the core hands each over
// (attn::HeadSink), so that the engine's memory holds one head's matrices, not all of them:
// into the arrays of `reuse` ({scores, weights, ...} as the JavaScript side builds it from a
// previous result) whose lengths match, else into new ones.
class HeadCopies {
 public:
  explicit HeadCopies(const val& reuse) : reuse_(reuse) {}
  HeadCopies(const HeadCopies&) = delete;  // sink() holds on to this object
  HeadCopies& operator=(const HeadCopies&) = delete;

  attn::HeadSink sink() {
    return [this](long head, const attn::Matrix& scores, const attn::Matrix& weights) {
      scores_.call<void>("push", copy(scores, reuse_["scores"], head));
      weights_.call<void>("push", copy(weights, reuse_["weights"], head));
    };
  }

  // {scores, weights, context, kernel}: the heads copied out (null for flash, which has none).
  val result(const attn::AttentionResult& attention) const {
    const bool flash = attention.kernel_used == attn::Kernel::flash;
    val result = val::object();
    result.set("scores", flash ? val::null() : scores_);
    result.set("weights", flash ? val::null() : weights_);
    result.set("context", to_js(attention.context, reuse_["context"]));
    result.set("kernel", std::string(attn::to_string(attention.kernel_used)));
    return result;
  }

 private:
  // destinations: a JavaScript array of Float32Array or null, one per head at most.
  static val copy(const attn::Matrix& matrix, const val& destinations, long head) {
    const bool reusable = head < destinations["length"].as<long>();
    return to_js(matrix, reusable ? destinations[head] : val::null());
  }

  val reuse_;
  val scores_ = val::array();
  val weights_ = val::array();
};

// attention(qData, kData, vData, numbers, normalization, kernel, positional, reuse): the
// matrices' data (Float32Arrays) and shapes (in numbers, with the options; see CallNumber).
val attention(val q, val k, val v, val numbers, val normalization, val kernel, val positional,
              val reuse) {
  return guarded([&] {
    using namespace call_slot;
    const CallNumbers call = to_call_numbers(numbers);
    HeadCopies copies(reuse);
    const attn::AttentionResult result =
        attn::attention(to_matrix(q, call[first_rows], call[first_cols]),
                        to_matrix(k, call[key_rows], call[key_cols]),
                        to_matrix(v, call[value_rows], call[value_cols]),
                        to_options(call, normalization, kernel, positional), copies.sink());
    return copies.result(result);
  });
}

// selfAttention(xData, weights, numbers, normalization, kernel, positional, reuse): weights
// {wq, wk, wv, wo: {rows, cols, data} or null, bo: Float32Array or null}.
val self_attention(val x, val weights, val numbers, val normalization, val kernel, val positional,
                   val reuse) {
  return guarded([&] {
    using namespace call_slot;
    const CallNumbers call = to_call_numbers(numbers);
    attn::Projections projections;
    projections.wq = optional_matrix(weights["wq"]);
    projections.wk = optional_matrix(weights["wk"]);
    projections.wv = optional_matrix(weights["wv"]);
    projections.wo = optional_matrix(weights["wo"]);
    if (!weights["bo"].isNull()) projections.bo = to_vector(weights["bo"]);
    HeadCopies copies(reuse);
    const attn::SelfAttentionResult result =
        attn::self_attention(to_matrix(x, call[first_rows], call[first_cols]), projections,
                             to_options(call, normalization, kernel, positional), copies.sink());
    val out = copies.result(result.attention);
    out.set("q", to_js(result.q, reuse["q"]));
    out.set("k", to_js(result.k, reuse["k"]));
    out.set("v", to_js(result.v, reuse["v"]));
    out.set("output", to_js(result.output, reuse["output"]));
    return out;
  });
}

val walkthrough(val x, double query, double scale) {
  return guarded([&] {
    const attn::QueryWalkthrough walk =
        attn::walk_through_query(to_matrix(x), static_cast<long>(query), scale);
    const auto array = [](const attn::Vector& vector) {
      return to_float32_array(vector.data(), vector.size());
    };
    val out = val::object();
    out.set("scores", array(walk.scores));
    val weights = val::object();
    weights.set("sum", array(walk.sum_weights));
    weights.set("naiveSoftmax", array(walk.naive_softmax_weights));
    weights.set("softmax", array(walk.softmax_weights));
    out.set("weights", weights);
    out.set("context", array(walk.context));
    return out;
  });
}

// RoPE's rotation as attention applies it (attn::rotate_rope): x rows×(heads·dh), row r at
// position firstPosition + r, each head's slice rotated pair by pair; {x, heads,
// firstPosition, base, pairing}. The playground shows the rotated q and k a score is made of.
val rope(val options) {
  return guarded([&] {
    long heads = 1, first_position = 0;
    attn::PositionalOptions positional;
    positional.type = attn::PositionalType::rope;
    read(options, "heads", heads);
    read(options, "firstPosition", first_position);
    read(options, "base", positional.base);
    read(options, "pairing", positional.pairing);
    const attn::Matrix x = to_matrix(options["x"]);
    const long cols = static_cast<long>(x.shape(1));
    if (heads < 1) {
      throw std::invalid_argument("heads must be a whole number ≥ 1, got " + std::to_string(heads));
    }
    if (cols % heads != 0) {
      throw std::invalid_argument("x has " + std::to_string(cols) + " columns, which heads = " +
                                  std::to_string(heads) + " does not divide");
    }
    if (first_position < 0) {
      throw std::invalid_argument("firstPosition must be ≥ 0, got " +
                                  std::to_string(first_position));
    }
    attn::validate(positional, heads, cols / heads);
    return to_js(attn::rotate_rope(x, heads, first_position, positional.base, positional.pairing));
  });
}

val attention_memory(val options) {
  return guarded([&] {
    attn::MemoryQuery query;
    read(options, "n", query.n);
    read(options, "m", query.m);
    read(options, "heads", query.heads);
    read(options, "bytesPerElement", query.bytes_per_element);
    read(options, "kernel", query.kernel, attn::kMemoryKernels);
    return val(attn::attention_memory(query));
  });
}

val kv_cache_memory(val options) {
  return guarded([&] {
    attn::KvCacheQuery query;
    read(options, "tokens", query.tokens);
    read(options, "layers", query.layers);
    read(options, "kvHeads", query.kv_heads);
    read(options, "headWidth", query.head_width);
    read(options, "bytesPerElement", query.bytes_per_element);
    read(options, "window", query.window);
    return val(attn::kv_cache_memory(query));
  });
}

// ---- block pooling (attn/block_pooling.hpp) -------------------------------------------

// A region's rows are copied into the engine's memory a stripe of whole rows of blocks at a
// time: about this many values per matrix, or one row of blocks (block · stride values) when
// that is more, so that it holds a stripe, not a long input's n² scores and weights.
constexpr std::int64_t kStripeValues = 1 << 16;

// poolBlocks(scores, weights, stride, row0, col0, rows, cols, block, mode): the blocks of rows
// [row0, row0 + rows) × columns [col0, col0 + cols) of one head's matrices (Float32Arrays of the
// same length, `stride` values a row; the JavaScript side checked the region fits) →
// {cellRows, cellCols, scores, weights, masked: Uint8Array}.
val pool_blocks(val scores, val weights, double stride, double row0, double col0, double rows,
                double cols, double block, std::string mode) {
  return guarded([&] {
    const double length = scores["length"].as<double>();
    if (weights["length"].as<double>() != length || (row0 + rows) * stride > length ||
        col0 + cols > stride) {
      throw std::invalid_argument("poolBlocks: the region does not fit the matrices");
    }
    attn::ScoreRegion region;
    region.stride = static_cast<long>(stride);
    region.cols = static_cast<long>(cols);
    // A block as large as the region is its one cell: larger ones give the same, and would
    // overflow the sizes below.
    region.block = static_cast<long>(std::min(block, std::max(rows, cols)));
    region.mode = attn::parse<attn::BlockPooling>(mode);
    const long first_row = static_cast<long>(row0), first_col = static_cast<long>(col0);
    const long all_rows = static_cast<long>(rows);
    const long cell_rows = attn::block_count(all_rows, region.block);
    const long cell_cols = attn::block_count(region.cols, region.block);
    std::vector<float> pooled_scores(cell_rows * cell_cols), pooled_weights(cell_rows * cell_cols);
    std::vector<std::uint8_t> masked(cell_rows * cell_cols);
    const std::int64_t row_of_blocks = std::int64_t{region.block} * region.stride;
    const long stripe_rows = static_cast<long>(std::min<std::int64_t>(
        all_rows, region.block * std::max<std::int64_t>(1, kStripeValues / row_of_blocks)));
    std::vector<float> stripe_scores, stripe_weights;
    const auto copy_rows = [&](const val& from, std::vector<float>& to, long begin, long end) {
      to.resize((end - begin) * region.stride);
      val(emscripten::typed_memory_view(to.size(), to.data()))
          .call<void>("set", from.call<val>("subarray", begin * stride, end * stride));
    };
    for (long i0 = 0; i0 < all_rows; i0 += stripe_rows) {
      const long i1 = i0 + std::min(stripe_rows, all_rows - i0);
      copy_rows(scores, stripe_scores, first_row + i0, first_row + i1);
      copy_rows(weights, stripe_weights, first_row + i0, first_row + i1);
      region.scores = stripe_scores.data() + first_col;
      region.weights = stripe_weights.data() + first_col;
      region.rows = i1 - i0;
      const long first_cell = (i0 / region.block) * cell_cols;
      attn::pool_blocks(region, pooled_scores.data() + first_cell,
                        pooled_weights.data() + first_cell, masked.data() + first_cell);
    }
    val out = val::object();
    out.set("cellRows", cell_rows);
    out.set("cellCols", cell_cols);
    out.set("scores", to_float32_array(pooled_scores.data(), pooled_scores.size()));
    out.set("weights", to_float32_array(pooled_weights.data(), pooled_weights.size()));
    out.set("masked",
            val(emscripten::typed_memory_view(masked.size(), masked.data())).call<val>("slice"));
    return out;
  });
}

// ---- PyTorch's generator (attn/torch_generator.hpp) ----------------------------------

// The generator is replayed from its seed: `draws` numbers already consumed are skipped.
// JavaScript holds only (seed, draws), so no C++ object outlives a call.
attn::TorchGenerator replayed_generator(double seed, double draws) {
  attn::TorchGenerator generator(static_cast<std::uint64_t>(seed));
  generator.skip(static_cast<std::uint64_t>(draws));
  return generator;
}

val torch_rand(double seed, double draws, double rows, double cols) {
  return guarded([&] {
    attn::TorchGenerator generator = replayed_generator(seed, draws);
    const attn::Matrix values = generator.rand(to_long(rows), to_long(cols));
    val out = val::object();
    out.set("matrix", to_js(values));
    out.set("draws", static_cast<double>(generator.draws()));
    return out;
  });
}

val torch_linear(double seed, double draws, double in_features, double out_features, bool bias) {
  return guarded([&] {
    attn::TorchGenerator generator = replayed_generator(seed, draws);
    const attn::LinearParameters parameters =
        generator.linear(to_long(in_features), to_long(out_features), bias);
    val out = val::object();
    out.set("weight", to_js(parameters.weight));
    out.set("bias", parameters.bias
                        ? to_float32_array(parameters.bias->data(), parameters.bias->size())
                        : val::null());
    out.set("draws", static_cast<double>(generator.draws()));
    return out;
  });
}

// ---- the "lost in the middle" lab (attn/lab/) -----------------------------------------

// The model's positional option {type, slope, base, headWidth, strength}, each only when
// given. type must be one of `types`.
attn::lab::DistanceBias to_distance_bias(
    const val& positional,
    attn::Accepted<attn::PositionalType> types = attn::lab::kDistanceBiasTypes) {
  attn::lab::DistanceBias bias;
  read(positional, "type", bias.type, types);
  read(positional, "slope", bias.slope);
  read(positional, "base", bias.base);
  read(positional, "headWidth", bias.head_width);
  read(positional, "strength", bias.strength);
  return bias;
}

// The model options shared by every lab call: n, layers, residual, causal, window, sinks,
// positional (to_distance_bias) and positionScales (number[]), each only when given.
// positional.type must be one of `types`.
attn::lab::PositionModel to_position_model(
    const val& options,
    attn::Accepted<attn::PositionalType> types = attn::lab::kDistanceBiasTypes) {
  attn::lab::PositionModel model;
  read(options, "n", model.n);
  read(options, "layers", model.layers);
  read(options, "residual", model.residual);
  read(options, "causal", model.mask.causal);
  read(options, "window", model.mask.window);
  read(options, "sinks", model.mask.sinks);
  if (given(options, "positional")) model.bias = to_distance_bias(options["positional"], types);
  if (given(options, "positionScales")) {
    model.position_scales =
        emscripten::convertJSArrayToNumberVector<double>(options["positionScales"]);
  }
  return model;
}

attn::lab::NeedleOptions to_needle_options(const val& options) {
  attn::lab::NeedleOptions needle;
  needle.model = to_position_model(options);
  read(options, "depths", needle.depths);
  read(options, "signal", needle.signal);
  read(options, "noise", needle.noise);
  read(options, "trials", needle.trials);
  if (given(options, "seed"))
    needle.seed = static_cast<std::uint32_t>(options["seed"].as<double>());
  read(options, "metric", needle.metric);
  if (given(options, "mitigation")) {
    const val mitigation = options["mitigation"];
    read(mitigation, "type", needle.mitigation.type);
    read(mitigation, "heads", needle.mitigation.heads);
    read(mitigation, "minRatio", needle.mitigation.min_ratio);
    read(mitigation, "maxRatio", needle.mitigation.max_ratio);
    read(mitigation, "retrieverNoise", needle.mitigation.retriever_noise);
  }
  return needle;
}

val to_js(const attn::lab::CurveSummary& summary) {
  val result = val::object();
  result.set("begin", summary.begin);
  result.set("middle", summary.middle);
  result.set("end", summary.end);
  result.set("mean", summary.mean);
  result.set("maxOverMin", summary.max_over_min);
  result.set("firstTenth", summary.first_tenth);
  result.set("middleTenth", summary.middle_tenth);
  result.set("lastTenth", summary.last_tenth);
  return result;
}

// engine.rollout (README "API"): the model with no positional bias or ALiBi.
val rollout(val options) {
  return guarded([&] {
    const attn::lab::PositionModel model =
        to_position_model(options, {attn::PositionalType::none, attn::PositionalType::alibi});
    val out = val::object();
    out.set("influence", to_float32_array(attn::lab::rollout(model)));
    return out;
  });
}

val position_curve(val options) {
  return guarded([&] {
    attn::lab::RolloutStart start = attn::lab::RolloutStart::final_token;  // measure 'final'
    read(options, "measure", start);
    const attn::lab::PositionCurve curve =
        attn::lab::position_curve(to_position_model(options), start);
    val out = val::object();
    out.set("values", to_float32_array(curve.values));
    out.set("summary", to_js(curve.summary));
    return out;
  });
}

val needle_sweep(val options) {
  return guarded([&] {
    const attn::lab::NeedleSweep sweep = attn::lab::needle_sweep(to_needle_options(options));
    val out = val::object();
    out.set("depths", to_float32_array(sweep.depths));
    out.set("positions", to_int32_array(sweep.positions));
    out.set("retrieval", to_float32_array(sweep.retrieval));
    out.set("summary", to_js(sweep.summary));
    return out;
  });
}

val needle_grid(val options) {
  return guarded([&] {
    const attn::lab::NeedleGrid grid =
        attn::lab::needle_grid(to_needle_options(options), to_longs(options["lengths"]));
    val out = val::object();
    // A matrix as every other call returns one, {rows, cols, data}; `values`, its first
    // spelling, is the same array.
    const val data = to_float32_array(grid.values);
    out.set("rows", grid.lengths.size());
    out.set("cols", grid.depths.size());
    out.set("data", data);
    out.set("values", data);
    out.set("lengths", to_int32_array(grid.lengths));
    out.set("depths", to_float32_array(grid.depths));
    return out;
  });
}

// The lab model's weight of a key by its distance alone (attn/lab/position_model.hpp
// distance_weights): {positional, maxDistance} or {positional, distances}, positional as the
// model's.
val distance_weights(val options) {
  return guarded([&] {
    const attn::lab::DistanceBias bias = given(options, "positional")
                                             ? to_distance_bias(options["positional"])
                                             : attn::lab::DistanceBias{};
    if (given(options, "distances"))
      return to_float32_array(attn::lab::distance_weights(bias, to_longs(options["distances"])));
    long max_distance = 0;
    read(options, "maxDistance", max_distance);
    return to_float32_array(attn::lab::distance_weights(bias, max_distance));
  });
}

// RoPE's decay (attn/positional.hpp), which the lab plots: {headWidth, base, maxDistance} or
// {headWidth, base, distances}.
val rope_decay(val options) {
  return guarded([&] {
    long head_width = 0;
    double base = attn::kRopeBase;
    read(options, "headWidth", head_width);
    read(options, "base", base);
    if (given(options, "distances")) {
      return to_float32_array(
          attn::rope_decay_bound(head_width, base, to_longs(options["distances"])));
    }
    long max_distance = 0;
    read(options, "maxDistance", max_distance);
    return to_float32_array(attn::rope_decay_bound(head_width, base, max_distance));
  });
}

// ---- text: the tokenizer and the vector-table parser (attn/text/) --------------------------
// Text arrives as UTF-8 through Embind's std::string, after the JavaScript side has replaced
// lone surrogates (which Embind's encoder would merge with the next character); offsets go
// back as UTF-16 indices into the caller's string.

// limit: undefined for every token (an error past kMaxTokens), or the most to read.
val tokenize(std::string text, val limit) {
  return guarded([&] {
    const attn::text::Tokenized result =
        limit.isUndefined() ? attn::text::Tokenized{attn::text::tokenize(text), false}
                            : attn::text::tokenize(text, limit.as<std::size_t>());
    std::vector<std::int32_t> starts, ends;  // text is at most 16 MiB: offsets fit in 32 bits
    starts.reserve(result.tokens.size());
    ends.reserve(result.tokens.size());
    for (const attn::text::Token& token : result.tokens) {
      starts.push_back(static_cast<std::int32_t>(token.utf16_begin));
      ends.push_back(static_cast<std::int32_t>(token.utf16_end));
    }
    val out = val::object();
    out.set("starts", to_int32_array(starts));
    out.set("ends", to_int32_array(ends));
    out.set("truncated", result.truncated);
    return out;
  });
}

val parse_vectors(std::string text) {
  return guarded([&] { return to_js(attn::text::parse_vectors(text)); });
}

// ---- training (attn/train/) ------------------------------------------------------------

// Ids from the JavaScript side, which hands over an Int32Array.
std::vector<int> to_ids(const val& ids) {
  return emscripten::convertJSArrayToNumberVector<int>(ids);
}

// A batch as training.mjs's batchInput builds it; the vectors own the ids the Batch points to.
struct BatchIds {
  std::vector<int> tokens, targets;
  attn::train::Batch batch;

  explicit BatchIds(const val& input)
      : tokens(to_ids(input["tokens"])),
        targets(input["targets"].isNull() ? std::vector<int>{} : to_ids(input["targets"])) {
    batch.tokens = tokens.data();
    batch.targets = input["targets"].isNull() ? nullptr : targets.data();
    batch.B = to_long(input["batch"]);
    batch.T = to_long(input["length"]);
    batch.A = to_long(input["answers"]);
    batch.prefix = to_long(input["prefix"]);
  }
};

void read_architecture(const val& options, attn::train::TransformerConfig& config) {
  read(options, "layers", config.layers);
  read(options, "dModel", config.d_model);
  read(options, "heads", config.heads);
  read(options, "mlp", config.mlp);
  read(options, "maxLength", config.max_length);
  if (given(options, "positional")) {
    config.positional = to_positional(options["positional"], attn::train::kModelPositionalTypes);
  }
}

attn::train::TransformerConfig to_transformer_config(const val& config) {
  attn::train::TransformerConfig result;
  read(config, "vocab", result.vocab);
  read(config, "outputs", result.outputs);
  read_architecture(config, result);
  if (given(config, "seed")) result.seed = config["seed"].as<std::uint32_t>();
  return result;
}

val to_js(const attn::train::TransformerConfig& config) {
  val result = val::object();
  result.set("vocab", config.vocab);
  result.set("outputs", config.outputs);
  result.set("layers", config.layers);
  result.set("dModel", config.d_model);
  result.set("heads", config.heads);
  result.set("mlp", config.mlp);
  val positional = val::object();
  positional.set("type", std::string(attn::to_string(config.positional.type)));
  if (config.positional.type == attn::PositionalType::rope) {
    positional.set("base", config.positional.base);
    positional.set("pairing", std::string(attn::to_string(config.positional.pairing)));
  }
  if (config.positional.type == attn::PositionalType::alibi) {
    const std::vector<float> slopes = config.positional.slopes.empty()
                                          ? attn::alibi_default_slopes(config.heads)
                                          : config.positional.slopes;
    val numbers = val::array();  // plain numbers, so that a saved model's JSON holds an array
    for (float slope : slopes) numbers.call<void>("push", slope);
    positional.set("slopes", numbers);
  }
  result.set("positional", positional);
  result.set("maxLength", config.max_length);
  result.set("seed", double(config.seed));
  return result;
}

// rows×cols floats at `data` as a {rows, cols, data} copy.
val to_js(const float* data, long rows, long cols) {
  val result = val::object();
  result.set("rows", rows);
  result.set("cols", cols);
  result.set("data", to_float32_array(data, std::size_t(rows) * cols));
  return result;
}

val to_float64_array(const std::vector<double>& values) {
  return val::global("Float64Array")
      .new_(emscripten::typed_memory_view(values.size(), values.data()));
}

// [layer][head] → Float64Array, as JavaScript arrays.
val to_js(const attn::train::AttentionByPosition& table) {
  val layers = val::array();
  for (const auto& heads : table) {
    val row = val::array();
    for (const auto& values : heads) row.call<void>("push", to_float64_array(values));
    layers.call<void>("push", row);
  }
  return layers;
}

val to_js(const attn::train::Checkpoint& checkpoint) {
  val result = val::object();
  result.set("step", checkpoint.step);
  result.set("loss", checkpoint.loss);
  result.set("accuracy", checkpoint.accuracy);
  result.set("accuracyByPosition", to_float64_array(checkpoint.accuracy_by_position));
  return result;
}

// {toValue, toKey, toFirst}: an evaluation's (or a chunk's) measures of where the final position looks.
template <class Measures>
val attention_of(const Measures& measures) {
  val attention = val::object();
  attention.set("toValue", to_js(measures.to_value));
  attention.set("toKey", to_js(measures.to_key));
  attention.set("toFirst", to_js(measures.to_first));
  return attention;
}

val to_js(const attn::train::Evaluation& evaluation) {
  val result = val::object();
  result.set("pairs", evaluation.pairs);
  result.set("accuracy", evaluation.accuracy);
  result.set("loss", evaluation.loss);
  result.set("accuracyByPosition", to_float64_array(evaluation.accuracy_by_position));
  result.set("questionsByPosition", to_int32_array(evaluation.questions_by_position));
  result.set("attention", attention_of(evaluation));
  return result;
}

val to_js(const attn::train::EvaluationSums& sums) {
  val chunk = val::object();
  chunk.set("chunk", sums.chunk);
  chunk.set("sequences", sums.sequences);
  chunk.set("measuredWith", sums.measured_with);
  chunk.set("loss", sums.loss);
  chunk.set("correct", to_int32_array(sums.correct));
  chunk.set("attention", attention_of(sums));
  return chunk;
}

// A model that JavaScript holds (and must delete); trainers and optimizers share it.
class ModelHandle {
 public:
  explicit ModelHandle(std::shared_ptr<attn::train::Transformer> model)
      : model_(std::move(model)) {}

  const std::shared_ptr<attn::train::Transformer>& model() const { return model_; }

  val config() const { return to_js(model_->config()); }

  val parameter_names() const {
    val names = val::array();
    for (const std::string& name : model_->parameter_names()) names.call<void>("push", name);
    return names;
  }

  val parameter(const std::string& name) const {
    return guarded([&] { return to_js(model_->parameter(name)); });
  }

  val set_parameter(const std::string& name, const val& value) {
    return guarded([&] {
      model_->set_parameter(name, to_matrix(value));
      return val::undefined();
    });
  }

  val loss_and_gradients(const val& input) {
    return guarded([&] {
      const BatchIds ids(input);
      val result = val::object();
      result.set("loss", model_->loss_and_gradients(ids.batch));
      val gradients = val::object();
      for (const attn::train::ParameterInfo& info : model_->parameters()) {
        gradients.set(info.name, to_js(model_->gradients() + info.offset, info.rows, info.cols));
      }
      result.set("gradients", gradients);
      return result;
    });
  }

  val logits(const val& input) {
    return guarded([&] {
      const BatchIds ids(input);
      model_->forward(ids.batch);
      return to_js(model_->logits(), ids.batch.B * ids.batch.A, model_->config().outputs);
    });
  }

  // input: one sequence whose answers are all its positions, so every layer computes every row.
  val attention(const val& input) {
    return guarded([&] {
      const BatchIds ids(input);
      model_->forward(ids.batch);
      const long T = ids.batch.T;
      val layers = val::array();
      for (long l = 0; l < model_->config().layers; ++l) {
        val heads = val::array();
        for (long h = 0; h < model_->config().heads; ++h) {
          heads.call<void>("push", to_js(model_->attention_weights(l) + h * T * T, T, T));
        }
        layers.call<void>("push", heads);
      }
      val result = val::object();
      result.set("weights", layers);
      return result;
    });
  }

 private:
  std::shared_ptr<attn::train::Transformer> model_;
};

val create_transformer(val config) {
  return guarded([&] {
    return val(
        ModelHandle(std::make_shared<attn::train::Transformer>(to_transformer_config(config))));
  });
}

attn::train::TaskOptions to_task(const val& task) {
  attn::train::TaskOptions result;
  read(task, "pairs", result.pairs);
  read(task, "keys", result.keys);
  read(task, "values", result.values);
  read(task, "answerPositions", result.answer_positions);
  read(task, "span", result.span);
  if (given(task, "mix")) {  // the weights given; an objective left out weighs 0
    const val mix = task["mix"];
    for (std::size_t o = 0; o < attn::train::kObjectives.size(); ++o) {
      result.mix[o] = 0.0;
      read(mix, attn::to_string(attn::train::kObjectives[o]), result.mix[o]);
    }
  }
  return result;
}

attn::train::OptimizerOptions to_optimizer(const val& training) {
  attn::train::OptimizerOptions result;
  read(training, "steps", result.schedule.steps);
  read(training, "learningRate", result.schedule.learning_rate);
  read(training, "warmup", result.schedule.warmup);
  read(training, "schedule", result.schedule.schedule);
  read(training, "weightDecay", result.adamw.weight_decay);
  if (given(training, "betas")) {
    result.adamw.beta1 = training["betas"][0].as<double>();
    result.adamw.beta2 = training["betas"][1].as<double>();
  }
  read(training, "clip", result.clip);
  return result;
}

attn::train::TrainingOptions to_training(const val& options) {
  attn::train::TrainingOptions result;
  result.task = to_task(options["task"]);
  const val model = options["model"];
  read_architecture(model, result.model);
  read(model, "context", result.context);
  const val training = options["training"];
  result.optimizer = to_optimizer(training);
  read(training, "batch", result.batch);
  if (given(training, "seed")) result.seed = training["seed"].as<std::uint32_t>();
  const val evaluation = options["evaluation"];
  read(evaluation, "every", result.every);
  read(evaluation, "sequences", result.sequences);
  result.evaluation_pairs = {result.task.pairs};
  if (given(evaluation, "pairs")) {
    const std::vector<double> pairs =
        emscripten::convertJSArrayToNumberVector<double>(evaluation["pairs"]);
    result.evaluation_pairs.assign(pairs.begin(), pairs.end());
  }
  return result;
}

class TrainerHandle {
 public:
  explicit TrainerHandle(std::shared_ptr<attn::train::RetrievalTrainer> trainer)
      : trainer_(std::move(trainer)) {}

  double step() const { return double(trainer_->step()); }
  double steps() const { return double(trainer_->steps()); }
  bool finished() const { return trainer_->finished(); }

  val advance(double max_steps) {
    return guarded([&] {
      const auto checkpoint =
          trainer_->advance(long(std::min(max_steps, double(attn::train::kMaxSteps))));
      return checkpoint ? to_js(*checkpoint) : val::null();
    });
  }

  // pairs 0: the task's own
  val evaluate(double pairs) {
    return guarded([&] {
      return to_js(trainer_->evaluate(pairs > 0 ? long(pairs) : trainer_->options().task.pairs));
    });
  }

  ModelHandle model() const { return ModelHandle(trainer_->shared_model()); }

  double shards() const { return double(attn::train::kGradientShards); }
  double parameter_count() const { return double(trainer_->parameter_count()); }

  // Shards first..end-1 of the step (its batches drawn first when not yet), as the fewest
  // blocks that tile them: [{first, end, gradient: Float32Array(P), loss}]. training.mjs
  // checked first and end.
  val compute_shards(double first, double end) {
    return guarded([&] {
      trainer_->sample_step();
      val blocks = val::array();
      std::vector<float> gradient(trainer_->parameter_count());
      for (const attn::train::ShardRange block :
           attn::train::shard_blocks(long(first), long(end))) {
        const double loss = trainer_->block_gradient(block, gradient.data());
        val result = val::object();
        result.set("first", block.first);
        result.set("end", block.end);
        result.set("gradient", to_float32_array(gradient.data(), gradient.size()));
        result.set("loss", loss);
        blocks.call<void>("push", result);
      }
      return blocks;
    });
  }

  // The step from blocks that tile the shards, in order: [{first, end, gradient, loss}], each
  // checked by training.mjs (whole numbers, a Float32Array of P, a finite number); each
  // gradient copied in when the core reads it. Whether the step ends at a checkpoint.
  val apply_shards(const val& blocks) {
    return guarded([&] {
      const std::size_t count = blocks["length"].as<std::size_t>();
      std::vector<attn::train::ShardRange> ranges(count);
      std::vector<double> losses(count);
      for (std::size_t b = 0; b < count; ++b) {
        const val block = blocks[b];
        ranges[b] = {long(block["first"].as<double>()), long(block["end"].as<double>())};
        losses[b] = block["loss"].as<double>();
      }
      const std::size_t P = trainer_->parameter_count();
      return val(trainer_->apply_blocks(ranges, losses, [&](std::size_t b, float* into) {
        val(emscripten::typed_memory_view(P, into)).call<void>("set", blocks[b]["gradient"]);
      }));
    });
  }

  bool stop() { return trainer_->stop(); }

  double evaluation_chunks() const { return double(trainer_->evaluation_chunks()); }
  double pairs() const { return double(trainer_->options().task.pairs); }

  // Int32Array(task.pairs): right answers by position in chunks [first, end) of the held-out set.
  val correct_answers(double first, double end) {
    return guarded(
        [&] { return to_int32_array(trainer_->correct_answers(long(first), long(end))); });
  }

  // The checkpoint from every chunk's right answers (numbers, checked by training.mjs).
  val checkpoint(const val& correct) {
    return guarded([&] {
      std::vector<long> counts(correct["length"].as<std::size_t>());
      for (std::size_t i = 0; i < counts.size(); ++i) counts[i] = long(correct[i].as<double>());
      return to_js(trainer_->checkpoint(counts));
    });
  }

 private:
  std::shared_ptr<attn::train::RetrievalTrainer> trainer_;
};

val create_retrieval_trainer(val options) {
  return guarded([&] {
    return val(
        TrainerHandle(std::make_shared<attn::train::RetrievalTrainer>(to_training(options))));
  });
}

class OptimizerHandle {
 public:
  OptimizerHandle(const ModelHandle& model, const attn::train::OptimizerOptions& options)
      : model_(model.model()),
        optimizer_(std::make_shared<attn::train::Optimizer>(model_->parameter_count(), options)) {}

  double steps() const { return double(optimizer_->steps_taken()); }

  val step(const val& input) {
    return guarded([&] {
      const BatchIds ids(input);
      val result = val::object();
      result.set("loss", model_->loss_and_gradients(ids.batch));
      const attn::train::OptimizerStep taken =
          optimizer_->step(model_->values(), model_->gradients());
      result.set("gradientNorm", taken.gradient_norm);
      result.set("learningRate", taken.learning_rate);
      return result;
    });
  }

 private:
  std::shared_ptr<attn::train::Transformer> model_;
  std::shared_ptr<attn::train::Optimizer> optimizer_;
};

val create_optimizer(const ModelHandle& model, val training) {
  return guarded([&] { return val(OptimizerHandle(model, to_optimizer(training))); });
}

// evaluateRetrieval's options: {task, pairs, sequences, context}, checked by training.mjs.
struct HeldOutSet {
  attn::train::TaskOptions task;
  long pairs = 0;
  long sequences = attn::train::TrainingOptions{}.sequences;
  attn::train::Context context = attn::train::Context::causal;

  explicit HeldOutSet(const val& options) : task(to_task(options["task"])), pairs(task.pairs) {
    read(options, "pairs", pairs);
    read(options, "sequences", sequences);
    read(options, "context", context);
  }
};

val evaluate_retrieval(const ModelHandle& model, val options) {
  return guarded([&] {
    const HeldOutSet set(options);
    return to_js(attn::train::evaluate_retrieval(*model.model(), set.task, set.pairs, set.sequences,
                                                 set.context));
  });
}

// {chunks, pairs}: how many chunks the held-out set is measured in, and of how many pairs.
val held_out_chunks(const ModelHandle& model, val options) {
  return guarded([&] {
    const HeldOutSet set(options);
    val result = val::object();
    result.set("chunks", double(attn::train::evaluation_chunks(*model.model(), set.task, set.pairs,
                                                               set.sequences)));
    result.set("pairs", double(set.pairs));
    return result;
  });
}

// [layer][head] → Float64Array of JavaScript, arrays of them read once by training.mjs.
attn::train::AttentionByPosition to_table(const val& layers) {
  attn::train::AttentionByPosition table(layers["length"].as<std::size_t>());
  for (std::size_t l = 0; l < table.size(); ++l) {
    const val heads = layers[l];
    table[l].resize(heads["length"].as<std::size_t>());
    for (std::size_t h = 0; h < table[l].size(); ++h) {
      table[l][h] = emscripten::convertJSArrayToNumberVector<double>(heads[h]);
    }
  }
  return table;
}

// Chunks [first, end) of the held-out set: [{chunk, loss, correct, attention: {toValue, toKey,
// toFirst}}], the sums of evaluation.hpp's EvaluationSums.
val evaluate_retrieval_chunks(const ModelHandle& model, val options, double first, double end) {
  return guarded([&] {
    const HeldOutSet set(options);
    val chunks = val::array();
    for (const attn::train::EvaluationSums& sums :
         attn::train::evaluation_sums(*model.model(), set.task, set.pairs, set.sequences,
                                      set.context, long(first), long(end))) {
      chunks.call<void>("push", to_js(sums));
    }
    return chunks;
  });
}

// The evaluation from every chunk's sums, in chunk order: [{chunk, sequences, measuredWith,
// loss, correct, toValue, toKey, toFirst}], objects training.mjs made of the checked values
// (their shapes the model's); the core checks them against the set and the model.
val join_retrieval_evaluation(const ModelHandle& model, val options, val chunks) {
  return guarded([&] {
    const HeldOutSet set(options);
    std::vector<attn::train::EvaluationSums> sums(chunks["length"].as<std::size_t>());
    for (std::size_t c = 0; c < sums.size(); ++c) {
      const val chunk = chunks[c];
      sums[c].chunk = to_long(chunk["chunk"]);
      sums[c].sequences = to_long(chunk["sequences"]);
      sums[c].measured_with = chunk["measuredWith"].as<std::uint32_t>();
      sums[c].loss = chunk["loss"].as<double>();
      const std::vector<double> correct =
          emscripten::convertJSArrayToNumberVector<double>(chunk["correct"]);
      sums[c].correct.assign(correct.begin(), correct.end());
      sums[c].to_value = to_table(chunk["toValue"]);
      sums[c].to_key = to_table(chunk["toKey"]);
      sums[c].to_first = to_table(chunk["toFirst"]);
    }
    return to_js(attn::train::join_evaluation(*model.model(), set.task, set.pairs, set.sequences,
                                              set.context, sums));
  });
}

// The stream of draws retrievalBatch takes from its seed: neither the trainer's nor the
// held-out set's.
constexpr std::uint32_t kBatchStream = 2;

val retrieval_batch(val options) {
  return guarded([&] {
    const attn::train::TaskOptions task = to_task(options["task"]);
    attn::train::validate(task);
    attn::train::Objective objective = attn::train::Objective::retrieval;
    read(options, "objective", objective);
    long pairs = task.pairs, batch = 1;
    read(options, "pairs", pairs);
    read(options, "batch", batch);
    attn::require_whole_number("pairs", pairs, 1, task.keys);
    attn::require_whole_number("batch", batch, 1, attn::train::kMaxEvaluationSequences);
    if (objective == attn::train::Objective::running_span) {
      attn::require_whole_number("task.span", task.span, 1, pairs);
    }
    attn::train::TaskRandom random(options["seed"].as<std::uint32_t>(), kBatchStream);
    const attn::train::TaskBatch drawn =
        attn::train::sample_batch(task, objective, pairs, batch, random);
    val result = val::object();
    result.set("tokens", to_int32_array(drawn.tokens));
    result.set("targets", to_int32_array(drawn.targets));
    result.set("queried", to_int32_array(drawn.queried));
    result.set("batch", drawn.B);
    result.set("length", drawn.T);
    result.set("answers", drawn.A);
    return result;
  });
}

std::string version() { return attn::version(); }

// The bytes the module's allocations hold in its heap now (malloc's in-use bytes, mallinfo's
// uordblks): back where it was after any call that freed what it allocated, unlike the heap's
// size, which only grows.
double heap_in_use() { return static_cast<double>(mallinfo().uordblks); }

}  // namespace

EMSCRIPTEN_BINDINGS(attention_core) {
  emscripten::function("version", &version);
  emscripten::function("heapInUse", &heap_in_use);

  // attention
  emscripten::function("attention", &attention);
  emscripten::function("selfAttention", &self_attention);
  emscripten::function("walkthrough", &walkthrough);
  emscripten::function("rope", &rope);
  emscripten::function("attentionMemory", &attention_memory);
  emscripten::function("kvCacheMemory", &kv_cache_memory);

  // block pooling
  emscripten::function("poolBlocks", &pool_blocks);

  // PyTorch's generator
  emscripten::function("torchRand", &torch_rand);
  emscripten::function("torchLinear", &torch_linear);

  // the lab
  emscripten::function("rollout", &rollout);
  emscripten::function("positionCurve", &position_curve);
  emscripten::function("needleSweep", &needle_sweep);
  emscripten::function("needleGrid", &needle_grid);
  emscripten::function("ropeDecay", &rope_decay);
  emscripten::function("distanceWeights", &distance_weights);

  // text
  emscripten::function("tokenize", &tokenize);
  emscripten::function("parseVectors", &parse_vectors);

  // training: handles JavaScript must delete (the model, the trainer, the optimizer)
  emscripten::class_<ModelHandle>("TransformerModel")
      .function("config", &ModelHandle::config)
      .function("parameterNames", &ModelHandle::parameter_names)
      .function("parameter", &ModelHandle::parameter)
      .function("setParameter", &ModelHandle::set_parameter)
      .function("lossAndGradients", &ModelHandle::loss_and_gradients)
      .function("logits", &ModelHandle::logits)
      .function("attention", &ModelHandle::attention);
  emscripten::class_<TrainerHandle>("RetrievalTrainer")
      .function("step", &TrainerHandle::step)
      .function("steps", &TrainerHandle::steps)
      .function("finished", &TrainerHandle::finished)
      .function("advance", &TrainerHandle::advance)
      .function("evaluate", &TrainerHandle::evaluate)
      .function("model", &TrainerHandle::model)
      .function("shards", &TrainerHandle::shards)
      .function("parameterCount", &TrainerHandle::parameter_count)
      .function("computeShards", &TrainerHandle::compute_shards)
      .function("applyShards", &TrainerHandle::apply_shards)
      .function("evaluationChunks", &TrainerHandle::evaluation_chunks)
      .function("pairs", &TrainerHandle::pairs)
      .function("correctAnswers", &TrainerHandle::correct_answers)
      .function("checkpoint", &TrainerHandle::checkpoint)
      .function("stop", &TrainerHandle::stop);
  emscripten::class_<OptimizerHandle>("Optimizer")
      .function("steps", &OptimizerHandle::steps)
      .function("step", &OptimizerHandle::step);
  emscripten::function("createTransformer", &create_transformer);
  emscripten::function("createRetrievalTrainer", &create_retrieval_trainer);
  emscripten::function("createOptimizer", &create_optimizer);
  emscripten::function("evaluateRetrieval", &evaluate_retrieval);
  emscripten::function("heldOutChunks", &held_out_chunks);
  emscripten::function("evaluateRetrievalChunks", &evaluate_retrieval_chunks);
  emscripten::function("joinRetrievalEvaluation", &join_retrieval_evaluation);
  emscripten::function("retrievalBatch", &retrieval_batch);
}
