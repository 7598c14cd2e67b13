// Wiring of the Train page: controls ↔ settings (URL hash) → a run trained in engine workers
// (runner.js: seeds side by side, a seed on a team when the workers outnumber the seeds) →
// the charts, live at every checkpoint and after training; the runs table; the trained
// model's panel (saving and loading a model); exports; on a narrow screen, the introduction's
// later paragraphs folded (shared/page/introduction.js).
import { createAnnouncer } from '../shared/page/announcer.js';
import { foldIntroductionOnNarrowScreens } from '../shared/page/introduction.js';
import { createSettingsLink } from '../shared/page/link.js';
import { watchScrollRegions } from '../shared/page/scroll-regions.js';
import { createNotices, createProgressLine, engineReady, showEngineStatus } from '../shared/page/status.js';
import { createPublishedChart } from '../shared/published-chart.js';
import { DOCUMENT_COUNTS, SOURCE } from '../shared/published-data.js';
import { createControls } from './controls.js';
import { bindExports } from './exports.js';
import { notLearnedStatus, notLearnedText } from './learning.js';
import { createRunner, MAX_TEAM } from './runner.js';
import { createRun, middleName, runName } from './runs.js';
import { describeRun, parseHash, RUN_FIELDS, runSeeds, taskOptions, toHash } from './state.js';
import { createAttentionMap } from './views/attention-map.js';
import { createLengthsView } from './views/lengths.js';
import { createLooksView } from './views/looks.js';
import { createModelPanel } from './views/model-panel.js';
import { createPositionsView } from './views/positions.js';
import { countFormat } from './views/readouts.js';
import { createRunsTable } from './views/runs-table.js';
import { createTrainingView } from './views/training.js';
import './train.css';
import './option-groups.css';

const TYPING_DEBOUNCE_MS = 300;
const PUBLISHED_DOCUMENTS = 20;

const $ = (id) => document.getElementById(id);
const notices = createNotices($('notices'));
watchScrollRegions();
foldIntroductionOnNarrowScreens($('train-more'));
const link = createSettingsLink({ notices: createNotices($('link-notices')), parse: parseHash, toHash });
// The status line; a screen reader hears what it says when a run starts, pauses, resumes or
// ends (spoken), not its progress, which changes at every chunk.
const spoken = createAnnouncer($('train-status-spoken'));
const status = createProgressLine($('train-progress'), $('train-status'), { announcer: spoken });
const idleText = $('train-status').textContent;  // the status line's text before any run
const settings = link.read();
const runner = createRunner({
  workers: Math.max(1, (navigator.hardwareConcurrency || 1) - 1),
  startWorker: () => new Worker(new URL('./train-worker.js', import.meta.url), { type: 'module' }),
  onWorkerReady(count) {
    document.documentElement.dataset.workers = String(count);
  },
});

const runs = [];      // the runs the table keeps
let nextId = 1;
let shown = null;     // {run, k: the seed's index, pairs}: what charts 3–5 show
let live = null;      // the run charts 1–2 show: the one training, else the shown one

const training = createTrainingView();
const positions = createPositionsView();
const lengths = createLengthsView();
const looks = createLooksView();
const attentionMap = createAttentionMap();
const runsTable = createRunsTable({
  onShow(run) {
    show(run);
    sayShown();
  },
  // a run's settings back in the controls and the link (a loaded model's: its file's, meta.link)
  onUseSettings: (run) => change(Object.fromEntries(RUN_FIELDS.map((name) => [name, structuredClone(run.settings[name])]))),
  onRemove: remove,
});
const drawPublished = createPublishedChart($('published-chart'), $('published-legend'));
const modelPanel = createModelPanel({
  runner,
  settings: () => settings,
  newId: () => nextId++,
  // the id of a loaded model that failed to become a run, unless a later id was given meanwhile
  returnId(id) {
    if (id === nextId - 1) nextId = id;
  },
  onSelect(change) {
    Object.assign(shown, change);
    if ('k' in change && live === shown.run) positions(live, shownSeed(live));
    looks(shown.run, shown, settings);
    drawAttention();
  },
  onLoaded(run) {
    runs.push(run);
    try {
      runsTable.overlay(run);
      show(run);
      sayShown();
    } catch (error) {
      forget(run);  // a run the page could not take: the panel frees its model
      throw error;
    }
  },
  onDone: () => showWasmMemory(),
  notices,
});

// ---- what the charts show ---------------------------------------------------------------------

// The seed whose earlier checkpoints chart 2 draws, of a run of several: the model panel's when
// it shows that run, else the first.
const shownSeed = (run) => ({ k: shown?.run === run ? shown.k : 0 });

// Before any run the charts show their axes for the settings on display.
function drawLive() {
  const run = live ?? createRun({ id: 0, settings, seeds: [] });
  // chart 1's and 2's explanations, as they read for this run: its middle pairs, and three
  // seeds to try only when it has one (before any run, the settings' seeds)
  const k = run.settings.pairs;
  $('middle-pair').textContent = middleName(k) ? `${middleName(k)} of ${k}` : `none: ${k} pairs have no middle`;
  $('seeds-try-next').hidden = (live ? run.seeds.length : settings.seeds) > 1;
  training.progress(run);
  training.draw(run);
  positions(run, shownSeed(run));
}

function showWasmMemory() {
  const memory = runner.memory();
  $('train-status').dataset.wasmBytes = memory.map(({ memoryBytes }) => memoryBytes).join(',');
  $('train-status').dataset.wasmInUse = memory.map(({ memoryInUseBytes }) => memoryInUseBytes).join(',');
}

let attentionRequest = 0;
async function drawAttention() {
  if (!shown) return;
  const { run, k, pairs } = shown;
  const example = settings.example;
  const ticket = ++attentionRequest;
  try {
    const sequence = await runner.requestModel(run, k, 'attention', {
      id: run.id, task: taskOptions(run.settings), pairs, seed: example, context: run.settings.context,
    });
    if (ticket === attentionRequest && shown?.run === run) attentionMap.draw(sequence, run, { k, pairs, example });
  } catch (error) {
    if (error.name !== 'Superseded') notices.add(`The attention map could not be drawn: ${error.message}`);
  }
}

function drawShown() {
  modelPanel(shown);
  // above charts 3–5: whether the run they show has learned the task (learning.js's rule)
  $('not-learned').textContent = notLearnedText(shown?.run);
  $('not-learned').hidden = $('not-learned').textContent === '';
  if (!shown) return;
  lengths(shown.run, settings);
  looks(shown.run, shown, settings);
  drawAttention();
}

function show(run) {
  shown = { run, k: 0, pairs: run.settings.pairs };
  if (!runner.training()) live = run;
  drawLive();
  drawShown();
  runsTable.draw(runs, run);
}

// What the status line says of a run that is over: 'trained 300 steps (one seed) in 1.2 s',
// and of one that has not learned the task, that it has not ('…; not learned: held-out
// accuracy 9.4%, near chance (3.1%)').
const runText = (run) => `${trainingText(run)}${notLearnedStatus(run)}`;

function trainingText(run) {
  const step = Math.min(...run.seeds.map((s) => s.step));
  const steps = countFormat(run.settings.steps);
  if (run.source === 'loaded') {
    if (!run.trainingKnown) return 'a saved model whose file does not say how it was trained';
    return step < run.settings.steps ? `a saved model, stopped at step ${countFormat(step)} of ${steps}` : `a saved model of ${steps} steps`;
  }
  if (run.status === 'finished') return `trained ${steps} steps (${seedsText(run, 'one seed')}) in ${run.seconds.toFixed(1)} s`;
  return `stopped at step ${countFormat(step)} of ${steps} after ${run.seconds.toFixed(1)} s; the charts show the model as it was then`;
}

// Unless a run is training (the status line is then its progress): which run the charts show.
function sayShown() {
  if (runner.training()) return;
  status.done(shown ? `Showing ${runName(shown.run)}: ${runText(shown.run)}.` : idleText);
}

function remove(run) {
  runner.release(run).then(showWasmMemory, (error) => notices.add(`Run ${run.id}'s models could not be freed: ${error.message}`));
  forget(run);
}

// The page without run `run` (its models left to the caller): the runs, what the charts show, the table.
function forget(run) {
  runs.splice(runs.indexOf(run), 1);
  if (shown?.run === run) {
    shown = runs.length > 0 ? { run: runs.at(-1), k: 0, pairs: runs.at(-1).settings.pairs } : null;
    if (!runner.training()) {
      live = shown?.run ?? null;
      drawLive();
    }
    if (!shown) attentionMap.clear();
    drawShown();
    sayShown();
  }
  runsTable.draw(runs, shown?.run ?? null);
}

// ---- training ----------------------------------------------------------------------------------

// Seeds report progress about 20 times a second each, and checkpoints as they come: the page
// draws at most once a frame what they changed, so that it takes little time from training.
const frames = new Map();  // what is waiting for the next frame → its drawing
function nextFrame(what, draw) {
  if (frames.size === 0) {
    requestAnimationFrame(() => {
      const draws = [...frames.values()];
      frames.clear();
      for (const pending of draws) pending();
    });
  }
  frames.set(what, draw);
}

// The seeds of a run and the workers each trains on: "seed 0 on 2 workers", "3 seeds side by side".
function seedsText(run, one) {
  const team = run.team > 1 ? `${run.seeds.length === 1 ? ' on' : ','} ${run.team} workers${run.seeds.length === 1 ? '' : ' each'}` : '';
  return `${run.seeds.length === 1 ? one : `${run.seeds.length} seeds side by side`}${team}`;
}

function progressText(run) {
  const step = Math.min(...run.seeds.map((s) => s.step));
  const total = run.settings.steps;
  const seeds = seedsText(run, `seed ${run.seeds[0].seed}`);
  const word = run.status !== 'paused' ? 'Training' : still ? 'Paused' : 'Pausing';
  return [`${word} (${seeds}): step ${countFormat(step)} of ${countFormat(total)}, ${run.seconds.toFixed(1)} s`, step / total];
}

async function train() {
  if (runner.training() || !controls.ready()) return;
  const run = createRun({ id: nextId++, settings: structuredClone(settings), seeds: runSeeds(settings) });
  live = run;
  controls.setTraining('training');
  document.documentElement.dataset.training = 'running';
  status.progress(...progressText(run));
  spoken.now(progressText(run)[0]);
  drawLive();
  try {
    await runner.train(run, {
      onCheckpoint: () => nextFrame('charts', drawLive),
      onProgress: () => nextFrame('progress', () => {
        training.progress(run);
        status.progress(...progressText(run));
      }),
    });
    frames.clear();
    runs.push(run);
    runsTable.overlay(run);
    run.label = describeRun(run.settings, Math.min(...run.seeds.map((s) => s.step)));
    const text = runText(run);
    status.done(`${text[0].toUpperCase()}${text.slice(1)}.`);
    show(run);
  } catch (error) {
    frames.clear();
    drawLive();
    run.status = 'failed';
    status.done(`The run could not train: ${error.message}`, true);
    controls.showEngineProblem(error.message);
    live = shown?.run ?? null;
  } finally {
    controls.setTraining('idle');
    document.documentElement.dataset.training = run.status;
    $('train-status').dataset.runStatus = run.status;
    showWasmMemory();
  }
}

// Pause and Resume. A paused run is "Pausing" until the steps already asked of the workers
// have landed, then "Paused": no step after that (the page's data-training 'pausing', 'paused').
let still = false;
function pause() {
  if (runner.paused()) {
    runner.resume();
    controls.setTraining('training');
  } else {
    runner.pause();
    controls.setTraining('paused');
    still = false;
    runner.whenPaused().then((paused) => {
      still = paused;
      if (paused) showPause();
    });
  }
  showPause();
}

function showPause() {
  const run = runner.training();
  if (!run) return;
  status.progress(...progressText(run));
  spoken.now(progressText(run)[0]);
  document.documentElement.dataset.training = !runner.paused() ? 'running' : still ? 'paused' : 'pausing';
}

// ---- settings ------------------------------------------------------------------------------------

let hashTimer = 0;
// What a change of settings redraws: the charts read a few of them; a run's own stay its own.
function change(changes, { debounce = false } = {}) {
  Object.assign(settings, changes);
  controls.sync();
  clearTimeout(hashTimer);
  if (debounce) hashTimer = setTimeout(() => link.write(settings), TYPING_DEBOUNCE_MS);
  else link.write(settings);
  if ('seeds' in changes) runner.warm(settings.seeds);
  if (!live) drawLive();
  if (!shown) return;
  if ('axis' in changes) lengths(shown.run, settings);
  if ('target' in changes) looks(shown.run, shown, settings);
  if ('example' in changes) drawAttention();
}

const controls = createControls({
  settings,
  onChange: change,
  onPreset: (preset) => change(preset),
  onTrain: train,
  onPause: pause,
  onStop: () => runner.stop(),
});

bindExports({
  shownRun: () => shown?.run ?? null, liveRun: () => live, shownModel: () => shown,
  attentionFigure: () => attentionMap.figure(), onError: (message) => notices.add(message),
});

for (const documents of DOCUMENT_COUNTS) $('documents').append(new Option(`${documents} documents`, String(documents)));
$('documents').value = String(PUBLISHED_DOCUMENTS);
$('documents').addEventListener('change', () => drawPublished(Number($('documents').value)));
$('published-source').textContent = `Source: ${SOURCE.match(/^.*?\)/)?.[0] ?? SOURCE}. ` +
  'Multi-document question answering, accuracy by the position of the answer document, transcribed from the paper\'s tables.';

window.addEventListener('hashchange', () => {
  Object.assign(settings, link.read());
  controls.sync();
  runner.warm(settings.seeds);
  if (!live) drawLive();
  if (shown) drawShown();
});
let drawnWidth = 0;
new ResizeObserver(([entry]) => {
  if (entry.contentRect.width === drawnWidth) return;
  drawnWidth = entry.contentRect.width;
  drawLive();
  if (shown) {
    lengths(shown.run, settings);
    looks(shown.run, shown, settings);
    attentionMap.redraw();
  }
  runsTable.redraw();
  drawPublished(Number($('documents').value));
}).observe($('train-main'));
window.matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => attentionMap.redraw());

controls.sync();
link.write(settings);
drawLive();
drawShown();
runsTable.draw(runs, null);
drawPublished(PUBLISHED_DOCUMENTS);
runner.warm(settings.seeds);
showEngineStatus($('engine-status'), runner.ready(), (engine) => (runner.workers === 1
  ? `${engineReady(engine)} in one worker per seed.`
  : `${engineReady(engine)} in ${runner.workers} workers (up to ${Math.min(runner.workers, MAX_TEAM)} share a seed's steps when seeds are fewer).`));
