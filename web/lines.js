// The lines view, after BertViz's head view: queries on the left, keys on the right, one line
// per pair with its opacity proportional to the attention weight (the strongest line shown is
// opaque, so that the lines of a long input's window stay visible), one colour per head.
// Hovering a token, or focusing a query, keeps only its lines; clicking a token (or Enter on
// a query) selects it.
import { schemeTableau10 } from 'd3-scale-chromatic';
import { select } from 'd3-selection';

const ROW_PX = 22;
const HEADER_PX = 26;
const COLUMN_FRACTION = 0.32;   // of the width, for each column of tokens
const MAX_COLUMN_PX = 170;
const TEXT_GAP_PX = 8;
const LINE_PX = 2;
const MIN_VISIBLE_OPACITY = 0.02; // fainter lines would not show; skipping them keeps the SVG small
const MAX_LABEL_CHARS = 18;

const headColor = (head) => schemeTableau10[head % schemeTableau10.length];

function label(text) {
  return text.length > MAX_LABEL_CHARS ? `${text.slice(0, MAX_LABEL_CHARS - 1)}…` : text;
}

/** Binds to `svg`; returns draw({tokens: [{text, unknown, index}], heads: [{head, weights}], query}). */
export function createLines(svg, { onSelectQuery }) {
  const root = select(svg);

  function isolate(side, index) {
    root.classed('isolating', side !== null);
    root.selectAll('line.link').classed('active', (d) => (side === 'query' ? d.i === index : d.j === index));
    root.selectAll('text.token').classed('active', (d) => d.side === side && d.position === index);
  }

  return function draw({ tokens, heads, query }) {
    const width = svg.parentElement.clientWidth;
    const count = tokens.length;
    const columnPx = Math.min(MAX_COLUMN_PX, Math.floor(width * COLUMN_FRACTION));
    const height = HEADER_PX + count * ROW_PX;
    const y = (position) => HEADER_PX + (position + 0.5) * ROW_PX;
    const left = columnPx;
    const right = width - columnPx;
    root.attr('width', width).attr('height', height).attr('viewBox', `0 0 ${width} ${height}`);

    root.selectAll('text.heading').data([['Queries', left, 'end'], ['Keys', right, 'start']])
      .join('text').attr('class', 'heading')
      .attr('x', (d) => d[1]).attr('y', HEADER_PX / 2).attr('text-anchor', (d) => d[2])
      .text((d) => d[0]);

    let strongest = 0;
    for (const { weights } of heads) {
      for (const weight of weights) if (weight > strongest) strongest = weight;
    }
    const links = [];
    for (const { head, weights } of heads) {
      for (let i = 0; i < count; ++i) {
        for (let j = 0; j < count; ++j) {
          const opacity = Math.min(1, weights[i * count + j] / strongest);
          if (opacity >= MIN_VISIBLE_OPACITY) links.push({ head, i, j, opacity });
        }
      }
    }
    root.selectAll('g.links').data([null]).join('g').attr('class', 'links')
      .selectAll('line.link').data(links).join('line')
      .attr('class', 'link')
      .attr('x1', left + TEXT_GAP_PX).attr('x2', right - TEXT_GAP_PX)
      .attr('y1', (d) => y(d.i)).attr('y2', (d) => y(d.j))
      .attr('stroke', (d) => headColor(d.head))
      .attr('stroke-width', LINE_PX)
      .attr('stroke-opacity', (d) => d.opacity);

    const items = tokens.flatMap((token, position) => [
      { ...token, position, side: 'query', x: left, anchor: 'end' },
      { ...token, position, side: 'key', x: right, anchor: 'start' },
    ]);
    root.selectAll('text.token').data(items).join('text')
      .attr('class', (d) => `token${d.unknown ? ' unknown' : ''}${d.side === 'query' && d.index === query ? ' selected' : ''}`)
      .attr('x', (d) => d.x).attr('y', (d) => y(d.position))
      .attr('text-anchor', (d) => d.anchor)
      .attr('dominant-baseline', 'central')
      .attr('tabindex', (d) => (d.side === 'query' ? 0 : null))
      .attr('role', (d) => (d.side === 'query' ? 'button' : null))
      .attr('aria-label', (d) => `${d.side} #${d.index} ${d.text}`)
      .text((d) => label(d.text))
      .on('pointerenter focus', (_, d) => isolate(d.side, d.position))
      .on('pointerleave blur', () => isolate(null, null))
      .on('click', (_, d) => onSelectQuery(d.index))
      .on('keydown', (event, d) => {
        if (event.key !== 'Enter' && event.key !== ' ') return;
        event.preventDefault();
        onSelectQuery(d.index);
      });
    isolate(null, null);
  };
}
