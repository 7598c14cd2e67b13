// The heatmap as a standalone SVG figure for a paper: its panels with token labels, axis
// titles and the selected query outlined, a title (which states the pooling of a big matrix),
// and a legend per colour scale with its ticks and the colours outside the scale. Colours
// and values are the page's: the same colour tables and steps (colors.js) over the same
// pooled cells. Small matrices become one <rect> per cell, with the cell's tokens and value
// in its <title>; bigger ones one embedded PNG per panel, one pixel per cell, scaled up
// without smoothing, so that the file stays small and the cells crisp. The figure is drawn from
// the canvas heatmap's model (heatmap.js): the same panel titles and frames, rows (generation step
// by step draws the rows fed so far and outlines the rest), marked columns, labelled tokens and
// the strips of token kinds along the axes, with their legend.
// Light colours, whatever the page's scheme: a figure goes on paper.
import { float32Text, inLightColors, wrapText } from '../downloads.js';
import { SVG_NS, svgElement } from '../svg.js';
import { COLOR_SCALES, COLOR_STEPS, HATCH_LINE_PX, HATCH_PX, SPECIAL_COLORS, colorSteps, specialsIn } from './colors.js';
import {
  KIND_STRIP_PX, PENDING_DASH, axisInsets, cellImage, labelSteps, labelledPositions, pendingBand, pendingLabel, tokenLabel,
} from './heatmap.js';
import { belowLabel, legendAxis } from './legend.js';

const RECT_MAX_CELLS = 4096;  // cells of all panels drawn as <rect>s; more go in as images
const FONT_FAMILY = 'system-ui, Helvetica, Arial, sans-serif';
const FONT_PX = 11;
const TITLE_PX = 15;
const PANEL_TITLE_PX = 13;
const LINE_PX = 20;             // the height of a line of text in the figure's layout
const MARGIN_PX = 16;
const SINGLE_SIDE_PX = 480;     // the matrix of a single panel
const MULTIPLE_SIDE_PX = 300;   // of each of several
const MAX_CELL_PX = 40;         // short inputs get cells up to this size
const MAX_COLUMNS = 3;          // panels side by side, unless the figure says how many (columns)
const PANEL_GAP_PX = 28;
const SWATCH_GAP_PX = 4;        // between a legend swatch and its name
const FRAME_PX = 3;             // a panel's frame, when it has one (its key/value group's colour)
const FRAME_GAP_PX = 2;         // between the frame and the cells
const MAX_LABEL_PX = 110;
const OUTLINE_PX = 1.5;
const LEGEND_BAR_PX = { width: 220, height: 12 };
const LEGEND_STOPS = 17;        // gradient stops along a colour table
const LEGEND_TICKS = 5;
const TICK_PX = 4;
const SWATCH_PX = 12;
const INK = '#1b1f24';
const MUTED = '#5b6472';
const UNKNOWN = '#7c3aed';      // tokens GloVe does not know, in italics, as on the page
const ACCENT = '#c2410c';
const BACKGROUND = '#ffffff';
const MASKED_BACK = '#eceff3';
const MASKED_LINE = '#aab2bd';
const HATCH_ID = 'masked-hatch';

const hex = (table, step) => `#${[0, 1, 2].map((c) => table[step * 4 + c].toString(16).padStart(2, '0')).join('')}`;

/**
 * The CSS colour of one cell, as the page's canvas paints it, its step from `stepOf` (colorSteps);
 * null for a masked cell (the hatching shows).
 */
function cellColor(value, masked, stepOf, scale = 'sequential') {
  if (masked) return null;
  if (Number.isNaN(value)) return SPECIAL_COLORS.nan.css;
  if (!Number.isFinite(value)) return SPECIAL_COLORS.infinity.css;
  return hex(COLOR_SCALES[scale].table, stepOf(value));
}

function textWidth(text, font) {
  textWidth.context ??= document.createElement('canvas').getContext('2d');
  textWidth.context.font = font;
  return textWidth.context.measureText(text).width;
}

function text(x, y, content, attributes = {}) {
  return svgElement('text', { x, y, fill: INK, 'font-size': FONT_PX, ...attributes }, content);
}

// <defs>: the masked cells' hatching, and a gradient per legend.
function definitions(legends) {
  const defs = svgElement('defs');
  const pattern = svgElement('pattern', { id: HATCH_ID, width: HATCH_PX, height: HATCH_PX, patternUnits: 'userSpaceOnUse' });
  pattern.append(
    svgElement('rect', { width: HATCH_PX, height: HATCH_PX, fill: MASKED_BACK }),
    svgElement('path', {
      d: [-HATCH_PX, 0, HATCH_PX].map((o) => `M${o},${HATCH_PX}L${o + HATCH_PX},0`).join(''),
      stroke: MASKED_LINE, 'stroke-width': HATCH_LINE_PX,
    }),
  );
  defs.append(pattern);
  legends.forEach((legend, l) => {
    const gradient = svgElement('linearGradient', { id: `legend-scale-${l}` });
    const { table } = COLOR_SCALES[legend.scale ?? 'sequential'];
    for (let s = 0; s < LEGEND_STOPS; ++s) {
      const t = s / (LEGEND_STOPS - 1);
      gradient.append(svgElement('stop', { offset: t, 'stop-color': hex(table, Math.round(t * (COLOR_STEPS - 1))) }));
    }
    defs.append(gradient);
  });
  return defs;
}

// The rows not fed yet (generation step by step), below the drawn ones: a dashed outline when
// the band is tall enough, and its name inside when it fits, as on the canvas.
function drawPending(group, { left, top, side, height, first, last }) {
  const name = pendingLabel(first, last);
  const { outlined, named } = pendingBand(height, side, textWidth(name, `${FONT_PX}px ${FONT_FAMILY}`), FONT_PX);
  if (!outlined) return;
  group.append(svgElement('rect', {
    x: left + 0.5, y: top + 0.5, width: side - 1, height: height - 1, fill: 'none', stroke: MUTED,
    'stroke-dasharray': PENDING_DASH.join(' '), class: 'pending',
  }));
  if (named) {
    group.append(text(left + side / 2, top + height / 2, name, {
      'text-anchor': 'middle', 'dominant-baseline': 'central', fill: MUTED, class: 'pending',
    }));
  }
}

// From the cells to the strip of token kinds and to the labels (heatmap.js axisInsets): outside
// a frame, when panels have one.
const insetsOf = (figure) => axisInsets({
  kinds: figure.kinds, frameReach: figure.panels.some((panel) => panel.frame) ? FRAME_GAP_PX + FRAME_PX / 2 : 0,
});

// The strip of token kinds left of the drawn rows and above the columns, a cell per token.
function drawKinds(group, figure, { left, top, cellPx, rows, kindColors }) {
  const { region: { row0, col0, size }, kinds: { of } } = figure;
  const { strip } = insetsOf(figure);
  const strips = svgElement('g', { 'shape-rendering': 'crispEdges', class: 'token-kinds' });
  for (let t = row0; t < row0 + rows; ++t) {
    strips.append(svgElement('rect', {
      x: left - strip - KIND_STRIP_PX, y: top + (t - row0) * cellPx, width: KIND_STRIP_PX, height: cellPx, fill: kindColors[of[t]],
    }));
  }
  for (let t = col0; t < col0 + size; ++t) {
    strips.append(svgElement('rect', {
      x: left + (t - col0) * cellPx, y: top - strip - KIND_STRIP_PX, width: cellPx, height: KIND_STRIP_PX, fill: kindColors[of[t]],
    }));
  }
  group.append(strips);
}

// One panel: title, axis titles, token labels, the strips of token kinds, the hatching, the
// cells, the outlines of the query's row and the marked columns, and the panel's frame.
function drawPanel(figure, panel, { x, y, side, labelPx, asRects, kindColors }) {
  const { tokens, region: { row0, col0, size }, block, query, value, names, numberFrom = 0 } = figure;
  const at = (position) => position + numberFrom;  // a token's number as the cells' titles give it
  const marked = figure.marked ?? [];
  const rows = Math.min(size, figure.rows ?? size);  // drawn, from the region's first
  const group = svgElement('g', { transform: `translate(${x},${y})` });
  const cellPx = side / size;
  const drawnPx = rows * cellPx;
  const gap = insetsOf(figure).labels;
  const top = LINE_PX * 2 + labelPx + gap;   // the matrix, below the title, the key axis title and labels
  const left = LINE_PX + labelPx + gap;      // right of the query axis title and labels
  group.append(text(left, PANEL_TITLE_PX, panel.title, { 'font-size': PANEL_TITLE_PX, 'font-weight': 600, fill: panel.frame ?? MUTED }));
  group.append(text(left + side / 2, LINE_PX + FONT_PX, `${names.key} →`, { 'text-anchor': 'middle', fill: MUTED }));
  // turned to read upwards, so that its arrow points down the rows
  group.append(text(0, 0, `← ${names.query}`, {
    'text-anchor': 'middle', fill: MUTED, transform: `translate(${FONT_PX},${top + side / 2}) rotate(-90)`,
  }));
  const { step, standoutStep } = labelSteps(FONT_PX, cellPx);
  const selected = [query, ...marked];
  const standouts = [...selected, ...(figure.pinned ?? [])];
  const style = (t) => ({
    ...(tokens[t].unknown && { fill: UNKNOWN, 'font-style': 'italic' }),
    ...(selected.includes(t) && { fill: ACCENT, 'font-weight': 700 }),
  });
  for (const t of labelledPositions(row0, rows, step, standouts, standoutStep)) {
    group.append(text(left - gap, top + (t - row0 + 0.5) * cellPx, tokenLabel(tokens[t].text), {
      'text-anchor': 'end', 'dominant-baseline': 'central', ...style(t),
    }));
  }
  for (const t of labelledPositions(col0, size, step, standouts, standoutStep)) {
    const cx = left + (t - col0 + 0.5) * cellPx;
    group.append(text(0, 0, tokenLabel(tokens[t].text), {
      'dominant-baseline': 'central', transform: `translate(${cx},${top - gap}) rotate(-90)`, ...style(t),
    }));
  }
  if (kindColors) drawKinds(group, figure, { left, top, cellPx, rows, kindColors });
  group.append(svgElement('rect', { x: left, y: top, width: side, height: drawnPx, fill: `url(#${HATCH_ID})` }));
  const values = panel[value];
  const domain = panel.domain ?? figure.domain;
  const log = panel.log ?? figure.log ?? false;
  const blockPx = block * cellPx;
  if (asRects) {
    const cells = svgElement('g', { 'shape-rendering': 'crispEdges', class: 'cells' });
    const stepOf = colorSteps(domain, log);
    const last = (start) => Math.min(start + block, figure.n) - 1;
    for (let r = 0; r < panel.cellRows; ++r) {
      for (let c = 0; c < panel.cellCols; ++c) {
        const k = r * panel.cellCols + c;
        const fill = cellColor(values[k], panel.masked[k], stepOf, panel.scale);
        if (fill === null) continue;
        const rect = svgElement('rect', {
          x: left + c * blockPx, y: top + r * blockPx, width: blockPx, height: Math.min(blockPx, drawnPx - r * blockPx), fill,
        });
        const q = row0 + r * block;
        const key = col0 + c * block;
        rect.append(svgElement('title', {}, block === 1
          ? `${names.query} #${at(q)} “${tokens[q].text}”, ${names.key} #${at(key)} “${tokens[key].text}”: ${float32Text(values[k])}`
          : `${names.query} #${at(q)}–#${at(last(q))}, ${names.key} #${at(key)}–#${at(last(key))}: ${float32Text(values[k])}`));
        cells.append(rect);
      }
    }
    group.append(cells);
  } else {
    const image = cellImage(panel, values, domain, panel.scale, log);
    // a viewport of the drawn rows, which clips a last block of rows that reaches past them
    const viewport = svgElement('svg', { x: left, y: top, width: side, height: drawnPx });
    viewport.append(svgElement('image', {
      width: panel.cellCols * blockPx, height: panel.cellRows * blockPx, preserveAspectRatio: 'none',
      'image-rendering': 'pixelated', href: image.toDataURL('image/png'),
    }));
    group.append(viewport);
  }
  if (rows < size) drawPending(group, { left, top: top + drawnPx, side, height: side - drawnPx, first: row0 + rows, last: row0 + size - 1 });
  const outline = (attributes) => group.append(svgElement('rect', { ...attributes, fill: 'none', stroke: ACCENT, 'stroke-width': OUTLINE_PX }));
  // at least a line's width, as on the canvas, however small the cells
  const thick = (px) => Math.max(px, OUTLINE_PX);
  if (query >= row0 && query < row0 + rows) outline({ x: left, y: top + (query - row0) * cellPx, width: side, height: thick(cellPx) });
  for (const t of marked) {
    if (t >= col0 && t < col0 + size) outline({ x: left + (t - col0) * cellPx, y: top, width: thick(cellPx), height: drawnPx });
  }
  if (panel.frame) {
    group.append(svgElement('rect', {
      x: left - FRAME_GAP_PX, y: top - FRAME_GAP_PX, width: side + 2 * FRAME_GAP_PX, height: side + 2 * FRAME_GAP_PX,
      fill: 'none', stroke: panel.frame, 'stroke-width': FRAME_PX, class: 'frame',
    }));
  }
  return group;
}

// One legend: its heading, the colour bar with ticks, and swatches of the colours outside it.
function drawLegend(legend, l, { x, y, specials }) {
  const group = svgElement('g', { transform: `translate(${x},${y})`, class: 'legend' });
  group.append(text(0, FONT_PX, legend.heading, { 'font-weight': 600 }));
  const barTop = LINE_PX * 0.8;
  group.append(svgElement('rect', { y: barTop, ...LEGEND_BAR_PX, fill: `url(#legend-scale-${l})` }));
  const { scale, ticks, format } = legendAxis(legend.domain, legend.log ?? false, 0, LEGEND_BAR_PX.width, LEGEND_TICKS);
  for (const tick of ticks) {
    const tx = scale(tick);
    group.append(svgElement('line', {
      x1: tx, x2: tx, y1: barTop + LEGEND_BAR_PX.height, y2: barTop + LEGEND_BAR_PX.height + TICK_PX, stroke: MUTED,
    }));
    group.append(text(tx, barTop + LEGEND_BAR_PX.height + TICK_PX + FONT_PX, format(tick), { 'text-anchor': 'middle', fill: MUTED }));
  }
  let sx = LEGEND_BAR_PX.width + MARGIN_PX;
  const swatchY = barTop;
  for (const { fill, name } of specials) {
    group.append(svgElement('rect', { x: sx, y: swatchY, width: SWATCH_PX, height: SWATCH_PX, fill, stroke: MUTED, 'stroke-width': 0.5 }));
    group.append(text(sx + SWATCH_PX + SWATCH_GAP_PX, swatchY + SWATCH_PX / 2, name, { 'dominant-baseline': 'central' }));
    sx += SWATCH_PX + SWATCH_GAP_PX * 2 + textWidth(name, `${FONT_PX}px ${FONT_FAMILY}`) + MARGIN_PX;
  }
  return group;
}

// The legend of the strips along the axes, on one line: its heading, then a swatch and a name
// per kind, each at its x ({heading, list: [{name}]}); width, the line's.
function kindsLegendLayout({ heading, list }) {
  const font = `${FONT_PX}px ${FONT_FAMILY}`;
  let x = textWidth(heading, `600 ${font}`) + MARGIN_PX;
  const placed = list.map(({ name }) => {
    const at = x;
    x += SWATCH_PX + SWATCH_GAP_PX + textWidth(name, font) + MARGIN_PX;
    return { name, x: at };
  });
  return { placed, width: x - MARGIN_PX };
}

function drawKindsLegend(kinds, kindColors, { x, y }) {
  const group = svgElement('g', { transform: `translate(${x},${y})`, class: 'kinds-legend' });
  group.append(text(0, SWATCH_PX / 2, kinds.heading, { 'font-weight': 600, 'dominant-baseline': 'central' }));
  kindsLegendLayout(kinds).placed.forEach(({ name, x: sx }, k) => {
    group.append(svgElement('rect', { x: sx, y: 0, width: SWATCH_PX, height: SWATCH_PX, fill: kindColors[k] }));
    group.append(text(sx + SWATCH_PX + SWATCH_GAP_PX, SWATCH_PX / 2, name, { 'dominant-baseline': 'central' }));
  });
  return group;
}

/**
 * The figure as an <svg> element. figure = {title, tokens: [{text}], n, region: {row0, col0,
 * size}, block, pooling, query, value ('weights' or 'scores'), names: {query, key} (axis
 * titles), domain, log, panels: [{title, cellRows, cellCols, scores, weights, masked, domain, log, scale,
 * frame}], legends: [{heading, domain, log, scale}]}, and optionally rows, marked, pinned, kinds
 * and columns, as the canvas heatmap's model has them (heatmap.js createHeatmap): the panels as the page pooled them, each
 * with the scale ('sequential' or 'diverging'), domain and log of its colours (default: the figure's
 * domain and log, whether the colours follow the values' logarithm, default false) and the colour
 * of its frame, if it has one; and a caption (what produced the figure,
 * say), written under the legends in lines that fit the figure's width.
 */
export function heatmapSvg(figure) {
  const { panels, legends, region: { size }, block, pooling, value } = figure;
  const cells = panels.reduce((sum, panel) => sum + panel.cellRows * panel.cellCols, 0);
  const asRects = cells <= RECT_MAX_CELLS;
  const font = `${FONT_PX}px ${FONT_FAMILY}`;
  const { row0, col0 } = figure.region;
  const widest = Math.max(...[...figure.tokens.slice(row0, row0 + size), ...figure.tokens.slice(col0, col0 + size)]
    .map((token) => textWidth(tokenLabel(token.text), `bold ${font}`)));
  const labelPx = Math.ceil(Math.min(MAX_LABEL_PX, widest));
  const side = Math.min(panels.length === 1 ? SINGLE_SIDE_PX : MULTIPLE_SIDE_PX, size * MAX_CELL_PX);
  const columns = Math.min(figure.columns ?? MAX_COLUMNS, panels.length);
  const labelGap = insetsOf(figure).labels;
  const panelWidth = LINE_PX + labelPx + labelGap + side;
  const panelHeight = LINE_PX * 2 + labelPx + labelGap + side;
  const rows = Math.ceil(panels.length / columns);
  const pooled = block > 1 ? ` Each cell is the ${pooling} of a block of ${block}×${block} tokens.` : '';
  const title = `${figure.title}.${pooled}`;
  const panelsTop = MARGIN_PX + LINE_PX * 1.5;
  const legendsTop = panelsTop + rows * panelHeight + (rows - 1) * PANEL_GAP_PX + LINE_PX;
  const legendHeight = LINE_PX * 3;
  const present = specialsIn(panels, value);
  // values under a log scale's low end take its lowest colour (the first legend's scale)
  const logPanels = panels.filter((panel) => panel.log ?? figure.log);
  const below = logPanels.length > 0 && specialsIn(logPanels, value, figure.domain[0]).below;
  const specials = [
    ...(below ? [{ fill: hex(COLOR_SCALES.sequential.table, 0), name: belowLabel(figure.domain[0]) }] : []),
    ...(present.masked ? [{ fill: `url(#${HATCH_ID})`, name: 'masked' }] : []),
    ...(present.nan ? [{ fill: SPECIAL_COLORS.nan.css, name: SPECIAL_COLORS.nan.label }] : []),
    ...(present.infinity ? [{ fill: SPECIAL_COLORS.infinity.css, name: SPECIAL_COLORS.infinity.label }] : []),
  ];
  const width = Math.max(
    MARGIN_PX * 2 + columns * panelWidth + (columns - 1) * PANEL_GAP_PX,
    MARGIN_PX * 2 + textWidth(title, `600 ${TITLE_PX}px ${FONT_FAMILY}`),
    MARGIN_PX * 2 + LEGEND_BAR_PX.width * 2 + MARGIN_PX * 6,
    ...(figure.kinds ? [MARGIN_PX * 2 + kindsLegendLayout(figure.kinds).width] : []),
    // the caption's longest word (a link, say), which its lines cannot cut
    ...(figure.caption ?? '').split(/\s+/).map((word) => MARGIN_PX * 2 + textWidth(word, font)),
  );
  // the kinds' colours as the page's light scheme has them
  const kindColors = figure.kinds && inLightColors(() => figure.kinds.list
    .map(({ color }) => getComputedStyle(document.documentElement).getPropertyValue(color).trim()));
  const kindsTop = legendsTop + legends.length * legendHeight;
  const captionTop = kindsTop + (figure.kinds ? LINE_PX * 1.5 : 0);
  const captioned = figure.caption ? wrapText(figure.caption, width - 2 * MARGIN_PX, font) : [];
  const height = captionTop + captioned.length * LINE_PX + MARGIN_PX;
  const svg = svgElement('svg', {
    xmlns: SVG_NS, width: Math.ceil(width), height: Math.ceil(height), viewBox: `0 0 ${Math.ceil(width)} ${Math.ceil(height)}`,
    'font-family': FONT_FAMILY,
  });
  svg.append(svgElement('title', {}, title));
  svg.append(definitions(legends));
  svg.append(svgElement('rect', { width: '100%', height: '100%', fill: BACKGROUND }));
  svg.append(text(MARGIN_PX, MARGIN_PX + TITLE_PX, title, { 'font-size': TITLE_PX, 'font-weight': 600, class: 'figure-title' }));
  panels.forEach((panel, p) => {
    const x = MARGIN_PX + (p % columns) * (panelWidth + PANEL_GAP_PX);
    const y = panelsTop + Math.floor(p / columns) * (panelHeight + PANEL_GAP_PX);
    svg.append(drawPanel(figure, panel, { x, y, side, labelPx, asRects, kindColors }));
  });
  legends.forEach((legend, l) => {
    svg.append(drawLegend(legend, l, { x: MARGIN_PX, y: legendsTop + l * legendHeight, specials: l === 0 ? specials : [] }));
  });
  if (figure.kinds) svg.append(drawKindsLegend(figure.kinds, kindColors, { x: MARGIN_PX, y: kindsTop }));
  captioned.forEach((line, k) => svg.append(text(MARGIN_PX, captionTop + (k + 1) * LINE_PX - (LINE_PX - FONT_PX) / 2, line, { class: 'caption' })));
  return svg;
}
