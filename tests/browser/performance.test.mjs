// Timings of the playground in Chromium, written to build/web-timings.json for the record:
// retyping a 512-token input with 8 heads (nn.Linear weights, d_out = 64), what of the
// engine's time is the copy of its scores and weights, and redrawing a 4,096-token matrix
// (pooled). No timing is asserted: the numbers depend on the machine and on what else runs
// on it; the tests check that each measured step really happened, and that the progress bar
// showed for a computation that took well over the page's delay and not for one well under it.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { PROGRESS_DELAY_MS } from '../../web/playground/pipeline.js';
import { longSampleText, openPage, startSuite, waitForRows } from './helpers.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const RESULTS_FILE = join(root, 'build', 'web-timings.json');
const HEATMAP = '[data-testid="attention-heatmap"]';
const SENTENCE = '[data-testid="sentence-input"]';
const TYPING_TOKENS = 512;
const TYPING_HASH = `&h=8&tw=linear&do=64`;
const KEYSTROKES = 12;
const LONG_TOKENS = 4096;
const LONG_TIMEOUT_MS = 60_000;
const REPEATS = 7;
const HOVER_POINTS = 20;
const ENGINE_REPEATS = 30;
const D_IN = 100;                 // GloVe's dims
// A computation shows the progress bar once it has run this long (pipeline.js); the tests
// expect it, or not, only for computations this far beyond, or short of, that time.
const PROGRESS_MARGIN_MS = 100;
const CLICK_FROM = 0.3;  // fractions of the canvas where clicks select queries
const CLICK_SPAN = 0.5;

let suite;
const results = {};
before(async () => { suite = await startSuite(); });
after(async () => {
  await suite?.close();
  mkdirSync(dirname(RESULTS_FILE), { recursive: true });
  const machine = { cpus: cpus().length, model: cpus()[0]?.model, loadAverage: loadavg() };
  // the Train page's timings (train-performance.test.mjs) stay as they were
  const train = existsSync(RESULTS_FILE) ? JSON.parse(readFileSync(RESULTS_FILE, 'utf8')).train : undefined;
  writeFileSync(RESULTS_FILE, `${JSON.stringify({ date: new Date().toISOString(), machine, ...results, train }, null, 2)}\n`);
});

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

// {median, min, max, samples} of each field over the samples (fields missing from a sample are skipped).
function summarise(samples) {
  const fields = [...new Set(samples.flatMap((sample) => Object.keys(sample)))];
  return Object.fromEntries(fields.flatMap((field) => {
    const values = samples.map((sample) => sample[field]).filter(Number.isFinite);
    if (values.length === 0) return [];  // not a number (timeRedraw's progressShown)
    return [[field, { median: median(values), min: Math.min(...values), max: Math.max(...values), samples: values.length }]];
  }));
}

// Runs `act` (an action in Node that changes the page) and resolves, in page milliseconds,
// {untilDrawn: from the input event the action caused (its timeStamp, when the browser
// received it) to the heatmap's next timing record, untilPainted: to the end of the main
// thread's work on the frame after that (a task queued from its animation frame callback),
// progressShown: whether the progress bar appeared in between, ...the record}.
async function timeRedraw(page, act) {
  await page.evaluate(() => {
    const canvas = document.querySelector('[data-testid="attention-heatmap"]');
    const bar = document.getElementById('progress');
    let started = null;
    let progressShown = !bar.hidden;  // whether the progress bar showed before the heatmap was drawn
    const note = (event) => { started ??= event.timeStamp; };
    const types = ['keydown', 'input', 'change', 'pointerdown', 'click'];
    for (const type of types) document.addEventListener(type, note, { capture: true });
    const progress = new MutationObserver(() => { progressShown ||= !bar.hidden; });
    progress.observe(bar, { attributes: true, attributeFilter: ['hidden'] });
    window.measuredRedraw = new Promise((resolve) => {
      const observer = new MutationObserver(() => {
        observer.disconnect();
        progress.disconnect();
        for (const type of types) document.removeEventListener(type, note, { capture: true });
        const drawn = performance.now();
        requestAnimationFrame(() => setTimeout(() => resolve({
          untilDrawn: drawn - started, untilPainted: performance.now() - started, progressShown,
          ...JSON.parse(canvas.dataset.timing),
        })));
      });
      observer.observe(canvas, { attributes: true, attributeFilter: ['data-timing'] });
    });
  });
  await act();
  return page.evaluate(() => window.measuredRedraw);
}

describe('performance', () => {
  test('retyping a 512-token input with 8 heads: engine time and keystroke to drawn', async () => {
    const text = await longSampleText(TYPING_TOKENS);
    const { page, close } = await openPage(suite, `#t=${encodeURIComponent(text)}${TYPING_HASH}`);
    await waitForRows(page, TYPING_TOKENS);
    assert.equal(await page.getAttribute(HEATMAP, 'data-heads'), '8');
    await page.locator(SENTENCE).focus();
    await page.locator(SENTENCE).press('End');
    const samples = [];
    for (let k = 0; k < KEYSTROKES; ++k) {
      // type a letter onto the last word, then take it away: the input stays at 512 tokens
      const key = k % 2 === 0 ? 'e' : 'Backspace';
      const { progressShown, ...sample } = await timeRedraw(page, () => page.keyboard.press(key));
      // a recompute of a few milliseconds does not flash the progress line
      if (sample.compute < PROGRESS_DELAY_MS - PROGRESS_MARGIN_MS) {
        assert.equal(progressShown, false, `keystroke ${k} (${sample.compute} ms) showed the progress bar`);
      }
      // the typing pause the update waited for (main.js: twice the last update's time, 60–250 ms) left out
      samples.push({ ...sample, keystrokeToDrawn: sample.untilDrawn - sample.typingPause,
        keystrokeToPainted: sample.untilPainted - sample.typingPause });
    }
    assert.equal(await page.getAttribute(HEATMAP, 'data-rows'), String(TYPING_TOKENS));
    results.typing512 = { tokens: TYPING_TOKENS, heads: 8, dOut: 64, ...summarise(samples) };
    await close();
  });

  test('retyping 512 tokens × 8 heads with attention on 1 and on 2 threads: the recompute\'s engine time', async () => {
    // The page starts cores − 1 workers, at least one, and its engine worker computes a part
    // beside them when a core is left for it: Chromium is told of 1 core (one worker), then of
    // 2 (one worker and the engine's own thread).
    const text = await longSampleText(TYPING_TOKENS);
    const pages = [];
    for (const [cores, status] of [[1, /on 1 worker\./], [2, /on 1 worker and the engine's own thread\./]]) {
      const opened = await openPage(suite, `#t=${encodeURIComponent(text)}${TYPING_HASH}`, {
        prepare: (context) => context.addInitScript((count) => {
          Object.defineProperty(Navigator.prototype, 'hardwareConcurrency', { get: () => count });
        }, cores),
      });
      await waitForRows(opened.page, TYPING_TOKENS);
      assert.match(await opened.page.locator('#engine-status').textContent(), status);
      await opened.page.locator(SENTENCE).focus();
      await opened.page.locator(SENTENCE).press('End');
      pages.push({ ...opened, samples: [] });
    }
    for (let k = 0; k < KEYSTROKES; ++k) {
      const key = k % 2 === 0 ? 'e' : 'Backspace';
      for (const entry of pages) {  // the two pages in turn, so that both meet the same machine
        const sample = await timeRedraw(entry.page, () => entry.page.keyboard.press(key));
        entry.samples.push({ engine: sample.engine, keystrokeToDrawn: sample.untilDrawn - sample.typingPause });
      }
    }
    const [one, two] = pages.map(({ samples }) => summarise(samples));
    for (const { samples } of pages) assert.ok(samples.every(({ engine }) => engine > 0), 'every keystroke recomputed');
    results.threads512 = {
      tokens: TYPING_TOKENS, heads: 8, dOut: 64, oneThread: one, twoThreads: two,
      engineRatio: two.engine.median / one.engine.median,
    };
    await Promise.all(pages.map(({ close }) => close()));
  });

  test('the engine at 512 tokens × 8 heads: materialised (fresh and reused arrays), flash in both builds, and the copy of 16 MiB of results', async () => {
    const { page, close } = await openPage(suite);
    const { simd, checks, timings } = await page.evaluate(async ({ n, dIn, dOut, heads, repeats }) => {
      const { default: createAttention } = await import('./wasm/attention.mjs');
      const engine = await createAttention();
      const simd128 = await createAttention({ simd: 'simd128' });
      const generator = engine.torchGenerator(1);
      const x = generator.rand(n, dIn);
      const [wq, wk, wv] = [0, 1, 2].map(() => generator.rand(dIn, dOut));
      const time = (run) => Array.from({ length: repeats }, () => {
        const started = performance.now();
        run();
        return performance.now() - started;
      });
      const options = { heads, wq, wk, wv };
      const result = engine.selfAttention(x, { ...options, kernel: 'materialized' });
      const matrices = [...result.scores, ...result.weights].map((m) => m.data);
      const reused = matrices.map((data) => new Float32Array(data.length));
      let previous = engine.selfAttention(x, { ...options, kernel: 'materialized' });
      const first = [...previous.scores, ...previous.weights].map((m) => m.data);
      let flash = null;
      let flashSimd128 = null;
      const timings = {
        materialized: time(() => engine.selfAttention(x, { ...options, kernel: 'materialized' })),
        // what the page's worker runs: the previous result's arrays overwritten
        materializedReusingArrays: time(() => {
          previous = engine.selfAttention(x, { ...options, kernel: 'materialized', reuse: previous });
        }),
        flash: time(() => { flash = engine.selfAttention(x, { ...options, kernel: 'flash' }); }),
        // the SIMD128 build, which browsers without relaxed SIMD load
        flashSimd128: time(() => { flashSimd128 = simd128.selfAttention(x, { ...options, kernel: 'flash' }); }),
        copyIntoFreshArrays: time(() => matrices.map((data) => new Float32Array(data))),
        copyIntoReusedArrays: time(() => matrices.forEach((data, k) => reused[k].set(data))),
      };
      // what each timed step did: 16 MiB of matrices, the reusing calls written into the first
      // call's arrays, the flash calls without matrices in each build, and the same context
      const reusedArrays = [...previous.scores, ...previous.weights].map((m) => m.data);
      return {
        simd: engine.simd,
        checks: {
          matrices: matrices.length, matrixValues: matrices.map((data) => data.length),
          sameArrays: reusedArrays.length === first.length && reusedArrays.every((data, k) => data === first[k]),
          sameNumbers: reusedArrays.every((data, k) => data.every((value, i) => Object.is(value, matrices[k][i]))),
          flashKernels: [flash.kernel, flashSimd128.kernel], flashScores: [flash.scores, flashSimd128.scores],
          simd128: simd128.simd,
          flashContext: flash.context.data.reduce((worst, value, i) => Math.max(worst, Math.abs(value - result.context.data[i])), 0),
        },
        timings,
      };
    }, { n: TYPING_TOKENS, dIn: D_IN, dOut: 64, heads: 8, repeats: ENGINE_REPEATS });
    assert.equal(simd, 'relaxed-simd', 'Chromium loads the relaxed-SIMD build');
    const { flashContext, ...steps } = checks;
    assert.deepEqual(steps, {
      matrices: 16, matrixValues: Array(16).fill(TYPING_TOKENS * TYPING_TOKENS), sameArrays: true, sameNumbers: true,
      flashKernels: ['flash', 'flash'], flashScores: [null, null], simd128: 'simd128',
    });
    assert.ok(flashContext <= 1e-5, `flash's context against the materialised one: ${flashContext}`);
    results.engine512 = {
      tokens: TYPING_TOKENS, heads: 8, dIn: D_IN, dOut: 64, resultMiB: 16, simd,
      ...Object.fromEntries(Object.entries(timings).map(([name, samples]) => [name, summarise(samples.map((ms) => ({ ms }))).ms])),
    };
    await close();
  });

  test('a 4,096-token matrix: first drawing and redraws', async () => {
    const { page, close } = await openPage(suite);
    await waitForRows(page, 6);
    const { progressShown, ...first } = await timeRedraw(page, () => page.click('#long-sample'));
    if (first.compute > PROGRESS_DELAY_MS + PROGRESS_MARGIN_MS) {
      assert.equal(progressShown, true, `a computation of ${first.compute} ms showed no progress bar`);
    }
    await waitForRows(page, LONG_TOKENS, LONG_TIMEOUT_MS);
    assert.ok(Number(await page.getAttribute(HEATMAP, 'data-block')) > 1, 'the matrix is pooled');

    const redraws = { colour: [], query: [], pooling: [], logScale: [], hover: [] };
    const box = await page.locator(HEATMAP).boundingBox();
    for (let k = 0; k < REPEATS; ++k) {
      redraws.colour.push(await timeRedraw(page, () => page.selectOption('#value', k % 2 === 0 ? 'scores' : 'weights')));
      const along = CLICK_FROM + (CLICK_SPAN * k) / REPEATS;  // inside the matrix, below and right of its labels
      const point = { x: box.x + box.width * along, y: box.y + box.height * along };
      redraws.query.push(await timeRedraw(page, () => page.mouse.click(point.x, point.y)));
      redraws.pooling.push(await timeRedraw(page, () => page.selectOption('#pooling', k % 2 === 0 ? 'mean' : 'max')));
    }
    // The weights' colour scale, linear ↔ log: the cell images made again, log10 once per cell.
    if (await page.inputValue('#value') !== 'weights') await timeRedraw(page, () => page.selectOption('#value', 'weights'));
    for (let k = 0; k < REPEATS; ++k) {
      redraws.logScale.push(await timeRedraw(page, () => page.selectOption('#color-scale', k % 2 === 0 ? 'log' : 'linear')));
    }
    // Hovering redraws the canvas with the cursor's outline, synchronously in the handler.
    for (let k = 0; k < HOVER_POINTS; ++k) {
      const at = { x: box.x + box.width * (0.3 + (0.4 * k) / HOVER_POINTS), y: box.y + box.height * 0.6 };
      redraws.hover.push({ handler: await page.evaluate(({ x, y }) => {
        const canvas = document.querySelector('[data-testid="attention-heatmap"]');
        const started = performance.now();
        canvas.dispatchEvent(new PointerEvent('pointermove', { clientX: x, clientY: y, bubbles: true }));
        return performance.now() - started;
      }, at) });
    }
    assert.equal(await page.getAttribute(HEATMAP, 'data-rows'), String(LONG_TOKENS));
    results.heatmap4096 = {
      tokens: LONG_TOKENS,
      block: Number(await page.getAttribute(HEATMAP, 'data-block')),
      first,
      ...Object.fromEntries(Object.entries(redraws).map(([name, samples]) => [name, summarise(samples)])),
    };
    await close();
  });
});
