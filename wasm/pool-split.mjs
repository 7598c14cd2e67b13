// How the pool (pool.mjs) cuts a call into parts: the work of each query row (its visible keys),
// how many parts a call affords and on which threads, which heads or blocks of rows each part
// takes, and, for an attention call split by heads, a part as a call of its own heads' columns.
import { destination } from './pool-arrays.mjs';

// Row parts begin on multiples of this many query rows, a multiple of the flash kernel's blocks
// of rows (core/include/attn/kernels.hpp kFlashTileRows, 16), so that no block is computed in
// two parts.
const ROW_BLOCK = 64;
// Where the kernel 'auto' stops materialising (attention.hpp kMaterializedBudgetBytes): the
// bytes of every head's scores and weights.
const MATERIALIZED_BUDGET_BYTES = 2 ** 30;
const FLOAT_BYTES = 4;
// The cost of a row beyond its visible keys, in keys' work: its fixed work, and per key of
// the row the passes a materialised row makes over all of them (bias, mask, normalisation).
const ROW_COST = 16;
const MATERIALIZED_KEY_COST = 1 / 32;
// The least work a part of a call is given by default, in multiply-adds of q·kᵀ and weights·v
// (a visible query and key pair costs dh + dvh of them per head): about half a millisecond on
// one core here, what a message to a worker and back costs (bench/README.md "The engine on
// several workers"). A call with less than two parts' worth runs on the caller's thread (a worker would
// compute it whole, no sooner, and the message would cost about a part), a larger one on as
// many workers as it has parts' worth, at most all of them.
export const SPLIT_FROM = 2 ** 23;

// [k0, …, k(n−1)]: the number of keys each query row of n sees among m (core/src/mask.cpp
// visible_keys), the work of its row. One loop over the rows, none without a mask: at n = 256
// the pool's whole overhead on a call was the 10 µs this took with a function call per row.
// Exported for the tests.
export function visibleKeys({ causal = false, window = 0, sinks = 0, prefix = 0 }, n, m) {
  const visible = new Float64Array(n);
  const width = Math.min(window, n + m);
  if (!causal && width <= 0) return visible.fill(m);
  const clamp = (key) => Math.min(Math.max(key, 0), m);
  for (let row = 0; row < n; ++row) {
    const position = row + m - n;
    const causalEnd = causal ? clamp(position < prefix ? prefix : position + 1) : m;
    if (width <= 0) {
      visible[row] = causalEnd;
      continue;
    }
    const bandBegin = clamp(position - width + 1);
    const bandEnd = Math.max(bandBegin, causal ? causalEnd : clamp(position + width));
    const sinkEnd = Math.min(sinks, causalEnd);
    // the band, and the sinks before and after it
    visible[row] = bandEnd - bandBegin + Math.max(0, Math.min(sinkEnd, bandBegin)) + Math.max(0, sinkEnd - bandEnd);
  }
  return visible;
}

// [0, c1, …, n]: `count` blocks of rows with about equal work (visible[i]: the keys row i of
// n sees among m; under a causal mask the later rows see more), cut at multiples of ROW_BLOCK
// when there are enough rows.
function rowCuts(visible, m, count, materialized) {
  const n = visible.length;
  const costs = new Float64Array(n + 1);  // costs[i]: the work of rows [0, i)
  for (let row = 0; row < n; ++row) {
    costs[row + 1] = costs[row] + visible[row] + ROW_COST + (materialized ? m * MATERIALIZED_KEY_COST : 0);
  }
  const block = n >= count * ROW_BLOCK ? ROW_BLOCK : 1;
  const cuts = [0];
  let row = 0;
  for (let piece = 1; piece < count; ++piece) {
    const target = (costs[n] * piece) / count;
    while (row < n && costs[row] < target) ++row;
    const cut = Math.min(n, Math.round(row / block) * block);
    if (cut > cuts.at(-1) && cut < n) cuts.push(cut);
  }
  cuts.push(n);
  return cuts;
}

// [[h0, h1], …]: `count` runs of heads, their sizes differing by at most one.
function headGroups(heads, count) {
  return Array.from({ length: count }, (_, g) => [Math.floor((g * heads) / count), Math.floor(((g + 1) * heads) / count)]);
}

// The bytes of every head's scores and weights (attention.hpp materialized_bytes).
function materializedBytes(n, m, heads) {
  return 2 * heads * n * m * FLOAT_BYTES;
}

// The kernel the engine runs for a call of `heads` heads of n queries over m keys
// (attention.hpp choose_kernel): 'auto' materialises while every head's scores and weights fit
// the budget.
function kernelUsed(kernel = 'auto', n, m, heads) {
  if (kernel !== 'auto') return kernel;
  return materializedBytes(n, m, heads) <= MATERIALIZED_BUDGET_BYTES ? 'materialized' : 'flash';
}

// How a call of n queries over m keys with `heads` heads (and `kvHeads` key/value heads) of
// keyWidth columns of q and k and valueWidth of v is split over at most `workers` workers and,
// with `callerPart`, the caller's thread (its part is then the last), one part per splitFrom
// multiply-adds of q·kᵀ and weights·v (its visible query and key pairs times keyWidth +
// valueWidth per head; 0: every thread): {by: 'caller'} (less than two parts' worth, or shapes
// that do not fit, whose error the engine gives, when the pool has an engine on the caller's
// thread: `onCaller`; with callerPart, also a call that cannot be split), {by: 'whole'} (one
// worker, no part), {by: 'heads', parts: [{heads: [h0, h1]}], kvRanges: [[g0, g1]]} (the
// key/value heads each part reads) or {by: 'rows', parts: [{rows: [i0, i1]}]} (every head).
// `options`: the call's, checked; mixesHeads: an output projection needs every head in each
// part.
export function splitCall({
  n, m, heads, kvHeads = heads, keyWidth, valueWidth, options, workers, mixesHeads, splitFrom = SPLIT_FROM, onCaller = true,
  callerPart = false,
}) {
  const visible = visibleKeys(options, n, m);
  let pairs = 0;
  for (let row = 0; row < n; ++row) pairs += visible[row];
  const work = pairs * heads * (keyWidth + valueWidth);
  // NaN where a width is (the call's shapes do not fit): for the engine's error
  const small = splitFrom > 0 && !(work >= 2 * splitFrom);
  if (small) return { by: onCaller ? 'caller' : 'whole' };
  // a call that cannot be split: on the caller's thread when it computes parts, else on a worker
  const unsplit = { by: callerPart ? 'caller' : 'whole' };
  const threads = workers + (callerPart ? 1 : 0);
  if (threads === 1 || options.part !== undefined) return unsplit;
  const count = splitFrom === 0 ? threads : Math.min(threads, Math.floor(work / splitFrom));
  if (heads >= count && !mixesHeads) {
    const ranges = headGroups(heads, count);
    return {
      by: 'heads',
      parts: ranges.map((range) => ({ heads: range })),
      kvRanges: ranges.map((range) => keyValueHeads(range, heads, kvHeads)),
    };
  }
  const cuts = rowCuts(visible, m, Math.min(count, n), kernelUsed(options.kernel, n, m, heads) === 'materialized');
  if (cuts.length === 2) return unsplit;
  return { by: 'rows', parts: cuts.slice(1).map((end, p) => ({ rows: [cuts[p], end] })) };
}

// Columns [first, first + count) of a matrix, as a matrix of their own: written into `into`
// when it is a Float32Array of their length, else into a new one.
function columns({ rows, cols, data }, first, count, into) {
  const out = destination(into, rows * count);
  for (let row = 0; row < rows; ++row) out.set(data.subarray(row * cols + first, row * cols + first + count), row * count);
  return { rows, cols: count, data: out };
}

// For an attention call split by heads, a function of a part's index (and of arrays to cut into,
// {q, k, v}, each used when its length fits) that gives the part as a call of its own heads
// alone, {q, k, v, options}: q holding the part's heads' columns, k and v those of the
// key/value heads they read, so that a worker copies and carries 1/parts of the inputs instead
// of all of them (each part is cut when it is sent, so that the first worker starts while the
// next part is cut). null when that would not give the whole call's numbers or
// errors, and the parts then take every input with `part`: when the shapes do not fit (the
// whole call's error is wanted), a part's heads are not whole groups of the key/value heads
// they read, ALiBi's slopes are the defaults (they depend on every head's count) or a
// materialising call is beyond the budget a part would fit. `call` as attentionArguments
// returns it.
export function sliceHeads(call, split) {
  const { q, k, v, options } = call;
  const heads = options.heads ?? 1, kvHeads = options.kvHeads ?? heads;
  if (split.by !== 'heads' || heads % kvHeads !== 0 || q.cols % heads !== 0 || v.cols % kvHeads !== 0) return null;
  const dh = q.cols / heads, dvh = v.cols / kvHeads, group = heads / kvHeads;
  if (k.cols !== kvHeads * dh || k.rows !== v.rows) return null;
  if (split.parts.some(({ heads: [h0, h1] }) => h0 % group !== 0 || h1 % group !== 0)) return null;
  const { positional } = options;
  if (positional?.type === 'alibi' && positional.slopes?.length !== heads) return null;
  const kernel = kernelUsed(options.kernel, q.rows, k.rows, heads);
  if (kernel === 'materialized' && materializedBytes(q.rows, k.rows, heads) > MATERIALIZED_BUDGET_BYTES) return null;
  return (p, into = {}) => {
    const [h0, h1] = split.parts[p].heads, [g0, g1] = split.kvRanges[p];
    return {
      q: columns(q, h0 * dh, (h1 - h0) * dh, into.q),
      k: columns(k, g0 * dh, (g1 - g0) * dh, into.k),
      v: columns(v, g0 * dvh, (g1 - g0) * dvh, into.v),
      options: {
        ...options, kernel, heads: h1 - h0, kvHeads: options.kvHeads === undefined ? undefined : g1 - g0,
        positional: positional?.type === 'alibi' ? { ...positional, slopes: positional.slopes.slice(h0, h1) } : positional,
      },
    };
  };
}

// The key/value heads [g0, g1) that query heads [h0, h1) of `heads` read when there are
// `kvHeads` of them: ⌊h·kvHeads/heads⌋ for each (core/src/attention_part.hpp kv_head_of).
function keyValueHeads([h0, h1], heads, kvHeads) {
  return [Math.floor((h0 * kvHeads) / heads), Math.floor(((h1 - 1) * kvHeads) / heads) + 1];
}
