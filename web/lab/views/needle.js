// Chart 3, a needle in the haystack: retrieval of the needle at each depth (a line chart with
// its read-outs, led by the worst depth), the same sweep for several context lengths as a depth × length grid, and a
// note on the context length the experiments use.
import { formatCount, plural } from '../../shared/format.js';
import { createLineChart, seriesColor } from '../../shared/line-chart.js';
import { drawsAtRandom, NEEDLE_DEPTHS, RETRIEVER_NOISE } from '../state.js';
import { createGrid } from './grid.js';
import { summaryList } from '../../shared/page/summary.js';
import { metricFormat, percent, ratio, retrievalAxis, retrievalTitles, times, worstOf } from './readouts.js';

const $ = (id) => document.getElementById(id);

/** Returns {note(n, settings), sweep(needle, settings), grid(grid, settings)}; a null answer draws nothing. */
export function createNeedleView() {
  const chart = createLineChart($('needle-chart'), {
    xLabel: 'needle depth', xFormat: percent,  // the y axis titled by the metric (retrievalAxis)
  });
  const drawGrid = createGrid($('needle-grid'), { scaleNote: (text) => { $('grid-scale').textContent = text; } });

  return {
    // The experiments' context length: n, or less for RoPE (state.js, experimentLength); their
    // trials, one without noise, where the engine runs one: every seeded trial would be the same;
    // chart 4's reordering, whose retriever's estimate is noisy, runs them all (drawsAtRandom).
    note(n, settings) {
      const documents = `${formatCount(n - 1)} documents of one token each before the final token`;
      let trials = drawsAtRandom(settings) ? plural(settings.trials, 'seeded trial')
        : 'one trial: with no distractor noise every seeded trial would be the same';
      if (!drawsAtRandom(settings) && drawsAtRandom(settings, { mitigated: true })) {
        trials += `; chart 4's sweep after reordering, ${plural(settings.trials, 'seeded trial')}: the retriever's estimate `
          + `has noise of its own (σ = ${RETRIEVER_NOISE})`;
      }
      const length = n < settings.n
        ? `With RoPE the needle experiments use n = ${formatCount(n)} tokens (RoPE has no O(n) path in the engine)`
        : `n = ${formatCount(n)} tokens`;
      $('needle-note').textContent = `${length}: ${documents}; ${NEEDLE_DEPTHS} depths, ${trials}.`;
    },

    sweep(needle, settings) {
      if (!needle) return;
      const { sweep } = needle;
      const label = settings.metric === 'mass' ? 'attention mass on the needle' : 'top-1 rate';
      chart({
        series: [{
          label, xs: Array.from(sweep.depths), ys: Array.from(sweep.retrieval), colorIndex: seriesColor(0), points: true,
          pointTitles: retrievalTitles(settings, label, sweep.depths, sweep.retrieval),
        }],
        xDomain: [0, 1], ...retrievalAxis(settings, Math.max(...sweep.retrieval)),
      });
      const f = metricFormat(settings);
      const worst = worstOf(sweep);
      summaryList($('needle-summary'), [
        ['worst depth', `${f(worst.value)} at ${percent(worst.depth)}`],
        ['first document', f(sweep.summary.begin)], ['middle', f(sweep.summary.middle)],
        ['last document', f(sweep.summary.end)], ['max ÷ min', ratio(sweep.summary.maxOverMin)],
      ]);
    },

    grid(result, settings) {
      if (!result) return;
      // Mass shrinks with n as every token's share does: show it as a multiple of a fair share 1/(n-1).
      const values = Array.from(result.values, (v, k) => (settings.metric === 'mass' ? v * (result.lengths[Math.floor(k / result.cols)] - 1) : v));
      const fairShare = (v) => `${times(v)}× a fair share`;
      drawGrid({
        lengths: Array.from(result.lengths), depths: Array.from(result.depths), values,
        format: settings.metric === 'mass' ? fairShare : percent, linear: settings.metric !== 'mass',
      });
    },
  };
}
