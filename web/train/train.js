// Wiring of the Train page: controls ↔ settings (URL hash) → a run trained in one engine
// worker per seed (runner.js) → the charts, live at every checkpoint and after training; the
// runs table; saving and loading a model; exports.
import { download } from '../shared/downloads.js';
import { formatBytes } from '../shared/format.js';
import { createNotices, createProgressLine, showEngineStatus } from '../shared/page/status.js';
import { createPublishedChart } from '../shared/published-chart.js';
import { DOCUMENT_COUNTS, SOURCE } from '../shared/published-data.js';
import { settingProblems } from './checks.js';
import { createControls } from './controls.js';
import { bindExports } from './exports.js';
import { createLink } from './link.js';
import {
  loadedSettings, MODEL_FILE_LIMIT, modelFileName, modelMeta, parseModelFile,
} from './model-file.js';
import { createRunner, evaluationOptions } from './runner.js';
import { createRun } from './runs.js';
import { runSeeds, taskOptions } from './state.js';
import { createAttentionMap } from './views/attention-map.js';
import { createLengthsView } from './views/lengths.js';
import { createLooksView } from './views/looks.js';
import { createPositionsView } from './views/positions.js';
import { countFormat } from './views/readouts.js';
import { createRunsTable, runName } from './views/runs-table.js';
import { createTrainingView } from './views/training.js';
import './train.css';

const TYPING_DEBOUNCE_MS = 300;
const PUBLISHED_DOCUMENTS = 20;

const $ = (id) => document.getElementById(id);
const notices = createNotices($('notices'));
const link = createLink({ notices: createNotices($('link-notices')) });
const status = createProgressLine($('train-progress'), $('train-status'));
const settings = link.read();
const runner = createRunner({
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
const runsTable = createRunsTable({ onShow: (run) => show(run), onRemove: remove });
const drawPublished = createPublishedChart($('published-chart'), $('published-legend'));

// ---- what the charts show ---------------------------------------------------------------------

// Before any run the charts show their axes for the settings on display.
function drawLive() {
  const run = live ?? createRun({ id: 0, settings, seeds: [] });
  training.progress(run);
  training.draw(run);
  positions(run);
}

function showWasmMemory() {
  $('train-status').dataset.wasmBytes = runner.memory().join(',');
}

let attentionRequest = 0;
async function drawAttention() {
  if (!shown) return;
  const { run, k, pairs } = shown;
  const ticket = ++attentionRequest;
  try {
    const sequence = await runner.request(k, 'attention', {
      id: run.id, task: taskOptions(run.settings), pairs, seed: settings.example, context: run.settings.context,
    });
    if (ticket === attentionRequest && shown?.run === run) attentionMap.draw(sequence, run);
  } catch (error) {
    if (error.name !== 'Superseded') notices.add(`The attention map could not be drawn: ${error.message}`);
  }
}

function fillSelect(select, options, value) {
  select.replaceChildren(...options.map(([optionValue, text]) => new Option(text, String(optionValue))));
  select.value = String(value);
}

function drawShown() {
  const run = shown?.run ?? null;
  $('model-panel').dataset.run = run ? String(run.id) : '';
  $('shown-run').textContent = run ? `${runName(run)}: ${run.label}` : 'No run yet: train one, or load a model.';
  for (const id of ['save-model', 'export-csv', 'export-json', 'shown-seed', 'shown-length']) $(id).disabled = !run;
  for (const id of ['after-training']) $(id).hidden = !run;
  if (!run) return;
  fillSelect($('shown-seed'), run.seeds.map((s, k) => [k, `seed ${s.seed}`]), shown.k);
  fillSelect($('shown-length'), run.lengths.map((pairs) => [pairs, `${pairs} pairs${pairs === run.settings.pairs ? ' (trained)' : ''}`]), shown.pairs);
  lengths(run, settings);
  looks(run, shown, settings);
  drawAttention();
}

function show(run) {
  shown = { run, k: 0, pairs: run.settings.pairs };
  if (!runner.training()) live = run;
  drawLive();
  drawShown();
  runsTable.draw(runs, run);
}

function remove(run) {
  runs.splice(runs.indexOf(run), 1);
  runner.release(run).then(showWasmMemory, (error) => notices.add(`Run ${run.id}'s models could not be freed: ${error.message}`));
  if (shown?.run === run) {
    shown = runs.length > 0 ? { run: runs.at(-1), k: 0, pairs: runs.at(-1).settings.pairs } : null;
    if (!runner.training()) live = shown?.run ?? null;
    if (!shown) attentionMap.clear();
    drawShown();
  }
  runsTable.draw(runs, shown?.run ?? null);
}

// ---- training ----------------------------------------------------------------------------------

function progressText(run) {
  const step = Math.min(...run.seeds.map((s) => s.step));
  const total = run.settings.steps;
  const seeds = run.seeds.length === 1 ? `seed ${run.seeds[0].seed}` : `${run.seeds.length} seeds side by side`;
  const word = run.status === 'paused' ? 'Paused' : 'Training';
  return [`${word} (${seeds}): step ${countFormat(step)} of ${countFormat(total)}, ${run.seconds.toFixed(1)} s`, step / total];
}

async function train() {
  if (runner.training() || !controls.ready()) return;
  const run = createRun({ id: nextId++, settings: structuredClone(settings), seeds: runSeeds(settings) });
  live = run;
  controls.setTraining('training');
  document.documentElement.dataset.training = 'running';
  status.progress(...progressText(run));
  drawLive();
  try {
    await runner.train(run, {
      onCheckpoint: () => drawLive(),
      onProgress() {
        training.progress(run);
        status.progress(...progressText(run));
      },
    });
    runs.push(run);
    runsTable.overlay(run);
    const step = Math.min(...run.seeds.map((s) => s.step));
    status.done(run.status === 'finished'
      ? `Trained ${countFormat(run.settings.steps)} steps (${run.seeds.length === 1 ? 'one seed' : `${run.seeds.length} seeds side by side`}) in ${run.seconds.toFixed(1)} s.`
      : `Stopped at step ${countFormat(step)} of ${countFormat(run.settings.steps)} after ${run.seconds.toFixed(1)} s; the charts show the model as it was then.`);
    show(run);
  } catch (error) {
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

function pause() {
  if (runner.paused()) {
    runner.resume();
    controls.setTraining('training');
  } else {
    runner.pause();
    controls.setTraining('paused');
  }
  const run = runner.training();
  if (run) {
    status.progress(...progressText(run));
    document.documentElement.dataset.training = runner.paused() ? 'paused' : 'running';
  }
}

// ---- saving and loading a model -----------------------------------------------------------------

async function saveModel() {
  if (!shown) return;
  const { run, k } = shown;
  try {
    const saved = await runner.request(k, 'save', { id: run.id, meta: modelMeta(run, k) });
    download(new Blob([JSON.stringify(saved)], { type: 'application/json' }), modelFileName(run, k));
  } catch (error) {
    notices.add(`The model could not be saved: ${error.message}`);
  }
}

async function loadModel(file) {
  const fail = (message) => {
    $('model-status').textContent = `${file.name} was not loaded: ${message}`;
    $('model-status').classList.add('error');
  };
  $('model-status').classList.remove('error');
  if (file.size > MODEL_FILE_LIMIT) {
    fail(`it takes ${formatBytes(file.size)}, and the page reads model files up to ${formatBytes(MODEL_FILE_LIMIT)}.`);
    return;
  }
  $('model-status').textContent = `Loading ${file.name}…`;
  let saved;
  try {
    saved = parseModelFile(await file.text());
  } catch (error) {
    fail(`${error.message}.`);
    return;
  }
  const id = nextId++;
  const run = { id, seeds: [null] };
  try {
    const { config } = await runner.request(0, 'load', { id, saved });
    const read = loadedSettings(config, saved.meta, settings);
    const problems = Object.values(settingProblems(read.settings));
    if (problems.length > 0) throw new Error(problems.join(' '));
    const loaded = createRun({ id, settings: read.settings, seeds: [read.settings.seed], source: 'loaded', fileName: file.name });
    Object.assign(loaded.seeds[0], { checkpoints: read.checkpoints, step: read.checkpoints.at(-1)?.step ?? read.settings.steps });
    if (Number.isFinite(saved.meta?.seconds)) loaded.seconds = saved.meta.seconds;
    const { evaluations } = await runner.request(0, 'evaluate', { id, evaluation: evaluationOptions(loaded.settings, loaded.lengths) });
    loaded.seeds[0].evaluations = evaluations;
    runs.push(loaded);
    runsTable.overlay(loaded);
    $('model-status').textContent = `Loaded ${file.name} as run ${id}` +
      (read.notes.length > 0 ? `; of the file, ${read.notes.join('; ')}.` : '.');
    show(loaded);
  } catch (error) {
    runner.release(run).catch(() => {});
    fail(`${error.message}`);
  } finally {
    showWasmMemory();
  }
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

$('shown-seed').addEventListener('change', (event) => {
  shown.k = Number(event.target.value);
  looks(shown.run, shown, settings);
  drawAttention();
});
$('shown-length').addEventListener('change', (event) => {
  shown.pairs = Number(event.target.value);
  looks(shown.run, shown, settings);
  drawAttention();
});
$('save-model').addEventListener('click', saveModel);
$('load-file').addEventListener('change', (event) => {
  const [file] = event.target.files;
  event.target.value = '';
  if (file) loadModel(file);
});
bindExports({ shownRun: () => shown?.run ?? null, onError: (error) => notices.add(`The PNG could not be made: ${error.message}`) });

for (const documents of DOCUMENT_COUNTS) $('documents').append(new Option(`${documents} documents`, String(documents)));
$('documents').value = String(PUBLISHED_DOCUMENTS);
$('documents').addEventListener('change', () => drawPublished(Number($('documents').value)));
$('published-source').textContent = `Source: ${SOURCE.match(/^.*?\)/)?.[0] ?? SOURCE}. ` +
  'Multi-document question answering, accuracy by the position of the answer document, transcribed from the paper\'s tables.';

window.addEventListener('hashchange', () => {
  Object.assign(settings, link.read());
  controls.sync();
  runner.warm(settings.seeds);
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
showEngineStatus($('engine-status'), runner.ready(), ({ version }) => `Engine ${version} ready: WebAssembly in one worker per seed.`);
