// Generation step by step: a decoder fed the sentence one token at a time keeps each token's
// key and value in its cache. At step t (counted from 0) token t has just been fed: the
// cache has seen tokens 0..t. Without a window every one of them stays; with a window w the
// query at position t sees keys j with t − j < w (the engine's `window` under `causal`), so
// key j leaves the cache at step j + w, except the first `sinks` tokens, which stay
// (StreamingLLM). Pure logic: the page draws it, tests/js/generation.test.mjs checks it.
import { shownRegion } from './state.js';

/** The key/value head query head h reads (the engine's ⌊h·kvHeads/heads⌋; each its own without kvHeads). */
export function kvHeadOf(h, { heads, kvHeads = heads }) {
  return Math.floor((h * kvHeads) / heads);
}

/**
 * The cache after step `step` (≥ 0) with `window` (0: none) and `sinks`: one entry per token
 * fed so far, [{token, evictedAt}], evictedAt the step at which the token left the cache, or
 * null while it is cached.
 */
export function cacheEntries({ step, window, sinks }) {
  return Array.from({ length: step + 1 }, (_, token) => {
    const leaves = token + window;
    const evicted = window > 0 && token >= sinks && leaves <= step;
    return { token, evictedAt: evicted ? leaves : null };
  });
}

/**
 * The step a link or a control asks for, fitted to n tokens: a whole number from 0 to n − 1.
 */
export function fitStep(step, n) {
  return Math.max(0, Math.min(n - 1, step));
}

/**
 * The square of the n×n matrix on display in `settings`: generation step by step shows rows 0 to
 * its step, so a zoomed square below them gives way to the whole matrix.
 */
export function generationRegion(settings, n) {
  const area = shownRegion(settings, n);
  return settings.generate && area.row0 > fitStep(settings.generationStep, n) ? shownRegion({ zoom: null }, n) : area;
}

/**
 * How many rows of `area` (from its first) exist in `settings`: all of them, or, generating step
 * by step, those of the queries fed so far (none when the step is above the area).
 */
export function fedRows(settings, area, n) {
  if (!settings.generate) return area.size;
  return Math.max(0, Math.min(area.size, fitStep(settings.generationStep, n) + 1 - area.row0));
}

/**
 * The settings that select `query` in `state`: while generating step by step, a query not fed
 * yet feeds the tokens up to it (the step moves to it), so that its row is one the cache has
 * computed.
 */
export function selectQuery(state, query) {
  return state.generate && query > state.generationStep ? { query, generationStep: query } : { query };
}

/**
 * Bytes of the cache after `step` for one layer, from engine.kvCacheMemory: 2 (a key and a
 * value) · kvHeads · headWidth · bytesPerElement per cached token, over min(step + 1,
 * window + sinks) tokens (all of them without a window): the sinks stay beside the window.
 */
export function kvCacheBytes(engine, { step, kvHeads, headWidth, bytesPerElement, window, sinks }) {
  return engine.kvCacheMemory({
    tokens: step + 1, layers: 1, kvHeads, headWidth, bytesPerElement, window: window > 0 ? window + sinks : 0,
  });
}

// Rows [0, count) of a row-major matrix {rows, cols, data}, without a copy.
function firstRows({ cols, data }, count) {
  return { rows: count, cols, data: data.subarray(0, count * cols) };
}

/**
 * One decoding step through the engine: the query of token `step` against the cached keys
 * and values of tokens 0..step. q, k: n×dk, v: n×dv, as selfAttention returned them
 * (projected, a sinusoidal encoding already added to x); options: selfAttention's, with
 * causal forced. The query sits at position m − 1 = step, so RoPE and ALiBi see the tokens'
 * own positions; evicted keys are passed too and masked by the window, which gives the
 * numbers of a cache that dropped them. Returns engine.attention's result: scores and
 * weights H matrices 1×(step+1), context 1×dv.
 */
export function decodeStep(engine, { q, k, v, step, options }) {
  const { positional, ...rest } = options;
  const query = { rows: 1, cols: q.cols, data: q.data.subarray(step * q.cols, (step + 1) * q.cols) };
  return engine.attention(query, firstRows(k, step + 1), firstRows(v, step + 1), {
    ...rest, causal: true, positional: positional.type === 'sinusoidal' ? { type: 'none' } : positional,
  });
}
