// A trained model as a file: what the page writes beside model.save()'s parameters (`meta`:
// the run's settings as a link, the seed, the curves it measured while training and the step it
// reached, fewer than the link's steps when the run was stopped) and how it reads a file back.
// Files from earlier versions of the page also carry `stopped` (whether the step is below the
// steps), which the step already says: it is not read. The engine checks the model itself
// (engine.loadTransformer); this module reads the file's JSON and the page's own part of it,
// taking nothing on trust: whatever of `meta` does not parse is left out and named.
import { CURVES_FORMAT } from './exports.js';
import { parseHash, POSITIONAL, RUN_FIELDS, toHash } from './state.js';

/** The largest model file the page reads (a 2-layer dModel-32 model takes about 0.2 MB). */
export const MODEL_FILE_LIMIT = 32 * 2 ** 20;
export const META_FORMAT = 'attention-playground-train-run';
const META_VERSION = 1;
// Tokens beyond the keys and values: SEP and the two cues of the other objectives.
const CUE_TOKENS = 3;

/** The `meta` of seed k's model of `run`. */
export function modelMeta(run, k) {
  const runSettings = Object.fromEntries(RUN_FIELDS.map((name) => [name, run.settings[name]]));
  return {
    format: META_FORMAT,
    version: META_VERSION,
    link: toHash({ ...runSettings, seeds: 1, seed: run.seeds[k].seed }),
    seed: run.seeds[k].seed,
    seconds: run.seconds,
    checkpoints: run.seeds[k].checkpoints,
    step: run.seeds[k].step,
  };
}

/** The file name a model is saved under. */
export function modelFileName(run, k) {
  return `attention-playground-model-${run.settings.positional}-seed${run.seeds[k].seed}.json`;
}

/** A file's text as the saved model it should hold; throws an Error that says why not. */
export function parseModelFile(text) {
  let saved;
  try {
    saved = JSON.parse(text);
  } catch (error) {
    throw new Error(`the file is not JSON (${error.message})`);
  }
  if (saved === null || typeof saved !== 'object' || Array.isArray(saved)) {
    throw new Error('the file holds no saved model: its JSON is not an object');
  }
  if (saved.format === CURVES_FORMAT) {
    throw new Error('the file holds a run\'s curves (Curves JSON), not a saved model: load a file from Save model');
  }
  return saved;
}

const isFraction = (value) => typeof value === 'number' && value >= 0 && value <= 1;

// The checkpoints of a file's meta, when every one of them reads (k positions each), else null.
function readCheckpoints(checkpoints, k) {
  if (!Array.isArray(checkpoints)) return null;
  const read = [];
  for (const c of checkpoints) {
    const good = c !== null && typeof c === 'object' && Number.isInteger(c.step) && c.step > 0
      && Number.isFinite(c.loss) && isFraction(c.accuracy)
      && Array.isArray(c.accuracyByPosition) && c.accuracyByPosition.length === k && c.accuracyByPosition.every(isFraction)
      && (read.length === 0 || c.step > read.at(-1).step);
    if (!good) return null;
    read.push({ step: c.step, loss: c.loss, accuracy: c.accuracy, accuracyByPosition: [...c.accuracyByPosition] });
  }
  return read;
}

// The step a file's model reached: meta.step when it reads (a whole number up to the run's
// steps), else the last checkpoint's step (files saved before the page wrote it; a stopped
// run's last checkpoint was then a regular one), else the run's steps. {step, problem: a
// note, or null}.
function readStep(meta, checkpoints, steps) {
  const fallback = checkpoints.at(-1)?.step ?? steps;
  if (meta?.format !== META_FORMAT || meta.step === undefined) return { step: fallback, problem: null };
  if (Number.isInteger(meta.step) && meta.step >= 0 && meta.step <= steps) return { step: meta.step, problem: null };
  return { step: fallback, problem: `its step reached does not read as a whole number from 0 to ${steps}, so step ${fallback} is taken` };
}

/**
 * The settings of a loaded model: those its file's meta gives, or else `fallback` (the page's)
 * with the task's symbols read from the model's vocabulary; the model's own fields always from
 * `config` (as the engine checked it). Returns {settings, checkpoints, step, notes,
 * trainingKnown}: `step` the step the model reached (fewer than settings.steps when its run was
 * stopped), the notes saying what of the file the page could not use, trainingKnown whether
 * the file says how the model was trained (its pairs, steps and batch; else they are the
 * page's, to measure it by, not facts of the model).
 */
export function loadedSettings(config, meta, fallback) {
  const notes = [];
  let settings = null;
  const trainingKnown = meta?.format === META_FORMAT && typeof meta.link === 'string';
  if (trainingKnown) {
    const parsed = parseHash(meta.link);  // (its notes concern pe, which the model's config gives)
    settings = parsed.settings;
    notes.push(...parsed.problems.map((problem) => `its settings: ${problem}`));
  } else {
    notes.push('it holds no settings of this page, so the task is read from the model (its keys and values) and the rest from the page');
    settings = { ...fallback, values: config.outputs, keys: config.vocab - config.outputs - CUE_TOKENS };
  }
  settings.layers = config.layers;
  settings.dModel = config.dModel;
  settings.heads = config.heads;
  settings.mlp = config.mlp;
  // the model's own encoding, whatever the link says
  if (POSITIONAL.includes(config.positional?.type)) settings.positional = config.positional.type;
  settings.seed = config.seed;
  settings.seeds = 1;
  if (settings.pairs > settings.keys) settings.pairs = Math.max(1, settings.keys);
  settings.evaluateAt = settings.evaluateAt.filter((pairs) => pairs <= settings.keys);
  // the list is never empty (its box and its link refuse that): the trained length when none fits
  if (settings.evaluateAt.length === 0) settings.evaluateAt = [settings.pairs];
  let checkpoints = [];
  if (meta?.format === META_FORMAT && meta.checkpoints !== undefined) {
    checkpoints = readCheckpoints(meta.checkpoints, settings.pairs);
    if (checkpoints === null) {
      notes.push('its training curves do not read as checkpoints of this run, and are not shown');
      checkpoints = [];
    }
  }
  const { step, problem } = readStep(meta, checkpoints, settings.steps);
  if (problem) notes.push(problem);
  return { settings, checkpoints, step, notes, trainingKnown };
}
