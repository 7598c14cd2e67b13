// Generation step by step in Chromium: stepping forward and back shows one row per step with
// the engine's causal numbers (hovered and read with the keyboard), the decoding step equal
// to the full matrix's row; a window with a sink evicts and the cache's bytes stop growing;
// play and pause; the step in the link. And the step-by-step view walking through the
// matrix's row (its weights are the hovered heatmap cells'), with the tutorial's version a
// switch away.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { PRESETS } from '../../web/playground/presets.js';
import { PHONE, TIMEOUT_MS, assertClose, nodeEngine, openPage, startSuite, waitForHash, waitForRows } from './helpers.mjs';

const HEATMAP = '[data-testid="attention-heatmap"]';
const TOOLTIP = '[data-testid="heatmap-tooltip"]';
const PANEL = '[data-testid="generation"]';
const TOKENS = 6;                // "Your journey starts with one step"
const TOLERANCE = 1e-6;          // the page and Node run the same wasm
const SCAN_STEPS = 14;           // hover points per side of the canvas
const PAUSE_WATCH_MS = 1500;     // two play intervals: no step may come while paused
// The tutorial's 3-d vectors, two heads over torch.rand(3, 4) projections, RoPE.
const PROJECTED = '#src=journey&tw=rand&do=4&h=2&pe=rope';

let suite;
before(async () => { suite = await startSuite(); });
after(async () => { await suite?.close(); });

const journeyX = () => PRESETS.journey.text.toLowerCase().split(' ').map((word) => PRESETS.journey.vectors[word]);

// selfAttention in Node with the page's projections for PROJECTED (torch.rand(3, 4) three
// times after torch.manual_seed(123)) and the given options.
async function projectedResult(options) {
  const engine = await nodeEngine();
  const generator = engine.torchGenerator(123);
  const [wq, wk, wv] = [0, 1, 2].map(() => generator.rand(3, 4));
  return engine.selfAttention(journeyX(), { heads: 2, positional: { type: 'rope' }, wq, wk, wv, ...options });
}

// The generation panel's numbers once it shows `step`.
async function generationAt(page, step) {
  await page.waitForFunction((expected) => document.querySelector('[data-testid="generation"]').dataset.step === String(expected),
    step, { timeout: TIMEOUT_MS });
  await waitForRows(page, step + 1);
  return page.evaluate(() => {
    const panel = document.querySelector('[data-testid="generation"]');
    return {
      cached: Number(panel.dataset.cached), evicted: Number(panel.dataset.evicted),
      fp16: Number(panel.dataset.bytesFp16), fp32: Number(panel.dataset.bytesFp32),
      evictedCells: [...document.querySelectorAll('[data-testid="cache-table"] tbody tr:first-child td[data-state="evicted"]')]
        .map((cell) => [Number(cell.dataset.token), Number(cell.dataset.evictedAt)]),
      maxDifference: Number(document.querySelector('[data-testid="generation-check"]').dataset.maxDifference),
      rows: document.querySelector('[data-testid="generation-check"]').decodedRows
        .map(({ head, weights }) => ({ head, weights: Array.from(weights) })),
    };
  });
}

// Hovers a grid of points over the heatmap: the tooltip of every cell found.
async function scanTooltips(page) {
  const box = await page.locator(HEATMAP).boundingBox();
  const found = new Map();
  for (let a = 0; a < SCAN_STEPS; ++a) {
    for (let b = 0; b < SCAN_STEPS; ++b) {
      await page.mouse.move(box.x + ((b + 0.5) / SCAN_STEPS) * box.width, box.y + ((a + 0.5) / SCAN_STEPS) * box.height);
      const tip = await page.evaluate((selector) => {
        const tooltip = document.querySelector(selector);
        return tooltip.hidden || tooltip.dataset.query === undefined ? null : { ...tooltip.dataset };
      }, TOOLTIP);
      if (tip) found.set(`${tip.head}:${tip.query}:${tip.key}`, tip);
    }
  }
  await page.mouse.move(0, 0);
  return [...found.values()];
}

// The first panel's rows not fed yet, as the canvas draws them: {box: [x, y, width, height] in
// CSS pixels, or null; dashes: the pixels in the page's muted colour down the outline's left edge,
// of the band's height; named: whether any pixel in the band's middle row is that colour (its text)}.
// With `at`, a box of an earlier step, measured there whether or not the canvas outlines one now.
function pendingOnCanvas(page, at = null) {
  return page.$eval(HEATMAP, (canvas, given) => {
    if (given === null && canvas.dataset.pending === undefined) return { box: null };
    const box = given ?? canvas.dataset.pending.split(' ').map(Number);
    const [x, y, width, height] = box;
    const ratio = canvas.width / canvas.clientWidth;
    const muted = getComputedStyle(document.documentElement).getPropertyValue('--muted').trim()
      .match(/[0-9a-f]{2}/gi).map((pair) => parseInt(pair, 16));
    const isMuted = (data, k) => [0, 1, 2].every((c) => Math.abs(data[k + c] - muted[c]) <= 24) && data[k + 3] > 200;
    const context = canvas.getContext('2d');
    const edge = context.getImageData(Math.floor((x + 0.5) * ratio), Math.round(y * ratio), 1, Math.round(height * ratio)).data;
    const middle = context.getImageData(Math.round(x * ratio), Math.round((y + height / 2) * ratio), Math.round(width * ratio), 1).data;
    let dashes = 0;
    for (let k = 0; k < edge.length; k += 4) if (isMuted(edge, k)) dashes += 1;
    let named = false;
    for (let k = 4 * Math.round(4 * ratio); k < middle.length - 16 * ratio; k += 4) named ||= isMuted(middle, k);
    return { box, dashes: dashes / Math.round(height * ratio), named };
  }, at);
}

// The tooltips of row `query`, keys 0..count−1, read with the keyboard: focus puts the cursor
// on the selected query's first cell, the right arrow moves along the row.
async function rowByKeyboard(page, count) {
  await page.focus(HEATMAP);
  const tips = [];
  for (let j = 0; j < count; ++j) {
    if (j > 0) await page.keyboard.press('ArrowRight');
    tips.push(await page.evaluate((selector) => ({ ...document.querySelector(selector).dataset }), TOOLTIP));
  }
  return tips;
}

describe('generation step by step', () => {
  test('stepping forward and back: rows 0..step, hovered values the engine’s causal ones, the decoded row equal', async () => {
    const { page, close } = await openPage(suite, `${PROJECTED}&gen=1`);
    const expected = await projectedResult({ causal: true });
    await generationAt(page, 0);
    assert.equal(await page.isChecked('#causal'), true, 'generation is causal');
    assert.equal(await page.isDisabled('#causal'), true);
    for (let step = 1; step <= 3; ++step) {
      await page.click('[data-testid="generation-forward"]');
      const shown = await generationAt(page, step);
      assert.equal(shown.cached, step + 1);
      assert.ok(shown.maxDifference <= TOLERANCE, `step ${step}: decoded row differs by ${shown.maxDifference}`);
      // the decoded rows against row `step` of the causal matrix computed in Node, keys 0 … step
      assert.deepEqual(shown.rows.map(({ head }) => head), [0, 1]);
      for (const { head, weights } of shown.rows) {
        const row = expected.weights[head].data.subarray(step * TOKENS, step * TOKENS + step + 1);
        assert.equal(weights.length, step + 1);
        weights.forEach((weight, key) => assert.ok(Math.abs(weight - row[key]) <= TOLERANCE, `step ${step}, head ${head}, key ${key}`));
      }
    }
    await waitForHash(page, 'gs=3');
    // rows 4 and 5, not fed yet: outlined with dashes (4 on, 3 off) and named
    const band = await pendingOnCanvas(page);
    assert.ok(band.box !== null, 'the rows to come are outlined');
    assert.ok(band.dashes > 0.4 && band.dashes < 0.8, `dashes down the outline's left edge: ${band.dashes} of it in the muted colour`);
    assert.equal(band.named, true, 'the band names its rows');
    const pendingAtStep3 = band.box;
    // the cached entries are tinted translucently, so the cache table's scroll shadow shows through them
    const tint = await page.$eval('#cache-table td.cached', (cell) => getComputedStyle(cell).backgroundColor);
    assert.match(tint, /^rgba\(.*, 0\.\d+\)$/, `a cached entry's background: ${tint}`);
    const tips = await scanTooltips(page);
    const rows = new Set(tips.map((tip) => Number(tip.query)));
    assert.deepEqual([...rows].sort(), [0, 1, 2, 3], 'the rows fed so far, and no other');
    for (const tip of tips) {
      const at = Number(tip.query) * TOKENS + Number(tip.key);
      const weight = expected.weights[Number(tip.head)].data[at];
      assert.ok(Math.abs(Number(tip.weight) - weight) <= TOLERANCE, `head ${tip.head}, ${tip.query}, ${tip.key}: ${tip.weight} vs ${weight}`);
    }
    await page.click('[data-testid="generation-back"]');
    await generationAt(page, 2);
    await page.focus('[data-testid="generation-forward"]');
    await page.keyboard.press('Enter');
    await generationAt(page, 3);
    await page.keyboard.press('Enter');
    await page.keyboard.press('Enter');
    await generationAt(page, 5);
    // the last token: forward stays there, so one step back is the one before it (from a
    // forward that wrapped to the first token, or went past the last, it would not be)
    await page.keyboard.press('Enter');
    await page.click('[data-testid="generation-back"]');
    await generationAt(page, 4);
    await page.focus('[data-testid="generation-forward"]');
    await page.keyboard.press('Enter');
    assert.equal((await generationAt(page, 5)).cached, TOKENS);
    assert.equal((await pendingOnCanvas(page)).box, null, 'every row fed: nothing outlined');
    const fed = await pendingOnCanvas(page, pendingAtStep3);
    assert.ok(fed.dashes < 0.05 && !fed.named, `rows 4 and 5 drawn where their outline was: ${fed.dashes} of its edge muted`);
    await close();
  });

  test('the profile at a step: the keys\' mean weight over the queries fed so far, and the note says so', async () => {
    const { page, close } = await openPage(suite, `${PROJECTED}&gen=1&gs=3&q=3`);
    await generationAt(page, 3);
    const expected = await projectedResult({ causal: true });
    const fed = 4;
    const means = Array.from({ length: TOKENS }, (_, j) => {
      let sum = 0;
      for (const head of expected.weights) for (let i = 0; i < fed; ++i) sum += head.data[i * TOKENS + j];
      return sum / (fed * expected.weights.length);
    });
    const row = Array.from({ length: TOKENS }, (_, j) => (expected.weights[0].data[3 * TOKENS + j] + expected.weights[1].data[3 * TOKENS + j]) / 2);
    await page.waitForFunction(() => document.getElementById('profile-note').textContent.includes('#0–#3'), null, { timeout: TIMEOUT_MS });
    const shown = (name) => page.getAttribute('#profile', `data-${name}`).then((text) => text.split(',').map(Number));
    assertClose(await shown('column'), means, TOLERANCE, 'the keys\' mean over queries 0–3');
    assertClose(await shown('row'), row, TOLERANCE, 'query 3\'s row, the mean of the two heads');
    assert.deepEqual((await shown('column')).slice(fed), [0, 0], 'keys not fed yet receive nothing');
    assert.equal(await page.textContent('[data-testid="profile-note"]'), 'Keys by position (x), attention weight (y). ' +
      'Both lines are the mean of the 2 heads on display. The keys\' mean is over the queries fed so far, #0–#3.');
    await close();
  });

  test('a query not fed yet: a link\'s becomes the step\'s token, a clicked one feeds the tokens up to it', async () => {
    const { page, close } = await openPage(suite, `${PROJECTED}&gen=1&gs=2&q=5`);
    const expected = await projectedResult({ causal: true });
    // the walk-through of head 1 (all heads shown: the first) and the profile's row, at `query`
    const walkAt = async (query) => {
      await page.waitForFunction((q) => document.getElementById('steps-summary').textContent.startsWith(`Query #${q} `), query,
        { timeout: TIMEOUT_MS });
      const weights = await page.$$eval('[data-testid="steps-table"] tbody tr', (rows) => rows.map((row) => Number(row.cells[3].dataset.value)));
      assertClose(weights, Array.from(expected.weights[0].data.subarray(query * TOKENS, (query + 1) * TOKENS)), TOLERANCE,
        `the walk-through's weights, row ${query} of the causal matrix`);
      const profile = (await page.getAttribute('#profile', 'data-row')).split(',').map(Number);
      const row = Array.from({ length: TOKENS }, (_, j) => (expected.weights[0].data[query * TOKENS + j] + expected.weights[1].data[query * TOKENS + j]) / 2);
      assertClose(profile, row, TOLERANCE, `the profile's row ${query}`);
    };
    await generationAt(page, 2);
    await waitForHash(page, 'q=2');
    assert.equal(await page.inputValue('#query'), '2', 'the link\'s query 5, not fed at step 2, became the step\'s token');
    await walkAt(2);
    await page.click('#tokens button.token >> text=step');
    await generationAt(page, 5);
    await waitForHash(page, 'gs=5');
    assert.equal(new URLSearchParams((await page.evaluate(() => location.hash)).slice(1)).get('q'), '5');
    await walkAt(5);
    await close();
  });

  test('the lines of a step: queries fed so far have lines, the others none and are named', async () => {
    const text = 'Your journey starts with one step, and then another';
    const { page, close } = await openPage(suite, `#t=${encodeURIComponent(text)}&gen=1&gs=3&q=3`);
    const tokens = 10;
    await generationAt(page, 3);
    await page.waitForFunction((n) => document.querySelectorAll('#lines text.token').length === 2 * n, tokens, { timeout: TIMEOUT_MS });
    await page.locator('.lines-frame').scrollIntoViewIfNeeded();
    assert.equal(await page.textContent('#lines-status'),
      'Hover or focus a token to keep only its lines; click a query to select it. Queries #4–#9 are not fed yet: they have no lines.');
    const pending = await page.$$eval('#lines text.token.pending', (texts) => texts.map((t) => Number(t.getAttribute('aria-label').match(/#(\d+)/)[1])));
    assert.deepEqual(pending, [4, 5, 6, 7, 8, 9], 'the queries not fed yet are muted');
    // each query focused alone: the canvas's painted pixels (its lines), none for a query not fed yet
    const painted = [];
    for (let query = 0; query < tokens; ++query) {
      painted.push(await page.evaluate((position) => {
        const text = [...document.querySelectorAll('#lines text.token[role="button"]')][position];
        text.dispatchEvent(new FocusEvent('focus'));
        const canvas = document.getElementById('lines-links');
        const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
        let count = 0;
        for (let k = 3; k < data.length; k += 4) if (data[k] > 0) count += 1;
        return count;
      }, query));
    }
    assert.ok(painted.slice(0, 4).every((count) => count > 0), `queries #0–#3 have lines: ${painted}`);
    assert.deepEqual(painted.slice(4), [0, 0, 0, 0, 0, 0], `queries #4–#9 have none: ${painted}`);
    await close();
  });

  test('a window of 2 with 1 sink evicts: tokens leave at token + 2, the bytes stop growing at 3 tokens', async () => {
    const { page, close } = await openPage(suite, '#src=journey&gen=1&w=2&sk=1');
    // one head of width 3: a token's key and value take 2 · 3 · 2 bytes in fp16, 2 · 3 · 4 in fp32
    const cached = [1, 2, 3, 3, 3, 3];
    const seen = [];
    for (let step = 0; step < TOKENS; ++step) {
      if (step > 0) await page.click('[data-testid="generation-forward"]');
      seen.push(await generationAt(page, step));
    }
    assert.deepEqual(seen.map((shown) => shown.cached), cached);
    assert.deepEqual(seen.map((shown) => shown.evicted), [0, 0, 0, 1, 2, 3]);
    assert.deepEqual(seen.map((shown) => shown.fp16), cached.map((count) => 12 * count));
    assert.deepEqual(seen.map((shown) => shown.fp32), cached.map((count) => 24 * count));
    assert.deepEqual(seen[5].evictedCells, [[1, 3], [2, 4], [3, 5]], 'token 0 is a sink; tokens 1–3 left at steps 3–5');
    assert.ok(seen.every((shown) => shown.maxDifference <= TOLERANCE));
    assert.match(await page.textContent('#generation-summary'), /stops growing at 3 tokens/);
    await close();
  });

  test('on a phone the cache table, wider than its box, shows its newest token at every step', async () => {
    const { page, close } = await openPage(suite, '#src=journey&gen=1&h=2&tw=linear&do=4', { viewport: PHONE });
    for (let step = 0; step < TOKENS; ++step) {
      if (step > 0) await page.click('[data-testid="generation-forward"]');
      await page.waitForFunction((s) => document.getElementById('generation').dataset.step === String(s), step,
        { timeout: TIMEOUT_MS });
      const view = await page.evaluate(() => {
        const box = document.querySelector('[data-testid="cache-table"]').closest('.table-scroll');
        const newest = [...document.querySelectorAll(`[data-testid="cache-table"] td.newest`)];
        const frame = box.getBoundingClientRect();
        return {
          wider: box.scrollWidth > box.clientWidth,
          inView: newest.length > 0 && newest.every((cell) => {
            const rect = cell.getBoundingClientRect();
            return rect.left >= frame.left - 1 && rect.right <= frame.right + 1;
          }),
        };
      });
      assert.ok(view.inView, `step ${step}: the newest token's cells are in the box`);
      if (step === TOKENS - 1) assert.ok(view.wider, 'the table is wider than a phone\'s box');
    }
    await close();
  });

  test('on a phone the cache table\'s first column stays in place while the table scrolls sideways, on the panel\'s colour', async () => {
    const { page, close } = await openPage(suite, `#src=journey&gen=1&gs=${TOKENS - 1}&h=2&tw=linear&do=4`, { viewport: PHONE });
    await generationAt(page, TOKENS - 1);
    // the x of the header row's first cell, of each row's name and of the first token's column, with the box scrolled to `left`
    const columnsAt = (left) => page.evaluate((scrollLeft) => {
      const box = document.querySelector('[data-testid="cache-table"]').closest('.table-scroll');
      box.scrollLeft = scrollLeft;
      const rows = [...box.querySelectorAll('tr')];
      return {
        scrollLeft: box.scrollLeft,
        first: rows.map((row) => row.cells[0].getBoundingClientRect().left),
        second: rows.map((row) => row.cells[1].getBoundingClientRect().left),
      };
    }, left);
    const start = await columnsAt(0);
    const end = await columnsAt(1e6);
    assert.ok(end.scrollLeft > 0, 'the table is wider than its box');
    assert.equal(start.first.length, 5, 'the tokens\' row and a key and a value row per key/value head');
    assert.deepEqual(end.first, start.first, 'the first column\'s cells keep their x');
    end.second.forEach((x, row) => assert.ok(Math.abs(start.second[row] - end.scrollLeft - x) < 1,
      `row ${row}: the second column moved by the scroll`));
    for (const colorScheme of ['light', 'dark']) {
      await page.emulateMedia({ colorScheme });
      const colors = await page.evaluate(() => {
        const panel = getComputedStyle(document.querySelector('.panel-matrix')).backgroundColor;
        const cells = [...document.querySelectorAll('[data-testid="cache-table"] tr')]
          .map((row) => getComputedStyle(row.cells[0]).backgroundColor);
        return { panel, cells: [...new Set(cells)] };
      });
      assert.deepEqual(colors.cells, [colors.panel], `${colorScheme}: the first column is opaque, on the panel's colour`);
    }
    await close();
  });

  test('play steps on its own, pause stops it, and play runs to the last token', async () => {
    const { page, close } = await openPage(suite, '#src=journey&gen=1');
    await generationAt(page, 0);
    const play = '[data-testid="generation-play"]';
    await page.click(play);
    assert.equal(await page.getAttribute(play, 'aria-pressed'), 'true');
    await page.waitForFunction(() => Number(document.querySelector('[data-testid="generation"]').dataset.step) >= 2,
      null, { timeout: TIMEOUT_MS });
    await page.click(play);
    assert.equal(await page.getAttribute(play, 'aria-pressed'), 'false');
    const paused = Number(await page.inputValue('#generation-step'));
    await generationAt(page, paused);
    await page.waitForTimeout(PAUSE_WATCH_MS);
    assert.equal(await page.getAttribute(PANEL, 'data-step'), String(paused), 'no step while paused');
    await page.click(play);
    await generationAt(page, TOKENS - 1);
    await page.waitForFunction((selector) => document.querySelector(selector).getAttribute('aria-pressed') === 'false',
      play, { timeout: TIMEOUT_MS });
    assert.equal(await page.textContent(play), 'Play');
    await close();
  });

  test('the step is in the link: a link opens at its step, and a step set with the slider comes back', async () => {
    const { page, close } = await openPage(suite, '#src=journey&gen=1&gs=3&w=2');
    const first = await generationAt(page, 3);
    assert.equal(await page.inputValue('#generation-step'), '3');
    assert.equal(await page.inputValue('#generation-step-range'), '3');
    await page.locator('#generation-step-range').fill('4');
    await waitForHash(page, 'gs=4');
    assert.equal(await page.inputValue('#query'), '4', 'the newest token is the query');
    const atFour = await generationAt(page, 4);
    const hash = await page.evaluate(() => location.hash);
    await close();
    assert.notDeepEqual(atFour, first);
    const reopened = await openPage(suite, hash);
    assert.deepEqual(await generationAt(reopened.page, 4), atFour);
    assert.equal(await reopened.page.isChecked('#generate'), true);
    await reopened.page.uncheck('#generate');
    await waitForRows(reopened.page, TOKENS);
    await reopened.page.waitForFunction(() => !location.hash.includes('gen='), null, { timeout: TIMEOUT_MS });
    assert.equal(await reopened.page.isHidden(PANEL), true);
    assert.equal(await reopened.page.isChecked('#causal'), false, 'the causal box as it was');
    await reopened.close();
  });
});

describe('the step-by-step view follows the matrix', () => {
  test('RoPE, causal, projections, head 2: the table’s scores and weights are the heatmap’s row, the context the engine’s', async () => {
    const { page, close } = await openPage(suite, `${PROJECTED}&c=1&hv=2&q=3`);
    await waitForRows(page, TOKENS);
    await page.waitForFunction(() => {
      const table = document.querySelector('[data-testid="steps-table"]');
      return table.dataset.source === 'matrix' && table.tBodies[0].rows.length === 6;
    }, null, { timeout: TIMEOUT_MS });
    const table = await page.evaluate(() => [...document.querySelectorAll('[data-testid="steps-table"] tbody tr')]
      .map((row) => ({ key: row.cells[0].textContent, score: row.cells[2].dataset.value, weight: row.cells[3].dataset.value })));
    const tips = await rowByKeyboard(page, TOKENS);
    assert.deepEqual(tips.map((tip) => [tip.head, tip.query, tip.key]), table.map((row) => ['1', '3', row.key]));
    assert.deepEqual(table.map((row) => row.weight), tips.map((tip) => tip.weight), 'weights: the hovered cells’ numbers');
    assert.deepEqual(table.map((row) => row.score), tips.map((tip) => tip.score), 'scores: the hovered cells’ numbers');
    const hovered = (await scanTooltips(page)).filter((tip) => tip.query === '3' && tip.head === '1');
    assert.ok(hovered.length >= 3, `found only ${hovered.length} cells of row 3 by hovering`);
    for (const tip of hovered) assert.equal(tip.weight, table[Number(tip.key)].weight, `hovered key ${tip.key}`);
    const expected = await projectedResult({ causal: true });
    assertClose(table.map((row) => Number(row.weight)), Array.from(expected.weights[1].data.subarray(18, 24)), TOLERANCE, 'weights');
    assert.deepEqual(table.slice(4).map((row) => row.score), ['-Infinity', '-Infinity'], 'keys after the query are masked');
    const context = (await page.getAttribute('[data-testid="context-vector"]', 'data-values')).split(',').map(Number);
    assertClose(context, Array.from(expected.context.data.subarray(3 * 4 + 2, 3 * 4 + 4)), TOLERANCE, 'head 2’s context');
    assert.equal(await page.isHidden('#step-scale'), true, 'the tutorial’s scale belongs to its version');

    // the switch back to the tutorial's raw version: x_3 · x_j, unscaled, with every normalisation
    await page.selectOption('#step-source', 'tutorial');
    await waitForHash(page, 'sw=tutorial');
    await page.waitForFunction(() => document.querySelector('[data-testid="steps-table"]').dataset.source === 'tutorial',
      null, { timeout: TIMEOUT_MS });
    const x = journeyX();
    const dots = x.map((row) => row.reduce((sum, value, c) => sum + value * x[3][c], 0));
    const scores = await page.evaluate(() => [...document.querySelectorAll('[data-testid="steps-table"] tbody tr')]
      .map((row) => Number(row.cells[2].dataset.value)));
    assertClose(scores, dots, 1e-5, 'the tutorial’s scores x_3 · x_j');
    assert.equal(await page.isVisible('#step-scale'), true);
    await close();
  });
});
