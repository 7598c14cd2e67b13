// The step-by-step view against the tutorial's numbers and under overflow, the cost panel
// against engine.attentionMemory, a 4,096-token input (pooled, zoomable, and computed without
// freezing the page), the masked cells' hatching and its legend in both colour schemes,
// the profile's axis, and at phone width the options next to the matrix, the cost tables, the
// matrix's buttons and the shadows of a table that scrolls.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { COLOR_TABLE } from '../../web/shared/heatmap/colors.js';
import {
  DESKTOP, PHONE, TIMEOUT_MS, assertClose, gloveInput, longSampleText, nodeEngine, openPage, seedExample, startSuite, waitForRows,
} from './helpers.mjs';

const HEATMAP = '[data-testid="attention-heatmap"]';
const TOOLTIP = '[data-testid="heatmap-tooltip"]';
const FIXTURE_TOLERANCE = 1e-4;
const TOLERANCE = 1e-6;
const LONG_TOKENS = 4096;
const LONG_TIMEOUT_MS = 60_000;
// The longest the page's main thread may stop answering: 250 ms, or, when a loaded machine
// stretches its drawing (30 ms idle), three times what the page measured drawing took.
// Attention computed on the main thread would stall it for all of the engine's ~1 s.
const MAX_STALL_MS = 250;
const MAX_STALL_PER_DRAWING = 3;
const STALL_PROBE_MS = 10;
const ZOOMED_ROWS = 512;
const MIN_COLOR_DISTANCE = 50;   // RGB distance of the hatching's colours from viridis and from each other
const LINE_COLOR_SLACK = 12;     // antialiased pixels of the hatching's lines come this close to its colour
const MIN_HATCHED_PIXELS = 1000;
const TICK_SLACK_PX = 0.5;
const PROFILE_HEIGHT_PX = 150;  // views/profile.js's HEIGHT_PX
const PANEL_GAP_PX = 16;        // two panels one after the other: the layout's gap, 1rem
// the option groups' buttons, which a phone shows folded (option-groups.test.mjs)
const GROUP_HEADINGS = ['#weights-group-toggle', '#heads-group-toggle', '#mask-group-toggle', '#scores-group-toggle'];

const distance = (a, b) => Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
const VIRIDIS = Array.from({ length: COLOR_TABLE.length / 4 }, (_, k) => [...COLOR_TABLE.subarray(4 * k, 4 * k + 3)]);

let suite;
before(async () => { suite = await startSuite(); });
after(async () => { await suite?.close(); });

// The numbers of the steps table by column: [scores, sum, naive, softmax], each a number[].
async function stepColumns(page) {
  return page.evaluate(() => {
    const rows = [...document.querySelectorAll('[data-testid="steps-table"] tbody tr')];
    return [2, 3, 4, 5].map((column) => rows.map((row) => Number(row.cells[column].dataset.value)));
  });
}

describe('views', () => {
  test('step by step shows the tutorial’s scores, weights and context vector', async () => {
    const { page, close } = await openPage(suite, '#src=journey&sw=tutorial');
    await waitForRows(page, 6);
    const example = seedExample('your-journey-starts-with-one-step');
    assert.equal(await page.inputValue('#query'), String(example.query_index));
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="steps-table"] tbody tr').length === 6);
    const [scores, sum, naive, softmax] = await stepColumns(page);
    assertClose(scores, example.query_scores, FIXTURE_TOLERANCE, 'scores');
    assertClose(sum, example.query_weights_sum_normalized, FIXTURE_TOLERANCE, 'sum-normalised weights');
    assertClose(softmax, example.query_weights_softmax, FIXTURE_TOLERANCE, 'softmax weights');
    assertClose(naive, example.query_weights_softmax, FIXTURE_TOLERANCE, 'naive softmax weights');
    const context = (await page.getAttribute('[data-testid="context-vector"]', 'data-values')).split(',').map(Number);
    assertClose(context, example.query_context, FIXTURE_TOLERANCE, 'context vector');
    await close();
  });

  test('a large scale makes naive softmax overflow to NaN while softmax stays finite', async () => {
    const { page, close } = await openPage(suite, '#src=journey&sw=tutorial');
    await waitForRows(page, 6);
    await page.fill('#step-scale', '1000');
    await page.waitForFunction(() => document.getElementById('steps-summary').textContent.includes('scale 1000'),
      null, { timeout: TIMEOUT_MS });
    const [, , naive, softmax] = await stepColumns(page);
    assert.ok(naive.some(Number.isNaN), `naive softmax: ${naive}`);
    assert.ok(softmax.every(Number.isFinite), `softmax: ${softmax}`);
    assertClose([softmax.reduce((a, b) => a + b, 0)], [1], TOLERANCE, 'softmax row sum');
    const cells = await page.locator('[data-testid="steps-table"] td.overflow').allTextContents();
    assert.ok(cells.includes('NaN'), `cells marked as overflow: ${cells}`);
    assert.match(await page.locator('#steps-note').textContent(), /overflows float32/);
    await close();
  });

  test('the cost panel answers the 32K-token fp16 question with engine.attentionMemory, and a short input\'s flash row uses part of a tile', async () => {
    const { page, close } = await openPage(suite);
    await waitForRows(page, 6);
    const engine = await nodeEngine();
    const answer = page.locator('[data-testid="cost-answer"]');
    await answer.waitFor({ state: 'visible' });
    assert.equal(Number(await answer.getAttribute('data-bytes')), engine.attentionMemory({ n: 32768, bytesPerElement: 2 }));
    assert.match(await answer.textContent(), /32K tokens in fp16 needs 2\.00 GiB/);
    const rows = await page.locator('#cost-table tbody th').allTextContents();
    for (const label of ['1K', '2K', '4K', '8K', '16K', '32K', '64K', '128K']) assert.ok(rows.includes(label), `${label} in ${rows}`);
    const flash = await page.locator('#cost-table tbody tr.highlight td').nth(2).getAttribute('data-bytes');
    assert.equal(Number(flash), engine.attentionMemory({ n: 32768, kernel: 'flash' }));
    // the input's own row: 6 tokens use 6 rows of a tile, 6 scores and two numbers each (192 B),
    // near the full matrix's 144 B, not a whole tile's 32.1 KiB
    const current = page.locator('#cost-table tbody tr.current td');
    assert.equal(await page.textContent('#cost-table tbody tr.current th'), '6 (this input)');
    assert.deepEqual(await Promise.all([0, 2].map(async (cell) => Number(await current.nth(cell).getAttribute('data-bytes')))), [6 * 6 * 4, 6 * 8 * 4]);
    assert.equal(6 * 8 * 4, engine.attentionMemory({ n: 6, kernel: 'flash' }));
    await close();
  });

  test('at phone width both cost tables fit the panel, every column in sight, and the matrix\'s buttons one row', async () => {
    const { page, close } = await openPage(suite, '#tw=linear&do=16&h=8&kv=2', { viewport: PHONE });
    await waitForRows(page, 6);
    await page.locator('#kv-cache-table tbody tr').first().waitFor();
    for (const table of ['#cost-table', '#kv-cache-table']) {
      const { width, room } = await page.evaluate((selector) => {
        const element = document.querySelector(selector);
        return { width: element.getBoundingClientRect().width, room: element.parentElement.clientWidth };
      }, table);
      assert.ok(width <= room, `${table} is ${width} px wide in ${room} px`);
    }
    // the matrix panel's five buttons stay on one line
    const tops = await page.$$eval('[aria-label="Compare and export"] button', (buttons) => buttons.map((b) => b.getBoundingClientRect().top));
    assert.equal(tops.length, 5);
    assert.equal(new Set(tops).size, 1, `the buttons' tops: ${tops}`);
    // the step-by-step table is wider, and scrolls: a shadow at the edge says there is more
    const steps = await page.evaluate(() => {
      const box = document.querySelector('[data-testid="steps-table"]').closest('.table-scroll');
      return { scrollWidth: box.scrollWidth, width: box.clientWidth, background: getComputedStyle(box).backgroundImage,
        attachment: getComputedStyle(box).backgroundAttachment };
    });
    assert.ok(steps.scrollWidth > steps.width, `the steps table scrolls: ${steps.scrollWidth} px in ${steps.width} px`);
    assert.equal(steps.background.match(/radial-gradient/g)?.length, 2, 'a shadow at each edge');
    assert.equal(steps.attachment, 'local, local, scroll, scroll', 'covers that scroll with the table, shadows that stay');
    // the query's row is highlighted in a translucent colour, so the shadow shows through it,
    // and over the panel it looks as --accent-soft, in both colour schemes
    const hex = (color) => color.match(/[0-9a-f]{2}/gi).map((pair) => parseInt(pair, 16));
    for (const colorScheme of ['light', 'dark']) {
      await page.emulateMedia({ colorScheme });
      const row = await page.evaluate(() => {
        const cell = document.querySelector('[data-testid="steps-table"] tr.selected td');
        const styles = getComputedStyle(document.documentElement);
        return { cell: getComputedStyle(cell).backgroundColor, panel: styles.getPropertyValue('--panel').trim(),
          soft: styles.getPropertyValue('--accent-soft').trim() };
      });
      const [r, g, b, alpha] = row.cell.match(/[\d.]+/g).map(Number);
      assert.ok(alpha > 0 && alpha < 1, `${colorScheme}: the selected row's cells are translucent: ${row.cell}`);
      const over = hex(row.panel).map((base, k) => base + alpha * ([r, g, b][k] - base));
      hex(row.soft).forEach((channel, k) => assert.ok(Math.abs(over[k] - channel) <= 4,
        `${colorScheme}: ${over} over the panel, ${row.soft} wanted`));
    }
    await close();
  });

  test('on a phone the options follow the matrix\'s legend: the whole matrix and every group\'s heading share a screen', async () => {
    const { page, close } = await openPage(suite, '', { viewport: PHONE });
    await waitForRows(page, 6);
    const boxes = await page.evaluate((headings) => Object.fromEntries(
      ['.panel-matrix', '.panel-options', '.panel-profile', '.panel-lines', '[data-testid="attention-heatmap"]', ...headings]
        .map((selector) => {
          const { top, bottom } = document.querySelector(selector).getBoundingClientRect();
          return [selector, { top: top + scrollY, bottom: bottom + scrollY }];
        })), GROUP_HEADINGS);
    const heatmap = boxes['[data-testid="attention-heatmap"]'];
    const gap = boxes['.panel-options'].top - boxes['.panel-matrix'].bottom;
    assert.ok(Math.abs(gap - PANEL_GAP_PX) <= 1, `the options ${gap} px under the matrix's panel`);
    for (const heading of GROUP_HEADINGS) {
      const span = boxes[heading].bottom - heatmap.top;
      assert.ok(boxes[heading].bottom > heatmap.bottom && span <= PHONE.height,
        `the matrix's top and ${heading}'s bottom ${span} px apart, in a ${PHONE.height} px screen`);
    }
    // the views that only read the matrix come after the options
    assert.ok(boxes['.panel-profile'].top > boxes['.panel-options'].bottom, 'the profile after the options');
    assert.ok(boxes['.panel-lines'].top > boxes['.panel-profile'].bottom, 'the lines after the profile');
    // on a desktop the options stay in the sidebar, left of the matrix, and the profile under the matrix
    await page.setViewportSize(DESKTOP);
    const desktop = await page.evaluate(() => Object.fromEntries(['.panel-matrix', '.panel-options', '.panel-profile']
      .map((selector) => [selector, document.querySelector(selector).getBoundingClientRect().toJSON()])));
    assert.ok(desktop['.panel-options'].right < desktop['.panel-matrix'].left, 'the options beside the matrix');
    assert.equal(desktop['.panel-profile'].left, desktop['.panel-matrix'].left, 'the profile in the matrix\'s column');
    assert.ok(desktop['.panel-profile'].top > desktop['.panel-matrix'].bottom, 'the profile under the matrix');
    await close();
  });

  test('4,096 tokens are pooled, zoom to exact cells, and never freeze the page', async (t) => {
    const { page, close } = await openPage(suite);
    await waitForRows(page, 6);
    const stalls = page.evaluate(([probe]) => new Promise((resolve) => {
      let worst = 0;
      let last = performance.now();
      const timer = setInterval(() => {
        const now = performance.now();
        worst = Math.max(worst, now - last - probe);
        last = now;
        if (document.querySelector('[data-testid="attention-heatmap"]').dataset.rows === '4096') {
          clearInterval(timer);
          resolve(worst);
        }
      }, probe);
    }), [STALL_PROBE_MS]);
    const started = Date.now();
    await page.click('#long-sample');
    await waitForRows(page, LONG_TOKENS, LONG_TIMEOUT_MS);
    const seconds = (Date.now() - started) / 1000;
    const worst = await stalls;
    const timing = JSON.parse(await page.getAttribute(HEATMAP, 'data-timing'));
    t.diagnostic(`4,096 tokens: ${seconds.toFixed(1)} s to draw (engine ${timing.engine.toFixed(0)} ms, ` +
      `view ${timing.view.toFixed(0)} ms, drawing ${timing.draw.toFixed(0)} ms); longest main-thread stall ${worst.toFixed(0)} ms`);
    const allowed = Math.max(MAX_STALL_MS, MAX_STALL_PER_DRAWING * timing.draw);
    assert.ok(worst < allowed, `the main thread stalled for ${worst} ms (allowed ${allowed} ms)`);
    assert.ok(Number(await page.getAttribute(HEATMAP, 'data-block')) > 1, 'a 4,096-token matrix is drawn in blocks');

    await page.click('#zoom-in');
    await waitForRows(page, LONG_TOKENS / 2);
    await page.click('#zoom-in');
    await page.click('#zoom-in');
    await waitForRows(page, ZOOMED_ROWS);
    assert.equal(await page.getAttribute(HEATMAP, 'data-block'), '1');
    await page.waitForFunction(() => /^\d+,\d+,512$/.test(new URLSearchParams(location.hash.slice(1)).get('z')),
      null, { timeout: TIMEOUT_MS });

    const box = await page.locator(HEATMAP).boundingBox();
    await page.mouse.move(box.x + box.width * 0.6, box.y + box.height * 0.6);
    await page.locator(TOOLTIP).waitFor({ state: 'visible' });
    const tip = await page.evaluate((selector) => ({ ...document.querySelector(selector).dataset }), TOOLTIP);
    const { x } = await gloveInput(await longSampleText(LONG_TOKENS));
    const expected = (await nodeEngine()).selfAttention(x);
    const at = Number(tip.query) * LONG_TOKENS + Number(tip.key);
    assert.ok(Math.abs(Number(tip.weight) - expected.weights[0].data[at]) <= TOLERANCE, `weight of ${tip.query},${tip.key}`);
    assert.ok(Math.abs(Number(tip.score) - expected.scores[0].data[at]) <= TOLERANCE, `score of ${tip.query},${tip.key}`);
    await close();
  });

  test('+ and − zoom around the selected query, which stays in view, and are disabled when they cannot act', async () => {
    const { page, close } = await openPage(suite);
    await waitForRows(page, 6);
    const zoomButtons = () => Promise.all(['#zoom-in', '#zoom-out'].map((button) => page.isDisabled(button)));
    assert.deepEqual(await zoomButtons(), [true, true], '6 tokens: nothing to zoom');
    await page.fill('[data-testid="sentence-input"]', await longSampleText(400));
    await waitForRows(page, 400);
    assert.deepEqual(await zoomButtons(), [false, true], 'the whole matrix: only + acts');
    await page.fill('#query', '327');
    await page.waitForFunction(() => /(^|&)q=327(&|$)/.test(location.hash.slice(1)), null, { timeout: TIMEOUT_MS });
    await page.click('#zoom-in');
    await waitForRows(page, 200);
    assert.equal(await page.textContent('#zoom-status'), 'Tokens #164–#363');
    await page.click('#zoom-in');
    await waitForRows(page, 100);
    // query 327 keeps its place on screen: 327 − (327 − 164) · 100/200 = 245.5
    assert.equal(await page.textContent('#zoom-status'), 'Tokens #246–#345');
    assert.deepEqual(await zoomButtons(), [false, false]);
    for (const rows of [50, 25, 13, 8]) {  // 25 / 2 rounds to 13, 13 / 2 stops at 8
      await page.click('#zoom-in');
      await waitForRows(page, rows);
    }
    assert.deepEqual(await zoomButtons(), [true, false], '8 rows: only − acts');
    const [first, last] = (await page.textContent('#zoom-status')).match(/#(\d+)–#(\d+)/).slice(1).map(Number);
    assert.ok(first <= 327 && 327 <= last, `query 327 in view: #${first}–#${last}`);
    await close();
  });

  for (const colorScheme of ['light', 'dark']) {
    test(`masked cells are hatched apart from every viridis colour, as the legend shows (${colorScheme})`, async () => {
      const { page, close } = await openPage(suite, '#c=1', { colorScheme });
      await waitForRows(page, 6);
      const found = await page.evaluate(() => {
        const style = getComputedStyle(document.documentElement);
        const hex = (name) => {
          const value = style.getPropertyValue(name).trim();
          return [1, 3, 5].map((k) => parseInt(value.slice(k, k + 2), 16));
        };
        const canvas = document.querySelector('[data-testid="attention-heatmap"]');
        const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
        const pixels = [];
        for (let k = 0; k < data.length; k += 4) if (data[k + 3] === 255) pixels.push([data[k], data[k + 1], data[k + 2]]);
        const swatch = [...document.querySelectorAll('#legend-swatches li')].find((item) => item.textContent === 'masked');
        return {
          back: hex('--masked-back'), line: hex('--masked-line'), pixels,
          swatch: getComputedStyle(swatch.querySelector('.swatch')).backgroundImage,
        };
      });
      const { back, line } = found;
      for (const [name, colour] of Object.entries({ back, line })) {
        const nearest = Math.min(...VIRIDIS.map((v) => distance(v, colour)));
        assert.ok(nearest >= MIN_COLOR_DISTANCE, `the hatching's ${name} ${colour} is ${nearest.toFixed(0)} from viridis`);
      }
      assert.ok(distance(back, line) >= MIN_COLOR_DISTANCE, 'the hatching\'s lines stand out from its ground');
      const backPixels = found.pixels.filter((p) => distance(p, back) === 0).length;
      const linePixels = found.pixels.filter((p) => distance(p, line) <= LINE_COLOR_SLACK).length;
      assert.ok(backPixels >= MIN_HATCHED_PIXELS && linePixels >= MIN_HATCHED_PIXELS / 4,
        `hatching on the canvas: ${backPixels} ground and ${linePixels} line pixels`);
      const rgb = ([r, g, b]) => `rgb(${r}, ${g}, ${b})`;
      assert.match(found.swatch, /^repeating-linear-gradient/);
      assert.ok(found.swatch.includes(rgb(back)) && found.swatch.includes(rgb(line)), `legend swatch: ${found.swatch}`);
      await close();
    });
  }

  test('the legend lists only the colours outside the scale that the heatmap shows', async () => {
    // two tokens with 1-d vectors 20 and 1: a·a = 400 overflows exp, so naive softmax gives
    // Infinity / Infinity = NaN in row 0; vectors 1e20 and 1 overflow the score itself (which
    // softmax refuses, by name, and the plain sum keeps)
    const table = (vectors) => `#t=a%20b&src=table&td=1&tv=${encodeURIComponent(vectors)}`;
    const cases = [
      ['', []],
      ['#c=1', ['masked']],
      [`${table('20;1')}&nm=naive-softmax`, ['NaN']],
      [`${table('1e20;1')}&nm=sum&val=scores&c=1`, ['masked', '±Infinity']],
    ];
    const { page, close } = await openPage(suite);
    for (const [hash, expected] of cases) {
      await page.evaluate((next) => { location.hash = next; }, hash);
      await waitForRows(page, hash.includes('t=a') ? 2 : 6);
      await page.waitForFunction((wanted) => {
        const shown = [...document.querySelectorAll('#legend-swatches li')].filter((item) => item.checkVisibility());
        return shown.map((item) => item.textContent).join('|') === wanted.join('|');
      }, expected, { timeout: TIMEOUT_MS }).catch(async () => {
        const shown = await page.$$eval('#legend-swatches li', (items) => items.filter((item) => item.checkVisibility()).map((item) => item.textContent));
        assert.fail(`${hash || 'the default'}: the legend lists ${JSON.stringify(shown)}, expected ${JSON.stringify(expected)}`);
      });
    }
    await close();
  });

  test('an emptied text empties every view, the heatmap\'s frame says why, and a new text brings them back', async () => {
    const { page, close } = await openPage(suite);
    await waitForRows(page, 6);
    await page.locator('#cost-table tr.current').waitFor({ state: 'attached' });
    await page.fill('#sentence', '');
    await page.locator('[data-testid="heatmap-empty"]').waitFor({ state: 'visible', timeout: TIMEOUT_MS });
    await page.waitForFunction(() => !document.querySelector('#cost-table tr.current'), null, { timeout: TIMEOUT_MS });
    const shown = () => page.evaluate(() => {
      const $ = (id) => document.getElementById(id);
      return {
        canvas: $('heatmap').checkVisibility(), empty: $('heatmap-empty').checkVisibility() ? $('heatmap-empty').textContent : null,
        legend: $('legend').checkVisibility(), zoom: $('zoom-status').textContent,
        profile: $('profile').childElementCount, profileRow: $('profile').getAttribute('data-row'), profileNote: $('profile-note').textContent,
        lines: $('lines').querySelectorAll('text').length, linesCanvas: $('lines-links').width, linesStatus: $('lines-status').textContent,
        steps: $('steps-table').querySelectorAll('tr').length, summary: $('steps-summary').textContent, context: $('steps-context').textContent,
        costRows: [...$('cost-table').tBodies[0].rows].map((row) => row.cells[0].textContent),
      };
    });
    assert.deepEqual(await shown(), {
      canvas: false, empty: 'No tokens: type a sentence above to see its attention.', legend: false, zoom: '',
      profile: 0, profileRow: null, profileNote: '', lines: 0, linesCanvas: 0, linesStatus: '',
      steps: 0, summary: '', context: '', costRows: ['1K', '2K', '4K', '8K', '16K', '32K', '64K', '128K'],
    });
    await page.fill('#sentence', 'one step');
    await waitForRows(page, 2);
    await page.waitForFunction(() => document.querySelectorAll('#steps-table tbody tr').length === 2, null, { timeout: TIMEOUT_MS });
    const back = await shown();
    assert.equal(back.canvas, true);
    assert.equal(back.empty, null);
    assert.equal(back.legend, true);
    assert.equal(back.zoom, 'Tokens #0–#1');
    assert.equal(back.profileRow.split(',').length, 2);
    assert.equal(back.lines, 2 + 2 * 2, 'two headings and each token as query and key');
    assert.match(back.summary, /^Query #1 “step”/);
    await close();
  });

  test('a long causal row\'s walk-through shows only keys the query sees: all 11 of query 10, the 24 largest of query 40\'s 41', async () => {
    const count = 72;
    const text = await longSampleText(count);
    const { x } = await gloveInput(text);
    const expected = (await nodeEngine()).selfAttention(x, { causal: true }).weights[0].data;
    const { page, close } = await openPage(suite, `#t=${encodeURIComponent(text)}&c=1&q=10`);
    await waitForRows(page, count);
    const table = async (query) => {
      await page.waitForFunction((q) => document.getElementById('steps-summary').textContent.startsWith(`Query #${q} `), query,
        { timeout: TIMEOUT_MS });
      return page.evaluate(() => ({
        rows: [...document.querySelectorAll('[data-testid="steps-table"] tbody tr')]
          .map((row) => ({ key: Number(row.cells[0].textContent), score: Number(row.cells[2].dataset.value), weight: Number(row.cells[3].dataset.value) })),
        note: document.getElementById('steps-note').textContent,
      }));
    };
    const atTen = await table(10);
    assert.deepEqual(atTen.rows.map((row) => row.key), Array.from({ length: 11 }, (_, j) => j));
    assertClose(atTen.rows.map((row) => row.weight), Array.from(expected.subarray(10 * count, 10 * count + 11)), TOLERANCE, 'row 10, keys 0–10');
    assert.equal(atTen.note, 'Showing the 11 keys visible under the causal mask, of 72.');
    await page.fill('#query', '40');
    const atForty = await table(40);
    const row = Array.from(expected.subarray(40 * count, 41 * count));
    // keys 0–40 by weight, the 24 largest, the query's own in place of the 24th when not among them
    const largest = row.slice(0, 41).map((weight, j) => ({ j, weight })).sort((a, b) => b.weight - a.weight).slice(0, 24)
      .map(({ j }) => j);
    if (!largest.includes(40)) largest[23] = 40;
    assert.deepEqual(atForty.rows.map((r) => r.key), largest.sort((a, b) => a - b), 'the 24 keys of largest weight among keys 0–40');
    assert.ok(atForty.rows.every((r) => Number.isFinite(r.score) && r.weight > 0), 'no masked key among them');
    assertClose(atForty.rows.map((r) => r.weight), atForty.rows.map((r) => row[r.key]), TOLERANCE, 'row 40');
    assert.equal(atForty.note, 'Showing the 24 keys with the largest weights out of the 41 visible under the causal mask, of 72.');
    await close();
  });

  test('naive softmax overflowing in the matrix\'s row: the walk-through\'s NaN weights come with the float32 note', async () => {
    // 512 random dimensions, unscaled: the dot products pass exp's float32 limit
    const { page, close } = await openPage(suite, '#nm=naive-softmax&sc=0&src=random&rd=512');
    await waitForRows(page, 6);
    await page.waitForFunction(() => document.querySelector('[data-testid="steps-table"]').dataset.source === 'matrix'
      && document.querySelectorAll('[data-testid="steps-table"] tbody tr').length === 6, null, { timeout: TIMEOUT_MS });
    const { scores, weights } = await page.evaluate(() => {
      const rows = [...document.querySelectorAll('[data-testid="steps-table"] tbody tr')];
      return { scores: rows.map((row) => Number(row.cells[2].dataset.value)), weights: rows.map((row) => Number(row.cells[3].dataset.value)) };
    });
    const largest = Math.max(...scores);
    assert.ok(largest > 88.72, `the largest score ${largest} overflows exp in float32`);
    assert.ok(weights.some(Number.isNaN), `NaN weights: ${weights}`);
    const note = await page.textContent('#steps-note');
    assert.ok(note.startsWith('These are the numbers of the heatmap’s row: hover its cells to compare. The largest score is '), note);
    assert.match(note, /exp of anything above 88\.72 overflows float32 to Infinity, so the naive softmax divides Infinity by Infinity and gets NaN/);
    assert.equal(Number(note.match(/The largest score is ([-\d.,e+]+):/)[1].replace(/,/g, '')).toPrecision(3), largest.toPrecision(3));
    await close();
  });

  test('naive softmax overflowing in a 40-token row: the walk-through shows its NaN keys first, and says so', async () => {
    // 350 random dimensions, unscaled: scores about 87.5 ± 4, some past exp's float32 limit
    const count = 40;
    const text = await longSampleText(count);
    const { page, close } = await openPage(suite, `#t=${encodeURIComponent(text)}&nm=naive-softmax&sc=0&src=random&rd=350&q=3`);
    await waitForRows(page, count);
    await page.waitForFunction(() => document.querySelector('[data-testid="steps-table"]').dataset.source === 'matrix'
      && document.getElementById('steps-summary').textContent.startsWith('Query #3 '), null, { timeout: TIMEOUT_MS });
    const engine = await nodeEngine();
    const x = engine.torchGenerator(123).rand(count, 350);
    const row = Array.from(engine.selfAttention(x, { normalization: 'naive-softmax', scale: false }).weights[0].data
      .subarray(3 * count, 4 * count));
    const overflowed = row.flatMap((weight, j) => (Number.isNaN(weight) ? [j] : []));
    assert.ok(overflowed.length > 0 && overflowed.length < 24, `${overflowed.length} NaN weights in row 3`);
    const keys = await page.$$eval('[data-testid="steps-table"] tbody tr', (rows) => rows.map((tr) => Number(tr.cells[0].textContent)));
    assert.equal(keys.length, 24);
    assert.ok(overflowed.every((j) => keys.includes(j)), `every NaN key among ${keys}`);
    assert.match(await page.textContent('#steps-note'),
      /^Showing the 24 keys with the largest weights out of 40\. NaN weights, whose exp overflowed, count as the largest\. The largest score is /);
    await close();
  });

  test('the walk-through names each normalisation as the options do, Σ kept', async () => {
    const { page, close } = await openPage(suite, '#nm=sum');
    await waitForRows(page, 6);
    await page.waitForFunction(() => document.getElementById('steps-summary').textContent.includes('weights by'), null, { timeout: TIMEOUT_MS });
    const summary = await page.textContent('#steps-summary');
    assert.match(summary, /; weights by sum ω\/Σω; /);
    assert.equal(await page.textContent('#steps-table thead th:nth-child(4)'), 'Weight (Sum ω/Σω)');
    await close();
  });

  test('the walk-through\'s summary gives the scale\'s value apart from the score: × 1/√50 (= 0.1414)', async () => {
    const { page, close } = await openPage(suite, '#h=2');
    await waitForRows(page, 6);
    await page.waitForFunction(() => document.getElementById('steps-summary').textContent.includes('weights by'), null, { timeout: TIMEOUT_MS });
    assert.match(await page.textContent('#steps-summary'), /; score ω_j = \(q · k_j\) × 1\/√50 \(= 0\.1414\); weights by softmax; /);
    await close();
  });

  test('the profile\'s y axis reaches below 0 for negative weights: every point inside the plot', async () => {
    // the plain sum ω/Σω of projected scores: some weights are negative (the mean reaches about −1.2)
    const { page, close } = await openPage(suite, '#nm=sum&tw=linear');
    await waitForRows(page, 6);
    const { values, plot, points } = await page.evaluate(() => {
      const svg = document.getElementById('profile');
      // the y axis's line runs from the plot's bottom to its top: "M-6,124.5H0.5V10.5H-6"
      const [bottom, top] = svg.querySelector('.y-axis path.domain').getAttribute('d').match(/M[-\d.]+,([-\d.]+)H[-\d.]+V([-\d.]+)/).slice(1).map(Number);
      return {
        values: [...svg.dataset.row.split(','), ...svg.dataset.column.split(',')].map(Number),
        plot: { top, bottom },
        points: [...svg.querySelectorAll('.points circle')].map((circle) => Number(circle.getAttribute('cy'))),
      };
    });
    assert.ok(Math.min(...values) < 0, `a negative weight to plot: ${values}`);
    assert.equal(points.length, 12, 'a point per token and series');
    for (const cy of points) assert.ok(cy >= plot.top - TICK_SLACK_PX && cy <= plot.bottom + TICK_SLACK_PX, `a point at y ${cy}, the plot ${plot.top}–${plot.bottom}`);
    await close();
  });

  test('on a phone the profile shrinks with the page at once, and its redraw fits it at the profile\'s height', async () => {
    const { page, close } = await openPage(suite, '', { viewport: PHONE });
    await waitForRows(page, 6);
    // measured in the task that narrows the page, before a resize's redraw can run
    // (a clean-clone run that shrank the page from 390 to 320 px read it 362 px wide)
    const narrowed = await page.evaluate(() => {
      const profile = document.getElementById('profile');
      const drawn = profile.getBoundingClientRect().width;
      document.querySelector('main').style.width = `${Math.round(drawn * 0.75)}px`;
      return { drawn, frame: profile.parentElement.getBoundingClientRect().width, shown: profile.getBoundingClientRect().width };
    });
    assert.ok(narrowed.frame < narrowed.drawn * 0.8, `the frame ${narrowed.frame} px wide, the profile drawn ${narrowed.drawn} px`);
    assert.ok(narrowed.shown <= narrowed.frame, `the profile ${narrowed.shown} px wide in a frame of ${narrowed.frame} px`);
    await page.waitForFunction((frame) => Number(document.getElementById('profile').getAttribute('width')) === Math.floor(frame),
      narrowed.frame, { timeout: TIMEOUT_MS });
    const { width, height } = await page.evaluate(() => document.getElementById('profile').getBoundingClientRect().toJSON());
    assert.deepEqual([width, height], [Math.floor(narrowed.frame), PROFILE_HEIGHT_PX]);
    await close();
  });

  test('the profile labels token positions under the points that stand for them', async () => {
    const { page, close } = await openPage(suite);
    await waitForRows(page, 6);
    const { ticks, points } = await page.evaluate(() => ({
      ticks: [...document.querySelectorAll('#profile .x-axis .tick')].map((tick) => ({
        label: tick.textContent, x: Number(tick.getAttribute('transform').match(/translate\(([-\d.]+)/)[1]),
      })),
      points: [...document.querySelectorAll('#profile .points-row circle')].map((circle) => Number(circle.getAttribute('cx'))),
    }));
    assert.deepEqual(ticks.map((tick) => tick.label), ['0', '1', '2', '3', '4', '5']);
    assert.equal(points.length, 6, 'one point per token');
    ticks.forEach((tick, k) => assert.ok(Math.abs(tick.x - points[k]) <= TICK_SLACK_PX, `tick ${tick.label} at ${tick.x}, its point at ${points[k]}`));
    await close();
  });
});
