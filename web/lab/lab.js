// The lost-in-the-middle lab: wiring of controls, engine workers and charts. The engine
// runs in two module workers (web/lab-worker.js): one answers the live curves, the other
// the needle experiments, so that sliders stay live while a grid is computed.
import { format } from 'd3-format';
import { createLineChart } from '../shared/line-chart.js';
import { createGrid } from './views/grid.js';
import { MITIGATIONS } from './mitigations.js';
import { curvesFor, DOCUMENT_COUNTS, SOURCE } from './published.js';
import {
  experimentLength, gridLengths, LENGTHS, modelOptions, needleOptions, parseHash, PRESETS, RANGES,
  ROPE_BASES, ROPE_HEAD_WIDTH, SLOPE_LOG_RANGE, sliderToSlope, toHash, WINDOWS,
} from './state.js';
import { listBriefly } from '../shared/format.js';
import { Superseded, createWorkerClient } from '../shared/worker/client.js';
import './lab.css';

const $ = (id) => document.getElementById(id);
const times = format('.2~f');
const share = format('.1%');
const percent = format('.0%');
const mass = format('.3~g');
const ratio = (value) => (Number.isFinite(value) ? `${format('.3~g')(value)}×` : '∞ (some value is 0)');
const slopeText = format('.2~e');
// The ratio beyond which a curve's end counts as clearly above or below its middle.
const CLEAR_DIFFERENCE = 1.1;
// On the log scale, shares below this fraction of the largest are left out (a window's
// unreachable start is exactly 0).
const LOG_FLOOR = 1e-6;

let settings;

// Reads the link's settings; what it holds that the controls cannot take is listed in a notice.
function readHash() {
  const { settings: parsed, problems } = parseHash(window.location.hash, { documents: DOCUMENT_COUNTS });
  settings = parsed;
  const notices = $('link-notices');
  notices.replaceChildren();
  if (problems.length === 0) return;
  const item = document.createElement('p');
  item.className = 'notice';
  const text = document.createElement('span');
  text.textContent = `Some settings in the link were ignored: ${listBriefly(problems)}.`;
  const close = document.createElement('button');
  close.type = 'button';
  close.textContent = 'Dismiss';
  close.addEventListener('click', () => item.remove());
  item.append(text, close);
  notices.append(item);
}
readHash();

// ---- engine workers -------------------------------------------------------------------------

const startWorker = () => new Worker(new URL('./lab-worker.js', import.meta.url), { type: 'module' });
const curvesEngine = createWorkerClient(startWorker());
const experimentsEngine = createWorkerClient(startWorker());

function showError(error) {
  const item = document.createElement('p');
  item.className = 'error';
  item.textContent = error.message;
  $('notices').replaceChildren(item);
}

// ---- charts -----------------------------------------------------------------------------------

const positionChart = createLineChart($('position-chart'), {
  xLabel: 'position in the context (relative)',
  yLabel: 'share ÷ average', xFormat: percent, yFormat: format('.2~f'),
});
const ropeChart = createLineChart($('rope-chart'), {
  xLabel: 'distance (tokens, log scale)', yLabel: 'bound ÷ bound at 0', xLog: true,
  xFormat: format('~s'), yFormat: format('.1f'), legend: $('rope-legend'), height: 230,
});
const needleChart = createLineChart($('needle-chart'), {
  xLabel: 'needle depth', yLabel: 'retrieval', xFormat: percent,
});
const needleGrid = createGrid($('needle-grid'), {
  scaleNote({ low, high }) {
    $('grid-scale').textContent = `Colour: dark purple = ${low} (lowest in the grid), yellow = ${high} (highest).`;
  },
});
const mitigationChart = createLineChart($('mitigation-chart'), {
  xLabel: 'needle depth', yLabel: 'retrieval', xFormat: percent,
  legend: $('mitigation-legend'),
});
const publishedChart = createLineChart($('published-chart'), {
  xLabel: 'position of the answer document', yLabel: 'accuracy (%)', xFormat: format('d'),
  yFormat: format('d'), legend: $('published-legend'),
});

const results = { curves: null, needle: null, grid: null, mitigation: null };

function summaryList(element, entries) {
  element.replaceChildren(...entries.flatMap(([term, value]) => {
    const dt = document.createElement('dt');
    dt.textContent = term;
    const dd = document.createElement('dd');
    dd.textContent = value;
    return [dt, dd];
  }));
}

function describeShape({ begin, middle, end }) {
  const startHigh = begin > CLEAR_DIFFERENCE * middle;
  const endHigh = end > CLEAR_DIFFERENCE * middle;
  if (startHigh && endHigh) return 'a U: both ends above the middle — the middle is lost';
  if (startHigh) return 'primacy: the start dominates';
  if (endHigh) return 'recency: the end dominates';
  if (Math.max(begin, middle, end) < CLEAR_DIFFERENCE * Math.min(begin, middle, end)) return 'nearly flat: no position is favoured';
  return 'the middle above both ends';
}

function drawPosition() {
  if (!results.curves) return;
  const { curve } = results.curves;
  const { values, summary } = curve;
  const n = values.length;
  const context = values.subarray(0, n - 1);
  const xs = Array.from(context, (_, j) => j / Math.max(1, n - 2));
  const ys = Array.from(context, (v) => v / summary.mean);
  const highest = Math.max(...ys);
  const lowestShown = Math.min(...ys.filter((v) => v > highest * LOG_FLOOR));
  positionChart({
    series: [{ label: 'simulation', xs, ys, colorIndex: 0 }],
    xDomain: [0, 1],
    yDomain: settings.logScale ? [lowestShown, highest] : [0, highest * 1.05 || 1],
    yLog: settings.logScale,
  });
  const relative = (v) => `${times(v / summary.mean)}× average`;
  summaryList($('position-summary'), [
    ['first token', relative(summary.begin)],
    ['middle', relative(summary.middle)],
    ['last before the final', relative(summary.end)],
    ['max ÷ min', ratio(summary.maxOverMin)],
    ['final token itself', share(values[n - 1])],
  ]);
  const what = settings.measure === 'final' ? 'influence on the final token' : 'attention received';
  $('position-reading').textContent = `With these settings the ${what} is ${describeShape(summary)}.`;
  $('position-timing').textContent = `${results.curves.milliseconds.toFixed(0)} ms in the engine`;
}

function drawRope() {
  if (!results.curves) return;
  const series = results.curves.decay.map(({ base, distances, values }, k) => ({
    label: `base ${format(',')(base)} (head width ${ROPE_HEAD_WIDTH})`, xs: distances.slice(1), ys: values.slice(1), colorIndex: k,
  }));
  const maxDistance = series[0].xs[series[0].xs.length - 1];
  ropeChart({ series, xDomain: [1, maxDistance], yDomain: [0, Math.max(...series.flatMap((s) => s.ys))] });
}

const metricFormat = () => (settings.metric === 'mass' ? mass : percent);
const metricLabel = () => (settings.metric === 'mass' ? 'attention mass on the needle' : 'top-1 rate');

function drawNeedle() {
  if (!results.needle) return;
  const { sweep } = results.needle;
  needleChart({
    series: [{ label: metricLabel(), xs: Array.from(sweep.depths), ys: Array.from(sweep.retrieval), colorIndex: 0, points: true }],
    xDomain: [0, 1], yDomain: [0, Math.max(...sweep.retrieval) * 1.05 || 1],
  });
  const f = metricFormat();
  summaryList($('needle-summary'), [
    ['first document', f(sweep.summary.begin)], ['middle', f(sweep.summary.middle)],
    ['last document', f(sweep.summary.end)], ['max ÷ min', ratio(sweep.summary.maxOverMin)],
  ]);
  $('needle-timing').textContent = `${results.needle.milliseconds.toFixed(0)} ms`;
}

function drawGrid() {
  if (!results.grid) return;
  const { grid } = results.grid;
  // Mass shrinks with n as every token's share does: show it as a multiple of a fair share 1/(n-1).
  const values = Array.from(grid.values, (v, k) => (settings.metric === 'mass' ? v * (grid.lengths[Math.floor(k / grid.cols)] - 1) : v));
  const fairShare = (v) => `${times(v)}× a fair share`;
  needleGrid({
    lengths: Array.from(grid.lengths), depths: Array.from(grid.depths), values,
    format: settings.metric === 'mass' ? fairShare : percent,
  });
}

function drawMitigation() {
  if (!results.mitigation) return;
  const { before, after } = results.mitigation.value;
  const depths = Array.from(before.depths);
  const high = Math.max(...before.retrieval, ...after.retrieval);
  const info = MITIGATIONS[settings.mitigation];
  mitigationChart({
    series: [
      { label: 'before', xs: depths, ys: Array.from(before.retrieval), colorIndex: 3, style: 'dashed', points: true },
      { label: `after: ${info.name}`, xs: depths, ys: Array.from(after.retrieval), colorIndex: 0, points: true },
    ],
    xDomain: [0, 1], yDomain: [0, high * 1.05 || 1],
  });
  const f = metricFormat();
  summaryList($('mitigation-summary'), [
    ['max ÷ min', `${ratio(before.summary.maxOverMin)} → ${ratio(after.summary.maxOverMin)}`],
    ['middle', `${f(before.summary.middle)} → ${f(after.summary.middle)}`],
    ['mean', `${f(before.summary.mean)} → ${f(after.summary.mean)}`],
  ]);
  const paragraphs = [info.what, info.model, info.expect].map((text) => {
    const p = document.createElement('p');
    p.textContent = text;
    return p;
  });
  const heading = document.createElement('h3');
  heading.textContent = info.name;
  $('mitigation-text').replaceChildren(heading, ...paragraphs);
  $('mitigation-timing').textContent = `${results.mitigation.milliseconds.toFixed(0)} ms`;
}

function drawPublished() {
  const curves = curvesFor(settings.documents);
  const series = curves.flatMap((curve, k) => [
    { label: curve.model, xs: curve.positions, ys: curve.accuracy, colorIndex: k, points: true },
    { label: '', xs: [1, settings.documents], ys: [curve.closedBook, curve.closedBook], colorIndex: k, style: 'dashed' },
  ]);
  series.push({ label: 'dashed: the same model with no documents (closed book)', xs: [], ys: [], colorIndex: 3, style: 'dashed' });
  const all = curves.flatMap((c) => [...c.accuracy, c.closedBook]);
  publishedChart({ series, xDomain: [1, settings.documents], yDomain: [Math.min(...all) - 3, Math.max(...all) + 3] });
}

function drawAll() {
  drawPosition();
  drawRope();
  drawNeedle();
  drawGrid();
  drawMitigation();
  drawPublished();
}

// ---- computing ------------------------------------------------------------------------------

function settle(promise, store) {
  return promise.then((answer) => {
    store(answer);
    $('notices').replaceChildren();
  }, (error) => {
    if (!(error instanceof Superseded)) showError(error);
  });
}

function computeCurves() {
  const payload = {
    model: modelOptions(settings), measure: settings.measure, rope: { bases: ROPE_BASES, headWidth: ROPE_HEAD_WIDTH },
  };
  return settle(curvesEngine.request('curves', payload), ({ value, milliseconds }) => {
    results.curves = { ...value, milliseconds };
    drawPosition();
    drawRope();
  });
}

function computeNeedle() {
  const n = experimentLength(settings);
  $('needle-note').textContent = n < settings.n
    ? `With RoPE the needle experiments use n = ${n} (RoPE has no O(n) path in the engine).`
    : `n = ${n} tokens, 11 depths, ${settings.trials} seeded trial(s).`;
  const model = modelOptions(settings, n);
  const needle = needleOptions(settings);
  return Promise.all([
    settle(experimentsEngine.request('needle', { model, needle }), ({ value, milliseconds }) => {
      results.needle = { sweep: value, milliseconds };
      drawNeedle();
    }),
    settle(experimentsEngine.request('grid', { model, needle, lengths: gridLengths(settings) }), ({ value }) => {
      results.grid = { grid: value };
      drawGrid();
    }),
  ]);
}

function computeMitigation() {
  const payload = {
    model: modelOptions(settings, experimentLength(settings)), needle: needleOptions(settings),
    mitigation: { type: settings.mitigation },
  };
  return settle(experimentsEngine.request('mitigation', payload), ({ value, milliseconds }) => {
    results.mitigation = { value, milliseconds };
    drawMitigation();
  });
}

// ---- controls ---------------------------------------------------------------------------------

const form = $('controls');
const slopeToSlider = (slope) => Math.log10(slope);
const nearestIndex = (list, value) => list.reduce((best, v, k) => (Math.abs(v - value) < Math.abs(list[best] - value) ? k : best), 0);

function setUpControls() {
  $('n').max = String(LENGTHS.length - 1);
  $('window').max = String(WINDOWS.length - 1);
  [$('slope').min, $('slope').max] = SLOPE_LOG_RANGE.map(String);
  for (const [name, [min, max, step]] of Object.entries(RANGES)) {
    Object.assign(document.querySelector(`input[name="${name}"]`), { min, max, step });
  }
  for (const documents of DOCUMENT_COUNTS) $('documents').append(new Option(`${documents} documents`, String(documents)));
  $('published-source').textContent = `Source: ${SOURCE.match(/^.*?\)/)?.[0] ?? SOURCE}. `
    + 'Multi-document question answering, accuracy by the position of the answer document, transcribed from the paper\'s tables.';
  for (const preset of PRESETS) {
    const button = document.createElement('button');
    button.type = 'button';
    button.textContent = preset.label;
    button.dataset.preset = preset.id;
    button.addEventListener('click', () => update(preset.settings, 'mechanisms'));
    $('presets').append(button);
  }
}

// Puts `settings` into the controls and their read-outs.
function showSettings() {
  $('n').value = String(nearestIndex(LENGTHS, settings.n));
  $('n-value').textContent = `${format(',')(settings.n)} tokens`;
  $('layers').value = String(settings.layers);
  $('layers-value').textContent = String(settings.layers);
  $('residual').value = String(settings.residual);
  $('residual-value').textContent = format('.2f')(settings.residual);
  $('causal').checked = settings.causal;
  for (const radio of form.elements.positional) radio.checked = radio.value === settings.positional;
  $('slope').value = String(slopeToSlider(settings.slope));
  $('slope-value').textContent = slopeText(settings.slope);
  $('slope-control').hidden = settings.positional !== 'alibi';
  $('rope-controls').hidden = settings.positional !== 'rope';
  $('rope-base').value = String(settings.ropeBase);
  $('rope-strength').value = String(settings.ropeStrength);
  $('rope-strength-value').textContent = String(settings.ropeStrength);
  $('window').value = String(nearestIndex(WINDOWS, settings.window));
  $('window-value').textContent = settings.window === 0 ? 'off' : `${settings.window} tokens`;
  $('sinks').value = String(settings.sinks);
  $('sinks').disabled = settings.window === 0;
  $('sinks-value').textContent = settings.window === 0 ? 'needs a window' : String(settings.sinks);
  for (const radio of form.elements.measure) radio.checked = radio.value === settings.measure;
  $('signal').value = String(settings.signal);
  $('signal-value').textContent = String(settings.signal);
  $('noise').value = String(settings.noise);
  $('noise-value').textContent = String(settings.noise);
  $('trials').value = String(settings.trials);
  $('trials-value').textContent = String(settings.trials);
  $('metric').value = settings.metric;
  $('log-scale').checked = settings.logScale;
  for (const radio of document.querySelectorAll('input[name="mitigation"]')) radio.checked = radio.value === settings.mitigation;
  $('documents').value = String(settings.documents);
  const hash = toHash(settings);
  $('share-link').href = hash || '#';
  window.history.replaceState(null, '', hash || window.location.pathname + window.location.search);
}

// What changed decides what is computed again: mechanisms feed everything.
function update(changes, scope) {
  settings = { ...settings, ...changes };
  showSettings();
  if (scope === 'mechanisms') {
    computeCurves();
    computeNeedle();
    computeMitigation();
  } else if (scope === 'measure') {
    computeCurves();
  } else if (scope === 'needle') {
    computeNeedle();
    computeMitigation();
  } else if (scope === 'mitigation') {
    computeMitigation();
  } else if (scope === 'published') {
    drawPublished();
  } else if (scope === 'position-view') {
    drawPosition();
  }
}

// Each control: the settings it sets and the scope of what it changes.
const CONTROLS = {
  n: [(el) => ({ n: LENGTHS[Number(el.value)] }), 'mechanisms'],
  layers: [(el) => ({ layers: Number(el.value) }), 'mechanisms'],
  residual: [(el) => ({ residual: Number(el.value) }), 'mechanisms'],
  causal: [(el) => ({ causal: el.checked }), 'mechanisms'],
  positional: [(el) => ({ positional: el.value }), 'mechanisms'],
  slope: [(el) => ({ slope: sliderToSlope(Number(el.value)) }), 'mechanisms'],
  ropeBase: [(el) => ({ ropeBase: Number(el.value) }), 'mechanisms'],
  ropeStrength: [(el) => ({ ropeStrength: Number(el.value) }), 'mechanisms'],
  window: [(el) => ({ window: WINDOWS[Number(el.value)] }), 'mechanisms'],
  sinks: [(el) => ({ sinks: Number(el.value) }), 'mechanisms'],
  measure: [(el) => ({ measure: el.value }), 'measure'],
  logScale: [(el) => ({ logScale: el.checked }), 'position-view'],
  signal: [(el) => ({ signal: Number(el.value) }), 'needle'],
  noise: [(el) => ({ noise: Number(el.value) }), 'needle'],
  trials: [(el) => ({ trials: Number(el.value) }), 'needle'],
  metric: [(el) => ({ metric: el.value }), 'needle'],
  mitigation: [(el) => ({ mitigation: el.value }), 'mitigation'],
  documents: [(el) => ({ documents: Number(el.value) }), 'published'],
};

function onInput(event) {
  const control = CONTROLS[event.target.name];
  if (!control) return;
  const [read, scope] = control;
  update(read(event.target), scope);
}

setUpControls();
showSettings();
drawPublished();
document.addEventListener('input', onInput);  // sliders, checkboxes, radios and selects alike
window.addEventListener('hashchange', () => {
  readHash();
  update({}, 'mechanisms');
});
new ResizeObserver(() => drawAll()).observe(document.querySelector('.lab-main'));

Promise.all([curvesEngine.ready, experimentsEngine.ready]).then(([{ version }]) => {
  $('engine-status').textContent = `Engine ${version} ready in two workers.`;
  document.documentElement.dataset.engine = 'ready';
  update({}, 'mechanisms');
}, (error) => {
  document.documentElement.dataset.engine = 'failed';
  $('engine-status').textContent = error.message;
  $('engine-status').classList.add('error');
  $('engine-status').setAttribute('role', 'alert');
});
