// The playground's comparison in Chromium: pin a setting as A, change one, and A, B and B − A
// are drawn side by side; every cell's read-out (and the SVG figure's cells) holds the
// engine's numbers for A and B and their float32 difference; the link restores A and B; a
// text with another token count is refused in words; B's failing settings grey the comparison as
// they grey the matrix; Unpin leaves; a link's bad A is named.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  TIMEOUT_MS, downloadOf, figureFiles, gloveInput, nodeEngine, openPage, startSuite, waitForHash, waitForRows,
} from './helpers.mjs';

const TEXT = 'The cat sat on the mat';
const SENTENCE = '[data-testid="sentence-input"]';
const TEXT_HASH = `#t=${encodeURIComponent(TEXT)}`;
const COMPARE = '[data-testid="compare-heatmap"]';
// [PNG, SVG] of the comparison: disabled?
const comparisonExportsDisabled = (page) => Promise.all(['#compare-png', '#compare-svg'].map((button) => page.isDisabled(button)));

let suite;
before(async () => { suite = await startSuite(); });
after(async () => { await suite?.close(); });

// Waits until the comparison shows its three panels of `rows` rows, under a summary that includes `summary`.
async function waitForComparison(page, rows, summary = '') {
  await page.waitForFunction(({ selector, expected, words }) => {
    const canvas = document.querySelector(selector);
    return canvas.dataset.heads === '3' && canvas.dataset.rows === String(expected) &&
      document.querySelector('[data-testid="compare-summary"]').textContent.includes(words);
  }, { selector: COMPARE, expected: rows, words: summary }, { timeout: TIMEOUT_MS });
}

// Every cell's read-out of the comparison's first `rows` rows, walked with the arrow keys from the
// top left: {a, b, difference}, each rows×n row-major, as the tooltip's data attributes hold them.
async function readComparison(page, n, rows = n) {
  await page.focus(COMPARE);
  for (let k = 0; k < n; ++k) await page.keyboard.press('ArrowUp');
  const read = { a: new Array(rows * n), b: new Array(rows * n), difference: new Array(rows * n) };
  for (let i = 0; i < rows; ++i) {
    for (let step = 0; step < n; ++step) {
      const j = i % 2 === 0 ? step : n - 1 - step;   // a snake: right along even rows, left along odd ones
      const cell = await page.evaluate(() => ({ ...document.querySelector('[data-testid="compare-tooltip"]').dataset }));
      assert.deepEqual([cell.panel, cell.query, cell.key], ['0', String(i), String(j)]);
      read.a[i * n + j] = Number(cell.a);
      read.b[i * n + j] = Number(cell.b);
      read.difference[i * n + j] = Number(cell.difference);
      if (step < n - 1) await page.keyboard.press(i % 2 === 0 ? 'ArrowRight' : 'ArrowLeft');
    }
    await page.keyboard.press('ArrowDown');
  }
  return read;
}

// The engine's weights of A (no mask) and B (causal) for TEXT, and B − A in float32.
async function expectedWeights() {
  const { tokens, x } = await gloveInput(TEXT);
  const engine = await nodeEngine();
  const a = engine.selfAttention(x, {}).weights[0].data;
  const b = engine.selfAttention(x, { causal: true }).weights[0].data;
  return { n: tokens.length, tokens, a: [...a], b: [...b], difference: [...b].map((v, k) => Math.fround(v - a[k])) };
}

describe('compare', () => {
  test('pin, change the mask: A, B and B − A side by side, with the engine’s numbers in every read-out and in the SVG', async () => {
    const expected = await expectedWeights();
    const { n } = expected;
    const { page, close } = await openPage(suite, TEXT_HASH);
    await waitForRows(page, n);
    assert.equal(await page.isVisible('[data-testid="compare-panel"]'), false);
    await page.click('[data-testid="pin"]');
    assert.equal(await page.getAttribute('[data-testid="pin"]', 'aria-pressed'), 'true');
    await page.check('#causal');
    await waitForComparison(page, n, 'causal mask');
    assert.match(await page.textContent('[data-testid="compare-summary"]'), /B differs from A in causal mask \(off → on\)\./);
    await page.waitForFunction(() => !document.getElementById('compute-status').textContent.startsWith('Computing'), null, { timeout: TIMEOUT_MS });
    assert.match(await page.textContent('#compute-status'), /^6 × 6, 1 head \(engine/, 'the status line is B’s again');

    const read = await readComparison(page, n);
    assert.deepEqual(read.a, expected.a, 'A: the engine’s weights without a mask');
    assert.deepEqual(read.b, expected.b, 'B: the engine’s weights under the causal mask');
    assert.deepEqual(read.difference, expected.difference, 'B − A: their float32 difference');
    assert.ok(read.difference.some((v) => v < 0) && read.difference.some((v) => v > 0), 'B − A has both signs');
    // the walk ends on the last row's first cell; B's panel and B − A's read the same three numbers there
    const last = (n - 1) * n;
    for (const panel of ['1', '2']) {
      await page.keyboard.press('PageDown');
      const cell = await page.evaluate(() => ({ ...document.querySelector('[data-testid="compare-tooltip"]').dataset }));
      assert.deepEqual([cell.panel, cell.query, cell.key], [panel, String(n - 1), '0']);
      assert.deepEqual([cell.a, cell.b, cell.difference].map(Number), [expected.a[last], expected.b[last], expected.difference[last]]);
    }

    // the difference's legend: a symmetric, signed range
    const largest = Math.max(...expected.difference.map(Math.abs));
    const heading = await page.textContent('[data-testid="difference-legend-title"]');
    assert.match(heading, /^B − A of the weights, −0\.\d+ to \+0\.\d+/);
    const [lo, hi] = heading.match(/−([\d.]+) to \+([\d.]+)/).slice(1).map(Number);
    assert.equal(lo, hi);
    assert.ok(Math.abs(hi - largest) < 1e-4, `${hi} vs ${largest}`);

    // the SVG figure: three panels whose cells hold the same numbers; the PNG draws it, at
    // twice its size, on opaque white
    const png = await downloadOf(page, '#compare-png');
    assert.equal(png.name, 'attention-comparison.png');
    assert.deepEqual([...png.bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    const file = await downloadOf(page, '#compare-svg');
    assert.equal(file.name, 'attention-comparison.svg');
    const drawn = await figureFiles(page, png, file);
    assert.deepEqual([drawn.png.width, drawn.png.height], [drawn.svg.width * 2, drawn.svg.height * 2]);
    for (const corner of drawn.png.corners) assert.deepEqual(corner, [255, 255, 255, 255]);
    const figure = await page.evaluate((text) => {
      const svg = new DOMParser().parseFromString(text, 'image/svg+xml');
      return {
        error: svg.querySelector('parsererror')?.textContent ?? null,
        panels: [...svg.querySelectorAll('g.cells')].map((cells) => [...cells.querySelectorAll('rect > title')].map((t) => t.textContent)),
        text: [...svg.querySelectorAll('text')].map((t) => t.textContent),
      };
    }, file.bytes.toString('utf8'));
    assert.equal(figure.error, null);
    assert.equal(figure.panels.length, 3);
    const number = (title) => Math.fround(Number(title.split(': ').pop()));
    const cellOf = (title) => title.match(/query #(\d+) .*, key #(\d+)/).slice(1).map(Number);
    assert.deepEqual(figure.panels[0].map(number), expected.a);
    assert.deepEqual(figure.panels[1].map(number), expected.b.filter((_, k) => k % n <= Math.floor(k / n)), 'B: its unmasked cells');
    assert.deepEqual(figure.panels[2].map(number), expected.difference);
    assert.deepEqual(cellOf(figure.panels[2][n + 2]), [1, 2]);
    for (const label of ['A (pinned): head 1 of 1', 'B (now): head 1 of 1', 'B − A', '← query', 'key →', 'A and B: attention weight']) {
      assert.ok(figure.text.includes(label), `the SVG says “${label}”`);
    }
    for (const token of expected.tokens) assert.ok(figure.text.includes(token.text), `the SVG labels “${token.text}”`);
    await close();
  });

  test('settings of B that fail grey the comparison as they grey the matrix, until B works again', async () => {
    const { n } = await expectedWeights();
    const { page, close } = await openPage(suite, `${TEXT_HASH}&tw=linear&do=4`);
    await waitForRows(page, n);
    await page.click('[data-testid="pin"]');
    await page.check('#causal');
    await waitForComparison(page, n, 'causal mask');
    // the frames greyed (.stale, whose canvas is drawn at opacity 0.3): [the matrix's, the comparison's]
    const greyed = () => page.evaluate(() => ['attention-heatmap', 'compare-heatmap'].map((id) => {
      const canvas = document.querySelector(`[data-testid="${id}"]`);
      return [canvas.parentElement.classList.contains('stale'), getComputedStyle(canvas).opacity];
    }));
    assert.deepEqual(await greyed(), [[false, '1'], [false, '1']]);
    await page.fill('#heads', '3');  // 3 heads cannot split d_out = 4
    await page.waitForFunction(() => document.getElementById('compute-status').classList.contains('error'), null, { timeout: TIMEOUT_MS });
    assert.deepEqual(await greyed(), [[true, '0.3'], [true, '0.3']], 'both greyed');
    assert.deepEqual(await comparisonExportsDisabled(page), [true, true]);
    // the summary names what the greyed B differs in, not the page's settings that failed (it
    // listed the failing heads, or said "the same settings as A" for a B that differed)
    const summary = () => page.textContent('#compare-summary');
    assert.match(await summary(), /B differs from A in causal mask \(off → on\)\. The page's settings now fail \(the status line says why\): what is greyed is the last B that worked\.$/);
    assert.doesNotMatch(await summary(), /heads/);
    await page.fill('#heads', '2');
    await page.waitForFunction(() => !document.querySelector('.heatmap-frame.stale'), null, { timeout: TIMEOUT_MS });
    assert.deepEqual(await greyed(), [[false, '1'], [false, '1']], 'both current again');
    assert.deepEqual(await comparisonExportsDisabled(page), [false, false]);
    assert.match(await summary(), /B differs from A in number of heads \(1 → 2\); causal mask \(off → on\)\.$/);
    await close();
  });

  test('generating step by step, B and B − A have only the rows fed so far: rows 0–2 at step 2, the engine\'s numbers', async () => {
    const expected = await expectedWeights();
    const { n } = expected;
    const fed = 3;
    const { page, close } = await openPage(suite, `${TEXT_HASH}&gen=1&gs=${fed - 1}&a=${encodeURIComponent(TEXT_HASH.slice(1))}`);
    await waitForComparison(page, fed, 'generation step by step (off → on)');
    assert.ok(await page.getAttribute(COMPARE, 'data-pending'), 'the rows not fed yet are outlined');
    const read = await readComparison(page, n, fed);
    assert.deepEqual(read.a, expected.a.slice(0, fed * n), 'A: the engine\'s weights without a mask, rows 0–2');
    assert.deepEqual(read.b, expected.b.slice(0, fed * n), 'B: the causal weights of the queries fed');
    assert.deepEqual(read.difference, expected.difference.slice(0, fed * n), 'B − A of those rows');
    // the cursor stops at the last row fed
    await page.keyboard.press('ArrowDown');
    assert.equal(await page.getAttribute('[data-testid="compare-tooltip"]', 'data-query'), String(fed - 1));
    await close();
  });

  test('the link restores A and B, and Unpin leaves the comparison', async () => {
    const expected = await expectedWeights();
    const { n } = expected;
    const first = await openPage(suite, TEXT_HASH);
    await waitForRows(first.page, n);
    await first.page.click('[data-testid="pin"]');
    await first.page.check('#causal');
    await waitForComparison(first.page, n, 'causal mask');
    await waitForHash(first.page, 'a=');
    const hash = new URL(first.page.url()).hash;
    assert.match(hash, /c=1/);
    await first.close();

    const { page, close } = await openPage(suite, hash);
    await waitForComparison(page, n, 'causal mask');
    assert.equal(await page.getAttribute('[data-testid="pin"]', 'aria-pressed'), 'true');
    const read = await readComparison(page, n);
    assert.deepEqual(read.difference, expected.difference, 'the reopened link’s B − A');
    await page.click('[data-testid="unpin"]');
    assert.equal(await page.isVisible('[data-testid="compare-panel"]'), false);
    assert.equal(await page.getAttribute('[data-testid="pin"]', 'aria-pressed'), 'false');
    await page.waitForFunction(() => !location.hash.includes('a='), null, { timeout: TIMEOUT_MS });
    assert.match(page.url(), /c=1/, 'B stays');
    await close();
  });

  test('a text with another token count is not compared, and the page says why', async () => {
    const { n } = await expectedWeights();
    const { page, close } = await openPage(suite, TEXT_HASH);
    await waitForRows(page, n);
    await page.click('[data-testid="pin"]');
    await waitForComparison(page, n);  // A and B drawn, which the other count must clear
    assert.deepEqual(await comparisonExportsDisabled(page), [false, false]);
    await page.fill(SENTENCE, `${TEXT} again`);
    await waitForRows(page, n + 1);
    await page.waitForFunction(() => /^A has 6 tokens and B has 7: /.test(document.querySelector('[data-testid="compare-summary"]').textContent),
      null, { timeout: TIMEOUT_MS });
    assert.equal(await page.getAttribute(COMPARE, 'data-rows'), '0', 'nothing drawn');
    assert.deepEqual(await comparisonExportsDisabled(page), [true, true], 'nothing to export');
    // same count, other words: compared, and the summary names the positions that differ
    await page.fill(SENTENCE, 'The dog sat on the mat');
    await waitForComparison(page, n, 'The texts differ');
    assert.deepEqual(await comparisonExportsDisabled(page), [false, false]);
    // B's settings fail: the comparison drawn is of the earlier ones, and is not exported
    await page.fill('#heads', '7');
    await page.waitForFunction(() => document.getElementById('compute-status').classList.contains('error'), null, { timeout: TIMEOUT_MS });
    assert.deepEqual(await comparisonExportsDisabled(page), [true, true], 'B failed');
    assert.match(await page.textContent('[data-testid="compare-summary"]'),
      /The texts differ at 1 position \(#1 “cat” → “dog”\): rows and columns are labelled with B's tokens\./);
    await close();
  });

  test('a link whose A has key/value heads that cannot serve its heads: the page says why, in its own words', async () => {
    const pinned = 'tw=linear&do=8&h=4&kv=3';
    const { page, close } = await openPage(suite, `${TEXT_HASH}&tw=linear&do=8&h=4&a=${encodeURIComponent(pinned)}`);
    await page.waitForFunction(() => document.querySelector('[data-testid="compare-summary"]').textContent.startsWith('A\'s settings'),
      null, { timeout: TIMEOUT_MS });
    assert.equal(await page.textContent('[data-testid="compare-summary"]'), 'A\'s settings do not work together: 3 key/value heads ' +
      'cannot serve 4 query heads evenly: each key/value head serves the same number of query heads, so choose 1, 2, 4 ' +
      '(or leave the box empty for one per head).');
    assert.equal(await page.getAttribute(COMPARE, 'data-rows'), '0', 'nothing drawn');
    assert.deepEqual(await comparisonExportsDisabled(page), [true, true], 'nothing to export');
    assert.match(await page.getAttribute('#compare-png', 'title'), /No comparison of the page's settings is shown/);
    await close();
  });

  test('a link with a bad A: the notice names A’s problems, and the rest of A is compared', async () => {
    const { page, close } = await openPage(suite, `${TEXT_HASH}&c=1&a=${encodeURIComponent('h=0&w=%ZZ')}`);
    await waitForComparison(page, 6, 'causal mask');
    const notices = await page.textContent('#notices');
    assert.match(notices, /A: h \(number of heads\) must be a whole number from 1 to 16, got “0”/);
    assert.match(notices, /A: malformed percent-encoding in “w=%ZZ”/);
    assert.match(await page.textContent('[data-testid="compare-summary"]'),
      /B differs from A in text \(Your journey starts with one step → The cat sat on the mat\); causal mask \(off → on\)\. The texts differ at 6 positions/);
    await close();
  });
});
