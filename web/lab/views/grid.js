// The needle-in-a-haystack grid: context length across, needle depth down, each cell
// coloured by retrieval on the viridis scale (darkest = low, yellow = high), with the value in
// the cell's tooltip, and a colour bar under it (inside the <svg>, so that its PNG and SVG files
// carry it), each end labelled with the value of the scale's end (the note under the grid says
// whether they are the grid's own lowest and highest). An attention mass spans decades (0.01×
// to 40× a fair share at the defaults), so its colours follow its logarithm, from the grid's
// lowest value above 0 (a 0 takes the darkest colour) to its highest (linearly from 0 when no
// two values above 0 differ); a top-1 rate runs linearly from 0 to 100%.
import { interpolateViridis } from 'd3-scale-chromatic';
import { scaleBand, scaleSequential, scaleSequentialLog } from 'd3-scale';
import { select } from 'd3-selection';
import { axisBottom, axisLeft } from 'd3-axis';
import { RATE_DOMAIN } from './readouts.js';

const MARGIN = { top: 8, right: 12, bottom: 96, left: 60 };
const SCALE_TOP_PX = 50;       // the colour bar, below the plot
const SCALE_HEIGHT_PX = 10;
const SCALE_LABEL_ROW_PX = 15; // the bar's labels, one or two rows under it
const SCALE_LABEL_GAP_PX = 12; // at least this much room between the two labels on one row
const SCALE_STOPS = 11;        // gradient stops along viridis
const SCALE_GRADIENT_ID = 'needle-grid-scale';
const ROW_PX = 22;
const MIN_WIDTH_PX = 260;
const MAX_WIDTH_PX = 720;
const LABEL_OFFSET_PX = 34;

/**
 * The colour of a value, and the kind of its scale: {color, log}. A log scale from the lowest
 * value above 0 to the highest; a linear one over [0, 1] when `linear` (a rate), and over
 * [0, highest] (or [0, 1]) when the values have no two different ones above 0 to span a log scale.
 */
export function colorScale(values, linear) {
  if (linear) return { color: scaleSequential(interpolateViridis).domain(RATE_DOMAIN).clamp(true), log: false };
  let low = Infinity;
  let high = -Infinity;
  for (const value of values) {
    if (value > 0) low = Math.min(low, value);
    high = Math.max(high, value);
  }
  if (!(low < high)) return { color: scaleSequential(interpolateViridis).domain([0, high > 0 ? high : 1]).clamp(true), log: false };
  return { color: scaleSequentialLog(interpolateViridis).domain([low, high]).clamp(true), log: true };
}

/** The note under the grid: what its colours span, and on which scale (`low`, `high` formatted). */
export function scaleNoteText({ low, high, log }) {
  return log
    ? `Colour, on a log scale: dark purple = ${low} (the grid's lowest above 0), yellow = ${high} (its highest).`
    : `Colour, on a linear scale: dark purple = ${low}, yellow = ${high}.`;
}

/**
 * Binds to `svg`; returns draw({lengths, depths, values, format, linear}): `linear` for a rate
 * in [0, 1], else a log scale where the values span one (colorScale). `scaleNote` receives the
 * note on the colours' range and scale (scaleNoteText).
 */
export function createGrid(svg, { scaleNote }) {
  const root = select(svg);
  const plot = root.append('g').attr('transform', `translate(${MARGIN.left},${MARGIN.top})`);
  const cells = plot.append('g').attr('class', 'cells');
  const xAxis = plot.append('g').attr('class', 'axis');
  const yAxis = plot.append('g').attr('class', 'axis');
  const xTitle = plot.append('text').attr('class', 'axis-title').attr('text-anchor', 'middle').text('context length n (tokens)');
  const yTitle = plot.append('text').attr('class', 'axis-title').attr('text-anchor', 'middle')
    .attr('transform', 'rotate(-90)').text('needle depth');
  const gradient = root.append('defs').append('linearGradient').attr('id', SCALE_GRADIENT_ID);
  gradient.selectAll('stop').data(Array.from({ length: SCALE_STOPS }, (_, k) => k / (SCALE_STOPS - 1))).join('stop')
    .attr('offset', (t) => t).attr('stop-color', (t) => interpolateViridis(t));
  const colorBar = plot.append('g').attr('class', 'grid-color-bar');
  const bar = colorBar.append('rect').attr('height', SCALE_HEIGHT_PX).attr('fill', `url(#${SCALE_GRADIENT_ID})`);
  const lowLabel = colorBar.append('text').attr('class', 'axis-title').attr('y', SCALE_HEIGHT_PX + SCALE_LABEL_ROW_PX);
  const highLabel = colorBar.append('text').attr('class', 'axis-title').attr('text-anchor', 'end');

  return function draw({ lengths, depths, values, format, linear = false }) {
    const width = Math.min(MAX_WIDTH_PX, Math.max(MIN_WIDTH_PX, svg.parentElement.clientWidth));
    const innerWidth = width - MARGIN.left - MARGIN.right;
    const innerHeight = depths.length * ROW_PX;
    const height = innerHeight + MARGIN.top + MARGIN.bottom;
    root.attr('width', width).attr('height', height).attr('viewBox', `0 0 ${width} ${height}`);
    const x = scaleBand().domain(lengths).range([0, innerWidth]).padding(0.04);
    const y = scaleBand().domain(depths.map((_, d) => d)).range([0, innerHeight]).padding(0.04);
    const { color, log } = colorScale(values, linear);
    const [low, high] = color.domain();
    const data = values.map((value, k) => ({ value, r: Math.floor(k / depths.length), d: k % depths.length }));
    cells.selectAll('rect').data(data).join('rect')
      .attr('x', (c) => x(lengths[c.r])).attr('y', (c) => y(c.d))
      .attr('width', x.bandwidth()).attr('height', y.bandwidth())
      .attr('fill', (c) => color(c.value))
      .selectAll('title').data((c) => [c]).join('title')
      .text((c) => `n = ${lengths[c.r]}, depth ${Math.round(depths[c.d] * 100)}%: ${format(c.value)}`);
    xAxis.attr('transform', `translate(0,${innerHeight})`).call(axisBottom(x));
    yAxis.call(axisLeft(y).tickFormat((d) => `${Math.round(depths[d] * 100)}%`));
    xTitle.attr('x', innerWidth / 2).attr('y', innerHeight + LABEL_OFFSET_PX + 4);
    yTitle.attr('x', -innerHeight / 2).attr('y', -LABEL_OFFSET_PX - 12);
    // the bar spans the plot; its labels sit under its ends, on two rows when one is too narrow
    colorBar.attr('transform', `translate(0,${innerHeight + SCALE_TOP_PX})`);
    bar.attr('width', innerWidth);
    lowLabel.text(format(low));
    highLabel.text(format(high)).attr('x', innerWidth);
    const oneRow = lowLabel.node().getComputedTextLength() + SCALE_LABEL_GAP_PX + highLabel.node().getComputedTextLength() <= innerWidth;
    highLabel.attr('y', SCALE_HEIGHT_PX + SCALE_LABEL_ROW_PX * (oneRow ? 1 : 2));
    scaleNote(scaleNoteText({ low: format(low), high: format(high), log }));
  };
}
