// Shared set-up of the browser suites: dist/ served under a sub-path on 127.0.0.1, Debian's
// Chromium through playwright-core, pages that record console errors, page errors and any
// request that would leave 127.0.0.1 (such requests are also aborted), and the engine plus
// the page's own tokenizer and embeddings in Node to compute the expected numbers.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serveDist } from '../../scripts/serve.mjs';
import { decodeGlove, embedTokens, GLOVE_FILES } from '../../web/embeddings.js';
import { tokenize } from '../../web/tokenizer.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const SUB_PATH = '/some/sub/path/';
const HOST = '127.0.0.1';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];
export const DESKTOP = { width: 1400, height: 1000 };
export const TIMEOUT_MS = 20_000;

/** Serves dist/ and starts Chromium: {base, browser, close()}. */
export async function startSuite() {
  const server = await serveDist({ port: 0, prefix: SUB_PATH });
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  return {
    base: `http://${HOST}:${server.address().port}${SUB_PATH}`,
    browser,
    async close() {
      await browser.close();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * Opens the page (with `hash`) in a fresh context and waits for the engine: {page, problems,
 * close()}; close() asserts that nothing went to the console as an error and that no request
 * left 127.0.0.1, unless `expectErrors`.
 */
export async function openPage(suite, hash = '', { viewport = DESKTOP, colorScheme = 'light', waitForEngine = true,
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
  await page.goto(`${suite.base}${hash}`);
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

/** Waits until the heatmap shows `rows` rows (and, by default, nothing is computing). */
export async function waitForRows(page, rows, timeout = TIMEOUT_MS) {
  await page.waitForFunction((expected) => {
    const canvas = document.querySelector('[data-testid="attention-heatmap"]');
    const status = document.getElementById('compute-status').textContent;
    return canvas.dataset.rows === String(expected) && !status.startsWith('Computing');
  }, rows, { timeout });
}

/** Waits until the URL hash holds `fragment` (the page writes it shortly after a change). */
export async function waitForHash(page, fragment) {
  await page.waitForFunction((part) => location.hash.includes(part), fragment, { timeout: TIMEOUT_MS });
}

let engine = null;
/** The engine module from dist/, loaded once per process. */
export async function nodeEngine() {
  if (!engine) {
    const { default: createAttention } = await import(join(root, 'dist', 'wasm', 'attention.mjs'));
    engine = await createAttention();
  }
  return engine;
}

let glove = null;
/** x for `text` with GloVe, as the page builds it: {tokens, x, unknown}. */
export function gloveInput(text) {
  if (!glove) {
    const bytes = readFileSync(join(root, 'dist', GLOVE_FILES.vectors));
    const vocabulary = readFileSync(join(root, 'dist', GLOVE_FILES.vocabulary), 'utf8');
    glove = decodeGlove(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength), vocabulary);
  }
  const tokens = tokenize(text);
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
