// The playground's engine thread. Attention is computed on a pool of workers (split by heads,
// or by blocks of query rows: the same numbers as one engine), which it starts when the page
// asks; its own engine tokenizes, draws projections and walks through a query. It keeps the
// last attention result, so that views, profiles and exports of a 4,096-token matrix are cut
// from it here and only screen-sized pieces cross to the page. Messages: shared/worker/client.js.
import { csvChunks, jsonChunks } from './weights-export.js';
import { formatBytes } from '../shared/format.js';
import { columnMeans, meanOf, poolBlocks, poolVector } from '../shared/heatmap/pooling.js';
import { createAttentionPool, serveEngine } from '../shared/worker/server.js';
import { KV_CACHE_BYTES_PER_ELEMENT, KV_CACHE_TOKENS, PUBLISHED_MODELS } from './published-models.js';

// Scores and weights this page keeps at once; the worker holds them next to the engine's
// own copy, so this stays well below the engine's 1 GiB budget for materialised attention.
const PAGE_BUDGET_BYTES = 512 * 2 ** 20;
const SCORE_AND_WEIGHT = 2;
const FP32_BYTES = 4;
const FP16_BYTES = 2;
const COST_TOKENS = [1, 2, 4, 8, 16, 32, 64, 128].map((k) => k * 1024);

let pool = null;     // the workers attention is computed on
let input = null;    // x of the last compute request: {rows, cols, data}
let current = null;  // its attention: {n, heads, scores: Matrix[], weights: Matrix[], received: Float32Array[]}

// The mean weight each key receives in one head of the current result, computed when first asked for.
function received(head) {
  current.received[head] ??= columnMeans(current.weights[head].data, current.n, current.n);
  return current.received[head];
}

// torch.nn.Linear keeps its weight as out×in; selfAttention multiplies x·W with W in×out.
function transposed({ rows, cols, data }) {
  const out = new Float32Array(rows * cols);
  for (let r = 0; r < rows; ++r) {
    for (let c = 0; c < cols; ++c) out[c * rows + r] = data[r * cols + c];
  }
  return { rows: cols, cols: rows, data: out };
}

// W_query, W_key, W_value drawn in that order, as the tutorials do after torch.manual_seed.
// With kvHeads key/value heads (grouped-query attention) W_key and W_value have kvHeads of
// the `heads` heads' columns: d_in × (kvHeads · d_out / heads), as nn.Linear(d_in, kvHeads·dh).
function projections(engine, { kind, seed, dOut, heads, kvHeads }, dIn) {
  if (kind === 'none') return {};
  const generator = engine.torchGenerator(seed);
  const draw = (cols) => (kind === 'rand' ? generator.rand(dIn, cols) : transposed(generator.linear(dIn, cols, false).weight));
  const kvCols = kvHeads === null ? dOut : (kvHeads * dOut) / heads;
  const wq = draw(dOut);
  const wk = draw(kvCols);
  const wv = draw(kvCols);
  return { wq, wk, wv };
}

const handlers = {
  // Starts the pool of `workers` workers that compute attention: {workers}.
  async pool(engine, { workers }) {
    await pool?.close();
    pool = await createAttentionPool({ workers });
    return { workers: pool.workers };
  },

  // The page's tokens of `text`, at most `limit` (engine.tokenize; core/include/attn/text/tokenizer.hpp
  // has the rules): {tokens: [{text, start, end}] with UTF-16 offsets, truncated}.
  tokenize(engine, { text, limit }) {
    const { tokens, starts, ends, truncated } = engine.tokenize(text, { limit });
    return { tokens: tokens.map((token, i) => ({ text: token, start: starts[i], end: ends[i] })), truncated };
  },

  async compute(engine, { x, random, trainable, options }, progress) {
    if (!pool) throw new Error('the engine workers have not started');
    // The last result's matrices are handed back to the pool's workers, which write the next
    // one of the same size into them: only this worker holds them, and allocating 16 MiB
    // afresh (512 tokens, 8 heads) took longer than computing them.
    const previous = current;
    current = null;
    input = x ?? engine.torchGenerator(random.seed).rand(random.rows, random.dims);
    const n = input.rows;
    const bytes = SCORE_AND_WEIGHT * engine.attentionMemory({ n, heads: options.heads, bytesPerElement: FP32_BYTES });
    if (bytes > PAGE_BUDGET_BYTES) {
      throw new Error(`${n} tokens × ${options.heads} head(s) need ${formatBytes(bytes)} of scores and weights; ` +
        `this page keeps at most ${formatBytes(PAGE_BUDGET_BYTES)}: use fewer heads or a shorter text`);
    }
    progress('projections');
    const weights = projections(engine, trainable, input.cols);
    progress('attention');
    const started = performance.now();
    const result = await pool.selfAttention(input, { ...options, ...weights, kernel: 'materialized', reuse: previous });
    const engineMs = performance.now() - started;
    current = { n, heads: options.heads, scores: result.scores, weights: result.weights, received: [] };
    const kvHeads = options.kvHeads ?? null;
    // wasmBytes: the engines' wasm memory after the call, this worker's and the pool's (it
    // never shrinks), for the page's data-wasm-bytes
    return { n, heads: options.heads, kvHeads, engineMs, wasmBytes: engine.memoryBytes + pool.memoryBytes };
  },

  // The square [row0, row0+size) × [col0, col0+size) of the given heads in cells of
  // block×block, block = ⌈size / maxCells⌉: what the heatmap draws.
  blocks(engine, { heads, row0, col0, size, maxCells, pooling }) {
    if (!current) throw new Error('no attention result yet');
    const block = Math.ceil(size / maxCells);
    const panels = heads.map((head) => ({
      head,
      ...poolBlocks({
        scores: current.scores[head].data, weights: current.weights[head].data, stride: current.n,
        row0, col0, rows: size, cols: size, block, mode: pooling,
      }),
    }));
    return { block, panels };
  },

  // Over the columns [col0, col0+size), in at most `points` points: the query's row and the
  // keys' mean attention, each averaged over the given heads.
  profiles(engine, { heads, col0, size, query, points, pooling }) {
    if (!current) throw new Error('no attention result yet');
    const rowOf = (head) => current.weights[head].data.subarray(query * current.n, (query + 1) * current.n);
    const row = poolVector(meanOf(heads.map(rowOf)), col0, size, points, pooling);
    const column = poolVector(meanOf(heads.map(received)), col0, size, points, pooling);
    return { stretch: row.stretch, row: row.values, column: column.values };
  },

  // The tutorial's walk-through for one query (q = k = v = x, scores times `scale`), cut to
  // at most maxRows keys: all of them, or the ones with the largest softmax weights.
  walkthrough(engine, { query, scale, maxRows }) {
    if (!input) throw new Error('no input yet');
    const walk = engine.walkthrough(input, { query, scale });
    const n = input.rows;
    let rows = Array.from({ length: n }, (_, j) => j);
    if (n > maxRows) {
      rows = rows.sort((a, b) => walk.weights.softmax[b] - walk.weights.softmax[a]).slice(0, maxRows);
      if (!rows.includes(query)) rows[maxRows - 1] = query;
      rows.sort((a, b) => a - b);
    }
    const pick = (values) => Float32Array.from(rows, (j) => values[j]);
    return {
      n, dims: input.cols, rows,
      scores: pick(walk.scores),
      sum: pick(walk.weights.sum),
      naive: pick(walk.weights.naiveSoftmax),
      softmax: pick(walk.weights.softmax),
      vectors: rows.map((j) => input.data.slice(j * input.cols, (j + 1) * input.cols)),
      context: walk.context,
    };
  },

  // Score-matrix memory for 1K–128K tokens (and the current n): full fp32, full fp16, flash;
  // and the key/value cache of published models in fp16, per token and at 4K, 32K and 128K.
  memory(engine, { heads, n }) {
    const tokens = [...new Set([...COST_TOKENS, n])].sort((a, b) => a - b);
    const scores = tokens.map((count) => ({
      n: count,
      fp32: engine.attentionMemory({ n: count, heads, bytesPerElement: FP32_BYTES }),
      fp16: engine.attentionMemory({ n: count, heads, bytesPerElement: FP16_BYTES }),
      flash: engine.attentionMemory({ n: count, heads, bytesPerElement: FP32_BYTES, kernel: 'flash' }),
    }));
    const cache = (model, count) => engine.kvCacheMemory({
      tokens: count, layers: model.layers, kvHeads: model.kvHeads, headWidth: model.headWidth,
      bytesPerElement: KV_CACHE_BYTES_PER_ELEMENT, window: model.window,
    });
    const kvCache = PUBLISHED_MODELS.map((model) => ({
      ...model,
      perToken: cache(model, 1),
      at: KV_CACHE_TOKENS.map((count) => ({ tokens: count, bytes: cache(model, count) })),
    }));
    return { scores, kvCache };
  },

  // The full matrices of the given heads as a CSV or JSON file.
  export(engine, { format, heads, tokens, settings }, progress) {
    if (!current) throw new Error('no attention result yet');
    if (tokens.length !== current.n) throw new Error(`${tokens.length} tokens for a ${current.n}×${current.n} result`);
    const selected = heads.map((head) => ({
      head: head + 1, scores: current.scores[head].data, weights: current.weights[head].data,
    }));
    progress('formatting');
    return format === 'csv'
      ? new Blob(csvChunks({ tokens, heads: selected }), { type: 'text/csv' })
      : new Blob(jsonChunks({ tokens, heads: selected, settings }), { type: 'application/json' });
  },
};

// The fresh arrays of an answer, handed over without a copy.
const TRANSFER = {
  blocks: ({ panels }) => panels.flatMap((p) => [p.scores.buffer, p.weights.buffer, p.masked.buffer]),
  profiles: ({ row, column }) => [row.buffer, column.buffer],
};

serveEngine(handlers, { transfer: TRANSFER });
