// The PNG and SVG buttons of a page's charts: a button with data-png or data-svg naming the
// chart (an <svg>, or a <canvas> heatmap whose figure the page gives), data-legend its HTML
// legend (<ul class="chart-legend">) and data-title the element whose text titles the file
// (else the chart's aria-label); a page may give a caption drawn under an <svg> chart's legend.
import { downloadChart, downloadFigure } from './downloads.js';

// A heading's text on one line, a badge in it in parentheses: '5. Published data (not a simulation)'.
function headingText(heading) {
  return [...heading.childNodes]
    .map((node) => (node.nodeType === Node.ELEMENT_NODE && node.classList.contains('badge') ? `(${node.textContent.trim()})` : node.textContent))
    .join('').trim().replace(/\s+/g, ' ');
}

/**
 * Binds every such button of the page; files are named `${prefix}-${chart id}.png|svg`;
 * figures[id]() is the standalone <svg> figure of the canvas chart `id` (null while it shows
 * nothing); caption(id), when given, is the text drawn under the <svg> chart `id`'s legend
 * (the settings that produced it, say); onError(message) says why one could not be made.
 */
export function bindChartExports({ prefix, onError, figures = {}, caption }) {
  const $ = (id) => (id ? document.getElementById(id) : null);
  for (const format of ['png', 'svg']) {
    for (const button of document.querySelectorAll(`button[data-${format}]`)) {
      button.addEventListener('click', () => {
        const target = $(button.dataset[format]);
        const filename = `${prefix}-${target.id}.${format}`;
        const failed = (error) => onError(`The ${format.toUpperCase()} could not be made: ${error.message}`);
        if (target instanceof HTMLCanvasElement) {
          const figure = figures[target.id]?.();
          if (figure) downloadFigure(figure, filename).catch(failed);
          else failed(new Error('the chart shows nothing yet'));
          return;
        }
        const heading = $(button.dataset.title);
        const title = heading ? headingText(heading) : target.getAttribute('aria-label') ?? '';
        downloadChart(target, filename, { legend: $(button.dataset.legend), title, caption: caption?.(target.id) }).catch(failed);
      });
    }
  }
}
