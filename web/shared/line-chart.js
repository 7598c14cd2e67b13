// Line charts, drawn with d3 into an <svg>: axes (linear or logarithmic) with their titles (the
// y axis's clear of its tick labels, the left margin growing for wide ones), one path per series
// (solid, dashed, dotted or faint, coloured by CSS class series-K), an optional band around a
// series (a spread, shaded in its colour), optional point markers with their values as tooltips,
// and a legend kept as an HTML list beside the chart (<ul class="chart-legend">). Its styles,
// line-chart.css, come with it into the page's bundled CSS.
import { axisBottom, axisLeft } from 'd3-axis';
import { scaleLinear, scaleLog } from 'd3-scale';
import { select } from 'd3-selection';
import { area, line } from 'd3-shape';
import { logAxisFormat, logTickLabel, ticksWithEnds } from './format.js';
import './line-chart.css';

const MARGIN = { top: 14, right: 18, bottom: 44, left: 60 };
const DEFAULT_HEIGHT_PX = 260;
const MIN_WIDTH_PX = 260;
const X_TICKS_PER_PX = 1 / 90;   // one x tick per this many pixels
const Y_TICKS = 5;
const POINT_RADIUS_PX = 3.5;
const LABEL_OFFSET_PX = 34;      // axis titles sit this far outside the plot
const Y_TITLE_BASELINE_PX = -LABEL_OFFSET_PX - 12;  // the y axis title's baseline, left of the plot
// The y axis title keeps this much room from the widest tick label: where the labels are wider
// than the default margin leaves room for ("0.012", "100%"), the title moves left and the left
// margin grows by as much.
const Y_TITLE_GAP_PX = 8;
const CLIP_ID_PREFIX = 'line-chart-clip-';
let charts = 0;                   // charts made so far on the page: each clip path's id is its own

/** The palette's grey (series-3 in line-chart.css): for keys and reference lines, such as chance. */
export const KEY_COLOR = 3;
const DATA_COLORS = [0, 1, 2, 4, 5, 6, 7];  // the palette without its grey

/** The colour index of the k-th data series: the palette in order, leaving out the key's grey. */
export const seriesColor = (k) => DATA_COLORS[k % DATA_COLORS.length];

// How far left of its default place, in whole pixels, the y axis title must go to stay
// Y_TITLE_GAP_PX clear of the y axis's tick labels, as drawn (0 where it is already, and for a
// chart not laid out, which measures nothing). The title is rotated a quarter turn: its box's
// vertical extent, before the rotation, is its horizontal extent on the page.
function yTitleShift(axis, title) {
  const labels = [...axis.querySelectorAll('.tick text')].map((text) => text.getBBox()).filter((box) => box.width > 0);
  if (labels.length === 0) return 0;
  const labelsLeft = Math.min(...labels.map((box) => box.x));  // a tick's group moves it up or down only
  const box = title.getBBox();
  const titleRight = box.y + box.height;
  return Math.max(0, Math.ceil(titleRight + Y_TITLE_GAP_PX - labelsLeft));  // the plot's edges stay on whole pixels
}

/**
 * Binds a chart to `svg`. Returns draw({series, xDomain, yDomain, yLog, yFormat, yLabel, xTickValues}) where each series
 * is {label, xs, ys, colorIndex, style: 'solid' | 'dashed' | 'dotted' | 'faint', points:
 * boolean, band: {lows, highs} (shaded between them, at xs), id (the group's data-series),
 * title (the line's tooltip), pointTitles (each point's tooltip, in place of label: x → y),
 * opacity (the whole series')}.
 * With yLog, values ≤ 0 leave a gap, and the axis spans yDomain exactly (a linear one is widened to round ticks). Lines and bands are clipped to the plot area. With
 * integerX the x axis ticks only whole numbers. A yFormat or a yLabel given to draw() replaces
 * the chart's for that drawing (a y axis whose measure changes with a setting): the y axis title,
 * and the format in the ticks of a linear axis
 * and in the tooltips (a log axis's ticks are written by format.js logTickLabel: 0.001, 1e-6);
 * xTickValues, when given, are the x axis's ticks (the positions where the data sit).
 */
export function createLineChart(svg, {
  xLabel, yLabel, xLog = false, xFormat, yFormat, height = DEFAULT_HEIGHT_PX, legend, integerX = false,
}) {
  const root = select(svg).attr('height', height);
  charts += 1;
  const clipId = `${CLIP_ID_PREFIX}${charts}`;
  const clipRect = root.append('defs').append('clipPath').attr('id', clipId).append('rect');
  const plot = root.append('g').attr('transform', `translate(${MARGIN.left},${MARGIN.top})`);
  const xAxis = plot.append('g').attr('class', 'axis x-axis');
  const yAxis = plot.append('g').attr('class', 'axis y-axis');
  const lines = plot.append('g').attr('class', 'lines');
  const xTitle = plot.append('text').attr('class', 'axis-title').attr('text-anchor', 'middle').text(xLabel);
  const yTitle = plot.append('text').attr('class', 'axis-title').attr('text-anchor', 'middle')
    .attr('transform', 'rotate(-90)').text(yLabel);

  return function draw({
    series, xDomain, yDomain, yLog = false, yFormat: drawnYFormat = yFormat, yLabel: drawnYLabel = yLabel, xTickValues,
  }) {
    const width = Math.max(MIN_WIDTH_PX, svg.parentElement.clientWidth);
    root.attr('width', width).attr('viewBox', `0 0 ${width} ${height}`);
    const innerHeight = height - MARGIN.top - MARGIN.bottom;
    // a log axis spans the domain given, not widened to whole decades: a curve from 0.82 to 5.5
    // would take the middle third of an axis from 0.1 to 10
    const y = yLog ? scaleLog().domain(yDomain).range([innerHeight, 0])
      : scaleLinear().domain(yDomain).nice(Y_TICKS).range([innerHeight, 0]);
    const left = yLog ? axisLeft(y).ticks(Y_TICKS).tickFormat(logAxisFormat(y.domain(), logTickLabel))
      : axisLeft(y).ticks(Y_TICKS, drawnYFormat);
    yAxis.call(left);
    yTitle.attr('x', -innerHeight / 2).attr('y', Y_TITLE_BASELINE_PX).text(drawnYLabel);
    const shift = yTitleShift(yAxis.node(), yTitle.node());
    yTitle.attr('y', Y_TITLE_BASELINE_PX - shift);
    const marginLeft = MARGIN.left + shift;
    plot.attr('transform', `translate(${marginLeft},${MARGIN.top})`);
    const innerWidth = width - marginLeft - MARGIN.right;
    clipRect.attr('width', innerWidth).attr('height', innerHeight);
    const x = (xLog ? scaleLog() : scaleLinear()).domain(xDomain).range([0, innerWidth]);

    const xTicks = Math.max(2, Math.round(innerWidth * X_TICKS_PER_PX));
    const bottom = axisBottom(x).ticks(xTicks, xFormat);
    if (xTickValues) {
      bottom.tickValues(xTickValues);
    } else if (!xLog) {
      const ticks = x.ticks(xTicks).filter((value) => !integerX || Number.isInteger(value));
      bottom.tickValues(ticksWithEnds(ticks, x.domain()));
    }
    xAxis.attr('transform', `translate(0,${innerHeight})`).call(bottom);
    xTitle.attr('x', innerWidth / 2).attr('y', innerHeight + LABEL_OFFSET_PX + 4);

    const shown = (value) => Number.isFinite(value) && (!yLog || value > 0);
    const path = line().defined(([, value]) => shown(value)).x(([xv]) => x(xv)).y(([, yv]) => y(yv));
    const pointsOf = (s) => s.xs.map((xv, k) => [xv, s.ys[k], k]).filter(([xv]) => !xLog || xv > 0);
    const markersOf = (s) => (s.points ? pointsOf(s).filter(([, yv]) => shown(yv)).map((p) => ({ p, s })) : []);
    const shade = area().defined(([, low, high]) => shown(low) && shown(high))
      .x(([xv]) => x(xv)).y0(([, low]) => y(low)).y1(([, , high]) => y(high));
    const bandOf = (s) => s.xs.map((xv, k) => [xv, s.band.lows[k], s.band.highs[k]]).filter(([xv]) => !xLog || xv > 0);
    const groups = lines.selectAll('g.series').data(series).join('g')
      .attr('class', (s) => `series series-${s.colorIndex} ${s.style ?? 'solid'}`)
      .attr('data-series', (s) => s.id ?? null)
      .attr('opacity', (s) => s.opacity ?? null);  // an attribute: a style attribute would break the strict CSP in an SVG export
    groups.selectAll('path.band').data((s) => (s.band ? [s] : []))
      .join((enter) => enter.insert('path', ':first-child')).attr('class', 'band')
      .attr('clip-path', `url(#${clipId})`).attr('d', (s) => shade(bandOf(s)));
    groups.selectAll('path.line').data((s) => [s]).join('path').attr('class', 'line')
      .attr('clip-path', `url(#${clipId})`).attr('d', (s) => path(pointsOf(s)))
      .selectAll('title').data((s) => (s.title ? [s.title] : [])).join('title').text((title) => title);
    groups.selectAll('circle').data(markersOf).join('circle')
      .attr('cx', ({ p }) => x(p[0])).attr('cy', ({ p }) => y(p[1])).attr('r', POINT_RADIUS_PX)
      .selectAll('title').data((d) => [d]).join('title')
      .text(({ p, s }) => s.pointTitles?.[p[2]] ?? `${s.label}: ${xFormat ? xFormat(p[0]) : p[0]} → ${drawnYFormat ? drawnYFormat(p[1]) : p[1]}`);

    if (legend) {
      select(legend).selectAll('li').data(series.filter((s) => s.label)).join('li')
        .attr('class', (s) => `series-${s.colorIndex} ${s.style ?? 'solid'}`)
        .text((s) => s.label);
    }
  };
}
