// Wiring of the lost-in-the-middle lab: controls ↔ settings (URL hash) → the engine in
// module workers (lab-worker.js: one answers the live curves, one the needle experiments, so
// that sliders stay live while a grid is computed, and cores − 1 the needle grid, its context
// lengths in parallel) → the five charts.
import { bindChartExports } from '../shared/chart-exports.js';
import { download } from '../shared/downloads.js';
import { createSettingsLink } from '../shared/page/link.js';
import { createNotices, engineReady, showEngineStatus } from '../shared/page/status.js';
import { createPublishedChart } from '../shared/published-chart.js';
import { DOCUMENT_COUNTS } from '../shared/published-data.js';
import { Superseded, createWorkerClient } from '../shared/worker/client.js';
import { readControl, setUpControls, showSettings } from './controls.js';
import { gridCsv, mitigationCsv, needleCsv, positionCsv, ropeCsv } from './csv.js';
import { dealLengths, joinGrids, lengthCost } from './grid-parts.js';
import { setUpNarrowLayout } from './narrow-layout.js';
import {
  experimentLength, gridLengths, mitigationOption, modelOptions, modelSettings, NEEDLE_SETTINGS, needleOptions, parseHash, pickSettings, ROPE_BASES,
  ROPE_HEAD_WIDTH, settingsCaption, settingsLink, toHash,
} from './state.js';
import { createMitigationView } from './views/mitigation.js';
import { createNeedleView } from './views/needle.js';
import { createPositionView } from './views/position.js';
import { createRopeView } from './views/rope.js';
import './lab.css';

const $ = (id) => document.getElementById(id);
const linkNotices = createNotices($('link-notices'));
const link = createSettingsLink({
  notices: linkNotices, parse: (hash) => parseHash(hash, { documents: DOCUMENT_COUNTS }), toHash,
});
let settings = link.read();

const startWorker = () => new Worker(new URL('./lab-worker.js', import.meta.url), { type: 'module' });
const curvesEngine = createWorkerClient(startWorker());
// every other worker runs the first's build, so that the grid's parts join to one worker's numbers
const sameBuild = { sameBuildAs: curvesEngine.ready };
const experimentsEngine = createWorkerClient(startWorker(), sameBuild);
// The needle grid's workers: one per core but the page's own, at least one.
const GRID_WORKERS = Math.max(1, (navigator.hardwareConcurrency || 1) - 1);
const gridEngines = Array.from({ length: GRID_WORKERS }, () => createWorkerClient(startWorker(), sameBuild));

const position = createPositionView();
const rope = createRopeView();
const needle = createNeedleView();
const mitigation = createMitigationView();
const drawPublished = createPublishedChart($('published-chart'), $('published-legend'));
const published = (settings) => drawPublished(settings.documents);
// The last answer of each computation, with the settings it was asked with (`settings`): while
// a chart computes again, or after a request failed, they are not the page's settings.
const results = { curves: null, rope: null, needle: null, grid: null, mitigation: null };

// Each simulation chart, by its id: the answer it draws, its CSV text from that answer and the
// link to the settings behind it, the settings it depends on (`depends`, from its settings: a
// model's decay and sinks only where it has them; chart 2, RoPE's weight, only n and RoPE's,
// and whether the model uses it), those of them that only change how it is drawn (`drawn`: the
// page's, as drawn, whatever its answer was asked with), and, where they are not n, the context
// lengths its numbers are computed at for their settings (the needle experiments' length, capped
// for RoPE; the grid's).
const CHARTS = {
  'position-chart': {
    shown: () => results.curves, csv: (curves, link) => positionCsv(curves, curves.settings.measure, link),
    depends: (s) => [...modelSettings(s), 'measure', 'logScale'], drawn: ['logScale'],
  },
  'rope-chart': {
    shown: () => results.rope, csv: ropeCsv, depends: () => ['n', 'positional', 'ropeBase', 'ropeStrength'], drawn: ['positional'],
  },
  'needle-chart': {
    shown: () => results.needle, csv: (sweep, link) => needleCsv(sweep, sweep.settings.metric, link),
    depends: (s) => [...modelSettings(s), ...NEEDLE_SETTINGS], computedAt: (s) => [experimentLength(s)],
  },
  'needle-grid': {
    shown: () => results.grid, csv: (grid, link) => gridCsv(grid, grid.settings.metric, link),
    depends: (s) => [...modelSettings(s), ...NEEDLE_SETTINGS], computedAt: gridLengths,
  },
  'mitigation-chart': {
    shown: () => results.mitigation,
    csv: (answer, link) => mitigationCsv(answer, answer.settings.metric, answer.settings.mitigation, link),
    depends: (s) => [...modelSettings(s), ...NEEDLE_SETTINGS, 'mitigation'], computedAt: (s) => [experimentLength(s)],
  },
};

// The settings behind what the simulation chart `id` shows, those it depends on alone: as its
// answer was asked with them, but for those that only change how it is drawn, the page's. The
// page's settings for a chart with no answer yet.
function shownSettings(id) {
  const { shown: answer, depends, drawn = [] } = CHARTS[id];
  const shown = answer() ? { ...answer().settings, ...pickSettings(settings, drawn) } : settings;
  return pickSettings(shown, depends(shown));
}

// The caption under the chart `id`'s figure: the settings it depends on, with the lengths it was
// computed at, and their link; for chart 5, published data, only the document count it shows.
function figureCaption(id) {
  if (!CHARTS[id]) return settingsCaption({ documents: settings.documents });
  const shown = shownSettings(id);
  return settingsCaption(shown, { computedAt: CHARTS[id].computedAt?.(shown) });
}

bindChartExports({ prefix: 'attention-lab', onError: (message) => linkNotices.add(message), caption: figureCaption });
for (const button of document.querySelectorAll('button[data-csv]')) {
  button.addEventListener('click', () => {
    const { shown, csv } = CHARTS[button.dataset.csv];
    const answer = shown();
    if (!answer) {
      linkNotices.add('The CSV could not be made: its chart has no numbers yet.');
      return;
    }
    download(new Blob([csv(answer, settingsLink(shownSettings(button.dataset.csv)))], { type: 'text/csv' }),
      `attention-lab-${button.dataset.csv}.csv`);
  });
}

function drawAll() {
  position(results.curves, settings);
  rope(results.rope, settings);
  needle.sweep(results.needle, settings);
  needle.grid(results.grid, settings);
  mitigation(results.mitigation, settings);
  published(settings);
}

// What a computation makes busy: the sections whose charts it redraws, and the element where
// the first of them shows its timing.
const CURVES_BUSY = { sections: ['position-heading'], timing: 'position-timing' };
const ROPE_BUSY = { sections: ['rope-heading'], timing: 'rope-timing' };
const NEEDLE_BUSY = { sections: ['needle-heading'], timing: 'needle-timing' };
const MITIGATION_BUSY = { sections: ['mitigation-heading'], timing: 'mitigation-timing' };
const BUSY_CLASS = 'computing';  // lab.css dims a section's charts and read-outs under it
const pending = new Map();       // section → its computations under way
// A long computation's timing counts the seconds since it was asked (a needle sweep with
// Ms-PoE under RoPE takes several), from this long on.
const ELAPSED_FROM_MS = 2000;
const ELAPSED_EVERY_MS = 1000;
const counting = new Map();      // a timing's id → its counter's interval, while its section is busy

// Marks `busy`'s sections busy (aria-busy, dimmed, "computing…" for the timing, with the seconds
// since it was asked once they are ELAPSED_FROM_MS) until the returned function has been
// called as often as this one for them.
function markBusy(busy) {
  const sections = busy.sections.map((id) => $(id).closest('section'));
  for (const section of sections) {
    pending.set(section, (pending.get(section) ?? 0) + 1);
    section.setAttribute('aria-busy', 'true');
    section.classList.add(BUSY_CLASS);
  }
  const timing = $(busy.timing);
  timing.textContent = 'computing…';
  const asked = performance.now();
  clearInterval(counting.get(busy.timing));
  counting.set(busy.timing, setInterval(() => {
    const elapsed = performance.now() - asked;
    if (elapsed >= ELAPSED_FROM_MS) timing.textContent = `computing… ${Math.floor(elapsed / 1000)} s`;
  }, ELAPSED_EVERY_MS));
  return function done() {
    for (const section of sections) {
      const left = pending.get(section) - 1;
      pending.set(section, left);
      if (left > 0) continue;
      section.removeAttribute('aria-busy');
      section.classList.remove(BUSY_CLASS);
      clearInterval(counting.get(busy.timing));
      counting.delete(busy.timing);
    }
  };
}

// The answer of `request` goes to `store`, which redraws and returns the timing to show, if
// any (only here, so that a redraw of the old numbers, on a resize, leaves "computing…" alone);
// while it computes, `busy`'s sections say so (markBusy). A failure replaces the page's notices and
// clears the timing (a superseded request says nothing: the one that replaced it is under
// way), and the next answer clears them. Resolves to whether the answer was stored.
function settle(request, busy, store) {
  const done = markBusy(busy);
  return request.then((answer) => {
    done();
    const timing = store(answer);
    if (timing) $(busy.timing).textContent = timing;
    $('notices').replaceChildren();
    return true;
  }, (error) => {
    done();
    if (error instanceof Superseded) return false;
    $(busy.timing).textContent = '';
    const item = document.createElement('p');
    item.className = 'error';
    item.textContent = error.message;
    $('notices').replaceChildren(item);
    return false;
  });
}

const inTheEngine = (milliseconds) => `${milliseconds.toFixed(0)} ms in the engine`;

function computeCurves() {
  const askedWith = settings;
  const payload = { model: modelOptions(askedWith), measure: askedWith.measure };
  return settle(curvesEngine.request('curves', payload), CURVES_BUSY, ({ value, milliseconds }) => {
    results.curves = { ...value, milliseconds, settings: askedWith };
    position(results.curves, settings);
    return inTheEngine(milliseconds);
  });
}

// The grid over `lengths`, its lengths dealt out to the grid's workers: resolves to {value}.
function computeGrid(model, needle, lengths) {
  const groups = dealLengths(lengths, gridEngines.length, (n) => lengthCost(n, model.positional));
  return Promise.all(groups.map((indices, w) => gridEngines[w].request('grid', {
    model, needle, lengths: indices.map((index) => lengths[index]),
  }))).then((answers) => ({ value: joinGrids(lengths, groups, answers.map(({ value }) => value)) }));
}

// The options chart 2 and each experiment were last asked with (JSON), so that a change they do not depend
// on (n above RoPE's cap, the grid's lengths under any n, another mitigation for the sweep) asks
// nothing again; a request that fails forgets them, so that the same options ask once more.
const asked = { rope: null, sweep: null, grid: null, mitigation: null };
let sweepAnswer = null;  // the needle sweep's request for asked.sweep: resolves to {value, milliseconds}
// the needle sweep's and the grid's latest requests, each settled: resolves to whether it was drawn
const needleDrawn = { sweep: null, grid: null };
let needleAsks = 0;      // computeNeedle's calls that asked something: only the latest writes its time

// Makes request() unless the experiment `name` was last asked with the same `options`:
// the request, or null when it was.
function askOnce(name, options, request) {
  const key = JSON.stringify(options);
  if (asked[name] === key) return null;
  asked[name] = key;
  const answer = request();
  answer.catch(() => { if (asked[name] === key) asked[name] = null; });
  return answer;
}

// Chart 2 up to distance n − 1, the farthest key of an n-token context from its final token, for
// the chosen base and strength (asked again only when they or n change).
function computeRope() {
  const askedWith = settings;
  const payload = {
    headWidth: ROPE_HEAD_WIDTH, base: askedWith.ropeBase, strength: askedWith.ropeStrength, bases: ROPE_BASES,
    maxDistance: askedWith.n - 1,
  };
  const answer = askOnce('rope', payload, () => curvesEngine.request('rope', payload));
  if (!answer) {
    rope(results.rope, settings);  // the same curves; whether the model uses RoPE may have changed
    return;
  }
  settle(answer, ROPE_BUSY, ({ value, milliseconds }) => {
    results.rope = { ...value, milliseconds, settings: askedWith };
    rope(results.rope, settings);
    return inTheEngine(milliseconds);
  });
}

function computeNeedle() {
  const askedWith = settings;
  const model = modelOptions(askedWith, experimentLength(askedWith));
  const options = needleOptions(askedWith);
  const lengths = gridLengths(askedWith);
  const sweep = askOnce('sweep', { model, options }, () => experimentsEngine.request('needle', { model, needle: options }));
  // the grid has its lengths instead of n (JSON leaves an undefined n out)
  const grid = askOnce('grid', { model: { ...model, n: undefined }, options, lengths }, () => computeGrid(model, options, lengths));
  if (!sweep && !grid) return;
  if (sweep) {
    sweepAnswer = sweep;
    needleDrawn.sweep = settle(sweep, NEEDLE_BUSY, ({ value }) => {
      results.needle = { sweep: value, settings: askedWith };
      needle.sweep(results.needle, settings);
    });
  }
  if (grid) {
    needleDrawn.grid = settle(grid, NEEDLE_BUSY, ({ value }) => {
      results.grid = { ...value, settings: askedWith };
      needle.grid(results.grid, settings);
    });
  }
  // The section's time, once the sweep and the grid (computed side by side) are both drawn, the
  // one this call did not ask for too when it is still under way (a grid that n does not change,
  // say): on the wall clock, from this call's asking to the last drawn. Until then its timing says
  // "computing…" (markBusy).
  const started = performance.now();
  const ask = ++needleAsks;
  Promise.all([needleDrawn.sweep, needleDrawn.grid]).then((drawn) => {
    if (ask === needleAsks && drawn.every(Boolean)) {
      $('needle-timing').textContent = `drawn ${Math.round(performance.now() - started)} ms after asking`;
    }
  });
}

// The sweep with the mitigation, drawn beside the needle sweep of the same options (computeNeedle
// asks for it first): only the mitigated sweep is computed here.
function computeMitigation() {
  const askedWith = settings;
  const payload = {
    model: modelOptions(askedWith, experimentLength(askedWith)), needle: needleOptions(askedWith),
    mitigation: mitigationOption(askedWith),
  };
  const before = sweepAnswer;
  const both = askOnce('mitigation', payload, () => Promise.all([before, experimentsEngine.request('mitigation', payload)])
    .then(([{ value: sweep }, { value, milliseconds }]) => ({ value: { before: sweep, after: value }, milliseconds })));
  if (!both) return;
  settle(both, MITIGATION_BUSY, ({ value, milliseconds }) => {
    results.mitigation = { value, milliseconds, settings: askedWith };
    mitigation(results.mitigation, settings);
    return `${milliseconds.toFixed(0)} ms`;
  });
}

// What changed decides what is computed again: mechanisms feed everything. The needle note
// follows every change: it names the mitigation's trials too.
function update(changes, scope) {
  settings = { ...settings, ...changes };
  showSettings(settings);
  link.write(settings);
  needle.note(experimentLength(settings), settings);
  if (scope === 'mechanisms') {
    computeCurves();
    computeRope();
    computeNeedle();
    computeMitigation();
  } else if (scope === 'measure') {
    computeCurves();
  } else if (scope === 'needle') {
    computeNeedle();
    computeMitigation();
  } else if (scope === 'mitigation') {
    mitigation(results.mitigation, settings);  // the chosen mitigation's words at once
    computeMitigation();
  } else if (scope === 'published') {
    published(settings);
  } else if (scope === 'position-view') {
    position(results.curves, settings);
  }
}

setUpControls({ onPreset: (preset) => update(preset, 'mechanisms') });
setUpNarrowLayout();
showSettings(settings);
link.write(settings);
published(settings);
document.addEventListener('input', (event) => {  // sliders, checkboxes, radios and selects alike
  const change = readControl(event.target);
  if (change) update(...change);
});
window.addEventListener('hashchange', () => {
  settings = link.read();
  update({}, 'mechanisms');
});
new ResizeObserver(() => drawAll()).observe(document.querySelector('.lab-main'));
const engines = [curvesEngine, experimentsEngine, ...gridEngines];
showEngineStatus($('engine-status'), Promise.all(engines.map((engine) => engine.ready)).then(([first]) => first),
  (engine) => `${engineReady(engine)} in ${engines.length} workers (live curves 1, experiments 1, ` +
    `needle grid ${GRID_WORKERS}).`).then((ready) => {
  if (ready) update({}, 'mechanisms');
});
