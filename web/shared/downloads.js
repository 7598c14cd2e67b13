// Files a page offers for download, and the pieces of their text: download(blob) hands a
// Blob to the user, downloadSvg a standalone <svg> as a file, downloadFigure a standalone <svg>
// figure as PNG or SVG, downloadChart an <svg> chart as PNG or SVG with its title, legend and caption;
// float32Text and csvField write numbers and
// fields of CSV or JSON files (the formatters run in workers too: no DOM at import time).

import { SVG_NS, svgElement } from './svg.js';

const MIN_DIGITS = 6;
const FLOAT32_DIGITS = 9;  // enough significant digits for any float32 to round-trip
const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;
const REVOKE_AFTER_MS = 60_000;  // keep the blob URL alive while the browser starts the download

// value written with `digits` significant digits, if that reads back to the same float32.
function roundTrips(value, digits) {
  const candidate = Number(value.toPrecision(digits));
  return Math.fround(candidate) === value ? String(candidate) : null;
}

/** Shortest decimal text of a float32 value; "Infinity", "-Infinity", "NaN" when not finite. */
export function float32Text(value) {
  if (value === 0) return '0';  // the masked half of a causal matrix, at no cost
  if (!Number.isFinite(value)) return String(value);
  // Most float32 values need 7 or 8 digits: try 7 first, then 6 or 8 (toPrecision is the
  // cost; two calls instead of three make an export of 4,096² weights a quarter faster).
  const seven = roundTrips(value, MIN_DIGITS + 1);
  if (seven !== null) return roundTrips(value, MIN_DIGITS) ?? seven;
  return roundTrips(value, MIN_DIGITS + 2) ?? String(Number(value.toPrecision(FLOAT32_DIGITS)));
}

/**
 * A CSV field: quoted (quotes doubled) when it holds a comma, quote or line break; a leading
 * ' when it starts with = + - @ or a tab, so that spreadsheets do not run it as a formula.
 */
export function csvField(text) {
  const safe = FORMULA_START.test(text) ? `'${text}` : text;
  return NEEDS_QUOTES.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/** Offers `blob` as a file download. */
export function download(blob, filename) {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), REVOKE_AFTER_MS);
}

/** Offers the standalone <svg> `element` as an SVG file (XMLSerializer's text of it). */
export function downloadSvg(element, filename) {
  download(new Blob([`<?xml version="1.0" encoding="UTF-8"?>\n${new XMLSerializer().serializeToString(element)}\n`],
    { type: 'image/svg+xml' }), filename);
}

// What a chart's elements take from the stylesheet, written onto a copy as presentation
// attributes, so that the copy draws the same as a file or an image (which see no stylesheet).
const CHART_STYLES = ['fill', 'fill-opacity', 'stroke', 'stroke-width', 'stroke-dasharray', 'stroke-opacity', 'opacity',
  'font-size', 'font-family', 'font-weight'];
const PNG_SCALE = 2;             // device pixels per CSS pixel of the PNG
const TITLE_ROW_PX = 26;
const TITLE_FONT_PX = 14;
const LEGEND_ROW_PX = 20;
const LEGEND_KEY_PX = 22;        // the coloured line before a legend entry
const LEGEND_KEY_GAP_PX = 6;     // between the line and its text
const LEGEND_LINE_PX = 3;
// a legend key's dashes, by its line's style (line-chart.css)
const LEGEND_DASHES = { dashed: '6 4', dotted: '2 3' };
const LEGEND_GAP_PX = 16;
const LEGEND_PAD_PX = 8;
const LEGEND_FONT_PX = 12;
const CAPTION_ROW_PX = 16;
const CAPTION_FONT_PX = 11;
const FONT_FAMILY = 'system-ui, sans-serif';

// The entries of an HTML chart legend (<ul class="chart-legend">): [{text, color, dash}], dash
// the key's stroke-dasharray (undefined for a solid line).
function legendEntries(legend) {
  return [...(legend?.children ?? [])].map((item) => {
    const style = getComputedStyle(item);
    const dash = Object.keys(LEGEND_DASHES).find((name) => item.classList.contains(name));
    return { text: item.textContent, color: style.getPropertyValue('--series').trim() || style.color, dash: LEGEND_DASHES[dash] };
  });
}

/**
 * `text` cut at spaces into lines of at most `width` pixels in the CSS `font` (a word longer
 * than that stays whole on its line).
 */
export function wrapText(text, width, font) {
  const context = document.createElement('canvas').getContext('2d');
  context.font = font;
  const lines = [];
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const last = lines.length - 1;
    const joined = last >= 0 ? `${lines[last]} ${word}` : word;
    if (last >= 0 && context.measureText(joined).width <= width) lines[last] = joined;
    else lines.push(word);
  }
  return lines;
}

// A chart's caption cut into lines that fit between its padded edges.
const captionLines = (text, width) => wrapText(text, width - 2 * LEGEND_PAD_PX, `${CAPTION_FONT_PX}px ${FONT_FAMILY}`);

// Lays the legend's entries out in rows of at most `width` pixels: [{entry, x, row}] and the row count.
function legendLayout(entries, width) {
  const context = document.createElement('canvas').getContext('2d');
  context.font = `${LEGEND_FONT_PX}px ${FONT_FAMILY}`;
  const placed = [];
  let x = LEGEND_PAD_PX;
  let row = 0;
  for (const entry of entries) {
    const size = LEGEND_KEY_PX + LEGEND_KEY_GAP_PX + context.measureText(entry.text).width;
    if (x > LEGEND_PAD_PX && x + size > width - LEGEND_PAD_PX) {
      x = LEGEND_PAD_PX;
      row += 1;
    }
    placed.push({ entry, x, row });
    x += size + LEGEND_GAP_PX;
  }
  return { placed, rows: entries.length > 0 ? row + 1 : 0 };
}

// The class on <html> under which the pages keep their light colours in the dark scheme too
// (style.css and line-chart.css skip their dark colours for it).
const LIGHT_FIGURE = 'light-figure';

/**
 * What read() returns with the page in its light colours (a figure's, heatmap-svg.js's): they
 * are taken, and the page's own colours back, before the browser paints.
 */
export function inLightColors(read) {
  const root = document.documentElement;
  root.classList.add(LIGHT_FIGURE);
  try {
    return read();
  } finally {
    root.classList.remove(LIGHT_FIGURE);
  }
}

/**
 * A standalone copy of the <svg> chart for a file: the page's styles written onto its
 * elements, in the page's light colours whatever its scheme (a figure goes on paper, as the
 * heatmap's does), on the light panel colour, with `title` (when given) above it, the
 * entries of its HTML legend (when given) drawn under it as SVG lines and text, and the
 * `caption` text (when given: what produced the chart, say) under them, cut into lines.
 */
function chartSvg(svg, { legend, title, caption }) {
  const width = svg.width.baseVal.value || svg.clientWidth;
  const height = svg.height.baseVal.value || svg.clientHeight;
  const copy = svg.cloneNode(true);
  const originals = [svg, ...svg.querySelectorAll('*')];
  const copies = [copy, ...copy.querySelectorAll('*')];
  originals.forEach((element, k) => {
    const style = getComputedStyle(element);
    for (const name of CHART_STYLES) copies[k].setAttribute(name, style.getPropertyValue(name));
    copies[k].removeAttribute('class');
  });
  copy.removeAttribute('id');
  const top = title ? TITLE_ROW_PX : 0;
  copy.setAttribute('y', String(top));
  copy.setAttribute('width', String(width));
  copy.setAttribute('height', String(height));
  const { placed, rows } = legendLayout(legendEntries(legend), width);
  const legendBottom = top + height + (rows > 0 ? rows * LEGEND_ROW_PX + LEGEND_PAD_PX : 0);
  const captioned = caption ? captionLines(caption, width) : [];
  const total = legendBottom + (captioned.length > 0 ? captioned.length * CAPTION_ROW_PX + LEGEND_PAD_PX : 0);
  const page = getComputedStyle(svg);
  const ink = page.color;
  const file = svgElement('svg', { xmlns: SVG_NS, width, height: total, viewBox: `0 0 ${width} ${total}`, 'font-family': FONT_FAMILY });
  if (title) file.append(svgElement('title', {}, title));
  file.append(svgElement('rect', { width, height: total, fill: page.getPropertyValue('--panel').trim() || 'white' }));
  if (title) {
    file.append(svgElement('text', {
      x: LEGEND_PAD_PX, y: TITLE_ROW_PX - LEGEND_PAD_PX, fill: ink, 'font-size': TITLE_FONT_PX, 'font-weight': 600,
    }, title));
  }
  file.append(copy);
  for (const { entry, x, row } of placed) {
    const y = top + height + row * LEGEND_ROW_PX + LEGEND_ROW_PX / 2;
    file.append(svgElement('line', {
      x1: x, y1: y, x2: x + LEGEND_KEY_PX, y2: y, stroke: entry.color, 'stroke-width': LEGEND_LINE_PX,
      ...(entry.dash ? { 'stroke-dasharray': entry.dash } : {}),
    }));
    file.append(svgElement('text', {
      x: x + LEGEND_KEY_PX + LEGEND_KEY_GAP_PX, y, fill: ink, 'font-size': LEGEND_FONT_PX, 'dominant-baseline': 'central',
    }, entry.text));
  }
  captioned.forEach((line, k) => {
    file.append(svgElement('text', {
      class: 'caption', x: LEGEND_PAD_PX, y: legendBottom + k * CAPTION_ROW_PX + CAPTION_ROW_PX / 2, fill: ink,
      'font-size': CAPTION_FONT_PX, 'dominant-baseline': 'central',
    }, line));
  });
  return file;
}

/** A PNG (PNG_SCALE device pixels per CSS pixel) of the standalone <svg> `file`. Resolves to a Blob. */
async function svgPng(file) {
  const width = Number(file.getAttribute('width'));
  const height = Number(file.getAttribute('height'));
  const url = URL.createObjectURL(new Blob([new XMLSerializer().serializeToString(file)], { type: 'image/svg+xml' }));
  try {
    const image = new Image();
    image.src = url;
    await image.decode();
    const canvas = document.createElement('canvas');
    canvas.width = Math.round(width * PNG_SCALE);
    canvas.height = Math.round(height * PNG_SCALE);
    const context = canvas.getContext('2d');
    context.scale(PNG_SCALE, PNG_SCALE);
    context.drawImage(image, 0, 0, width, height);
    return await new Promise((resolve) => { canvas.toBlob(resolve, 'image/png'); });
  } finally {
    URL.revokeObjectURL(url);
  }
}

/**
 * Offers the standalone <svg> figure `file` (a heatmap's, heatmap-svg.js) as a PNG or an SVG
 * file, by the filename's extension: a PNG drawn from the figure, not from the page's canvas,
 * has its title, axis titles and legend, on an opaque light background.
 */
export async function downloadFigure(file, filename) {
  if (filename.endsWith('.svg')) downloadSvg(file, filename);
  else download(await svgPng(file), filename);
}

/** Offers what the <svg> chart shows (with its title, HTML legend and caption) as a PNG or an SVG file, by the filename's extension. */
export function downloadChart(svg, filename, { legend, title, caption } = {}) {
  return downloadFigure(inLightColors(() => chartSvg(svg, { legend, title, caption })), filename);
}
