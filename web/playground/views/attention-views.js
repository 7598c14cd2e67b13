// The views of one attention result, bound to the page's elements: the heatmap and its legend
// (shared/heatmap/), the row and column profile, the lines view and their status lines, the
// key/value cache of generation step by step, then the step-by-step table and the cost panel. The heatmap also carries what tests and the
// curious read: data-timing (milliseconds of the last update's steps) and data-wasm-bytes.
import { specialsIn } from '../../shared/heatmap/colors.js';
import { colorDomain, createHeatmap, logColorDomain, lowShare } from '../../shared/heatmap/heatmap.js';
import { createLegend } from '../../shared/heatmap/legend.js';
import { schemeTableau10 } from 'd3-scale-chromatic';
import { formatCount } from '../../shared/format.js';
import { kvHeadOf } from '../generation.js';
import { groupedKvHeads, logColors } from '../state.js';
import { renderCost, renderKvCache } from './cost.js';
import { hideGeneration, renderGeneration } from './generation.js';
import { createLines } from './lines.js';
import { clearProfile, drawProfile } from './profile.js';
import { clearSteps, renderSteps } from './steps.js';

const $ = (id) => document.getElementById(id);

// Frame colours of the key/value groups: Tableau 10 without its orange and red, which the
// selected query's outline uses.
const GROUP_COLORS = [0, 6, 8, 3, 7, 4, 9, 5].map((k) => schemeTableau10[k]);

// A linear scale of weights that draws nearly every cell in its darkest colours (under a causal
// mask row 0 puts all its weight on itself, pinning the top at 1, while a long input's rows
// spread theirs over i keys) makes the legend point to the log scale.
const DARK_FRACTION = 0.1;    // the darkest tenth of the colours
const DARK_HINT_SHARE = 0.9;  // of the cells drawn

// With grouped-query attention, a head's panel knows its key/value head (kvHead, from 0), names
// it (counted from 1, as the heads are) and is framed in its group's colour; without it,
// nothing is added.
function kvGroup(h, heads, kvHeads) {
  if (kvHeads === null) return {};
  const g = kvHeadOf(h, { heads, kvHeads });
  return {
    kvHead: g,
    title: `Head ${h + 1} of ${heads} · kv ${g + 1} of ${kvHeads}`,
    frame: GROUP_COLORS[g % GROUP_COLORS.length],
  };
}

// What the profile's lines stand for beyond its key: the axes, the heads averaged, the keys a
// point pools, the queries the keys' mean is over.
function profileNote({ heads, n, stretch, queries }, pooling) {
  return [
    'Keys by position (x), attention weight (y).',
    heads > 1 ? `Both lines are the mean of the ${heads} heads on display.` : '',
    stretch > 1 ? `Each point is the ${pooling} of ${formatCount(stretch)} keys.` : '',
    queries < n ? `The keys' mean is over the queries fed so far, #0–#${queries - 1}.` : '',
  ].filter(Boolean).join(' ');
}

/**
 * Binds the views to the page: `state` decides what they show (colour, pooling, query);
 * onSelectQuery(i) and onZoom(around) come from the heatmap and the lines view; onLogScale()
 * from the legend's hint to use the log colour scale;
 * onExportable(exportable) hears whether the matrix shows a current result (drawn) or not
 * (greyed by markStale, or emptied by clear). Returns
 * {draw(view, labels) → milliseconds, redraw(), clear(), markStale(), shown(), showWasmMemory({wasmBytes, wasmInUse}),
 * recordTiming(started, pieces) → the update's milliseconds, showGeneration(decoded, labels), hideGeneration(), showSteps(walk, labels),
 * showCost(rows, n), showKvCache(models), figure()}: figure() is the heatmap on display as
 * shared/heatmap/heatmap-svg.js draws it, or null.
 */
export function createAttentionViews({ state, onSelectQuery, onZoom, onLogScale, onExportable }) {
  const canvas = $('heatmap');
  const heatmap = createHeatmap(canvas, $('heatmap-tooltip'), { onSelectQuery, onZoom });
  const updateLegend = createLegend({
    bar: $('legend-bar'), axis: $('legend-axis'), title: $('legend-title'), swatches: $('legend-swatches'),
  });
  $('legend-hint-log').addEventListener('click', onLogScale);
  const linesView = createLines($('lines'), $('lines-links'), { legend: $('lines-heads'), onSelectQuery });
  const stepsParts = {
    intro: $('steps-intro'), summary: $('steps-summary'), table: $('steps-table'), context: $('steps-context'), note: $('steps-note'),
  };
  const generationParts = {
    panel: $('generation'), summary: $('generation-summary'), table: $('cache-table'), check: $('generation-check'),
    note: $('generation-note'),
  };
  let shown = null;  // what the views show: {view: {computed, heads, region, blocks, profiles, lines, milliseconds}, labels}

  // With no tokens the canvas (and the legend of its colours) gives way to a message: a
  // hidden canvas cannot be hovered or focused for the cells of the last result.
  function showEmpty(empty) {
    canvas.hidden = empty;
    $('heatmap-empty').hidden = !empty;
    $('legend').hidden = empty;
  }

  const legendHeading = () => (state.value === 'scores' ? 'Score (after scaling and position)'
    : logColors(state) ? 'Attention weight, log scale' : 'Attention weight');

  // The heatmap's model of what is shown, for the canvas and the SVG figure alike: each panel
  // titled (and framed in its key/value group's colour) and, in generation step by step, the
  // rows fed so far; its colours linear or, for weights, logarithmic.
  function heatmapModel() {
    const { view: { computed: { n, heads, kvHeads }, region, rows, blocks }, labels } = shown;
    const panels = blocks.panels.map((panel) => ({
      ...panel, heads, title: `Head ${panel.head + 1} of ${heads}`, ...kvGroup(panel.head, heads, kvHeads),
    }));
    const log = logColors(state);
    return {
      tokens: labels, n, region, rows, block: blocks.block, pooling: state.pooling, query: state.query, panels,
      value: state.value, log, domain: log ? logColorDomain(panels, n) : colorDomain(panels, state.value),
    };
  }

  // The hint beside the legend when linear weights draw nearly every cell dark.
  function showLogHint(model) {
    const share = model.value === 'weights' && !model.log ? lowShare(model.panels, 'weights', model.domain, DARK_FRACTION) : 0;
    $('legend-hint').hidden = share < DARK_HINT_SHARE;
    if (share >= DARK_HINT_SHARE) {
      $('legend-hint-text').textContent = `${Math.floor(share * 100)}% of the cells are in the darkest tenth of the colours:`;
    }
  }

  function redraw() {
    if (!shown) return undefined;
    const { view: { computed, region: area, profiles, lines }, labels } = shown;
    const started = performance.now();
    const model = heatmapModel();
    canvas.dataset.kvGroups = computed.kvHeads === null ? '' : model.panels.map((panel) => panel.kvHead).join(',');
    heatmap.draw(model);
    updateLegend({
      heading: legendHeading(), domain: model.domain, log: model.log, present: specialsIn(model.panels, model.value, model.domain[0]),
    });
    showLogHint(model);
    drawProfile($('profile'), { start: area.col0, count: area.size, ...profiles });
    $('profile-note').textContent = profileNote({ heads: shown.view.heads.length, n: computed.n, ...profiles }, state.pooling);
    linesView.draw({
      tokens: labels.slice(lines.start, lines.start + lines.count),
      heads: lines.panels.map((panel) => ({ head: panel.head, weights: panel.weights })),
      rows: lines.rows,
      query: state.query,
    });
    const [firstPending, lastPending] = [lines.start + lines.rows, lines.start + lines.count - 1];
    const pending = firstPending > lastPending ? ''
      : firstPending === lastPending ? ` Query #${firstPending} is not fed yet: it has no lines.`
        : ` Queries #${firstPending}–#${lastPending} are not fed yet: they have no lines.`;
    $('lines-status').textContent = (lines.count < computed.n
      ? `Tokens #${lines.start}–#${lines.start + lines.count - 1} of ${formatCount(computed.n)}; zoom the matrix to move this window.`
      : 'Hover or focus a token to keep only its lines; click a query to select it.') + pending;
    const last = area.row0 + area.size - 1;
    $('zoom-status').textContent = `Tokens #${area.row0}–#${last}${area.col0 !== area.row0 ? ` × #${area.col0}–#${area.col0 + area.size - 1}` : ''}` +
      (model.block > 1 ? `, blocks of ${model.block}×${model.block}` : '');
    return performance.now() - started;
  }

  return {
    draw(view, labels) {
      shown = { view, labels };
      canvas.parentElement.classList.remove('stale');
      showEmpty(false);
      onExportable(true);
      return redraw();
    },
    redraw,
    // No tokens: every view of the last result goes, and the heatmap's frame says why.
    clear() {
      shown = null;
      canvas.dataset.rows = '0';
      canvas.dataset.cols = '0';
      delete canvas.dataset.pending;
      canvas.getContext('2d').clearRect(0, 0, canvas.width, canvas.height);
      canvas.parentElement.classList.remove('stale');
      showEmpty(true);
      onExportable(false);
      $('zoom-status').textContent = '';
      clearProfile($('profile'));
      $('profile-note').textContent = '';
      linesView.clear();
      $('lines-status').textContent = '';
      hideGeneration(generationParts);
      clearSteps(stepsParts);
    },
    // What is drawn belongs to settings that failed: greyed until the next result.
    markStale() {
      canvas.parentElement.classList.add('stale');
      onExportable(false);
    },
    shown: () => shown,
    showWasmMemory({ wasmBytes, wasmInUse }) {
      canvas.dataset.wasmBytes = String(wasmBytes);
      canvas.dataset.wasmInUse = String(wasmInUse);
    },
    // Worker times appear only for the pieces this update asked the worker for; wokenAhead, how
    // long before its engine call the page woke the engine's threads (a typed update).
    recordTiming(started, { computed, fetched, drawMs, typingPause }) {
      const fresh = (piece) => (piece.receivedAt >= started ? piece.workerMs : undefined);
      const update = performance.now() - started;
      canvas.dataset.timing = JSON.stringify({
        engine: computed.receivedAt >= started ? computed.engineMs : undefined,
        wokenAhead: computed.receivedAt >= started ? computed.wokenAhead ?? undefined : undefined,
        compute: fresh(computed),
        blocks: fresh(fetched.blocks),
        profiles: fresh(fetched.profiles),
        view: fetched.milliseconds,
        draw: drawMs,
        update,
        typingPause,
      });
      return update;
    },
    showGeneration(decoded, labels) {
      renderGeneration(generationParts, { decoded, tokens: labels, window: state.window, sinks: state.sinks });
    },
    hideGeneration: () => hideGeneration(generationParts),
    showSteps(walk, labels) {
      renderSteps(stepsParts, { walk, tokens: labels, query: state.query, scale: state.stepScale });
    },
    figure() {
      if (!shown) return null;
      const model = heatmapModel();
      const { n, region: area, rows } = model;
      const zoomed = area.size < n ? `, tokens #${area.row0}–#${area.row0 + area.size - 1} × #${area.col0}–#${area.col0 + area.size - 1}` : '';
      const fed = rows < area.size ? `, generated up to query #${area.row0 + rows - 1}` : '';
      return {
        ...model,
        title: `Attention ${state.value} (${formatCount(n)} tokens${zoomed}${fed})`,
        names: { query: 'query', key: 'key' },
        legends: [{ heading: legendHeading(), domain: model.domain, log: model.log }],
      };
    },
    showCost(rows, n) {
      renderCost({ answer: $('cost-answer'), table: $('cost-table') }, { rows, heads: state.heads, n });
    },
    showKvCache(models) {
      renderKvCache({ answer: $('kv-cache-answer'), table: $('kv-cache-table') }, { models, kvHeads: groupedKvHeads(state), heads: state.heads });
    },
  };
}
