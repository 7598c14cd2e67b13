// Chart 2, RoPE's long-term decay: the weight the lab's model gives a key against its distance
// for the chosen base and strength, and RoFormer's bound of a query–key dot product for each
// base (the weight's base dashed, the others faint), each divided by its value at distance 0,
// on a logarithmic x axis, with a sentence on the weight at the longest distance. The weight's
// base is "chosen" only under RoPE: with another decay the RoPE controls are hidden, and the
// chart shows what the model would use.
import { format } from 'd3-format';
import { formatCount } from '../../shared/format.js';
import { createLineChart, seriesColor } from '../../shared/line-chart.js';
import { createAnnouncer } from '../../shared/page/announcer.js';
import { ROPE_HEAD_WIDTH } from '../state.js';
import { times } from './readouts.js';

const HEIGHT_PX = 230;
const WEIGHT_COLOR = seriesColor(0);
const BOUND_COLOR_FROM = 1;  // the bounds take the series colours after the weight's

const $ = (id) => document.getElementById(id);

/** Returns draw(rope, settings): rope is the 'rope' answer, or null. */
export function createRopeView() {
  const spoken = createAnnouncer($('rope-reading-spoken'));  // the reading, once a drag stops
  const chart = createLineChart($('rope-chart'), {
    xLabel: 'distance (tokens, log scale)', yLabel: '÷ its value at distance 0', xLog: true,
    xFormat: format('~s'), yFormat: format('.1f'), legend: $('rope-legend'), height: HEIGHT_PX,
  });

  return function draw(rope, settings) {
    if (!rope) return;
    const { weight, decay } = rope;
    const baseWords = settings.positional === 'rope' ? 'chosen' : 'the solid line\'s base';
    const series = [
      {
        label: `the model's weight exp(s·(g(d) − 1)), base ${formatCount(weight.base)}, s = ${weight.strength}`,
        xs: weight.distances.slice(1), ys: weight.values.slice(1), colorIndex: WEIGHT_COLOR,
      },
      ...decay.map(({ base, distances, values }, k) => ({
        label: `RoFormer's bound, base ${formatCount(base)}${base === weight.base ? ` (${baseWords})` : ''} (head width ${ROPE_HEAD_WIDTH})`,
        xs: distances.slice(1), ys: values.slice(1), colorIndex: seriesColor(BOUND_COLOR_FROM + k),
        style: base === weight.base ? 'dashed' : 'faint',
      })),
    ];
    const maxDistance = weight.distances[weight.distances.length - 1];
    chart({ series, xDomain: [1, maxDistance], yDomain: [0, Math.max(...series.flatMap((s) => s.ys))] });
    const farthest = weight.values[weight.values.length - 1];
    const uses = settings.positional === 'rope' ? 'The model uses this weight now' : 'The model uses this weight once the distance decay is RoPE';
    const reading = `${uses}: in one layer, with no content, the final token gives a key `
      + `${formatCount(maxDistance)} tokens before it ${times(farthest)}× the attention it gives itself (distance 0).`;
    $('rope-reading').textContent = reading;
    spoken.settled(reading);
  };
}
