// Embind bindings: the thin layer between wasm/attention.mjs and the core.
//
// Matrices arrive as {rows, cols, data: Float32Array} and leave as copies. Options arrive
// already checked for type by attention.mjs. Every call catches C++ exceptions here and
// returns {ok: true, value} or {ok: false, error}: a throw that crosses into JavaScript
// leaks wasm memory, a value does not. attention.mjs turns errors into JavaScript Errors.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <algorithm>
#include <climits>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "attn/attention.hpp"
#include "attn/errors.hpp"
#include "attn/lab/needle.hpp"
#include "attn/lab/rollout.hpp"
#include "attn/memory.hpp"
#include "attn/positional.hpp"
#include "attn/self_attention.hpp"
#include "attn/text/tokenizer.hpp"
#include "attn/text/vectors.hpp"
#include "attn/torch_generator.hpp"
#include "attn/tutorial.hpp"
#include "attn/version.hpp"

using emscripten::val;

namespace {

// ---- JavaScript → core ---------------------------------------------------------------

// A whole number from JavaScript, clamped into long (32-bit in wasm). attention.mjs
// already keeps sizes within 2^31 - 1; only window and sinks may be larger, and any
// window past the sequence length sees the same keys.
long to_long(const val& number) {
  const double value = number.as<double>();
  return static_cast<long>(std::clamp(value, double(LONG_MIN), double(LONG_MAX)));
}

// {rows, cols, data: Float32Array} → rows×cols.
attn::Matrix to_matrix(const val& matrix) {
  const std::size_t rows = matrix["rows"].as<unsigned>(), cols = matrix["cols"].as<unsigned>();
  attn::Matrix result = attn::Matrix::from_shape({rows, cols});
  // One copy, by Float32Array.set: attention.mjs hands over data as a Float32Array of
  // exactly rows·cols values.
  val(emscripten::typed_memory_view(result.size(), result.data())).call<void>("set", matrix["data"]);
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

attn::Normalization to_normalization(const std::string& name) {
  if (name == "naive-softmax") return attn::Normalization::naive_softmax;
  if (name == "sum") return attn::Normalization::sum;
  return attn::Normalization::softmax;
}

attn::Kernel to_kernel(const std::string& name) {
  if (name == "materialized") return attn::Kernel::materialized;
  if (name == "flash") return attn::Kernel::flash;
  return attn::Kernel::automatic;
}

attn::PositionalOptions to_positional(const val& positional) {
  attn::PositionalOptions result;
  const std::string type = positional["type"].as<std::string>();
  if (type == "sinusoidal") result.type = attn::PositionalType::sinusoidal;
  if (type == "rope") result.type = attn::PositionalType::rope;
  if (type == "alibi") result.type = attn::PositionalType::alibi;
  if (!positional["slopes"].isNull()) {
    const attn::Vector slopes = to_vector(positional["slopes"]);
    result.slopes.assign(slopes.begin(), slopes.end());
  }
  result.base = positional["base"].as<double>();
  result.pairing = positional["pairing"].as<std::string>() == "half" ? attn::RopePairing::half
                                                                      : attn::RopePairing::interleaved;
  return result;
}

// The normalised options object built by attention.mjs.
attn::AttentionOptions to_options(const val& options) {
  attn::AttentionOptions result;
  result.heads = to_long(options["heads"]);
  const val scale = options["scale"];
  if (scale.isTrue()) {
    result.scale.mode = attn::ScaleOption::Mode::inverse_sqrt_head_width;
  } else if (scale.isFalse()) {
    result.scale.mode = attn::ScaleOption::Mode::none;
  } else {
    result.scale.mode = attn::ScaleOption::Mode::factor;
    result.scale.factor = scale.as<double>();
  }
  result.normalization = to_normalization(options["normalization"].as<std::string>());
  result.mask.causal = options["causal"].as<bool>();
  result.mask.window = to_long(options["window"]);
  result.mask.sinks = to_long(options["sinks"]);
  result.positional = to_positional(options["positional"]);
  result.kernel = to_kernel(options["kernel"].as<std::string>());
  return result;
}

// ---- core → JavaScript ---------------------------------------------------------------

val to_float32_array(const float* data, std::size_t size) {
  // new Float32Array(view) copies: the view dies when wasm memory grows, the copy does not.
  return val::global("Float32Array").new_(emscripten::typed_memory_view(size, data));
}

// data copied into `destination`, a Float32Array of a previous result (attention.mjs passes
// nothing else), when it has exactly `size` elements; otherwise into a new Float32Array.
// Overwriting spares the allocation, which costs ten times the copy itself (16 MiB of
// results: 0.6 ms into a reused array, 7.5 ms into a new one, in Chromium here).
val to_float32_array(const float* data, std::size_t size, const val& destination) {
  if (destination.isNull() || destination.isUndefined() || destination["length"].as<double>() != size) {
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

val to_js(const attn::Matrix& matrix, const val& destination = val::null()) {
  val result = val::object();
  result.set("rows", matrix.shape(0));
  result.set("cols", matrix.shape(1));
  result.set("data", to_float32_array(matrix.data(), matrix.size(), destination));
  return result;
}

// destinations: a JavaScript array of Float32Array or null, one per matrix at most.
val to_js(const std::vector<attn::Matrix>& matrices, const val& destinations) {
  if (matrices.empty()) return val::null();
  const std::size_t reusable = destinations["length"].as<unsigned>();
  val result = val::array();
  for (std::size_t h = 0; h < matrices.size(); ++h) {
    result.call<void>("push", to_js(matrices[h], h < reusable ? destinations[h] : val::null()));
  }
  return result;
}

// reuse: {scores, weights, context, ...} as attention.mjs's reuseOption builds it.
val to_js(const attn::AttentionResult& attention, const val& reuse) {
  val result = val::object();
  result.set("scores", to_js(attention.scores, reuse["scores"]));
  result.set("weights", to_js(attention.weights, reuse["weights"]));
  result.set("context", to_js(attention.context, reuse["context"]));
  result.set("kernel", std::string(attn::to_string(attention.kernel_used)));
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
                                     "needs; try fewer tokens or kernel: 'flash'"));
  } catch (const std::length_error&) {
    outcome.set("error", std::string("too large: this call asks for more elements than the engine "
                                     "can hold; use fewer tokens or smaller sizes"));
  } catch (const std::exception& error) {
    outcome.set("error", std::string(error.what()));
  }
  outcome.set("ok", false);
  return outcome;
}

// ---- the calls -------------------------------------------------------------------------

val attention(val q, val k, val v, val options, val reuse) {
  return guarded([&] {
    return to_js(attn::attention(to_matrix(q), to_matrix(k), to_matrix(v), to_options(options)), reuse);
  });
}

val self_attention(val x, val weights, val options, val reuse) {
  return guarded([&] {
    attn::Projections projections;
    projections.wq = optional_matrix(weights["wq"]);
    projections.wk = optional_matrix(weights["wk"]);
    projections.wv = optional_matrix(weights["wv"]);
    projections.wo = optional_matrix(weights["wo"]);
    if (!weights["bo"].isNull()) projections.bo = to_vector(weights["bo"]);
    const attn::SelfAttentionResult result =
        attn::self_attention(to_matrix(x), projections, to_options(options));
    val out = to_js(result.attention, reuse);
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
    const attn::Matrix values = generator.rand(to_long(val(rows)), to_long(val(cols)));
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
        generator.linear(to_long(val(in_features)), to_long(val(out_features)), bias);
    val out = val::object();
    out.set("weight", to_js(parameters.weight));
    out.set("bias", parameters.bias ? to_float32_array(parameters.bias->data(), parameters.bias->size())
                                    : val::null());
    out.set("draws", static_cast<double>(generator.draws()));
    return out;
  });
}

val attention_memory(val options) {
  return guarded([&] {
    attn::MemoryQuery query;
    query.n = to_long(options["n"]);
    query.m = to_long(options["m"]);
    query.heads = to_long(options["heads"]);
    query.bytes_per_element = to_long(options["bytesPerElement"]);
    query.kernel = to_kernel(options["kernel"].as<std::string>());
    return val(attn::attention_memory(query));
  });
}

val rope_decay(double head_width, double base, double max_distance) {
  return guarded([&] {
    return to_float32_array(
        attn::rope_decay_bound(to_long(val(head_width)), base, to_long(val(max_distance))));
  });
}

// ---- the "lost in the middle" lab (attn/lab/) ---------------------------------

// The normalised model options built by attention.mjs: n, layers, residual, causal, window,
// sinks, positional {type, slope, base, headWidth, strength} and positionScales (number[]).
attn::lab::PositionModel to_position_model(const val& options) {
  attn::lab::PositionModel model;
  model.n = to_long(options["n"]);
  model.layers = to_long(options["layers"]);
  model.residual = options["residual"].as<double>();
  model.mask.causal = options["causal"].as<bool>();
  model.mask.window = to_long(options["window"]);
  model.mask.sinks = to_long(options["sinks"]);
  const val positional = options["positional"];
  const std::string type = positional["type"].as<std::string>();
  if (type == "alibi") model.bias.type = attn::PositionalType::alibi;
  if (type == "rope") model.bias.type = attn::PositionalType::rope;
  model.bias.slope = positional["slope"].as<double>();
  model.bias.base = positional["base"].as<double>();
  model.bias.head_width = to_long(positional["headWidth"]);
  model.bias.strength = positional["strength"].as<double>();
  model.position_scales = emscripten::convertJSArrayToNumberVector<double>(options["positionScales"]);
  return model;
}

attn::lab::NeedleOptions to_needle_options(const val& options) {
  attn::lab::NeedleOptions needle;
  needle.model = to_position_model(options);
  needle.depths = to_long(options["depths"]);
  needle.signal = options["signal"].as<double>();
  needle.noise = options["noise"].as<double>();
  needle.trials = to_long(options["trials"]);
  needle.seed = static_cast<std::uint32_t>(options["seed"].as<double>());
  needle.metric = options["metric"].as<std::string>() == "top1" ? attn::lab::NeedleMetric::top1
                                                                : attn::lab::NeedleMetric::mass;
  const val mitigation = options["mitigation"];
  const std::string type = mitigation["type"].as<std::string>();
  using Type = attn::lab::Mitigation::Type;
  if (type == "query-aware") needle.mitigation.type = Type::query_aware;
  if (type == "calibration") needle.mitigation.type = Type::calibration;
  if (type == "ms-poe") needle.mitigation.type = Type::ms_poe;
  if (type == "reorder") needle.mitigation.type = Type::reorder;
  needle.mitigation.heads = to_long(mitigation["heads"]);
  needle.mitigation.min_ratio = mitigation["minRatio"].as<double>();
  needle.mitigation.max_ratio = mitigation["maxRatio"].as<double>();
  needle.mitigation.retriever_noise = mitigation["retrieverNoise"].as<double>();
  return needle;
}

val to_int32_array(const std::vector<long>& values) {
  const std::vector<std::int32_t> whole(values.begin(), values.end());
  return val::global("Int32Array").new_(emscripten::typed_memory_view(whole.size(), whole.data()));
}

val to_js(const attn::lab::CurveSummary& summary) {
  val result = val::object();
  result.set("begin", summary.begin);
  result.set("middle", summary.middle);
  result.set("end", summary.end);
  result.set("mean", summary.mean);
  result.set("maxOverMin", summary.max_over_min);
  return result;
}

val rollout(val options) {
  return guarded([&] {
    val out = val::object();
    out.set("influence", to_float32_array(attn::lab::rollout(to_position_model(options))));
    return out;
  });
}

val position_curve(val options) {
  return guarded([&] {
    const attn::lab::RolloutStart start = options["measure"].as<std::string>() == "received"
                                         ? attn::lab::RolloutStart::every_token
                                         : attn::lab::RolloutStart::final_token;
    const attn::lab::PositionCurve curve = attn::lab::position_curve(to_position_model(options), start);
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
    const std::vector<double> requested =
        emscripten::convertJSArrayToNumberVector<double>(options["lengths"]);
    std::vector<long> lengths;
    for (double length : requested) lengths.push_back(to_long(val(length)));
    const attn::lab::NeedleGrid grid = attn::lab::needle_grid(to_needle_options(options), lengths);
    val out = val::object();
    out.set("lengths", to_int32_array(grid.lengths));
    out.set("depths", to_float32_array(grid.depths));
    out.set("values", to_float32_array(grid.values));
    out.set("rows", grid.lengths.size());
    out.set("cols", grid.depths.size());
    return out;
  });
}

std::string version() { return attn::version(); }

}  // namespace

EMSCRIPTEN_BINDINGS(attention_core) {
  emscripten::function("attention", &attention);
  emscripten::function("selfAttention", &self_attention);
  emscripten::function("walkthrough", &walkthrough);
  emscripten::function("torchRand", &torch_rand);
  emscripten::function("torchLinear", &torch_linear);
  emscripten::function("rollout", &rollout);
  emscripten::function("attentionMemory", &attention_memory);
  emscripten::function("ropeDecay", &rope_decay);
  emscripten::function("positionCurve", &position_curve);
  emscripten::function("needleSweep", &needle_sweep);
  emscripten::function("needleGrid", &needle_grid);
  emscripten::function("version", &version);
}

// ---- text: the tokenizer and the vector-table parser (attn/text/) -----------------------
// Text arrives as UTF-8 through Embind's std::string, after attention.mjs has replaced lone
// surrogates (which Embind's encoder would merge with the next character); offsets go back
// as UTF-16 indices into the caller's string.

namespace {

// limit: undefined for every token (an error past kMaxTokens), or the most to read.
val text_tokenize(std::string text, val limit) {
  return guarded([&] {
    const attn::text::Tokenized result =
        limit.isUndefined() ? attn::text::Tokenized{attn::text::tokenize(text), false}
                            : attn::text::tokenize(text, limit.as<std::size_t>());
    const std::vector<attn::text::Token>& tokens = result.tokens;
    std::vector<std::int32_t> starts, ends;  // text is at most 16 MiB: offsets fit in 32 bits
    starts.reserve(tokens.size());
    ends.reserve(tokens.size());
    for (const attn::text::Token& token : tokens) {
      starts.push_back(static_cast<std::int32_t>(token.utf16_begin));
      ends.push_back(static_cast<std::int32_t>(token.utf16_end));
    }
    const val Int32Array = val::global("Int32Array");
    val out = val::object();
    out.set("starts", Int32Array.new_(emscripten::typed_memory_view(starts.size(), starts.data())));
    out.set("ends", Int32Array.new_(emscripten::typed_memory_view(ends.size(), ends.data())));
    out.set("truncated", result.truncated);
    return out;
  });
}

val text_parse_vectors(std::string text) {
  return guarded([&] { return to_js(attn::text::parse_vectors(text)); });
}

}  // namespace

EMSCRIPTEN_BINDINGS(attention_text) {
  emscripten::function("tokenize", &text_tokenize);
  emscripten::function("parseVectors", &text_parse_vectors);
}
