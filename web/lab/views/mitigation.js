// Chart 4, mitigations: the needle sweep before (dashed) and after the chosen mitigation, the
// read-outs that changed, and what the mitigation does in the literature and in the model.
import { KEY_COLOR, createLineChart, seriesColor } from '../../shared/line-chart.js';
import { MITIGATIONS } from '../mitigations.js';
import { summaryList } from '../../shared/page/summary.js';
import { metricFormat, percent, ratio, retrievalAxis } from './readouts.js';

const BEFORE_COLOR = KEY_COLOR;  // the sweep before is the reference
const AFTER_COLOR = seriesColor(0);

const $ = (id) => document.getElementById(id);

function paragraph(text) {
  const p = document.createElement('p');
  p.textContent = text;
  return p;
}

/** Returns draw(mitigation, settings): mitigation is {value: {before, after}, milliseconds}, or null. */
export function createMitigationView() {
  const chart = createLineChart($('mitigation-chart'), {
    xLabel: 'needle depth', yLabel: 'retrieval', xFormat: percent,
    legend: $('mitigation-legend'),
  });

  return function draw(mitigation, settings) {
    if (!mitigation) return;
    const { before, after } = mitigation.value;
    const depths = Array.from(before.depths);
    const info = MITIGATIONS[settings.mitigation];
    chart({
      series: [
        { label: 'before', xs: depths, ys: Array.from(before.retrieval), colorIndex: BEFORE_COLOR, style: 'dashed', points: true },
        { label: `after: ${info.name}`, xs: depths, ys: Array.from(after.retrieval), colorIndex: AFTER_COLOR, points: true },
      ],
      xDomain: [0, 1], ...retrievalAxis(settings, Math.max(...before.retrieval, ...after.retrieval)),
    });
    const f = metricFormat(settings);
    summaryList($('mitigation-summary'), [
      ['max ÷ min', `${ratio(before.summary.maxOverMin)} → ${ratio(after.summary.maxOverMin)}`],
      ['middle', `${f(before.summary.middle)} → ${f(after.summary.middle)}`],
      ['mean', `${f(before.summary.mean)} → ${f(after.summary.mean)}`],
    ]);
    const heading = document.createElement('h3');
    heading.textContent = info.name;
    $('mitigation-text').replaceChildren(heading, ...[info.what, info.model, info.expect].map(paragraph));
    $('mitigation-timing').textContent = `${mitigation.milliseconds.toFixed(0)} ms`;
  };
}
