// Row and column profile under the matrix, readable at any length: the selected query's
// weights over the keys on display, and the mean weight each key receives from all queries.
// Both come pooled to at most a few hundred points (max or mean of each stretch of keys).
import { axisBottom, axisLeft } from 'd3-axis';
import { max } from 'd3-array';
import { format } from 'd3-format';
import { scaleLinear } from 'd3-scale';
import { select } from 'd3-selection';
import { line } from 'd3-shape';

const HEIGHT_PX = 150;
const MARGIN = { top: 10, right: 12, bottom: 26, left: 46 };
const X_TICKS = 6;
const Y_TICKS = 4;

/** Draws into `svg`: {start, stretch, row, column}; rows of keys from `start` in stretches. */
export function drawProfile(svg, { start, stretch, row, column }) {
  const width = svg.parentElement.clientWidth;
  const count = row.length * stretch;
  const x = scaleLinear().domain([start, start + count]).range([MARGIN.left, width - MARGIN.right]);
  const top = max([...row, ...column].filter(Number.isFinite)) || 1;
  const y = scaleLinear().domain([0, top]).nice().range([HEIGHT_PX - MARGIN.bottom, MARGIN.top]);
  const path = line()
    .defined((v) => Number.isFinite(v))
    .x((_, p) => x(start + (p + 0.5) * stretch))
    .y((v) => y(v));
  const root = select(svg).attr('width', width).attr('height', HEIGHT_PX)
    .attr('viewBox', `0 0 ${width} ${HEIGHT_PX}`);
  root.selectAll('g.x-axis').data([null]).join('g').attr('class', 'x-axis')
    .attr('transform', `translate(0, ${HEIGHT_PX - MARGIN.bottom})`)
    .call(axisBottom(x).ticks(Math.min(X_TICKS, count)).tickFormat(format('d')));
  root.selectAll('g.y-axis').data([null]).join('g').attr('class', 'y-axis')
    .attr('transform', `translate(${MARGIN.left}, 0)`)
    .call(axisLeft(y).ticks(Y_TICKS));
  root.selectAll('path.series').data([{ name: 'row', values: row }, { name: 'column', values: column }])
    .join('path')
    .attr('class', (d) => `series series-${d.name}`)
    .attr('d', (d) => path(Array.from(d.values)));
}
