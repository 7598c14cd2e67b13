// The input the engine gets: the engine's tokens of the text (from the worker) and their
// vectors from the chosen source (GloVe, loaded on first use; a tutorial preset; the table;
// random vectors are drawn in the worker), with the line under the source that says what it
// is. Choosing a source may bring its text (a preset) or its first table (the vectors on
// display) along.
import { formatCount } from '../../shared/format.js';
import { LIMITS } from '../state.js';
import { embedTokens, loadGlove } from './embeddings.js';
import { PRESETS, PRESET_DIMS } from '../presets.js';
import { TABLE_MAX_TOKENS, tableRows } from './vector-table.js';

export const MAX_TOKENS = 8192;  // longer texts are cut here (the engine's memory budget)
// The settings each source of vectors depends on, besides the text.
const SOURCE_FIELDS = { random: ['randomSeed', 'randomDims'], table: ['tableDims', 'table'] };
const PERCENT = 100;

const $ = (id) => document.getElementById(id);

let glove = null;         // the decoded GloVe table, once loaded (the page's input and a pinned one share it)
let gloveLoading = null;  // its promise

/**
 * Binds the source control to `state` (client: the engine worker; status: the page's
 * progress line; onChange(settings)). Returns {embed(current), input()}: embed brings the
 * input up to date (a new input gets a new key), while current() says that the update that
 * asked is still the latest; input() is {key, tokens, labels, x, unknown,
 * truncated}, or null before the first. `own`: whether this is the page's input, which owns
 * the source control and its status line (false for the pinned setting A of a comparison).
 */
export function createVectors({ client, state, status, onChange, own = true }) {
  let input = null;

  function ensureGlove() {
    gloveLoading ??= loadGlove(document.baseURI, (fraction) => {
      status.progress(`Loading GloVe vectors… ${Math.round(fraction * PERCENT)}%`, fraction);
    }).then((table) => {
      glove = table;
      return table;
    }, (error) => {
      gloveLoading = null;
      throw new Error(`The GloVe vectors did not load (${error.message}).`);
    });
    return gloveLoading;
  }

  function sourceOf(kind) {
    if (kind === 'glove') return { type: 'glove', table: glove };
    if (PRESETS[kind]) return { type: 'preset', preset: PRESETS[kind] };
    return { type: 'table', dims: state.tableDims, rows: state.table };
  }

  function showSourceStatus() {
    const texts = {
      glove: glove ? `GloVe 6B: the ${formatCount(glove.rows)} most frequent words × ${glove.dims} dims (int8) of the ` +
        'vectors the page is built from, which leave out numbers, single letters (“a”, “I”) and pieces such as “’s” and ' +
        '“n’t”. Those and other words get a hashed vector and show dashed.' : '',
      journey: `The tutorial's ${PRESET_DIMS}-d vectors of “${PRESETS.journey.text}”; other words get a hashed vector.`,
      attention: `The tutorial's ${PRESET_DIMS}-d vectors of “${PRESETS.attention.text}”; other words get a hashed vector.`,
      random: `x = torch.rand(n, ${state.randomDims}) after torch.manual_seed(${state.randomSeed}), drawn by the engine.`,
      table: `Vectors from the table; rows after the ${TABLE_MAX_TOKENS}th and empty rows get a hashed vector.`,
    };
    const text = texts[state.source];
    if ($('source-status').textContent !== text) $('source-status').textContent = text;
  }

  async function embed(current) {
    const key = JSON.stringify([state.text, state.source, ...(SOURCE_FIELDS[state.source] ?? []).map((f) => state[f])]);
    if (input?.key === key) return;
    const [{ value: { tokens, truncated } }] = await Promise.all([
      client.request('tokenize', { text: state.text, limit: MAX_TOKENS }),
      state.source === 'glove' && !glove ? ensureGlove() : null,
    ]);
    if (!current()) return;
    let x = null;
    let unknown = tokens.map(() => false);
    if (state.source !== 'random' && tokens.length > 0) ({ x, unknown } = embedTokens(tokens, sourceOf(state.source)));
    const labels = tokens.map((token, i) => ({ text: token.text, unknown: unknown[i], index: i }));
    input = { key, tokens, labels, x, unknown, truncated };
    if (own) showSourceStatus();
  }

  if (!own) return { embed, input: () => input };

  const sourceControl = $('source');
  sourceControl.addEventListener('change', () => {
    const source = sourceControl.value;
    const preset = PRESETS[source];
    if (preset) onChange({ source, text: preset.text, query: preset.query, zoom: null });
    else if (source === 'table' && state.table.length === 0 && input?.x?.cols <= LIMITS.MAX_TABLE_DIMS) {
      onChange({ source, tableDims: input.x.cols, table: tableRows(input.x) });
    } else onChange({ source });
  });

  return { embed, input: () => input };
}
