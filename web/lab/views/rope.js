// Chart 2, RoPE's long-term decay: RoFormer's bound of a query–key dot product against their
// distance, one line per base, divided by its value at distance 0, on a logarithmic x axis.
import { format } from 'd3-format';
import { createLineChart, seriesColor } from '../../shared/line-chart.js';
import { ROPE_HEAD_WIDTH } from '../state.js';

const HEIGHT_PX = 230;

/** Returns draw(curves): curves is the 'curves' answer (its decay per base), or null. */
export function createRopeView() {
  const chart = createLineChart(document.getElementById('rope-chart'), {
    xLabel: 'distance (tokens, log scale)', yLabel: 'bound ÷ bound at 0', xLog: true,
    xFormat: format('~s'), yFormat: format('.1f'), legend: document.getElementById('rope-legend'), height: HEIGHT_PX,
  });

  return function draw(curves) {
    if (!curves) return;
    const series = curves.decay.map(({ base, distances, values }, k) => ({
      label: `base ${format(',')(base)} (head width ${ROPE_HEAD_WIDTH})`, xs: distances.slice(1), ys: values.slice(1), colorIndex: seriesColor(k),
    }));
    const maxDistance = series[0].xs[series[0].xs.length - 1];
    chart({ series, xDomain: [1, maxDistance], yDomain: [0, Math.max(...series.flatMap((s) => s.ys))] });
  };
}
