// The lines view, after BertViz's head view: queries on the left, keys on the right, one line
// per pair with its opacity proportional to the attention weight (the strongest line shown is
// opaque, so that the lines of a long input's window stay visible), one colour per head.
// Hovering a token, or focusing a query, keeps only its lines; clicking a token (or Enter on
// a query) selects it. The tokens are SVG text (focusable, readable by screen readers); the
// lines, up to heads × 40 × 40 of them, are painted on a canvas behind it, in one path per
// head and step of opacity. A line 2 pixels wide is drawn as two 1-pixel lines a pixel
// apart, on a canvas of CSS pixels: Skia draws 1-pixel lines as hairlines, about 25 times
// faster than wider strokes of many-segment paths (12,800 lines of 8 heads: about 20 ms a
// pass against 500 ms in Chromium without a GPU).
import { schemeTableau10 } from 'd3-scale-chromatic';
import { select } from 'd3-selection';

const ROW_PX = 22;
const HEADER_PX = 26;
const COLUMN_FRACTION = 0.32;   // of the width, for each column of tokens
const MAX_COLUMN_PX = 170;
const TEXT_GAP_PX = 8;
const LINE_PX = 2;                // drawn as this many hairlines, one below the other
const HAIRLINE_PX = 1;
const MIN_VISIBLE_OPACITY = 0.02; // fainter lines would not show
const OPACITY_STEPS = 32;         // lines are painted in this many steps of opacity
const MAX_LABEL_CHARS = 18;

const headColor = (head) => schemeTableau10[head % schemeTableau10.length];

function label(text) {
  return text.length > MAX_LABEL_CHARS ? `${text.slice(0, MAX_LABEL_CHARS - 1)}…` : text;
}

/**
 * Binds to `svg` (the tokens) and `canvas` (the lines, under the svg); returns
 * draw({tokens: [{text, unknown, index}], heads: [{head, weights}], query}).
 */
export function createLines(svg, canvas, { onSelectQuery }) {
  const root = select(svg);
  const context = canvas.getContext('2d');
  let links = [];    // {head, i, j, opacity}
  let geometry = null;

  // Paints the lines, or only those of one token: isolated = {side: 'query' | 'key', position} or null.
  function paint(isolated) {
    const { width, height, left, right, y } = geometry;
    canvas.width = width;  // CSS pixels at any device pixel ratio, so that lines stay hairlines
    canvas.height = height;
    canvas.style.width = `${width}px`;
    canvas.style.height = `${height}px`;
    context.lineWidth = HAIRLINE_PX;
    const paths = new Map();  // "head step" → Path2D
    for (const { head, i, j, opacity } of links) {
      if (isolated && (isolated.side === 'query' ? i : j) !== isolated.position) continue;
      const step = Math.round(opacity * OPACITY_STEPS);
      const key = `${head} ${step}`;
      if (!paths.has(key)) paths.set(key, { head, step, path: new Path2D() });
      const { path } = paths.get(key);
      path.moveTo(left + TEXT_GAP_PX, y(i));
      path.lineTo(right - TEXT_GAP_PX, y(j));
    }
    for (let pass = 0; pass < LINE_PX; ++pass) {
      context.setTransform(1, 0, 0, 1, 0, pass * HAIRLINE_PX);
      for (const { head, step, path } of paths.values()) {
        context.strokeStyle = headColor(head);
        context.globalAlpha = step / OPACITY_STEPS;
        context.stroke(path);
      }
    }
    context.setTransform(1, 0, 0, 1, 0, 0);
    context.globalAlpha = 1;
  }

  function isolate(side, position) {
    root.selectAll('text.token').classed('active', (d) => d.side === side && d.position === position);
    paint(side === null ? null : { side, position });
  }

  return function draw({ tokens, heads, query }) {
    const width = svg.parentElement.clientWidth;
    const count = tokens.length;
    const columnPx = Math.min(MAX_COLUMN_PX, Math.floor(width * COLUMN_FRACTION));
    const height = HEADER_PX + count * ROW_PX;
    const y = (position) => HEADER_PX + (position + 0.5) * ROW_PX;
    const left = columnPx;
    const right = width - columnPx;
    geometry = { width, height, left, right, y };
    root.attr('width', width).attr('height', height).attr('viewBox', `0 0 ${width} ${height}`);

    root.selectAll('text.heading').data([['Queries', left, 'end'], ['Keys', right, 'start']])
      .join('text').attr('class', 'heading')
      .attr('x', (d) => d[1]).attr('y', HEADER_PX / 2).attr('text-anchor', (d) => d[2])
      .text((d) => d[0]);

    let strongest = 0;
    for (const { weights } of heads) {
      for (const weight of weights) if (weight > strongest) strongest = weight;
    }
    links = [];
    for (const { head, weights } of heads) {
      for (let i = 0; i < count; ++i) {
        for (let j = 0; j < count; ++j) {
          const opacity = Math.min(1, weights[i * count + j] / strongest);
          if (opacity >= MIN_VISIBLE_OPACITY) links.push({ head, i, j, opacity });
        }
      }
    }

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
