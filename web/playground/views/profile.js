// Row and column profile under the matrix, readable at any length: the selected query's
// weights over the keys on display, and the mean weight each key receives from all queries
// (from the queries fed so far, generating step by step: the worker's `profiles`).
// Both come pooled to at most a few hundred points (max or mean of each stretch of keys).
// The x axis counts token positions: a point stands at its token (or at the middle of its
// stretch of tokens), and each tick is a whole position, under the point of that token.
import { axisBottom, axisLeft } from 'd3-axis';
import { max, min } from 'd3-array';
import { format } from 'd3-format';
import { scaleLinear } from 'd3-scale';
import { select } from 'd3-selection';
import { line } from 'd3-shape';

const HEIGHT_PX = 150;
const MARGIN = { top: 10, right: 12, bottom: 26, left: 46 };
const X_TICKS = 6;
const Y_TICKS = 4;
const MAX_MARKED_POINTS = 64;  // up to this many points per series get a dot each
const POINT_RADIUS_PX = 2.5;
const HALF = 0.5;              // a lone point gets half a token of room on either side

/** Empties `svg` (no tokens to profile). */
export function clearProfile(svg) {
  select(svg).attr('height', 0).attr('data-row', null).attr('data-column', null).selectAll('*').remove();
}

/**
 * Draws into `svg`: {start, count, stretch, row, column}: tokens [start, start+count) in
 * points of `stretch` tokens (the last one may hold fewer).
 */
export function drawProfile(svg, { start, count, stretch, row, column }) {
  // whole pixels within the frame (clientWidth rounds a frame of 191.5 px up to 192)
  const width = Math.floor(svg.parentElement.getBoundingClientRect().width);
  const last = start + count - 1;
  const position = (p) => {
    const first = start + p * stretch;
    return (first + Math.min(last, first + stretch - 1)) / 2;
  };
  const domain = count === 1 ? [start - HALF, start + HALF] : [position(0), position(row.length - 1)];
  const x = scaleLinear().domain(domain).range([MARGIN.left, width - MARGIN.right]);
  // from 0, or below it where a weight is negative (the plain sum ω/Σω of negative scores)
  const finite = [...row, ...column].filter(Number.isFinite);
  const top = max(finite) || 1;
  const bottom = Math.min(0, min(finite) ?? 0);
  const y = scaleLinear().domain([bottom, top]).nice().range([HEIGHT_PX - MARGIN.bottom, MARGIN.top]);
  const path = line()
    .defined((v) => Number.isFinite(v))
    .x((_, p) => x(position(p)))
    .y((v) => y(v));
  // whole token positions only: a tick between two tokens would name no token
  const ticks = x.ticks(Math.min(X_TICKS, count)).filter(Number.isInteger);
  // the points' values, for tests and anyone reading the page's numbers
  const root = select(svg).attr('width', width).attr('height', HEIGHT_PX)
    .attr('viewBox', `0 0 ${width} ${HEIGHT_PX}`)
    .attr('data-row', Array.from(row).join(','))
    .attr('data-column', Array.from(column).join(','));
  root.selectAll('g.x-axis').data([null]).join('g').attr('class', 'x-axis')
    .attr('transform', `translate(0, ${HEIGHT_PX - MARGIN.bottom})`)
    .call(axisBottom(x).tickValues(ticks).tickFormat(format('d')));
  root.selectAll('g.y-axis').data([null]).join('g').attr('class', 'y-axis')
    .attr('transform', `translate(${MARGIN.left}, 0)`)
    .call(axisLeft(y).ticks(Y_TICKS));
  const series = [{ name: 'row', values: Array.from(row) }, { name: 'column', values: Array.from(column) }];
  root.selectAll('path.series').data(series)
    .join('path')
    .attr('class', (d) => `series series-${d.name}`)
    .attr('d', (d) => path(d.values));
  const marked = row.length <= MAX_MARKED_POINTS ? series : [];
  root.selectAll('g.points').data(marked, (d) => d.name)
    .join('g')
    .attr('class', (d) => `points points-${d.name}`)
    .selectAll('circle')
    .data((d) => d.values.map((v, p) => ({ v, p })).filter(({ v }) => Number.isFinite(v)))
    .join('circle')
    .attr('cx', ({ p }) => x(position(p)))
    .attr('cy', ({ v }) => y(v))
    .attr('r', POINT_RADIUS_PX);
}
