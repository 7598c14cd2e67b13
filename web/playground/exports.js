// The export buttons: the heatmap as PNG, and the weights and scores of the heads on display
// as CSV or JSON, formatted in the worker (weights-export.js) and offered as a download.
import { download, downloadCanvas } from '../shared/downloads.js';
import { formatCount } from '../shared/format.js';
import { PROJECTION_FIELDS, attentionOptions } from './state.js';

const EXPORT_MAX_CELLS = 2 ** 24;    // heads × n × n of one CSV or JSON export
const PNG_NAME = 'attention-heatmap.png';
const WEIGHTS_NAME = 'attention-weights';

/** Binds the export buttons (client: the engine worker; views: what is on display; status, notices: the page's). */
export function bindExports({ client, state, views, status, notices }) {
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

  $('export-png').addEventListener('click', () => {
    if (views.shown()) downloadCanvas($('heatmap'), PNG_NAME);
  });
  $('export-csv').addEventListener('click', () => exportWeights('csv'));
  $('export-json').addEventListener('click', () => exportWeights('json'));
}
