// The Train page's controls: each sets one setting, its text parsed by state.js; text that
// does not parse is named under the control (the setting keeps its last good value), and so
// are the problems of settings that fail together (checks.js) and what the engine refused.
// The presets, the Train button and the Pause / Stop buttons beside the training chart, and
// what they may do now, are here too, and the groups of settings, which a narrow screen folds
// to a line of their settings (option-groups.js).
import { showProblem, typedProblem } from '../shared/page/control-problems.js';
import { headChoices, settingProblems } from './checks.js';
import { daggerMark } from './learning.js';
import { createOptionGroups } from './option-groups.js';
import { isPresetRun, PRESETS, presetRun } from './presets.js';
import { fieldLabel, fieldRange, formatField, parseField } from './state.js';

/** Setting → the id of its control. */
const CONTROLS = {
  pairs: 'pairs', keys: 'keys', values: 'values', answers: 'answers', retrieval: 'retrieval', runningSpan: 'running-span',
  serialRecall: 'serial-recall', spanItems: 'span-items', layers: 'layers', dModel: 'd-model', heads: 'heads', mlp: 'mlp',
  positional: 'positional', context: 'context', steps: 'steps', batch: 'batch', learningRate: 'learning-rate', seed: 'seed',
  seeds: 'seeds', every: 'every', sequences: 'sequences', evaluateAt: 'evaluate-at', axis: 'axis', target: 'target',
  example: 'example',
};

// The names the engine's messages give the settings (core/src/train/*.cpp), most specific first.
const ENGINE_NAMES = [
  ['task.pairs', 'pairs'], ['task.keys', 'keys'], ['task.values', 'values'], ['task.span', 'spanItems'],
  ['task.mix.runningSpan', 'runningSpan'], ['task.mix.serialRecall', 'serialRecall'], ['task.mix', 'retrieval'],
  ['training.steps', 'steps'], ['training.batch', 'batch'], ['training.learningRate', 'learningRate'],
  ['training.seed', 'seed'], ['evaluation.every', 'every'], ['evaluation.sequences', 'sequences'],
  ['evaluation.pairs', 'evaluateAt'], ['layers', 'layers'], ['dModel', 'dModel'], ['heads', 'heads'],
  ['positional rope', 'heads'], ['this model would have', 'dModel'], ['the longest sequence', 'pairs'],
];

/** The setting an engine error names, or null. */
export function fieldOfEngineError(message) {
  const found = ENGINE_NAMES.find(([name]) => new RegExp(`(^|: )${name.replace('.', '\\.')}\\b`).test(message));
  return found?.[1] ?? null;
}

const $ = (id) => document.getElementById(id);

/**
 * Binds the controls to `settings` (an object the page keeps): onChange(changes, {debounce})
 * applies what a control sets, onPreset(settings) a preset, and onTrain, onPause, onStop the
 * buttons. Returns {sync(), problems(), showEngineProblem(message), setTraining(state)}.
 */
export function createControls({ settings, onChange, onPreset, onTrain, onPause, onStop }) {
  const typed = new Map();      // setting → what is wrong with the text in its control
  let engineProblem = null;     // [setting, message] the engine gave for the settings on display
  let training = 'idle';        // 'idle', 'training' or 'paused'
  const groups = createOptionGroups();

  function problems() {
    return settingProblems(settings);
  }

  function sync() {
    const together = problems();
    if (engineProblem && engineProblem.settings !== JSON.stringify(settings)) engineProblem = null;
    for (const [field, id] of Object.entries(CONTROLS)) {
      const element = $(id);
      if (element !== document.activeElement || element.type === 'checkbox' || element.tagName === 'SELECT') {
        if (element.type === 'checkbox') element.checked = settings[field];
        else element.value = formatField(field, settings[field]);
        typed.delete(field);
      }
      const fromEngine = engineProblem?.field === field ? engineProblem.message : null;
      showProblem(element, typed.get(field) ?? together[field] ?? fromEngine);
    }
    for (const preset of PRESETS) {
      $('presets').querySelector(`[data-preset="${preset.id}"]`).setAttribute('aria-pressed', String(isPresetRun(preset, settings)));
    }
    $('span-items').disabled = !(settings.runningSpan > 0);
    const width = settings.dModel;
    const fits = headChoices(width, settings.positional === 'rope');
    $('heads-hint').textContent = `Heads that split dModel = ${width}${settings.positional === 'rope' ? ' into even widths (RoPE)' : ''}: ` +
      `${fits.length > 0 ? fits.join(', ') : 'none'}.`;
    // settings the engine refused stay refused until they change
    const blocked = typed.size > 0 || Object.keys(together).length > 0 || engineProblem !== null;
    $('train').disabled = training !== 'idle' || blocked;
    $('train').title = blocked ? 'Fix the settings marked in red first.' : '';
    $('pause').disabled = training === 'idle';
    $('pause').textContent = training === 'paused' ? 'Resume' : 'Pause';
    $('stop').disabled = training === 'idle';
    $('controls-problem').hidden = !blocked;
    groups.show(settings);
  }

  for (const [field, id] of Object.entries(CONTROLS)) {
    const element = $(id);
    Object.assign(element, fieldRange(field));
    const isText = element.type === 'number' || element.type === 'text';
    element.addEventListener(isText ? 'input' : 'change', () => {
      if (element.type === 'checkbox') return onChange({ [field]: element.checked });
      try {
        const value = parseField(field, element.value);
        typed.delete(field);
        return onChange({ [field]: value }, { debounce: isText });
      } catch (error) {
        typed.set(field, typedProblem(fieldLabel(field), element, error.message));
        return sync();
      }
    });
  }
  for (const preset of PRESETS) {
    const element = document.createElement('button');
    element.type = 'button';
    element.textContent = preset.label;
    // a dagger for the eye, which the presets' text explains, and the words for a screen reader
    if (preset.note) element.append(...daggerMark('preset-note', preset.note));
    element.dataset.preset = preset.id;
    element.addEventListener('click', () => {
      typed.clear();
      onPreset(presetRun(preset));
    });
    $('presets').append(element);
  }
  $('controls').addEventListener('submit', (event) => {
    event.preventDefault();
    if (!$('train').disabled) onTrain();
  });
  $('pause').addEventListener('click', onPause);
  $('stop').addEventListener('click', onStop);

  return {
    sync,
    /** Whether the settings can start a run: no typed problem, none together, none the engine gave. */
    ready: () => typed.size === 0 && Object.keys(problems()).length === 0 && engineProblem === null,
    /** Shows what the engine refused under the setting it names (kept until the settings change). */
    showEngineProblem(message) {
      const field = fieldOfEngineError(message);
      engineProblem = field ? { field, message, settings: JSON.stringify(settings) } : null;
      sync();
    },
    setTraining(state) {
      training = state;
      sync();
    },
  };
}
