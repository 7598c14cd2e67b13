// The wasm SIMD128 ceiling for the benchmark's "% of peak": f32x4 multiply and add on
// eight independent accumulators (wasm SIMD128 has no fused multiply-add). Built as a
// standalone .wasm with no imports; bench/run.mjs instantiates it directly.
typedef float f32x4 __attribute__((vector_size(16)));

constexpr int kAccumulators = 8;  // enough independent chains to hide the add latency

// Runs `iterations` rounds of acc = acc·m + c on every accumulator: 64 flops a round.
extern "C" __attribute__((used)) float peak(int iterations, float seed) {
  f32x4 acc[kAccumulators];
  for (int a = 0; a < kAccumulators; ++a) acc[a] = f32x4{} + (seed + a);
  const f32x4 m = f32x4{} + 0.999f, c = f32x4{} + 0.001f;
  for (int i = 0; i < iterations; ++i) {
    for (int a = 0; a < kAccumulators; ++a) acc[a] = acc[a] * m + c;
  }
  f32x4 sum = f32x4{};
  for (int a = 0; a < kAccumulators; ++a) sum += acc[a];
  return sum[0] + sum[1] + sum[2] + sum[3];
}
