// Chart 5, the trained model's attention on one held-out sequence, per layer and head, in the
// heatmap view the playground draws (shared/heatmap/): tokens labelled as keys (k5), values
// (v12), the separator and the final query (q=k5); the queried pair's key and value marked;
// the final position's row outlined (a click selects another row); hover for the weight. Where
// the labels thin to every other token (16 pairs: the keys alone), a strip along each axis
// colours every token by its kind, with its legend, and the separator keeps its label.
import { specialsIn } from '../../shared/heatmap/colors.js';
import { colorDomain, createHeatmap } from '../../shared/heatmap/heatmap.js';
import { createLegend, swatchItem } from '../../shared/heatmap/legend.js';
import { summaryList } from '../../shared/page/summary.js';
import { runCaption } from '../runs.js';

const $ = (id) => document.getElementById(id);

/**
 * A token's label: with K key and V value symbols, keys are tokens 0..K−1 (k0…), values
 * K..K+V−1 (v0…, their class ids), then SEP and the cues of the other objectives. The last
 * token of a retrieval sequence is the query, a key: q=k5.
 */
export function tokenLabel(token, { keys, values }, isQuery = false) {
  if (token < keys) return isQuery ? `q=k${token}` : `k${token}`;
  if (token < keys + values) return `v${token - keys}`;
  return ['SEP', 'RS', 'FR'][token - keys - values] ?? `#${token}`;
}

// The kinds of token along the map's axes, in the order of TOKEN_KINDS.list, each in a colour
// of its own (train.css, light and dark) that reads apart from the others in grey too.
const KEY = 0;
const VALUE = 1;
const SEPARATOR = 2;
const QUERY = 3;
export const TOKEN_KINDS = {
  heading: 'Tokens',
  list: [
    { name: 'key', color: '--token-key' },
    { name: 'value', color: '--token-value' },
    { name: 'separator', color: '--token-separator' },
    { name: 'query', color: '--token-query' },
  ],
};

/**
 * A token's kind (an index of TOKEN_KINDS.list), as tokenLabel names it: a key, a value, the
 * separator (and the other objectives' cues), or the query, the key that ends the sequence.
 */
export function tokenKind(token, { keys, values }, isQuery = false) {
  if (token < keys) return isQuery ? QUERY : KEY;
  return token < keys + values ? VALUE : SEPARATOR;
}

/**
 * Which cells of a T×T attention matrix no query may see: under a causal mask a query sees
 * itself and the tokens before it; with a prefix the first `prefix` tokens also see each other
 * both ways. 1 for masked.
 */
export function maskedCells(T, prefix) {
  const masked = new Uint8Array(T * T);
  for (let i = 0; i < T; ++i) {
    for (let j = i + 1; j < T; ++j) masked[i * T + j] = i < prefix && j < prefix ? 0 : 1;
  }
  return masked;
}

/**
 * Returns {draw(sequence, run, drawn), redraw(), figure(), clear()}. sequence: the worker's
 * 'attention' answer; drawn: {k, pairs, example}, the seed's index, the length and the example
 * sequence it answers, which the figure's caption names.
 */
export function createAttentionMap() {
  const canvas = $('attention-map');
  let shown = null;  // {model, sequence}
  let query = null;
  const heatmap = createHeatmap(canvas, $('attention-tooltip'), {
    onSelectQuery(i) {
      query = i;
      redraw();
    },
    onZoom() {},  // sequences of the task fit on screen whole
  });
  const updateLegend = createLegend({
    bar: $('attention-legend-bar'), axis: $('attention-legend-axis'), title: $('attention-legend-title'),
    swatches: $('attention-legend-swatches'),
  });
  $('attention-kinds').replaceChildren(...TOKEN_KINDS.list.map(({ name, color }) => swatchItem({ css: `var(${color})`, label: name })));

  function redraw() {
    if (!shown) return;
    const { model } = shown;
    heatmap.draw({ ...model, query: query ?? model.query });
    updateLegend({ heading: 'Attention weight', domain: model.domain, present: specialsIn(model.panels, 'weights') });
  }

  return {
    draw(sequence, run, drawn) {
      const { keys, values } = run.settings;
      const T = sequence.length;
      const masked = maskedCells(T, sequence.prefix);
      const layers = sequence.weights.length;
      const heads = sequence.weights[0].length;
      const panels = sequence.weights.flatMap((layer, l) => layer.map((weights, h) => ({
        head: h, heads, title: `Layer ${l + 1} · head ${h + 1}`, cellRows: T, cellCols: T, weights, masked,
      })));
      const tokens = sequence.tokens.map((token, t) => ({ text: tokenLabel(token, { keys, values }, t === T - 1) }));
      const kinds = { ...TOKEN_KINDS, of: sequence.tokens.map((token, t) => tokenKind(token, { keys, values }, t === T - 1)) };
      const q = sequence.queried;
      const model = {
        tokens, n: T, region: { row0: 0, col0: 0, size: T }, block: 1, pooling: 'max', query: T - 1, panels,
        value: 'weights', domain: colorDomain(panels, 'weights'),
        // the value before the key: where only one label fits, the value's stays (the query's row names the key)
        marked: [2 * q + 1, 2 * q],
        // the separator's label too, where there is room beside the query's
        pinned: kinds.of.flatMap((kind, t) => (kind === SEPARATOR ? [t] : [])),
        kinds,
        // tokens numbered from 1 in the tooltip, as pairs are ('pair 1 of 4' is tokens #1 and #2)
        names: { query: 'position', key: 'looks at' }, numberFrom: 1, columns: heads,
      };
      shown = { model, sequence, caption: runCaption(run, drawn) };
      query = null;
      canvas.dataset.layers = String(layers);
      redraw();
      const right = sequence.answer === sequence.target;
      summaryList($('attention-summary'), [
        ['queried', `pair ${q + 1} of ${sequence.tokens.length / 2 - 1}: ${tokens[2 * q].text} → ${tokens[2 * q + 1].text}`],
        ['the model answers', `v${sequence.answer}, ${right ? 'right' : `wrong (the answer is v${sequence.target})`}`],
      ]);
      $('attention-summary').dataset.right = String(right);
    },
    redraw,
    // The map on display as shared/heatmap/heatmap-svg.js draws a figure, or null.
    figure() {
      if (!shown) return null;
      const { model, caption } = shown;
      return {
        ...model, query: query ?? model.query, caption,
        title: `Attention weights of one held-out sequence (${model.n} tokens), per layer and head`,
        legends: [{ heading: 'Attention weight', domain: model.domain }],
      };
    },
    clear() {
      shown = null;
      canvas.dataset.rows = '0';
      canvas.getContext('2d').clearRect(0, 0, canvas.width, canvas.height);
      $('attention-summary').replaceChildren();
    },
  };
}
