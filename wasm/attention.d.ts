// Types of the attention engine's JavaScript API (dist/wasm/attention.mjs).
//
// Every call checks its input and throws an Error whose message names the argument, what
// was expected and what was given. The names of option values ('softmax', 'rope', 'ms-poe'
// …) are the core's: an unknown one is an error that lists the names the option takes.

/** Row-major matrix. `data.length === rows * cols`. */
export interface Matrix {
  rows: number;
  cols: number;
  data: Float32Array;
}

/** A matrix argument: rows of equal length, or a row-major {rows, cols, data}. */
export type MatrixInput = number[][] | { rows: number; cols: number; data: Float32Array | number[] };

export type VectorInput = number[] | Float32Array;

export type Positional =
  | { type: 'none' }
  | { type: 'alibi'; slopes?: VectorInput }
  | { type: 'rope'; base?: number; pairing?: 'interleaved' | 'half' };

/**
 * Some query rows of some heads of a call: [begin, end) each, as slice(begin, end) reads
 * them; a range left out means all of them.
 */
export interface AttentionPart {
  /** Query rows, 0 ≤ begin < end ≤ n. */
  rows?: [number, number];
  /** Heads, 0 ≤ begin < end ≤ H. */
  heads?: [number, number];
}

export interface AttentionOptions {
  /** H; dk and dv must divide by it. Default 1. */
  heads?: number;
  /**
   * G, the key/value heads (grouped-query attention; 1 is multi-query attention): q has
   * H·dh columns, k G·dh and v G·dvh; G must divide H, and query head h reads key/value head
   * ⌊h·G/H⌋. Scaling uses dh; scores and weights still hold H matrices, context H·dvh
   * columns; ALiBi slopes stay one per query head. Default H (multi-head attention).
   */
  kvHeads?: number;
  /** true: divide scores by √(dk/H) (default); false: no scaling; a number: multiply by it. */
  scale?: boolean | number;
  /** Default 'softmax'. The teaching modes return whatever the arithmetic gives. */
  normalization?: 'softmax' | 'naive-softmax' | 'sum';
  /** Query i sees key j only where j ≤ i + (m − n). Default false. */
  causal?: boolean;
  /** When > 0, query i also sees only keys within `window` positions. Default 0. */
  window?: number;
  /** With a window: the first `sinks` keys stay visible. Default 0. */
  sinks?: number;
  /**
   * With causal: query i whose position i + (m − n) is below `prefix` also sees every key
   * j < prefix (a prefix LM's bidirectional context; the rest stays causal). Default 0.
   */
  prefix?: number;
  positional?: Positional;
  /** Default 'auto': materialise when it fits in memory, else flash. */
  kernel?: 'auto' | 'materialized' | 'flash';
  /**
   * Compute only these rows and heads: exactly the numbers they have in the whole call (the
   * same float operations in the same order; positions, ALiBi slopes of H heads and the
   * kernel are the whole call's, and the whole call's inputs and options are checked). The
   * result holds the part's rows and heads: a matrix per head of the part in scores and
   * weights, and its heads' columns of context; selfAttention's q holds the part's rows and
   * heads' columns, k and v every row and the columns of the key/value heads the part's heads
   * read, output the part's rows (with wo, a part takes every head). The pool (createAttentionPool) splits calls this way.
   */
  part?: AttentionPart;
  /**
   * A previous result of the same call to write into: each of its Float32Arrays whose
   * length matches is overwritten with the new numbers and returned in the new result
   * (the previous result then shows them too); the others are allocated as usual. Spares
   * allocating the n×m matrices when a caller recomputes at the same size. Each head's scores
   * and weights are written as the head is computed, so a call that fails (an overflow in a
   * later head) may have overwritten those of the heads before.
   */
  reuse?: Partial<SelfAttentionResult> | null;
}

export interface AttentionResult {
  /** H matrices n×m, scaled and biased, masked entries -Infinity; null for flash. */
  scores: Matrix[] | null;
  /** H matrices n×m, rows normalised; null for flash. */
  weights: Matrix[] | null;
  /** n×(H·dvh), heads concatenated in head order (n×dv without kvHeads). */
  context: Matrix;
  /** The kernel that ran. */
  kernel: 'materialized' | 'flash';
}

export interface SelfAttentionOptions extends Omit<AttentionOptions, 'positional'> {
  positional?: Positional | { type: 'sinusoidal' };
  /**
   * d_in×(H·dh); wq, wk and wv come together. Without them q = k = v = x, and kvHeads must
   * then equal heads.
   */
  wq?: MatrixInput;
  /** d_in×(G·dh), G = kvHeads (d_in×d_out without kvHeads). */
  wk?: MatrixInput;
  /** d_in×(G·dvh). */
  wv?: MatrixInput;
  /** (H·dvh)×d_model output projection (d_v×d_model without kvHeads). */
  wo?: MatrixInput;
  /** d_model bias of the output projection. */
  bo?: VectorInput;
}

export interface SelfAttentionResult extends AttentionResult {
  q: Matrix;
  k: Matrix;
  v: Matrix;
  /** context, or context·wo + bo. */
  output: Matrix;
}

export interface Walkthrough {
  /** (x_query · x_j) · scale for every j. */
  scores: Float32Array;
  weights: { sum: Float32Array; naiveSoftmax: Float32Array; softmax: Float32Array };
  /** Σ_j softmax_j · x_j. */
  context: Float32Array;
}

export interface TorchGenerator {
  readonly seed: number;
  /** 32-bit numbers consumed since seeding. */
  readonly draws: number;
  /** torch.rand(rows, cols). */
  rand(rows: number, cols: number): Matrix;
  /** A fresh torch.nn.Linear(inFeatures, outFeatures, bias): weight is out×in. */
  linear(inFeatures: number, outFeatures: number, bias?: boolean): { weight: Matrix; bias: Float32Array | null };
}

export interface RolloutOptions {
  n: number;
  layers?: number;
  /** α in [0, 1]. */
  residual?: number;
  causal?: boolean;
  positional?: { type: 'none' } | AlibiDistanceBias;
  window?: number;
  sinks?: number;
}

/** A decoder's key/value cache: every field a whole number, the result at most 2^53 bytes. */
export interface KvCacheOptions {
  /** Tokens seen so far, ≥ 0. */
  tokens: number;
  /** Decoder layers, each with its own cache, ≥ 1. */
  layers: number;
  /** Key/value heads per layer (the heads, without grouped-query attention), ≥ 1. */
  kvHeads: number;
  /** dh, the elements of one head's key (and of its value), ≥ 1. */
  headWidth: number;
  /** Default 2 (fp16 / bf16). */
  bytesPerElement?: number;
  /** > 0: a sliding window keeps only the last `window` tokens. Default 0, every token. */
  window?: number;
}

export interface MemoryOptions {
  n: number;
  m?: number;
  heads?: number;
  bytesPerElement?: number;
  kernel?: 'materialized' | 'flash';
}

// ---- the "lost in the middle" lab ----------------------------------------------------------
//
// A content-free model of where attention goes by position. L identical layers over n
// positions; the last position, n − 1, is the final token (the query). Row i of a layer's
// attention A weighs each key j its mask shows by
//
//   A[i][j] = (1/H) Σ_h u_j · K_h(|i − j|) / Z_h(i)      (Z_h(i) normalises the row)
//
// with K_h(d) = exp(positional score at distance d / positionScales[h]) and u_j = 1, except
// in rows that read content (the needle experiments), where u_j = exp(content score of key
// j). Rollout R = ∏_l (α·I + (1 − α)·A) follows the residual stream through the layers.

/**
 * ALiBi: the score falls by the slope (≥ 0) per position of distance: −slope·d. The model's
 * heads share one slope: `slopes` holds it, as attention's ALiBi holds one per head; `slope`
 * is the lab's first spelling of the same.
 */
export type AlibiDistanceBias =
  | { type: 'alibi'; slopes: number[] | Float32Array }
  | { type: 'alibi'; slope: number };

/**
 * Where ropeDecay and distanceWeights are evaluated: every distance 0..maxDistance, or each of
 * `distances` (whole numbers from 0 to 2^20, in any order, repeats allowed; at least one).
 */
export type Distances = { maxDistance: number; distances?: never } | { distances: ArrayLike<number>; maxDistance?: never };

/** The positional part of every score, a function of the distance d = |i − j| alone. */
export type DistanceBias =
  | { type: 'none' }
  | AlibiDistanceBias
  /**
   * RoPE's long-term decay, seen by the direction that queries and keys share: the score is
   * strength·g(d) with g(d) = (1/(headWidth/2)) Σ_t cos(d·θ_t), θ_t = base^(−2t/headWidth),
   * t = 0..headWidth/2 − 1 (g(0) = 1; g falls, with ripples, as d grows).
   * Defaults: base 10000 (> 1), headWidth 64 (even), strength 6 (≥ 0).
   */
  | { type: 'rope'; base?: number; headWidth?: number; strength?: number };

/** The model shared by positionCurve, needleSweep and needleGrid. */
export interface PositionModelOptions {
  /** Positions, the final token included: ≥ 2 for positionCurve, ≥ 3 for needleSweep, at most 2^20. */
  n: number;
  /** L ≥ 1. Default 1. */
  layers?: number;
  /** α in [0, 1]: the share of each layer's output that is its input (the residual stream). Default 0. */
  residual?: number;
  /** Query i sees key j only where j ≤ i. Default true. */
  causal?: boolean;
  /** As in attention: when > 0, only keys within `window` positions are seen. Default 0. */
  window?: number;
  /** As in attention: with a window, the first `sinks` keys stay visible. Default 0. */
  sinks?: number;
  /** Default {type: 'none'}. */
  positional?: DistanceBias;
  /**
   * One number > 0 per head (1 to 64 heads): head h measures distances divided by
   * positionScales[h] (Ms-PoE's position rescaling); the heads' attention is averaged.
   * Default [1]: one head, distances as they are.
   */
  positionScales?: number[] | Float64Array;
}

/**
 * A curve in a few numbers: its first, middle (the mean of the two middle points when
 * their count is even) and last values, its mean, and max / min (Infinity when min is 0);
 * and the means of its first, middle and last tenth (max(1, round(count / 10)) points each,
 * the middle one from ⌊(count − width) / 2⌋). All in double precision: a steep curve's start
 * that the float32 values hold as 0 keeps its size here.
 */
export interface CurveSummary {
  begin: number;
  middle: number;
  end: number;
  mean: number;
  maxOverMin: number;
  firstTenth: number;
  middleTenth: number;
  lastTenth: number;
}

export interface PositionCurveOptions extends PositionModelOptions {
  /**
   * 'final' (default): row n − 1 of R, how much each position feeds the final token.
   * 'received': the mean row of R, (1/n)·1·R, the attention each position receives from all of them.
   */
  measure?: 'final' | 'received';
}

export interface PositionCurve {
  /** n values, summing to 1. With measure 'final', one head of scale 1 and an ALiBi or no bias, equal to rollout's influence. */
  values: Float32Array;
  /** Of values[0 .. n − 2], the context: the final token's own share is mostly its residual. */
  summary: CurveSummary;
}

/** A mitigation, applied to the needle experiment. */
export type Mitigation =
  | { type: 'none' }
  /**
   * Query-aware contextualisation (Liu et al. 2023): a copy of the query at position 0, so
   * every later row reads content (u_j = exp(score)) as the final row does. Documents take
   * positions 1..n − 2.
   */
  | { type: 'query-aware' }
  /**
   * Calibration in the spirit of "Found in the Middle" (Hsieh et al. 2024): the final row's
   * scores minus a content-free dummy's at the same position, i.e. the final row attends by
   * content alone, A[n − 1][j] ∝ exp(score_j), over the keys its mask shows.
   */
  | { type: 'calibration' }
  /**
   * Ms-PoE (Zhang et al. 2024): `heads` heads (default 8, 1..64) whose position scales are
   * evenly spaced from minRatio to maxRatio (defaults 1.2 and 1.8; 0 < minRatio ≤ maxRatio),
   * replacing positionScales.
   */
  | { type: 'ms-poe'; heads?: number; minRatio?: number; maxRatio?: number }
  /**
   * Reordering: each document's relevance is estimated as its content score plus
   * retrieverNoise·N(0, 1) (default 1, ≥ 0); the k-th best estimate goes to the position
   * with the k-th largest content-free influence (positionCurve, measure 'final'): important
   * content where the model looks, which for a U-shaped curve means the edges.
   */
  | { type: 'reorder'; retrieverNoise?: number };

export interface NeedleOptions {
  /** D ≥ 2 relative depths 0, 1/(D − 1), ..., 1 (at most 10000). Default 11. */
  depths?: number;
  /** The needle's content score against the final query (finite). Default 4. */
  signal?: number;
  /** Standard deviation (≥ 0) of the distractors' content scores, N(0, 1) draws. Default 1. */
  noise?: number;
  /** Seeded draws of the distractors (1 to 100000); one when nothing is random. Default 8. */
  trials?: number;
  /** 0 to 2^32 − 1: trial t draws from std::mt19937 seeded with seed_seq{seed, t}. Default 1. */
  seed?: number;
  /**
   * 'mass' (default): the mean over trials of R[n − 1][needle], the attention mass on the
   * needle through L layers. 'top1': the share of trials in which the needle feeds the final
   * token strictly more than every other document.
   */
  metric?: 'mass' | 'top1';
  /** Default {type: 'none'}. */
  mitigation?: Mitigation;
}

/**
 * The needle experiment. Documents are positions 0..n − 2 (1..n − 2 with 'query-aware');
 * the final token n − 1 is the query and reads content: key j adds its content score to
 * the final row's score. Each trial gives every document a distractor score noise·N(0, 1),
 * the same for every depth; the needle, at position first + round(depth·(n − 2 − first)),
 * has score `signal` instead.
 */
export interface NeedleSweepOptions extends PositionModelOptions, NeedleOptions {}

export interface NeedleSweep {
  /** D relative depths in [0, 1]. */
  depths: Float32Array;
  /** D needle positions (before any reordering). */
  positions: Int32Array;
  /** D values of the metric. */
  retrieval: Float32Array;
  summary: CurveSummary;
}

export interface NeedleGridOptions extends Omit<PositionModelOptions, 'n'>, NeedleOptions {
  /** Context lengths n (each ≥ 3; ≥ 4 with 'query-aware'), one row of the grid each. */
  lengths: number[];
}

/**
 * A matrix like every other: rows = lengths.length, cols = depths, and data[r·cols + d] is
 * needleSweep's retrieval at n = lengths[r], depth d.
 */
export interface NeedleGrid extends Matrix {
  lengths: Int32Array;
  depths: Float32Array;
  /** The same array as `data`, under the grid's first name for it. */
  values: Float32Array;
}

// ---- text: the tokenizer and the vector-table parser ------------------------------------------

/** engine.tokenize's result: parallel arrays, one entry per token. */
export interface Tokens {
  /** Each token exactly as in the text: tokens[i] === text.slice(starts[i], ends[i]). */
  tokens: string[];
  /** UTF-16 offsets (string indices) where each token starts in the text. */
  starts: number[];
  /** UTF-16 offsets just past each token. */
  ends: number[];
  /** Whether the text holds more tokens than `limit`; they were not read. Without a limit, false. */
  truncated: boolean;
}

export interface TokenizeOptions {
  /**
   * Read at most this many tokens, a whole number from 0 to 16384, and stop there: a text
   * of any length up to 2^24 UTF-16 units is cut instead of refused. Default: every token,
   * and an error beyond 16384.
   */
  limit?: number;
}

// ---- training: a small transformer the engine trains (core/include/attn/train/) -------------

/**
 * Where positions enter the model: inside attention ('none', 'rope', 'alibi', as in
 * AttentionOptions.positional) or added to the token embedding ('learned': a maxLength × dModel
 * table the model trains; 'sinusoidal': the fixed Vaswani encoding).
 */
export type ModelPositional =
  | { type: 'none' }
  | { type: 'rope'; base?: number; pairing?: 'interleaved' | 'half' }
  | { type: 'alibi'; slopes?: VectorInput }
  | { type: 'learned' }
  | { type: 'sinusoidal' };

export interface TransformerConfig {
  /** Token ids 0..vocab−1. */
  vocab: number;
  /** Answer classes 0..outputs−1 (the head's rows). */
  outputs: number;
  /** Default 2. */
  layers?: number;
  /** Channels C. Default 32. */
  dModel?: number;
  /** H; must divide dModel (and leave an even head width with RoPE). Default 2. */
  heads?: number;
  /** A GELU MLP of width 4·dModel after each attention. Default false. */
  mlp?: boolean;
  /** Default {type: 'rope'}. */
  positional?: ModelPositional;
  /** The longest sequence the model takes. Default 512. */
  maxLength?: number;
  /** Seeds PyTorch's generator, from which the initial parameters are drawn. Default 0. */
  seed?: number;
}

/** A batch: `batch` sequences of equal length, tokens row-major. */
export interface BatchInput {
  /** batch × length token ids, row-major. */
  tokens: Int32Array | number[];
  /** Sequences in `tokens`. */
  batch: number;
  /** The last `answers` positions of each sequence are predicted. Default 1. */
  answers?: number;
  /** Positions < prefix see each other both ways (the rest stays causal). Default 0. */
  prefix?: number;
}

export interface LabelledBatch extends BatchInput {
  /** batch × answers class ids in 0..outputs−1. */
  targets: Int32Array | number[];
}

/**
 * A trained or trainable transformer. It lives in wasm memory, which JavaScript's garbage
 * collector does not see: call delete() when done with it.
 */
export interface TransformerModel {
  /** The configuration with every default filled in. */
  readonly config: Required<TransformerConfig>;
  /** Names in PyTorch's order: embedding.weight, [positional.weight], blocks.{l}.ln1.weight … head.bias. */
  parameterNames(): string[];
  /** A copy, shaped as PyTorch stores it (out × in; vectors 1 × c). */
  getParameter(name: string): Matrix;
  /** Replaces one parameter; its shape must match and every value be finite. */
  setParameter(name: string, value: MatrixInput): void;
  /** The mean cross-entropy of the batch and its gradient for every parameter. */
  lossAndGradients(batch: LabelledBatch): { loss: number; gradients: Record<string, Matrix> };
  /** batch·answers × outputs, rows batch-major then answer position. */
  logits(batch: BatchInput): Matrix;
  /** One sequence's attention weights: weights[layer][head], each length × length (0 where masked). */
  attention(input: { tokens: Int32Array | number[]; prefix?: number }): { weights: Matrix[][] };
  /** The configuration and every parameter, as plain JSON (engine.loadTransformer reads it back). */
  save(): SavedTransformer;
  /** Frees the model's wasm memory; any later call throws. */
  delete(): void;
  readonly deleted: boolean;
}

/** What TransformerModel.save() writes: plain JSON numbers, readable by any tool. */
export interface SavedTransformer {
  format: 'attention-playground-transformer';
  version: 1;
  config: Required<TransformerConfig>;
  /** Every parameter by name: {rows, cols, data: number[]} (float32 values). */
  parameters: Record<string, { rows: number; cols: number; data: number[] }>;
  /** Anything the saver wants to keep beside the model (the page keeps the run's options); the engine ignores it. */
  meta?: unknown;
}

/**
 * The retrieval task's tokens, with K = keys and V = values: keys 0..K−1, values K..K+V−1,
 * SEP = K+V, RS = K+V+1 (running-span cue), FR = K+V+2 (serial-recall cue); a model for the
 * task has vocab K+V+3 and outputs V (an answer is a value's class id, token − K). With k pairs
 * (keys distinct within a sequence, values drawn with repetition):
 * - retrieval: k1 v1 … kk vk SEP q (length 2k+2); the queried pair i sits at positions 2i and
 *   2i+1, and the target is its value;
 * - running span of s: k1 v1 … kk vk RS v(k−s+1) … v(k−1), targets v(k−s+1) … vk on the last s positions;
 * - serial recall: k1 v1 … kk vk FR v1 … v(k−1), targets v1 … vk on the last k positions.
 */
export interface TaskOptions {
  /** k pairs per sequence. Default 16. */
  pairs?: number;
  /** K key symbols (tokens 0..K−1); a sequence's keys are distinct, so K ≥ k. Default 32. */
  keys?: number;
  /** V value symbols (tokens K..K+V−1), drawn with repetition. Default 32. */
  values?: number;
  /** Where the queried pair sits: 'uniform', or 'ends' (weight ∝ 1/√((i+½)(k−i−½))). Default 'uniform'. */
  answerPositions?: 'uniform' | 'ends';
  /** Weights of the objectives in each step's batch. Default {retrieval: 1}. */
  mix?: { retrieval?: number; runningSpan?: number; serialRecall?: number };
  /** Running span's items s (1..k). Default 4. */
  span?: number;
}

export interface TrainingOptions {
  /** Default 1400. */
  steps?: number;
  /** Sequences per step. Default 64. */
  batch?: number;
  /** Default 1e-2. */
  learningRate?: number;
  /** Steps of linear warm-up. Default 100. */
  warmup?: number;
  /** After warm-up: 'constant', or 'cosine' down to 10%. Default 'constant'. */
  schedule?: 'constant' | 'cosine';
  /** AdamW's decoupled weight decay, on every parameter. Default 0. */
  weightDecay?: number;
  /** Default [0.9, 0.98]. */
  betas?: [number, number];
  /** Global gradient norm; 0 turns clipping off. Default 1. */
  clip?: number;
  /** Seeds the initial parameters and the batches. Default 0. */
  seed?: number;
}

export interface RetrievalOptions {
  task?: TaskOptions;
  /** maxLength defaults to the longest sequence the run trains or evaluates on, at least 512. */
  model?: Omit<TransformerConfig, 'vocab' | 'outputs' | 'seed'> & {
    /** 'prefix': the 2k context tokens see each other both ways. Default 'causal'. */
    context?: 'causal' | 'prefix';
  };
  training?: TrainingOptions;
  evaluation?: {
    /** Steps between checkpoints. Default 100. */
    every?: number;
    /** Held-out sequences per evaluation, at least the pairs evaluated (each position is asked). Default 2048. */
    sequences?: number;
    /** Numbers of pairs to evaluate at after training (longer than task.pairs: longer contexts). Default [task.pairs]. */
    pairs?: number[];
  };
}

export interface Checkpoint {
  /** Steps taken. */
  step: number;
  /** Mean training loss (Σ w·loss over the mixed objectives) since the previous checkpoint. */
  loss: number;
  /** On the held-out set at task.pairs. */
  accuracy: number;
  /** accuracyByPosition[i]: the fraction answered right when the queried pair is the i-th. */
  accuracyByPosition: Float64Array;
}

export interface Evaluation {
  pairs: number;
  accuracy: number;
  /** Mean cross-entropy on the held-out set. */
  loss: number;
  accuracyByPosition: Float64Array;
  /** How many of the held-out sequences ask about each position of the queried pair. */
  questionsByPosition: Int32Array;
  /** [layer][head] → by the queried pair's position: the final position's mean attention weight
   * on the queried value, on its key, and on token 0. */
  attention: { toValue: Float64Array[][]; toKey: Float64Array[][]; toFirst: Float64Array[][] };
}

/** The fixed held-out retrieval set a model is measured on (evaluateRetrieval and its parts). */
export interface HeldOutSet {
  task?: TaskOptions;
  /** Default task.pairs. */
  pairs?: number;
  /** Default 2048; at least pairs. */
  sequences?: number;
  /** Default 'causal'. A saved model does not record its context: give the one it was trained with. */
  context?: 'causal' | 'prefix';
}

/** The sums of one chunk of a held-out set, from which joinRetrievalEvaluation makes an Evaluation. */
export interface EvaluationChunk {
  /** Its index: sequences [chunk·size, (chunk + 1)·size) of the set. */
  chunk: number;
  /** How many: size, or fewer in the last chunk. */
  sequences: number;
  /**
   * A 32-bit checksum of the parameters of the model that measured it and of the context:
   * joinRetrievalEvaluation refuses a chunk whose checksum is not its own model's.
   */
  measuredWith: number;
  /** Its sequences' cross-entropies, summed. */
  loss: number;
  /** Right answers by the queried pair's position. */
  correct: Int32Array;
  /** As Evaluation's, summed over the chunk's sequences that ask about each position instead of averaged. */
  attention: { toValue: Float64Array[][]; toKey: Float64Array[][]; toFirst: Float64Array[][] };
}

/** Trains step by step (for a page that pauses and resumes); engine.trainRetrieval runs one to the end. */
export interface RetrievalTrainer {
  readonly step: number;
  readonly steps: number;
  readonly finished: boolean;
  /** Trains at most maxSteps steps; stops early at a checkpoint and returns it, else null. */
  advance(maxSteps: number): Checkpoint | null;
  /** The model measured on the held-out set with `pairs` pairs (default task.pairs). */
  evaluate(pairs?: number): Evaluation;
  /**
   * The model being trained, the same object at every call until it is deleted: it stays valid
   * after the trainer is deleted, and must be deleted itself.
   */
  model(): TransformerModel;
  delete(): void;

  // One run on several workers (README "One run on several workers"): replicas made from the
  // same options take each step together, and give the bits of one trainer's advance.
  /** S = 8: a step's gradient is the sum of S fixed shards of its batch, added as a binary tree. */
  readonly shards: number;
  /** P: the model's parameters, as many as a gradient's floats. */
  readonly parameterCount: number;
  /**
   * Shards first..end−1 of the current step (drawing the step's batches first, when not yet),
   * as the fewest aligned blocks that tile them (a power of two of shards, from a multiple of
   * it), each with its shards' gradient summed and its part of the step's loss.
   */
  computeShards(first?: number, end?: number): ShardBlock[];
  /**
   * Takes the step from blocks that tile the S shards (every replica's computeShards, in any
   * order): sums them, checks them, and steps AdamW. True when the step ends at a checkpoint,
   * which must then be taken (checkpoint) before the next step. A refused call leaves the step
   * to be taken again.
   */
  applyShards(blocks: ShardBlock[]): boolean;
  /** The chunks of the held-out set a checkpoint measures. */
  readonly evaluationChunks: number;
  /** Right answers by the queried pair's position (task.pairs) in chunks first..end−1 of the held-out set. */
  correctAnswers(first?: number, end?: number): Int32Array;
  /** The checkpoint of a step that ended at one, from every chunk's right answers added up. */
  checkpoint(correct: Int32Array | number[]): Checkpoint;
  /**
   * A page's Stop: makes a checkpoint of the steps since the last one (if any) due, to be
   * taken (checkpoint) as after a step that ends at one; true when a checkpoint is due.
   * Changes nothing of the steps taken; once it is taken, advance trains on.
   */
  stop(): boolean;
}

/** Shards first..end−1 of a training step: their gradient summed (P floats) and their part of the loss. */
export interface ShardBlock {
  first: number;
  end: number;
  gradient: Float32Array;
  loss: number;
}

/** A LabelledBatch too: it may be given to lossAndGradients, logits and Optimizer.step as it is. */
export interface RetrievalBatch {
  /** batch × length token ids. */
  tokens: Int32Array;
  /** batch × answers class ids. */
  targets: Int32Array;
  /** The queried pair of each retrieval sequence (−1 for the other objectives). */
  queried: Int32Array;
  batch: number;
  length: number;
  answers: number;
}

/** The training options an optimizer takes: all but the batch and the seed. */
export type OptimizerOptions = Omit<TrainingOptions, 'batch' | 'seed'>;

export interface Optimizer {
  /** One step on the batch: gradients of the mean loss, clipping, AdamW at the schedule's rate. */
  step(batch: LabelledBatch): { loss: number; gradientNorm: number; learningRate: number };
  readonly steps: number;
  delete(): void;
}

/**
 * A region of one head's scores and weights (Float32Arrays of the same length, row-major,
 * `stride` values a row) to pool in blocks of block × block cells: rows [row0, row0 + rows) ×
 * columns [col0, col0 + cols), which must lie within the arrays' whole rows (col0 + cols ≤
 * stride, (row0 + rows) · stride ≤ length); anything else is an Error naming the argument.
 */
export interface BlockRegion {
  scores: Float32Array;
  weights: Float32Array;
  stride: number;
  /** Default 0. */
  row0?: number;
  /** Default 0. */
  col0?: number;
  rows: number;
  cols: number;
  block: number;
  /** Default 'max'. */
  mode?: 'max' | 'mean';
}

/**
 * ⌈rows/block⌉ × ⌈cols/block⌉ blocks, row-major: each the maximum (Math.max's: exact, +0 above
 * −0) or the mean (summed in double precision) of its visible cells' scores and weights. A cell
 * whose score is −Infinity is masked and takes no part; a block with none visible is masked (1),
 * its score −Infinity and weight 0. A NaN among a block's visible cells makes its value NaN.
 */
export interface PooledBlocks {
  cellRows: number;
  cellCols: number;
  scores: Float32Array;
  weights: Float32Array;
  masked: Uint8Array;
}

/**
 * The engine's two builds, the same module but for the multiply-adds of its kernels:
 * 'simd128', a multiply then an add (wasm SIMD128 has no fused multiply-add); 'relaxed-simd',
 * one f32x4.relaxed_madd, fused on CPUs with FMA (most x86-64 CPUs since 2013, 64-bit Arm),
 * faster (its flash kernel 1.03–1.21× on the README's benchmark host). Relaxed SIMD runs in Chromium 114+, Firefox 146+ and Node 21+ (Node 20
 * with --experimental-wasm-relaxed-simd), not in Safari. Results of the two builds may differ
 * by a rounding in the last bits; within a build they are the same on every call, and the
 * relaxed build's also depend on the machine (fused or not), SIMD128's not.
 */
export type SimdBuild = 'simd128' | 'relaxed-simd';

export interface CreateAttentionOptions {
  /**
   * The build to load; default: 'relaxed-simd' where it runs, else 'simd128', and 'simd128'
   * when the relaxed build does not load (its file missing on a host, say). Asking for
   * 'relaxed-simd' where it does not run, or for a build that does not load, is an Error.
   */
  simd?: SimdBuild;
  /**
   * Whether the engine's hot kernels first run on small inputs (materialised self-attention
   * with projections, the flash kernel, block pooling; 10–15 ms in Chromium, about 30 in
   * Node), so that V8 has compiled them with its optimising tier before a first large call,
   * which would otherwise run in the baseline tier from start to end (a first 4,096-token
   * materialised head: 785 ms in Chromium, about 340 after the warm-up). Default true.
   */
  warmUp?: boolean;
}

/** What `await createAttention()` returns: the engine's calls, by group. */
export interface AttentionEngine {
  readonly version: string;
  /** The build that runs (CreateAttentionOptions.simd). */
  readonly simd: SimdBuild;
  /** Bytes of wasm memory the engine holds now (it grows on demand, never shrinks). */
  readonly memoryBytes: number;
  /**
   * Bytes of that memory the engine's allocations hold now: back where they were after any call
   * that leaves nothing behind (a model, trainer or optimizer not deleted stays in them).
   */
  readonly memoryInUseBytes: number;
  /** Both, as a worker's message reports them. */
  readonly memory: { memoryBytes: number; memoryInUseBytes: number };
  /** The milliseconds the warm-up took (CreateAttentionOptions.warmUp); null without one. */
  readonly warmUpMs: number | null;

  // ---- attention ----
  attention(q: MatrixInput, k: MatrixInput, v: MatrixInput, options?: AttentionOptions): AttentionResult;
  selfAttention(x: MatrixInput, options?: SelfAttentionOptions): SelfAttentionResult;
  walkthrough(x: MatrixInput, options?: { query?: number; scale?: number }): Walkthrough;
  /** RoPE's rotation as attention applies it to q and k: row r of x (heads·dh wide) at position firstPosition + r. */
  rope(x: MatrixInput, options?: { heads?: number; firstPosition?: number; base?: number; pairing?: 'interleaved' | 'half' }): Matrix;
  /**
   * Bytes of the score matrices, heads · n · m · bytesPerElement ('materialized'), or of the flash
   * kernel's working set, heads · min(n, 16) · (min(m, 512) + 2) · bytesPerElement ('flash': a tile
   * of scores and each of its rows' running maximum and total).
   */
  attentionMemory(options: MemoryOptions): number;
  /** Bytes: 2 · layers · kvHeads · headWidth · bytesPerElement · min(tokens, window). */
  kvCacheMemory(options: KvCacheOptions): number;

  // ---- block pooling ----
  /** An attention matrix shrunk to what a screen shows (the playground's heatmap of a long input). */
  poolBlocks(region: BlockRegion): PooledBlocks;

  // ---- PyTorch's generator ----
  torchGenerator(seed: number): TorchGenerator;

  // ---- the lab ----
  rollout(options: RolloutOptions): { influence: Float32Array };
  /** The content-free position curve: start·R (see PositionCurveOptions.measure). O(L·n·H) for ALiBi or no bias, O(L·n²·H) for RoPE. */
  positionCurve(options: PositionCurveOptions): PositionCurve;
  /** Retrieval of a needle at each depth, averaged over seeded trials; about D·T position curves' work. */
  needleSweep(options: NeedleSweepOptions): NeedleSweep;
  /** needleSweep for each of several context lengths: the needle-in-a-haystack grid. */
  needleGrid(options: NeedleGridOptions): NeedleGrid;
  /**
   * RoFormer's relative upper bound of RoPE attention at each distance 0..maxDistance (at most
   * 2^20), or at each of `distances` in their order: O(distances · headWidth).
   */
  ropeDecay(options: { headWidth: number; base?: number } & Distances): Float32Array;
  /**
   * K(d) for d = 0..maxDistance, or at each of `distances` in their order: the weight the lab
   * model's positional bias alone gives a key d positions from the query, over a key's at
   * distance 0 (exp(−slope·d) for ALiBi, exp(strength·(g(d) − 1)) for RoPE). O(distances).
   */
  distanceWeights(options: { positional: DistanceBias } & Distances): Float32Array;

  // ---- text ----
  /**
   * Words, clitics and single symbols, left to right, as GloVe's tokenizer splits them
   * (core/include/attn/text/tokenizer.hpp has every rule). A word is a run of letters and
   * digits of any script with their combining marks; a hyphen-minus or an apostrophe between
   * two word characters stays in it ("state-of-the-art", "o'clock"). The clitics n't 's 're
   * 've 'll 'd 'm (' or ’, any case) split off where the word ends after them: "don't" →
   * "do", "n't"; "it’s" → "it", "’s". Every other non-space character is a token of its
   * own, an emoji sequence or a flag one token; whitespace, control and invisible format
   * characters separate tokens. Nothing is interpreted: "<b>" is "<", "b", ">". Throws
   * beyond 16384 tokens (unless given a limit) or 2^24 UTF-16 units.
   */
  tokenize(text: string, options?: TokenizeOptions): Tokens;
  /**
   * A pasted table of vectors, one row per line: numbers separated by spaces, tabs or
   * commas, optional [ ] brackets, '#' comments, every row the same length. Errors name
   * the line and column and what was found: "line 3, column 8: expected a number, found 'abc'".
   */
  parseVectors(text: string): Matrix;

  // training (README "Train")
  /** A new model whose parameters PyTorch's generator draws from config.seed, in parameterNames() order. */
  createTransformer(config: TransformerConfig): TransformerModel;
  /**
   * A model from what model.save() wrote. Every part is checked (format, version, config, each
   * parameter's name, shape and finite numbers) and an Error names the first problem.
   */
  loadTransformer(saved: SavedTransformer): TransformerModel;
  /** Trains a new model on the retrieval task to the end; synchronous (use a worker on a page). */
  trainRetrieval(options?: RetrievalOptions, onProgress?: (checkpoint: Checkpoint) => void): {
    checkpoints: Checkpoint[];
    /** One per evaluation.pairs entry, after training. */
    evaluations: Evaluation[];
    /** The trained model: delete it when done. */
    model: TransformerModel;
    seconds: number;
  };
  /** The same run step by step (a page pauses and resumes between advance calls). */
  retrievalTrainer(options?: RetrievalOptions): RetrievalTrainer;
  /** Any model measured on the fixed held-out retrieval set, as the trainer measures its own. */
  evaluateRetrieval(model: TransformerModel, options?: HeldOutSet): Evaluation;
  // An evaluation in parts (README "One run on several workers"): replicas of a model each
  // measure some chunks of the held-out set, and one joins every chunk's sums into
  // evaluateRetrieval's result, to the bit.
  /** How many chunks evaluateRetrieval measures this set in (up to 256 sequences each). */
  retrievalEvaluationChunks(model: TransformerModel, options?: HeldOutSet): number;
  /** The sums of chunks [first, end) of the set (default: every chunk), one per chunk, in order. */
  evaluateRetrievalChunks(model: TransformerModel, options?: HeldOutSet & { first?: number; end?: number }): EvaluationChunk[];
  /**
   * evaluateRetrieval(model, options) from every chunk's sums, given in any order; each is
   * checked against the set and the model (its chunk and sequences, that it was measured with
   * this model's parameters in this context, the shapes, counts and sums no larger than the
   * chunk's sequences that ask about each position, a loss of at least 0) and an Error names
   * the first problem.
   */
  joinRetrievalEvaluation(model: TransformerModel, options: HeldOutSet, chunks: EvaluationChunk[]): Evaluation;
  /** Sequences of the task drawn from a seed (a stream of its own: not the trainer's batches). */
  retrievalBatch(options?: {
    task?: TaskOptions;
    /** Default 'retrieval'. */
    objective?: 'retrieval' | 'runningSpan' | 'serialRecall';
    /** Default task.pairs. */
    pairs?: number;
    /** Default 1. */
    batch?: number;
    /** Default 0. */
    seed?: number;
  }): RetrievalBatch;
  /** Schedule, clipping and AdamW for a model: one training step per call. */
  createOptimizer(model: TransformerModel, options?: OptimizerOptions): Optimizer;
}

export default function createAttention(options?: CreateAttentionOptions): Promise<AttentionEngine>;

// ---- the engine on several workers ------------------------------------------------------------

export interface AttentionPoolOptions {
  /**
   * Workers to start, each with its own engine, 1 to 256. Default: the machine's cores − 1
   * (navigator.hardwareConcurrency, or os.availableParallelism() in Node), at least 1.
   */
  workers?: number;
  /** The worker module, pool-worker.mjs: by default beside attention.mjs. */
  workerURL?: URL | string;
  /**
   * The least work a part of a call is given, in multiply-adds of q·kᵀ and weights·v (each
   * visible query and key pair costs dh + dvh per head), a whole number ≥ 0. A call runs on as
   * many threads as it has parts' worth of work, at most every worker and, with callerPart, the
   * caller's thread; below two parts' worth it runs on the caller's thread (`engine`), where a
   * worker would compute it whole, no sooner, after a message; 0 splits every call over every
   * thread. Default 2^23 (about half a millisecond on one core, what a message to a worker and
   * back costs).
   */
  splitFrom?: number;
  /**
   * The engine on the caller's thread that calls of less than two parts' worth run on: by
   * default one the pool loads (its memory counts in memoryBytes); an engine of
   * createAttention() to share it; null to send every call to a worker.
   */
  engine?: AttentionEngine | null;
  /**
   * Whether that engine also computes a part of each split call, the last, beside the workers
   * (a call then has up to workers + 1 parts), and a call that cannot be split whole, as
   * onnxruntime's calling thread computes its share: one message and one copy of the inputs
   * fewer, and a core that would wait put to work. It blocks the caller's thread meanwhile.
   * Default: true on a worker's thread (a Web Worker, a Node worker thread) when there are
   * fewer workers than cores; false on a main thread (a page's would not answer input, a
   * program's would not serve its event loop) and with engine null (true is then an Error).
   */
  callerPart?: boolean;
  /**
   * The build every engine of the pool loads (CreateAttentionOptions.simd): by default the
   * given engine's, else the one the pool's own engine loaded (the best one here that loads;
   * with engine null, the best one here, which its workers must then load). One that differs
   * from the given engine's is an Error: the parts of a call would round differently.
   */
  simd?: SimdBuild;
}

/**
 * attention and selfAttention on several workers (Web Workers in browsers, worker_threads in
 * Node), each with its own wasm instance: no SharedArrayBuffer, so no cross-origin isolation.
 * A call is split into as many parts as its work affords (AttentionPoolOptions.splitFrom), at
 * most one per worker and one on the caller's thread (callerPart; a call too small to split
 * runs on the caller's thread alone): by heads when
 * it has at least as many heads as parts (and no wo), else by blocks of query rows with about
 * equal work (a causal mask's later rows see more keys);
 * each worker computes its part (AttentionOptions.part) and the parts are joined in order: the
 * results are the one-thread engine's, bit for bit. Errors are the engine's Errors,
 * as rejections. A worker that stops (it exits, or throws outside a call) rejects the calls it
 * had with an Error naming it, and a new worker takes its place.
 */
export interface AttentionPool {
  /** The number of workers. */
  readonly workers: number;
  /** Whether the caller's thread computes a part of each split call (AttentionPoolOptions.callerPart). */
  readonly callerPart: boolean;
  /** The engine's version string. */
  readonly version: string;
  /** The build every engine of the pool runs. */
  readonly simd: SimdBuild;
  /**
   * Bytes of wasm memory the workers' engines held after their last answers, in all, and the
   * caller's thread's engine when the pool loaded it.
   */
  readonly memoryBytes: number;
  /**
   * Bytes of that memory the engines' allocations held after their last answers (as
   * AttentionEngine.memoryInUseBytes), in all, the same engines counted: back where they were
   * after calls that leave nothing behind.
   */
  readonly memoryInUseBytes: number;
  /**
   * As engine.attention. With `reuse`, the previous result's arrays go to the workers, which
   * compute into them (they are transferred: empty afterwards in the previous result; the
   * caller's part computes into its heads' arrays in place), or receive the joined matrices;
   * the new result holds them. Do not use the previous result after. Split by rows, the
   * caller's part computes its rows into the previous arrays in place, and each worker into
   * its part's arrays of the last call sent to the workers when that call was split by rows,
   * which the pool keeps (at most 128 MiB in all).
   */
  attention(q: MatrixInput, k: MatrixInput, v: MatrixInput, options?: AttentionOptions): Promise<AttentionResult>;
  /** As engine.selfAttention; `reuse` as in attention. */
  selfAttention(x: MatrixInput, options?: SelfAttentionOptions): Promise<SelfAttentionResult>;
  /**
   * Keeps the threads the last call used (every one before a first call: the workers and, with
   * callerPart, the caller's) awake for the next `ms` milliseconds, 0 to 1,000, or until the
   * next call (a worker it reaches stays awake the 5 ms it stays after any answer, the others
   * sleep at once; so does close()). For a call expected within that time, likely of the same
   * size as the last (the playground's typed update, woken 20 ms before its typing pause
   * ends): on the virtual machines measured a thread that has slept starts late and runs
   * slowly for several milliseconds. Each thread keeps a core busy while it lasts. Throws an
   * Error naming `ms` when it is not such a number, and once the pool is closed.
   */
  wake(ms: number): void;
  /** Stops the workers; calls under way and later calls reject with an Error that says the pool is closed. */
  close(): Promise<void>;
}

/** Starts the workers and resolves once every one's engine has loaded. */
export function createAttentionPool(options?: AttentionPoolOptions): Promise<AttentionPool>;
