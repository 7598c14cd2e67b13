// The heatmap's legend: the colour bar from the same table as the cells, a d3 axis with the
// domain on display, and swatches for the colours outside the scale (the masked cells'
// hatching is a CSS class, so that it follows the colour scheme as the canvas does).
import { axisBottom } from 'd3-axis';
import { scaleLinear } from 'd3-scale';
import { select } from 'd3-selection';
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
 * Fills the legend's parts once; returns update({heading, domain, present}), present: which
 * colours outside the scale the heatmap shows ({masked, nan, infinity}, specialsIn), the only
 * swatches listed; `scale`: the colour scale, 'sequential' or 'diverging'.
 */
export function createLegend({ bar, axis, title, swatches, scale = 'sequential' }) {
  bar.width = COLOR_STEPS;
  bar.height = 1;
  const image = new ImageData(COLOR_STEPS, 1);
  image.data.set(COLOR_SCALES[scale].table);
  bar.getContext('2d').putImageData(image, 0, 0);
  const listed = { masked: MASKED, ...SPECIAL_COLORS };
  const items = Object.fromEntries(Object.entries(listed).map(([name, colour]) => [name, swatchItem(colour)]));
  swatches.replaceChildren(...Object.values(items));

  return function update({ heading, domain, present }) {
    title.textContent = heading;
    for (const [name, item] of Object.entries(items)) item.hidden = !present[name];
    swatches.hidden = Object.keys(items).every((name) => !present[name]);
    const width = bar.clientWidth;
    const scale = scaleLinear().domain(domain).range([AXIS_MARGIN_PX, width + AXIS_MARGIN_PX]);
    const { ticks, format } = fittingTicks(scale, width);
    select(axis)
      .attr('width', width + 2 * AXIS_MARGIN_PX)
      .attr('height', AXIS_HEIGHT_PX)
      .selectAll('g')
      .data([null])
      .join('g')
      .call(axisBottom(scale).tickValues(ticks).tickFormat(format));
  };
}
