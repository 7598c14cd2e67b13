// The Train page in Chromium: a short run (4 pairs of 8 keys and 8 values, dModel 16, 300
// steps) trained in the page's worker, its curves drawn at every checkpoint with the numbers
// the engine gives in Node for the same options; the charts after training; the attention map
// with hover values equal to the engine's; save and load; pause, resume and stop with two
// seeds; the link; exports; a configuration the page refuses, named; memory that does not grow
// run after run; the phone layout; a failed engine load.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  DESKTOP, PHONE, TIMEOUT_MS, TRAIN_QUICK as QUICK, assertClose, assertEngineFailureShown, downloadOf, figureFiles, nodeEngine, openPage, startSuite,
  solidStrokes, trainAndWait,
} from './helpers.mjs';
import { parseHash, taskOptions, toHash, trainerOptions } from '../../web/train/state.js';

const QUICK_CHECKPOINTS = 6;
const RUN_TIMEOUT_MS = 60_000;
const TOLERANCE = 1e-6;          // numbers that crossed the worker boundary as doubles
const WEIGHT_TOLERANCE = 1e-6;   // float32 weights, compared as the tooltip prints them in full
const SCAN_STEPS = 12;  // a grid of points hovered over the attention map
const TALL = { width: 1400, height: 1800 };  // the attention map of two layers in view whole
// A run's card in the runs table at phone width: four lines (its checkbox, name, settings button
// and status; two of numbers; Show, Use settings and Remove) measure 104 px; when each number had
// a line of its own, 246 px.
const PHONE_CARD_MAX_HEIGHT = 110;
const TAP_TARGET = 24;  // px, the least width and height of a card's controls (WCAG 2.2's target size)
const SEEDS_COLUMN = 2;     // the runs table's cells: overlay, run, seed numbers, status, accuracy, ...
const ACCURACY_COLUMN = 4;

let suite;
before(async () => { suite = await startSuite({ prefix: '/train/sub/path/' }); });
after(async () => { await suite?.close(); });

// The points of an SVG path drawn by d3-shape's line: "M x,y L x,y ...".
const pointCount = (d) => (d ? d.split(/[ML]/).filter(Boolean).length : 0);

async function pathOf(page, chart, series, kind = 'line') {
  return page.getAttribute(`#${chart} [data-series="${series}"] path.${kind}`, 'd');
}

/**
 * A series' path of a line chart read back as data: each point's [x, y], through the axis
 * ticks at the ends of each axis ('300', '100%'). kind: 'line', or 'band' (its upper edge
 * left to right, then its lower edge right to left).
 */
async function pathData(page, chart, series, kind = 'line') {
  return page.$eval(`#${chart}`, (svg, [id, what]) => {
    const offset = window.devicePixelRatio > 1 ? 0 : 0.5;  // d3-axis sets its ticks this far off the scale, for crisp lines
    const scale = (axis, coordinate) => {
      const ticks = [...svg.querySelectorAll(`.${axis} .tick`)].map((tick) => {
        const text = tick.textContent;
        const at = tick.getAttribute('transform').match(/translate\(([-\d.e]+),([-\d.e]+)\)/).slice(1).map(Number)[coordinate];
        return { value: Number(text.replace(/[,%]/g, '')) / (text.endsWith('%') ? 100 : 1), at: at - offset };
      });
      const [a, b] = [ticks[0], ticks.at(-1)];
      return (at) => a.value + ((at - a.at) * (b.value - a.value)) / (b.at - a.at);
    };
    const [x, y] = [scale('x-axis', 0), scale('y-axis', 1)];
    const d = svg.querySelector(`[data-series="${id}"] path.${what}`).getAttribute('d');
    return [...d.matchAll(/[ML]([-\d.e]+),([-\d.e]+)/g)].map(([, px, py]) => [x(Number(px)), y(Number(py))]);
  }, [series, kind]);
}

// The Wilson score interval of an accuracy p on n questions at 95%, written out here apart from the page's.
function wilson(p, n) {
  const z = 1.959963984540054;
  const centre = (p + (z * z) / (2 * n)) / (1 + (z * z) / n);
  const half = (z / (1 + (z * z) / n)) * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n));
  return [centre - half, centre + half];
}

// A value read back from a path's pixels through the axes' ticks (d3 writes a path's
// coordinates to a thousandth of a pixel): y on a 0–1 axis; x, steps or positions.
const PATH_TOLERANCE = 1e-5;
const PATH_X_TOLERANCE = 1e-3;

async function curves(page) {
  return JSON.parse((await downloadOf(page, '#export-json')).bytes.toString('utf8'));
}

/**
 * Each seed's step on its progress bar once a paused run's chunks already asked for have
 * landed: the page says "Pausing" until then, and "Paused" after.
 */
async function stepsOncePaused(page) {
  assert.match(await page.textContent('[data-testid="train-status"]'), /^Paus(ing|ed) \(/);
  await page.waitForFunction(() => document.documentElement.dataset.training === 'paused', null, { timeout: TIMEOUT_MS });
  assert.match(await page.textContent('[data-testid="train-status"]'), /^Paused \(/);
  return page.$$eval('#seed-progress li', (items) => items.map((item) => Number(item.dataset.step)));
}

describe('Train page', () => {
  test('a screen reader hears a run start and end, not its progress: the status line is no live region, its spoken copy says only those', async () => {
    const { page, close } = await openPage(suite, `train.html${QUICK}`);
    assert.equal(await page.getAttribute('[data-testid="train-status"]', 'role'), null);
    assert.equal(await page.getAttribute('#train-status-spoken', 'role'), 'status');
    await page.evaluate(() => {
      window.spoken = [];
      window.shown = 0;
      const region = document.getElementById('train-status-spoken');
      new MutationObserver(() => window.spoken.push(region.textContent)).observe(region, { childList: true, characterData: true, subtree: true });
      new MutationObserver(() => { window.shown += 1; })
        .observe(document.getElementById('train-status'), { childList: true, characterData: true, subtree: true });
    });
    assert.equal(await trainAndWait(page), 'finished');
    const spoken = await page.evaluate(() => window.spoken);
    const status = await page.textContent('[data-testid="train-status"]');
    assert.ok(await page.evaluate(() => window.shown) > spoken.length, 'the status line showed progress that was not spoken');
    assert.equal(spoken.length, 2, JSON.stringify(spoken));
    assert.match(spoken[0], /^Training \(seed 0\): step 0 of 300/);
    assert.equal(spoken[1], status);
    assert.match(status, /^Trained 300 steps/);
    await close();
  });

  test('trains a short run in the worker: progress, curves at every checkpoint equal to the engine’s, charts after training, the runs table', async () => {
    const { page, close } = await openPage(suite, `train.html${QUICK}`);
    assert.equal(await trainAndWait(page), 'finished');
    assert.equal(await page.getAttribute('#seed-progress li', 'data-step'), '300');
    assert.equal(await page.isHidden('#seed-progress'), true, 'one seed: its progress is the status line\'s alone');
    assert.match(await page.textContent('[data-testid="train-status"]'), /^Trained 300 steps \(one seed\) in [\d.]+ s\.$/);

    // chart 1: a point per checkpoint, chance dashed
    assert.equal(await page.getAttribute('#accuracy-chart', 'data-checkpoints'), String(QUICK_CHECKPOINTS));
    assert.equal(pointCount(await pathOf(page, 'accuracy-chart', 'accuracy')), QUICK_CHECKPOINTS);
    assert.equal(pointCount(await pathOf(page, 'loss-chart', 'loss')), QUICK_CHECKPOINTS);
    assert.equal(pointCount(await page.getAttribute('#accuracy-chart [data-series="chance"].dashed path.line', 'd')), 2);
    // chart 2: the latest checkpoint bold, the earlier ones faint
    assert.equal(await page.getAttribute('#positions-chart', 'data-step'), '300');
    assert.equal(await page.locator('#positions-chart .series.checkpoint').count(), QUICK_CHECKPOINTS - 1);
    assert.equal(pointCount(await pathOf(page, 'positions-chart', 'latest')), 4);

    // the same options trained by the engine in Node give the same numbers
    const { settings } = parseHash(QUICK);
    const engine = await nodeEngine();
    const expected = engine.trainRetrieval(trainerOptions(settings, settings.seed));
    const file = await curves(page);
    const [seed] = file.seeds;
    assert.deepEqual(seed.checkpoints.map((c) => c.step), expected.checkpoints.map((c) => c.step));
    for (const [k, checkpoint] of expected.checkpoints.entries()) {
      assertClose(seed.checkpoints[k].accuracyByPosition, Array.from(checkpoint.accuracyByPosition), TOLERANCE, `checkpoint ${k}`);
      assert.ok(Math.abs(seed.checkpoints[k].loss - checkpoint.loss) <= TOLERANCE, `loss at checkpoint ${k}`);
    }
    const shown = (await page.getAttribute('#positions-chart', 'data-values')).split(',').map(Number);
    assertClose(shown, Array.from(expected.checkpoints.at(-1).accuracyByPosition), TOLERANCE, 'chart 2\'s latest curve');
    assert.deepEqual(seed.evaluations.map((e) => e.pairs), [4, 6, 8]);
    for (const evaluation of seed.evaluations) {
      const fromEngine = engine.evaluateRetrieval(expected.model, {
        task: taskOptions(settings), pairs: evaluation.pairs, sequences: settings.sequences, context: 'causal',
      });
      assertClose(evaluation.accuracyByPosition, Array.from(fromEngine.accuracyByPosition), TOLERANCE, `${evaluation.pairs} pairs`);
      assertClose(evaluation.attention.toValue.flat(2), fromEngine.attention.toValue.flatMap((l) => l.flatMap((h) => Array.from(h))),
        TOLERANCE, `attention on the value at ${evaluation.pairs} pairs`);
    }
    expected.model.delete();

    // charts 3 and 4, after training
    for (const [pairs, points] of [[4, 4], [6, 6], [8, 8]]) {
      assert.equal(pointCount(await pathOf(page, 'lengths-chart', `pairs-${pairs}`)), points, `${pairs} pairs`);
    }
    assert.equal(await page.locator('#looks-chart .series').count(), 2 * 2 + 1, 'a line per layer and head, and the accuracy');
    await page.selectOption('#axis', 'position');
    await page.waitForFunction(() => document.getElementById('lengths-chart').dataset.axis === 'position', null, { timeout: TIMEOUT_MS });
    await page.waitForFunction(() => location.hash.includes('axis=position'), null, { timeout: TIMEOUT_MS });
    // the runs table, and the run overlaid
    assert.equal(await page.locator('#runs-body tr').count(), 1);
    const accuracy = await page.textContent('#runs-body tr td:nth-child(5)');
    assert.equal(accuracy, `${(100 * seed.evaluations[0].accuracy).toFixed(1)}%`);
    assert.equal(await page.getAttribute('#overlay-chart', 'data-runs'), 'run-1');
    await close();
  });

  test('the attention map: tokens labelled, the queried pair marked, hover values equal to the engine’s; save then load gives the same model', async () => {
    // four evaluated lengths, so that chart 3 needs a fourth colour
    const hash = QUICK.replace('evalAt=4%2C6%2C8', 'evalAt=4%2C5%2C6%2C8');
    assert.notEqual(hash, QUICK, 'TRAIN_QUICK evaluates at 4, 6 and 8 pairs');
    const { page, close } = await openPage(suite, `train.html${hash}&example=3`, { viewport: TALL });
    assert.equal(await trainAndWait(page), 'finished');
    const lengths = await solidStrokes(page, '#lengths-chart');
    assert.equal(new Set(lengths.strokes).size, 4, `a colour per length: ${lengths.strokes}`);
    assert.ok(!lengths.strokes.includes(lengths.grey), `no length in the chance line's grey ${lengths.grey}: ${lengths.strokes}`);
    await page.waitForFunction(() => document.getElementById('attention-map').dataset.rows === '10', null, { timeout: TIMEOUT_MS });
    const saved = JSON.parse((await downloadOf(page, '[data-testid="save-model"]')).bytes.toString('utf8'));
    assert.equal(saved.format, 'attention-playground-transformer');
    assert.equal(saved.meta.format, 'attention-playground-train-run');
    assert.equal(saved.meta.checkpoints.length, QUICK_CHECKPOINTS);

    // the engine in Node: the saved model's attention on the same held-out sequence
    const engine = await nodeEngine();
    const model = engine.loadTransformer(saved);
    const { settings } = parseHash(hash);
    const batch = engine.retrievalBatch({ task: taskOptions(settings), objective: 'retrieval', pairs: 4, batch: 1, seed: 3 });
    const { weights } = model.attention({ tokens: batch.tokens });
    model.delete();
    const queried = batch.queried[0];
    assert.equal(await page.getAttribute('#attention-map', 'data-marked'), `${2 * queried},${2 * queried + 1}`);
    assert.equal(await page.getAttribute('#attention-map', 'data-heads'), '4', 'two layers of two heads');
    assert.match(await page.textContent('[data-testid="attention-summary"]'), new RegExp(`pair ${queried + 1} of 4: k${batch.tokens[2 * queried]} → v`));

    await page.evaluate(() => document.getElementById('attention-map').scrollIntoView());
    const box = await page.locator('#attention-map').boundingBox();
    assert.ok(box.y > -1 && box.y + box.height <= TALL.height, `the attention map is in view: ${JSON.stringify(box)}`);
    const found = new Map();
    for (let a = 0; a < SCAN_STEPS; ++a) {
      for (let b = 0; b < SCAN_STEPS; ++b) {
        await page.mouse.move(box.x + ((b + 0.5) / SCAN_STEPS) * box.width, box.y + ((a + 0.5) / SCAN_STEPS) * box.height);
        const tip = await page.evaluate(() => {
          const tooltip = document.getElementById('attention-tooltip');
          return tooltip.hidden || tooltip.dataset.query === undefined ? null : { ...tooltip.dataset, text: tooltip.textContent };
        });
        if (tip) found.set(`${tip.panel}:${tip.query}:${tip.key}`, tip);
      }
    }
    assert.ok(found.size >= 40, `found only ${found.size} cells by hovering`);
    const T = batch.length;
    for (const tip of found.values()) {
      const layer = Math.floor(Number(tip.panel) / 2);
      const head = Number(tip.panel) % 2;
      const expected = weights[layer][head].data[Number(tip.query) * T + Number(tip.key)];
      assert.ok(Math.abs(Number(tip.weight) - expected) <= WEIGHT_TOLERANCE, `L${layer + 1}H${head + 1} ${tip.query},${tip.key}: ${tip.weight} vs ${expected}`);
      assert.equal(tip.score, undefined, 'no score: the model gives weights');
      assert.match(tip.text, /^Layer \d · head \d/);
      // tokens numbered from 1, as the summary numbers pairs ('pair 1 of 4' is tokens #1 and #2)
      assert.ok(tip.text.includes(`position #${Number(tip.query) + 1} “`) && tip.text.includes(`looks at #${Number(tip.key) + 1} “`), tip.text);
    }
    assert.equal(await page.textContent('label[for="seeds"]'),
      'Seeds side by side (seed, seed + 1, …; a worker each, or a team of workers each when workers outnumber seeds)');

    // load the file back: a second run, the same numbers
    const before = await curves(page);
    await page.setInputFiles('[data-testid="load-file"]', {
      name: 'model.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(saved)),
    });
    await page.waitForFunction(() => document.querySelectorAll('#runs-body tr').length === 2, null, { timeout: TIMEOUT_MS });
    // (on a machine of more cores than this one's 2, the page's other workers help to measure it)
    assert.match(await page.textContent('[data-testid="model-status"]'), /^Loaded model\.json as run 2( \(measured on \d workers\))?\.$/);
    const loaded = await curves(page);
    assert.equal(loaded.run.source, 'loaded');
    assert.deepEqual(loaded.seeds[0].evaluations, before.seeds[0].evaluations, 'the loaded model measures as the saved one');
    assert.deepEqual(loaded.seeds[0].checkpoints, before.seeds[0].checkpoints, 'its curves come back from the file');
    assert.equal(await page.textContent('#runs-body tr:nth-child(2) td:nth-child(5)'), await page.textContent('#runs-body tr:nth-child(1) td:nth-child(5)'));

    // a file that is not a model: named, nothing added
    await page.setInputFiles('[data-testid="load-file"]', { name: 'notes.json', mimeType: 'application/json', buffer: Buffer.from('{"format": "x"}') });
    await page.waitForFunction(() => document.getElementById('model-status').classList.contains('error'), null, { timeout: TIMEOUT_MS });
    assert.match(await page.textContent('[data-testid="model-status"]'), /^notes\.json was not loaded: .*format/);
    assert.equal(await page.locator('#runs-body tr').count(), 2);

    // the model without the page's meta (as the engine's model.save() writes it): shown without
    // the facts of a training the file does not hold
    const { meta, ...bare } = saved;
    assert.ok(meta);
    await page.setInputFiles('[data-testid="load-file"]', {
      name: 'bare.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(bare)),
    });
    await page.waitForFunction(() => document.querySelectorAll('#runs-body tr').length === 3, null, { timeout: TIMEOUT_MS });
    assert.match(await page.textContent('[data-testid="model-status"]'), /^Loaded bare\.json as run 3.*; of the file, it holds no settings of this page/);
    assert.equal(await page.textContent('[data-testid="train-status"]'),
      'Showing #3 loaded bare.json: a saved model whose file does not say how it was trained.');
    assert.match(await page.textContent('#runs-body tr:nth-child(3)'), /ALiBi, 2L d16 2H; 8\/8 symbols; its training not in the file/);
    assert.deepEqual(await page.$$eval('#shown-length option', (options) => options.map((option) => option.textContent)),
      ['4 pairs', '5 pairs', '6 pairs', '8 pairs'], 'no length called the trained one');
    assert.match(await page.textContent('#training-summary'), /checkpoints\s*none: its file holds no training curves/);
    assert.match(await page.textContent('#positions-summary'), /checkpoints\s*none: its file holds no training curves/);

    // five runs overlaid, each in a colour of its own, none in the key's grey
    for (const count of [4, 5]) {
      await page.setInputFiles('[data-testid="load-file"]', {
        name: 'model.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(saved)),
      });
      await page.waitForFunction((rows) => document.querySelectorAll('#runs-body tr').length === rows, count, { timeout: TIMEOUT_MS });
    }
    const ids = await page.$$eval('#runs-body tr', (rows) => rows.map((row) => row.dataset.run));
    for (const id of ids) await page.check(`[aria-label="Overlay run ${id}"]`);
    assert.equal(await page.getAttribute('#overlay-chart', 'data-runs'), ids.map((id) => `run-${id}`).join(','));
    const overlay = await solidStrokes(page, '#overlay-chart');
    assert.equal(new Set(overlay.strokes).size, 5, `a colour per run: ${overlay.strokes}`);
    assert.ok(!overlay.strokes.includes(overlay.grey), `no run in the key's grey ${overlay.grey}: ${overlay.strokes}`);
    await close();
  });

  test('pause, resume and stop two seeds side by side; stop keeps what was measured', async () => {
    const { page, close } = await openPage(suite, `train.html${QUICK.replace('steps=300', 'steps=20000')}&seeds=2`);
    await page.click('[data-testid="train"]');
    const steps = () => page.$$eval('#seed-progress li', (items) => items.map((item) => Number(item.dataset.step)));
    await page.waitForFunction(() => [...document.querySelectorAll('#seed-progress li')].length === 2
      && [...document.querySelectorAll('#seed-progress li')].every((item) => Number(item.dataset.step) >= 120), null, { timeout: RUN_TIMEOUT_MS });
    assert.equal(await page.isVisible('#seed-progress'), true, 'two seeds: a bar each');
    await page.click('[data-testid="pause"]');
    assert.equal(await page.textContent('[data-testid="pause"]'), 'Resume');
    const paused = await stepsOncePaused(page);
    await page.waitForTimeout(700);
    assert.deepEqual(await steps(), paused, 'no step while paused');
    assert.match(await page.textContent('[data-testid="train-status"]'), /^Paused \(2 seeds side by side\)/);
    await page.click('[data-testid="pause"]');
    await page.waitForFunction((before) => [...document.querySelectorAll('#seed-progress li')]
      .every((item, k) => Number(item.dataset.step) > before[k]), paused, { timeout: RUN_TIMEOUT_MS });
    assert.ok(await page.isVisible('#accuracy-chart [data-series="accuracy"] path.band'), 'two seeds: a band');
    await page.click('[data-testid="stop"]');
    await page.waitForFunction(() => document.documentElement.dataset.training === 'stopped', null, { timeout: RUN_TIMEOUT_MS });
    const stopped = await steps();
    assert.ok(stopped.every((step) => step < 20000), `stopped at ${stopped}`);
    assert.equal(stopped[0], stopped[1], 'the seeds stop at the same step');
    assert.match(await page.textContent('[data-testid="train-status"]'), /^Stopped at step [\d,]+ of 20,000/);
    assert.equal(await page.textContent('#runs-body tr td:nth-child(4)'), 'stopped');
    const file = await curves(page);
    assert.deepEqual(file.seeds.map((s) => s.seed), [0, 1]);
    assert.ok(file.seeds.every((s) => s.checkpoints.length >= 2 && s.evaluations.length === 3), 'both seeds kept their curves and were measured');
    assert.deepEqual(file.seeds.map((s) => s.checkpoints.at(-1).step), stopped, 'each seed\'s last checkpoint at the stop step');
    await close();
  });

  test('more workers than seeds: each seed\'s steps shared by a team, the numbers those of one worker; pause, resume and stop; each model where the page asks for it', async () => {
    // 5 cores: 4 workers, 2 seeds on 2 each
    // a long run first, paused and stopped; then the quick run to its end
    const { page, close } = await openPage(suite, `train.html${QUICK.replace('steps=300', 'steps=20000')}&seeds=2`, {
      prepare: (context) => context.addInitScript(() => {
        Object.defineProperty(Navigator.prototype, 'hardwareConcurrency', { get: () => 5 });
      }),
    });
    assert.match(await page.textContent('#engine-status'),
      /ready: WebAssembly with relaxed SIMD in 4 workers \(up to 4 share a seed's steps when seeds are fewer\)\.$/);
    await page.click('[data-testid="train"]');
    const steps = () => page.$$eval('#seed-progress li', (items) => items.map((item) => Number(item.dataset.step)));
    await page.waitForFunction(() => [...document.querySelectorAll('#seed-progress li')].every((item) => Number(item.dataset.step) >= 60),
      null, { timeout: RUN_TIMEOUT_MS });
    await page.click('[data-testid="pause"]');
    const paused = await stepsOncePaused(page);
    assert.match(await page.textContent('[data-testid="train-status"]'), /^Paused \(2 seeds side by side, 2 workers each\)/);
    await page.waitForTimeout(500);
    assert.deepEqual(await steps(), paused, 'no step while paused');
    await page.click('[data-testid="pause"]');
    await page.waitForFunction((before) => [...document.querySelectorAll('#seed-progress li')]
      .every((item, k) => Number(item.dataset.step) > before[k]), paused, { timeout: RUN_TIMEOUT_MS });
    await page.click('[data-testid="stop"]');
    await page.waitForFunction(() => document.documentElement.dataset.training === 'stopped', null, { timeout: RUN_TIMEOUT_MS });
    await page.evaluate((hash) => { window.location.hash = hash; }, `${QUICK.slice(1)}&seeds=2`);
    await page.waitForFunction(() => document.getElementById('steps').value === '300', null, { timeout: TIMEOUT_MS });
    assert.equal(await trainAndWait(page), 'finished');
    assert.match(await page.textContent('[data-testid="train-status"]'), /^Trained 300 steps \(2 seeds side by side, 2 workers each\) in [\d.]+ s\.$/);
    assert.equal(await page.evaluate(() => document.documentElement.dataset.workers), '4');

    // each seed's checkpoints and evaluations are the engine's for its seed, trained alone
    const { settings } = parseHash(QUICK);
    const engine = await nodeEngine();
    const file = await curves(page);
    assert.deepEqual(file.seeds.map((s) => s.seed), [0, 1]);
    const saves = [];
    for (const [k, seed] of file.seeds.entries()) {
      const expected = engine.trainRetrieval(trainerOptions(settings, k));
      assert.deepEqual(seed.checkpoints.map((c) => c.step), expected.checkpoints.map((c) => c.step));
      for (const [i, checkpoint] of expected.checkpoints.entries()) {
        assertClose(seed.checkpoints[i].accuracyByPosition, Array.from(checkpoint.accuracyByPosition), TOLERANCE, `seed ${k}, checkpoint ${i}`);
        assert.ok(Math.abs(seed.checkpoints[i].loss - checkpoint.loss) <= TOLERANCE, `seed ${k}'s loss at checkpoint ${i}`);
      }
      // measured by the team's two workers on a chunk each, joined: the engine's numbers to the bit
      assert.deepEqual(seed.evaluations.map((e) => e.pairs), [4, 6, 8]);
      const plain = JSON.parse(JSON.stringify(expected.evaluations, (key, value) => (ArrayBuffer.isView(value) ? Array.from(value) : value)));
      assert.deepEqual(seed.evaluations, plain, `seed ${k}'s evaluations`);
      // the model kept by the seed's first worker: saved, it holds the engine's parameters
      await page.selectOption('#shown-seed', String(k));
      await page.waitForFunction(() => document.getElementById('attention-map').dataset.rows === '10', null, { timeout: TIMEOUT_MS });
      const saved = JSON.parse((await downloadOf(page, '#save-model')).bytes.toString('utf8'));
      assert.equal(saved.meta.seed, k);
      assert.deepEqual(saved.parameters['head.weight'].data, Array.from(expected.model.getParameter('head.weight').data),
        `seed ${k}'s head.weight, bit for bit`);
      expected.model.delete();
      saves.push(saved);
    }
    // a saved model loaded back is measured by all 4 workers, each its share: seed 1's evaluations, to the bit
    await page.setInputFiles('[data-testid="load-file"]', {
      name: 'model.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(saves[1])),
    });
    await page.waitForFunction(() => /^Loaded model\.json/.test(document.getElementById('model-status').textContent), null, { timeout: TIMEOUT_MS });
    assert.match(await page.textContent('[data-testid="model-status"]'), /^Loaded model\.json as run \d+ \(measured on 4 workers\)\.$/);
    const loaded = await curves(page);
    assert.equal(loaded.run.source, 'loaded');
    assert.deepEqual(loaded.seeds[0].evaluations, file.seeds[1].evaluations);
    assert.equal(await page.textContent('#notices'), '', 'the attention map and the saving asked the workers that hold the models');
    await close();
  });

  test('the settings live in the link: controls, presets, a shared link, and the link a click copies', async () => {
    const { page, close } = await openPage(suite, 'train.html');
    assert.equal(await page.inputValue('#positional'), 'alibi', 'no pe in the link: ALiBi, the default');
    await page.click('button[data-preset="rope"]');
    await page.waitForFunction(() => location.hash === '#pe=rope', null, { timeout: TIMEOUT_MS });
    await page.click('button[data-preset="alibi"]');
    await page.waitForFunction(() => location.hash === '', null, { timeout: TIMEOUT_MS });
    await page.selectOption('#positional', 'rope');
    await page.fill('#steps', '800');
    await page.selectOption('#context', 'prefix');
    await page.check('#mlp');
    await page.fill('#evaluate-at', '16, 20');
    await page.waitForFunction(() => location.hash === '#mlp=1&pe=rope&context=prefix&steps=800&evalAt=16%2C20', null, { timeout: TIMEOUT_MS });
    const link = await page.getAttribute('#share-link', 'href');
    // a click copies the link (the whole address) and says so; the page stays where it is
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(page.url()).origin });
    await page.locator('#share-link').scrollIntoViewIfNeeded();
    const scrolled = await page.evaluate(() => window.scrollY);
    await page.click('#share-link');
    await page.waitForFunction(() => document.getElementById('share-link').textContent === 'Link copied', null, { timeout: TIMEOUT_MS });
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), await page.evaluate(() => location.href));
    assert.ok((await page.evaluate(() => location.href)).endsWith(link));
    assert.equal(await page.evaluate(() => window.scrollY), scrolled);
    await page.waitForFunction(() => document.getElementById('share-link').textContent === 'Link to these settings', null, { timeout: TIMEOUT_MS });

    const unlabelled = await page.evaluate(() => [...document.querySelectorAll('input, select, textarea, button')]
      .filter((control) => !(control.labels?.length > 0 || control.getAttribute('aria-label') ||
        control.getAttribute('aria-labelledby') || (control.tagName === 'BUTTON' && control.textContent.trim())))
      .map((control) => control.id || control.outerHTML));
    assert.deepEqual(unlabelled, [], 'every control has a label');
    await close();
    const again = await openPage(suite, `train.html${link}`);
    assert.deepEqual(await again.page.evaluate(() => ['positional', 'context', 'steps', 'evaluate-at']
      .map((id) => document.getElementById(id).value)), ['rope', 'prefix', '800', '16,20']);
    assert.ok(await again.page.isChecked('#mlp'));
    await again.page.click('button[data-preset="quick"]');
    await again.page.waitForFunction((hash) => location.hash === hash, QUICK, { timeout: TIMEOUT_MS });
    // a link edited (or back and forward) before any run: the empty charts 1 and 2 take its steps and pairs
    const axes = () => again.page.evaluate(() => ['accuracy-chart', 'positions-chart'].map((id) =>
      [...document.querySelectorAll(`#${id} .tick text`)].map((tick) => tick.textContent).filter((text) => !text.endsWith('%'))));
    assert.deepEqual(await axes(), [['0', '100', '200', '300'], ['1', '2', '3', '4']]);
    await again.page.evaluate((hash) => { window.location.hash = hash; }, QUICK.slice(1).replace('pairs=4', 'pairs=8').replace('steps=300', 'steps=900').replace('evalAt=4%2C6%2C8', 'evalAt=8'));
    await again.page.waitForFunction(() => document.getElementById('steps').value === '900', null, { timeout: TIMEOUT_MS });
    assert.deepEqual(await axes(), [['0', '200', '400', '600', '800'], ['1', '2', '3', '4', '5', '6', '7', '8']]);
    await again.close();
  });

  test('a link without pe, written while RoPE was the default, is read with RoPE and says so; the page\'s own links carry pe', async () => {
    const OLD_LINK = 'This link is from before ALiBi became the default run, so it is read with RoPE, as it was made.Dismiss';
    const linkNotice = (page) => page.textContent('[data-testid="link-notices"]');
    const read = (page) => page.evaluate(() => ['positional', 'steps'].map((id) => document.getElementById(id).value));
    const { page, close } = await openPage(suite, 'train.html#steps=800');
    assert.deepEqual(await read(page), ['rope', '800']);
    assert.equal(await linkNotice(page), OLD_LINK);
    // it informs, in the accent's colours, unlike a link's problems in the error's
    const colours = (selector) => page.$eval(selector, (element) => getComputedStyle(element).borderTopColor);
    const accent = await page.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue('--accent').trim());
    assert.equal(await page.getAttribute('[data-testid="link-notices"] .notice', 'class'), 'notice note');
    assert.equal(await colours('[data-testid="link-notices"] .notice'), await page.evaluate((hex) => {
      const probe = document.createElement('span');
      probe.style.color = hex;
      document.body.append(probe);
      const rgb = getComputedStyle(probe).color;
      probe.remove();
      return rgb;
    }, accent));
    await page.waitForFunction(() => location.hash === '#pe=rope&steps=800', null, { timeout: TIMEOUT_MS });
    assert.equal(await page.getAttribute('#share-link', 'href'), '#pe=rope&steps=800', 'written back with its pe');
    // a link changed in the address bar: with pe, no notice; without, the notice again
    await page.evaluate(() => { location.hash = '#pe=alibi&steps=800'; });
    await page.waitForFunction(() => document.getElementById('positional').value === 'alibi', null, { timeout: TIMEOUT_MS });
    assert.deepEqual([await read(page), await linkNotice(page)], [['alibi', '800'], '']);
    await page.evaluate(() => { location.hash = '#seeds=3'; });
    await page.waitForFunction(() => document.getElementById('seeds').value === '3', null, { timeout: TIMEOUT_MS });
    assert.deepEqual([await read(page), await linkNotice(page)], [['rope', '1400'], OLD_LINK]);
    await close();

    const fresh = await openPage(suite, 'train.html');
    assert.deepEqual([await read(fresh.page), await linkNotice(fresh.page)], [['alibi', '1400'], ''], 'the empty hash: ALiBi, no notice');
    await fresh.page.click('button[data-preset="rope"]');
    await fresh.page.click('button[data-preset="alibi"]');
    await fresh.page.fill('#steps', '900');
    await fresh.page.waitForFunction(() => location.hash === '#pe=alibi&steps=900', null, { timeout: TIMEOUT_MS });
    assert.equal(await fresh.page.getAttribute('#share-link', 'href'), '#pe=alibi&steps=900');
    await fresh.close();
    const again = await openPage(suite, 'train.html#pe=alibi&steps=900');
    assert.deepEqual([await read(again.page), await linkNotice(again.page)], [['alibi', '900'], ''], 'the page\'s link read back as it was');
    await again.page.waitForFunction(() => location.hash === '#pe=alibi&steps=900', null, { timeout: TIMEOUT_MS });
    await again.close();
  });

  test('a configuration the engine cannot train is named under its setting, and Train waits for a fix', async () => {
    const { page, close } = await openPage(suite, 'train.html#pe=rope&heads=3&pairs=40&evalAt=16');
    assert.match(await page.textContent('#heads-message'), /^3 heads cannot split dModel = 32 into equal slices of even width, as RoPE needs: choose 1, 2, 4, 8, 16\.$/);
    assert.match(await page.textContent('#pairs-message'), /^40 pairs need 40 distinct keys, but there are only 32 key symbols/);
    assert.ok(await page.isDisabled('[data-testid="train"]'));
    await page.fill('#heads', '4');
    await page.fill('#pairs', '16');
    await page.waitForFunction(() => !document.querySelector('[data-testid="train"]').disabled, null, { timeout: TIMEOUT_MS });
    await page.fill('#d-model', '12');
    await page.waitForFunction(() => /RoPE rotates pairs of coordinates/.test(document.getElementById('heads-message').textContent),
      null, { timeout: TIMEOUT_MS });
    assert.match(await page.textContent('#heads-message'), /4 heads over dModel = 12 give heads of 3 dimensions\. With RoPE choose 1, 2, 3, 6 heads\./);
    assert.equal(await page.getAttribute('#heads', 'aria-invalid'), 'true');
    await close();
  });

  test('exports: the charts as PNG and SVG, the curves as CSV; run after run the worker\'s engine holds one model, and its wasm memory stays', async () => {
    const { page, close } = await openPage(suite, `train.html${QUICK}`);
    assert.equal(await trainAndWait(page), 'finished');
    const memory = async () => Promise.all(['data-wasm-bytes', 'data-wasm-in-use']
      .map(async (name) => Number((await page.getAttribute('[data-testid="train-status"]', name)).split(',')[0])));
    const first = await memory();
    assert.ok(first[1] > 0 && first[1] < first[0], `${first[1]} bytes in use of ${first[0]}`);
    for (const target of ['accuracy-chart', 'lengths-chart', 'attention-map']) {
      const png = await downloadOf(page, `button[data-png="${target}"]`);
      assert.deepEqual([...png.bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], `${target}: a PNG`);
      assert.ok(png.bytes.length > 2000, `${target}: ${png.bytes.length} bytes`);
    }
    const svgCharts = await page.$$eval('button[data-svg]', (buttons) => buttons.map((button) => button.dataset.svg));
    assert.deepEqual(svgCharts, ['loss-chart', 'accuracy-chart', 'positions-chart', 'lengths-chart', 'looks-chart', 'attention-map',
      'overlay-chart', 'published-chart'], 'every chart has its SVG button');
    // the attention map (a canvas) as the heatmap's figure: a panel per layer and head, in order,
    // its title, axis titles and colour scale, on opaque white
    const mapFiles = await figureFiles(page, await downloadOf(page, 'button[data-png="attention-map"]'),
      await downloadOf(page, 'button[data-svg="attention-map"]'));
    assert.deepEqual([mapFiles.png.width, mapFiles.png.height], [mapFiles.svg.width * 2, mapFiles.svg.height * 2]);
    for (const corner of mapFiles.png.corners) assert.deepEqual(corner, [255, 255, 255, 255]);
    const [layers, heads] = [Number(await page.inputValue('#layers')), Number(await page.inputValue('#heads'))];
    const panelTitles = mapFiles.svg.texts.filter((text) => /^Layer \d+ · head \d+$/.test(text));
    assert.deepEqual(panelTitles, Array.from({ length: layers * heads }, (_, p) => `Layer ${Math.floor(p / heads) + 1} · head ${(p % heads) + 1}`));
    for (const text of ['looks at →', '← position', 'Attention weight', 'masked']) {
      assert.ok(mapFiles.svg.texts.includes(text), `the map's figure says “${text}”`);
    }
    assert.ok(mapFiles.svg.texts.some((text) => /^Attention weights of one held-out sequence \(\d+ tokens\), per layer and head\.$/.test(text)));
    // every figure of the run names it under its legend: its seeds, or the seed's model and the
    // length (charts 3–4), and the example sequence (the map); the link sets the page to its settings
    const { run: saved, seeds: [{ seed }] } = await curves(page);
    const described = `${saved.label}. Link: train.html${saved.link}`;
    const example = await page.inputValue('#example');
    assert.equal(mapFiles.svg.caption, `Run ${saved.id} (Quick), seed ${seed}'s model at 4 pairs, example sequence ${example}: ${described}`);
    // the run named as the runs table names it (the quick preset's label)
    const run = `Run ${saved.id} (Quick)`;
    const captions = {
      'loss-chart': `${run}, seed ${seed}: ${described}`, 'accuracy-chart': `${run}, seed ${seed}: ${described}`,
      'positions-chart': `${run}, seed ${seed}: ${described}`, 'lengths-chart': `${run}, seed ${seed}: ${described}`,
      'looks-chart': `${run}, seed ${seed}'s model at 4 pairs: ${described}`, 'overlay-chart': '', 'published-chart': '',
    };
    for (const target of svgCharts.filter((chart) => chart !== 'attention-map')) {
      const file = await downloadOf(page, `button[data-svg="${target}"]`);
      assert.equal(file.name, `attention-playground-train-${target}.svg`);
      const { error, text, caption, legend } = await page.evaluate(({ source, id }) => {
        const parsed = new DOMParser().parseFromString(source, 'image/svg+xml');
        const button = document.querySelector(`button[data-svg="${id}"]`);
        return {
          error: parsed.querySelector('parsererror')?.textContent ?? null,
          text: [...parsed.querySelectorAll('text')].map((t) => t.textContent),
          caption: [...parsed.querySelectorAll('text.caption')].map((t) => t.textContent).join(' '),
          legend: [...document.getElementById(button.dataset.legend).children].map((item) => item.textContent),
        };
      }, { source: file.bytes.toString('utf8'), id: target });
      assert.equal(error, null, `${target}: the SVG parses`);
      assert.equal(caption, captions[target], `${target}: its caption`);
      assert.ok(text.length > 4, `${target}: ${text.length} texts`);
      for (const entry of legend) assert.ok(text.includes(entry), `${target}: the SVG's legend says “${entry}”`);
    }
    const csv = (await downloadOf(page, '#export-csv')).bytes.toString('utf8').trim().split('\n');
    assert.equal(csv[0], 'seed,kind,step,pairs,measure,position,value');
    // each checkpoint's loss, accuracy and accuracy by position, as the JSON export (which the
    // first test holds to the engine) has them
    const checkpointRows = csv.slice(1).map((line) => line.split(',')).filter(([, kind]) => kind === 'checkpoint');
    const expectedRows = (await curves(page)).seeds.flatMap(({ seed, checkpoints }) => checkpoints.flatMap((c) => [
      [seed, c.step, 'training_loss', '', c.loss], [seed, c.step, 'accuracy', '', c.accuracy],
      ...c.accuracyByPosition.map((value, i) => [seed, c.step, 'accuracy_by_position', i + 1, value]),
    ]));
    assert.deepEqual(checkpointRows.map(([seed, , step, , measure, position, value]) => [seed, step, measure, position, Number(value)]),
      expectedRows.map(([seed, step, measure, position, value]) => [String(seed), String(step), measure, String(position), value]));
    for (let k = 0; k < 2; ++k) {
      await page.click('#runs-body tr:first-child button:text("Remove")');
      assert.equal(await trainAndWait(page), 'finished');
    }
    assert.equal(await page.locator('#runs-body tr').count(), 1);
    // the worker's allocations after the third run: its model, as after the first (a trainer or
    // a removed run's model left behind would add to them)
    assert.deepEqual(await memory(), first, 'the worker\'s wasm memory, and the bytes in use, after three runs');
    await close();
  });

  test('Train is in sight on opening, beside Pause and Stop, and Enter in a setting trains too', async () => {
    const { page, close } = await openPage(suite, `train.html${QUICK}`);
    const [train, pause, stop] = await Promise.all(['train', 'pause', 'stop'].map((id) => page.locator(`#${id}`).boundingBox()));
    const viewport = page.viewportSize();
    assert.ok(train.y >= 0 && train.y + train.height <= viewport.height, `Train at y = ${train.y} in a ${viewport.height} px view`);
    assert.ok(Math.abs(train.y - pause.y) < 1 && train.x < pause.x && pause.x < stop.x, 'Train, Pause, Stop in a row');
    await page.locator('#pairs').press('Enter');
    await page.waitForFunction(() => document.documentElement.dataset.training === 'finished', null, { timeout: RUN_TIMEOUT_MS });
    assert.match(await page.textContent('[data-testid="train-status"]'), /^Trained 300 steps/);
    await close();
  });

  test('at phone width Train, Pause and Stop stay in sight in a bar at the bottom, and the page ends above it', async () => {
    const { page, close } = await openPage(suite, `train.html${QUICK}`, { viewport: PHONE });
    await page.locator('button[data-preset="alibi"]').scrollIntoViewIfNeeded();
    const inView = async () => Promise.all(['train', 'pause', 'stop'].map((id) => page.locator(`#${id}`).boundingBox()));
    for (const box of await inView()) assert.ok(box.y >= 0 && box.y + box.height <= PHONE.height, `at y = ${box.y} in a ${PHONE.height} px view`);
    await page.click('button[data-preset="alibi"]');
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    const bar = await page.$eval('#train', (button) => button.parentElement.getBoundingClientRect().top);
    const lastText = await page.$eval('#published-source', (p) => p.closest('.panel').getBoundingClientRect().bottom);
    assert.ok(lastText <= bar, `the last panel ends at ${lastText} px, above the bar at ${bar} px`);
    const [train] = await inView();
    assert.ok(train.y + train.height <= PHONE.height, 'Train in sight at the end of the page');
    await close();
  });

  test('at phone width the controls stack above the charts and nothing overflows sideways', async () => {
    const { page, close } = await openPage(suite, `train.html${QUICK}`, { viewport: PHONE });
    const layout = await page.evaluate(() => ({
      scrollWidth: document.documentElement.scrollWidth,
      controls: document.getElementById('controls').getBoundingClientRect().toJSON(),
      main: document.getElementById('train-main').getBoundingClientRect().toJSON(),
      chart: document.getElementById('positions-chart').getBoundingClientRect().width,
    }));
    assert.ok(layout.scrollWidth <= PHONE.width, `the page is ${layout.scrollWidth} px wide`);
    assert.ok(layout.main.top >= layout.controls.bottom, 'the charts come after the controls');
    assert.ok(layout.chart <= PHONE.width, `a chart ${layout.chart} px wide`);
    // a run in the runs table: a card whose numbers are all in sight, each after its column's name
    assert.equal(await trainAndWait(page), 'finished');
    // each name shown before its cell (and left out of what screen readers say: alt text ""),
    // but the status's ("finished")
    assert.equal(await page.$eval('#runs-body td:first-child', (td) => getComputedStyle(td, '::after').content), '"overlay" / ""',
      'the checkbox named beside it');
    const cells = await page.$$eval('#runs-body td[data-label]:not(:first-child)', (tds) => tds.map((td) => ({
      text: getComputedStyle(td, '::before').content, right: td.getBoundingClientRect().right,
      room: td.closest('.table-scroll').getBoundingClientRect().right,
    })));
    assert.deepEqual(cells.map((c) => c.text), ['"seed numbers: " / ""', 'none', '"accuracy: " / ""', '"first: " / ""',
      '"middle: " / ""', '"last: " / ""', '"time: " / ""']);
    for (const { text, right, room } of cells) assert.ok(right <= room, `${text} ends at ${right} px in ${room} px`);
    // the summaries above the charts wrap inside their panels, terms beside their values
    const pairs = await page.$$eval('.summary > div', (divs) => divs.map((div) => ({
      text: div.textContent, right: div.getBoundingClientRect().right, room: div.closest('.panel').getBoundingClientRect().right,
      termTop: div.querySelector('dt').getBoundingClientRect().top, valueTop: div.querySelector('dd').getClientRects()[0].top,
    })));
    assert.ok(pairs.length >= 10, `${pairs.length} summary pairs`);
    for (const { text, right, room, termTop, valueTop } of pairs) {
      assert.ok(right <= room, `“${text}” ends at ${right} px in a panel ending at ${room} px`);
      assert.ok(Math.abs(termTop - valueTop) < 2, `“${text}”: its value starts on its term's line`);
    }
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth) <= PHONE.width, 'nothing overflows after training');
    await close();
  });

  test('at phone width each run is a card of four lines, every control a tap target, the table\'s texts, the settings folded behind a button', async () => {
    const { page, close } = await openPage(suite, `train.html${QUICK}`, { viewport: PHONE });
    for (let run = 0; run < 2; ++run) assert.equal(await trainAndWait(page), 'finished');
    const cards = await page.$$eval('#runs-body tr', (rows) => rows.map((row) => ({
      height: row.getBoundingClientRect().height,
      right: row.getBoundingClientRect().right,
      controls: [...row.querySelectorAll('button, input')].map((control) => ({
        name: control.getAttribute('aria-label'), visible: control.checkVisibility(), ...control.getBoundingClientRect().toJSON(),
      })),
      texts: [...row.cells].map((td) => td.innerText),
      settingsShown: row.querySelector('.run-settings').checkVisibility(),
    })));
    assert.equal(cards.length, 2);
    for (const [k, card] of cards.entries()) {
      assert.ok(card.height <= PHONE_CARD_MAX_HEIGHT, `run ${k + 1}'s card is ${card.height} px tall`);
      assert.deepEqual(card.controls.map((c) => c.name), [`Overlay run ${k + 1}`, `Settings of run ${k + 1}`,
        `Show run ${k + 1} in the charts`, `Use settings of run ${k + 1} in the controls and the link`, `Remove run ${k + 1}`]);
      for (const { name, visible, width, height, right } of card.controls) {
        assert.ok(visible && width >= TAP_TARGET && height >= TAP_TARGET, `${name}: ${width} × ${height} px, visible: ${visible}`);
        assert.ok(right <= card.right, `${name} ends at ${right} px, in a card ending at ${card.right} px`);
      }
      assert.equal(card.settingsShown, false, `run ${k + 1}'s settings folded`);
    }
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth) <= PHONE.width, 'nothing overflows sideways');
    // the settings unfold under the run's name, and stay unfolded when the table is drawn again (Show)
    const toggle = page.locator('#runs-body tr:first-child .settings-toggle');
    assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
    await toggle.click();
    await page.click('#runs-body tr:first-child button:text("Show")');  // the second run is the one shown
    await page.waitForSelector('#runs-body tr:first-child.selected');
    assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
    const settings = page.locator(`#${await toggle.getAttribute('aria-controls')}`);
    assert.ok(await settings.isVisible(), 'the unfolded settings in sight');
    const phoneSettings = await settings.innerText();
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth) <= PHONE.width, 'nothing overflows with the settings unfolded');
    // every number the desktop's table cell's text (the accuracy, a percentage); there, the settings
    // always shown and no button to fold them
    await page.setViewportSize(DESKTOP);
    const desktop = await page.$$eval('#runs-body tr', (rows) => rows.map((row) => [...row.cells].map((td) => td.innerText)));
    for (const [k, card] of cards.entries()) {
      assert.match(card.texts[ACCURACY_COLUMN], /^\d+\.\d%$/);
      assert.equal(card.texts[ACCURACY_COLUMN], desktop[k][ACCURACY_COLUMN], `run ${k + 1}'s accuracy`);
      assert.deepEqual(card.texts.slice(ACCURACY_COLUMN - 2, -1), desktop[k].slice(ACCURACY_COLUMN - 2, -1), `run ${k + 1}'s seeds to time`);
    }
    assert.equal(await toggle.isVisible(), false, 'no settings button on a desktop');
    assert.equal(await settings.innerText(), phoneSettings);
    assert.match(phoneSettings, /^ALiBi, 2L d16 2H; 4 pairs of 8\/8; 300 steps × 32, lr 0\.01$/);

    // four seeds of ten digits: their list wraps inside the card
    await page.setViewportSize(PHONE);
    await page.evaluate((hash) => { window.location.hash = hash; }, `${QUICK.slice(1)}&seed=1000000000&seeds=4`);
    await page.waitForFunction(() => document.getElementById('seed').value === '1000000000', null, { timeout: TIMEOUT_MS });
    assert.equal(await trainAndWait(page), 'finished');
    const cells = await page.$eval('#runs-body tr:last-child', (row) => [...row.cells].map((td) => ({
      text: td.innerText, right: td.getBoundingClientRect().right, panel: row.closest('.panel').getBoundingClientRect().right,
    })));
    assert.match(cells[SEEDS_COLUMN].text, /1000000000, 1000000001, 1000000002, 1000000003$/);
    for (const { text, right, panel } of cells) assert.ok(right <= panel, `“${text}” ends at ${right} px, in a panel ending at ${panel} px`);
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth) <= PHONE.width, 'nothing overflows sideways');
    await close();
  });

  test('on a desktop the runs table fits its panel, every button in sight; in a panel narrower than the table each run is a card', async () => {
    const { page, close } = await openPage(suite, `train.html${QUICK}`, { viewport: DESKTOP });
    assert.equal(await trainAndWait(page), 'finished');
    // measured two frames after a resize, in one task: the page's ResizeObserver draws the table
    // again (its rows replaced) in the frame after it, and a row found before that was once
    // measured after it, out of the document
    const layout = () => page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => {
      const row = document.querySelector('#runs-body tr');
      const box = row.closest('.table-scroll');
      resolve({
        header: row.closest('table').tHead.getBoundingClientRect().height,
        scrolls: box.scrollWidth > box.clientWidth,
        room: box.getBoundingClientRect().right,
        buttons: [...row.querySelectorAll('.actions button')].map((button) => ({ text: button.textContent, right: button.getBoundingClientRect().right })),
      });
    }))));
    // the table needs about 905 px (the buttons one over another): a panel of 973 px at 1,400 has
    // room (at 1,400 px the Remove button was cut at the panel's edge, 1,033 px of table in 973)
    for (const [width, table] of [[1920, true], [1400, true], [1200, false], [1000, false]]) {
      await page.setViewportSize({ width, height: DESKTOP.height });
      const { header, scrolls, room, buttons } = await layout();
      assert.equal(header > 1, table, `${width} px: ${table ? 'a table with its header' : 'a card, the header for screen readers alone'}`);
      assert.equal(scrolls, false, `${width} px: the runs do not scroll sideways`);
      assert.deepEqual(buttons.map((button) => button.text), ['Show', 'Use settings', 'Remove']);
      for (const { text, right } of buttons) assert.ok(right <= room, `${width} px: ${text} ends at ${right} px, the panel's room at ${room} px`);
    }
    await close();
  });

  test('stopped part-way: a last checkpoint at the stop step, the engine\'s, in every chart and the table; saved and loaded, the model keeps its step', async () => {
    // a chunk of training ends at a checkpoint: checkpoints far apart, so that the stop falls between two
    // (at 500 apart, a loaded CI machine once trained on to the checkpoint before the stop arrived)
    const steps = 10000;
    const every = 5000;
    const hash = QUICK.replace('steps=300', `steps=${steps}`).replace('every=50', `every=${every}`);
    const { page, close } = await openPage(suite, `train.html${hash}`);
    await page.click('[data-testid="train"]');
    await page.waitForFunction(() => Number(document.querySelector('#seed-progress li')?.dataset.step) >= 120, null, { timeout: RUN_TIMEOUT_MS });
    await page.click('[data-testid="stop"]');
    await page.waitForFunction(() => document.documentElement.dataset.training === 'stopped', null, { timeout: RUN_TIMEOUT_MS });
    const stop = Number(await page.getAttribute('#seed-progress li', 'data-step'));
    assert.ok(stop < steps && stop % every !== 0, `stopped at ${stop}, between checkpoints`);
    assert.match(await page.textContent('[data-testid="train-status"]'), new RegExp(`^Stopped at step ${stop.toLocaleString('en-US')} of ${steps.toLocaleString('en-US')} `));
    const file = await curves(page);
    const [seed] = file.seeds;
    const last = seed.checkpoints.at(-1);
    assert.equal(seed.step, stop);
    assert.equal(last.step, stop, 'chart 1\'s last checkpoint is at the stop step');
    assert.equal(await page.getAttribute('#positions-chart', 'data-step'), String(stop), 'chart 2\'s latest curve too');
    // the trained length's evaluation after the stop measures the same model on the same held-out set
    assert.equal(last.accuracy, seed.evaluations[0].accuracy);
    assert.deepEqual(last.accuracyByPosition, seed.evaluations[0].accuracyByPosition);
    assert.equal(await page.textContent('#runs-body tr td:nth-child(5)'), `${(100 * last.accuracy).toFixed(1)}%`);
    assert.match(await page.textContent('#runs-body tr td:nth-child(2)'), new RegExp(`stopped at ${stop.toLocaleString('en-US')} of ${steps.toLocaleString('en-US')} steps`));
    // the engine in Node, stopped at the same step: the same checkpoint (the loss of the steps since the last one)
    const { settings } = parseHash(hash);
    const engine = await nodeEngine();
    const trainer = engine.retrievalTrainer(trainerOptions(settings, 0));
    while (trainer.step < stop) trainer.advance(stop - trainer.step);
    assert.equal(trainer.stop(), true);
    const expected = trainer.checkpoint(trainer.correctAnswers());
    trainer.delete();
    assert.equal(expected.step, stop);
    assert.ok(Math.abs(last.loss - expected.loss) <= TOLERANCE, `loss ${last.loss} vs the engine's ${expected.loss}`);
    assertClose(last.accuracyByPosition, Array.from(expected.accuracyByPosition), TOLERANCE, 'the stop checkpoint');

    // saved, the file says where the model stopped; loaded back, the run keeps that step
    const saved = JSON.parse((await downloadOf(page, '[data-testid="save-model"]')).bytes.toString('utf8'));
    assert.equal(saved.meta.step, stop);
    assert.equal(parseHash(saved.meta.link).settings.steps, steps, 'the step below the steps says it stopped');
    assert.equal('stopped' in saved.meta, false, 'and no other field says it');
    await page.setInputFiles('[data-testid="load-file"]', {
      name: 'model.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(saved)),
    });
    await page.waitForFunction(() => document.querySelectorAll('#runs-body tr').length === 2, null, { timeout: TIMEOUT_MS });
    const loaded = await curves(page);
    assert.equal(loaded.seeds[0].step, stop);
    assert.equal(loaded.seeds[0].checkpoints.at(-1).step, stop);
    assert.match(await page.textContent('#runs-body tr:nth-child(2) td:nth-child(2)'), new RegExp(`stopped at ${stop.toLocaleString('en-US')} of ${steps.toLocaleString('en-US')} steps`));
    const csv = (await downloadOf(page, '#export-csv')).bytes.toString('utf8').trim().split('\n').slice(1).map((line) => line.split(','));
    const evaluationSteps = new Set(csv.filter(([, kind]) => kind === 'evaluation').map(([, , step]) => step));
    assert.deepEqual([...evaluationSteps], [String(stop)], 'the CSV\'s evaluation rows are stamped with the stop step');
    await close();
  });

  test('removing the only run clears charts 1–2 and the status; Show puts its run in the status line', async () => {
    const { page, close } = await openPage(suite, `train.html${QUICK}`);
    const idle = await page.textContent('[data-testid="train-status"]');
    assert.equal(await trainAndWait(page), 'finished');
    assert.equal(await page.getAttribute('#accuracy-chart', 'data-checkpoints'), String(QUICK_CHECKPOINTS));
    await page.click('#runs-body tr:first-child button:text("Remove")');
    assert.equal(await page.getAttribute('#accuracy-chart', 'data-checkpoints'), '0');
    assert.equal(await page.getAttribute('#positions-chart', 'data-step'), '');
    assert.equal(await page.textContent('[data-testid="train-status"]'), idle);
    assert.match(await page.textContent('[data-testid="shown-run"]'), /^No run yet/);

    // two runs: Show the first, and the status line and charts 1–2 are the first's
    assert.equal(await trainAndWait(page), 'finished');
    await page.fill('#steps', '200');
    await page.waitForFunction(() => location.hash.includes('steps=200'), null, { timeout: TIMEOUT_MS });
    assert.equal(await trainAndWait(page), 'finished');
    assert.equal(await page.getAttribute('#accuracy-chart', 'data-checkpoints'), '4');
    await page.click('#runs-body tr:first-child button:text("Show")');
    assert.match(await page.textContent('[data-testid="train-status"]'), /^Showing #2 Quick: trained 300 steps \(one seed\) in [\d.]+ s\.$/);
    assert.equal(await page.getAttribute('#accuracy-chart', 'data-checkpoints'), String(QUICK_CHECKPOINTS));
    await close();
  });

  test('Use settings puts a past run\'s settings back in the controls and the link', async () => {
    const { page, close } = await openPage(suite, `train.html${QUICK}&pe=rope`);
    assert.equal(await trainAndWait(page), 'finished');
    await page.click('button[data-preset="quick"]');
    await page.fill('#steps', '200');
    await page.waitForFunction(() => location.hash.includes('steps=200'), null, { timeout: TIMEOUT_MS });
    assert.equal(await trainAndWait(page), 'finished');
    const second = await page.evaluate(() => location.hash);
    await page.click('#runs-body tr:first-child button:text("Use settings")');
    const first = toHash(parseHash(`${QUICK}&pe=rope`).settings);  // the page's spelling of the first run's hash
    await page.waitForFunction((hash) => location.hash === hash, first, { timeout: TIMEOUT_MS });
    assert.deepEqual(await page.evaluate(() => ['positional', 'steps', 'pairs', 'evaluate-at'].map((id) => document.getElementById(id).value)),
      ['rope', '300', '4', '4,6,8']);
    assert.equal(await page.getAttribute('#share-link', 'href'), await page.evaluate(() => location.hash));
    await page.click('#runs-body tr:nth-child(2) button:text("Use settings")');
    await page.waitForFunction((hash) => location.hash === hash, second, { timeout: TIMEOUT_MS });
    assert.deepEqual(await page.evaluate(() => ['positional', 'steps'].map((id) => document.getElementById(id).value)), ['alibi', '200']);
    await close();
  });

  test('run names say the context; a file that fails to load takes no run id', async () => {
    const { page, close } = await openPage(suite, `train.html${QUICK}&context=prefix`);
    assert.equal(await trainAndWait(page), 'finished');
    assert.match(await page.textContent('#runs-body tr td:nth-child(2)'), /^#1 ALiBi bidirectional/);
    const saved = (await downloadOf(page, '[data-testid="save-model"]')).bytes;
    for (let k = 0; k < 3; ++k) {
      await page.evaluate(() => document.getElementById('model-status').classList.remove('error'));
      await page.setInputFiles('[data-testid="load-file"]', { name: 'notes.json', mimeType: 'application/json', buffer: Buffer.from('{"format": "x"}') });
      await page.waitForFunction(() => document.getElementById('model-status').classList.contains('error'), null, { timeout: TIMEOUT_MS });
    }
    await page.setInputFiles('[data-testid="load-file"]', { name: 'model.json', mimeType: 'application/json', buffer: saved });
    await page.waitForFunction(() => document.querySelectorAll('#runs-body tr').length === 2, null, { timeout: TIMEOUT_MS });
    assert.match(await page.textContent('[data-testid="model-status"]'), /^Loaded model\.json as run 2\b/);
    assert.deepEqual(await page.$$eval('#runs-body tr', (rows) => rows.map((row) => row.dataset.run)), ['1', '2']);
    // the line speaks of the last file: its error stays while the run shown then is shown, and
    // goes with a run trained since (it stayed, red, under the new run)
    await page.setInputFiles('[data-testid="load-file"]', { name: 'notes.json', mimeType: 'application/json', buffer: Buffer.from('garbage{') });
    await page.waitForFunction(() => document.getElementById('model-status').classList.contains('error'), null, { timeout: TIMEOUT_MS });
    assert.match(await page.textContent('[data-testid="model-status"]'), /^notes\.json was not loaded: the file is not JSON/);
    await page.click('#runs-body tr:first-child button:text("Show")');
    await page.waitForSelector('#runs-body tr:first-child.selected');
    assert.deepEqual(await page.$eval('#model-status', (line) => [line.textContent, line.className]), ['', 'small']);
    await page.click('#runs-body tr:last-child button:text("Show")');
    await page.waitForSelector('#runs-body tr:last-child.selected');
    assert.equal(await page.textContent('[data-testid="model-status"]'), '', 'a line once gone does not come back with its run');
    await page.setInputFiles('[data-testid="load-file"]', { name: 'notes.json', mimeType: 'application/json', buffer: Buffer.from('garbage{') });
    await page.waitForFunction(() => document.getElementById('model-status').classList.contains('error'), null, { timeout: TIMEOUT_MS });
    assert.equal(await trainAndWait(page), 'finished');
    assert.deepEqual(await page.$eval('#model-status', (line) => [line.textContent, line.className]), ['', 'small']);
    await close();
  });

  test('a loaded model the page fails to take as a run is freed: the worker holds what it held before, no run is kept, and its run id is given back', async () => {
    const { page, close } = await openPage(suite, `train.html${QUICK}`);
    assert.equal(await trainAndWait(page), 'finished');
    const inUse = async () => Number((await page.getAttribute('[data-testid="train-status"]', 'data-wasm-in-use')).split(',')[0]);
    const before = await inUse();
    const saved = (await downloadOf(page, '[data-testid="save-model"]')).bytes;
    // the runs table fails once, after the model has loaded, been measured and taken its run id
    await page.evaluate(() => {
      const body = document.getElementById('runs-body');
      body.replaceChildren = () => {
        delete body.replaceChildren;
        throw new Error('the runs table could not be drawn');
      };
    });
    await page.setInputFiles('[data-testid="load-file"]', { name: 'model.json', mimeType: 'application/json', buffer: saved });
    await page.waitForFunction(() => document.getElementById('model-status').classList.contains('error'), null, { timeout: TIMEOUT_MS });
    assert.equal(await page.textContent('[data-testid="model-status"]'), 'model.json was not loaded: the runs table could not be drawn');
    assert.deepEqual(await page.$$eval('#runs-body tr', (rows) => rows.map((row) => row.dataset.run)), ['1']);
    assert.equal(await page.getAttribute('#model-panel', 'data-run'), '1', 'the trained run is shown again');
    assert.equal(await inUse(), before, 'the worker\'s engine holds the trained model alone');
    // loaded again, the same file becomes run 2 (the id the failure took and gave back), and
    // its model is held until the run is removed
    await page.setInputFiles('[data-testid="load-file"]', { name: 'model.json', mimeType: 'application/json', buffer: saved });
    await page.waitForFunction(() => document.querySelectorAll('#runs-body tr').length === 2, null, { timeout: TIMEOUT_MS });
    assert.match(await page.textContent('[data-testid="model-status"]'), /^Loaded model\.json as run 2\b/);
    assert.deepEqual(await page.$$eval('#runs-body tr', (rows) => rows.map((row) => row.dataset.run)), ['1', '2']);
    await page.waitForFunction((bytes) => Number(document.getElementById('train-status').dataset.wasmInUse.split(',')[0]) > bytes, before,
      { timeout: TIMEOUT_MS });
    await page.click('#runs-body tr:nth-child(2) button:text("Remove")');
    await page.waitForFunction((bytes) => Number(document.getElementById('train-status').dataset.wasmInUse.split(',')[0]) === bytes, before,
      { timeout: TIMEOUT_MS });
    assert.equal(await page.textContent('#notices'), '');
    await close();
  });

  test('a held-out set smaller than a length evaluated is named under its setting, and Train waits; so it does after the engine refuses the settings', async () => {
    const { page, close } = await openPage(suite, 'train.html#pe=alibi&heldOut=20&steps=200');
    assert.equal(await page.textContent('#sequences-message'),
      'Held-out sequences must be at least the most pairs evaluated (32), so that every position is asked about; there are 20: ' +
      'raise the held-out sequences or evaluate at fewer pairs.');
    assert.ok(await page.isDisabled('[data-testid="train"]'));
    await page.fill('#sequences', '32');
    await page.waitForFunction(() => !document.querySelector('[data-testid="train"]').disabled, null, { timeout: TIMEOUT_MS });
    await close();

    // what only the engine refuses: named under its setting, and Train waits for a change
    const refused = await openPage(suite, 'train.html#pairs=256&keys=256&values=256&layers=8&dModel=256&pe=alibi&batch=1024&evalAt=256');
    assert.equal(await trainAndWait(refused.page), 'failed');
    assert.match(await refused.page.textContent('#batch-message'), /^training\.batch \(1024\) of sequences of \d+ tokens needs/);
    assert.ok(await refused.page.isDisabled('[data-testid="train"]'));
    await refused.page.fill('#batch', '1');
    await refused.page.waitForFunction(() => !document.querySelector('[data-testid="train"]').disabled, null, { timeout: TIMEOUT_MS });
    await refused.close();
  });

  test('chart 1\'s legend counts the seeds behind its newest point', async () => {
    const { page, close } = await openPage(suite, `train.html${QUICK.replace('every=50', 'every=10')}&seeds=2`);
    // every drawing of chart 1: its legend and how many seeds each checkpoint has
    await page.evaluate(() => {
      window.legends = [];
      const chart = document.getElementById('accuracy-chart');
      new MutationObserver(() => window.legends.push({
        legend: document.getElementById('accuracy-legend').children[0]?.textContent, seeds: chart.dataset.seeds,
      })).observe(chart, { attributes: true, attributeFilter: ['data-seeds'] });
    });
    assert.equal(await trainAndWait(page), 'finished');
    const drawn = (await page.evaluate(() => window.legends)).filter(({ seeds }) => seeds !== '');
    // usually some checkpoint is drawn before the other seed reached it ("1 of 2"); a loaded
    // machine drew every checkpoint of 30 with both seeds' (the words of both: train-page.test.mjs)
    assert.equal(drawn.at(-1).seeds, new Array(30).fill(2).join(','), 'the last drawing: both seeds at every checkpoint, steps 10 to 300');
    for (const { legend, seeds } of drawn) {
      const newest = Number(seeds.split(',').at(-1));
      assert.equal(legend, `accuracy (mean of ${newest === 2 ? '2' : '1 of 2'} seeds; band: lowest to highest seed)`, seeds);
    }
    await close();
  });

  test('charts 1, 2 and 3: beside the mean and its band, a thin line per seed through that seed\'s own numbers', async () => {
    const { page, close } = await openPage(suite, `train.html${QUICK}&seeds=2`);
    assert.equal(await trainAndWait(page), 'finished');
    const file = await curves(page);
    const close_ = (actual, expected, what) => {
      assertClose(actual.map(([x]) => x), expected.map(([x]) => x), PATH_X_TOLERANCE, `${what}: x`);
      assertClose(actual.map(([, y]) => y), expected.map(([, y]) => y), what.includes('loss') ? PATH_X_TOLERANCE : PATH_TOLERANCE, what);
    };
    for (const { seed, checkpoints, evaluations } of file.seeds) {
      const steps = checkpoints.map((c) => c.step);
      close_(await pathData(page, 'accuracy-chart', `accuracy-seed-${seed}`), checkpoints.map((c) => [c.step, c.accuracy]), `seed ${seed}'s accuracy`);
      close_(await pathData(page, 'loss-chart', `loss-seed-${seed}`), checkpoints.map((c) => [c.step, c.loss]), `seed ${seed}'s loss`);
      close_(await pathData(page, 'positions-chart', `latest-seed-${seed}`),
        checkpoints.at(-1).accuracyByPosition.map((value, i) => [i + 1, value]), `seed ${seed} at step ${steps.at(-1)}`);
      for (const { pairs, accuracyByPosition } of evaluations) {
        close_(await pathData(page, 'lengths-chart', `pairs-${pairs}-seed-${seed}`),
          accuracyByPosition.map((value, i) => [pairs === 1 ? 0 : i / (pairs - 1), value]), `seed ${seed} at ${pairs} pairs`);
      }
    }
    // the mean is still drawn, the seeds' lines thin beside it, and the legends say what they are
    const mean = file.seeds[0].checkpoints.map((c, k) => (c.accuracy + file.seeds[1].checkpoints[k].accuracy) / 2);
    assertClose((await pathData(page, 'accuracy-chart', 'accuracy')).map(([, value]) => value), mean, PATH_TOLERANCE, 'the mean');
    assert.equal(await page.$eval('#accuracy-chart [data-series="accuracy-seed-0"] path.line', (path) => getComputedStyle(path).strokeWidth), '1px');
    for (const legend of ['loss-legend', 'accuracy-legend', 'positions-legend', 'lengths-legend']) {
      assert.ok((await page.$$eval(`#${legend} li`, (items) => items.map((item) => item.textContent))).includes('thin lines: each of the 2 seeds'), legend);
    }
    // the thin lines' swatch: their colour where one run's lines share it, the key's grey
    // where they have each length's colour (chart 4)
    const swatchAndLines = (chart, legend) => page.evaluate(({ chart, legend }) => {
      const item = [...document.getElementById(legend).children].find((li) => li.textContent.startsWith('thin lines'));
      const strokes = [...document.querySelectorAll(`#${chart} .series.seed path.line`)].filter((path) => path.getAttribute('d'))
        .map((path) => getComputedStyle(path).stroke);
      return { swatch: getComputedStyle(item, '::before').borderTopColor, strokes: [...new Set(strokes)] };
    }, { chart, legend });
    for (const [chart, legend] of [['loss-chart', 'loss-legend'], ['accuracy-chart', 'accuracy-legend'], ['positions-chart', 'positions-legend']]) {
      const { swatch, strokes } = await swatchAndLines(chart, legend);
      assert.deepEqual(strokes, [swatch], `${chart}: its seed lines' one colour is the swatch's`);
    }
    const lengths = await swatchAndLines('lengths-chart', 'lengths-legend');
    assert.ok(lengths.strokes.length > 1 && !lengths.strokes.includes(lengths.swatch), `chart 4: lines of ${lengths.strokes.join(', ')}, a grey swatch ${lengths.swatch}`);
    await close();
  });

  test('chart 3 with several seeds: one length\'s band at a time, the trained length\'s, or the one chosen from the keyboard; the legend names it', async () => {
    const { page, close } = await openPage(suite, `train.html${QUICK}&seeds=2`);
    assert.equal(await trainAndWait(page), 'finished');
    const { seeds } = await curves(page);
    // the series whose band is drawn (a path with a shape), and what the legend says of the bands
    const bands = () => page.$$eval('#lengths-chart path.band', (paths) => paths.filter((path) => path.getAttribute('d'))
      .map((path) => path.parentElement.dataset.series));
    const note = async () => (await page.$$eval('#lengths-legend li', (items) => items.map((item) => item.textContent)))
      .find((text) => text.startsWith('lines:'));
    assert.deepEqual(await bands(), ['pairs-4'], 'the trained length\'s band alone');
    assert.equal(await note(), 'lines: mean of 2 seeds; band: lowest to highest seed, at 4 pairs (trained) only');
    assert.equal(await page.isVisible('#band-pairs'), true);
    assert.equal(await page.textContent('label[for="band-pairs"]'), 'band of the seeds at');
    assert.deepEqual(await page.$$eval('#band-pairs option', (options) => options.map((option) => option.textContent)),
      ['4 pairs (trained)', '6 pairs', '8 pairs']);
    // from the keyboard: the select focused, the arrow down chooses 6 pairs
    await page.focus('#band-pairs');
    await page.keyboard.press('ArrowDown');
    await page.waitForFunction(() => document.getElementById('lengths-chart').dataset.band === '6', null, { timeout: TIMEOUT_MS });
    assert.deepEqual(await bands(), ['pairs-6']);
    assert.equal(await note(), 'lines: mean of 2 seeds; band: lowest to highest seed, at 6 pairs only');
    // the band runs from the lower seed to the higher at each of the 6 positions; every seed's line stays
    const at6 = seeds.map((seed) => seed.evaluations.find((e) => e.pairs === 6).accuracyByPosition);
    const band = await pathData(page, 'lengths-chart', 'pairs-6', 'band');
    assertClose(band.slice(0, 6).map(([, y]) => y), at6[0].map((v, i) => Math.max(v, at6[1][i])), PATH_TOLERANCE, 'the band\'s upper edge');
    assertClose(band.slice(6).reverse().map(([, y]) => y), at6[0].map((v, i) => Math.min(v, at6[1][i])), PATH_TOLERANCE, 'its lower edge');
    const seedLines = await page.$$eval('#lengths-chart .series.seed path.line', (paths) => paths.filter((path) => path.getAttribute('d')).length);
    assert.equal(seedLines, 3 * 2, 'a thin line per seed at each length');
    // the choice stays when the chart is drawn again for the other axis
    await page.selectOption('#axis', 'position');
    await page.waitForFunction(() => document.getElementById('lengths-chart').dataset.axis === 'position', null, { timeout: TIMEOUT_MS });
    assert.deepEqual(await bands(), ['pairs-6']);
    // one seed: no band of seeds, and nothing to choose
    await page.fill('#seeds', '1');
    await page.waitForFunction(() => !location.hash.includes('seeds='), null, { timeout: TIMEOUT_MS });
    assert.equal(await trainAndWait(page), 'finished');
    assert.deepEqual(await bands(), []);
    assert.equal(await page.isHidden('#band-pairs'), true);
    assert.equal(await note(), undefined);
    await close();
  });

  test('chart 5 at 16 pairs: a strip along each axis gives every token\'s kind, with its legend; the separator, the query and the queried value keep their labels; so does the figure', async () => {
    const hash = '#pairs=16&keys=32&values=32&dModel=16&pe=alibi&steps=50&batch=32&every=50&heldOut=512&evalAt=16';
    const kinds = [...Array.from({ length: 16 }, () => ['key', 'value']).flat(), 'separator', 'query'];
    for (const viewport of [DESKTOP, PHONE]) {
      const { page, close } = await openPage(suite, `train.html${hash}`, { viewport });
      assert.equal(await trainAndWait(page), 'finished');
      await page.waitForFunction(() => document.getElementById('attention-map').dataset.rows === '34', null, { timeout: TIMEOUT_MS });
      assert.deepEqual(await page.$$eval('#attention-kinds li', (items) => items.map((item) => item.textContent)), ['key', 'value', 'separator', 'query']);
      assert.equal(await page.textContent('#attention-kinds-title'), 'Tokens (the strips along the axes)');
      // each swatch in its kind's colour, four colours
      const swatches = await page.$$eval('#attention-kinds .swatch', (items) => items.map((item) => getComputedStyle(item).backgroundColor));
      assert.equal(new Set(swatches).size, 4, swatches.join(' '));
      // the canvas: a row of pixels above the cells that reads, in the swatches' colours, the
      // kinds of the 34 tokens in order (pixels of no kind's colour, at the cells' edges, aside)
      const strip = await page.$eval('#attention-map', (canvas, colours) => {
        const rgb = colours.map((css) => css.match(/\d+/g).slice(0, 3).map(Number));
        const context = canvas.getContext('2d');
        const rows = [];
        for (let y = 0; y < canvas.height; ++y) {
          const line = context.getImageData(0, y, canvas.width, 1).data;
          const read = [];
          for (let x = 0; x < line.length; x += 4) {
            const kind = rgb.findIndex(([r, g, b]) => line[x] === r && line[x + 1] === g && line[x + 2] === b && line[x + 3] === 255);
            if (kind >= 0 && read.at(-1) !== kind) read.push(kind);
          }
          rows.push(read.slice(0, 34).join(','));
        }
        return { rows, labelled: canvas.dataset.labelled.split(',').map(Number) };
      }, swatches);
      const expected = kinds.map((kind) => ['key', 'value', 'separator', 'query'].indexOf(kind)).join(',');
      assert.ok(strip.rows.includes(expected), `${viewport.width} px: a row of the token kinds in order`);
      const marked = (await page.getAttribute('#attention-map', 'data-marked')).split(',').map(Number);
      assert.equal(marked.length, 2, 'the queried pair\'s key and value');
      assert.ok(strip.labelled.includes(33), `${viewport.width} px: the query labelled (${strip.labelled})`);
      assert.ok(strip.labelled.includes(marked[1]), `${viewport.width} px: the queried value labelled (${strip.labelled})`);
      if (viewport === DESKTOP) assert.ok(strip.labelled.includes(32), `the separator labelled beside the query (${strip.labelled})`);
      assert.ok(await page.evaluate(() => document.documentElement.scrollWidth) <= viewport.width, `${viewport.width} px: nothing overflows`);
      if (viewport === DESKTOP) {
        // the figure: each panel's strips in the page's light colours, their legend, SEP labelled
        const file = await downloadOf(page, 'button[data-svg="attention-map"]');
        const figure = await page.evaluate((text) => {
          const svg = new DOMParser().parseFromString(text, 'image/svg+xml');
          const first = svg.querySelector('g.token-kinds');
          return {
            strips: svg.querySelectorAll('g.token-kinds').length,
            fills: [...first.querySelectorAll('rect')].map((rect) => rect.getAttribute('fill')),
            legend: [...svg.querySelectorAll('g.kinds-legend text')].map((t) => t.textContent),
            legendFills: [...svg.querySelectorAll('g.kinds-legend rect')].map((rect) => rect.getAttribute('fill')),
            texts: [...svg.querySelectorAll('text')].map((t) => t.textContent),
            light: (() => {
              document.documentElement.classList.add('light-figure');
              const style = getComputedStyle(document.documentElement);
              const colours = ['key', 'value', 'separator', 'query'].map((kind) => style.getPropertyValue(`--token-${kind}`).trim());
              document.documentElement.classList.remove('light-figure');
              return colours;
            })(),
          };
        }, file.bytes.toString('utf8'));
        assert.equal(figure.strips, 4, 'two layers of two heads');
        assert.deepEqual(figure.legend, ['Tokens', 'key', 'value', 'separator', 'query']);
        assert.deepEqual(figure.legendFills, figure.light);
        const colourOf = Object.fromEntries(['key', 'value', 'separator', 'query'].map((kind, k) => [kind, figure.light[k]]));
        assert.deepEqual(figure.fills, [...kinds, ...kinds].map((kind) => colourOf[kind]), 'the rows\' strip, then the columns\'');
        assert.ok(figure.texts.includes('SEP'), 'the separator labelled in the figure');
      }
      await close();
    }
  });

  test('chart 2: one seed\'s accuracy by position with its 95% Wilson interval on the questions each position was asked; the middle third\'s mean and the lowest pair read out, the runs table\'s middle that mean', async () => {
    const { page, close } = await openPage(suite, `train.html${QUICK}`);
    assert.equal(await trainAndWait(page), 'finished');
    // 512 held-out sequences over 4 pairs: 128 questions a position
    assert.equal(await page.getAttribute('#positions-chart', 'data-questions'), '128,128,128,128');
    const values = (await page.getAttribute('#positions-chart', 'data-values')).split(',').map(Number);
    const intervals = values.map((p) => wilson(p, 128));
    const band = await pathData(page, 'positions-chart', 'latest', 'band');
    assert.equal(band.length, 8, 'the upper edge, then the lower one');
    assertClose(band.slice(0, 4).map(([, y]) => y), intervals.map(([, high]) => high), PATH_TOLERANCE, 'the band\'s upper ends');
    assertClose(band.slice(4).reverse().map(([, y]) => y), intervals.map(([low]) => low), PATH_TOLERANCE, 'the band\'s lower ends');
    const pct = (value) => `${(100 * value).toFixed(1)}%`;
    const tips = await page.$$eval('#positions-chart [data-series="latest"] circle title', (titles) => titles.map((title) => title.textContent));
    assert.deepEqual(tips, values.map((p, i) => `pair ${i + 1}: ${pct(p)} (95% interval ${pct(intervals[i][0])}–${pct(intervals[i][1])}; 128 questions)`));
    assert.match(await page.textContent('#positions-legend'), /step 300 \(band: 95% Wilson interval, 128 questions per position\)/);
    // the summary: first, the middle as the mean over the middle third of the pairs (pairs 2–3
    // of 4, not one noisy pair), the lowest, the last; the runs table's middle the same mean, its pairs named
    const summary = await page.$$eval('#positions-summary > div', (divs) => divs.map((div) => [div.querySelector('dt').textContent, div.querySelector('dd').textContent]));
    const lowest = values.indexOf(Math.min(...values));
    const middle = (values[1] + values[2]) / 2;
    assert.deepEqual(summary, [
      ['step', '300'], ['questions per position', '128'], ['first pair', pct(values[0])], ['middle (mean of pairs 2–3 of 4)', pct(middle)],
      [`lowest (pair ${lowest + 1})`, pct(values[lowest])], ['last (pair 4)', pct(values[3])],
    ]);
    assert.deepEqual(await page.$$eval('#runs-body tr td:nth-child(n+6):nth-child(-n+8)', (tds) => tds.map((td) => td.textContent)),
      [pct(values[0]), `${pct(middle)} (2–3)`, pct(values[3])]);
    assert.equal(await page.textContent('#runs-table th:nth-child(7)'), 'middle (pairs)');
    await close();
  });

  for (const colorScheme of ['light', 'dark']) {
    test(`chart 2, ${colorScheme}: the earlier checkpoints' steps in the legend and each line's tooltip, older ones fainter, the faintest still 1.5:1 on the panel`, async () => {
      const { page, close } = await openPage(suite, `train.html${QUICK}`, { colorScheme });
      assert.equal(await trainAndWait(page), 'finished');
      const earlier = await page.$$eval('#positions-chart .series.checkpoint', (groups) => groups.map((group) => {
        const path = group.querySelector('path.line');
        const style = getComputedStyle(path);
        return {
          series: group.dataset.series, title: path.querySelector('title')?.textContent, stroke: style.stroke,
          opacity: Number(getComputedStyle(group).opacity) * Number(style.strokeOpacity),
        };
      }));
      assert.deepEqual(earlier.map(({ series, title }) => [series, title]), [50, 100, 150, 200, 250].map((step) => [`step-${step}`, `step ${step}`]));
      for (let k = 1; k < earlier.length; ++k) assert.ok(earlier[k].opacity > earlier[k - 1].opacity, JSON.stringify(earlier));
      const latest = await page.$eval('#positions-chart [data-series="latest"]', (group) => Number(getComputedStyle(group).opacity)
        * Number(getComputedStyle(group.querySelector('path.line')).strokeOpacity));
      assert.ok(earlier.at(-1).opacity < latest, `the newest earlier line (${earlier.at(-1).opacity}) fainter than the latest (${latest})`);
      const legend = await page.$$eval('#positions-legend li', (items) => items.map((item) => item.textContent));
      assert.ok(legend.includes('earlier checkpoints, steps 50 to 250 (the older, the fainter)'), legend.join(' | '));
      // the faintest line's colour over the panel, against the panel: WCAG's contrast ratio
      const panel = await page.$eval('#positions-chart', (svg) => getComputedStyle(svg.closest('.panel')).backgroundColor);
      const rgb = (css) => css.match(/[\d.]+/g).slice(0, 3).map(Number);
      const luminance = (channels) => channels.map((c) => c / 255).map((c) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4))
        .reduce((sum, c, i) => sum + [0.2126, 0.7152, 0.0722][i] * c, 0);
      const background = rgb(panel);
      const faintest = rgb(earlier[0].stroke).map((c, i) => background[i] + earlier[0].opacity * (c - background[i]));
      const [light, dark] = [luminance(faintest), luminance(background)].sort((a, b) => b - a);
      const contrast = (light + 0.05) / (dark + 0.05);
      assert.ok(contrast >= 1.5, `the step-50 line: contrast ${contrast.toFixed(2)} on ${panel}`);
      await close();
    });
  }

  test('chart 2 with three seeds: the earlier checkpoints are one seed\'s, the one "Model of" shows, not their mean; the latest the mean', async () => {
    const { page, close } = await openPage(suite, `train.html${QUICK}&seeds=3`);
    assert.equal(await trainAndWait(page), 'finished');
    const { seeds } = await curves(page);
    const earlierLines = async () => {
      const ids = await page.$$eval('#positions-chart .series.checkpoint', (groups) => groups.map((group) => group.dataset.series));
      return Promise.all(ids.map(async (id) => (await pathData(page, 'positions-chart', id)).map(([, y]) => y)));
    };
    const legend = async () => (await page.$$eval('#positions-legend li', (items) => items.map((item) => item.textContent))).join(' | ');
    // the mean of the seeds at each earlier checkpoint, which no line may be unless a seed had it
    const mean = (c) => seeds[0].checkpoints[c].accuracyByPosition.map((_, i) => seeds.reduce((sum, s) => sum + s.checkpoints[c].accuracyByPosition[i], 0) / seeds.length);
    let apart = 0;
    for (const k of [0, 2]) {
      if (k > 0) {
        await page.selectOption('#shown-seed', String(k));
        await page.waitForFunction((seed) => document.getElementById('positions-legend').textContent.includes(`of seed ${seed},`), seeds[k].seed);
      }
      assert.match(await legend(), new RegExp(`earlier checkpoints of seed ${seeds[k].seed}, steps 50 to 250 \\(the older, the fainter\\)`));
      const lines = await earlierLines();
      assert.equal(lines.length, QUICK_CHECKPOINTS - 1);
      lines.forEach((ys, c) => {
        assertClose(ys, seeds[k].checkpoints[c].accuracyByPosition, PATH_TOLERANCE, `seed ${seeds[k].seed}'s step ${seeds[k].checkpoints[c].step}`);
        apart = Math.max(apart, ...ys.map((y, i) => Math.abs(y - mean(c)[i])));
      });
      const tips = await page.$$eval('#positions-chart .series.checkpoint path.line title', (titles) => titles.map((title) => title.textContent));
      assert.deepEqual(tips, [50, 100, 150, 200, 250].map((step) => `seed ${seeds[k].seed}, step ${step}`));
      // the latest checkpoint: the mean of the three seeds, whichever is shown
      const latest = (await page.getAttribute('#positions-chart', 'data-values')).split(',').map(Number);
      assertClose(latest, mean(QUICK_CHECKPOINTS - 1), TOLERANCE, 'the latest checkpoint\'s mean');
    }
    assert.ok(apart > 0.01, `the seeds' lines ${apart} from their mean somewhere: the test tells them apart`);
    await close();
  });

  test('runs are told apart by name: a preset\'s label, else the encoding and what differs from the default run, alike in the table, the overlay, the model panel and the status line', async () => {
    const { page, close } = await openPage(suite, `train.html${QUICK}`);
    assert.equal(await trainAndWait(page), 'finished');
    await page.evaluate((hash) => { window.location.hash = hash; }, `${QUICK.slice(1)}&steps=200`);
    await page.waitForFunction(() => document.getElementById('steps').value === '200', null, { timeout: TIMEOUT_MS });
    assert.equal(await trainAndWait(page), 'finished');
    const names = ['#1 Quick', '#2 ALiBi · 4 pairs of 8 +6 more'];
    assert.deepEqual(await page.$$eval('#runs-body tr td:nth-child(2)', (tds) => tds.map((td) => td.firstChild.textContent)), names);
    assert.deepEqual(await page.$$eval('#overlay-legend li', (items) => items.map((item) => item.textContent)), names);
    assert.match(await page.textContent('[data-testid="shown-run"]'), new RegExp(`^${names[1].replace(/[+]/g, '\\+')}: ALiBi, 2L d16 2H`));
    await page.click('#runs-body tr:first-child button:text("Show")');
    await page.waitForSelector('#runs-body tr:first-child.selected');
    assert.match(await page.textContent('[data-testid="train-status"]'), new RegExp(`^Showing ${names[0]}: trained 300 steps`));
    await close();
  });

  test('chart 4: every layer and head in a line of its own colour and style', async () => {
    const { page, close } = await openPage(suite, `train.html${QUICK}&heads=4`);
    assert.equal(await trainAndWait(page), 'finished');
    const looks = await page.$$eval('#looks-chart .series path.line', (paths) => paths.map((path) => {
      const style = getComputedStyle(path);
      return { series: path.parentElement.dataset.series, look: `${style.stroke} ${style.strokeDasharray}` };
    }));
    assert.equal(looks.length, 2 * 4 + 1, 'two layers of four heads, and the accuracy');
    assert.equal(new Set(looks.map(({ look }) => look)).size, looks.length, JSON.stringify(looks));
    await close();
  });

  test('the preset the settings match is pressed', async () => {
    const { page, close } = await openPage(suite, 'train.html');
    const pressed = () => page.$$eval('button[data-preset]', (buttons) => buttons
      .filter((button) => button.getAttribute('aria-pressed') === 'true').map((button) => button.dataset.preset));
    assert.deepEqual(await pressed(), ['alibi'], 'the default run is the ALiBi preset');
    await page.click('button[data-preset="rope"]');
    assert.deepEqual(await pressed(), ['rope']);
    await page.fill('#steps', '800');
    await page.waitForFunction(() => location.hash.includes('steps=800'), null, { timeout: TIMEOUT_MS });
    assert.deepEqual(await pressed(), [], 'a changed setting: no preset');
    await page.fill('#seeds', '3');
    await page.click('button[data-preset="quick"]');
    assert.deepEqual(await pressed(), ['quick']);
    await page.fill('#seeds', '2');
    assert.deepEqual(await pressed(), ['quick'], 'the seeds are not a preset\'s');
    assert.match(await page.textContent('.presets p'), /sets every setting of the run/);
    await close();
  });

  test('the presets that stay near chance in their 1,400 steps say so on their buttons and in the presets\' text', async () => {
    const { page, close } = await openPage(suite, 'train.html');
    const buttons = await page.$$eval('button[data-preset]', (elements) => elements.map((button) => [button.dataset.preset, button.textContent]));
    const marked = buttons.filter(([, text]) => text.includes('(near chance)')).map(([id]) => id);
    assert.deepEqual(marked, ['learned', 'sinusoidal', 'bidirectional'], JSON.stringify(buttons));
    assert.match(await page.textContent('.presets p'), /pressed; † near chance at 1,400 steps\./);
    await close();
  });

  test('a run that has not learned the task is named above charts 3–5 and in chart 4\'s read-out; a run that learned is not', async () => {
    // 50 steps of the quick run: held-out accuracy near chance (1 / 8), below the rule's 25.6%
    const { page, close } = await openPage(suite, `train.html${QUICK.replace('steps=300', 'steps=50')}`);
    assert.equal(await page.isHidden('[data-testid="not-learned"]'), true, 'no run: no notice');
    assert.equal(await trainAndWait(page), 'finished');
    const [evaluation] = (await curves(page)).seeds[0].evaluations;
    assert.ok(evaluation.accuracy < 1 / 8 + 0.15 * (1 - 1 / 8), `accuracy ${evaluation.accuracy}`);
    const notice = await page.textContent('[data-testid="not-learned"]');
    assert.equal(await page.isVisible('[data-testid="not-learned"]'), true);
    assert.match(notice, new RegExp(`^This run has not learned the task: held-out accuracy ${(100 * evaluation.accuracy).toFixed(1)}% where chance is 12\\.5% \\(the page counts a run as learned from 25\\.6%\\)`));
    assert.match(notice, /Charts 3–5 show what a model answering near chance does/);
    assert.match(await page.textContent('[data-testid="looks-summary"]'), /mean weight [\d.]+ \(a model near chance: no head here finds the answer\)/);
    // the status line says it in words; the runs table marks its name with the presets' dagger
    // (words in its place for a screen reader), which the note under the table explains
    const pct = `${(100 * evaluation.accuracy).toFixed(1)}%`;
    const notLearned = `; not learned: held-out accuracy ${pct}, near chance (12.5%).`;
    assert.match(await page.textContent('[data-testid="train-status"]'), /^Trained 50 steps \(one seed\) in [\d.]+ s; not learned: /);
    assert.ok((await page.textContent('[data-testid="train-status"]')).endsWith(notLearned));
    const nameCells = () => page.$$eval('#runs-body td:nth-child(2)', (tds) => tds.map((td) => ({
      text: td.textContent, mark: td.querySelector('[aria-hidden="true"]')?.textContent ?? null,
      words: td.querySelector('.visually-hidden')?.textContent ?? null,
    })));
    const [marked] = await nameCells();
    assert.deepEqual([marked.mark, marked.words], [' †', ' (near chance: not learned)']);
    assert.ok(marked.text.startsWith('#1 ALiBi · 4 pairs of 8 +6 more † (near chance: not learned)settings'), marked.text);
    assert.equal(await page.textContent('#runs-body td:nth-child(5)'), pct);
    assert.equal(await page.isVisible('[data-testid="runs-not-learned"]'), true);
    assert.equal(await page.textContent('[data-testid="runs-not-learned"]'), '† near chance: the run has not learned the task (its ' +
      'held-out accuracy at the trained length is less than 15% of the way from chance to every answer right); its accuracy by ' +
      'position is noise, not a shape.');
    assert.deepEqual(await page.$$eval('#overlay-legend li', (items) => items.map((item) => item.textContent)), ['#1 ALiBi · 4 pairs of 8 +6 more († near chance)']);

    await page.click('button[data-preset="quick"]');
    assert.equal(await trainAndWait(page), 'finished');
    const [learned] = (await curves(page)).seeds[0].evaluations;
    assert.ok(learned.accuracy >= 1 / 8 + 0.15 * (1 - 1 / 8), `accuracy ${learned.accuracy}`);
    assert.equal(await page.isHidden('[data-testid="not-learned"]'), true, 'the quick run learns: no notice');
    assert.doesNotMatch(await page.textContent('[data-testid="looks-summary"]'), /near chance/);
    assert.doesNotMatch(await page.textContent('[data-testid="train-status"]'), /not learned/);
    assert.deepEqual((await nameCells()).map(({ mark }) => mark), [' †', null], 'the second run, which learned, unmarked');
    // Show on the first run brings its notice back, and the status line's words
    await page.getByRole('button', { name: 'Show run 1 in the charts' }).click();
    assert.equal(await page.isVisible('[data-testid="not-learned"]'), true);
    assert.match(await page.textContent('[data-testid="train-status"]'), /^Showing #1 ALiBi · 4 pairs of 8 \+6 more: trained 50 steps \(one seed\) in [\d.]+ s; not learned: /);
    // on a phone the dagger stays in sight after the name cut short, and costs the card no line
    // (its height with the mark taken out; the quick run's card, 104 px, is measured above)
    await page.setViewportSize(PHONE);
    const card = await page.$eval('#runs-body tr', (row) => {
      const mark = row.querySelector('.not-learned-mark');
      const box = mark.getBoundingClientRect();
      const height = row.getBoundingClientRect().height;
      const words = mark.nextElementSibling;
      mark.remove();
      words.remove();
      return { height, unmarked: row.getBoundingClientRect().height, mark: box.width, right: box.right, room: row.getBoundingClientRect().right };
    });
    assert.equal(card.height, card.unmarked, 'the card as tall with the mark as without it');
    assert.ok(card.mark > 4 && card.right <= card.room, `the dagger ${card.mark} px wide, ending at ${card.right} px of ${card.room}`);
    await close();
  });

  test('charts 1 and 2 explain the run they show: the middle pairs of its k, and three seeds to try only with one seed', async () => {
    // what a reader sees of chart 1's and chart 2's explanations
    const explained = (page, chart) => page.$eval(`section[aria-labelledby="${chart}-heading"] details`, (details) => details.innerText.replace(/\s+/g, ' '));
    const threeSeeds = 'Try next: the same settings with three seeds side by side.';
    const { page, close } = await openPage(suite, 'train.html');
    assert.match(await explained(page, 'positions'), /“Middle” is the mean over the middle third of the pairs \(pairs 6–11 of 16\)/);
    assert.ok((await explained(page, 'training')).includes(threeSeeds));
    await page.fill('#seeds', '3');
    await page.waitForFunction(() => location.hash.includes('seeds=3'), null, { timeout: TIMEOUT_MS });
    assert.ok(!(await explained(page, 'training')).includes(threeSeeds), 'three seeds chosen: not suggested');
    await close();
    const { page: quick, close: closeQuick } = await openPage(suite, `train.html${QUICK}&seeds=2`);
    assert.equal(await trainAndWait(quick), 'finished');
    assert.match(await quick.textContent('[data-testid="positions-summary"]'), /middle \(mean of pairs 2–3 of 4\)/);
    assert.match(await explained(quick, 'positions'), /middle third of the pairs \(pairs 2–3 of 4\)/);
    assert.ok(!(await explained(quick, 'training')).includes(threeSeeds), 'a run of two seeds: no "try three seeds"');
    await closeQuick();
  });

  test('the introduction says the default run stops while still learning, what longer training does to its dip, and why ALiBi is the default', async () => {
    const { page, close } = await openPage(suite, 'train.html');
    const intro = (await page.textContent('#train-more')).replace(/\s+/g, ' ');
    assert.doesNotMatch(intro, /nothing on the page is tuned/);
    assert.match(intro, /chosen as the default because it shows/);
    assert.match(intro, /stops while still learning/);
    assert.match(intro, /6,000 steps/);
    const positions = (await page.textContent('section[aria-labelledby="positions-heading"] details')).replace(/\s+/g, ' ');
    assert.doesNotMatch(positions, /with RoPE it does not\./);
    await close();
  });

  test('a failed engine load is shown', async () => {
    await assertEngineFailureShown(suite, 'train.html');
  });
});
