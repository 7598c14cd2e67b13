// Shared set-up of the browser suites: dist/ served under a sub-path on 127.0.0.1, Debian's
// Chromium through playwright-core, pages that record console errors, page errors and any
// request that would leave 127.0.0.1 (such requests are also aborted), downloads, and the
// engine (the page's tokenizer included) and the page's embeddings in Node to compute the
// expected numbers.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serveDist } from '../../scripts/serve.mjs';
import { decodeGlove, embedTokens, GLOVE_FILES } from '../../web/playground/input/embeddings.js';
import { longSample } from '../../web/playground/presets.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const SUB_PATH = '/some/sub/path/';
const HOST = '127.0.0.1';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];
export const DESKTOP = { width: 1400, height: 1000 };
export const PHONE = { width: 390, height: 844 };
export const TIMEOUT_MS = 20_000;

/** Serves dist/ under `prefix` and starts Chromium: {base, browser, close()}. */
export async function startSuite({ prefix = SUB_PATH } = {}) {
  const server = await serveDist({ port: 0, prefix });
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  return {
    base: `http://${HOST}:${server.address().port}${prefix}`,
    browser,
    async close() {
      await browser.close();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * Opens `path` below the suite's base ('' or '#h=2' for the playground, 'lab.html#n=64' for
 * the lab) in a fresh context and waits for the engine: {page, problems, close()}; close()
 * asserts that nothing went to the console as an error and that no request left 127.0.0.1,
 * unless `expectErrors`.
 */
export async function openPage(suite, path = '', { viewport = DESKTOP, colorScheme = 'light', waitForEngine = true,
  prepare } = {}) {
  const context = await suite.browser.newContext({ viewport, colorScheme, acceptDownloads: true });
  const problems = { console: [], page: [], external: [] };
  await context.route((url) => url.hostname !== HOST, (route) => {
    problems.external.push(route.request().url());
    return route.abort();
  });
  await prepare?.(context);
  const page = await context.newPage();
  page.on('console', (message) => {
    if (message.type() === 'error') problems.console.push(message.text());
  });
  page.on('pageerror', (error) => problems.page.push(error.message));
  await page.goto(`${suite.base}${path}`);
  if (waitForEngine) await page.waitForSelector('html[data-engine="ready"]', { timeout: TIMEOUT_MS });
  return {
    page,
    problems,
    async close({ expectErrors = false } = {}) {
      await context.close();
      assert.deepEqual(problems.external, [], 'requests outside 127.0.0.1');
      if (!expectErrors) {
        assert.deepEqual(problems.page, [], 'uncaught page errors');
        assert.deepEqual(problems.console, [], 'console errors');
      }
    },
  };
}

/**
 * Opens `path` with the engine's wasm files (either build) answering 404, and asserts that the
 * page says the engine failed to load, in a visible alert.
 */
export async function assertEngineFailureShown(suite, path) {
  const { page, close } = await openPage(suite, path, {
    waitForEngine: false,
    prepare: (context) => context.route(/\/attention_core(\.relaxed)?\.wasm$/, (route) => route.fulfill({ status: 404, body: 'gone' })),
  });
  await page.waitForSelector('html[data-engine="failed"]', { timeout: TIMEOUT_MS });
  const status = page.locator('#engine-status');
  assert.ok(await status.isVisible());
  assert.equal(await status.getAttribute('role'), 'alert');
  assert.match(await status.textContent(), /engine failed to load/);
  await close({ expectErrors: true });
}

/**
 * The Train page's quick run (4 pairs of 8 keys and 8 values, dModel 16, ALiBi, 300 steps), as
 * the page writes it: trains in about a second.
 */
export const TRAIN_QUICK = '#pairs=4&keys=8&values=8&dModel=16&pe=alibi&steps=300&batch=32&every=50&heldOut=512&evalAt=4%2C6%2C8';
const RUN_TIMEOUT_MS = 60_000;

/** Clicks the Train page's Train and waits until the run is over: resolves to <html data-training> ('finished', 'stopped' or 'failed'). */
export async function trainAndWait(page, timeout = RUN_TIMEOUT_MS) {
  await page.click('[data-testid="train"]');
  await page.waitForFunction(() => ['finished', 'stopped', 'failed'].includes(document.documentElement.dataset.training),
    null, { timeout });
  return page.evaluate(() => document.documentElement.dataset.training);
}

/**
 * Waits until the heatmap shows `rows` rows and the status line does not say "Computing" (a
 * computation says so only after 250 ms: to wait for a quick recompute that keeps the number
 * of rows, use afterRedraw).
 */
export async function waitForRows(page, rows, timeout = TIMEOUT_MS) {
  await page.waitForFunction((expected) => {
    const canvas = document.querySelector('[data-testid="attention-heatmap"]');
    const status = document.getElementById('compute-status').textContent;
    return canvas.dataset.rows === String(expected) && !status.startsWith('Computing');
  }, rows, { timeout });
}

/**
 * Whether the option group `name` (shared/page/option-groups.js) is open: its button's
 * aria-expanded, 'true' or 'false', checked equal to its fieldset's data-expanded, which the
 * stylesheet folds it by.
 */
export async function groupExpanded(page, name) {
  const [button, fieldset] = await page.$eval(`#${name}-group-toggle`,
    (element) => [element.getAttribute('aria-expanded'), element.closest('fieldset').dataset.expanded]);
  assert.equal(fieldset, button, `${name}: the fieldset's data-expanded`);
  return button;
}

/**
 * Runs `act` (an action that makes the page compute or draw again) and waits until the
 * heatmap has been drawn after it, or the page shows an error in the status line.
 */
export async function afterRedraw(page, act) {
  await page.evaluate(() => {
    window.redrawn = new Promise((resolve) => {
      const canvas = document.querySelector('[data-testid="attention-heatmap"]');
      const status = document.getElementById('compute-status');
      const observer = new MutationObserver(() => {
        if (!canvas.dataset.timing && !status.classList.contains('error')) return;
        observer.disconnect();
        resolve();
      });
      delete canvas.dataset.timing;
      observer.observe(canvas, { attributes: true, attributeFilter: ['data-timing'] });
      observer.observe(status, { attributes: true, attributeFilter: ['class'] });
    });
  });
  await act();
  await page.evaluate((timeout) => Promise.race([window.redrawn, new Promise((_, reject) => {
    setTimeout(() => reject(new Error(`no redraw within ${timeout} ms`)), timeout);
  })]), TIMEOUT_MS);
}

/** Waits until the URL hash holds `fragment` (the page writes it shortly after a change). */
export async function waitForHash(page, fragment) {
  await page.waitForFunction((part) => location.hash.includes(part), fragment, { timeout: TIMEOUT_MS });
}

/**
 * Collects, in every page of `context`, what is posted on the BroadcastChannel `name` (by the
 * page's workers: a test's watcher); broadcasts() reads it.
 */
export function collectBroadcasts(context, name) {
  return context.addInitScript((channel) => {
    globalThis.broadcasts ??= {};
    const received = [];
    globalThis.broadcasts[channel] = received;
    new BroadcastChannel(channel).onmessage = ({ data }) => received.push(data);
  }, name);
}

/** The messages collected on the channel `name` (collectBroadcasts), once there are `count`. */
export async function broadcasts(page, name, count) {
  await page.waitForFunction(([channel, least]) => globalThis.broadcasts[channel].length >= least, [name, count], { timeout: TIMEOUT_MS });
  return page.evaluate((channel) => globalThis.broadcasts[channel], name);
}

// How long a click's download may take to start before the click is made once more.
const DOWNLOAD_WAIT_MS = 15_000;

// After a second click, how long a late download of the first may still come (and is let go).
const LATE_DOWNLOAD_MS = 2_000;

/**
 * Clicks `button` and returns the file it downloads: {name, bytes: Buffer}. Headless Chromium
 * has, twice in some hundred clean runs of the suite, started no download for the Train page's
 * CSV button after ten downloads from the page (the click made, the button enabled; the same
 * test passing alone every time): then the button is clicked once more, and that is said on
 * stderr with the button's state; should both clicks' downloads come, the second (of the same
 * name) is let go, so that it is not taken for the next button's. A click that cannot be made
 * fails with Playwright's reason.
 */
export async function downloadOf(page, button) {
  for (let attempt = 1; ; ++attempt) {
    const downloaded = page.waitForEvent('download', { timeout: DOWNLOAD_WAIT_MS });
    downloaded.catch(() => {});  // awaited below, once the click is made
    await page.click(button);
    let download;
    try {
      download = await downloaded;
    } catch (error) {
      if (attempt === 2) throw error;
      const state = await page.$eval(button, (element) => ({ disabled: element.disabled })).catch((reason) => reason.message);
      process.stderr.write(`downloadOf: no download ${DOWNLOAD_WAIT_MS / 1000} s after clicking ${button} ${JSON.stringify(state)}; clicking it again\n`);
      continue;
    }
    const name = download.suggestedFilename();
    if (attempt === 2) {
      const late = await page.waitForEvent('download', { timeout: LATE_DOWNLOAD_MS, predicate: (other) => other.suggestedFilename() === name })
        .catch(() => null);
      await late?.path();
    }
    return { name, bytes: readFileSync(await download.path()) };
  }
}

/**
 * A downloaded figure's PNG and SVG, read in the page: {png: {width, height, corners: the four
 * corner pixels as [r, g, b, a]}, svg: {width, height, texts}} (the SVG's size and its texts).
 */
export async function figureFiles(page, png, svg) {
  return page.evaluate(async ({ pngBase64, svgText }) => {
    const image = new Image();
    image.src = `data:image/png;base64,${pngBase64}`;
    await image.decode();
    const canvas = document.createElement('canvas');
    [canvas.width, canvas.height] = [image.naturalWidth, image.naturalHeight];
    const context = canvas.getContext('2d');
    context.drawImage(image, 0, 0);
    const pixel = (x, y) => [...context.getImageData(x, y, 1, 1).data];
    const parsed = new DOMParser().parseFromString(svgText, 'image/svg+xml').documentElement;
    return {
      png: {
        width: canvas.width, height: canvas.height,
        corners: [pixel(0, 0), pixel(canvas.width - 1, 0), pixel(0, canvas.height - 1), pixel(canvas.width - 1, canvas.height - 1)],
      },
      svg: {
        width: Number(parsed.getAttribute('width')), height: Number(parsed.getAttribute('height')),
        texts: [...parsed.querySelectorAll('text')].map((text) => text.textContent),
        caption: [...parsed.querySelectorAll('text.caption')].map((text) => text.textContent).join(' '),
      },
    };
  }, { pngBase64: png.bytes.toString('base64'), svgText: svg.bytes.toString('utf8') });
}

/**
 * The stroke colours of a line chart's solid series, in order, and the palette's key grey
 * (line-chart.js KEY_COLOR, series-3): {strokes, grey}.
 */
export async function solidStrokes(page, chart) {
  return page.$eval(chart, (svg) => {
    const probe = document.createElementNS('http://www.w3.org/2000/svg', 'path');
    probe.style.stroke = 'var(--series-3)';
    svg.append(probe);
    const grey = getComputedStyle(probe).stroke;
    probe.remove();
    return { strokes: [...svg.querySelectorAll('.series.solid path.line')].map((path) => getComputedStyle(path).stroke), grey };
  });
}

/** The page's JSON export of the heads on display (its numbers, with "Infinity" and "NaN" as numbers). */
export async function exportedJson(page) {
  const file = JSON.parse((await downloadOf(page, '#export-json')).bytes.toString('utf8'));
  const numbers = (rows) => rows.flat().map((value) => (typeof value === 'string' ? Number(value) : value));
  return { ...file, heads: file.heads.map((h) => ({ ...h, scores: numbers(h.scores), weights: numbers(h.weights) })) };
}

let engine = null;
/**
 * The engine module from dist/, loaded once per process, in the build Chromium's pages load
 * (relaxed SIMD): the pages' numbers are held to it bit for bit. Node 20 runs that build
 * with --experimental-wasm-relaxed-simd, which scripts/test.mjs gives this suite.
 */
export async function nodeEngine() {
  if (!engine) {
    const { default: createAttention } = await import(join(root, 'dist', 'wasm', 'attention.mjs'));
    engine = await createAttention({ simd: 'relaxed-simd' });
  }
  return engine;
}

/** The tokens of `text` as the page's worker returns them: [{text, start, end}]. */
export async function tokensOf(text) {
  const { tokens, starts, ends } = (await nodeEngine()).tokenize(text);
  return tokens.map((token, i) => ({ text: token, start: starts[i], end: ends[i] }));
}

/** The page's long sample of `count` tokens, cut by the engine in Node as the page's worker cuts it. */
export async function longSampleText(count) {
  const engine = await nodeEngine();
  return longSample(count, (text, limit) => engine.tokenize(text, { limit }).ends);
}

let glove = null;
/** x for `text` with GloVe, as the page builds it: {tokens, x, unknown}. */
export async function gloveInput(text) {
  if (!glove) {
    const bytes = readFileSync(join(root, 'dist', GLOVE_FILES.vectors));
    const vocabulary = readFileSync(join(root, 'dist', GLOVE_FILES.vocabulary), 'utf8');
    glove = decodeGlove(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength), vocabulary);
  }
  const tokens = await tokensOf(text);
  return { tokens, ...embedTokens(tokens, { type: 'glove', table: glove }) };
}

/** The seed tutorials' numbers (tests/fixtures/seed-examples.json) by example name. */
export function seedExample(name) {
  const fixture = JSON.parse(readFileSync(join(root, 'tests', 'fixtures', 'seed-examples.json'), 'utf8'));
  return fixture.examples.find((example) => example.name === name);
}

/** Asserts |actual − expected| ≤ tolerance element-wise, naming the worst index. */
export function assertClose(actual, expected, tolerance, what) {
  assert.equal(actual.length, expected.length, `${what}: length`);
  let worst = 0;
  let at = -1;
  for (let k = 0; k < expected.length; ++k) {
    const difference = Math.abs(actual[k] - expected[k]);
    if (Number.isNaN(difference) || difference > worst) {
      worst = difference;
      at = k;
    }
    if (Number.isNaN(difference)) break;
  }
  assert.ok(worst <= tolerance, `${what}: max abs diff ${worst} at ${at} (${actual[at]} vs ${expected[at]}) > ${tolerance}`);
}
