// The lines view, after BertViz's head view: queries on the left, keys on the right, one line
// per pair with its opacity proportional to the attention weight (the strongest line shown is
// opaque, so that the lines of a long input's window stay visible), one colour per head
// (Tableau 10, or hues spread around the wheel for more heads), each head's lines a little
// above or below the others' within a token's row: side by side up to 8 heads, overlapping in
// part beyond (16 heads share 16 pixels), so that one head's lines never hide another's whole.
// Hovering a token, or focusing a query, keeps only its lines; clicking a token (or Enter on
// a query) selects it. The tokens are SVG text (focusable, readable by screen readers); the
// lines, up to heads × 40 × 40 of them, are painted on a canvas behind it, in one path per
// head and step of opacity. The canvas holds device pixels (its CSS size × devicePixelRatio),
// so the lines are sharp on high-DPI screens; it is painted again when the ratio changes
// (another screen, browser zoom) or its frame is resized. A line 2 CSS pixels wide is drawn
// as 2 × devicePixelRatio lines one device pixel wide, one below the other: Skia draws lines
// of one device pixel as hairlines, about 25 times faster than wider strokes of many-segment
// paths (12,800 lines of 8 heads: about 20 ms a pass against 500 ms in Chromium without a GPU).
// Only the odd factor of that count is stroked; the rest comes from drawing the canvas over
// itself, each time as many device pixels lower as it holds hairlines: the same image up to
// rounding, as source-over is associative (those 12,800 lines at a ratio of 2: one stroke and
// two copies, 50 ms, against 170 ms for four strokes). The canvas is painted only while its
// frame is within a screen's height of the viewport (ON_SCREEN_MARGIN), and when it comes
// near: on a phone, where the view is far below the input, typing does not paint lines no one
// sees (a paint of 8 heads' lines is 20–30 ms here, and several strokes at a phone's ratio).
// A new result's lines are painted once the frame that shows the other views has been
// rendered, so that the matrix does not wait for them (at 512 tokens × 8 heads they were 18 of
// the 37–53 ms a keystroke's views took to draw at a ratio of 1); hovering, focusing, a resize
// or a new ratio paint at once.
import { interpolateSinebow, schemeTableau10 } from 'd3-scale-chromatic';
import { select } from 'd3-selection';
import { swatchItem } from '../../shared/heatmap/legend.js';

const ROW_PX = 22;
const HEADER_PX = 26;
const COLUMN_FRACTION = 0.32;   // of the width, for each column of tokens
const MAX_COLUMN_PX = 170;
const TEXT_GAP_PX = 8;
const LINE_PX = 2;                // CSS pixels, drawn as hairlines one below the other
const HEADS_BAND_PX = ROW_PX - 6;  // the heads' lines side by side within this much of a row
const HAIRLINE_PX = 1;            // device pixels: the widest stroke Skia draws as a hairline
// Neither side of the canvas's backing store exceeds this many device pixels (at most 64 MiB
// of RGBA): a wider frame gets fewer device pixels per CSS pixel instead.
const MAX_BACKING_PX = 4096;
const MIN_VISIBLE_OPACITY = 0.02; // fainter lines would not show
const OPACITY_STEPS = 32;         // lines are painted in this many steps of opacity
const MAX_LABEL_CHARS = 18;
const ON_SCREEN_MARGIN = '100% 0px';  // the viewport grown by its height above and below

// Each shown head's colour: Tableau 10 by head number, or, past 10 heads, hues spread evenly.
function headColors(heads) {
  const spread = heads.length > schemeTableau10.length;
  return new Map(heads.map(({ head }, k) => [
    head, spread ? interpolateSinebow(k / heads.length) : schemeTableau10[head % schemeTableau10.length],
  ]));
}

// Writes a token's label into `element`: at most MAX_LABEL_CHARS characters, and fewer while
// it is wider than `room` pixels (its column), cut with an ellipsis.
function fitLabel(element, text, room) {
  const cut = (chars) => (text.length > chars ? `${text.slice(0, chars - 1)}…` : text);
  element.textContent = cut(MAX_LABEL_CHARS);
  for (let chars = Math.min(text.length, MAX_LABEL_CHARS) - 1; chars > 1 && element.getComputedTextLength() > room; --chars) {
    element.textContent = cut(chars);
  }
}

// Device pixels per CSS pixel for a canvas of width × height CSS pixels: the screen's ratio,
// lowered where a side would exceed MAX_BACKING_PX.
function backingRatio(width, height) {
  return Math.min(window.devicePixelRatio || 1, MAX_BACKING_PX / Math.max(width, height, 1));
}

// The heads' colours under the lines (a swatch and "Head h" each), when there is more than one.
function showHeads(legend, heads, colors) {
  legend.hidden = heads.length < 2;
  legend.replaceChildren(...heads.map(({ head }) => swatchItem({ css: colors.get(head), label: `Head ${head + 1}` })));
}

/**
 * Binds to `svg` (the tokens), `canvas` (the lines, under the svg) and `legend` (a list for
 * the heads' colours); returns {draw, clear}: clear() empties the view (no tokens), draw({tokens: [{text, unknown, index}], heads: [{head, weights}], rows, query}):
 * weights rows × tokens, the queries with lines (generation step by step: those fed so far,
 * the others muted); all of them when rows is not given.
 */
export function createLines(svg, canvas, { legend, onSelectQuery }) {
  const root = select(svg);
  const context = canvas.getContext('2d');
  let links = [];    // {head, i, j, opacity}
  let headOffsets = new Map();  // head → its lines' CSS pixels below the row's middle
  let colors = new Map();       // head → its lines' colour
  let geometry = null;
  let model = null;     // the last draw's argument, drawn again when the frame is resized
  let isolated = null;  // {side: 'query' | 'key', position}: the token whose lines alone show, or null
  let onScreen = false;  // whether the frame is within ON_SCREEN_MARGIN of the viewport
  let unpainted = false; // a paint was put off while the frame was off screen
  let afterFrame = null; // {frame, timer}: a paint waiting for the frame being rendered

  // Paints the lines once the frame being rendered has been (a task queued from its animation
  // frame callback), unless a paint comes first.
  function paintAfterFrame() {
    if (afterFrame) return;
    const waiting = { frame: 0, timer: 0 };
    waiting.frame = requestAnimationFrame(() => {
      waiting.timer = setTimeout(paint);
    });
    afterFrame = waiting;
  }

  // Forgets a paint waiting for the next frame (paintAfterFrame's).
  function cancelAfterFrame() {
    if (afterFrame) {
      cancelAnimationFrame(afterFrame.frame);
      clearTimeout(afterFrame.timer);
      afterFrame = null;
    }
  }

  // Paints the lines, or only those of the isolated token, at the current device pixel ratio.
  function paint() {
    cancelAfterFrame();
    unpainted = false;
    const { width, height, left, right, y } = geometry;
    const ratio = backingRatio(width, height);
    canvas.width = Math.round(width * ratio);
    canvas.height = Math.round(height * ratio);
    canvas.style.width = `${width}px`;
    canvas.style.height = `${height}px`;
    // A frame with no room yet (mid-layout) has nothing to paint, and pass 2's drawImage of an
    // empty canvas would throw.
    if (canvas.width === 0 || canvas.height === 0) return;
    context.lineWidth = HAIRLINE_PX / ratio;  // in CSS pixels, the unit of the paths
    const hairlines = Math.max(1, Math.round((LINE_PX * ratio) / HAIRLINE_PX));
    const paths = new Map();  // "head step" → Path2D
    for (const { head, i, j, opacity } of links) {
      if (isolated && (isolated.side === 'query' ? i : j) !== isolated.position) continue;
      const step = Math.round(opacity * OPACITY_STEPS);
      const key = `${head} ${step}`;
      if (!paths.has(key)) paths.set(key, { head, step, path: new Path2D() });
      const { path } = paths.get(key);
      const offset = headOffsets.get(head);
      path.moveTo(left + TEXT_GAP_PX, y(i) + offset);
      path.lineTo(right - TEXT_GAP_PX, y(j) + offset);
    }
    // pass 1: the odd factor of the hairlines by strokes, one device pixel apart
    let strokes = hairlines;
    while (strokes % 2 === 0) strokes /= 2;
    for (let pass = 0; pass < strokes; ++pass) {
      context.setTransform(ratio, 0, 0, ratio, 0, pass * HAIRLINE_PX);  // the offset in device pixels
      for (const { head, step, path } of paths.values()) {
        context.strokeStyle = colors.get(head);
        context.globalAlpha = step / OPACITY_STEPS;
        context.stroke(path);
      }
    }
    // pass 2: the rest by doubling, the canvas drawn over itself just below the hairlines it holds
    context.setTransform(1, 0, 0, 1, 0, 0);
    context.globalAlpha = 1;
    for (let drawn = strokes; drawn < hairlines; drawn *= 2) context.drawImage(canvas, 0, drawn * HAIRLINE_PX);
  }

  // Paints when the frame is on screen (now, or with `later` once the frame being rendered
  // has been), else once it comes near.
  function paintWhenSeen({ later = false } = {}) {
    if (!onScreen) unpainted = true;
    else if (later) paintAfterFrame();
    else paint();
  }

  // Keeps only the lines of a token (a hovered or focused one), or all of them (side null).
  function isolate(side, position) {
    root.selectAll('text.token').classed('active', (d) => d.side === side && d.position === position);
    isolated = side === null ? null : { side, position };
  }

  function draw({ tokens, heads, rows = tokens.length, query }) {
    model = { tokens, heads, rows, query };
    colors = headColors(heads);
    showHeads(legend, heads, colors);
    const spacing = Math.min(LINE_PX, HEADS_BAND_PX / heads.length);
    headOffsets = new Map(heads.map(({ head }, k) => [head, (k - (heads.length - 1) / 2) * spacing]));
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
      for (let i = 0; i < rows; ++i) {
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
      .attr('class', (d) => `token${d.unknown ? ' unknown' : ''}${d.side === 'query' && d.index === query ? ' selected' : ''}` +
        `${d.side === 'query' && d.position >= rows ? ' pending' : ''}`)
      .attr('x', (d) => d.x).attr('y', (d) => y(d.position))
      .attr('text-anchor', (d) => d.anchor)
      .attr('dominant-baseline', 'central')
      .attr('tabindex', (d) => (d.side === 'query' ? 0 : null))
      .attr('role', (d) => (d.side === 'query' ? 'button' : null))
      .attr('aria-label', (d) => (d.side === 'query' ? `query #${d.index} ${d.text}` : null))  // a key reads as its text
      .each(function fit(d) { fitLabel(this, d.text, columnPx); })
      .on('pointerenter focus', (_, d) => {
        isolate(d.side, d.position);
        paint();
      })
      .on('pointerleave blur', () => {
        isolate(null, null);
        paint();
      })
      .on('click', (_, d) => onSelectQuery(d.index))
      .on('keydown', (event, d) => {
        if (event.key !== 'Enter' && event.key !== ' ') return;
        event.preventDefault();
        onSelectQuery(d.index);
      });
    isolate(null, null);
    paintWhenSeen({ later: true });
  }

  // A media query that matches only the current ratio: when it stops matching, paint at the new one.
  function watchRatio() {
    const query = window.matchMedia(`(resolution: ${window.devicePixelRatio || 1}dppx)`);
    query.addEventListener('change', () => {
      watchRatio();
      if (geometry) paintWhenSeen();
    }, { once: true });
  }
  watchRatio();
  new ResizeObserver(() => {
    const width = svg.parentElement.clientWidth;
    if (model && width > 0 && width !== geometry.width) draw(model);
  }).observe(svg.parentElement);
  new IntersectionObserver((entries) => {
    onScreen = entries.at(-1).isIntersecting;  // the latest, when several queued up
    if (onScreen && unpainted) paint();
  }, { rootMargin: ON_SCREEN_MARGIN }).observe(svg.parentElement);
  // printing shows the whole page
  window.addEventListener('beforeprint', () => {
    if (unpainted || afterFrame) paint();
  });

  // No tokens: nothing drawn, nothing to draw again on a resize or a new ratio.
  function clear() {
    cancelAfterFrame();
    model = null;
    geometry = null;
    links = [];
    isolated = null;
    unpainted = false;
    legend.hidden = true;
    root.attr('height', 0).selectAll('*').remove();
    canvas.width = 0;
    canvas.height = 0;
    canvas.style.height = '0px';
  }

  return { draw, clear };
}
