// The wasm ceilings for the benchmark's "% of peak": f32x4 multiply and add on independent
// accumulators (wasm SIMD128 has no fused multiply-add), and, built with -mrelaxed-simd
// (peak_relaxed.wasm), one f32x4.relaxed_madd instead, the relaxed-SIMD engine's instruction.
// Each accumulator is a chain of dependent multiply-adds, so too few chains measure latency,
// not throughput: 8 chains gave 39 GFLOP/s here, 12 gave 56, 14 spilled registers in V8 (26).
// bench/run.mjs runs every exported width and keeps the fastest. Built as a standalone .wasm
// with no imports; bench/run.mjs instantiates it directly (the relaxed one once its opcodes
// are made standard, as the engine's are: scripts/relaxed-simd.mjs).
typedef float f32x4 __attribute__((vector_size(16)));

// Runs `iterations` rounds of acc = acc·m + c on each of kChains accumulators: 8·kChains
// flops a round.
template <int kChains>
float peak(int iterations, float seed) {
  f32x4 acc[kChains];
  for (int a = 0; a < kChains; ++a) acc[a] = f32x4{} + (seed + a);
  const f32x4 m = f32x4{} + 0.999f, c = f32x4{} + 0.001f;
  for (int i = 0; i < iterations; ++i) {
#if defined(__wasm_relaxed_simd__)
    for (int a = 0; a < kChains; ++a) acc[a] = __builtin_wasm_fma_f32x4(acc[a], m, c);
#else
    for (int a = 0; a < kChains; ++a) acc[a] = acc[a] * m + c;
#endif
  }
  f32x4 sum = f32x4{};
  for (int a = 0; a < kChains; ++a) sum += acc[a];
  return sum[0] + sum[1] + sum[2] + sum[3];
}

extern "C" {
__attribute__((used)) float peak8(int iterations, float seed) { return peak<8>(iterations, seed); }
__attribute__((used)) float peak10(int iterations, float seed) {
  return peak<10>(iterations, seed);
}
__attribute__((used)) float peak12(int iterations, float seed) {
  return peak<12>(iterations, seed);
}
}
