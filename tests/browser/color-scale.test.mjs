// The heatmap's colour scale in Chromium: a long causal input on the log scale spreads its middle
// rows over the colours where the linear scale draws them dark (the canvas's pixels read back as
// steps of the colour table), the legend's ticks at powers of ten with its low end's swatch, the
// hint that points to the log scale, the SVG figure's cells and legend, the comparison, the
// link, and the control disabled over scores.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { COLOR_STEPS, COLOR_TABLE, colorSteps } from '../../web/shared/heatmap/colors.js';
import { logColorDomain } from '../../web/shared/heatmap/heatmap.js';
import { TIMEOUT_MS, downloadOf, longSampleText, openPage, startSuite, waitForHash, waitForRows } from './helpers.mjs';

const HEATMAP = '[data-testid="attention-heatmap"]';
const LONG_TOKENS = 1024;
const LONG_TIMEOUT_MS = 60_000;
const DARK_STEPS = Math.floor(COLOR_STEPS / 10);  // the darkest tenth of the colours
const POWER_OF_TEN_LABEL = /^(1e-\d+|0\.0*1|1|10)$/;

let suite;
before(async () => { suite = await startSuite(); });
after(async () => { await suite?.close(); });

// '#rrggbb' of a step of the colour table.
const hex = (step) => `#${[0, 1, 2].map((c) => COLOR_TABLE[step * 4 + c].toString(16).padStart(2, '0')).join('')}`;

// The steps of the colour table that the canvas's pixels show in the middle fifth of the matrix's
// rows (the matrix: the box of the pixels in the table's colours), one per pixel.
async function middleRowSteps(page) {
  const table = {};
  for (let step = 0; step < COLOR_STEPS; ++step) {
    table[(COLOR_TABLE[4 * step] << 16) | (COLOR_TABLE[4 * step + 1] << 8) | COLOR_TABLE[4 * step + 2]] = step;
  }
  return page.evaluate(([selector, steps]) => {
    const canvas = document.querySelector(selector);
    const { data, width, height } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
    const stepAt = (x, y) => {
      const k = 4 * (y * width + x);
      return data[k + 3] === 255 ? steps[(data[k] << 16) | (data[k + 1] << 8) | data[k + 2]] : undefined;
    };
    let [top, bottom] = [height, -1];
    for (let y = 0; y < height; ++y) {
      for (let x = 0; x < width; ++x) {
        if (stepAt(x, y) === undefined) continue;
        top = Math.min(top, y);
        bottom = Math.max(bottom, y);
      }
    }
    const found = [];
    const rows = bottom - top;
    for (let y = Math.round(top + 0.4 * rows); y < top + 0.6 * rows; ++y) {
      for (let x = 0; x < width; ++x) {
        const step = stepAt(x, y);
        if (step !== undefined) found.push(step);
      }
    }
    return found;
  }, [HEATMAP, table]);
}

const darkShare = (steps) => steps.filter((step) => step < DARK_STEPS).length / steps.length;
const visibleTexts = (page, selector) => page.$$eval(selector, (items) => items.filter((item) => item.checkVisibility()).map((item) => item.textContent));

describe('colour scale', () => {
  test('a causal 1,024-token input: linear draws the middle rows in the darkest colours, log spreads them, with ticks at powers of ten', async (t) => {
    const text = await longSampleText(LONG_TOKENS);
    const { page, close } = await openPage(suite, `#c=1&t=${encodeURIComponent(text)}`);
    await waitForRows(page, LONG_TOKENS, LONG_TIMEOUT_MS);
    assert.equal(await page.inputValue('#color-scale'), 'linear', 'linear by default');
    const linear = await middleRowSteps(page);
    assert.ok(linear.length > 10_000, `${linear.length} pixels read`);
    assert.ok(darkShare(linear) > 0.95, `linear: ${(100 * darkShare(linear)).toFixed(1)}% of the middle rows' pixels in the darkest tenth`);
    assert.equal(await page.textContent('#legend-title'), 'Attention weight');
    // the hint beside the legend, which switches to the log scale
    const hint = page.locator('[data-testid="legend-hint"]');
    assert.ok(await hint.isVisible());
    assert.match(await hint.textContent(), /^\s*9\d% of the cells are in the darkest tenth of the colours:\s*Use a log scale\s*$/);

    await page.click('#legend-hint-log');
    await waitForHash(page, 'cs=log');
    await page.waitForFunction(() => document.getElementById('legend-title').textContent === 'Attention weight, log scale',
      null, { timeout: TIMEOUT_MS });
    assert.equal(await page.inputValue('#color-scale'), 'log');
    assert.equal(await hint.isVisible(), false, 'the hint goes once the scale is log');
    const log = await middleRowSteps(page);
    const distinct = new Set(log).size;
    t.diagnostic(`middle rows: linear ${(100 * darkShare(linear)).toFixed(1)}% in the darkest tenth, ${new Set(linear).size} steps; ` +
      `log ${(100 * darkShare(log)).toFixed(1)}%, ${distinct} steps`);
    assert.ok(darkShare(log) < 0.05, `log: ${(100 * darkShare(log)).toFixed(1)}% in the darkest tenth`);
    assert.ok(distinct >= 100, `log: ${distinct} distinct steps in the middle rows (linear: ${new Set(linear).size})`);
    const ticks = (await page.$$eval('#legend-axis .tick text', (labels) => labels.map((label) => label.textContent)));
    assert.ok(ticks.length >= 3, `ticks ${ticks}`);
    for (const tick of ticks) assert.match(tick, POWER_OF_TEN_LABEL);
    assert.deepEqual(ticks.map(Number), [...ticks.map(Number)].sort((a, b) => a - b));
    for (let k = 1; k < ticks.length; ++k) {
      const decades = Math.log10(Number(ticks[k]) / Number(ticks[k - 1]));
      assert.ok(Math.abs(decades - Math.round(decades)) < 1e-9 && decades >= 1, `${ticks[k - 1]} → ${ticks[k]}`);
    }
    await close();
  });

  test('the SVG figure\'s cells and legend follow the log scale: each cell\'s colour its weight\'s log step', async () => {
    const { page, close } = await openPage(suite, '#c=1&cs=log');
    await waitForRows(page, 6);
    const file = await downloadOf(page, '#export-svg');
    const svg = await page.evaluate((source) => {
      const doc = new DOMParser().parseFromString(source, 'image/svg+xml');
      return {
        cells: [...doc.querySelectorAll('g.cells rect')].map((rect) => ({
          fill: rect.getAttribute('fill'), weight: Number(rect.querySelector('title').textContent.split(': ').at(-1)),
        })),
        legend: [...doc.querySelectorAll('g.legend text')].map((t) => t.textContent),
      };
    }, file.bytes.toString('utf8'));
    assert.equal(svg.cells.length, 21, 'the lower triangle of 6 tokens: masked cells have no rect');
    const weights = svg.cells.map((cell) => cell.weight);
    const domain = logColorDomain([{ weights: Float32Array.from(weights), masked: new Uint8Array(weights.length) }], 6);
    const stepOf = colorSteps(domain, true);
    assert.deepEqual(svg.cells.map((cell) => cell.fill), weights.map((w) => hex(stepOf(w))));
    assert.equal(svg.cells[0].fill, hex(COLOR_STEPS - 1), 'query #0 on itself, weight 1: the top colour');
    assert.ok(new Set(svg.cells.map((cell) => cell.fill)).size >= 15, 'the cells take many colours');
    assert.equal(svg.legend[0], 'Attention weight, log scale');
    const ticks = svg.legend.slice(1).filter((t) => /^[\d.e-]+$/.test(t));
    assert.ok(ticks.includes('1') && ticks.every((t) => Number(t) > 0 && Number(t) <= 1), `ticks ${ticks}`);
    await close();
  });

  test('the link keeps the scale (cs=log) and an old link is linear; over scores the control is disabled with its reason', async () => {
    const { page, close } = await openPage(suite, '#c=1');
    await waitForRows(page, 6);
    await page.selectOption('#color-scale', 'log');
    await waitForHash(page, 'cs=log');
    const hash = await page.evaluate(() => location.hash);
    assert.equal(hash, '#c=1&cs=log');
    assert.deepEqual(await visibleTexts(page, '#color-scale-note'), []);
    assert.equal(await page.getAttribute('#color-scale', 'aria-describedby'), null);

    await page.selectOption('#value', 'scores');
    await page.waitForFunction(() => document.getElementById('legend-title').textContent.startsWith('Score'), null, { timeout: TIMEOUT_MS });
    assert.equal(await page.isDisabled('#color-scale'), true);
    assert.equal(await page.inputValue('#color-scale'), 'linear', 'it shows the scale the scores are drawn on');
    assert.deepEqual(await visibleTexts(page, '#color-scale-note'), ['scores stay linear: they can be negative']);
    assert.equal(await page.getAttribute('#color-scale', 'aria-describedby'), 'color-scale-note');
    const ticks = (await page.$$eval('#legend-axis .tick text', (labels) => labels.map((label) => label.textContent))).map(Number);
    const steps = ticks.slice(1).map((tick, k) => tick - ticks[k]);
    assert.ok(ticks.length >= 3 && steps.every((step) => Math.abs(step - steps[0]) < 1e-9), `a linear axis, evenly spaced: ${ticks}`);
    await waitForHash(page, 'val=scores');
    assert.match(await page.evaluate(() => location.hash), /cs=log/, 'the choice waits for the weights');

    await page.selectOption('#value', 'weights');
    await page.waitForFunction(() => document.getElementById('legend-title').textContent === 'Attention weight, log scale', null, { timeout: TIMEOUT_MS });
    assert.equal(await page.isDisabled('#color-scale'), false);
    assert.equal(await page.inputValue('#color-scale'), 'log');
    assert.deepEqual(await visibleTexts(page, '#color-scale-note'), []);
    await close();

    const reopened = await openPage(suite, hash);
    await waitForRows(reopened.page, 6);
    assert.equal(await reopened.page.inputValue('#color-scale'), 'log');
    assert.equal(await reopened.page.textContent('#legend-title'), 'Attention weight, log scale');
    await reopened.close();
  });

  test('the comparison: A and B on the log scale, B − A linear and diverging, in the canvas\'s legends and the SVG figure', async () => {
    const { page, close } = await openPage(suite, '#c=1&cs=log');
    await waitForRows(page, 6);
    await page.click('[data-testid="pin"]');
    await page.uncheck('#causal');
    await page.waitForFunction(() => document.getElementById('compare-heatmap').dataset.heads === '3', null, { timeout: TIMEOUT_MS });
    assert.equal(await page.textContent('#compare-legend-title'), 'A and B: attention weight, log scale');
    assert.match(await page.textContent('[data-testid="difference-legend-title"]'), /^B − A of the weights, /);
    const difference = await page.$$eval('#difference-legend-axis .tick text', (labels) => labels.map((label) => label.textContent));
    assert.ok(difference.some((tick) => /^−/.test(tick)) && difference.includes('0.0'), `B − A's ticks ${difference}`);
    for (const tick of await page.$$eval('#compare-legend-axis .tick text', (labels) => labels.map((label) => label.textContent))) {
      assert.ok(Number(tick) > 0, `A and B's log ticks: ${tick}`);
    }
    const file = await downloadOf(page, '#compare-svg');
    const legends = await page.evaluate((source) => [...new DOMParser().parseFromString(source, 'image/svg+xml')
      .querySelectorAll('g.legend')].map((g) => g.querySelector('text').textContent), file.bytes.toString('utf8'));
    assert.deepEqual(legends, ['A and B: attention weight, log scale', 'B − A (blue: lower in B, red: higher in B)']);
    await close();
  });
});
