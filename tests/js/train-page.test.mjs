// The Train page's modules that need no browser (web/train/): its settings and their link,
// the checks of settings that fail together, the presets, the engine options a run stands
// for, the runs' means and spreads (and the seeds a legend counts), the model file's meta
// read back defensively, the curves' CSV and JSON, and which setting an engine message names.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { settingProblems } from '../../web/train/checks.js';
import { fieldOfEngineError } from '../../web/train/controls.js';
import { curvesCsv, curvesJson, CURVES_FORMAT } from '../../web/train/exports.js';
import { loadedSettings, META_FORMAT, modelMeta, parseModelFile } from '../../web/train/model-file.js';
import { LEARNED_FRACTION, learnedThreshold, learningOf, notLearnedStatus, notLearnedText } from '../../web/train/learning.js';
import { isPresetRun, PRESETS, presetRun } from '../../web/train/presets.js';
import {
  bandLength, checkpointPositions, checkpointSeries, createRun, isTrainedLength, lowestOf, middleMean, middleName, middlePairs, middleRange, positionsAt, runCaption, runName, runSummary, seedsNote, spread,
} from '../../web/train/runs.js';
import {
  DEFAULTS, describeRun, evaluationLengths, parseField, parseHash, RUN_FIELDS, toHash, trainerOptions,
} from '../../web/train/state.js';
import { questionsByPosition, wilsonInterval } from '../../web/train/intervals.js';
import { maskedCells, TOKEN_KINDS, tokenKind, tokenLabel } from '../../web/train/views/attention-map.js';

const settingsWith = (changes) => ({ ...structuredClone(DEFAULTS), ...changes });

describe('Train settings and their link', () => {
  test('an empty hash gives the default run: 2 layers, dModel 32, 2 heads, ALiBi, 16 pairs of 32 and 32, batch 64, 1,400 steps', () => {
    const { settings, problems } = parseHash('');
    assert.deepEqual(problems, []);
    assert.deepEqual(
      { ...settings },
      {
        pairs: 16, keys: 32, values: 32, answers: 'uniform', retrieval: 1, runningSpan: 0, serialRecall: 0, spanItems: 4,
        layers: 2, dModel: 32, heads: 2, mlp: false, positional: 'alibi', context: 'causal', steps: 1400, batch: 64,
        learningRate: 0.01, seed: 0, seeds: 1, every: 100, sequences: 2048, evaluateAt: [16, 24, 32],
        axis: 'relative', target: 'value', example: 1,
      },
    );
    assert.equal(toHash(settings), '');
    assert.deepEqual(parseHash('').notes, [], 'the empty hash is no old link');
  });

  test('a link keeps what differs from the defaults and the positional encoding, and reads back the same settings', () => {
    const settings = settingsWith({ positional: 'rope', steps: 300, learningRate: 0.003, mlp: true, evaluateAt: [8, 12], seeds: 3 });
    const hash = toHash(settings);
    assert.equal(hash, '#mlp=1&pe=rope&steps=300&lr=0.003&seeds=3&evalAt=8%2C12');
    assert.deepEqual(parseHash(hash), { settings, problems: [], notes: [] });
    const alibi = settingsWith({ steps: 800, seeds: 3, axis: 'position' });
    assert.equal(toHash(alibi), '#pe=alibi&steps=800&seeds=3&axis=position');
    assert.deepEqual(parseHash(toHash(alibi)), { settings: alibi, problems: [], notes: [] });
  });

  test('the positional encoding in the link: written whenever anything is, ALiBi (the default) alone left out', () => {
    assert.equal(toHash(settingsWith({ positional: 'rope' })), '#pe=rope');
    assert.equal(toHash(settingsWith({ positional: 'alibi' })), '');
    assert.equal(toHash(settingsWith({ steps: 800 })), '#pe=alibi&steps=800');
    assert.equal(toHash(settingsWith({ example: 3 })), '#pe=alibi&example=3', 'a chart\'s setting alone: pe too');
    assert.equal(toHash(settingsWith({ positional: 'none', steps: 800 })), '#pe=none&steps=800');
    assert.equal(toHash({ steps: 800 }), '#steps=800', 'a setting left out of the settings is left out of the hash');
    assert.deepEqual(parseHash('#pe=alibi&steps=800'), { settings: settingsWith({ steps: 800 }), problems: [], notes: [] });
    assert.deepEqual(parseHash('#pe=rope&steps=800'), { settings: settingsWith({ positional: 'rope', steps: 800 }), problems: [], notes: [] });
    assert.equal(toHash(parseHash('#pe=alibi').settings), '');
  });

  test('a link that names settings but no pe was written while RoPE was the default: read with RoPE, and a note says so', () => {
    for (const hash of ['#steps=800', '#seeds=3', 'pairs=4&keys=8&values=8&evalAt=6', '#axis=position']) {
      const { settings, problems, notes } = parseHash(hash);
      assert.equal(settings.positional, 'rope', hash);
      assert.deepEqual(problems, [], hash);
      assert.deepEqual(notes, ['This link is from before ALiBi became the default run, so it is read with RoPE, as it was made.'], hash);
    }
    assert.equal(toHash(parseHash('#steps=800').settings), '#pe=rope&steps=800', 'written back with its pe');
    const bad = parseHash('#steps=x');
    assert.deepEqual([bad.settings.positional, bad.settings.steps, bad.notes.length], ['rope', 1400, 1], 'a setting named, though not read');
    for (const hash of ['', '#', '#zz=1', '#steps=%ZZ', '#pe=relative&steps=800']) {
      const { settings, notes } = parseHash(hash);
      assert.deepEqual([settings.positional, notes], ['alibi', []], `${hash}: no setting named, or pe named`);
    }
  });

  test('a bad value is named with the setting, its rule and what the link held; the rest is kept', () => {
    const { settings, problems } = parseHash('#heads=0&pe=relative&lr=0&steps=1e3&evalAt=16,x&mlp=yes&zz=1&pairs=8');
    assert.equal(settings.pairs, 8);
    assert.equal(settings.heads, 2);
    assert.deepEqual(problems, [
      'heads (heads) must be a whole number from 1 to 16, got “0”',
      'pe (positional encoding) must be one of alibi, rope, none, learned, sinusoidal, got “relative”',
      'lr (learning rate) must be a number above 0 and at most 1, got “0”',
      'steps (steps) must be a whole number from 1 to 100000, got “1e3”',
      'evalAt (lengths to evaluate at) must be up to 8 whole numbers from 1 to 256 separated by commas, such as 16, 24, 32, got “16,x”',
      'mlp (MLP) must be 0 or 1, got “yes”',
      'unknown setting “zz”',
    ]);
  });

  test('a typed list of lengths is read with spaces, sorted, and without repeats', () => {
    assert.deepEqual(parseField('evaluateAt', ' 32, 16 ,24,16 '), [16, 24, 32]);
    assert.throws(() => parseField('evaluateAt', ''), /whole numbers from 1 to 256/);
    assert.throws(() => parseField('seeds', '9'), /a whole number from 1 to 8/);
  });
});

describe('Train checks of settings that fail together', () => {
  test('the default run has no problem', () => {
    assert.deepEqual(settingProblems(settingsWith({})), {});
  });

  test('heads that do not divide dModel are named, with the counts that do', () => {
    assert.deepEqual(settingProblems(settingsWith({ heads: 3 })), {
      heads: '3 heads cannot split dModel = 32 into equal slices: choose 1, 2, 4, 8, 16.',
    });
  });

  test('RoPE over heads of odd width is named, with the counts that give even widths', () => {
    const { heads } = settingProblems(settingsWith({ dModel: 12, heads: 4, positional: 'rope' }));
    assert.equal(heads, 'RoPE rotates pairs of coordinates, so each head\'s width must be even: 4 heads over dModel = 12 ' +
      'give heads of 3 dimensions. With RoPE choose 1, 2, 3, 6 heads.');
    assert.deepEqual(settingProblems(settingsWith({ dModel: 12, heads: 4, positional: 'alibi' })), {});
  });

  test('under RoPE, heads that do not divide dModel are offered only the counts that give even widths', () => {
    assert.equal(settingProblems(settingsWith({ dModel: 12, heads: 5, positional: 'rope' })).heads,
      '5 heads cannot split dModel = 12 into equal slices of even width, as RoPE needs: choose 1, 2, 3, 6.');
    // 15 has no even split: every divisor leaves an odd width
    assert.equal(settingProblems(settingsWith({ dModel: 15, heads: 2, positional: 'rope' })).heads,
      '2 heads cannot split dModel = 15 into equal slices of even width, as RoPE needs: choose an even dModel.');
    assert.equal(settingProblems(settingsWith({ dModel: 16, heads: 16, positional: 'rope' })).heads,
      'RoPE rotates pairs of coordinates, so each head\'s width must be even: 16 heads over dModel = 16 ' +
      'give heads of 1 dimension. With RoPE choose 1, 2, 4, 8 heads.');
  });

  test('more pairs than key symbols, at the trained length or any evaluated one, are named', () => {
    const problems = settingProblems(settingsWith({ pairs: 40, keys: 32, evaluateAt: [16, 40, 48] }));
    assert.match(problems.pairs, /^40 pairs need 40 distinct keys, but there are only 32 key symbols/);
    assert.match(problems.evaluateAt, /^Evaluating at 40, 48 pairs needs as many distinct keys/);
  });

  test('objectives that all weigh 0, and a running span longer than the pairs, are named', () => {
    assert.match(settingProblems(settingsWith({ retrieval: 0 })).retrieval, /weights add up to 0/);
    assert.match(settingProblems(settingsWith({ runningSpan: 1, spanItems: 20 })).spanItems, /running span of 20 items/);
    assert.deepEqual(settingProblems(settingsWith({ spanItems: 20 })), {}, 'the span items matter only with a running span');
  });
});

describe('Train presets and engine options', () => {
  test('one preset per positional encoding, with every other setting of the run the default', () => {
    const encodings = PRESETS.filter((p) => Object.keys(p.settings).join() === 'positional').map((p) => p.settings.positional);
    assert.deepEqual(encodings.sort(), ['alibi', 'learned', 'none', 'rope', 'sinusoidal']);
    for (const preset of PRESETS.filter((p) => encodings.includes(p.id))) {
      const run = presetRun(preset);
      for (const name of RUN_FIELDS.filter((n) => n !== 'seeds' && n !== 'positional')) {
        assert.deepEqual(run[name], DEFAULTS[name], `${preset.id}: ${name}`);
      }
    }
    assert.deepEqual(settingProblems(settingsWith(presetRun(PRESETS.find((p) => p.id === 'quick')))), {});
  });

  test('the first preset is the default run, ALiBi; the bidirectional one is the default with a bidirectional context', () => {
    assert.deepEqual(PRESETS.map((p) => p.id), ['alibi', 'rope', 'none', 'learned', 'sinusoidal', 'bidirectional', 'quick']);
    assert.deepEqual(PRESETS.filter((p) => isPresetRun(p, DEFAULTS)).map((p) => p.id), ['alibi']);
    const bidirectional = PRESETS.find((p) => p.id === 'bidirectional');
    assert.equal(bidirectional.label, 'ALiBi, bidirectional context');
    assert.ok(isPresetRun(bidirectional, settingsWith({ context: 'prefix' })));
  });

  test('a run stands for engine.retrievalTrainer options, one seed each, evaluated at the trained length too', () => {
    const settings = settingsWith({ pairs: 20, evaluateAt: [24, 32], runningSpan: 0.5, context: 'prefix', positional: 'rope' });
    assert.deepEqual(evaluationLengths(settings), [20, 24, 32]);
    assert.deepEqual(trainerOptions(settings, 7), {
      task: { pairs: 20, keys: 32, values: 32, answerPositions: 'uniform', mix: { retrieval: 1, runningSpan: 0.5, serialRecall: 0 }, span: 4 },
      model: { layers: 2, dModel: 32, heads: 2, mlp: false, positional: { type: 'rope' }, context: 'prefix' },
      training: { steps: 1400, batch: 64, learningRate: 0.01, seed: 7 },
      evaluation: { every: 100, sequences: 2048, pairs: [20, 24, 32] },
    });
    assert.equal(describeRun(settings), 'RoPE bidirectional, 2L d32 2H; 20 pairs of 32/32, retrieval 1 + span 0.5; 1,400 steps × 64, lr 0.01');
  });
});

// A run of two seeds with three checkpoints each (the second seed one behind), evaluated at 4 and 6 pairs.
function twoSeedRun() {
  const run = createRun({ id: 1, settings: settingsWith({ pairs: 4, keys: 8, values: 8, evaluateAt: [6] }), seeds: [0, 1] });
  run.seeds[0].checkpoints = [
    { step: 50, loss: 2, accuracy: 0.2, accuracyByPosition: [0.2, 0.1, 0.1, 0.4] },
    { step: 100, loss: 1, accuracy: 0.5, accuracyByPosition: [0.9, 0.3, 0.3, 0.5] },
  ];
  run.seeds[1].checkpoints = [{ step: 50, loss: 3, accuracy: 0.1, accuracyByPosition: [0.4, 0.1, 0.1, 0.2] }];
  const evaluation = (pairs, byPosition) => ({
    pairs, accuracy: byPosition.reduce((a, b) => a + b) / pairs, loss: 1, accuracyByPosition: byPosition,
    attention: { toValue: [[byPosition]], toKey: [[byPosition]], toFirst: [[byPosition]] },
  });
  run.seeds[0].evaluations = [evaluation(4, [1, 0.5, 0.25, 0.75]), evaluation(6, [1, 0.5, 0.5, 0.5, 0.5, 0.5])];
  run.seeds[1].evaluations = [evaluation(4, [0.5, 0.25, 0.25, 0.5]), evaluation(6, [1, 0, 0, 0, 0, 1])];
  return run;
}

describe('Train runs: means and spreads over seeds', () => {
  test('spread is the element-wise mean, lowest and highest', () => {
    assert.deepEqual(spread([[1, 4], [3, 2]]), { mean: [2, 3], low: [1, 2], high: [3, 4] });
  });

  test('checkpoints aggregate over the seeds that reached them', () => {
    const run = twoSeedRun();
    assert.deepEqual(checkpointSeries(run), {
      steps: [50, 100], seeds: [2, 1],
      loss: { mean: [2.5, 1], low: [2, 1], high: [3, 1], each: [{ seed: 0, values: [2, 1] }, { seed: 1, values: [3] }] },
      accuracy: {
        mean: [0.15000000000000002, 0.5], low: [0.1, 0.5], high: [0.2, 0.5], each: [{ seed: 0, values: [0.2, 0.5] }, { seed: 1, values: [0.1] }],
      },
    });
    assert.deepEqual(checkpointPositions(run, 0), {
      step: 50, seeds: 2, mean: [0.30000000000000004, 0.1, 0.1, 0.30000000000000004], low: [0.2, 0.1, 0.1, 0.2], high: [0.4, 0.1, 0.1, 0.4],
      each: [{ seed: 0, values: [0.2, 0.1, 0.1, 0.4] }, { seed: 1, values: [0.4, 0.1, 0.1, 0.2] }],
    });
    assert.deepEqual(checkpointPositions(run, 1).each, [{ seed: 0, values: [0.9, 0.3, 0.3, 0.5] }], 'the seeds that reached it');
    assert.deepEqual(positionsAt(run, 6).each, [{ seed: 0, values: [1, 0.5, 0.5, 0.5, 0.5, 0.5] }, { seed: 1, values: [1, 0, 0, 0, 0, 1] }]);
  });

  test('a legend counts the seeds behind the newest point: all of them, some of them while the others catch up, none said for one', () => {
    assert.equal(seedsNote(2, 2), ' (mean of 2 seeds; band: lowest to highest seed)');
    assert.equal(seedsNote(1, 2), ' (mean of 1 of 2 seeds; band: lowest to highest seed)');
    assert.equal(seedsNote(3), ' (mean of 3 seeds; band: lowest to highest seed)');
    assert.equal(seedsNote(1, 1), '');
    // the newest point of a run whose second seed is behind: one seed of two
    assert.deepEqual(checkpointSeries(twoSeedRun()).seeds.at(-1), 1);
  });

  test('each position is asked ⌊sequences / pairs⌋ questions, the first sequences mod pairs one more (sequence s asks pair s mod pairs)', () => {
    assert.deepEqual(questionsByPosition(2048, 16), new Array(16).fill(128));
    assert.deepEqual(questionsByPosition(10, 4), [3, 3, 2, 2]);
  });

  test('the Wilson interval: 64 of 128 right gives 41.5% to 58.5%; none right starts at 0, all right ends at 1', () => {
    // by hand: (0.5 + z²/256 ± z·√(0.25/128 + z²/65536)) / (1 + z²/128), z = 1.96
    const [low, high] = wilsonInterval(0.5, 128);
    assert.ok(Math.abs(low - 0.41461) < 1e-4 && Math.abs(high - 0.58539) < 1e-4, `${low}, ${high}`);
    assert.equal(wilsonInterval(0, 128)[0], 0);
    assert.ok(Math.abs(wilsonInterval(1, 128)[1] - 1) < 1e-12);
    assert.ok(Math.abs(wilsonInterval(0, 128)[1] - 0.02914) < 1e-4, 'none of 128 right: up to 2.9%');
  });

  test('the lowest position is the first of the lowest values', () => {
    assert.deepEqual(lowestOf([0.9, 0.3, 0.2, 0.2, 0.8]), { index: 2, value: 0.2 });
  });

  test('the middle is the middle third of the pairs, never an end: pairs 6–11 of 16', () => {
    assert.deepEqual(middleRange(16), { from: 5, to: 10 });
    assert.deepEqual([middleName(16), middleName(32), middleName(4), middleName(3), middleName(2)],
      ['pairs 6–11', 'pairs 11–22', 'pairs 2–3', 'pair 2', null]);
    assert.equal(middlePairs(5), '2–4');
    for (let k = 3; k <= 256; ++k) {
      const { from, to } = middleRange(k);
      assert.ok(from >= 1 && to <= k - 2 && from + to === k - 1 && to - from + 1 >= k / 3, `k ${k}: ${from}–${to}`);
    }
    // a local peak at the centre (the default run's pair 8) does not stand for the middle
    const curve = [0.98, 0.7, 0.5, 0.4, 0.35, 0.33, 0.31, 0.5, 0.37, 0.4, 0.42, 0.45, 0.5, 0.55, 0.57, 0.59];
    assert.ok(Math.abs(middleMean(curve) - (0.33 + 0.31 + 0.5 + 0.37 + 0.4 + 0.42) / 6) < 1e-12);
    assert.equal(middleMean([0.5, 0.25]), null);
  });

  test('the table reads the first pair, the middle third\'s mean and the last pair at the trained length', () => {
    const run = twoSeedRun();
    // seeds' means by position 0.75, 0.375, 0.25, 0.625: the middle, pairs 2–3, 0.3125
    assert.deepEqual(runSummary(run), { accuracy: 0.5, first: 0.75, middle: 0.3125, last: 0.625 });
    assert.ok(Math.abs(positionsAt(run, 6).accuracy - (3.5 / 6 + 2 / 6) / 2) < 1e-12);
    assert.equal(runSummary(createRun({ id: 2, settings: settingsWith({}), seeds: [0] })), null);
  });

  test('chart 3 shows one length\'s band of seeds: the one chosen, else the trained length, else the first evaluated', () => {
    const run = createRun({ id: 1, settings: settingsWith({ evaluateAt: [16, 24, 32] }), seeds: [0, 1] });
    assert.equal(bandLength(run, [16, 24, 32], null), 16);
    assert.equal(bandLength(run, [16, 24, 32], 24), 24);
    assert.equal(bandLength(run, [16, 24, 32], 20), 16, 'a length this run was not evaluated at (another run\'s choice)');
    assert.equal(bandLength(run, [24, 32], null), 24, 'no evaluation at the trained length');
  });
});

describe('Train model files', () => {
  test('a file that is not JSON, or not an object, is named', () => {
    assert.throws(() => parseModelFile('{"config": '), /^Error: the file is not JSON \(/);
    assert.throws(() => parseModelFile('[1, 2]'), /its JSON is not an object/);
    assert.throws(() => parseModelFile('null'), /its JSON is not an object/);
    assert.throws(() => parseModelFile(JSON.stringify(curvesJson(twoSeedRun()))),
      /^Error: the file holds a run's curves \(Curves JSON\), not a saved model: load a file from Save model$/);
  });

  const config = { vocab: 19, outputs: 8, layers: 1, dModel: 16, heads: 4, mlp: true, positional: { type: 'alibi' }, maxLength: 512, seed: 5 };

  test('the meta a model is saved with reads back as the run\'s settings and curves', () => {
    const run = twoSeedRun();
    const meta = modelMeta(run, 0);
    assert.equal(meta.format, META_FORMAT);
    assert.equal(meta.link, '#pairs=4&keys=8&values=8&pe=alibi&evalAt=6');
    const { settings, checkpoints, notes } = loadedSettings(config, JSON.parse(JSON.stringify(meta)), settingsWith({}));
    assert.deepEqual(notes, []);
    assert.equal(settings.pairs, 4);
    assert.deepEqual([settings.layers, settings.dModel, settings.heads, settings.mlp, settings.positional, settings.seed, settings.seeds],
      [1, 16, 4, true, 'alibi', 5, 1], 'the model\'s own fields come from its config');
    assert.deepEqual(checkpoints, run.seeds[0].checkpoints);
  });

  test('the meta holds the step a model reached and no separate flag that it stopped', () => {
    const run = twoSeedRun();
    run.seeds[0].step = 100;  // stopped at step 100 of 1,400
    const meta = modelMeta(run, 0);
    assert.deepEqual(Object.keys(meta), ['format', 'version', 'link', 'seed', 'seconds', 'checkpoints', 'step']);
    assert.equal(loadedSettings(config, JSON.parse(JSON.stringify(meta)), settingsWith({})).step, 100);
  });

  test('a file saved while RoPE was the default (no pe in its link, `stopped` in its meta) loads as RoPE, at its step', () => {
    const rope = { ...config, heads: 2, positional: { type: 'rope' } };
    const meta = {
      format: META_FORMAT, version: 1, link: '#pairs=4&keys=8&values=8&heads=4&steps=300&evalAt=6', seed: 5, seconds: 2.5,
      checkpoints: [{ step: 50, loss: 2, accuracy: 0.25, accuracyByPosition: [0.5, 0, 0, 0.5] }], step: 120, stopped: true,
    };
    const { settings, checkpoints, step, notes } = loadedSettings(rope, meta, settingsWith({}));
    assert.deepEqual(notes, []);
    assert.deepEqual([settings.positional, settings.heads, settings.steps, step], ['rope', 2, 300, 120]);
    assert.equal(describeRun(settings, step), 'RoPE, 1L d16 2H +MLP; 4 pairs of 8/8; stopped at 120 of 300 steps × 64, lr 0.01');
    assert.deepEqual(checkpoints, meta.checkpoints);
    const alibi = loadedSettings({ ...config, heads: 2 }, meta, settingsWith({}));
    assert.deepEqual([alibi.settings.positional, alibi.notes], ['alibi', []], 'the model\'s encoding, whatever its link says, and no note of old links');
  });

  test('a file without the page\'s meta takes the task from the model, and bad curves are left out and named', () => {
    const { settings, notes, trainingKnown } = loadedSettings(config, undefined, settingsWith({}));
    // the page's 16 pairs and its lengths 16, 24, 32 cut to the model's 8 keys: measured at 8 pairs
    assert.deepEqual([settings.keys, settings.values, settings.pairs, settings.evaluateAt], [8, 8, 8, [8]]);
    assert.equal(toHash(settings).includes('evalAt=8'), true, 'a link the page reads back');
    assert.deepEqual(parseHash(toHash(settings)).problems, []);
    assert.match(notes[0], /holds no settings of this page/);
    // what the page shows of it: no pairs, steps or batch of its training, and no length called trained
    assert.equal(trainingKnown, false);
    const run = createRun({ id: 3, settings, seeds: [5], source: 'loaded', fileName: 'model.json', trainingKnown });
    assert.equal(run.label, 'ALiBi, 1L d16 4H +MLP; 8/8 symbols; its training not in the file');
    assert.equal(isTrainedLength(run, 8), false);
    const saved = createRun({ id: 4, ...loadedSettings(config, modelMeta(twoSeedRun(), 0), settingsWith({})), seeds: [5], source: 'loaded' });
    assert.deepEqual([saved.trainingKnown, isTrainedLength(saved, 4), isTrainedLength(saved, 6)], [true, true, false]);
    const meta = { ...modelMeta(twoSeedRun(), 0), checkpoints: [{ step: 50, loss: 'x', accuracy: 2, accuracyByPosition: [] }] };
    const read = loadedSettings(config, meta, settingsWith({}));
    assert.deepEqual(read.checkpoints, []);
    assert.match(read.notes.join(), /training curves do not read as checkpoints/);
    const hostile = loadedSettings(config, { format: META_FORMAT, link: '#heads=<b>&zz=1', checkpoints: 'no' }, settingsWith({}));
    assert.deepEqual(hostile.notes, ['its settings: heads (heads) must be a whole number from 1 to 16, got “<b>”',
      'its settings: unknown setting “zz”', 'its training curves do not read as checkpoints of this run, and are not shown']);
  });
});

describe('Train exports and read-outs', () => {
  test('the curves\' JSON holds the run\'s link and each seed\'s checkpoints and evaluations', () => {
    const json = curvesJson(twoSeedRun());
    assert.equal(json.format, CURVES_FORMAT);
    assert.equal(json.run.link, '#pairs=4&keys=8&values=8&pe=alibi&evalAt=6');
    const run = twoSeedRun();
    assert.deepEqual(json.seeds.map(({ seed, checkpoints, evaluations }) => ({ seed, checkpoints, evaluations })),
      run.seeds.map(({ seed, checkpoints, evaluations }) => ({ seed, checkpoints, evaluations })));
    assert.equal(json.seeds[1].checkpoints[0].loss, 3);
  });

  test('the curves\' CSV has one number a line, the training loss and the held-out loss each named', () => {
    const lines = curvesCsv(twoSeedRun()).trim().split('\n');
    assert.equal(lines[0], 'seed,kind,step,pairs,measure,position,value');
    assert.equal(lines[1], '0,checkpoint,50,4,training_loss,,2');
    const run = twoSeedRun();
    const evaluation = run.seeds[0].evaluations[0];
    assert.ok(lines.includes(`0,evaluation,${run.seeds[0].step},${evaluation.pairs},held_out_loss,,${evaluation.loss}`));
    assert.ok(!lines.some((line) => line.split(',')[4] === 'loss'), 'no measure called loss alone');
    assert.ok(lines.includes('1,evaluation,0,6,attention_to_first_L1H1,6,1'));
    // per seed: checkpoints × (2 + 4); evaluations (2 + 4·4) at 4 pairs and (2 + 6·4) at 6
    assert.equal(lines.length - 1, (2 * 6 + 18 + 26) + (1 * 6 + 18 + 26));
  });

  test('a figure\'s caption names the run and its seeds, or one seed\'s model, its length and example sequence; a link only where the training is known', () => {
    const run = twoSeedRun();
    const described = 'ALiBi, 2L d32 2H; 4 pairs of 8/8; 1,400 steps × 64, lr 0.01. Link: train.html#pairs=4&keys=8&values=8&pe=alibi&evalAt=6';
    assert.equal(run.label, described.split('. Link')[0]);
    const named = 'Run 1 (ALiBi · 4 pairs of 8 +1 more)';
    assert.equal(runCaption(run), `${named}, seeds 0, 1: ${described}`);
    assert.equal(runCaption(run, { k: 1, pairs: 6 }), `${named}, seed 1's model at 6 pairs: ${described}`);
    assert.equal(runCaption(run, { k: 0, pairs: 4, example: 3 }), `${named}, seed 0's model at 4 pairs, example sequence 3: ${described}`);
    const loaded = createRun({ id: 4, settings: settingsWith({ pairs: 4 }), seeds: [7], source: 'loaded', trainingKnown: false, fileName: 'm.json' });
    assert.equal(runCaption(loaded), `Run 4 (loaded m.json), seed 7: ${loaded.label}.`);
    assert.match(loaded.label, /its training not in the file$/);
  });

  test('a run is named by its preset, or by its encoding and the first thing that differs from the default run, briefly', () => {
    const named = (changes, { id = 1, seeds = [0] } = {}) => runName(createRun({ id, settings: settingsWith(changes), seeds }));
    const quick = PRESETS.find((p) => p.id === 'quick');
    // the quick run and the default run are told apart, with any number of seeds
    assert.equal(named(presetRun(quick)), '#1 Quick');
    assert.equal(named({}, { id: 2, seeds: [0, 1, 2] }), `#2 ${PRESETS[0].label}`);
    for (const preset of PRESETS) assert.equal(named(presetRun(preset)), `#1 ${preset.label.split(':')[0]}`);
    assert.equal(named({ positional: 'rope', steps: 800 }), '#1 RoPE · 800 steps');
    assert.equal(named({ context: 'prefix', heads: 4, dModel: 64 }), '#1 ALiBi bidirectional · d64 4H');
    assert.equal(named({ pairs: 8, keys: 16, values: 64, learningRate: 0.003 }), '#1 ALiBi · 8 pairs of 16/64 +1 more');
    // beyond the first difference, how many more (the rest are in the run's settings)
    assert.equal(named({ ...presetRun(quick), positional: 'rope' }), '#1 RoPE · 4 pairs of 8 +6 more');
    // another seed than the default's is no difference: the table has the seeds' column
    assert.equal(named({ seed: 5 }), '#1 ALiBi');
    const loaded = createRun({ id: 3, settings: settingsWith({}), seeds: [0], source: 'loaded', fileName: 'model.json' });
    assert.equal(runName(loaded), '#3 loaded model.json');
  });

  test('an engine message is traced to the setting it names', () => {
    assert.equal(fieldOfEngineError('task.pairs must be from 1 to task.keys (8), since …'), 'pairs');
    assert.equal(fieldOfEngineError('retrievalTrainer: training.batch (1) is too small'), 'batch');
    assert.equal(fieldOfEngineError('task.mix.runningSpan must be a finite number ≥ 0'), 'runningSpan');
    assert.equal(fieldOfEngineError('heads (3) must divide dModel (32)'), 'heads');
    assert.equal(fieldOfEngineError('training diverged at step 3: the loss is NaN'), null);
  });

  test('tokens read as keys, values, cues and the query; a causal mask hides what comes later, a prefix sees itself', () => {
    const task = { keys: 8, values: 8 };
    assert.deepEqual([3, 8, 15, 16, 17, 18, 3].map((t, i, all) => tokenLabel(t, task, i === all.length - 1)),
      ['k3', 'v0', 'v7', 'SEP', 'RS', 'FR', 'q=k3']);
    // their kinds, which the strips along the attention map's axes colour
    assert.deepEqual([3, 8, 15, 16, 17, 18, 3].map((t, i, all) => TOKEN_KINDS.list[tokenKind(t, task, i === all.length - 1)].name),
      ['key', 'value', 'value', 'separator', 'separator', 'separator', 'query']);
    assert.deepEqual(Array.from(maskedCells(3, 0)), [0, 1, 1, 0, 0, 1, 0, 0, 0]);
    assert.deepEqual(Array.from(maskedCells(3, 2)), [0, 0, 1, 0, 0, 1, 0, 0, 0]);
  });
});

describe('Train: whether a run has learned the task', () => {
  // A run of `seeds` seeds, each evaluated at the trained length with these accuracies.
  function evaluatedRun(accuracies, changes = {}) {
    const settings = settingsWith(changes);
    const run = createRun({ id: 1, settings, seeds: accuracies.map((_, k) => k) });
    run.seeds.forEach((seed, k) => {
      seed.evaluations = [{ pairs: settings.pairs, accuracy: accuracies[k], accuracyByPosition: new Array(settings.pairs).fill(accuracies[k]) }];
    });
    return run;
  }

  test('the rule: below 15% of the way from chance to every answer right (17.7% with 32 values, 25.6% with 8, 57.5% with 2)', () => {
    assert.equal(LEARNED_FRACTION, 0.15);
    assert.ok(Math.abs(learnedThreshold(32) - 0.17656) < 1e-5);
    assert.ok(Math.abs(learnedThreshold(8) - 0.25625) < 1e-5);
    assert.ok(Math.abs(learnedThreshold(2) - 0.575) < 1e-12);
  });

  test('the presets that stay near chance in 1,400 steps are not learned, the weakest that learns is (the seeds\' mean)', () => {
    // over seeds 0–2 (README, "What it finds": the seeds' range and mean)
    for (const [name, accuracies] of [['learned', [0.09, 0.11, 0.14]], ['sinusoidal', [0.08, 0.08, 0.09]], ['bidirectional', [0.10, 0.11, 0.12]]]) {
      const learning = learningOf(evaluatedRun(accuracies));
      assert.equal(learning.learned, false, name);
      assert.equal(learning.chance, 1 / 32);
    }
    for (const [name, accuracies] of [['none', [0.12, 0.23, 0.34]], ['alibi', [0.48, 0.49, 0.50]]]) {
      assert.equal(learningOf(evaluatedRun(accuracies)).learned, true, name);
    }
    assert.equal(learningOf(evaluatedRun([0.25], { pairs: 4, keys: 8, values: 8, evaluateAt: [4] })).learned, false);
    assert.equal(learningOf(evaluatedRun([0.26], { pairs: 4, keys: 8, values: 8, evaluateAt: [4] })).learned, true);
    assert.equal(learningOf(createRun({ id: 1, settings: settingsWith({}), seeds: [0] })), null, 'before its evaluations');
  });

  test('the notice says the accuracy, the seeds and chance, and nothing for a run that learned or has no evaluation', () => {
    assert.equal(notLearnedText(evaluatedRun([0.09, 0.11, 0.14])),
      'This run has not learned the task: held-out accuracy 11.3% (mean of 3 seeds) where chance is 3.1% (the page counts a run ' +
      'as learned from 17.7%). Charts 3–5 show what a model answering near chance does: noise, not a shape. Train it longer, ' +
      'or choose a preset that learns in 1,400 steps (ALiBi or RoPE).');
    assert.match(notLearnedText(evaluatedRun([0.082])), /^This run has not learned the task: held-out accuracy 8.2% where chance is 3.1% \(/);
    assert.equal(notLearnedText(evaluatedRun([0.487])), '');
    assert.equal(notLearnedText(createRun({ id: 1, settings: settingsWith({}), seeds: [0] })), '');
    assert.equal(notLearnedText(null), '');
  });

  test('the status line\'s words for a run that has not learned: its accuracy and chance; nothing for one that learned', () => {
    assert.equal(notLearnedStatus(evaluatedRun([0.09, 0.11, 0.14])), '; not learned: held-out accuracy 11.3% (mean of 3 seeds), near chance (3.1%)');
    assert.equal(notLearnedStatus(evaluatedRun([0.2], { pairs: 4, keys: 8, values: 8, evaluateAt: [4] })),
      '; not learned: held-out accuracy 20.0%, near chance (12.5%)');
    assert.equal(notLearnedStatus(evaluatedRun([0.487])), '');
    assert.equal(notLearnedStatus(createRun({ id: 1, settings: settingsWith({}), seeds: [0] })), '');
    assert.equal(notLearnedStatus(null), '');
  });
});
