// The heatmap's legend: the colour bar from the same table as the cells, a d3 axis with the
// domain on display (linear, or logarithmic with its ticks at powers of ten), and swatches for
// the colours outside the scale (the masked cells' hatching is a CSS class, so that it follows
// the colour scheme as the canvas does) and, on a log scale, for the values under its low end.
import { axisBottom } from 'd3-axis';
import { scaleLinear, scaleLog } from 'd3-scale';
import { select } from 'd3-selection';
import { isMultipleOfPowerOfTen, logTickLabel, powerOfTen } from '../format.js';
import { COLOR_SCALES, COLOR_STEPS, MASKED, SPECIAL_COLORS } from './colors.js';

const AXIS_HEIGHT_PX = 24;
const AXIS_MARGIN_PX = 8;   // room for the first and last tick labels
const TICKS = 5;
const TICK_CHAR_PX = 7;     // about one character of a tick label
const TICK_GAP_PX = 10;     // at least between two tick labels

/**
 * The ticks of `scale` (d3, linear) whose labels fit side by side in `width` pixels: d3's
 * ticks for at most `most`, fewer while their labels would touch. Returns {ticks, format}.
 */
export function fittingTicks(scale, width, most = TICKS) {
  for (let count = most; ; --count) {
    const ticks = scale.ticks(count);
    const format = scale.tickFormat(count);
    const needed = ticks.reduce((sum, tick) => sum + format(tick).length * TICK_CHAR_PX + TICK_GAP_PX, 0);
    if (needed <= width || count <= 2) return { ticks, format };
  }
}

const LOG_MANTISSAS = [1, 2, 5];  // a log axis's ticks where its domain holds fewer than two powers of ten

// Whether the labels of `ticks`, at their places on `scale`, keep TICK_GAP_PX apart.
function labelsApart(scale, ticks, format) {
  const half = (tick) => (format(tick).length * TICK_CHAR_PX) / 2;
  return ticks.every((tick, k) => k === 0 || scale(tick) - scale(ticks[k - 1]) >= half(tick) + half(ticks[k - 1]) + TICK_GAP_PX);
}

/**
 * The ticks of `scale` (d3, log) whose labels (logTickLabel: "1e-4", "0.01", "1") fit apart:
 * its powers of ten, every one, else every second, third … from the lowest (the low end of a
 * heatmap's log scale is often a power of ten: its floor); where the domain holds fewer than two,
 * 1, 2 and 5 times them, else what powers it holds. Returns {ticks, format}.
 */
export function fittingLogTicks(scale) {
  const format = logTickLabel;
  const [lo, hi] = scale.domain();
  const first = Math.ceil(Math.log10(lo) - 1e-9);
  const last = Math.floor(Math.log10(hi) + 1e-9);
  const powers = [];
  for (let exponent = first; exponent <= last; ++exponent) powers.push(powerOfTen(exponent));
  if (powers.length < 2) {
    const ticks = scale.ticks().filter((tick) => isMultipleOfPowerOfTen(tick, LOG_MANTISSAS));
    return { ticks: labelsApart(scale, ticks, format) ? ticks : powers, format };
  }
  for (let stride = 1; ; ++stride) {
    const ticks = powers.filter((_, k) => k % stride === 0);
    if (labelsApart(scale, ticks, format) || ticks.length <= 2) return { ticks, format };
  }
}

/**
 * The scale of a legend's axis over `domain` onto [start, start + width], linear or with `log`
 * logarithmic, and its ticks that fit: {scale, ticks, format}.
 */
export function legendAxis(domain, log, start, width, most = TICKS) {
  const scale = (log ? scaleLog() : scaleLinear()).domain(domain).range([start, start + width]);
  return { scale, ...(log ? fittingLogTicks(scale) : fittingTicks(scale, width, most)) };
}

/** The label of the swatch of the values under a log scale's low end, in its colour: "≤ 1e-6". */
export const belowLabel = (lo) => `≤ ${logTickLabel(lo)}`;

/** A legend's item: a swatch (`css`, its background, or `className`, its CSS class) and `label`. */
export function swatchItem({ css, className, label }) {
  const item = document.createElement('li');
  const swatch = document.createElement('span');
  swatch.className = `swatch${className ? ` ${className}` : ''}`;
  if (css) swatch.style.background = css;
  item.append(swatch, label);
  return item;
}

/**
 * Fills the legend's parts once; returns update({heading, domain, log, present}), present: which
 * colours outside the scale the heatmap shows ({masked, nan, infinity, below}, specialsIn), the only
 * swatches listed (below: values under the low end of a log scale, `log`); `scale`: the colour
 * scale, 'sequential' or 'diverging'.
 */
export function createLegend({ bar, axis, title, swatches, scale = 'sequential' }) {
  bar.width = COLOR_STEPS;
  bar.height = 1;
  const image = new ImageData(COLOR_STEPS, 1);
  image.data.set(COLOR_SCALES[scale].table);
  bar.getContext('2d').putImageData(image, 0, 0);
  const [r, g, b] = COLOR_SCALES[scale].table;
  const listed = { below: { css: `rgb(${r}, ${g}, ${b})`, label: '' }, masked: MASKED, ...SPECIAL_COLORS };
  const items = Object.fromEntries(Object.entries(listed).map(([name, colour]) => [name, swatchItem(colour)]));
  swatches.replaceChildren(...Object.values(items));

  return function update({ heading, domain, log = false, present }) {
    title.textContent = heading;
    const shown = { ...present, below: log && present.below };
    for (const [name, item] of Object.entries(items)) item.hidden = !shown[name];
    if (shown.below) items.below.lastChild.textContent = belowLabel(domain[0]);
    swatches.hidden = Object.keys(items).every((name) => !shown[name]);
    const width = bar.clientWidth;
    const { scale: axisScale, ticks, format } = legendAxis(domain, log, AXIS_MARGIN_PX, width);
    select(axis)
      .attr('width', width + 2 * AXIS_MARGIN_PX)
      .attr('height', AXIS_HEIGHT_PX)
      .selectAll('g')
      .data([null])
      .join('g')
      .call(axisBottom(axisScale).tickValues(ticks).tickFormat(format));
  };
}
