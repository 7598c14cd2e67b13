// The trained model's panel: which run it shows, and which seed's model and number of pairs
// charts 4 and 5 show; saving that model to a file, and loading a model from one as a run of
// its own (the engine checks the model; model-file.js reads the page's part of the file).
import { download } from '../../shared/downloads.js';
import { formatBytes } from '../../shared/format.js';
import { settingProblems } from '../checks.js';
import {
  loadedSettings, MODEL_FILE_LIMIT, modelFileName, modelMeta, parseModelFile,
} from '../model-file.js';
import { evaluationOptions } from '../runner.js';
import { createRun, isTrainedLength, runName } from '../runs.js';
import { describeRun } from '../state.js';

const $ = (id) => document.getElementById(id);

function fillSelect(select, options, value) {
  select.replaceChildren(...options.map(([optionValue, text]) => new Option(text, String(optionValue))));
  select.value = String(value);
}

/**
 * Binds the panel: runner (runner.js), settings() the page's settings (a file without its
 * own takes the task from them), newId() a run id, returnId(id) to give back the id of a run
 * that failed to be taken, onSelect({k} or {pairs}) when a select
 * changes, onLoaded(run) when a file has become a run, onDone() after every load or save,
 * notices for what could not be saved. Returns draw(shown), shown being {run, k, pairs} or null.
 * A loaded model is the panel's until onLoaded returns, then its run's (the page frees it with
 * the run): should onLoaded throw, it keeps no run, and the panel frees the model.
 */
export function createModelPanel({ runner, settings, newId, returnId, onSelect, onLoaded, onDone, notices }) {
  let shown = null;
  let loads = 0;  // files loaded so far
  let loading = 0;  // files being loaded now
  const status = $('model-status');
  // The status line speaks of the last file loaded: it stays while the run shown then (or the
  // run the file became) is shown, and goes once another run is (a run trained since).
  let statusRun = null;

  function report(text, { error = false, run = shown?.run ?? null } = {}) {
    status.textContent = text;
    status.classList.toggle('error', error);
    statusRun = run;
  }

  function fail(file, message) {
    report(`${file.name} was not loaded: ${message}`, { error: true });
  }

  async function save() {
    if (!shown) return;
    const { run, k } = shown;
    try {
      // a lane per model: saving another seed's or run's meanwhile does not supersede this one
      const saved = await runner.requestModel(run, k, 'save', { id: run.id, meta: modelMeta(run, k) }, { lane: `save ${run.id} ${k}` });
      download(new Blob([JSON.stringify(saved)], { type: 'application/json' }), modelFileName(run, k));
    } catch (error) {
      // a second click on the same model's Save supersedes the first, and saves it
      if (error.name !== 'Superseded') notices.add(`The model could not be saved: ${error.message}`);
    }
  }

  async function load(file) {
    if (file.size > MODEL_FILE_LIMIT) {
      fail(file, `it takes ${formatBytes(file.size)}, and the page reads model files up to ${formatBytes(MODEL_FILE_LIMIT)}.`);
      return;
    }
    report(`Loading ${file.name}…`);
    ++loading;
    try {
      await loadAsRun(file);
    } finally {
      --loading;
      onDone();
    }
  }

  // The file read, checked, loaded in the workers and measured: a run of its own, or the reason it is not.
  async function loadAsRun(file) {
    let saved, text;
    try {
      text = await file.text();
      saved = parseModelFile(text);
    } catch (error) {
      fail(file, `${error.message}.`);
      return;
    }
    // the model's name in the workers until it has loaded and been measured, when it becomes
    // a run and takes the next run id (a file that fails takes none: should it fail after
    // taking one, it gives it back, unless a later id was given meanwhile)
    const key = `file ${++loads}`;
    const names = [key];  // what the model may be called in the workers, to free it should the load fail
    let id = null;
    try {
      const config = await runner.loadModel(key, text);
      const read = loadedSettings(config, saved.meta, settings());
      const problems = Object.values(settingProblems(read.settings));
      if (problems.length > 0) throw new Error(problems.join(' '));
      const run = createRun({
        id: null, settings: read.settings, seeds: [read.settings.seed], source: 'loaded', fileName: file.name,
        trainingKnown: read.trainingKnown,
      });
      Object.assign(run.seeds[0], { checkpoints: read.checkpoints, step: read.step });
      run.label = describeRun(run.settings, read.step, { trainingKnown: read.trainingKnown });
      if (Number.isFinite(saved.meta?.seconds)) run.seconds = saved.meta.seconds;
      const { evaluations, workers } = await runner.evaluateModel(key, text, evaluationOptions(run.settings, run.lengths));
      run.seeds[0].evaluations = evaluations;
      id = newId();
      names.push(id);
      await runner.renameModel(key, id);
      run.id = id;
      const measured = workers > 1 ? ` (measured on ${workers} workers)` : '';
      report(`Loaded ${file.name} as run ${id}${measured}${read.notes.length > 0 ? `; of the file, ${read.notes.join('; ')}.` : '.'}`, { run });
      onLoaded(run);
    } catch (error) {
      await Promise.allSettled(names.map((name) => runner.release({ id: name })));
      if (id !== null) returnId(id);
      fail(file, error.message);
    }
  }

  $('shown-seed').addEventListener('change', (event) => onSelect({ k: Number(event.target.value) }));
  $('shown-length').addEventListener('change', (event) => onSelect({ pairs: Number(event.target.value) }));
  $('save-model').addEventListener('click', save);
  $('load-file').addEventListener('change', (event) => {
    const [file] = event.target.files;
    event.target.value = '';
    if (file) load(file);
  });

  return function draw(next) {
    shown = next;
    const run = shown?.run ?? null;
    if (run !== statusRun && loading === 0) report('', { run });
    $('model-panel').dataset.run = run ? String(run.id) : '';
    $('shown-run').textContent = run ? `${runName(run)}: ${run.label}` : 'No run yet: train one, or load a model.';
    for (const id of ['save-model', 'export-csv', 'export-json', 'shown-seed', 'shown-length']) $(id).disabled = !run;
    $('after-training').hidden = !run;
    if (!run) return;
    fillSelect($('shown-seed'), run.seeds.map((s, k) => [k, `seed ${s.seed}`]), shown.k);
    fillSelect($('shown-length'), run.lengths.map((pairs) => [pairs, `${pairs} pairs${isTrainedLength(run, pairs) ? ' (trained)' : ''}`]), shown.pairs);
  };
}
