// Types of the attention engine's JavaScript API (dist/wasm/attention.mjs).

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

export interface AttentionOptions {
  /** H; dk and dv must divide by it. Default 1. */
  heads?: number;
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
  positional?: Positional;
  /** Default 'auto': materialise when it fits in memory, else flash. */
  kernel?: 'auto' | 'materialized' | 'flash';
}

export interface AttentionResult {
  /** H matrices n×m, scaled and biased, masked entries -Infinity; null for flash. */
  scores: Matrix[] | null;
  /** H matrices n×m, rows normalised; null for flash. */
  weights: Matrix[] | null;
  /** n×dv, heads concatenated in head order. */
  context: Matrix;
  /** The kernel that ran. */
  kernel: 'materialized' | 'flash';
}

export interface SelfAttentionOptions extends Omit<AttentionOptions, 'positional'> {
  positional?: Positional | { type: 'sinusoidal' };
  /** d_in×d_out; wq, wk and wv come together. */
  wq?: MatrixInput;
  wk?: MatrixInput;
  wv?: MatrixInput;
  /** d_v×d_model output projection. */
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
  positional?: { type: 'none' } | { type: 'alibi'; slope: number };
  window?: number;
  sinks?: number;
}

export interface MemoryOptions {
  n: number;
  m?: number;
  heads?: number;
  bytesPerElement?: number;
  kernel?: 'materialized' | 'flash';
}

export interface AttentionEngine {
  readonly version: string;
  /** Bytes of wasm memory the engine holds now (it grows on demand, never shrinks). */
  readonly memoryBytes: number;
  attention(q: MatrixInput, k: MatrixInput, v: MatrixInput, options?: AttentionOptions): AttentionResult;
  selfAttention(x: MatrixInput, options?: SelfAttentionOptions): SelfAttentionResult;
  walkthrough(x: MatrixInput, options?: { query?: number; scale?: number }): Walkthrough;
  torchGenerator(seed: number): TorchGenerator;
  rollout(options: RolloutOptions): { influence: Float32Array };
  attentionMemory(options: MemoryOptions): number;
  /** RoFormer's relative upper bound of RoPE attention vs distance 0..maxDistance. */
  ropeDecay(options: { headWidth: number; base?: number; maxDistance: number }): Float32Array;
}

export default function createAttention(): Promise<AttentionEngine>;
