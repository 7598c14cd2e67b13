// The playground's engine thread. Attention is computed on a pool of workers (split by heads,
// or by blocks of query rows: the same numbers as one engine), which it starts when the page
// asks; its own engine tokenizes, draws projections and walks through a query. It keeps the
// last attention result, so that views, profiles and exports of a 4,096-token matrix are cut
// from it here and only screen-sized pieces cross to the page, and the pinned setting A's
// result beside it while the page compares. Messages: shared/worker/client.js.
import { cacheEntries, decodeStep, kvCacheBytes, kvHeadOf } from './generation.js';
import { shownKeys } from './walkthrough-keys.js';
import { csvChunks, jsonChunks } from './weights-export.js';
import { formatBytes, formatCount, plural } from '../shared/format.js';
import { panelDifference } from '../shared/heatmap/difference.js';
import { columnMeans, meanOf, poolVector } from '../shared/heatmap/pooling.js';
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
// its attention: {n, heads, options, scores: Matrix[], weights: Matrix[], q, k, v, context: Matrix,
// received: Float32Array[]}
let current = null;
let pinned = null;   // the attention of the setting A that the page compares with, the same fields
let woken = null;    // {at, ms}: when the page last woke the pool's threads for a computation, and for how long

// The mean weight each key receives from the first `queries` queries in one head of the
// current result: from all of them computed when first asked for and kept; from fewer
// (generation step by step, the queries fed so far) computed each time.
function received(head, queries) {
  const { n } = current;
  if (queries < n) return columnMeans(current.weights[head].data, queries, n);
  current.received[head] ??= columnMeans(current.weights[head].data, n, n);
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

// Columns [c0, c0 + width) of row r of a row-major matrix, copied.
function rowSlice({ cols, data }, r, c0, width) {
  return data.slice(r * cols + c0, r * cols + c0 + width);
}

// The tutorial's walk-through (engine.walkthrough): q = k = v = x, scores times `scale`.
function tutorialWalk(engine, { query, scale, maxRows }) {
  const walk = engine.walkthrough(input, { query, scale });
  const rows = shownKeys(walk.weights.softmax, query, maxRows);
  const pick = (values) => Float32Array.from(rows, (j) => values[j]);
  return {
    source: 'tutorial', n: input.rows, dims: input.cols, rows,
    scores: pick(walk.scores),
    sum: pick(walk.weights.sum),
    naive: pick(walk.weights.naiveSoftmax),
    softmax: pick(walk.weights.softmax),
    vectors: rows.map((j) => rowSlice(input, j, 0, input.cols)),
    context: walk.context,
  };
}

// A head's slice of row `position` of q or k, rotated by RoPE as the engine rotates it before
// the dot product (engine.rope: the position's angles for this head width).
function ropeRow(engine, slice, position, { base, pairing }) {
  return engine.rope({ rows: 1, cols: slice.length, data: slice }, { firstPosition: position, base, pairing }).data;
}

// Row `query` of head `head` in the matrix on display: its scores (scaled, masked, with the
// positional bias) and weights of the keys shown (those it sees, shownKeys; `visible` counts them), the head's q of the query, k and v of each key shown (from
// the key/value head it reads), and the head's part of the context row. Under RoPE, q and
// the k shown are the rotated ones the scores are made of, queryBefore the q before rotation.
function matrixWalk(engine, { query, head, maxRows }) {
  if (!current) throw new Error('no attention result yet');
  const { n, q, k, v, context, options } = current;
  if (query >= n || head >= current.heads) throw new Error(`query ${query}, head ${head} of a ${n}-token result with ${current.heads} heads`);
  const kvHeads = options.kvHeads ?? current.heads;
  const keyWidth = k.cols / kvHeads;
  const valueWidth = v.cols / kvHeads;
  const kvHead = kvHeadOf(head, options);
  const weights = current.weights[head].data.subarray(query * n, (query + 1) * n);
  const scores = current.scores[head].data.subarray(query * n, (query + 1) * n);
  const rows = shownKeys(weights, query, maxRows, scores);
  let visible = 0;  // the keys the query sees
  for (let j = 0; j < n; ++j) if (scores[j] !== -Infinity) visible += 1;
  const scale = options.scale === true ? 1 / Math.sqrt(keyWidth) : options.scale === false ? 1 : options.scale;
  const queryBefore = rowSlice(q, query, head * keyWidth, keyWidth);
  const keys = rows.map((j) => rowSlice(k, j, kvHead * keyWidth, keyWidth));
  const { positional } = options;
  const rope = positional.type === 'rope';
  return {
    source: 'matrix', n, visible, head, heads: current.heads, rows, scale, keyWidth, options,
    scores: Float32Array.from(rows, (j) => scores[j]),
    weights: Float32Array.from(rows, (j) => weights[j]),
    query: rope ? ropeRow(engine, queryBefore, query, positional) : queryBefore,
    queryBefore,
    keys: rope ? keys.map((key, r) => ropeRow(engine, key, rows[r], positional)) : keys,
    values: rows.map((j) => rowSlice(v, j, kvHead * valueWidth, valueWidth)),
    context: rowSlice(context, query, head * valueWidth, valueWidth),
  };
}

// W_query, W_key, W_value drawn in that order, as the tutorials do after torch.manual_seed.
// With kvHeads key/value heads (grouped-query attention; the attention options') W_key and
// W_value have kvHeads of the `heads` heads' columns: d_in × (kvHeads · d_out / heads), as
// nn.Linear(d_in, kvHeads·dh).
function projections(engine, { kind, seed, dOut }, dIn, { heads, kvHeads = heads }) {
  if (kind === 'none') return {};
  const generator = engine.torchGenerator(seed);
  const draw = (cols) => (kind === 'rand' ? generator.rand(dIn, cols) : transposed(generator.linear(dIn, cols, false).weight));
  const kvCols = (kvHeads * dOut) / heads;
  const wq = draw(dOut);
  const wk = draw(kvCols);
  const wv = draw(kvCols);
  return { wq, wk, wv };
}

// Head `head` of a kept result over rows [row0, row0+rows) × columns [col0, col0+cols) in
// cells of block×block: {head, ...engine.poolBlocks's panel}.
function pooledHead(engine, result, head, { row0, col0, rows, cols, block, pooling }) {
  return {
    head,
    ...engine.poolBlocks({
      scores: result.scores[head].data, weights: result.weights[head].data, stride: result.n,
      row0, col0, rows, cols, block, mode: pooling,
    }),
  };
}

const handlers = {
  // Starts the pool of `workers` workers that compute attention, with this worker's engine
  // computing a part of each split call when `callerPart`: {workers, callerPart}.
  async pool(engine, { workers, callerPart }) {
    await pool?.close();
    pool = await createAttentionPool({ workers, engine, callerPart });
    return { workers: pool.workers, callerPart: pool.callerPart };
  },

  // Keeps the pool's threads awake for `ms` milliseconds: the page expects a computation
  // (a typing pause is ending).
  wake(engine, { ms }) {
    if (!pool) return {};
    pool.wake(ms);
    woken = { at: performance.now(), ms };
    return {};
  },

  // The page's tokens of `text`, at most `limit` (engine.tokenize; core/include/attn/text/tokenizer.hpp
  // has the rules): {tokens: [{text, start, end}] with UTF-16 offsets, truncated}.
  tokenize(engine, { text, limit }) {
    const { tokens, starts, ends, truncated } = engine.tokenize(text, { limit });
    return { tokens: tokens.map((token, i) => ({ text: token, start: starts[i], end: ends[i] })), truncated };
  },

  // Attention of the page's setting, kept as the current result; with `pin`, of the setting A
  // the page compares with, kept as the pinned result (the current one and its input stay).
  async compute(engine, { x, random, trainable, options, pin = false }, progress) {
    if (!pool) throw new Error('the engine workers have not started');
    // The last result's matrices are handed back to the pool's workers, which write the next
    // one of the same size into them: only this worker holds them, and allocating 16 MiB
    // afresh (512 tokens, 8 heads) took longer than computing them.
    const previous = pin ? pinned : current;
    if (pin) pinned = null;
    else current = null;
    const computedInput = x ?? engine.torchGenerator(random.seed).rand(random.rows, random.dims);
    if (!pin) input = computedInput;
    const n = computedInput.rows;
    const bytes = SCORE_AND_WEIGHT * engine.attentionMemory({ n, heads: options.heads, bytesPerElement: FP32_BYTES });
    if (bytes > PAGE_BUDGET_BYTES) {
      throw new Error(`${formatCount(n)} tokens × ${plural(options.heads, 'head')} need ${formatBytes(bytes)} of scores and weights; ` +
        `this page keeps at most ${formatBytes(PAGE_BUDGET_BYTES)}: use fewer heads or a shorter text`);
    }
    progress('projections');
    const weights = projections(engine, trainable, computedInput.cols, options);
    progress('attention');
    const started = performance.now();
    const result = await pool.selfAttention(computedInput, { ...options, ...weights, kernel: 'materialized', reuse: previous });
    const engineMs = performance.now() - started;
    // how long before the call the page woke the threads (null: they were not awake for it)
    const wokenAhead = woken && started - woken.at <= woken.ms ? started - woken.at : null;
    woken = null;
    const kept = {
      n, heads: options.heads, options, scores: result.scores, weights: result.weights,
      q: result.q, k: result.k, v: result.v, context: result.context, received: [],
    };
    if (pin) pinned = kept;
    else current = kept;
    const kvHeads = options.kvHeads ?? null;
    // wasmBytes: the engines' wasm memory after the call, this worker's and the pool's (it
    // never shrinks), and wasmInUse, the bytes their allocations hold, for the page's
    // data-wasm-bytes and data-wasm-in-use
    return {
      n, heads: options.heads, kvHeads, engineMs, wokenAhead,
      wasmBytes: engine.memoryBytes + pool.memoryBytes, wasmInUse: engine.memoryInUseBytes + pool.memoryInUseBytes,
    };
  },

  // The square [row0, row0+size) × [col0, col0+size) of the given heads in cells of
  // block×block, block = ⌈size / maxCells⌉: what the heatmap draws; only its first `rows`
  // rows when given (generation step by step).
  blocks(engine, { heads, row0, col0, size, rows = size, maxCells, pooling }) {
    if (!current) throw new Error('no attention result yet');
    const block = Math.ceil(size / maxCells);
    const panels = heads.map((head) => pooledHead(engine, current, head, { row0, col0, rows, cols: size, block, pooling }));
    return { block, panels };
  },

  // One head of the pinned result A and of the current one B, and B − A, over the same square
  // and in the same blocks as `blocks` makes them: {block, a, b, difference}, each a panel.
  compare(engine, { head, row0, col0, size, maxCells, pooling }) {
    if (!current || !pinned) throw new Error('no pinned and current results to compare yet');
    if (pinned.n !== current.n) throw new Error(`A has ${pinned.n} tokens but B has ${current.n}`);
    for (const [name, result] of [['A', pinned], ['B', current]]) {
      if (head >= result.heads) throw new Error(`head ${head + 1} does not exist in ${name}, which has ${result.heads} head(s)`);
    }
    const block = Math.ceil(size / maxCells);
    const square = { row0, col0, rows: size, cols: size, block, pooling };
    const a = pooledHead(engine, pinned, head, square);
    const b = pooledHead(engine, current, head, square);
    return { block, a, b, difference: { head, ...panelDifference(a, b) } };
  },

  // Unpinned: the pinned result is let go.
  unpin() {
    pinned = null;
    return {};
  },

  // Over the columns [col0, col0+size), in at most `points` points: the query's row and the
  // keys' mean attention from the first `queries` queries, each averaged over the given heads:
  // {stretch, row, column, queries}.
  profiles(engine, { heads, col0, size, query, points, pooling, queries }) {
    if (!current) throw new Error('no attention result yet');
    if (!(queries >= 1 && queries <= current.n)) throw new Error(`queries ${queries} of a ${current.n}-token result`);
    const rowOf = (head) => current.weights[head].data.subarray(query * current.n, (query + 1) * current.n);
    const row = poolVector(meanOf(heads.map(rowOf)), col0, size, points, pooling);
    const column = poolVector(meanOf(heads.map((head) => received(head, queries))), col0, size, points, pooling);
    return { stretch: row.stretch, row: row.values, column: column.values, queries };
  },

  // The walk-through of one query, cut to at most maxRows keys: all of them, or the ones with
  // the largest weights. source 'tutorial': the tutorial's raw version (q = k = v = x, scores
  // times `scale`, engine.walkthrough); 'matrix': the row of `head` in the matrix on display,
  // with that head's q, k, v and context.
  walkthrough(engine, { source, query, head, scale, maxRows }) {
    if (!input) throw new Error('no input yet');
    return source === 'tutorial' ? tutorialWalk(engine, { query, scale, maxRows }) : matrixWalk(engine, { query, head, maxRows });
  },

  // Step `step` of generation: the cache's entries, its bytes in fp16 and fp32, and for each
  // of `heads` the row the decoding step computes (decodeStep) with its largest difference
  // from the full causal matrix's row.
  decode(engine, { step, heads }) {
    if (!current) throw new Error('no attention result yet');
    if (step >= current.n) throw new Error(`step ${step} of ${current.n} tokens`);
    const { options, n } = current;
    const decoded = decodeStep(engine, { q: current.q, k: current.k, v: current.v, step, options });
    const rows = heads.map((h) => {
      const full = current.weights[h].data.subarray(step * n, step * n + step + 1);
      const weights = decoded.weights[h].data;
      let largest = 0;
      for (let j = 0; j <= step; ++j) largest = Math.max(largest, Math.abs(weights[j] - full[j]));
      return { head: h, weights, maxDifference: largest };
    });
    const kvHeads = options.kvHeads ?? options.heads;
    const cache = { step, kvHeads, headWidth: current.k.cols / kvHeads, window: options.window, sinks: options.sinks };
    return {
      step, rows, entries: cacheEntries(cache), kvHeads, headWidth: cache.headWidth,
      shownKvHeads: [...new Set(heads.map((h) => kvHeadOf(h, options)))],
      bytes: {
        fp16: kvCacheBytes(engine, { ...cache, bytesPerElement: FP16_BYTES }),
        fp32: kvCacheBytes(engine, { ...cache, bytesPerElement: FP32_BYTES }),
      },
    };
  },

  // Score-matrix memory for 1K–128K tokens (and the current n, unless null): full fp32, full fp16, flash;
  // and the key/value cache of published models in fp16, per token and at 4K, 32K and 128K.
  memory(engine, { heads, n }) {
    const tokens = [...new Set([...COST_TOKENS, ...(n === null ? [] : [n])])].sort((a, b) => a - b);
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
  compare: ({ a, b, difference }) => [a, b, difference].flatMap((p) => [p.scores.buffer, p.weights.buffer, p.masked.buffer]),
};

serveEngine(handlers, { transfer: TRANSFER });
