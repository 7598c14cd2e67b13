// The comparison: the pinned setting A, the page's setting B and B − A of one head, side by
// side on one canvas at the same size, zoom and query (A and B on the values' colour scale,
// B − A on a diverging one symmetric around 0, each with its legend); what B changed; the pin
// buttons; and the comparison as an SVG figure. A and B are compared only when they have as
// many tokens: B − A subtracts the same query and key positions.
import { specialsIn } from '../../shared/heatmap/colors.js';
import { colorDomain, createHeatmap, logColorDomain } from '../../shared/heatmap/heatmap.js';
import { symmetricDomain } from '../../shared/heatmap/difference.js';
import { createLegend } from '../../shared/heatmap/legend.js';
import { formatCount, formatNumber } from '../../shared/format.js';
import { logColors, settingsDifferences } from '../state.js';

const $ = (id) => document.getElementById(id);
const MAX_LISTED_TOKENS = 3;  // differing tokens named in the summary
const STALE_NOTE = 'The page\'s settings now fail (the status line says why): what is greyed is the last B that worked.';

const valueName = (value) => (value === 'weights' ? 'weight' : 'score');
// The heading of A's and B's legend: "A and B: attention weight, log scale".
const valuesHeading = ({ value, log }) => `A and B: attention ${valueName(value)}${log ? ', log scale' : ''}`;
const signed = (value) => (value > 0 ? `+${formatNumber(value)}` : formatNumber(value).replace('-', '−'));

/**
 * Binds the comparison to the page; onPin() toggles the pin, onSelectQuery(i) and onZoom(around)
 * as the heatmap's, onExportable(exportable) whether its figure may be exported (drawn, and of
 * the page's settings). Returns {sync(), draw(view), problem(message), markStale(), redraw(), figure()}: view
 * = {compared: {block, a, b, difference}, region, rows, n, labels (B's), labelsA, pinned (A's settings), settings (B's),
 * heads: [A's, B's]};
 * rows, how many of the region's rows are drawn, from its first (generating step by step, those fed so far).
 */
export function createComparison({ state, onPin, onSelectQuery, onZoom, onExportable }) {
  const panel = $('compare-panel');
  const canvas = $('compare-heatmap');
  const pinButton = $('pin');
  const heatmap = createHeatmap(canvas, $('compare-tooltip'), { onSelectQuery, onZoom });
  const legend = (prefix, scale) => createLegend({
    bar: $(`${prefix}-legend-bar`), axis: $(`${prefix}-legend-axis`), title: $(`${prefix}-legend-title`),
    swatches: $(`${prefix}-legend-swatches`), scale,
  });
  const valuesLegend = legend('compare', 'sequential');
  const differenceLegend = legend('difference', 'diverging');
  let shown = null;

  pinButton.addEventListener('click', onPin);
  $('unpin').addEventListener('click', onPin);

  function clear() {
    shown = null;
    onExportable(false);
    canvas.parentElement.classList.remove('stale');
    canvas.dataset.rows = '0';
    canvas.dataset.heads = '0';
    canvas.getContext('2d').clearRect(0, 0, canvas.width, canvas.height);
  }

  // The heatmap's model of what is shown, for state.value: A and B on the page's colour scale
  // (logarithmic for weights when chosen), B − A on a linear one, since it is signed.
  function model() {
    const { compared: { block, a, b, difference }, region, rows, n, labels, heads: [headsA, headsB] } = shown;
    const value = state.value;
    const log = logColors(state);
    const title = (name, heads) => `${name}: head ${a.head + 1} of ${heads}`;
    const pair = [{ ...a, title: title('A (pinned)', headsA) }, { ...b, title: title('B (now)', headsB) }];
    const domain = log ? logColorDomain(pair, n) : colorDomain(pair, value);
    const differenceDomain = symmetricDomain(difference[value], difference.masked);
    return {
      tokens: labels, n, region, rows, block, pooling: state.pooling, query: state.query, value, log, domain, compare: true,
      panels: [...pair, { ...difference, title: 'B − A', scale: 'diverging', domain: differenceDomain, log: false }],
      columns: 3,
    };
  }

  function summary(view) {
    const changes = settingsDifferences(view.pinned, view.settings);
    const changed = changes.length === 0
      ? 'B has the same settings as A: change any setting to see what it does.'
      : `B differs from A in ${changes.map((c) => `${c.label} (${c.a} → ${c.b})`).join('; ')}.`;
    const differing = view.labels.filter((label, t) => label.text !== view.labelsA[t].text);
    const tokens = differing.length === 0 ? '' : ` The texts differ at ${formatCount(differing.length)} position${differing.length === 1 ? '' : 's'} ` +
      `(${differing.slice(0, MAX_LISTED_TOKENS).map((l) => `#${l.index} “${view.labelsA[l.index].text}” → “${l.text}”`).join(', ')}` +
      `${differing.length > MAX_LISTED_TOKENS ? ', …' : ''}): rows and columns are labelled with B's tokens.`;
    return `A is the pinned setting, B the page's settings now. ${changed}${tokens}`;
  }

  function redraw() {
    if (!shown) return;
    const drawn = model();
    heatmap.draw(drawn);
    const [, , difference] = drawn.panels;
    const name = valueName(drawn.value);
    valuesLegend({
      heading: valuesHeading(drawn), domain: drawn.domain, log: drawn.log,
      present: specialsIn(drawn.panels.slice(0, 2), drawn.value, drawn.domain[0]),
    });
    differenceLegend({
      heading: `B − A of the ${name}s, ${signed(difference.domain[0])} to ${signed(difference.domain[1])} (blue: lower in B, red: higher in B)`,
      domain: difference.domain, present: specialsIn([difference], drawn.value),
    });
    const pooled = drawn.block > 1
      ? `Blocks of ${drawn.block}×${drawn.block} tokens, the ${drawn.pooling} of each: B − A subtracts the blocks A and B show. ` : '';
    $('compare-status').textContent = `${pooled}Hover or focus a cell to read it in A, B and B\u00a0−\u00a0A.`;
  }

  return {
    sync() {
      const pinned = state.pinned !== null;
      pinButton.textContent = pinned ? 'Unpin A' : 'Pin as A';
      pinButton.setAttribute('aria-pressed', String(pinned));
      panel.hidden = !pinned;
      if (!pinned) clear();
    },
    draw(view) {
      shown = view;
      $('compare-summary').textContent = summary(view);
      redraw();
      canvas.parentElement.classList.remove('stale');
      onExportable(true);
    },
    // B's settings failed: what is drawn compares earlier ones, greyed as the matrix is until
    // the next result, and is not exported (with nothing drawn, nothing is greyed).
    markStale() {
      if (shown) {
        canvas.parentElement.classList.add('stale');
        $('compare-summary').textContent = `${summary(shown)} ${STALE_NOTE}`;
      }
      onExportable(false);
    },
    // A and B cannot be compared (or A failed): the message instead of the panels.
    problem(message) {
      clear();
      $('compare-summary').textContent = message;
      $('compare-status').textContent = '';
    },
    redraw,
    // The comparison as heatmap-svg.js draws it.
    figure() {
      if (!shown) return null;
      const drawn = model();
      const name = valueName(drawn.value);
      return {
        ...drawn,
        title: `Attention ${name}s of A, B and B − A (head ${shown.compared.a.head + 1}, ${formatCount(shown.n)} tokens)`,
        names: { query: 'query', key: 'key' },
        legends: [
          { heading: valuesHeading(drawn), domain: drawn.domain, log: drawn.log },
          { heading: `B − A (blue: lower in B, red: higher in B)`, domain: drawn.panels[2].domain, scale: 'diverging' },
        ],
      };
    },
  };
}
