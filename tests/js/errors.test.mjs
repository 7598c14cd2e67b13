// Bad inputs: every call throws a JavaScript Error whose message names the argument and
// what was wrong (the README's API section), and the engine still answers correctly
// afterwards.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import createAttention from '../../dist/wasm/attention.mjs';
import { coreArguments, reuseOption } from '../../dist/wasm/attention-arguments.mjs';
import createAttentionCore from '../../dist/wasm/attention_core.mjs';
import { bytesOf, errorOf } from './reference.mjs';

const engine = await createAttention();
// What the engine answers to a few calls, taken before any failed call (the last test compares).
const answer = () => {
  const q = [[0.1, 0.2], [0.3, -0.4], [0.5, 0.6]];
  const r = engine.attention(q, q, q, { causal: true, positional: { type: 'rope' } });
  return Buffer.concat([bytesOf(r.scores[0].data), bytesOf(r.weights[0].data), bytesOf(r.context.data),
    bytesOf(engine.torchGenerator(3).rand(2, 2).data), bytesOf(engine.rollout({ n: 5, layers: 2 }).influence)]);
};
const answeredFirst = answer();

const Q = [[1, 2, 3], [4, 5, 6]];       // 2×3
const K = [[1, 0, 1], [0, 1, 0], [1, 1, 1]];  // 3×3
const V = [[1, 2], [3, 4], [5, 6]];     // 3×2
const X = [[0.1, 0.2, 0.3, 0.4], [0.5, 0.6, 0.7, 0.8], [0.9, 1.0, 1.1, 1.2]];  // 3×4
const attend = (options) => () => engine.attention(Q, K, V, options);
// a 2×2 head pooled whole (engine.poolBlocks)
const POOL_REGION = { scores: new Float32Array(4), weights: new Float32Array(4), stride: 2, rows: 2, cols: 2, block: 1 };
const flatOf = (rows, cols) => ({ rows, cols, data: new Float32Array(rows * cols) });
const rope = (extra) => ({ positional: { type: 'rope', ...extra } });
// training: a small model (vocab 12, outputs 5, dModel 8, maxLength 16) and a batch of 2 × 3
const config = (extra) => ({ vocab: 12, outputs: 5, dModel: 8, maxLength: 16, ...extra });
const model = engine.createTransformer(config({}));
const batch = (extra) => ({ tokens: [0, 1, 2, 3, 4, 5], batch: 2, targets: [1, 2], ...extra });
// its task (4 keys and 5 values: 12 tokens) on 300 held-out sequences of 3 pairs: chunks of 256
// and 44 (position 0 asked 86 and 14 times, positions 1 and 2 85 and 15)
const HELD_OUT = { task: { pairs: 3, keys: 4, values: 5 }, sequences: 300 };
// the sums of both chunks, `change` applied to them
const chunkSums = (change) => {
  const chunks = engine.evaluateRetrievalChunks(model, HELD_OUT);
  change(chunks);
  return () => engine.joinRetrievalEvaluation(model, HELD_OUT, chunks);
};

// [what is wrong, the call, words the message must contain (strings or RegExps)]
const CASES = [
  // matrices: types and shapes, JS side
  ['q is a string', () => engine.attention('q', K, V), ['q', 'number[][]', 'string']],
  ['k is null', () => engine.attention(Q, null, V), ['k', 'null']],
  ['v is a number', () => engine.attention(Q, K, 5), ['v', 'number[][]', '5']],
  ['q has no rows', () => engine.attention([], K, V), ['q', 'no rows']],
  ['k has an empty row', () => engine.attention(Q, [[]], V), ['k', 'empty']],
  ['ragged rows', () => engine.attention([[1, 2, 3], [4, 5]], K, V), ['q', 'ragged', 'row 1', '2', '3']],
  ['a string entry', () => engine.attention(Q, K, [[1, 2], [3, '4'], [5, 6]]), ['v[1][1]', 'number', 'string']],
  ['a row that is not an array', () => engine.attention([[1, 2, 3], 7], K, V), ['q[1]', 'array']],
  ['flat data of the wrong length', () => engine.attention({ rows: 2, cols: 3, data: [1, 2, 3, 4, 5] }, K, V),
    ['q.data', '5', '2×3', '6']],
  ['flat rows 0', () => engine.attention({ rows: 0, cols: 3, data: [] }, K, V), ['q.rows', '≥ 1', '0']],
  ['flat data not an array', () => engine.attention(Q, { rows: 1, cols: 3, data: 'abc' }, V), ['k.data', 'Float32Array']],
  ['flat cols fractional', () => engine.attention(Q, K, { rows: 3, cols: 1.5, data: [1, 2, 3] }), ['v.cols', 'whole number', '1.5']],
  // non-finite values, C++ side, with their position
  ['NaN in q', () => engine.attention([[1, 2, 3], [4, 5, NaN]], K, V), ['q[1][2]', 'NaN']],
  ['Infinity in k', () => engine.attention(Q, [[1, 0, 1], [0, Infinity, 0], [1, 1, 1]], V), ['k[1][1]', 'Infinity']],
  ['-Infinity in v (flat Float32Array)', () => engine.attention(Q, K, { rows: 3, cols: 2, data: new Float32Array([1, 2, 3, 4, -Infinity, 6]) }),
    ['v[2][0]', '-Infinity']],
  ['NaN in selfAttention x', () => engine.selfAttention([[1, 2], [NaN, 0]]), ['x[1][0]', 'NaN']],
  // shape mismatches name both shapes
  ['k columns differ from q', () => engine.attention(Q, [[1, 2, 3, 4]], [[1, 2]]), ['k', 'q', '2×3', '1×4', 'columns']],
  ['v rows differ from k', () => engine.attention(Q, K, [[1, 2], [3, 4]]), ['v', 'k', '3×3', '2×2', 'rows']],
  ['wq rows differ from x columns', () => engine.selfAttention(X, { wq: [[1, 2]], wk: [[1, 2]], wv: [[1, 2]] }),
    ['wq', 'x', '3×4', '1×2']],
  ['wo rows differ from v columns', () => engine.selfAttention(X, { wo: [[1, 2], [3, 4]] }), ['wo', '3×4', '2×2']],
  ['bo length differs from wo columns', () => engine.selfAttention(X, { wo: flatOf(4, 3), bo: [1, 2] }), ['bo', '2', 'wo', '3']],
  ['wq without wk and wv', () => engine.selfAttention(X, { wq: flatOf(4, 2) }), ['wq, wk and wv', 'missing']],
  ['bo without wo', () => engine.selfAttention(X, { bo: [1, 2, 3, 4] }), ['bo', 'wo']],
  // heads
  ['heads not dividing dk', attend({ heads: 2 }), ['heads', '2', 'divide', 'dk', '3']],
  ['heads not dividing dv', () => engine.attention([[1, 2]], [[3, 4]], [[1, 2, 3]], { heads: 2 }), ['heads', 'divide', 'dv', '3']],
  ['heads 0', attend({ heads: 0 }), ['heads', 'from 1 to 2147483647', '0']],
  ['heads a string', attend({ heads: '2' }), ['heads', 'whole number', 'string']],
  // options
  ['options not an object', () => engine.attention(Q, K, V, 'flash'), ['attention options', 'object', 'string']],
  ['unknown option name (misspelt)', attend({ casual: true }), ["unknown option 'casual'", 'causal']],
  ['unknown selfAttention option', () => engine.selfAttention(X, { Wq: X }), ["unknown option 'Wq'", 'selfAttention']],
  ['bad normalization', attend({ normalization: 'softmx' }), ['normalization', "'softmax'", "'naive-softmax'", "'sum'", 'softmx']],
  ['bad kernel', attend({ kernel: 'fast' }), ['kernel', "'flash'", "'materialized'", 'fast']],
  // an empty name is a name given (the core says it is unknown), not the default
  ['empty kernel name', attend({ kernel: '' }), ['kernel', "'flash'", "''"]],
  ['empty normalization name', () => engine.selfAttention(X, { normalization: '' }), ['normalization', "'softmax'", "''"]],
  ['reuse is a number', attend({ reuse: 5 }), ['reuse', 'previous result', '5']],
  ['part not an object', attend({ part: [0, 1] }), ['part', 'object', 'array']],
  ['part with an unknown key', attend({ part: { columns: [0, 1] } }), ["unknown option 'columns' in part", 'rows, heads']],
  ['part.rows not a pair', attend({ part: { rows: [1] } }), ['part.rows', '[begin, end]', 'an array of 1']],
  ['part.rows beyond n', attend({ part: { rows: [1, 3] } }), ['part.rows', '0 ≤ begin < end ≤ n = 2', '[1, 3]']],
  ['part.heads empty', () => engine.attention([[1, 2]], [[1, 2]], [[1, 2]], { heads: 2, part: { heads: [1, 1] } }),
    ['part.heads', 'end ≤ heads = 2', '[1, 1]']],
  ['part.heads with wo', () => engine.selfAttention(X, { heads: 2, wo: flatOf(4, 2), part: { heads: [0, 1] } }),
    ['part.heads', 'every head', 'wo']],
  ['causal not a boolean', attend({ causal: 'yes' }), ['causal', 'true or false', 'yes']],
  ['scale NaN', attend({ scale: NaN }), ['scale', 'finite number', 'NaN']],
  ['scale a string', attend({ scale: 'sqrt' }), ['scale', 'true, false', 'sqrt']],
  ['negative window', attend({ window: -1 }), ['window', '-1']],
  ['fractional window', attend({ window: 2.5 }), ['window', 'whole number', '2.5']],
  ['negative sinks', attend({ sinks: -3 }), ['sinks', '-3']],
  ['positional a string', attend({ positional: 'rope' }), ['positional', 'object', 'rope']],
  ['bad positional type', attend({ positional: { type: 'learned' } }), ['positional.type', "'rope'", "'alibi'", 'learned']],
  ['sinusoidal in attention', attend({ positional: { type: 'sinusoidal' } }), ['positional.type', 'sinusoidal']],
  ['bad rope pairing', attend(rope({ pairing: 'adjacent' })), ['positional.pairing', "'interleaved'", "'half'", 'adjacent']],
  ['rope base ≤ 0', () => engine.attention([[1, 2]], [[1, 2]], [[1]], rope({ base: -5 })), ['positional.base', '> 0', '-5']],
  ['rope base not finite', attend(rope({ base: Infinity })), ['positional.base', 'finite', 'Infinity']],
  ['odd head width with rope', attend(rope({})), ['rope', 'even head width', '3']],
  ['odd head width with rope and heads', () => engine.attention([[1, 2, 3, 4, 5, 6]], [[1, 2, 3, 4, 5, 6]], [[1, 2]],
    { heads: 2, ...rope({}) }), ['rope', 'even', '3']],
  ['unknown key in a rope positional', attend(rope({ slopes: [1] })), ["unknown option 'slopes'", 'positional']],
  ['wrong slopes count', () => engine.attention(X, X, X, { heads: 2, positional: { type: 'alibi', slopes: [0.5, 0.25, 0.1] } }),
    ['positional.slopes', '3', 'heads', '2']],
  ['slopes with NaN', attend({ positional: { type: 'alibi', slopes: [NaN] } }), ['positional.slopes[0]', 'finite']],
  ['slopes not an array', attend({ positional: { type: 'alibi', slopes: 0.5 } }), ['positional.slopes', 'number[]', '0.5']],
  ['bo entry not a number', () => engine.selfAttention(X, { wo: flatOf(4, 2), bo: [1, 'x'] }), ['bo[1]', 'number']],
  // too large to materialise
  ['materialized too large', () => {
    const big = flatOf(16385, 1);
    return engine.attention(big, big, big, { kernel: 'materialized' });
  }, ['16385×16385', /\d{10} bytes/, "kernel: 'flash'"]],
  // walkthrough
  ['walkthrough query out of range', () => engine.walkthrough(X, { query: 3 }), ['query', '[0, 2]', '3']],
  ['walkthrough query negative', () => engine.walkthrough(X, { query: -1 }), ['query', '-1']],
  ['walkthrough scale not finite', () => engine.walkthrough(X, { scale: Infinity }), ['scale', 'finite', 'Infinity']],
  // torchGenerator
  ['negative seed', () => engine.torchGenerator(-1), ['seed', 'whole number', '-1']],
  ['fractional seed', () => engine.torchGenerator(1.5), ['seed', '1.5']],
  ['string seed', () => engine.torchGenerator('123'), ['seed', 'string']],
  ['missing seed', () => engine.torchGenerator(), ['seed', 'undefined']],
  ['rand with negative rows', () => engine.torchGenerator(1).rand(-2, 3), ['rows', '-2']],
  ['linear with 0 inFeatures', () => engine.torchGenerator(1).linear(0, 3), ['inFeatures', 'from 1 to 2147483647', '0']],
  ['rand past the per-call cap (C++)', () => engine.torchGenerator(1).rand(1, 2 ** 29 + 16),
    ['rows×cols', '536870928', 'more than one call may draw']],
  ['bo with NaN', () => engine.selfAttention(X, { wo: flatOf(4, 2), bo: [0, NaN] }), ['bo[1]', 'NaN']],
  ['linear with a non-boolean bias', () => engine.torchGenerator(1).linear(3, 2, 'no'), ['bias', 'true or false']],
  // rollout
  ['rollout residual above 1', () => engine.rollout({ n: 4, residual: 1.5 }), ['residual', '[0, 1]', '1.5']],
  ['rollout residual below 0', () => engine.rollout({ n: 4, residual: -0.1 }), ['residual', '[0, 1]', '-0.1']],
  ['rollout without n', () => engine.rollout({ layers: 2 }), ['n', 'from 1 to 2147483647', 'undefined']],
  ['rollout n too large', () => engine.rollout({ n: 1e9 }), [/\bn\b/, '1000000000']],
  ['rollout layers 0', () => engine.rollout({ n: 4, layers: 0 }), ['layers', 'from 1 to 2147483647', '0']],
  ['rollout negative slope', () => engine.rollout({ n: 4, positional: { type: 'alibi', slope: -1 } }), ['positional.slope', '≥ 0', '-1']],
  ['rollout rope', () => engine.rollout({ n: 4, positional: { type: 'rope' } }), ['positional.type', "'alibi'", 'rope']],
  ['rollout options missing', () => engine.rollout(), ['rollout options', 'object', 'undefined']],
  // attentionMemory and ropeDecay
  ['attentionMemory n 0', () => engine.attentionMemory({ n: 0 }), ['n', 'from 1 to 2147483647', '0']],
  ["attentionMemory kernel 'auto'", () => engine.attentionMemory({ n: 4, kernel: 'auto' }), ['kernel', "'flash'", 'auto']],
  ['attentionMemory bytesPerElement 0', () => engine.attentionMemory({ n: 4, bytesPerElement: 0 }), ['bytesPerElement', '0']],
  // kvHeads (grouped-query attention) and kvCacheMemory
  ['kvHeads not dividing heads', () => engine.attention(flatOf(2, 4), flatOf(3, 2), flatOf(3, 2), { heads: 4, kvHeads: 3 }),
    ['kvHeads (3) must divide heads (4)']],
  ['kvHeads 0', () => engine.attention(Q, K, V, { kvHeads: 0 }), ['kvHeads', 'from 1 to 2147483647', '0']],
  ['kvHeads fractional', () => engine.attention(Q, K, V, { kvHeads: 1.5 }), ['kvHeads', '1.5']],
  ['k columns not kvHeads head widths', () => engine.attention(flatOf(2, 8), flatOf(3, 6), flatOf(3, 4), { heads: 4, kvHeads: 2 }),
    ['k has 6 columns but kvHeads · dh = 2 · 2 = 4', 'the 8 columns of q', 'heads 4']],
  ['v columns not dividing by kvHeads', () => engine.attention(flatOf(2, 8), flatOf(3, 4), flatOf(3, 5), { heads: 4, kvHeads: 2 }),
    ['kvHeads (2) must divide dv, the 5 columns of v']],
  ['selfAttention kvHeads without weights', () => engine.selfAttention(flatOf(3, 4), { heads: 2, kvHeads: 1 }),
    ['kvHeads below heads needs wq, wk and wv', 'q = k = v = x']],
  ['selfAttention wk not kvHeads head widths', () => engine.selfAttention(flatOf(3, 4), { heads: 2, kvHeads: 1, wq: flatOf(4, 4), wk: flatOf(4, 4), wv: flatOf(4, 2) }),
    ['wk has 4 columns but kvHeads · dh = 1 · 2 = 2', 'wq']],
  ['selfAttention wo rows not the context width', () => engine.selfAttention(flatOf(3, 4), { heads: 2, kvHeads: 1, wq: flatOf(4, 4), wk: flatOf(4, 2), wv: flatOf(4, 2), wo: flatOf(2, 3) }),
    ['wo has 2 rows but the context has 4 columns']],
  ['kvCacheMemory tokens negative', () => engine.kvCacheMemory({ tokens: -1, layers: 32, kvHeads: 8, headWidth: 128 }),
    ['tokens must be a whole number from 0 to 2^53, got -1']],
  ['kvCacheMemory layers fractional', () => engine.kvCacheMemory({ tokens: 4, layers: 2.5, kvHeads: 8, headWidth: 128 }),
    ['layers', '2.5']],
  ['kvCacheMemory kvHeads missing', () => engine.kvCacheMemory({ tokens: 4, layers: 2, headWidth: 128 }),
    ['kvHeads must be a whole number', 'undefined']],
  ['kvCacheMemory headWidth a string', () => engine.kvCacheMemory({ tokens: 4, layers: 2, kvHeads: 1, headWidth: '128' }),
    ['headWidth', 'string']],
  ['kvCacheMemory bytesPerElement 0', () => engine.kvCacheMemory({ tokens: 4, layers: 2, kvHeads: 1, headWidth: 8, bytesPerElement: 0 }),
    ['bytesPerElement', 'from 1', '0']],
  ['kvCacheMemory window NaN', () => engine.kvCacheMemory({ tokens: 4, layers: 2, kvHeads: 1, headWidth: 8, window: NaN }),
    ['window', 'NaN']],
  ['kvCacheMemory absurd tokens', () => engine.kvCacheMemory({ tokens: 1e18, layers: 32, kvHeads: 8, headWidth: 128 }),
    ['tokens', '2^53', '1e+18']],
  ['kvCacheMemory past 2^53 bytes', () => engine.kvCacheMemory({ tokens: 2 ** 40, layers: 2 ** 10, kvHeads: 8, headWidth: 128 }),
    ['more than 2^53 bytes']],
  ['kvCacheMemory misspelt option', () => engine.kvCacheMemory({ tokens: 4, layers: 2, kvHeads: 1, headWidth: 8, heads: 8 }),
    ["unknown option 'heads'", 'kvCacheMemory options']],
  // block pooling
  ['poolBlocks scores a plain array', () => engine.poolBlocks({ ...POOL_REGION, scores: [1, 2, 3, 4] }), ['scores', 'Float32Array', 'an array of 4']],
  ['poolBlocks weights of another length', () => engine.poolBlocks({ ...POOL_REGION, weights: new Float32Array(3) }),
    ['weights', 'as many values as scores (4)', '3']],
  ['poolBlocks block 0', () => engine.poolBlocks({ ...POOL_REGION, block: 0 }), ['block', 'from 1', '0']],
  ['poolBlocks stride missing', () => engine.poolBlocks({ ...POOL_REGION, stride: undefined }), ['stride', 'undefined']],
  ['poolBlocks row0 negative', () => engine.poolBlocks({ ...POOL_REGION, row0: -1 }), ['row0', '≥ 0', '-1']],
  ['poolBlocks columns past the stride', () => engine.poolBlocks({ ...POOL_REGION, col0: 1 }), ['col0 + cols', 'stride (2)', '3']],
  ['poolBlocks rows past the matrix', () => engine.poolBlocks({ ...POOL_REGION, rows: 3 }), ['row0 + rows', 'the 2 rows', '3']],
  ['poolBlocks unknown mode', () => engine.poolBlocks({ ...POOL_REGION, mode: 'median' }), ['mode', "'max'", "'mean'", 'median']],
  ['poolBlocks misspelt option', () => engine.poolBlocks({ ...POOL_REGION, size: 2 }), ["unknown option 'size'", 'poolBlocks region']],
  ['ropeDecay odd headWidth', () => engine.ropeDecay({ headWidth: 5, maxDistance: 4 }), ['headWidth', 'even', '5']],
  ['ropeDecay base 1', () => engine.ropeDecay({ headWidth: 4, base: 1, maxDistance: 4 }), ['base', '> 1', '1']],
  ['distanceWeights odd headWidth', () => engine.distanceWeights({ positional: { type: 'rope', headWidth: 5 }, maxDistance: 4 }),
    ['positional.headWidth must be an even number ≥ 2, got 5']],
  ['distanceWeights base 1', () => engine.distanceWeights({ positional: { type: 'rope', base: 1 }, maxDistance: 4 }),
    ['positional.base must be a finite number > 1, got 1']],
  ['distanceWeights negative slope', () => engine.distanceWeights({ positional: { type: 'alibi', slope: -1 }, maxDistance: 4 }),
    ['positional.slope', '≥ 0', '-1']],
  ['distanceWeights maxDistance negative', () => engine.distanceWeights({ positional: { type: 'none' }, maxDistance: -1 }),
    ['maxDistance must be a whole number from 0 to 1048576, got -1']],
  ['distanceWeights maxDistance past the model', () => engine.distanceWeights({ positional: { type: 'none' }, maxDistance: 2 ** 20 + 1 }),
    ['maxDistance', '1048576', '1048577']],
  ['distanceWeights without positional', () => engine.distanceWeights({ maxDistance: 4 }), ['positional', 'undefined']],
  ['distanceWeights sinusoidal', () => engine.distanceWeights({ positional: { type: 'sinusoidal' }, maxDistance: 4 }),
    ['positional.type', "'rope'", 'sinusoidal']],
  ['distanceWeights misspelt option', () => engine.distanceWeights({ positional: { type: 'none' }, maxDistance: 4, n: 5 }),
    ["unknown option 'n'", 'distanceWeights options']],
  ['ropeDecay maxDistance and distances', () => engine.ropeDecay({ headWidth: 4, maxDistance: 4, distances: [1] }),
    ['give maxDistance', 'or distances', 'not both']],
  ['ropeDecay neither maxDistance nor distances', () => engine.ropeDecay({ headWidth: 4 }), ['give maxDistance', 'not neither']],
  ['ropeDecay distances empty', () => engine.ropeDecay({ headWidth: 4, distances: [] }),
    ['distances must be a non-empty array of whole numbers, got an array of 0']],
  ['ropeDecay distances a number', () => engine.ropeDecay({ headWidth: 4, distances: 3 }), ['distances', 'non-empty array', 'got 3']],
  ['ropeDecay distance negative', () => engine.ropeDecay({ headWidth: 4, distances: [0, -2] }),
    ['distances[1] must be a whole number from 0', '-2']],
  ['ropeDecay distance past 2^20', () => engine.ropeDecay({ headWidth: 4, distances: [2 ** 20 + 1] }),
    ['distances[0] must be a whole number from 0 to 1048576, got 1048577']],
  ['distanceWeights distance a fraction', () => engine.distanceWeights({ positional: { type: 'none' }, distances: [1, 2.5] }),
    ['distances[1] must be a whole number', '2.5']],
  ['distanceWeights distance past the model', () => engine.distanceWeights({ positional: { type: 'none' }, distances: new Float64Array([2 ** 21]) }),
    ['distances[0] must be a whole number from 0 to 1048576, got 2097152']],
  // training: configurations
  ['createTransformer without vocab', () => engine.createTransformer({ outputs: 2 }), ['vocab', 'undefined']],
  ['createTransformer heads not dividing dModel', () => engine.createTransformer(config({ heads: 3 })), ['heads (3) must divide dModel (8)']],
  ['createTransformer odd head width with RoPE', () => engine.createTransformer(config({ heads: 8 })), ['rope', 'dModel / heads must be even', '8 / 8 = 1']],
  ['createTransformer unknown positional type', () => engine.createTransformer(config({ positional: { type: 'rotary' } })),
    ['positional.type', "'learned'", "'sinusoidal'", 'rotary']],
  ['createTransformer misspelt option', () => engine.createTransformer(config({ layer: 2 })), ["unknown option 'layer'", 'createTransformer config']],
  ['createTransformer layers 0', () => engine.createTransformer(config({ layers: 0 })), ['layers', '0']],
  ['createTransformer negative seed', () => engine.createTransformer(config({ seed: -1 })), ['seed', '-1']],
  ['createTransformer ALiBi slopes for the wrong heads', () => engine.createTransformer(config({ positional: { type: 'alibi', slopes: [1] } })),
    ['positional.slopes', '1', 'heads', '2']],
  ['createTransformer ALiBi slope whose bias leaves float32', () => engine.createTransformer(config({ positional: { type: 'alibi', slopes: [0.5, -2e37] } })),
    ['positional.slopes[1] is -1.99999999e+37', 'over a distance of 15', "leaves float32's range"]],
  ['createTransformer too many parameters', () => engine.createTransformer(config({ dModel: 4096, layers: 64 })), ['(parameters and position tables), more than the 16777216']],
  // training: batches
  ['a token id past the vocabulary', () => model.lossAndGradients(batch({ tokens: [0, 1, 2, 12, 4, 5] })), ['tokens[3] is 12', 'vocab - 1 = 11']],
  ['a negative token id', () => model.logits({ tokens: [0, -1], batch: 1 }), ['tokens[1] is -1']],
  ['a target past the outputs', () => model.lossAndGradients(batch({ targets: [5, 0] })), ['targets[0] is 5', 'outputs - 1 = 4']],
  ['tokens not a multiple of batch', () => model.lossAndGradients(batch({ tokens: [0, 1, 2, 3, 4] })), ['tokens has 5 ids', 'batch (2)']],
  ['targets not batch × answers', () => model.lossAndGradients(batch({ targets: [1, 2, 3] })), ['targets has 3 class ids', 'batch × answers = 2 × 1 = 2']],
  ['a token id that is not whole', () => model.logits({ tokens: [0, 1.5], batch: 1 }), ['tokens[1]', 'whole number', '1.5']],
  ['sequences longer than maxLength', () => model.logits({ tokens: new Array(17).fill(0), batch: 1 }), ['17 tokens', 'maxLength (16)']],
  ['a prefix beyond the length', () => model.lossAndGradients(batch({ prefix: 4 })), ['prefix must be from 0 to the sequence length (3), got 4']],
  ['more answers than positions', () => model.logits({ tokens: [1, 2], batch: 1, answers: 3 }), ['answers must be from 1 to the sequence length (2), got 3']],
  ['an unknown parameter', () => model.getParameter('blocks.5.ln1.weight'), ["unknown parameter 'blocks.5.ln1.weight'"]],
  ['a parameter of the wrong shape', () => model.setParameter('head.bias', [[1], [2], [3], [4], [5]]), ['head.bias is 1×5', '5×1']],
  ['a parameter with NaN', () => model.setParameter('head.bias', [[0, 0, NaN, 0, 0]]), ['head.bias[0][2] is NaN']],
  // training: runs
  ['task.pairs beyond task.keys', () => engine.retrievalTrainer({ task: { pairs: 9, keys: 8 } }), ['task.pairs', 'task.keys (8)', '9']],
  ['evaluation.pairs beyond task.keys', () => engine.retrievalTrainer({ evaluation: { pairs: [16, 40] } }), ['evaluation.pairs', 'task.keys (32)', '40']],
  ['learningRate 0', () => engine.retrievalTrainer({ training: { learningRate: 0 } }), ['training.learningRate', 'above 0']],
  ['betas not two numbers', () => engine.retrievalTrainer({ training: { betas: [0.9] } }), ['training.betas', 'two numbers']],
  ['beta of 1', () => engine.retrievalTrainer({ training: { betas: [0.9, 1] } }), ['training.betas[1]', 'got 1']],
  ['an unknown schedule', () => engine.retrievalTrainer({ training: { schedule: 'linear' } }), ['training.schedule', "'constant'", "'cosine'", 'linear']],
  ['an unknown context', () => engine.retrievalTrainer({ model: { context: 'bidirectional' } }), ['model.context', "'causal'", "'prefix'"]],
  ['unknown answer positions', () => engine.retrievalTrainer({ task: { answerPositions: 'middle' } }), ['task.answerPositions', "'uniform'", "'ends'"]],
  ['a negative mix weight', () => engine.retrievalTrainer({ task: { mix: { retrieval: 1, serialRecall: -1 } } }), ['task.mix.serialRecall', '≥ 0', '-1']],
  ['a mix of nothing', () => engine.retrievalTrainer({ task: { mix: { retrieval: 0 } } }), ['task.mix', 'at least one objective']],
  ['a misspelt task option', () => engine.retrievalTrainer({ task: { pair: 4 } }), ["unknown option 'pair'", 'task']],
  ['a batch too small for the mix', () => engine.retrievalTrainer({ training: { batch: 1 }, task: { mix: { retrieval: 1, runningSpan: 1, serialRecall: 1 } } }),
    ['training.batch (1)', 'too small']],
  ['steps 0', () => engine.retrievalTrainer({ training: { steps: 0 } }), ['training.steps', '0']],
  ['onProgress not a function', () => engine.trainRetrieval({}, 'log'), ['onProgress', 'function', 'string']],
  ['a model whose maxLength the run outgrows', () => engine.retrievalTrainer({ model: { maxLength: 20 } }), ['34 tokens', 'model.maxLength (20)']],
  ['retrievalBatch unknown objective', () => engine.retrievalBatch({ objective: 'copy' }), ['objective', "'runningSpan'", 'copy']],
  ['evaluateRetrieval without a model', () => engine.evaluateRetrieval({}, {}), ['model', 'createTransformer']],
  ['evaluateRetrieval on a task the model was not made for', () => engine.evaluateRetrieval(model, { task: { pairs: 3, keys: 4, values: 6 } }),
    ['vocabulary of 12 tokens and 5 outputs', '4 keys and 6 values needs 13 and 6']],
  ['loadTransformer of a string', () => engine.loadTransformer('{}'), ['saved model', 'object', 'string']],
  ['retrievalEvaluationChunks without a model', () => engine.retrievalEvaluationChunks(null, HELD_OUT), ['model', 'createTransformer', 'null']],
  ['evaluateRetrievalChunks past the last chunk', () => engine.evaluateRetrievalChunks(model, { ...HELD_OUT, first: 2 }),
    ['first must be a whole number from 0 to 1, got 2']],
  ['evaluateRetrievalChunks of no chunk', () => engine.evaluateRetrievalChunks(model, { ...HELD_OUT, first: 1, end: 1 }),
    ['end must be a whole number from 2 to 2, got 1']],
  ['evaluateRetrievalChunks with a misspelt option', () => engine.evaluateRetrievalChunks(model, { ...HELD_OUT, last: 1 }),
    ["unknown option 'last'", 'evaluateRetrievalChunks options']],
  ['joinRetrievalEvaluation of an object', () => engine.joinRetrievalEvaluation(model, HELD_OUT, {}), ['chunks must be an array', "2 chunks' sums"]],
  ['joinRetrievalEvaluation without a chunk', chunkSums((chunks) => chunks.shift()), ["chunks must be an array of the set's 2 chunks' sums"]],
  ['joinRetrievalEvaluation with a hole for a chunk', chunkSums((chunks) => { delete chunks[0]; }), ['chunks[0] must be an object, got undefined']],
  ['joinRetrievalEvaluation with a chunk of another set\'s sequences', chunkSums((chunks) => { chunks[1].sequences = 54; }),
    ["chunk 1's sequences must be 44 (of the set's 300, in chunks of 256), got 54"]],
  ['joinRetrievalEvaluation with a chunk twice', chunkSums((chunks) => { chunks[1] = chunks[0]; }), ['chunk 0 comes twice']],
  ['joinRetrievalEvaluation with a chunk past the last', chunkSums((chunks) => { chunks[1].chunk = 2; }),
    ['chunks[1].chunk must be a whole number from 0 to 1, got 2']],
  ['joinRetrievalEvaluation with counts in a plain array', chunkSums((chunks) => { chunks[0].correct = [0, 0, 0]; }),
    ['chunks[0].correct must be an Int32Array of 3 counts (one per position)']],
  ['joinRetrievalEvaluation with more right answers than asked', chunkSums((chunks) => { chunks[0].correct[0] = 87; }),
    ["chunk 0's correct[0] must be a whole number from 0 to 86, got 87"]],
  ['joinRetrievalEvaluation with counts for another number of pairs', chunkSums((chunks) => { chunks[1].correct = new Int32Array(4); }),
    ['chunks[1].correct must be an Int32Array of 3 counts (one per position)']],
  ['joinRetrievalEvaluation with a negative loss', chunkSums((chunks) => { chunks[1].loss = -0.5; }),
    ["chunk 1's loss must be a sum of cross-entropies, at least 0, got -0.5"]],
  ['joinRetrievalEvaluation with a sum of weights past its count', chunkSums((chunks) => { chunks[1].attention.toValue[0][1][1] = 15.5; }),
    ["chunk 1's toValue[0][1][1] must be a sum of 15 weights, from 0 to 15, got 15.5"]],
  ['joinRetrievalEvaluation with a layer missing', chunkSums((chunks) => { chunks[0].attention.toKey.pop(); }),
    ['chunks[0].attention.toKey must be an array of 2 layers, each an array of 2 Float64Arrays of 3 sums']],
  ['joinRetrievalEvaluation with a hole for a head', chunkSums((chunks) => { delete chunks[1].attention.toValue[1][1]; }),
    ['chunks[1].attention.toValue[1][1] must be a Float64Array of 3 sums, got undefined']],
  ['joinRetrievalEvaluation with sums in a plain array', chunkSums((chunks) => { chunks[0].attention.toFirst[1][0] = [0, 0, 0]; }),
    ['chunks[0].attention.toFirst[1][0] must be a Float64Array of 3 sums']],
  ['joinRetrievalEvaluation without measuredWith', chunkSums((chunks) => { delete chunks[1].measuredWith; }),
    ['chunks[1].measuredWith must be a whole number from 0 to 4294967295, got undefined']],
  ['joinRetrievalEvaluation with a checksum past 32 bits', chunkSums((chunks) => { chunks[0].measuredWith = 2 ** 32; }),
    ['chunks[0].measuredWith must be a whole number from 0 to 4294967295, got 4294967296']],
  ['joinRetrievalEvaluation with a chunk of another model', () => {
    const other = engine.createTransformer(config({ seed: 7 }));
    const chunks = engine.evaluateRetrievalChunks(model, HELD_OUT);
    chunks[1] = engine.evaluateRetrievalChunks(other, { ...HELD_OUT, first: 1 })[0];
    other.delete();
    return engine.joinRetrievalEvaluation(model, HELD_OUT, chunks);
  }, [/chunk 1's measuredWith must be \d+ \(this model's parameters, in the causal context\), got \d+: its sums were measured with another model or context/]],
  ['joinRetrievalEvaluation with sums of the prefix context', () => {
    const chunks = engine.evaluateRetrievalChunks(model, { ...HELD_OUT, context: 'prefix' });
    return engine.joinRetrievalEvaluation(model, HELD_OUT, chunks);
  }, [/chunk 0's measuredWith must be \d+ \(this model's parameters, in the causal context\)/]],
];


test(`at least 25 distinct bad inputs are listed (${CASES.length})`, () => {
  assert.ok(CASES.length >= 25);
  assert.equal(new Set(CASES.map(([name]) => name)).size, CASES.length, 'duplicate case names');
});

for (const [name, call, words] of CASES) {
  test(`${name} → Error naming ${words.map(String).join(', ')}`, () => {
    const error = errorOf(call);
    assert.ok(error !== undefined, 'the call did not throw');
    assert.ok(error instanceof Error, `threw ${typeof error} ${String(error)}, not an Error`);
    assert.equal(typeof error.message, 'string');
    for (const word of words) {
      if (word instanceof RegExp) assert.match(error.message, word);
      else assert.ok(error.message.includes(word), `message ${JSON.stringify(error.message)} lacks ${JSON.stringify(word)}`);
    }
  });
}

test('the materialised-too-large message gives the exact bytes (2 × 16385² × 4) and the budget', () => {
  const big = flatOf(16385, 1);
  const error = errorOf(() => engine.attention(big, big, big, { kernel: 'materialized' }));
  assert.ok(error.message.includes(`needs ${2 * 16385 * 16385 * 4} bytes, more than the ${2 ** 30}-byte budget`), error.message);
});

// Below the JavaScript checks, the core's binding (wasm/bindings.cpp) still answers with an error
// value when what it is handed does not fit, and reads undefined and null alike as not given.
test('the binding refuses data of another length than its shape with an error value; undefined and null are not given', async () => {
  const core = await createAttentionCore();
  const m = flatOf(2, 2);
  const [q, k, v, numbers, normalization, kernel, positional] = coreArguments([m, m, m], {});
  assert.deepEqual([normalization, kernel, positional], [undefined, undefined, null]);
  const short = core.attention(q.subarray(1), k, v, numbers, undefined, undefined, null, reuseOption(undefined));
  assert.equal(short.ok, false);
  assert.match(short.error, /a matrix's data must hold rows·cols = 4 values/);
  const asGiven = core.attention(q, k, v, numbers, undefined, undefined, null, reuseOption(undefined));
  const nullsAndUndefined = core.attention(q, k, v, numbers, null, null, undefined, reuseOption(undefined));
  assert.ok(asGiven.ok && nullsAndUndefined.ok);
  assert.deepEqual(nullsAndUndefined.value.weights[0].data, asGiven.value.weights[0].data);
  assert.equal(nullsAndUndefined.value.kernel, 'materialized');
  // rope: heads below 1 named as such, not as a count that does not divide x's columns
  const x = { rows: 1, cols: 4, data: new Float32Array(4) };
  assert.deepEqual(core.rope({ x, heads: 0 }), { ok: false, error: 'heads must be a whole number ≥ 1, got 0' });
  assert.deepEqual(core.rope({ x, heads: 3 }), { ok: false, error: 'x has 4 columns, which heads = 3 does not divide' });
});

test('after every failed call above, the engine answers exactly as before', () => {
  for (const [, call] of CASES) errorOf(call);  // and each once more
  assert.ok(answer().equals(answeredFirst), 'the answers before any failed call');
});

// Gaps found while writing these tests, reported to the engine's owners. They run as
test('a generator asked for more numbers than one call may draw names rows×cols', () => {
  const error = errorOf(() => engine.torchGenerator(1).rand(1e6, 1e6));
  assert.ok(error instanceof Error);
  assert.match(error.message, /rows×cols 1000000×1000000 = 1000000000000 numbers is more than one call may draw/);
});
test('a Linear layer too large to draw names outFeatures×inFeatures', () => {
  const error = errorOf(() => engine.torchGenerator(1).linear(1e5, 1e5));
  assert.match(error.message, /outFeatures×inFeatures 100000×100000/);
});
test('ropeDecay with maxDistance past a million names maxDistance and the limit', () => {
  const error = errorOf(() => engine.ropeDecay({ headWidth: 4, maxDistance: 2 ** 31 - 1 }));
  assert.match(error.message, /maxDistance must be from 0 to 1048576, got 2147483647/);
});
test('sizes past 2^31 - 1 are refused with the range, not clamped', () => {
  assert.match(errorOf(() => engine.attentionMemory({ n: 2 ** 32 })).message,
    /n must be a whole number from 1 to 2147483647, got 4294967296/);
  assert.match(errorOf(() => engine.attention([[1, 2]], [[1, 2]], [[1, 2]], { heads: 2 ** 40 })).message,
    /heads must be a whole number from 1 to 2147483647, got 1099511627776/);
});
