// The Train page's settings: the task, the model, the training and its evaluation, and what the
// charts show; each with its default, its spelling in the URL hash (#pe=rope&steps=800) and
// the rule a value must follow. Only settings that differ from their default are written, and
// the positional encoding with them: a link that names settings but no pe was written while
// RoPE was the default, and is read with RoPE. Reading a hash never fails: a value that does
// not parse, or a key the page does not know, is left out and reported so the page can show
// what it ignored. Also: the engine options a run stands for (engine.retrievalTrainer's), one
// per seed.
import { formatCount } from '../shared/format.js';
import { choice, flag, linkNumber, wholeNumber } from '../shared/setting-codecs.js';
import { fieldReader, hashEntries } from '../shared/url-hash.js';

const MAX_SEED = 2 ** 31 - 1;   // a seed that a URL and a number input both keep exactly
const MAX_SYMBOLS = 1024;       // key or value symbols
const MAX_PAIRS = 256;          // pairs per sequence (a sequence has 2k + 2 tokens)
const MAX_STEPS = 100_000;
const MAX_MIX = 100;            // an objective's weight
const MAX_EVALUATION_LENGTHS = 8;
const LIST_SEPARATOR = ',';

export const LIMITS = Object.freeze({ MAX_SEEDS: 8, MAX_HEADS: 16, MAX_LAYERS: 8, MAX_WIDTH: 256, MAX_PAIRS });

export const POSITIONAL = ['alibi', 'rope', 'none', 'learned', 'sinusoidal'];
export const POSITIONAL_NAMES = { alibi: 'ALiBi', rope: 'RoPE', none: 'no positions', learned: 'learned', sinusoidal: 'sinusoidal' };
const ANSWERS = ['uniform', 'ends'];
const CONTEXTS = ['causal', 'prefix'];
const AXES = ['relative', 'position'];
const TARGETS = ['value', 'key', 'first'];

function number(min, max, { above = false } = {}) {
  const rule = above ? `a number above ${min} and at most ${max}` : `a number from ${min} to ${max}`;
  return {
    parse(text) {
      const value = linkNumber(text);
      if (text.trim() === '' || !Number.isFinite(value) || value > max || (above ? value <= min : value < min)) throw new Error(rule);
      return value;
    },
    format: String,
  };
}

// Numbers of pairs to evaluate at after training: "16, 24, 32", distinct, each 1..MAX_PAIRS.
const pairsList = {
  parse(text) {
    const rule = `up to ${MAX_EVALUATION_LENGTHS} whole numbers from 1 to ${MAX_PAIRS} separated by commas, such as 16, 24, 32`;
    const parts = text.split(LIST_SEPARATOR).map((part) => part.trim());
    if (parts.length > MAX_EVALUATION_LENGTHS) throw new Error(rule);
    const values = parts.map((part) => {
      const value = Number(part);
      if (!/^\d+$/.test(part) || value < 1 || value > MAX_PAIRS) throw new Error(rule);
      return value;
    });
    return [...new Set(values)].sort((a, b) => a - b);
  },
  format: (values) => values.join(LIST_SEPARATOR),
};

/** Setting → {key in the hash, label as messages name it, default, codec, group}. */
const FIELDS = {
  // the task
  pairs: { key: 'pairs', label: 'pairs per sequence', value: 16, codec: wholeNumber(1, MAX_PAIRS), group: 'task' },
  keys: { key: 'keys', label: 'key symbols', value: 32, codec: wholeNumber(1, MAX_SYMBOLS), group: 'task' },
  values: { key: 'values', label: 'value symbols', value: 32, codec: wholeNumber(1, MAX_SYMBOLS), group: 'task' },
  answers: { key: 'answers', label: 'where answers sit', value: 'uniform', codec: choice(ANSWERS), group: 'task' },
  retrieval: { key: 'retrieval', label: 'retrieval weight', value: 1, codec: number(0, MAX_MIX), group: 'task' },
  runningSpan: { key: 'span', label: 'running span weight', value: 0, codec: number(0, MAX_MIX), group: 'task' },
  serialRecall: { key: 'recall', label: 'serial recall weight', value: 0, codec: number(0, MAX_MIX), group: 'task' },
  spanItems: { key: 'spanItems', label: 'running span items', value: 4, codec: wholeNumber(1, MAX_PAIRS), group: 'task' },
  // the model
  layers: { key: 'layers', label: 'layers', value: 2, codec: wholeNumber(1, LIMITS.MAX_LAYERS), group: 'model' },
  dModel: { key: 'dModel', label: 'dModel', value: 32, codec: wholeNumber(1, LIMITS.MAX_WIDTH), group: 'model' },
  heads: { key: 'heads', label: 'heads', value: 2, codec: wholeNumber(1, LIMITS.MAX_HEADS), group: 'model' },
  mlp: { key: 'mlp', label: 'MLP', value: false, codec: flag, group: 'model' },
  positional: { key: 'pe', label: 'positional encoding', value: 'alibi', codec: choice(POSITIONAL), group: 'model' },
  context: { key: 'context', label: 'context', value: 'causal', codec: choice(CONTEXTS), group: 'model' },
  // the training
  steps: { key: 'steps', label: 'steps', value: 1400, codec: wholeNumber(1, MAX_STEPS), group: 'training' },
  batch: { key: 'batch', label: 'batch', value: 64, codec: wholeNumber(1, 1024), group: 'training' },
  learningRate: { key: 'lr', label: 'learning rate', value: 0.01, codec: number(0, 1, { above: true }), group: 'training' },
  seed: { key: 'seed', label: 'seed', value: 0, codec: wholeNumber(0, MAX_SEED), group: 'training' },
  seeds: { key: 'seeds', label: 'seeds side by side', value: 1, codec: wholeNumber(1, LIMITS.MAX_SEEDS), group: 'training' },
  // the evaluation
  every: { key: 'every', label: 'checkpoint every', value: 100, codec: wholeNumber(1, MAX_STEPS), group: 'evaluation' },
  sequences: { key: 'heldOut', label: 'held-out sequences', value: 2048, codec: wholeNumber(1, 16_384), group: 'evaluation' },
  evaluateAt: { key: 'evalAt', label: 'lengths to evaluate at', value: [16, 24, 32], codec: pairsList, group: 'evaluation' },
  // what the charts show
  axis: { key: 'axis', label: 'x axis of the lengths chart', value: 'relative', codec: choice(AXES), group: 'view' },
  target: { key: 'target', label: 'attention measured on', value: 'value', codec: choice(TARGETS), group: 'view' },
  example: { key: 'example', label: 'example sequence', value: 1, codec: wholeNumber(0, MAX_SEED), group: 'view' },
};

const readField = fieldReader(FIELDS);
const KEYS = new Set(Object.values(FIELDS).map((field) => field.key));

// Links written before ALiBi became the default left RoPE, then the default, out of the hash.
const OLD_DEFAULT_POSITIONAL = 'rope';
export const OLD_LINK_NOTE = 'This link is from before ALiBi became the default run, so it is read with RoPE, as it was made.';

/** The settings a run depends on (everything but what the charts show). */
export const RUN_FIELDS = Object.keys(FIELDS).filter((name) => FIELDS[name].group !== 'view');

/** The settings when the hash is empty. */
export const DEFAULTS = Object.freeze(Object.fromEntries(Object.entries(FIELDS).map(([name, field]) => [name, field.value])));

export const defaultSettings = () => structuredClone({ ...DEFAULTS });

/** A setting's name as messages give it ('pairs per sequence'). */
export const fieldLabel = (name) => FIELDS[name].label;

/** A whole-number setting's range, for its number box: {min, max} (or {} for other settings). */
export function fieldRange(name) {
  const { min, max } = FIELDS[name].codec;
  return min === undefined ? {} : { min, max };
}

/** One setting as its control shows it. */
export const formatField = (name, value) => FIELDS[name].codec.format(value);

/** One setting as typed into its control; throws an Error that says what it must be. */
export const parseField = (name, typed) => FIELDS[name].codec.parse(typed.trim());

/**
 * '#pe=rope&steps=800' → {settings, problems: ['steps (steps) must be …, got “x”', …], notes}.
 * A hash that names a setting but not pe is an old link (OLD_LINK_NOTE, the one note): it is
 * read with RoPE, as it was made. The empty hash is the defaults, ALiBi's run.
 */
export function parseHash(hash) {
  const settings = defaultSettings();
  const problems = [];
  const notes = [];
  const entries = hashEntries(hash, problems);
  for (const [key, value] of entries) {
    readField(settings, key, value, problems);
  }
  const keys = entries.map(([key]) => key);
  if (keys.some((key) => KEYS.has(key)) && !keys.includes(FIELDS.positional.key)) {
    settings.positional = OLD_DEFAULT_POSITIONAL;
    notes.push(OLD_LINK_NOTE);
  }
  return { settings, problems, notes };
}

/**
 * The hash of `settings`, with '#', listing what differs from the defaults and, when anything
 * does, the positional encoding even at its default ('#pe=alibi&steps=800'; '' for the
 * defaults); settings left out of `settings` are left out of the hash.
 */
export function toHash(settings) {
  const given = Object.keys(FIELDS).filter((name) => settings[name] !== undefined);
  const formatted = (name) => FIELDS[name].codec.format(settings[name]);
  const written = new Set(given.filter((name) => formatted(name) !== FIELDS[name].codec.format(FIELDS[name].value)));
  if (written.size > 0 && given.includes('positional')) written.add('positional');
  const params = new URLSearchParams();
  for (const name of given.filter((n) => written.has(n))) params.set(FIELDS[name].key, formatted(name));
  const text = params.toString();
  return text ? `#${text}` : '';
}

// ---- what the settings stand for ------------------------------------------------------------

/** The numbers of pairs a run is evaluated at after training: the trained one and the listed ones. */
export function evaluationLengths(settings) {
  return [...new Set([settings.pairs, ...settings.evaluateAt])].sort((a, b) => a - b);
}

/** The task options of the engine. */
export function taskOptions(settings) {
  return {
    pairs: settings.pairs, keys: settings.keys, values: settings.values, answerPositions: settings.answers,
    mix: { retrieval: settings.retrieval, runningSpan: settings.runningSpan, serialRecall: settings.serialRecall },
    span: settings.spanItems,
  };
}

/** The seeds of a run: seed, seed + 1, … (side by side, each on its own worker or team). */
export function runSeeds(settings) {
  return Array.from({ length: settings.seeds }, (_, k) => settings.seed + k);
}

/** engine.retrievalTrainer's options for one seed of the run `settings` describe. */
export function trainerOptions(settings, seed) {
  return {
    task: taskOptions(settings),
    model: {
      layers: settings.layers, dModel: settings.dModel, heads: settings.heads, mlp: settings.mlp,
      positional: { type: settings.positional }, context: settings.context,
    },
    training: { steps: settings.steps, batch: settings.batch, learningRate: settings.learningRate, seed },
    evaluation: { every: settings.every, sequences: settings.sequences, pairs: evaluationLengths(settings) },
  };
}

/**
 * A short description of a run's settings, for the runs table and file names' readers; a run
 * stopped at step `reached` (before settings.steps) says so; without trainingKnown (a loaded
 * model whose file does not say how it was trained) only the model and its symbols.
 */
export function describeRun(settings, reached = settings.steps, { trainingKnown = true } = {}) {
  const objectives = [['retrieval', 'retrieval'], ['runningSpan', 'span'], ['serialRecall', 'recall']]
    .filter(([name]) => settings[name] > 0);
  const mix = objectives.length === 1 && objectives[0][0] === 'retrieval' ? ''
    : `, ${objectives.map(([name, word]) => `${word} ${settings[name]}`).join(' + ')}`;
  const model = `${POSITIONAL_NAMES[settings.positional]}${settings.context === 'prefix' ? ' bidirectional' : ''}, ` +
    `${settings.layers}L d${settings.dModel} ${settings.heads}H${settings.mlp ? ' +MLP' : ''}; `;
  if (!trainingKnown) return `${model}${settings.keys}/${settings.values} symbols; its training not in the file`;
  return model +
    `${settings.pairs} pairs of ${settings.keys}/${settings.values}${settings.answers === 'ends' ? ' (ends)' : ''}${mix}; ` +
    `${reached < settings.steps ? `stopped at ${formatCount(reached)} of ` : ''}${formatCount(settings.steps)} steps × ${settings.batch}, ` +
    `lr ${settings.learningRate}`;
}
