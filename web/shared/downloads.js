// Files a page offers for download, and the pieces of their text: download(blob) hands a
// Blob to the user, downloadCanvas a canvas as PNG, downloadChart an <svg> chart as PNG;
// float32Text and csvField write numbers and
// fields of CSV or JSON files (the formatters run in workers too: no DOM at import time).

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

/** Offers what `canvas` shows as a PNG file. */
export function downloadCanvas(canvas, filename) {
  canvas.toBlob((blob) => download(blob, filename), 'image/png');
}

// What a chart's elements take from the stylesheet, written onto a copy as presentation
// attributes, so that the copy draws the same as an image (which sees no stylesheet).
const CHART_STYLES = ['fill', 'fill-opacity', 'stroke', 'stroke-width', 'stroke-dasharray', 'stroke-opacity', 'opacity',
  'font-size', 'font-family', 'font-weight'];
const PNG_SCALE = 2;             // device pixels per CSS pixel of the PNG
const LEGEND_ROW_PX = 20;
const LEGEND_KEY_PX = 22;        // the coloured line before a legend entry
const LEGEND_GAP_PX = 16;
const LEGEND_PAD_PX = 8;
const LEGEND_FONT = '12px system-ui, sans-serif';

// The entries of an HTML chart legend (<ul class="chart-legend">): [{text, color, dashed}].
function legendEntries(legend) {
  return [...(legend?.children ?? [])].map((item) => {
    const style = getComputedStyle(item);
    return { text: item.textContent, color: style.getPropertyValue('--series').trim() || style.color, dashed: item.classList.contains('dashed') };
  });
}

// Lays the legend's entries out in rows of at most `width` pixels: [{entry, x, row}] and the row count.
function legendLayout(context, entries, width) {
  context.font = LEGEND_FONT;
  const placed = [];
  let x = LEGEND_PAD_PX;
  let row = 0;
  for (const entry of entries) {
    const size = LEGEND_KEY_PX + 6 + context.measureText(entry.text).width;
    if (x > LEGEND_PAD_PX && x + size > width - LEGEND_PAD_PX) {
      x = LEGEND_PAD_PX;
      row += 1;
    }
    placed.push({ entry, x, row });
    x += size + LEGEND_GAP_PX;
  }
  return { placed, rows: entries.length > 0 ? row + 1 : 0 };
}

/**
 * A PNG of what the <svg> chart shows, on the page's panel colour, with the entries of its
 * HTML legend (when given) drawn under it. Resolves to a Blob.
 */
export async function chartPng(svg, { legend } = {}) {
  const width = svg.width.baseVal.value || svg.clientWidth;
  const height = svg.height.baseVal.value || svg.clientHeight;
  const copy = svg.cloneNode(true);
  const originals = [svg, ...svg.querySelectorAll('*')];
  const copies = [copy, ...copy.querySelectorAll('*')];
  originals.forEach((element, k) => {
    const style = getComputedStyle(element);
    for (const name of CHART_STYLES) copies[k].setAttribute(name, style.getPropertyValue(name));
  });
  copy.setAttribute('xmlns', 'http://www.w3.org/2000/svg');
  copy.setAttribute('width', String(width));
  copy.setAttribute('height', String(height));
  const url = URL.createObjectURL(new Blob([new XMLSerializer().serializeToString(copy)], { type: 'image/svg+xml' }));
  try {
    const image = new Image();
    image.src = url;
    await image.decode();
    const canvas = document.createElement('canvas');
    const context = canvas.getContext('2d');
    const entries = legendEntries(legend);
    const { placed, rows } = legendLayout(context, entries, width);
    const total = height + (rows > 0 ? rows * LEGEND_ROW_PX + LEGEND_PAD_PX : 0);
    canvas.width = Math.round(width * PNG_SCALE);
    canvas.height = Math.round(total * PNG_SCALE);
    context.scale(PNG_SCALE, PNG_SCALE);
    const page = getComputedStyle(svg);
    context.fillStyle = page.getPropertyValue('--panel').trim() || 'white';
    context.fillRect(0, 0, width, total);
    context.drawImage(image, 0, 0, width, height);
    context.font = LEGEND_FONT;
    context.textBaseline = 'middle';
    for (const { entry, x, row } of placed) {
      const y = height + row * LEGEND_ROW_PX + LEGEND_ROW_PX / 2;
      context.strokeStyle = entry.color;
      context.lineWidth = 3;
      context.setLineDash(entry.dashed ? [6, 4] : []);
      context.beginPath();
      context.moveTo(x, y);
      context.lineTo(x + LEGEND_KEY_PX, y);
      context.stroke();
      context.fillStyle = page.color;
      context.fillText(entry.text, x + LEGEND_KEY_PX + 6, y);
    }
    return await new Promise((resolve) => { canvas.toBlob(resolve, 'image/png'); });
  } finally {
    URL.revokeObjectURL(url);
  }
}

/** Offers what the <svg> chart shows (and its HTML legend) as a PNG file. */
export async function downloadChart(svg, filename, { legend } = {}) {
  download(await chartPng(svg, { legend }), filename);
}
