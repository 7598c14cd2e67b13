// Chart 4, mitigations: the needle sweep before (dashed) and after the chosen mitigation, the
// read-outs led by the mean and the worst depth (before → after), a sentence saying what the
// mitigation did with these settings, and what it does in the literature and in the model.
import { format } from 'd3-format';
import { plural } from '../../shared/format.js';
import { KEY_COLOR, createLineChart, seriesColor } from '../../shared/line-chart.js';
import { drawsAtRandom } from '../state.js';
import { COMPARE, MITIGATIONS } from '../mitigations.js';
import { summaryList } from '../../shared/page/summary.js';
import { metricFormat, percent, ratio, retrievalAxis, retrievalTitles, worstOf } from './readouts.js';

const BEFORE_COLOR = KEY_COLOR;  // the sweep before is the reference
const AFTER_COLOR = seriesColor(0);

const $ = (id) => document.getElementById(id);
const stepText = format('.3~%');  // one trial's step of a rate: 12.5%, 33.3%

// What a top-1 verdict rests on: ' Each depth's rate counts 8 seeded trials: it moves in steps
// of 12.5%, and a step or two can be chance.' ('' for the mass, and without noise, where every
// trial would be the same and the engine runs one).
function trialsNote(settings) {
  if (settings.metric !== 'top1' || !drawsAtRandom(settings)) return '';
  return ` Each depth's rate counts ${plural(settings.trials, 'seeded trial')}: it moves in steps of `
    + `${stepText(1 / settings.trials)}, and a step or two can be chance.`;
}

// "raises X from a to b", "lowers …" or "leaves X at a" (as the read-outs write them).
function change(what, before, after, f) {
  if (f(before) === f(after)) return `leaves ${what} at ${f(before)}`;
  return `${after > before ? 'raises' : 'lowers'} ${what} from ${f(before)} to ${f(after)}`;
}

function paragraph(text) {
  const p = document.createElement('p');
  p.textContent = text;
  return p;
}

/**
 * Returns draw(mitigation, settings): mitigation is {value: {before, after}, settings}
 * (the settings it was computed with), or null. The chart and read-outs are the computed
 * mitigation's; the text describes the chosen one at once, and while that is not the one
 * computed yet, says that the chart still shows the other.
 */
export function createMitigationView() {
  const chart = createLineChart($('mitigation-chart'), {
    xLabel: 'needle depth', xFormat: percent,  // the y axis titled by the metric (retrievalAxis)
    legend: $('mitigation-legend'),
  });

  return function draw(mitigation, settings) {
    if (!mitigation) return;
    const computed = mitigation.settings;
    const { before, after } = mitigation.value;
    const depths = Array.from(before.depths);
    const info = MITIGATIONS[computed.mitigation];
    const afterLabel = `after: ${info.name}`;
    chart({
      series: [
        {
          label: 'before', xs: depths, ys: Array.from(before.retrieval), colorIndex: BEFORE_COLOR, style: 'dashed', points: true,
          pointTitles: retrievalTitles(computed, 'before', depths, before.retrieval),
        },
        {
          label: afterLabel, xs: depths, ys: Array.from(after.retrieval), colorIndex: AFTER_COLOR, points: true,
          pointTitles: retrievalTitles(computed, afterLabel, depths, after.retrieval),
        },
      ],
      xDomain: [0, 1], ...retrievalAxis(computed, Math.max(...before.retrieval, ...after.retrieval)),
    });
    const f = metricFormat(computed);
    const worst = [worstOf(before), worstOf(after)];
    const atDepth = ({ value, depth }) => `${f(value)} at ${percent(depth)}`;
    summaryList($('mitigation-summary'), [
      ['mean', `${f(before.summary.mean)} → ${f(after.summary.mean)}`],
      ['worst depth', `${atDepth(worst[0])} → ${atDepth(worst[1])}`],
      ['middle', `${f(before.summary.middle)} → ${f(after.summary.middle)}`],
      ['max ÷ min', `${ratio(before.summary.maxOverMin)} → ${ratio(after.summary.maxOverMin)}`],
    ]);
    const chosen = MITIGATIONS[settings.mitigation];
    const heading = document.createElement('h3');
    heading.id = 'mitigation-name';  // with the verdict, the chart's accessible name (lab.html)
    heading.textContent = chosen.name;
    const verdict = paragraph(chosen === info
      ? `With these settings it ${change('the mean', before.summary.mean, after.summary.mean, f)} and `
        + `${change('the worst depth', worst[0].value, worst[1].value, f)}.${trialsNote(computed)}`
      : `The chart still shows ${info.name}, until this mitigation's numbers come.`);
    verdict.className = 'reading';
    verdict.id = 'mitigation-verdict';
    $('mitigation-text').replaceChildren(heading, verdict, ...[chosen.what, chosen.model, chosen.helps, COMPARE].map(paragraph));
  };
}
