// The export buttons: the heatmap (and the comparison) as PNG and SVG figures, and the weights and
// scores of the heads on display as CSV or JSON, formatted in the worker (weights-export.js)
// and offered as a download.
import { download, downloadFigure } from '../shared/downloads.js';
import { heatmapSvg } from '../shared/heatmap/heatmap-svg.js';
import { formatCount } from '../shared/format.js';
import { PROJECTION_FIELDS, attentionOptions } from './state.js';

const EXPORT_MAX_CELLS = 2 ** 24;    // heads × n × n of one CSV or JSON export
const HEATMAP_NAME = 'attention-heatmap';
const COMPARISON_NAME = 'attention-comparison';
const WEIGHTS_NAME = 'attention-weights';
const MATRIX_EXPORTS = ['export-png', 'export-svg', 'export-csv', 'export-json'];
const COMPARISON_EXPORTS = ['compare-png', 'compare-svg'];
const UNAVAILABLE_TITLE = 'The matrix shown is greyed: it belongs to settings that failed, so there is nothing to export until they work';
const COMPARISON_UNAVAILABLE_TITLE = 'No comparison of the page\'s settings is shown (see the message above), so there is nothing to export';

/**
 * Binds the export buttons (client: the engine worker; views, comparison: what is on display;
 * status, notices: the page's). Returns {enable(exportable), enableComparison(exportable)}: the
 * matrix's buttons work only while it shows a result of the page's settings (not greyed after an
 * error, not emptied), and the comparison's while it shows A, B and B − A of them (not a
 * message of why not), so that a file never puts old numbers under new settings.
 */
export function bindExports({ client, state, views, comparison, status, notices }) {
  const $ = (id) => document.getElementById(id);

  async function exportWeights(format) {
    const shown = views.shown();
    if (!shown) return;
    const { view: { heads, computed: { n } }, labels } = shown;
    if (heads.length * n * n > EXPORT_MAX_CELLS) {
      notices.add(`${formatCount(heads.length * n * n)} weights are too many for one file (at most ${formatCount(EXPORT_MAX_CELLS)}): ` +
        'show one head, or use a shorter text.');
      return;
    }
    const settings = {
      ...Object.fromEntries(['source', ...PROJECTION_FIELDS].map((field) => [field, state[field]])), ...attentionOptions(state),
    };
    status.progress(`Preparing the ${format.toUpperCase()} file…`);
    try {
      const { value: blob } = await client.request('export', { format, heads, tokens: labels.map((t) => t.text), settings });
      download(blob, `${WEIGHTS_NAME}.${format}`);
      status.done(`Exported ${formatCount(heads.length * n * n)} weights as ${format.toUpperCase()}.`);
    } catch (error) {
      status.done(`The export failed: ${error.message}`, true);
    }
  }

  // The heatmap and the comparison as PNG or SVG: both drawn from the figure (heatmap-svg.js),
  // with its title, axis titles and legend in light colours, whatever the page's scheme.
  const offerFigure = (figure, filename) => {
    if (!figure) return;
    downloadFigure(heatmapSvg(figure), filename).catch((error) => status.done(`The export failed: ${error.message}`, true));
  };
  for (const format of ['png', 'svg']) {
    $(`export-${format}`).addEventListener('click', () => offerFigure(views.figure(), `${HEATMAP_NAME}.${format}`));
    $(`compare-${format}`).addEventListener('click', () => offerFigure(comparison.figure(), `${COMPARISON_NAME}.${format}`));
  }
  $('export-csv').addEventListener('click', () => exportWeights('csv'));
  $('export-json').addEventListener('click', () => exportWeights('json'));

  function enableButtons(ids, exportable, title) {
    for (const id of ids) {
      const button = $(id);
      button.disabled = !exportable;
      if (exportable) button.removeAttribute('title');
      else button.title = title;
    }
  }

  return {
    enable: (exportable) => enableButtons(MATRIX_EXPORTS, exportable, UNAVAILABLE_TITLE),
    enableComparison: (exportable) => enableButtons(COMPARISON_EXPORTS, exportable, COMPARISON_UNAVAILABLE_TITLE),
  };
}
