// The attention matrix on a canvas: one panel per head on display (small multiples, or one
// large), cells filled through ImageData from the precomputed colour table (one 32-bit write
// per cell) and scaled up without smoothing, masked cells hatched, token labels thinned to
// what fits (but for the tokens that stand out), the selected query row outlined, marked
// columns (such as the tokens a query should find) outlined too, and optionally a strip along
// each axis that colours every token by its kind (the Train page's keys, values, separator
// and query), which labels thinned to every other token cannot tell apart. A panel's cell
// image is made once per colour mapping, so hovering, selecting a query or resizing only repaints.
// Pointer and keyboard: hover or arrow keys show a cell in the tooltip, click or Enter
// selects the query row, Ctrl + wheel or + / − / 0 zoom. Long inputs arrive already pooled into
// blocks (the engine's poolBlocks, in the worker); labels and hit tests work in token positions
// either way.
import {
  COLOR_SCALES, HATCH_LINE_PX, HATCH_PX, MASKED, SPECIAL_COLORS, colorSteps,
} from './colors.js';
import { formatNumber, powerOfTen } from '../format.js';

const FONT_PX = 12;
const LABEL_SPACING = 1.3;       // label pitch, in font heights, when thinning
// the closest pitch of two standout labels, in font heights: the height of digits and lower case
const STANDOUT_SPACING = 0.8;
const LABEL_GAP_PX = 6;          // between a label and the matrix
const MAX_LABEL_CHARS = 14;      // longer tokens are cut with an ellipsis
const MAX_LABEL_PX = 110;
const TITLE_PX = 22;             // the "Head h" line above a panel
const FRAME_PX = 3;              // a panel's frame, when it has one
const FRAME_GAP_PX = 2;          // between the frame and the cells (inside LABEL_GAP_PX)
const FRAME_MARGIN_PX = 4;       // a frame's reach past the cells: FRAME_GAP_PX + FRAME_PX / 2, rounded up
export const KIND_STRIP_PX = 5;  // the strip of token kinds along each axis (model.kinds)
const KIND_GAP_PX = 2;           // between the strip and the cells, or their frame
const MAX_SIDE_PX = 760;         // the matrix of a single panel
const MAX_CELL_PX = 56;          // short inputs get cells up to this size, not the whole width
const MIN_PANEL_SIDE_PX = 150;   // small multiples go to fewer columns rather than below this
const PANEL_GAP_PX = 18;
const OUTLINE_PX = 2;
export const PENDING_DASH = [4, 3];  // the outline of the rows not fed yet, in CSS pixels
const PENDING_MIN_PX = 2;        // a thinner band of rows not fed yet is not outlined
const PENDING_NAME_GAP_PX = 4;   // the band's name keeps this much room around it
export const MIN_ZOOM_TOKENS = 8;  // zooming in stops at this many rows
export const ZOOM_STEP = 2;
const TOOLTIP_OFFSET_PX = 14;
// A log colour scale of weights reaches down to a hundredth of an even share of the n keys, 1/n,
// rounded down to a power of ten (which the legend then labels): a key weighed a hundred times
// less than an even share adds under 1% of one to the context. Below that the scale would spend
// its colours on keys the query all but ignores, and exp's underflow (1e-30, 1e-45) would stretch
// it over dozens of decades and squeeze what matters (the diagonal, a sink) into its top colours.
const LOG_FLOOR_SHARE = 100;
const LOW_END_DIGITS = 2;  // significant digits of a log scale's low end above the floor

/**
 * The square region after zooming `region` of an n×n matrix by `factor` (> 1 zooms in)
 * around cell (i, j), which stays where it is on screen; null when it covers everything.
 */
export function zoomRegion({ row0, col0, size }, n, i, j, factor) {
  const next = Math.max(Math.min(MIN_ZOOM_TOKENS, n), Math.min(n, Math.round(size / factor)));
  if (next === n) return null;
  const clamp = (start) => Math.max(0, Math.min(n - next, Math.round(start)));
  return { row0: clamp(i - ((i - row0) * next) / size), col0: clamp(j - ((j - col0) * next) / size), size: next };
}

/** [lo, hi] of the finite, unmasked values of the panels; weights always include 0. */
export function colorDomain(panels, value) {
  let lo = value === 'weights' ? 0 : Infinity;
  let hi = value === 'weights' ? 0 : -Infinity;
  for (const panel of panels) {
    const values = panel[value];
    for (let k = 0; k < values.length; ++k) {
      if (panel.masked[k] || !Number.isFinite(values[k])) continue;
      if (values[k] < lo) lo = values[k];
      if (values[k] > hi) hi = values[k];
    }
  }
  if (!Number.isFinite(lo)) return [0, 1];
  return hi > lo ? [lo, hi] : [lo, lo + 1];
}

/**
 * The share of the panels' finite, unmasked values in the lowest `fraction` of the linear domain
 * [lo, hi]: how much of the heatmap its darkest colours draw (0 when nothing is drawn).
 */
export function lowShare(panels, value, [lo, hi], fraction) {
  const below = lo + (hi - lo) * fraction;
  let low = 0;
  let drawn = 0;
  for (const panel of panels) {
    const values = panel[value];
    for (let k = 0; k < values.length; ++k) {
      if (panel.masked[k] || !Number.isFinite(values[k])) continue;
      drawn += 1;
      if (values[k] < below) low += 1;
    }
  }
  return drawn === 0 ? 0 : low / drawn;
}

/**
 * [lo, hi] of a log colour scale of the panels' weights, shown from an input of n tokens: hi the
 * largest finite, unmasked weight, lo the smallest above 0, raised to the floor (the power of ten
 * at or below 1 / (LOG_FLOOR_SHARE · n)) where the floor cuts inside them; a decade below hi when
 * every weight shown is the same. Weights under lo take lo's colour (colorSteps).
 */
export function logColorDomain(panels, n) {
  const floor = powerOfTen(-Math.ceil(Math.log10(LOG_FLOOR_SHARE * n)));
  let smallest = Infinity;
  let largest = 0;
  for (const { weights, masked } of panels) {
    for (let k = 0; k < weights.length; ++k) {
      const w = weights[k];
      if (masked[k] || !(w > 0) || w === Infinity) continue;
      if (w < smallest) smallest = w;
      if (w > largest) largest = w;
    }
  }
  if (largest === 0) return [floor, 1];  // no weight above 0 on display: any domain colours them alike
  const lo = smallest < floor && floor < largest ? floor : roundedDown(smallest);
  return lo < largest ? [lo, largest] : [roundedDown(largest / 10), largest];
}

// x > 0 rounded down to LOW_END_DIGITS significant digits: a low end the legend can name exactly
// ("≤ 0.012") with every weight above it still above it.
function roundedDown(x) {
  const exponent = Math.floor(Math.log10(x)) - (LOW_END_DIGITS - 1);
  const down = Number(`${Math.floor(x / powerOfTen(exponent))}e${exponent}`);
  return down <= x ? down : Number(`${Math.floor(x / powerOfTen(exponent)) - 1}e${exponent}`);
}

/**
 * How far from the cells a panel's strip of token kinds and its labels start, in pixels:
 * {strip, labels}. The strip (when there are kinds) lies outside the panels' frame, which
 * reaches frameReach past the cells (0 without one); the labels LABEL_GAP_PX beyond the strip,
 * or from the cells without one. The canvas and the SVG figure lay their axes out by it, each
 * with its own frame's reach.
 */
export function axisInsets({ kinds, frameReach = 0 }) {
  const strip = frameReach + KIND_GAP_PX;
  return { strip, labels: kinds ? strip + KIND_STRIP_PX + LABEL_GAP_PX : LABEL_GAP_PX };
}

/**
 * labelledPositions's steps for labels `fontPx` high on cells `cellPx` wide: {step, standoutStep},
 * in tokens. The canvas and the SVG figure, each with its own font, both thin by these.
 */
export function labelSteps(fontPx, cellPx) {
  return {
    step: Math.max(1, Math.ceil((fontPx * LABEL_SPACING) / cellPx)),
    standoutStep: Math.max(1, Math.ceil((fontPx * STANDOUT_SPACING) / cellPx)),
  };
}

/**
 * The token positions of [start, start + count) that get a label when only every step-th fits:
 * the standouts there (the selected query, then marked tokens, in that order of precedence),
 * each that keeps `standoutStep` (≤ step: standouts may stand closer than the thinned grid,
 * but not over each other) away from those before it, and every step-th position that keeps
 * `step` away from them. The canvas and the SVG figure (heatmap-svg.js) both label these,
 * their standouts the selected query, the marked tokens and the pinned ones (model.pinned).
 */
export function labelledPositions(start, count, step, standouts, standoutStep = step) {
  const end = start + count;
  const kept = [];
  for (const s of standouts) {
    if (s >= start && s < end && kept.every((k) => Math.abs(s - k) >= standoutStep)) kept.push(s);
  }
  const labels = [...kept];
  for (let t = Math.ceil(start / step) * step; t < end; t += step) {
    if (kept.every((s) => Math.abs(t - s) >= step)) labels.push(t);
  }
  return labels.sort((a, b) => a - b);
}

/** A token's text as a label: cut with an ellipsis past MAX_LABEL_CHARS. */
export function tokenLabel(text) {
  return text.length > MAX_LABEL_CHARS ? `${text.slice(0, MAX_LABEL_CHARS - 1)}…` : text;
}

/**
 * The name of the region's rows not fed yet in generation step by step (rows first … last):
 * "query #8: not fed yet", "queries #8–#9: not fed yet".
 */
export function pendingLabel(first, last) {
  return first === last ? `query #${first}: not fed yet` : `queries #${first}–#${last}: not fed yet`;
}

/**
 * What a band of rows not fed yet, heightPx × sidePx, shows: {outlined} when it is tall enough
 * for an outline, and {named} when its name (nameWidthPx wide, in a font of fontPx) fits inside.
 */
export function pendingBand(heightPx, sidePx, nameWidthPx, fontPx) {
  const outlined = heightPx >= PENDING_MIN_PX;
  const named = outlined && heightPx >= fontPx + 2 * PENDING_NAME_GAP_PX && nameWidthPx <= sidePx - 2 * PENDING_NAME_GAP_PX;
  return { outlined, named };
}

function cssColor(name) {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim();
}

/**
 * One image of a panel's cells, 1 pixel per cell, on a canvas: `values` (cellRows×cellCols,
 * row-major) on the colour scale `scale` ('sequential' or 'diverging') over `domain`, [lo, hi],
 * linear or with `log` logarithmic (colorSteps); masked cells stay transparent.
 */
export function cellImage({ cellRows, cellCols, masked }, values, domain, scale = 'sequential', log = false) {
  const image = new ImageData(cellCols, cellRows);
  const pixels = new Uint32Array(image.data.buffer);
  const { words } = COLOR_SCALES[scale];
  const stepOf = colorSteps(domain, log);
  const nan = SPECIAL_COLORS.nan.word;
  const infinity = SPECIAL_COLORS.infinity.word;
  for (let k = 0; k < values.length; ++k) {
    const v = values[k];
    if (masked[k]) {
      pixels[k] = MASKED.word;
    } else if (v - v !== 0) {  // NaN or ±Infinity: v − v is NaN for both, 0 for every finite v
      pixels[k] = Number.isNaN(v) ? nan : infinity;
    } else {
      pixels[k] = words[stepOf(v)];
    }
  }
  const canvas = document.createElement('canvas');
  canvas.width = cellCols;
  canvas.height = cellRows;
  canvas.getContext('2d').putImageData(image, 0, 0);
  return canvas;
}

// The hatching under masked cells: one period of diagonal lines, repeated.
function hatchPattern(context, back, stroke) {
  const tile = document.createElement('canvas');
  tile.width = HATCH_PX;
  tile.height = HATCH_PX;
  const draw = tile.getContext('2d');
  draw.fillStyle = back;
  draw.fillRect(0, 0, HATCH_PX, HATCH_PX);
  draw.strokeStyle = stroke;
  draw.lineWidth = HATCH_LINE_PX;
  draw.beginPath();
  // the line through the tile, and the two corners of its neighbours, so that tiles join up
  for (const offset of [-HATCH_PX, 0, HATCH_PX]) {
    draw.moveTo(offset, HATCH_PX);
    draw.lineTo(offset + HATCH_PX, 0);
  }
  draw.stroke();
  return context.createPattern(tile, 'repeat');
}

/**
 * Binds the heatmap to `canvas`, its tooltip element, and callbacks: onSelectQuery(i), and
 * onZoom({i, j, factor}) to zoom around cell (i, j), or onZoom(null) for the whole matrix.
 * Returns {draw(model)}. A model is
 *   {tokens: [{text, unknown}], n, region: {row0, col0, size}, block, pooling, query,
 *    panels: [{head, heads, cellRows, cellCols, scores, weights, masked, title, frame}], value, domain,
 *    marked, names, columns, compare}.
 * Optional: rows, how many rows from the region's first are drawn (default all of them: generation
 * step by step shows the rows fed so far, and outlines and names the rest); a panel's title
 * (default "Head h of H"); its frame, a CSS colour drawn around the panel and its title (panels
 * that belong together: heads sharing a key/value head); its scores (without them the tooltip
 * shows the weight alone); its colour scale, 'sequential' (default) or 'diverging', and its own
 * domain and log (default the model's); the model's log: whether the colours follow the values'
 * logarithm over the domain (colors.js colorSteps; default false, linear); compare: the panels are A, B and B − A of one head, and the
 * tooltip shows the cell in all three; marked, token positions whose columns are outlined and
 * whose labels are always drawn and stand out; pinned, token positions whose labels are drawn
 * whenever there is room, after the query's and the marked ones (the Train page's separator);
 * kinds {of: a kind's index per token, list: [{name, color}], heading}, each token's kind, drawn
 * as a strip of colour along each axis (color: a CSS custom property, '--token-key', so that it
 * follows the colour scheme; heading, the kinds' legend's in the SVG figure); names {query,
 * key}, what the tooltip calls a row and a column (default 'query', 'key'); numberFrom, the number the tooltip gives the first
 * token (default 0); columns, the most panels side by side (default: as many as fit).
 */
export function createHeatmap(canvas, tooltip, { onSelectQuery, onZoom }) {
  const context = canvas.getContext('2d');
  let model = null;
  let images = [];    // one canvas of cells per panel
  const imageCache = new WeakMap();  // a panel's scores or weights → {lo, hi, log, image}
  let hatch = null;   // {colors, pattern}
  let labelWidth = 0; // of the widest row label, measured once per model
  let layout = null;
  let cursor = null;  // {panel, i, j}: the cell under the pointer or the keyboard cursor
  let marked = new Set();  // token positions whose columns are outlined

  // How many of the region's rows are drawn, from its first.
  const drawnRows = () => Math.min(model.region.size, model.rows ?? model.region.size);

  // The panel's cell image for this colour mapping, made again only when the mapping changed.
  function cachedImage(panel, value, [lo, hi], log) {
    const key = panel[value];
    const cached = imageCache.get(key);
    if (cached?.lo === lo && cached.hi === hi && cached.log === log) return cached.image;
    const image = cellImage(panel, key, [lo, hi], panel.scale, log);
    imageCache.set(key, { lo, hi, log, image });
    return image;
  }

  function measureLabels() {
    context.font = `bold ${FONT_PX}px system-ui, sans-serif`;  // the widest style a label takes
    const { row0, size } = model.region;
    let widest = 0;
    const step = Math.max(1, Math.ceil(size / MAX_SIDE_PX));
    for (let t = row0; t < row0 + size; t += step) {
      widest = Math.max(widest, context.measureText(tokenLabel(model.tokens[t].text)).width);
      if (widest >= MAX_LABEL_PX) return MAX_LABEL_PX;
    }
    return Math.ceil(widest);
  }

  // A frame's reach past the cells, when the panels have one; from the cells to the strip of
  // kinds and to the labels, outside it.
  const frameReach = () => (model.panels.some((panel) => panel.frame) ? FRAME_MARGIN_PX : 0);
  const insets = () => axisInsets({ kinds: model.kinds, frameReach: frameReach() });

  function computeLayout(width) {
    const labelPx = labelWidth + insets().labels;
    // Framed panels keep room for the frame after their cells (before them the label gap holds it).
    const framePx = frameReach();
    const count = model.panels.length;
    const columns = count === 1 ? 1
      : Math.max(1, Math.min(count, model.columns ?? count,
        Math.floor((width + PANEL_GAP_PX) / (labelPx + MIN_PANEL_SIDE_PX + framePx + PANEL_GAP_PX))));
    const side = Math.max(1, Math.min(MAX_SIDE_PX, model.region.size * MAX_CELL_PX,
      Math.floor((width - columns * (labelPx + framePx) - (columns - 1) * PANEL_GAP_PX) / columns)));
    const panelHeight = TITLE_PX + labelPx + side + framePx;
    const rects = model.panels.map((_, p) => {
      const column = p % columns;
      const row = Math.floor(p / columns);
      return {
        x: column * (labelPx + side + framePx + PANEL_GAP_PX) + labelPx,
        y: row * (panelHeight + PANEL_GAP_PX) + TITLE_PX + labelPx,
      };
    });
    const rows = Math.ceil(count / columns);
    return { labelPx, side, rects, height: rows * panelHeight + (rows - 1) * PANEL_GAP_PX };
  }

  function drawLabels(rect, cellPx, colors) {
    const { row0, col0, size } = model.region;
    const { step, standoutStep } = labelSteps(FONT_PX, cellPx);
    const gap = insets().labels;
    const standouts = [model.query, ...marked, ...(model.pinned ?? [])];
    const shown = (start, count) => labelledPositions(start, count, step, standouts, standoutStep);
    const style = (t) => {
      const token = model.tokens[t];
      const selected = t === model.query || marked.has(t);
      context.font = `${token.unknown ? 'italic ' : ''}${selected ? 'bold ' : ''}${FONT_PX}px system-ui, sans-serif`;
      context.fillStyle = selected ? colors.accent : token.unknown ? colors.unknown : colors.text;
      return tokenLabel(token.text);
    };
    context.textBaseline = 'middle';
    context.textAlign = 'right';
    for (const t of shown(row0, drawnRows())) {
      context.fillText(style(t), rect.x - gap, rect.y + (t - row0 + 0.5) * cellPx, MAX_LABEL_PX);
    }
    context.textAlign = 'left';
    const columns = shown(col0, size);
    for (const t of columns) {
      context.save();
      context.translate(rect.x + (t - col0 + 0.5) * cellPx, rect.y - gap);
      context.rotate(-Math.PI / 2);
      context.fillText(style(t), 0, 0, MAX_LABEL_PX);
      context.restore();
    }
    return columns;
  }

  // The strip of token kinds left of the drawn rows and above the columns, a cell's width per
  // token, in each kind's colour (kindColors, resolved from the CSS once per render).
  function drawKinds(rect, cellPx, rows, kindColors) {
    const { row0, col0, size } = model.region;
    const { strip } = insets();
    const { of } = model.kinds;
    for (let t = row0; t < row0 + rows; ++t) {
      context.fillStyle = kindColors[of[t]];
      context.fillRect(rect.x - strip - KIND_STRIP_PX, rect.y + (t - row0) * cellPx, KIND_STRIP_PX, cellPx);
    }
    for (let t = col0; t < col0 + size; ++t) {
      context.fillStyle = kindColors[of[t]];
      context.fillRect(rect.x + (t - col0) * cellPx, rect.y - strip - KIND_STRIP_PX, cellPx, KIND_STRIP_PX);
    }
  }

  // The band of rows not fed yet under every panel (generation step by step), below the `rows`
  // drawn: {top, height} from a panel's corner, its name and whether the name fits; null when
  // every row is drawn or the band is too thin to outline.
  function pendingBandOf(rows, cellPx) {
    const { row0, size } = model.region;
    if (rows >= size) return null;
    context.font = `${FONT_PX}px system-ui, sans-serif`;
    const name = pendingLabel(row0 + rows, row0 + size - 1);
    const height = (size - rows) * cellPx;
    const { outlined, named } = pendingBand(height, layout.side, context.measureText(name).width, FONT_PX);
    return outlined ? { top: rows * cellPx, height, name, named } : null;
  }

  // A panel's band of rows not fed yet: a dashed outline, and its name inside when it fits.
  function drawPending(rect, { top, height, name, named }, color) {
    context.save();
    context.strokeStyle = color;
    context.lineWidth = 1;
    context.setLineDash(PENDING_DASH);
    context.strokeRect(rect.x + 0.5, rect.y + top + 0.5, layout.side - 1, height - 1);
    if (named) {
      context.font = `${FONT_PX}px system-ui, sans-serif`;
      context.fillStyle = color;
      context.textAlign = 'center';
      context.textBaseline = 'middle';
      context.fillText(name, rect.x + layout.side / 2, rect.y + top + height / 2);
    }
    context.restore();
  }

  function outline(rect, cellPx, i, j, rows, cols, color) {
    const { row0, col0 } = model.region;
    context.strokeStyle = color;
    context.lineWidth = OUTLINE_PX;
    context.strokeRect(rect.x + (j - col0) * cellPx, rect.y + (i - row0) * cellPx,
      Math.max(cols * cellPx, OUTLINE_PX), Math.max(rows * cellPx, OUTLINE_PX));
  }

  function render() {
    if (!model) return;
    const width = canvas.parentElement.clientWidth;
    layout = computeLayout(width);
    const ratio = window.devicePixelRatio || 1;
    canvas.width = Math.round(width * ratio);
    canvas.height = Math.round(layout.height * ratio);
    canvas.style.height = `${layout.height}px`;
    context.setTransform(ratio, 0, 0, ratio, 0, 0);
    context.clearRect(0, 0, width, layout.height);
    const colors = {
      text: cssColor('--text'), unknown: cssColor('--unknown'), accent: cssColor('--accent'), muted: cssColor('--muted'),
      maskedBack: cssColor('--masked-back'), maskedLine: cssColor('--masked-line'),
    };
    const hatchColors = `${colors.maskedBack} ${colors.maskedLine}`;
    if (hatch?.colors !== hatchColors) hatch = { colors: hatchColors, pattern: hatchPattern(context, colors.maskedBack, colors.maskedLine) };
    const { row0, col0, size } = model.region;
    const cellPx = layout.side / size;
    const rows = drawnRows();
    const pending = pendingBandOf(rows, cellPx);
    const kindColors = model.kinds?.list.map(({ color }) => cssColor(color));
    let labelled = [];  // the columns labelled (every panel labels the same)
    model.panels.forEach((panel, p) => {
      const rect = layout.rects[p];
      context.font = `600 ${FONT_PX + 1}px system-ui, sans-serif`;
      context.fillStyle = panel.frame ?? colors.muted;
      context.textAlign = 'left';
      context.textBaseline = 'alphabetic';
      context.fillText(panel.title ?? `Head ${panel.head + 1} of ${panel.heads}`, rect.x, rect.y - layout.labelPx - TITLE_PX / 3);
      context.imageSmoothingEnabled = false;
      context.save();
      context.beginPath();
      context.rect(rect.x, rect.y, layout.side, rows * cellPx);
      context.clip();
      context.fillStyle = hatch.pattern;
      context.fillRect(rect.x, rect.y, layout.side, rows * cellPx);
      const blockPx = model.block * cellPx;
      context.drawImage(images[p], rect.x, rect.y, panel.cellCols * blockPx, panel.cellRows * blockPx);
      context.restore();
      if (pending) drawPending(rect, pending, colors.muted);
      if (panel.frame) {
        context.strokeStyle = panel.frame;
        context.lineWidth = FRAME_PX;
        context.strokeRect(rect.x - FRAME_GAP_PX, rect.y - FRAME_GAP_PX, layout.side + 2 * FRAME_GAP_PX, layout.side + 2 * FRAME_GAP_PX);
      }
      if (kindColors) drawKinds(rect, cellPx, rows, kindColors);
      labelled = drawLabels(rect, cellPx, colors);
      if (model.query >= row0 && model.query < row0 + rows) {
        outline(rect, cellPx, model.query, col0, 1, size, colors.accent);
      }
      for (const t of marked) {
        if (t >= col0 && t < col0 + size) outline(rect, cellPx, row0, t, rows, 1, colors.accent);
      }
      if (cursor?.panel === p) outline(rect, cellPx, cursor.i, cursor.j, 1, 1, colors.text);
    });
    canvas.dataset.rows = String(rows);
    // the first panel's outline of the rows not fed yet, in CSS pixels: "x y width height", or none
    if (pending) {
      const { x, y } = layout.rects[0];
      canvas.dataset.pending = [x, y + pending.top, layout.side, pending.height].join(' ');
    } else delete canvas.dataset.pending;
    canvas.dataset.cols = String(size);
    canvas.dataset.heads = String(model.panels.length);
    canvas.dataset.block = String(model.block);
    canvas.dataset.marked = [...marked].sort((a, b) => a - b).join(',');
    canvas.dataset.labelled = labelled.join(',');
  }

  // Token position under a CSS-pixel point: {panel, i, j}, or {panel, i, j: null} over the row labels.
  function hit(x, y) {
    if (!layout) return null;
    const { row0, col0, size } = model.region;
    const cellPx = layout.side / size;
    for (let p = 0; p < layout.rects.length; ++p) {
      const rect = layout.rects[p];
      const i = row0 + Math.floor((y - rect.y) / cellPx);
      if (i < row0 || i >= row0 + drawnRows() || x < rect.x - layout.labelPx || x >= rect.x + layout.side) continue;
      const j = x < rect.x ? null : col0 + Math.floor((x - rect.x) / cellPx);
      return { panel: p, i, j };
    }
    return null;
  }

  // The tooltip's lines of a panel's cell k (and its data-score, data-weight).
  function valueLines(panel, k) {
    const scores = panel.scores !== undefined;
    tooltip.dataset.head = String(panel.head);
    tooltip.dataset.weight = String(panel.weights[k]);
    if (scores) tooltip.dataset.score = String(panel.scores[k]);
    else delete tooltip.dataset.score;
    if (panel.masked[k]) return [scores ? 'masked: score -Infinity, weight 0' : 'masked: weight 0'];
    return [...(scores ? [`score ${formatNumber(panel.scores[k])}`] : []), `weight ${formatNumber(panel.weights[k])}`];
  }

  // In a comparison (panels A, B, B − A), cell k of all three (and its data-a, data-b, data-difference).
  function compareLines(k) {
    const [a, b, difference] = model.panels;
    const name = model.value === 'weights' ? 'weight' : 'score';
    const read = (panel) => `${formatNumber(panel[model.value][k])}${panel.masked[k] ? ' (masked)' : ''}`;
    tooltip.dataset.head = String(b.head);
    tooltip.dataset.a = String(a[model.value][k]);
    tooltip.dataset.b = String(b[model.value][k]);
    tooltip.dataset.difference = String(difference[model.value][k]);
    const oneSide = a.masked[k] ? ' (masked in A)' : b.masked[k] ? ' (masked in B)' : '';
    return [`A: ${name} ${read(a)}`, `B: ${name} ${read(b)}`,
      difference.masked[k] ? 'B − A: masked in both' : `B − A: ${formatNumber(difference[model.value][k])}${oneSide}`];
  }

  function showTooltip(cell, anchor) {
    if (!cell || cell.j === null) {
      tooltip.hidden = true;
      return;
    }
    const panel = model.panels[cell.panel];
    const { row0, col0 } = model.region;
    const block = model.block;
    const r = Math.floor((cell.i - row0) / block);
    const c = Math.floor((cell.j - col0) / block);
    const k = r * panel.cellCols + c;
    const lines = [model.compare ? `Head ${panel.head + 1}` : panel.title ?? `Head ${panel.head + 1}`];
    const { query: rowName = 'query', key: columnName = 'key' } = model.names ?? {};
    const at = (position) => position + (model.numberFrom ?? 0);  // a token's number as the tooltip gives it
    if (block === 1) {
      lines.push(`${rowName} #${at(cell.i)} “${model.tokens[cell.i].text}”`, `${columnName} #${at(cell.j)} “${model.tokens[cell.j].text}”`);
      tooltip.dataset.query = String(cell.i);
      tooltip.dataset.key = String(cell.j);
    } else {
      const last = (start) => Math.min(start + block, model.n) - 1;
      const q0 = row0 + r * block;
      const k0 = col0 + c * block;
      lines.push(`queries #${at(q0)}–#${at(last(q0))}`, `keys #${at(k0)}–#${at(last(k0))}`, `${model.pooling} of a ${block}×${block} block`);
      delete tooltip.dataset.query;
      delete tooltip.dataset.key;
    }
    tooltip.dataset.panel = String(cell.panel);
    if (model.compare) lines.push(...compareLines(k));
    else lines.push(...valueLines(panel, k));
    tooltip.replaceChildren(...lines.map((line) => {
      const div = document.createElement('div');
      div.textContent = line;
      return div;
    }));
    tooltip.hidden = false;
    const box = canvas.parentElement.getBoundingClientRect();
    const left = Math.min(anchor.x + TOOLTIP_OFFSET_PX, box.width - tooltip.offsetWidth);
    const top = anchor.y + TOOLTIP_OFFSET_PX;
    tooltip.style.left = `${Math.max(0, left)}px`;
    tooltip.style.top = `${top}px`;
  }

  // The CSS-pixel centre of a cell, relative to the canvas.
  function cellCentre({ panel, i, j }) {
    const cellPx = layout.side / model.region.size;
    const rect = layout.rects[panel];
    return { x: rect.x + (j - model.region.col0 + 0.5) * cellPx, y: rect.y + (i - model.region.row0 + 0.5) * cellPx };
  }

  function setCursor(cell, anchor) {
    cursor = cell && cell.j !== null ? cell : null;
    render();
    showTooltip(cursor, anchor ?? (cursor && cellCentre(cursor)));
  }

  const pointer = (event) => {
    const box = canvas.getBoundingClientRect();
    return { x: event.clientX - box.left, y: event.clientY - box.top };
  };

  // pointerdown as well, so that a tap on a touch screen shows the cell
  for (const type of ['pointermove', 'pointerdown']) {
    canvas.addEventListener(type, (event) => {
      if (!model) return;
      const at = pointer(event);
      const cell = hit(at.x, at.y);
      canvas.style.cursor = cell ? 'pointer' : 'default';
      if (cell?.panel !== cursor?.panel || cell?.i !== cursor?.i || cell?.j !== cursor?.j) setCursor(cell, at);
    });
  }
  canvas.addEventListener('pointerleave', () => setCursor(null));
  canvas.addEventListener('click', (event) => {
    const at = pointer(event);
    const cell = model && hit(at.x, at.y);
    if (cell) onSelectQuery(cell.i);
  });
  // Ctrl (or ⌘) and the wheel zoom, as does a trackpad pinch; the plain wheel scrolls the page.
  canvas.addEventListener('wheel', (event) => {
    if (!event.ctrlKey && !event.metaKey) return;
    const at = pointer(event);
    const cell = model && hit(at.x, at.y);
    if (!cell || cell.j === null) return;
    event.preventDefault();
    onZoom({ i: cell.i, j: cell.j, factor: event.deltaY < 0 ? ZOOM_STEP : 1 / ZOOM_STEP });
  }, { passive: false });
  canvas.addEventListener('focus', () => {
    if (!model || cursor || drawnRows() === 0) return;
    const { row0, col0, size } = model.region;
    const i = model.query >= row0 && model.query < row0 + drawnRows() ? model.query : row0;
    setCursor({ panel: 0, i, j: col0 });
  });
  canvas.addEventListener('blur', () => setCursor(null));
  canvas.addEventListener('keydown', (event) => {
    if (!model || !cursor) return;
    const { row0, col0, size } = model.region;
    const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    const step = model.block;
    if (moves[event.key]) {
      const [di, dj] = moves[event.key];
      const i = Math.max(row0, Math.min(row0 + drawnRows() - 1, cursor.i + di * step));
      const j = Math.max(col0, Math.min(col0 + size - 1, cursor.j + dj * step));
      setCursor({ panel: cursor.panel, i, j });
    } else if (event.key === 'Enter' || event.key === ' ') {
      onSelectQuery(cursor.i);
    } else if (event.key === '+' || event.key === '=') {
      onZoom({ i: cursor.i, j: cursor.j, factor: ZOOM_STEP });
    } else if (event.key === '-') {
      onZoom({ i: cursor.i, j: cursor.j, factor: 1 / ZOOM_STEP });
    } else if (event.key === '0') {
      onZoom(null);
    } else if (event.key === 'PageDown' || event.key === 'PageUp') {
      const panel = (cursor.panel + (event.key === 'PageDown' ? 1 : -1) + model.panels.length) % model.panels.length;
      setCursor({ ...cursor, panel });
    } else if (event.key === 'Escape') {
      tooltip.hidden = true;
      return;
    } else {
      return;
    }
    event.preventDefault();
  });

  return {
    draw(next) {
      model = next;
      marked = new Set(model.marked ?? []);
      images = model.panels.map((panel) => cachedImage(panel, model.value, panel.domain ?? model.domain, panel.log ?? model.log ?? false));
      labelWidth = measureLabels();
      if (cursor && (cursor.panel >= model.panels.length || cursor.i >= Math.min(model.n, model.region.row0 + drawnRows())
        || cursor.j >= model.n)) cursor = null;
      render();
      if (cursor) showTooltip(cursor, cellCentre(cursor));
    },
  };
}
