// Wiring of the playground page: controls ↔ state (URL hash) → tokens and vectors → the
// engine in its worker → the views. Each part lives in its own module; this file makes them,
// hands each the parts it talks to, and starts the page.
import { createAnnouncer } from '../shared/page/announcer.js';
import { watchScrollRegions } from '../shared/page/scroll-regions.js';
import { createNotices, createProgressLine, engineReady, showEngineStatus } from '../shared/page/status.js';
import { createWorkerClient } from '../shared/worker/client.js';
import { createControls } from './controls.js';
import { bindExports } from './exports.js';
import { createSentence } from './input/sentence.js';
import { createVectorTable } from './input/vector-table.js';
import { createVectors } from './input/vectors.js';
import { createLink } from './link.js';
import { selectQuery } from './generation.js';
import { TYPING_PAUSE_MS, WAKE_LEAD_MS, createPipeline, typingPauseFor } from './pipeline.js';
import { pinnedSettings } from './state.js';
import { createAttentionViews } from './views/attention-views.js';
import { createComparison } from './views/compare.js';
import './option-groups.css';

// Workers attention is computed on: one per core but the page's own, at least one; the engine
// worker computes a part of each split call beside them when that leaves it a core.
const CORES = navigator.hardwareConcurrency || 1;
const ENGINE_WORKERS = Math.max(1, CORES - 1);

const $ = (id) => document.getElementById(id);
const client = createWorkerClient(new Worker(new URL('./worker.js', import.meta.url), { type: 'module' }));
const engineWorkers = client.request('pool', { workers: ENGINE_WORKERS, callerPart: ENGINE_WORKERS < CORES });
const notices = createNotices($('notices'));
watchScrollRegions();
// a screen reader hears what a computation came to once typing stops, not its seconds ticking
const status = createProgressLine($('progress'), $('compute-status'),
  { announcer: createAnnouncer($('compute-status-spoken')), settle: true });
const link = createLink({ notices, note: $('link-note') });
const state = link.read();

const vectors = createVectors({ client, state, status, onChange: change });
const controls = createControls({ state, vectors, onChange: change });
const sentence = createSentence({ client, state, onChange: change, onError: (message) => status.done(message, true) });
const table = createVectorTable({ state, onChange: change });
const views = createAttentionViews({
  state, onSelectQuery: (query) => change(selectQuery(state, query)), onZoom: controls.zoomAround,
  onLogScale: () => change({ colorScale: 'log' }),
  onExportable: (exportable) => matrixExports.enable(exportable),  // bound below, called once a result comes
});
const comparison = createComparison({
  state,
  onPin: () => change({ pinned: state.pinned ? null : pinnedSettings(state) }),
  onSelectQuery: (query) => change(selectQuery(state, query)),
  onZoom: controls.zoomAround,
  onExportable: (exportable) => matrixExports.enableComparison(exportable),  // bound below
});
const pipeline = createPipeline({
  client, state, vectors, views, comparison, status,
  onInput(input) {
    sentence.showTokens(input);
    table.show(input);
  },
  onFit(n) {
    if (controls.fitInput(n)) link.write(state);
    sentence.markQuery();
  },
  onDrawn(milliseconds, waited) {
    if (waited === 0) return;  // a control's update (a click reusing the result costs nothing)
    typingPause = typingPauseFor(milliseconds);
    typedSince = null;
  },
});
const matrixExports = bindExports({ client, state, views, comparison, status, notices });
matrixExports.enable(false);  // until the first result is drawn
matrixExports.enableComparison(false);  // until a comparison is drawn

// Every control, the sentence box and the pin in line with the state.
function showState() {
  sentence.sync();
  controls.sync();
  comparison.sync();
}

let typingTimer = 0;
let wakeTimer = 0;  // wakes the engine's threads shortly before typingTimer fires
let typingPause = TYPING_PAUSE_MS.most;  // until a typed update has been timed
let typedSince = null;  // when the typed update not yet drawn started
/** Applies settings, brings the controls and the link along, and schedules an update. */
function change(settings, { debounce = false } = {}) {
  Object.assign(state, settings);
  showState();
  clearTimeout(typingTimer);
  clearTimeout(wakeTimer);
  // A key that comes while the last typed update still runs: typing costs at least that much.
  if (debounce && typedSince !== null) {
    typingPause = Math.max(typingPause, typingPauseFor(performance.now() - typedSince));
  }
  const pause = debounce ? typingPause : 0;
  // Typing writes the link once it pauses, with the update: the link of a 512-token text took
  // 5.7 ms of every keystroke's handler (history.replaceState, in Chromium).
  const apply = () => {
    link.write(state);
    typedSince = debounce ? performance.now() : null;
    pipeline.update({ typingPause: pause });
  };
  if (debounce) {
    wakeTimer = setTimeout(pipeline.wake, Math.max(0, pause - WAKE_LEAD_MS));
    typingTimer = setTimeout(apply, pause);
  } else apply();
}

window.addEventListener('hashchange', () => {
  // A link ends a typing pause: the typed update would only draw the link's state again.
  clearTimeout(typingTimer);
  clearTimeout(wakeTimer);
  typedSince = null;
  Object.assign(state, link.read());
  showState();
  const input = vectors.input();
  if (input) table.show(input);  // a link with the same table still replaces what the cells hold
  pipeline.update();
});
showEngineStatus($('engine-status'), Promise.all([client.ready, engineWorkers]),
  ([engine, { value: { workers, callerPart } }]) =>
    `${engineReady(engine)} on ${workers} worker${workers === 1 ? '' : 's'}${callerPart ? ' and the engine\'s own thread' : ''}.`);
// Redraws `view` when its frame's width changes (its height follows what is drawn).
function redrawOnResize(frame, view) {
  let drawnWidth = 0;
  new ResizeObserver(([entry]) => {
    if (entry.contentRect.width === drawnWidth) return;
    drawnWidth = entry.contentRect.width;
    view.redraw();
  }).observe(frame);
}
redrawOnResize($('heatmap').parentElement, views);
redrawOnResize($('compare-heatmap').parentElement, comparison);
window.matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => {
  views.redraw();
  comparison.redraw();
});
showState();
pipeline.update();
