// The presets part of `npm run bench` (node bench/run.mjs presets): the Train page's presets for
// each positional encoding and the default run with a bidirectional context (web/train/presets.js:
// the default run with one setting changed), each trained on the page's first SEEDS seeds (0, 1, 2: a run with 3 seeds), as the page's
// workers train them (engine.retrievalTrainer, here one seed after another), then measured on
// the page's held-out set (engine.evaluateRetrieval) at the trained length and at twice it.
// Per preset and length: the accuracy (the seeds' mean and range) and the seeds' mean at the
// first pair, in the middle (the mean over the middle third, as the page's: runs.js middleRange)
// and at the last pair;
// the README's table "What it finds" is this table. Nothing is tuned here: what it shows is
// what this network learns with these settings.
import createAttention from '../../dist/wasm/attention.mjs';
import { PRESETS, presetRun } from '../../web/train/presets.js';
import { middleMean, middleName } from '../../web/train/runs.js';
import { runSeeds, trainerOptions } from '../../web/train/state.js';

const SEEDS = 3;
const LONGER = 2;                 // the longer length, × the trained one
// one preset per encoding, the default first, then the default with a bidirectional context
const COMPARED = ['alibi', 'rope', 'none', 'learned', 'sinusoidal', 'bidirectional'];

const mean = (values) => values.reduce((sum, value) => sum + value, 0) / values.length;

// {accuracy, first, middle, last} of one evaluation's accuracy by position.
function ends(accuracy, byPosition) {
  return { accuracy, first: byPosition[0], middle: middleMean(byPosition), last: byPosition.at(-1) };
}

// One seed of a preset's run, trained to the end: its measures at each length, and its seconds.
function trainSeed(engine, settings, seed, lengths) {
  const options = trainerOptions(settings, seed);
  const trainer = engine.retrievalTrainer(options);
  const started = performance.now();
  try {
    while (!trainer.finished) trainer.advance(settings.steps);
    const model = trainer.model();
    try {
      const measures = lengths.map((pairs) => {
        const evaluation = engine.evaluateRetrieval(model, { task: options.task, pairs, sequences: settings.sequences, context: settings.context });
        return ends(evaluation.accuracy, Array.from(evaluation.accuracyByPosition));
      });
      return { seed, measures, seconds: (performance.now() - started) / 1000 };
    } finally {
      model.delete();
    }
  } finally {
    trainer.delete();
  }
}

const percent = (value) => `${(100 * value).toFixed(0)}%`;

// A table row's cells for one length: the mean accuracy with the seeds' range, then the means
// of first, middle and last.
function lengthCells(seeds, l) {
  const at = seeds.map((seed) => seed.measures[l]);
  const accuracies = at.map((m) => m.accuracy);
  const range = `${(100 * Math.min(...accuracies)).toFixed(0)}–${(100 * Math.max(...accuracies)).toFixed(0)}`;
  return [`${percent(mean(accuracies))} (${range})`, ...['first', 'middle', 'last'].map((name) => percent(mean(at.map((m) => m[name]))))];
}

/** {results, table}: per preset, each seed's measures at the trained length and at twice it. */
export async function runPresetsBenchmark() {
  const engine = await createAttention();
  const results = [];
  for (const id of COMPARED) {
    const preset = PRESETS.find((candidate) => candidate.id === id);
    const settings = { ...presetRun(preset), seeds: SEEDS };
    const lengths = [settings.pairs, LONGER * settings.pairs];
    const seeds = runSeeds(settings).map((seed) => trainSeed(engine, settings, seed, lengths));
    console.error(`bench: preset ${preset.label}, first / middle / last at ${lengths[0]} pairs by seed: ` +
      `${seeds.map(({ measures: [m] }) => `${percent(m.first)} / ${percent(m.middle)} / ${percent(m.last)}`).join(', ')}`);
    results.push({ preset: id, label: preset.label, lengths, steps: settings.steps, sequences: settings.sequences, seeds });
  }
  const { lengths, steps, sequences, seeds } = results[0];
  const table = [
    `The Train page's presets, one per positional encoding, each trained on seeds ${seeds.map(({ seed }) => seed).join(', ')} ` +
      `(${steps.toLocaleString('en-US')} steps) and measured on ${sequences.toLocaleString('en-US')} held-out sequences at ` +
      `${lengths[0]} pairs (trained) and ${lengths[1]}: accuracy, the seeds' mean (their range), then their mean at the first ` +
      `pair, the middle (the mean of ${middleName(lengths[0])} and of ${middleName(lengths[1])}) and the last.`,
    '',
    `| preset | ${lengths[0]} pairs (trained) | first | middle | last | ${lengths[1]} pairs | first | middle | last |`,
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...results.map(({ label, seeds }) => `| ${label} | ${[0, 1].flatMap((l) => lengthCells(seeds, l)).join(' | ')} |`),
  ].join('\n');
  return { results, table };
}
