// The lost-in-the-middle lab in Chromium: dist/ served under a sub-path, the page's strict
// CSP, the engine in workers, the position chart drawn from the engine's numbers and
// redrawn by its sliders, the published data beside the simulation, and a failed engine load.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  DESKTOP, PHONE, TIMEOUT_MS, assertEngineFailureShown, broadcasts, collectBroadcasts, downloadOf, nodeEngine, openPage, solidStrokes, startSuite,
} from './helpers.mjs';
import { readFileSync } from 'node:fs';
import { float32Text } from '../../web/shared/downloads.js';
import { format } from 'd3-format';
import { interpolateViridis } from 'd3-scale-chromatic';
import { MITIGATIONS } from '../../web/lab/mitigations.js';
import { DEFAULTS, GRID_LENGTHS, PRESETS, mitigationOption, modelOptions, needleOptions, parseHash } from '../../web/lab/state.js';
import { stretchesOf } from '../../web/lab/views/shape.js';

const POSITION_PATH = '#position-chart .series path';
// The lab's worker script, watched: each worker tells a BroadcastChannel of the needle grid's
// lengths it is asked to compute ({worker, lengths}: its own id), then runs the real worker,
// which answers (the page asks a worker nothing before it has said it is ready).
const WATCHED_LAB_WORKER = `
const channel = new BroadcastChannel('grid-calls');
const worker = crypto.randomUUID();
self.addEventListener('message', ({ data }) => {
  if (data?.type === 'grid') channel.postMessage({ worker, lengths: data.payload.lengths });
});
await import('./lab-worker.js?watched');
`;

// The lab's worker script, holding back its requests of `type` ('mitigation', 'grid') until
// the page posts 'answer' (the real worker computes them) or 'fail' (they fail) on the
// BroadcastChannel 'lab-release': a computation as slow as the test needs.
const holdingLabWorker = (type) => `
const held = [];
let passing = false;
self.addEventListener('message', (event) => {
  if (event.data?.type !== '${type}' || passing) return;
  event.stopImmediatePropagation();
  held.push(event.data);
});
new BroadcastChannel('lab-release').onmessage = ({ data: outcome }) => {
  for (const message of held.splice(0)) {
    if (outcome === 'fail') {
      self.postMessage({ id: message.id, status: 'error', message: 'the test failed this computation' });
      continue;
    }
    passing = true;
    self.dispatchEvent(new MessageEvent('message', { data: message }));
    passing = false;
  }
};
await import('./lab-worker.js?holding');
`;

// The lab's worker script, watched: each worker tells the BroadcastChannel 'lab-calls' of
// every request it gets ({type}) and of the needle sweeps in each answer it sends ({type,
// sweeps}: the answer's objects that hold a `retrieval`, itself or its fields), then runs the
// real worker.
const COUNTING_LAB_WORKER = `
const channel = new BroadcastChannel('lab-calls');
const types = new Map();
self.addEventListener('message', ({ data }) => {
  if (!data?.type) return;
  types.set(data.id, data.type);
  channel.postMessage({ type: data.type });
});
const post = self.postMessage.bind(self);
self.postMessage = (message, transfer) => {
  if (message?.status === 'ok') {
    const value = message.value ?? {};
    const sweeps = 'retrieval' in value ? 1 : Object.values(value).filter((part) => typeof part === 'object' && part !== null && 'retrieval' in part).length;
    channel.postMessage({ type: types.get(message.id), sweeps });
  }
  post(message, transfer);
};
await import('./lab-worker.js?counting');
`;

// The lab's worker script, answering every needle grid with zeros (the grid a window far
// shorter than n could underflow to): a grid whose masses span no log scale.
const FLAT_GRID_LAB_WORKER = `
const types = new Map();
self.addEventListener('message', ({ data }) => { if (data?.type) types.set(data.id, data.type); });
const post = self.postMessage.bind(self);
self.postMessage = (message, transfer) => {
  if (message?.status === 'ok' && types.get(message.id) === 'grid') message.value.data.fill(0);
  post(message, transfer);
};
await import('./lab-worker.js?flat');
`;

// The positions of the answer document that Liu et al. report for `documents` documents (web/shared/published-data.js).
const PUBLISHED = JSON.parse(readFileSync(new URL('../../web/shared/lost-in-the-middle-liu2023.json', import.meta.url), 'utf8'));
const publishedPositions = (documents) => [...new Set(PUBLISHED.models.flatMap((model) => model.curves)
  .filter((curve) => curve.documents === documents).flatMap((curve) => curve.positions))].sort((a, b) => a - b);
const xTicksOf = (page, chart) => page.$$eval(`#${chart} .x-axis .tick text`, (nodes) => nodes.map((node) => Number(node.textContent)));

// The needle section's time once its sweep and grid are drawn (lab.js computeNeedle): wall clock, from asking to drawn.
const NEEDLE_TIME = /^drawn (\d+) ms after asking$/;

// The caption under the chart's SVG figure's legend, on one line.
async function figureCaption(page, chart) {
  const svg = (await downloadOf(page, `button[data-svg="${chart}"]`)).bytes.toString('utf8');
  return page.evaluate((source) => [...new DOMParser().parseFromString(source, 'image/svg+xml').querySelectorAll('text.caption')]
    .map((text) => text.textContent).join(' '), svg);
}

// The settings column of the chart's CSV (the same in every row) and the caption under its SVG figure's legend, on one line.
async function exportedSettings(page, chart) {
  const csv = (await downloadOf(page, `button[data-csv="${chart}"]`)).bytes.toString('utf8').trimEnd().split('\n');
  const links = new Set(csv.slice(1).map((row) => row.split(',').at(-1)));
  assert.equal(links.size, 1, `${chart}: one settings link in every row: ${[...links]}`);
  return { header: csv[0], link: [...links][0], caption: await figureCaption(page, chart) };
}

let suite;
before(async () => { suite = await startSuite({ prefix: '/lab/sub/path/' }); });
after(async () => { await suite?.close(); });

// Opens the lab and waits for its engines and its first curve: {page, close()}.
async function openLab(hash = '') {
  const lab = await openPage(suite, `lab.html${hash}`);
  await lab.page.waitForSelector(POSITION_PATH, { timeout: TIMEOUT_MS });
  return lab;
}

// The points of an SVG path drawn by d3-shape's line: "M x,y L x,y ...".
function pathPoints(d) {
  return d.replace(/^M/, '').split('L').map((pair) => pair.split(',').map(Number));
}

const pathOf = (page, selector) => page.getAttribute(selector, 'd');

// Every point of an SVG path that may have gaps: "M x,y L x,y ... M x,y L ...".
function allPathPoints(d) {
  return d.split(/[ML]/).filter(Boolean).map((pair) => pair.split(',').map(Number));
}

// The engine's options for the lab's settings in `hash` (web/lab/state.js).
const labModel = (hash) => modelOptions(parseHash(hash).settings);

// The presets whose curves span more than the log axis's floor (position.js LOG_FLOOR, 1e-6 of the highest).
const PRIMACY = '#layers=8&residual=0&positional=none';
const STREAMING = '#window=128&sinks=4';
const LOG_FLOOR = 1e-6;

describe('lab page', () => {
  test('shows the position chart from the engine, under the strict CSP, inside the origin', async () => {
    const { page, close } = await openLab();
    const csp = await page.getAttribute('meta[http-equiv="Content-Security-Policy"]', 'content');
    assert.match(csp, /script-src 'self' 'wasm-unsafe-eval'/);
    assert.doesNotMatch(csp, /'unsafe-eval'|'unsafe-inline'/);
    assert.equal(await page.locator('script:not([src])').count(), 0, 'no inline scripts');

    // The default curve: one point per context position, n − 1 = 1023, shaped like the engine's.
    const points = pathPoints(await pathOf(page, POSITION_PATH));
    assert.equal(points.length, 1023);
    const engine = await nodeEngine();
    const { values, summary } = engine.positionCurve({ n: 1024, layers: 12, residual: 0.85, positional: { type: 'alibi', slope: 0.003 } });
    // The chart's y is in pixels (down is up): the lowest point sits where the engine's minimum is.
    const context = Array.from(values.subarray(0, 1023));
    const lowestPixel = points.reduce((best, [, y], k) => (y > points[best][1] ? k : best), 0);
    const lowest = Math.min(...context);
    assert.ok((context[lowestPixel] - lowest) / lowest < 1e-3, `lowest drawn at ${lowestPixel}, engine's at ${context.indexOf(lowest)}`);
    // the log axis spans the curve, not whole decades: its highest point at the plot's top, its
    // lowest at the bottom, and the right arm of the U rises 17% of the plot's height (4% from 0.1 to 10)
    const plotHeight = await page.$eval('#position-chart .x-axis', (axis) => axis.transform.baseVal.consolidate().matrix.f);
    const ys = points.map(([, y]) => y);
    assert.ok(Math.abs(Math.min(...ys)) < 0.5 && Math.abs(Math.max(...ys) - plotHeight) < 0.5, `drawn from ${Math.min(...ys)} to ${Math.max(...ys)} of ${plotHeight}`);
    const rightArm = (Math.max(...ys) - ys.at(-1)) / plotHeight;
    const expectedArm = Math.log(context.at(-1) / lowest) / Math.log(Math.max(...context) / lowest);
    assert.ok(Math.abs(rightArm - expectedArm) < 0.01 && rightArm > 0.15, `the right arm rises ${rightArm} of the height, ${expectedArm} expected`);
    assert.deepEqual(await page.$$eval('#position-chart .y-axis .tick text', (nodes) => nodes.map((node) => node.textContent).filter(Boolean)), ['1', '2', '5']);
    assert.match(await page.textContent('#position-reading'), /a U: both ends above the middle/);
    assert.equal(await page.isVisible('#position-gap'), false, 'every share above the log axis\'s floor: no note');
    const summaryText = await page.textContent('[data-testid="position-summary"]');
    const shown = Number(summaryText.match(/max ÷ min:?\s*([\d.]+)×/)[1]);
    assert.ok(Math.abs(shown - summary.maxOverMin) / summary.maxOverMin < 0.01, `${summaryText} vs ${summary.maxOverMin}`);
    await close();
  });

  test('sliders and presets redraw the position chart and update the link', async () => {
    const { page, close } = await openLab();
    const first = await pathOf(page, POSITION_PATH);
    await page.locator('[data-testid="layers-slider"]').fill('3');
    await page.waitForFunction(([selector, old]) => document.querySelector(selector).getAttribute('d') !== old,
      [POSITION_PATH, first], { timeout: TIMEOUT_MS });
    assert.match(await page.evaluate(() => window.location.hash), /layers=3/);
    assert.equal(await page.textContent('#layers-value'), '3');

    const second = await pathOf(page, POSITION_PATH);
    await page.locator('[data-testid="n-slider"]').fill('4');  // 64 tokens
    await page.waitForFunction(([selector, old]) => document.querySelector(selector).getAttribute('d') !== old,
      [POSITION_PATH, second], { timeout: TIMEOUT_MS });
    assert.equal(pathPoints(await pathOf(page, POSITION_PATH)).length, 63);

    await page.click('button[data-preset="bidirectional"]');
    await page.waitForFunction(() => document.getElementById('position-reading').textContent.includes('nearly flat'), null, { timeout: TIMEOUT_MS });
    await page.click('button[data-preset="primacy"]');
    await page.waitForFunction(() => document.getElementById('position-reading').textContent.includes('primacy'), null, { timeout: TIMEOUT_MS });
    await close();
  });

  test('the preset the settings are is pressed (aria-pressed), the others not, as the settings change: by a preset, a slider and a link', async () => {
    const { page, close } = await openLab();
    const pressed = () => page.$$eval('#presets button', (buttons) => Object.fromEntries(buttons.map((b) => [b.dataset.preset, b.getAttribute('aria-pressed')])));
    const only = (id) => Object.fromEntries(PRESETS.map((preset) => [preset.id, String(preset.id === id)]));
    assert.deepEqual(await pressed(), only('u-shape'), 'the defaults are "Both: lost in the middle"');
    await page.click('button[data-preset="streaming"]');
    await page.waitForFunction(() => window.location.hash === '#window=128&sinks=4', null, { timeout: TIMEOUT_MS });
    assert.deepEqual(await pressed(), only('streaming'));
    await page.locator('[data-testid="layers-slider"]').fill('3');
    await page.waitForFunction(() => window.location.hash.includes('layers=3'), null, { timeout: TIMEOUT_MS });
    assert.deepEqual(await pressed(), only(null), 'no preset has 3 layers');
    // a link with the Primacy preset's mechanisms at another n and other needle settings: Primacy
    await page.evaluate(() => { window.location.hash = '#n=256&layers=8&residual=0&positional=none&trials=4'; });
    await page.waitForFunction(() => document.querySelector('button[data-preset="primacy"]').getAttribute('aria-pressed') === 'true',
      null, { timeout: TIMEOUT_MS });
    assert.deepEqual(await pressed(), only('primacy'));
    await close();
  });

  test('sinks without a window, which the model does not have, leave the preset pressed whose model it is: a link\'s #sinks=4 is "Both", and so is the Sinks + window preset with its window slid to 0; the sinks stay for a window', async () => {
    const { page, close } = await openLab('#sinks=4');
    const pressed = () => page.$$eval('#presets button', (buttons) => buttons.filter((b) => b.getAttribute('aria-pressed') === 'true').map((b) => b.dataset.preset));
    assert.deepEqual(await pressed(), ['u-shape'], '#sinks=4: the defaults\' model');
    assert.equal(await page.textContent('#sinks-value'), 'needs a window');
    await page.click('button[data-preset="streaming"]');
    await page.waitForFunction(() => window.location.hash === '#window=128&sinks=4', null, { timeout: TIMEOUT_MS });
    assert.deepEqual(await pressed(), ['streaming']);
    await page.$eval('#window', (slider) => {
      slider.value = '0';
      slider.dispatchEvent(new Event('input', { bubbles: true }));
    });
    await page.waitForFunction(() => window.location.hash === '#sinks=4', null, { timeout: TIMEOUT_MS });
    assert.deepEqual(await pressed(), ['u-shape'], 'window 0 with 4 sinks: the defaults\' model');
    await page.$eval('#window', (slider) => {
      slider.value = '1';  // 4 tokens
      slider.dispatchEvent(new Event('input', { bubbles: true }));
    });
    await page.waitForFunction(() => window.location.hash === '#window=4&sinks=4', null, { timeout: TIMEOUT_MS });
    assert.deepEqual(await pressed(), [], 'a window of 4 with its 4 sinks is no preset');
    await close();
  });

  test('on a phone (390×844) chart 1 comes before the settings: its top on the first screen above the folded settings sheet, which opens below the chart it redraws; at 1400×1000 the settings stay beside the charts', async () => {
    const phone = await openPage(suite, 'lab.html', { viewport: PHONE });
    const { page } = phone;
    await page.waitForSelector(POSITION_PATH, { timeout: TIMEOUT_MS });
    const box = (selector) => page.locator(selector).boundingBox();
    const toggle = page.locator('#settings-toggle');
    assert.equal(await toggle.textContent().then((text) => text.replace(/\s+/g, ' ').trim()),
      'Mechanisms 1,024 tokens · L 12 · α 0.85 · causal · ALiBi 3e-3');
    assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
    assert.equal(await page.isVisible('#layers'), false, 'the folded sheet hides its controls');
    assert.equal(await page.isVisible('#controls-heading'), false, 'the toggle names the sheet');
    let sheet = await box('#controls');
    let chart = await box('#position-chart');
    assert.equal(sheet.y + sheet.height, PHONE.height, 'the sheet lies along the bottom of the screen');
    assert.ok(sheet.height < 80, `the folded sheet is one line and its digest: ${sheet.height} px`);
    assert.ok(chart.y + 40 < sheet.y, `chart 1 (top ${chart.y} px) begins on the first screen, above the sheet (${sheet.y} px)`);

    await toggle.click();
    assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
    await page.evaluate(() => window.scrollBy(0, document.getElementById('position-heading').getBoundingClientRect().top));
    sheet = await box('#controls');
    chart = await box('#position-chart');
    assert.ok(sheet.height <= 0.45 * PHONE.height + 1, `the open sheet takes at most 45% of the screen: ${sheet.height} px`);
    assert.ok(chart.y >= 0 && chart.y + chart.height <= sheet.y, `chart 1 (${chart.y}–${chart.y + chart.height} px) in view above the open sheet (${sheet.y} px)`);
    const before = await pathOf(page, POSITION_PATH);
    await page.locator('#layers').fill('2');
    await page.waitForFunction(([selector, old]) => document.querySelector(selector).getAttribute('d') !== old, [POSITION_PATH, before]);
    assert.match(await toggle.textContent(), /· L 2 ·/);
    await page.keyboard.press('Escape');
    assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
    assert.equal(await page.isVisible('#layers'), false);
    await phone.close();

    const desktop = await openLab();
    const form = await desktop.page.locator('#controls').boundingBox();
    const wideChart = await desktop.page.locator('#position-chart').boundingBox();
    assert.equal(await desktop.page.isVisible('#settings-toggle'), false);
    assert.equal(await desktop.page.isVisible('#controls-heading'), true);
    assert.equal(await desktop.page.isVisible('#lab-how summary'), false, 'wide, the introduction is open without a fold');
    assert.equal(await desktop.page.isVisible('#lab-how p'), true);
    assert.ok(form.x + form.width < wideChart.x, 'the settings to the left of the charts');
    assert.ok(wideChart.y + wideChart.height < 1000, 'chart 1 whole on the first screen');
    await desktop.close();
  });

  test('on a phone the folded sheet\'s line names a window with its sinks, "1 sink", and none when there are none', async () => {
    const { page, close } = await openPage(suite, 'lab.html#window=128&sinks=1', { viewport: PHONE });
    const digest = () => page.textContent('#settings-digest');
    assert.equal(await digest(), '1,024 tokens · L 12 · α 0.85 · causal · ALiBi 3e-3 · window 128 + 1 sink');
    await page.evaluate(() => { window.location.hash = '#window=128&sinks=4'; });
    await page.waitForFunction(() => document.getElementById('settings-digest').textContent.endsWith('sinks'), null, { timeout: TIMEOUT_MS });
    assert.equal(await digest(), '1,024 tokens · L 12 · α 0.85 · causal · ALiBi 3e-3 · window 128 + 4 sinks');
    await page.evaluate(() => { window.location.hash = '#window=128'; });
    await page.waitForFunction(() => !document.getElementById('settings-digest').textContent.includes('sink'), null, { timeout: TIMEOUT_MS });
    assert.equal(await digest(), '1,024 tokens · L 12 · α 0.85 · causal · ALiBi 3e-3 · window 128');
    await close();
  });

  test('on a phone the page ends above the settings sheet however tall its line wraps, and a control focused behind the open sheet scrolls above it', async () => {
    const { page, close } = await openPage(suite, `lab.html${STREAMING}`, { viewport: PHONE });
    await page.waitForSelector(POSITION_PATH, { timeout: TIMEOUT_MS });
    const sheetTop = () => page.$eval('#controls', (sheet) => sheet.getBoundingClientRect().top);
    // the folded sheet: its line wraps to two ("… · window 128 + 4 sinks")
    const folded = await page.$eval('#controls', (sheet) => sheet.getBoundingClientRect().height);
    const lineHeight = await page.$eval('#settings-digest', (digest) => Number.parseFloat(getComputedStyle(digest).lineHeight));
    assert.ok((await page.$eval('#settings-digest', (digest) => digest.getBoundingClientRect().height)) > 1.5 * lineHeight, 'the line wraps');
    // scrolled to the end, the last panel whole above the sheet
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    const last = await page.$eval('.lab-main > :last-child', (panel) => panel.getBoundingClientRect().bottom);
    assert.ok(last <= await sheetTop(), `the last panel ends at ${last} px, the folded sheet (${folded} px tall) begins at ${await sheetTop()} px`);

    // open, the sheet keeps what is focused above it: the html's scroll padding is its height
    await page.click('#settings-toggle');
    const open = await page.$eval('#controls', (sheet) => sheet.getBoundingClientRect().height);
    assert.ok(open > folded);
    await page.waitForFunction((height) => Math.abs(Number.parseFloat(getComputedStyle(document.documentElement).scrollPaddingBottom) - height) < 0.01,
      open, { timeout: TIMEOUT_MS });
    // a CSV button just behind the open sheet, inside the screen, focused: scrolled into view above the sheet
    const button = 'button[data-csv="needle-chart"]';
    await page.$eval(button, (element) => {
      const sheet = document.getElementById('controls').getBoundingClientRect();
      window.scrollBy(0, element.getBoundingClientRect().top - sheet.top - 10);
    });
    assert.ok(await page.$eval(button, (element) => element.getBoundingClientRect().top) > await sheetTop(), 'behind the sheet before');
    await page.focus(button);
    const focused = await page.$eval(button, (element) => element.getBoundingClientRect());
    assert.ok(focused.top >= 0 && focused.bottom <= await sheetTop(), `the focused button (${focused.top}–${focused.bottom} px) above the sheet (${await sheetTop()} px)`);
    await close();
  });

  test('the settings sheet\'s shadow shows in both schemes: darker than the page in light, lighter in dark', async () => {
    // a colour's channels: 'rgba(255, 255, 255, 0.12) 0px -4px 16px 0px' → [255, 255, 255, 0.12], '#0f1216' → [15, 18, 22]
    const channels = (color) => (color.startsWith('#') ? color.slice(1).match(/../g).map((hex) => parseInt(hex, 16)) : color.match(/[\d.]+/g).slice(0, 4).map(Number));
    const brightness = ([r, g, b]) => r + g + b;
    for (const colorScheme of ['light', 'dark']) {
      const { page, close } = await openPage(suite, 'lab.html', { viewport: PHONE, colorScheme, waitForEngine: false });
      const { shadow, background } = await page.$eval('#controls', (sheet) => ({
        shadow: getComputedStyle(sheet).boxShadow, background: getComputedStyle(document.documentElement).getPropertyValue('--bg').trim(),
      }));
      const [r, g, b, alpha] = channels(shadow);
      assert.ok(alpha > 0, `${colorScheme}: ${shadow}`);
      const lighter = brightness([r, g, b]) > brightness(channels(background));
      assert.equal(lighter, colorScheme === 'dark', `${colorScheme}: the shadow ${shadow} on the page's ${background}`);
      await close();
    }
  });

  test('a fractional width (a page zoomed to 200%) takes one layout: at 900 px the narrow one, at 900.5 and 901 px the wide one', async () => {
    const { page, close } = await openLab();
    // The lab in a frame zoomed to 200% (its zoom passes to the page in it): 1,801 device pixels
    // are 900.5 CSS pixels (a frame's width is whole device pixels).
    const ZOOM = 2;
    const layouts = [];
    for (const width of [900, 900.5, 901]) {
      layouts.push(await page.evaluate(async ([w, zoom]) => {
        const frame = document.createElement('iframe');
        frame.style.zoom = String(zoom);
        frame.style.width = `${w}px`;
        frame.style.border = '0';
        frame.style.height = '600px';
        const loaded = new Promise((resolve) => { frame.onload = resolve; });
        frame.src = 'lab.html';
        document.body.append(frame);
        await loaded;
        const inner = frame.contentDocument;
        const layout = {
          width: inner.documentElement.getBoundingClientRect().width,
          sheet: frame.contentWindow.getComputedStyle(inner.getElementById('controls')).position === 'fixed',
          introductionFold: frame.contentWindow.getComputedStyle(inner.querySelector('#lab-how > summary')).display !== 'none',
          introductionOpen: inner.getElementById('lab-how').open,
        };
        frame.remove();
        return layout;
      }, [width, ZOOM]));
    }
    assert.deepEqual(layouts, [
      { width: 900, sheet: true, introductionFold: true, introductionOpen: false },
      { width: 900.5, sheet: false, introductionFold: false, introductionOpen: true },
      { width: 901, sheet: false, introductionFold: false, introductionOpen: true },
    ]);
    await close();
  });

  test('a screen reader hears a chart\'s reading once a drag stops, not at every step: the visible reading is no live region, its spoken copy is written once', async () => {
    const { page, close } = await openPage(suite, 'lab.html');
    // the first readings spoken, both charts', before the drag
    await page.waitForFunction(() => ['position-reading-spoken', 'rope-reading-spoken'].every((id) => document.getElementById(id).textContent !== ''),
      null, { timeout: TIMEOUT_MS });
    for (const id of ['position-reading', 'rope-reading']) {
      assert.equal(await page.getAttribute(`#${id}`, 'aria-live'), null, `${id}: not live`);
      assert.equal(await page.getAttribute(`#${id}-spoken`, 'aria-live'), 'polite');
    }
    await page.evaluate(() => {
      window.spoken = [];
      for (const id of ['position-reading-spoken', 'rope-reading-spoken']) {
        const region = document.getElementById(id);
        new MutationObserver(() => window.spoken.push([id, region.textContent])).observe(region, { childList: true, characterData: true, subtree: true });
      }
      window.readings = 0;
      new MutationObserver(() => { window.readings += 1; })
        .observe(document.getElementById('position-reading'), { childList: true, characterData: true, subtree: true });
    });
    // a drag of the n slider down through five lengths, 512 to 128 tokens, each drawn before the next
    const slide = (value) => page.$eval('#n', (slider, v) => {
      slider.value = String(v);
      slider.dispatchEvent(new Event('input', { bubbles: true }));
    }, value);
    for (const value of [10, 9, 8, 7, 6]) {
      const before = await page.evaluate(() => window.readings);
      await slide(value);
      await page.waitForFunction((count) => window.readings > count, before, { timeout: TIMEOUT_MS });
    }
    await page.waitForFunction(() => window.spoken.some(([id]) => id === 'rope-reading-spoken'), null, { timeout: TIMEOUT_MS });
    await page.waitForTimeout(1200);
    const spoken = await page.evaluate(() => window.spoken);
    assert.ok(await page.evaluate(() => window.readings) >= 5, 'the visible reading followed every step');
    // each reading spoken once at most (not at all where it ended as it began), as it settled
    for (const id of ['position-reading', 'rope-reading']) {
      const writes = spoken.filter(([region]) => region === `${id}-spoken`);
      assert.ok(writes.length <= 1, `${id}: ${JSON.stringify(writes)}`);
      assert.equal(await page.textContent(`#${id}-spoken`), await page.textContent(`#${id}`), `${id}: the settled reading`);
    }
    assert.match(spoken.find(([id]) => id === 'rope-reading-spoken')[1], /a key 127 tokens before it/);
    await close();
  });

  test('each slider announces the value it stands for (aria-valuetext): "1,024 tokens" not 12, "off" not 0, "0.003" not 9, kept in sync', async () => {
    const { page, close } = await openLab();
    const SLIDERS = ['n', 'layers', 'residual', 'slope', 'rope-strength', 'window', 'sinks', 'signal', 'noise', 'trials'];
    const spoken = () => page.$$eval(SLIDERS.map((id) => `#${id}`).join(', '),
      (sliders) => Object.fromEntries(sliders.map((slider) => [slider.id, [slider.value, slider.getAttribute('aria-valuetext')]])));
    assert.deepEqual(await spoken(), {
      n: ['12', '1,024 tokens'], layers: ['12', '12'], residual: ['0.85', '0.85'], slope: ['9', '0.003'],
      'rope-strength': ['6', '6'], window: ['0', 'off'], sinks: ['0', 'needs a window'], signal: ['3', '3'], noise: ['1', '1'],
      trials: ['8', '8'],
    });
    // moved by the keyboard and by a link, each says its new value
    await page.focus('#n');
    await page.keyboard.press('ArrowLeft');
    await page.locator('#window').fill('6');
    await page.locator('#slope').fill('12');
    await page.evaluate(() => { window.location.hash = `${window.location.hash}&sinks=4&ropeStrength=2.5`; });
    await page.waitForFunction(() => document.getElementById('sinks').getAttribute('aria-valuetext') === '4', null, { timeout: TIMEOUT_MS });
    const moved = await spoken();
    assert.deepEqual([moved.n, moved.window, moved.slope, moved.sinks, moved['rope-strength']],
      [['11', '768 tokens'], ['6', '128 tokens'], ['12', '0.01'], ['4', '4'], ['2.5', '2.5']]);
    assert.equal(await page.evaluate(() => window.location.hash), '#n=768&slope=0.01&ropeStrength=2.5&window=128&sinks=4');
    await close();
  });

  test('the slope slider steps through stops on which the defaults\' and the presets\' slopes lie: one step down and back is 0.003 again, the preset still pressed', async () => {
    const { page, close } = await openLab();
    const pressed = () => page.$eval('[data-preset="u-shape"]', (button) => button.getAttribute('aria-pressed'));
    const slope = () => page.$eval('#slope', (slider) => [slider.min, slider.max, slider.step, slider.value, slider.getAttribute('aria-valuetext')]);
    assert.deepEqual(await slope(), ['0', '21', '1', '9', '0.003']);
    await page.focus('#slope');
    await page.keyboard.press('ArrowLeft');
    await page.waitForFunction(() => window.location.hash === '#slope=0.002', null, { timeout: TIMEOUT_MS });
    assert.deepEqual([await slope(), await pressed()], [['0', '21', '1', '8', '0.002'], 'false']);
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction(() => window.location.hash === '', null, { timeout: TIMEOUT_MS });
    assert.deepEqual([await slope(), await pressed()], [['0', '21', '1', '9', '0.003'], 'true']);
    // the Recency preset's 0.005 is the next stop up
    await page.click('[data-preset="recency"]');
    await page.waitForFunction(() => document.getElementById('slope').getAttribute('aria-valuetext') === '0.005', null, { timeout: TIMEOUT_MS });
    assert.equal((await slope())[3], '10');
    await close();
  });

  test('a shared link restores its settings', async () => {
    const { page, close } = await openLab('#n=256&layers=1&residual=0&slope=0.02');
    assert.equal(pathPoints(await pathOf(page, POSITION_PATH)).length, 255);
    await page.waitForFunction(() => document.getElementById('position-reading').textContent.includes('recency'), null, { timeout: TIMEOUT_MS });
    assert.equal(await page.textContent('#layers-value'), '1');
    await close();
  });

  test('the shape sentence compares the means of the first, middle and last tenths: RoPE base 500, s = 12 at 4,096 tokens is recency, not a U', async () => {
    const hash = '#n=4096&positional=rope&ropeBase=500&ropeStrength=12';
    const stretches = stretchesOf((await nodeEngine()).positionCurve(labModel(hash)).summary);
    const { page, close } = await openLab(hash);
    const times = format('.3~g');
    assert.equal(await page.textContent('#position-reading'), 'With these settings the influence on the final token is recency: the end '
      + `dominates (its first, middle and last tenths average ${times(stretches.first)}×, ${times(stretches.middle)}× and ${times(stretches.last)}× average).`);
    assert.deepEqual([stretches.first, stretches.middle, stretches.last].map(times), ['0.143', '0.142', '9.14']);
    await close();
  });

  test('the log axis: under the Primacy and the Sinks + window presets the curve stays in the plot area, gaps below the floor, a note naming the positions left out, no tick 0', async () => {
    const engine = await nodeEngine();
    const leftOutByPreset = { [PRIMACY]: 699, [STREAMING]: 234 };
    for (const hash of [PRIMACY, STREAMING]) {
      const { values, summary } = engine.positionCurve(labModel(hash));
      const context = Array.from(values.subarray(0, values.length - 1), (v) => v / summary.mean);
      const highest = Math.max(...context);
      const shown = context.filter((v) => v > highest * LOG_FLOOR);
      assert.ok(shown.length < context.length, `${hash}: some share below the floor, so that the case tests the gap`);
      const leftOut = context.length - shown.length;
      assert.equal(leftOut, leftOutByPreset[hash], hash);

      const { page, close } = await openLab(hash);
      const points = allPathPoints(await pathOf(page, POSITION_PATH));
      assert.equal(points.length, shown.length, `${hash}: one point per share above the floor`);
      assert.equal(await page.textContent('#position-gap'), `The line leaves out ${leftOut} of the 1,023 positions `
        + `(${format('.3~g')(leftOut / context.length * 100)}%): their shares are below a millionth of the highest, too small for the log axis.`);
      assert.equal(await page.isVisible('#position-gap'), true, hash);
      const plot = await page.$eval('#position-chart', (svg) => {
        const axis = svg.querySelector('.x-axis');
        const id = svg.querySelector('.series path.line').getAttribute('clip-path')?.match(/^url\(#(.+)\)$/)?.[1];
        const clip = id ? document.getElementById(id) : null;
        return {
          width: axis.querySelector('path.domain').getBBox().width,
          height: axis.transform.baseVal.consolidate().matrix.f,
          clip: clip && { tag: clip.tagName, width: Number(clip.firstChild.getAttribute('width')), height: Number(clip.firstChild.getAttribute('height')) },
          ids: [...document.querySelectorAll('clipPath')].map((element) => element.id),
          ticks: [...svg.querySelectorAll('.y-axis .tick text')].map((text) => text.textContent).filter(Boolean),
        };
      });
      const outside = points.filter(([x, y]) => !(x >= -0.5 && x <= plot.width + 0.5 && y >= -0.5 && y <= plot.height + 0.5));
      assert.deepEqual(outside, [], `${hash}: points outside the plot area ${plot.width}×${plot.height}`);
      assert.deepEqual(plot.clip, { tag: 'clipPath', width: plot.width, height: plot.height }, `${hash}: the line is clipped to the plot area`);
      assert.ok(plot.ids.length >= 5, `one clip path per line chart: ${plot.ids}`);
      assert.equal(new Set(plot.ids).size, plot.ids.length, `each chart's clip path has its own id: ${plot.ids}`);
      // each labelled tick written as its value (none "0"), the lowest the first decade at or above the lowest share shown
      const labels = plot.ticks.map(Number);
      assert.ok(labels.length >= 3 && labels.every((v) => v > 0) && new Set(labels).size === labels.length, `${hash}: ${plot.ticks}`);
      const lowest = Math.min(...shown);
      assert.equal(Math.min(...labels), Number(`1e${Math.ceil(Math.log10(lowest))}`), `${hash}: ${plot.ticks}, the lowest share shown ${lowest}`);
      // on a linear axis every position is drawn, and the note goes
      await page.uncheck('#log-scale');
      await page.waitForFunction(() => document.getElementById('position-gap').hidden, null, { timeout: TIMEOUT_MS });
      assert.equal(allPathPoints(await pathOf(page, POSITION_PATH)).length, context.length, hash);
      await close();
    }
  });

  test('chart 1\'s tick labels lie inside its SVG and clear of its y axis title, at 1,400 and 390 px: the Sinks + window preset\'s log axis reads 1e-5, not 0.00001', async () => {
    // the labelled ticks of the log axis, top to bottom as the page lists them bottom to top
    // (the defaults' curve spans 0.70 to 4.7 times the average: the axis spans that, not 0.1 to 10)
    const yLabels = { '': ['1', '2', '5'], [STREAMING]: ['1e-5', '1e-4', '1e-3', '0.01', '0.1', '1'] };
    for (const [hash, labels] of Object.entries(yLabels)) {
      for (const viewport of [DESKTOP, PHONE]) {
        const { page, close } = await openPage(suite, `lab.html${hash}`, { viewport });
        await page.waitForSelector(POSITION_PATH, { timeout: TIMEOUT_MS });
        const drawn = await page.$eval('#position-chart', (svg) => {
          const box = (element) => {
            const { left, right, top, bottom } = element.getBoundingClientRect();
            return { left, right, top, bottom };
          };
          const ticks = (axis) => [...svg.querySelectorAll(`.${axis} .tick text`)].filter((text) => text.textContent)
            .map((text) => ({ text: text.textContent, ...box(text) }));
          return { svg: box(svg), title: box(svg.querySelector('text.axis-title[transform]')), y: ticks('y-axis'), x: ticks('x-axis') };
        });
        const where = `${hash || 'the defaults'} at ${viewport.width} px`;
        assert.deepEqual(drawn.y.map(({ text }) => text), labels, where);
        for (const tick of [...drawn.y, ...drawn.x]) {
          assert.ok(tick.left >= drawn.svg.left && tick.right <= drawn.svg.right && tick.top >= drawn.svg.top && tick.bottom <= drawn.svg.bottom,
            `${where}: “${tick.text}” at ${tick.left}–${tick.right} × ${tick.top}–${tick.bottom}, the SVG ${JSON.stringify(drawn.svg)}`);
        }
        for (const tick of drawn.y) {
          const apart = tick.right <= drawn.title.left || drawn.title.right <= tick.left || tick.bottom <= drawn.title.top || drawn.title.bottom <= tick.top;
          assert.ok(apart, `${where}: “${tick.text}” (${tick.left}–${tick.right} px) overlaps the axis title (${drawn.title.left}–${drawn.title.right} px)`);
        }
        await close();
      }
    }
  });

  test('the linear y axes\' tick labels lie inside their SVG and at least 6 px clear of the axis title, at 1,400 and 390 px: the needle sweep\'s "0.012", the mitigation\'s "0.030", the top-1 rate\'s "100%", chart 1 and chart 2', async () => {
    const GAP_PX = 6;
    const charts = { '': ['rope-chart', 'needle-chart', 'mitigation-chart'], '#logScale=0': ['position-chart'], '#metric=top1': ['needle-chart', 'mitigation-chart'] };
    const widest = { '': ['0.012', '0.030'], '#metric=top1': ['100%'] };
    for (const [hash, ids] of Object.entries(charts)) {
      for (const viewport of [DESKTOP, PHONE]) {
        const { page, close } = await openPage(suite, `lab.html${hash}`, { viewport });
        await page.waitForSelector('#mitigation-chart .series path', { timeout: TIMEOUT_MS });
        const where = `${hash || 'the defaults'} at ${viewport.width} px`;
        const labels = [];
        for (const id of ids) {
          const drawn = await page.$eval(`#${id}`, (svg) => {
            const box = (element) => {
              const { left, right, top, bottom } = element.getBoundingClientRect();
              return { left, right, top, bottom };
            };
            return {
              svg: box(svg), title: box(svg.querySelector('text.axis-title[transform]')),
              y: [...svg.querySelectorAll('.y-axis .tick text')].filter((text) => text.textContent).map((text) => ({ text: text.textContent, ...box(text) })),
            };
          });
          assert.ok(drawn.y.length >= 2, `${where}: ${id} has its y labels`);
          for (const tick of drawn.y) {
            labels.push(tick.text);
            assert.ok(tick.left >= drawn.svg.left && tick.right <= drawn.svg.right, `${where}: ${id}'s “${tick.text}” at ${tick.left}–${tick.right}, the SVG ${drawn.svg.left}–${drawn.svg.right}`);
            assert.ok(tick.left - drawn.title.right >= GAP_PX,
              `${where}: ${id}'s “${tick.text}” starts ${tick.left - drawn.title.right} px after the axis title ends (${drawn.title.right} px)`);
          }
          assert.ok(drawn.title.left >= drawn.svg.left, `${where}: ${id}'s axis title inside the SVG`);
        }
        for (const label of widest[hash] ?? []) assert.ok(labels.includes(label), `${where}: “${label}” among ${labels}`);
        await close();
      }
    }
  });

  test('the position read-outs are the means of the first, middle and last tenths, as the shape sentence\'s, in three significant digits, the engine\'s double-precision ones where float32 holds 0', async () => {
    const engine = await nodeEngine();
    // RoPE base 500, s = 12 at 4,096 tokens ripples: its first token alone is 3.6× its middle one, its first tenth level with the middle.
    // ALiBi's slope 0.05 puts the first tenth near 1e-20 of the average; 0.3162 its first two tenths below what float32 holds
    // but 0 (the engine's tenths are in double precision); a window's unreachable start is 0 in double precision too.
    const cases = [PRIMACY, '#slope=0.05', '#slope=0.3162', '#window=128&layers=1', '#n=4096&positional=rope&ropeBase=500&ropeStrength=12'];
    for (const hash of cases) {
      const { values, summary } = engine.positionCurve(labModel(hash));
      // each context position's share ÷ the average, and the mean of each tenth (102 of 1,023 positions, 410 of 4,095; the middle one centred)
      const shares = Array.from(values.subarray(0, values.length - 1), (v) => v / summary.mean);
      const width = Math.round(shares.length / 10);
      const meanFrom = (start) => shares.slice(start, start + width).reduce((a, b) => a + b) / width;
      const float32Tenths = [meanFrom(0), meanFrom(Math.floor((shares.length - width) / 2)), meanFrom(shares.length - width)];
      const { first, middle, last } = stretchesOf(summary);
      const { page, close } = await openLab(hash);
      const terms = await page.$$eval('[data-testid="position-summary"] dt', (nodes) => nodes.map((node) => node.textContent));
      assert.deepEqual(terms, ['first tenth (mean)', 'middle tenth (mean)', 'last tenth (mean)', 'max ÷ min', 'final token itself'], hash);
      const readOuts = await page.$$eval('[data-testid="position-summary"] dd', (nodes) => nodes.map((node) => node.textContent));
      [first, middle, last].forEach((expected, k) => {
        assert.match(readOuts[k], /^\S+× average$/, `${hash}: read-out ${k}`);
        const shown = Number(readOuts[k].split('×')[0]);
        assert.ok(Math.abs(shown - expected) <= 0.005 * expected, `${hash}: read-out ${k} “${readOuts[k]}”, the engine's ${expected}`);
        if (float32Tenths[k] > 0) assert.ok(Math.abs(float32Tenths[k] - expected) <= 1e-4 * expected, `${hash}: tenth ${k} in float32`);
      });
      // the sentence names the same three numbers
      const numbers = readOuts.slice(0, 3).map((text) => text.replace(/ average$/, ''));
      assert.ok((await page.textContent('#position-reading')).endsWith(`tenths average ${numbers[0]}, ${numbers[1]} and ${numbers[2]} average).`), hash);
      if (hash.includes('rope')) assert.deepEqual(numbers, ['0.143×', '0.142×', '9.14×']);
      if (hash === '#slope=0.3162') {
        assert.deepEqual(float32Tenths.slice(0, 2), [0, 0], 'float32 holds the first two tenths as 0');
        assert.deepEqual(numbers.slice(0, 2), ['3.15e-116×', '1.47e-55×']);
      }
      if (hash.startsWith('#window')) assert.deepEqual(numbers.slice(0, 2), ['0×', '0×'], 'a window\'s unreachable start is 0 in double precision too');
      await close();
    }
  });

  test('the needle sweep\'s and the mitigation\'s y axes say what they measure: "attention mass on the needle", with the top-1 metric "top-1 rate over trials", inside the SVG', async () => {
    const { page, close } = await openLab();
    const charts = ['needle-chart', 'mitigation-chart'];
    const titles = () => Promise.all(charts.map((chart) => page.$eval(`#${chart}`, (svg) => {
      const title = svg.querySelector('text.axis-title[transform]');
      const [box, frame] = [title.getBoundingClientRect(), svg.getBoundingClientRect()];
      return { text: title.textContent, inside: box.top >= frame.top && box.bottom <= frame.bottom && box.left >= frame.left };
    })));
    await page.waitForSelector('#mitigation-chart .series path', { timeout: TIMEOUT_MS });
    assert.deepEqual(await titles(), charts.map(() => ({ text: 'attention mass on the needle', inside: true })));
    await page.selectOption('#metric', 'top1');
    // both charts drawn again: the read-outs in percent (the mitigation's "mean" is the first)
    await page.waitForFunction(() => ['#needle-summary dd', '#mitigation-summary dd']
      .every((selector) => document.querySelector(selector).textContent.includes('%')), null, { timeout: TIMEOUT_MS });
    assert.deepEqual(await titles(), charts.map(() => ({ text: 'top-1 rate over trials', inside: true })));
    await close();
  });

  test('with the top-1 metric the needle and mitigation charts\' y axes run from 0% to 100%', async () => {
    const { page, close } = await openLab('#metric=top1');
    await page.waitForFunction(() => ['needle-summary', 'mitigation-summary']
      .every((id) => document.getElementById(id).textContent.includes('%')), null, { timeout: TIMEOUT_MS });
    for (const chart of ['needle-chart', 'mitigation-chart']) {
      const axis = await page.$eval(`#${chart}`, (svg) => ({
        height: svg.querySelector('.x-axis').transform.baseVal.consolidate().matrix.f,
        ticks: [...svg.querySelectorAll('.y-axis .tick')].map((tick) => [tick.textContent, tick.transform.baseVal.consolidate().matrix.f]),
      }));
      assert.deepEqual(axis.ticks.map(([label]) => label), ['0%', '20%', '40%', '60%', '80%', '100%'], chart);
      // 0% on the x axis, 100% at the plot's top (d3 sets ticks half a pixel off): the domain is [0, 1]
      assert.deepEqual([axis.ticks[0][1], axis.ticks.at(-1)[1]], [axis.height + 0.5, 0.5], chart);
    }
    await close();
  });

  test('the needle grid at phone width: its colours follow the log of the mass from the lowest to the highest, and its colour bar\'s labels fit the SVG', async () => {
    const { settings } = parseHash('');
    const { n, ...model } = modelOptions(settings);
    const grid = (await nodeEngine()).needleGrid({ ...model, ...needleOptions(settings), lengths: GRID_LENGTHS });
    const multiples = Array.from(grid.values, (v, k) => v * (GRID_LENGTHS[Math.floor(k / grid.cols)] - 1));
    const [low, high] = [Math.min(...multiples), Math.max(...multiples)];
    assert.ok(low > 0 && high / low > 1000, `the defaults' grid spans decades: ${low} to ${high}`);
    const hex = (color) => color.match(/[\da-f]{2}/gi).map((channel) => parseInt(channel, 16));

    const { page, close } = await openPage(suite, 'lab.html', { viewport: PHONE });
    await page.waitForFunction(() => document.querySelectorAll('#needle-grid .cells rect').length === 77, null, { timeout: TIMEOUT_MS });
    const drawn = await page.$eval('#needle-grid', (svg) => {
      const box = svg.getBoundingClientRect();
      return {
        width: box.width,
        fills: [...svg.querySelectorAll('.cells rect')].map((cell) => cell.getAttribute('fill')),
        texts: [...svg.querySelectorAll('.grid-color-bar text')].map((text) => {
          const { left, right } = text.getBoundingClientRect();
          return { text: text.textContent, left: left - box.left, right: right - box.left };
        }),
      };
    });
    drawn.fills.forEach((fill, k) => {
      const expected = interpolateViridis(Math.log(multiples[k] / low) / Math.log(high / low));
      const off = Math.max(...hex(fill).map((channel, c) => Math.abs(channel - hex(expected)[c])));
      assert.ok(off <= 1, `cell ${k} (${multiples[k]}× a fair share): ${fill}, viridis on the log scale ${expected}`);
    });
    // two cells a decade or more apart, both below a tenth of the highest, differ in colour
    const lowest = multiples.indexOf(low);
    const decadeUp = multiples.findIndex((v) => v >= 10 * low && v < high / 10);
    assert.ok(decadeUp >= 0 && drawn.fills[decadeUp] !== drawn.fills[lowest], `${drawn.fills[lowest]} at ${low}, ${drawn.fills[decadeUp]} at ${multiples[decadeUp]}`);

    assert.deepEqual(drawn.texts.map(({ text }) => text), ['0.0109× a fair share', '42.5× a fair share']);
    for (const { text, left, right } of drawn.texts) {
      assert.ok(left >= 0 && right <= drawn.width, `“${text}” from ${left} to ${right} px in an SVG ${drawn.width} px wide`);
    }
    await close();
  });

  test('the grid\'s colour note names its scale: log where the masses span one, linear where they do not and for the top-1 rate; its colour bar\'s ends are the scale\'s, 0% and 100% for a rate of 0% everywhere', async () => {
    const gridDrawn = (page) => page.waitForFunction(() => document.querySelectorAll('#needle-grid .cells rect').length === 77, null, { timeout: TIMEOUT_MS });
    const spanning = await openLab();
    await gridDrawn(spanning.page);
    assert.match(await spanning.page.textContent('#grid-scale'),
      /^Colour, on a log scale: dark purple = [\d.]+× a fair share \(the grid's lowest above 0\), yellow = [\d.]+× a fair share \(its highest\)\.$/);
    await spanning.page.selectOption('#metric', 'top1');
    await spanning.page.waitForFunction(() => document.getElementById('grid-scale').textContent.includes('%'), null, { timeout: TIMEOUT_MS });
    assert.equal(await spanning.page.textContent('#grid-scale'), 'Colour, on a linear scale: dark purple = 0%, yellow = 100%.');
    await spanning.close();

    // a top-1 rate of 0% in every cell: the bar's ends are the scale's, 0% and 100%, named as no lowest or highest of the grid
    const never = await openLab('#metric=top1&signal=1&noise=3');
    await gridDrawn(never.page);
    assert.deepEqual(await never.page.$$eval('#needle-grid .cells rect title', (titles) => [...new Set(titles.map((t) => t.textContent.split(': ')[1]))]),
      ['0%']);
    assert.deepEqual(await never.page.$$eval('#needle-grid .grid-color-bar text', (texts) => texts.map((text) => text.textContent)), ['0%', '100%']);
    await never.close();

    const flat = await openPage(suite, 'lab.html', {
      prepare: (context) => context.route((url) => url.pathname.endsWith('/lab-worker.js') && url.search === '',
        (route) => route.fulfill({ status: 200, contentType: 'text/javascript', body: FLAT_GRID_LAB_WORKER })),
    });
    await gridDrawn(flat.page);
    assert.equal(await flat.page.textContent('#grid-scale'), 'Colour, on a linear scale: dark purple = 0× a fair share, yellow = 1× a fair share.');
    assert.deepEqual(await flat.page.$$eval('#needle-grid .grid-color-bar text', (texts) => texts.map((text) => text.textContent)),
      ['0× a fair share', '1× a fair share']);
    const fills = await flat.page.$$eval('#needle-grid .cells rect', (cells) => cells.map((cell) => cell.getAttribute('fill')));
    assert.deepEqual([...new Set(fills)], [interpolateViridis(0)], 'every cell the lowest colour');
    await flat.close();
  });

  test('a section is busy (aria-busy, dimmed, "computing…") while its numbers are computed, and not once they come or fail', async () => {
    const { page, close } = await openPage(suite, 'lab.html', {
      prepare: (context) => context.route((url) => url.pathname.endsWith('/lab-worker.js') && url.search === '',
        (route) => route.fulfill({ status: 200, contentType: 'text/javascript', body: holdingLabWorker('mitigation') })),
    });
    const stateOf = (heading) => page.$eval(`#${heading}`, (element) => {
      const section = element.closest('section');
      return { busy: section.getAttribute('aria-busy'), dimmed: getComputedStyle(section.querySelector('.chart')).opacity,
        timing: section.querySelector('.panel-head .muted')?.textContent.replace(/^computing… \d+ s$/, 'computing…') ?? null };
    });
    const release = (outcome) => page.evaluate((message) => new BroadcastChannel('lab-release').postMessage(message), outcome);
    const notBusy = (heading) => page.waitForFunction((id) => !document.getElementById(id).closest('section').hasAttribute('aria-busy'),
      heading, { timeout: TIMEOUT_MS });

    // the first mitigation is held: its section is busy, the needle's is done
    await page.waitForSelector('#needle-chart .series path', { timeout: TIMEOUT_MS });
    await notBusy('needle-heading');
    assert.deepEqual(await stateOf('mitigation-heading'), { busy: 'true', dimmed: '0.45', timing: 'computing…' });
    assert.match((await stateOf('needle-heading')).timing, NEEDLE_TIME);
    assert.equal((await stateOf('needle-heading')).dimmed, '1');
    await release('answer');
    await notBusy('mitigation-heading');
    const answered = await stateOf('mitigation-heading');
    assert.deepEqual({ ...answered, timing: answered.timing.replace(/\d+/, 'N') }, { busy: null, dimmed: '1', timing: 'N ms' });
    assert.equal(await page.locator('#mitigation-chart .series path.line').count(), 2);

    // another mitigation, held, then failed: busy until the failure, which clears the timing;
    // meanwhile the text is the chosen mitigation's and says whose numbers the chart still shows,
    // and a redraw of those (a resize) leaves their legend, the text and "computing…" as they were
    await page.check('input[name="mitigation"][value="ms-poe"]');
    await page.waitForFunction(() => document.getElementById('mitigation-timing').textContent === 'computing…', null, { timeout: TIMEOUT_MS });
    const shown = () => page.evaluate(() => ({
      heading: document.querySelector('#mitigation-text h3').textContent,
      reading: document.querySelector('#mitigation-text .reading').textContent,
      legend: [...document.querySelectorAll('#mitigation-legend li')].map((item) => item.textContent).filter((text) => text.startsWith('after')),
    }));
    const whileComputing = {
      heading: 'Ms-PoE: multi-scale positions',
      reading: 'The chart still shows Query-aware contextualisation, until this mitigation\'s numbers come.',
      legend: ['after: Query-aware contextualisation'],
    };
    assert.deepEqual(await shown(), whileComputing);
    assert.deepEqual(await stateOf('mitigation-heading'), { busy: 'true', dimmed: '0.45', timing: 'computing…' });
    await page.setViewportSize({ width: 1300, height: 1000 });
    await page.waitForTimeout(300);
    assert.deepEqual(await shown(), whileComputing);
    assert.deepEqual(await stateOf('mitigation-heading'), { busy: 'true', dimmed: '0.45', timing: 'computing…' });
    await release('fail');
    await notBusy('mitigation-heading');
    assert.deepEqual(await stateOf('mitigation-heading'), { busy: null, dimmed: '1', timing: '' });
    assert.equal(await page.textContent('#notices'), 'the test failed this computation');
    await close();
  });

  test('a long computation\'s timing counts the seconds since it was asked, from 2 s on, until its numbers come', async () => {
    const { page, close } = await openPage(suite, 'lab.html', {
      prepare: (context) => context.route((url) => url.pathname.endsWith('/lab-worker.js') && url.search === '',
        (route) => route.fulfill({ status: 200, contentType: 'text/javascript', body: holdingLabWorker('mitigation') })),
    });
    const timing = () => page.textContent('#mitigation-timing');
    // every reading of the held computation's timing, as the page writes it
    await page.evaluate(() => {
      window.timings = [];
      const element = document.getElementById('mitigation-timing');
      new MutationObserver(() => window.timings.push([Math.round(performance.now()), element.textContent]))
        .observe(element, { childList: true, characterData: true, subtree: true });
    });
    await page.waitForFunction(() => document.getElementById('mitigation-timing').textContent === 'computing… 4 s', null, { timeout: TIMEOUT_MS });
    const readings = await page.evaluate(() => window.timings);
    // the seconds written, each once (a timer late under load may write one twice or skip one)
    const seconds = [...new Set(readings.map(([, text]) => text.match(/^computing… (\d+) s$/)?.[1]).filter(Boolean).map(Number))];
    assert.ok(seconds[0] >= 2, `nothing counted before 2 s: ${JSON.stringify(readings)}`);
    assert.ok(seconds.every((value, k) => k === 0 || value > seconds[k - 1]) && seconds.at(-1) === 4, JSON.stringify(readings));
    await page.evaluate(() => new BroadcastChannel('lab-release').postMessage('answer'));
    await page.waitForFunction(() => /^\d+ ms$/.test(document.getElementById('mitigation-timing').textContent), null, { timeout: TIMEOUT_MS });
    await page.waitForTimeout(1500);
    assert.match(await timing(), /^\d+ ms$/, 'no count after the answer');
    await close();
  });

  test('the needle section reads "computing…" while its grid computes after the sweep is drawn, then the time from asking to the grid drawn', async () => {
    const { page, close } = await openPage(suite, 'lab.html', {
      prepare: (context) => context.route((url) => url.pathname.endsWith('/lab-worker.js') && url.search === '',
        (route) => route.fulfill({ status: 200, contentType: 'text/javascript', body: holdingLabWorker('grid') })),
    });
    const HELD_MS = 600;
    const section = () => page.$eval('#needle-heading', (heading) => ({
      busy: heading.closest('section').getAttribute('aria-busy'),
      timing: document.getElementById('needle-timing').textContent.replace(/^computing… \d+ s$/, 'computing…'),
    }));
    await page.waitForSelector('#needle-chart .series path', { timeout: TIMEOUT_MS });
    assert.deepEqual(await section(), { busy: 'true', timing: 'computing…' }, 'the sweep drawn, the grid held');
    await page.setViewportSize({ width: 1300, height: 1000 });  // a redraw of every chart leaves the timing alone
    await page.waitForTimeout(HELD_MS);
    assert.deepEqual(await section(), { busy: 'true', timing: 'computing…' });
    await page.evaluate(() => new BroadcastChannel('lab-release').postMessage('answer'));
    await page.waitForFunction(() => !document.getElementById('needle-heading').closest('section').hasAttribute('aria-busy'), null, { timeout: TIMEOUT_MS });
    assert.equal(await page.locator('#needle-grid .cells rect').count(), 77);
    const { busy, timing } = await section();
    assert.equal(busy, null);
    assert.match(timing, NEEDLE_TIME);
    assert.ok(Number(timing.match(NEEDLE_TIME)[1]) >= HELD_MS, `the total, the grid's wait included: ${timing}`);
    await close();
  });

  test('the needle section\'s time waits for a grid asked before: a slope asks the sweep and the grid, n then only the sweep, and the time comes once the grid is drawn', async () => {
    const { page, close } = await openPage(suite, 'lab.html', {
      prepare: (context) => context.route((url) => url.pathname.endsWith('/lab-worker.js') && url.search === '',
        (route) => route.fulfill({ status: 200, contentType: 'text/javascript', body: holdingLabWorker('grid') })),
    });
    const HELD_MS = 600;
    const release = () => page.evaluate(() => new BroadcastChannel('lab-release').postMessage('answer'));
    const idle = () => page.waitForFunction(() => !document.getElementById('needle-heading').closest('section').hasAttribute('aria-busy'),
      null, { timeout: TIMEOUT_MS });
    const timing = async () => (await page.textContent('#needle-timing')).replace(/^computing… \d+ s$/, 'computing…');
    const sweepPath = () => pathOf(page, '#needle-chart .series path.line');
    const sweepRedrawn = (old) => page.waitForFunction((d) => document.querySelector('#needle-chart .series path.line').getAttribute('d') !== d,
      old, { timeout: TIMEOUT_MS });
    const slide = (id, value) => page.$eval(`#${id}`, (slider, v) => {
      slider.value = String(v);
      slider.dispatchEvent(new Event('input', { bubbles: true }));
    }, value);
    await page.waitForSelector('#needle-chart .series path.line', { timeout: TIMEOUT_MS });
    const gridTitles = () => page.$$eval('#needle-grid .cells rect title', (nodes) => nodes.map((node) => node.textContent));
    await release();  // the first grid
    await idle();
    assert.match(await timing(), NEEDLE_TIME);
    const firstGrid = await gridTitles();

    // the slope: a sweep and a grid (held); the sweep drawn, the section computing
    let before = await sweepPath();
    await slide('slope', 12);  // 0.01
    await sweepRedrawn(before);
    assert.equal(await timing(), 'computing…');
    // n: the sweep alone (the grid's lengths do not depend on n); drawn while the slope's grid is held
    before = await sweepPath();
    await slide('n', 10);  // 512 tokens
    await sweepRedrawn(before);
    await page.waitForTimeout(HELD_MS);
    assert.deepEqual([await timing(), await page.$eval('#needle-heading', (h) => h.closest('section').getAttribute('aria-busy'))],
      ['computing…', 'true'], 'the slope\'s grid is still computing');
    await release();
    await idle();
    const written = (await timing()).match(NEEDLE_TIME);
    assert.ok(written && Number(written[1]) >= HELD_MS, `the time from asking (n) to the grid drawn: ${await timing()}`);
    assert.notDeepEqual(await gridTitles(), firstGrid, 'the slope\'s grid drawn');
    await close();
  });

  test('the mitigation says what it did with these settings: reordering lowers the mean at the defaults, query-aware the top-1 rate\'s', async () => {
    const engine = await nodeEngine();
    const cases = [
      { hash: '#mitigation=reorder', type: 'reorder', f: format('.3g') },
      { hash: '#metric=top1', type: 'query-aware', f: format('.0%') },
    ];
    for (const { hash, type, f } of cases) {
      const { settings } = parseHash(hash);
      const options = { ...modelOptions(settings), ...needleOptions(settings) };
      const [before, after] = [engine.needleSweep(options), engine.needleSweep({ ...options, mitigation: { type } })];
      const [worstBefore, worstAfter] = [before, after].map((s) => Math.min(...s.retrieval));
      assert.ok(after.summary.mean < before.summary.mean, `${hash}: the mean falls in the engine`);
      const worstChange = f(worstBefore) === f(worstAfter) ? `leaves the worst depth at ${f(worstBefore)}`
        : `${worstAfter > worstBefore ? 'raises' : 'lowers'} the worst depth from ${f(worstBefore)} to ${f(worstAfter)}`;

      const { page, close } = await openLab(hash);
      await page.waitForSelector('#mitigation-text .reading', { timeout: TIMEOUT_MS });
      // a top-1 verdict says what its rates rest on: 8 seeded trials, steps of 12.5%
      const trials = settings.metric === 'top1' ? ' Each depth\'s rate counts 8 seeded trials: it moves in steps of 12.5%, and a step or two can be chance.' : '';
      assert.equal(await page.textContent('#mitigation-text .reading'),
        `With these settings it lowers the mean from ${f(before.summary.mean)} to ${f(after.summary.mean)} and ${worstChange}.${trials}`);
      assert.match(await page.textContent('#mitigation-summary'), new RegExp(`^mean${f(before.summary.mean)} → ${f(after.summary.mean)}worst depth`));
      // the chart's accessible name: the section's heading, the mitigation's and the verdict, not all its text
      const name = await page.$eval('#mitigation-chart', (svg) => svg.getAttribute('aria-labelledby').split(' ')
        .map((id) => document.getElementById(id).textContent).join(' '));
      assert.equal(name, `4. Mitigations ${MITIGATIONS[type].name} ${await page.textContent('#mitigation-text .reading')}`);
      assert.ok(name.length < 300, `${name.length} characters (1,219 when it was all the section's text)`);
      await close();
    }
  });

  test('shows the published curve, labelled and apart from the simulation', async () => {
    const { page, close } = await openLab();
    const panel = page.locator('section.published');
    assert.match(await panel.locator('h2').textContent(), /Published data/);
    assert.match(await panel.textContent(), /Liu et al\./);
    // 20 documents: four models, five positions each, plus their closed-book and oracle lines.
    assert.equal(await page.locator('#published-chart .series path[d^="M"]').count(), 12);
    assert.equal(await page.locator('#published-chart circle').count(), 20);
    assert.match(await page.textContent('#published-legend'), /GPT-3\.5-Turbo.*closed book/s);
    // each model in a colour of its own, none the grey of the closed-book key
    const { strokes, grey } = await solidStrokes(page, '#published-chart');
    assert.equal(new Set(strokes).size, 4, `the models' colours: ${strokes}`);
    assert.ok(!strokes.includes(grey), `no model in the key's grey ${grey}: ${strokes}`);
    // the x axis ticks where the data sit
    assert.deepEqual(publishedPositions(20), [1, 5, 10, 15, 20]);
    assert.deepEqual(await xTicksOf(page, 'published-chart'), publishedPositions(20));
    await page.selectOption('#documents', '30');
    await page.waitForFunction(() => document.querySelectorAll('#published-chart circle').length === 28, null, { timeout: TIMEOUT_MS });
    assert.deepEqual(await xTicksOf(page, 'published-chart'), publishedPositions(30));
    // The simulation's charts carry no published series, and the published chart no simulated one.
    assert.equal(await page.locator('#position-chart .series').count(), 1);
    assert.doesNotMatch(await page.textContent('#published-legend'), /simulation|before|after/);
    await close();
  });

  test('the documents select is as wide as its options, beside its label on one line, inside its panel, at 1,400 and 390 px', async () => {
    for (const viewport of [DESKTOP, PHONE]) {
      const { page, close } = await openPage(suite, 'lab.html#documents=30', { viewport });
      const drawn = await page.$eval('#documents', (select) => {
        const label = document.querySelector('label[for="documents"]');
        const panel = select.closest('section');
        const padding = Number.parseFloat(getComputedStyle(panel).paddingRight);
        const [box, labelBox, panelBox] = [select, label, panel].map((element) => element.getBoundingClientRect());
        const width = box.width;
        select.style.width = 'max-content';
        const fitted = select.getBoundingClientRect().width;
        select.style.width = '';
        return {
          width, fitted, text: select.selectedOptions[0].textContent,
          labelLines: labelBox.height / Number.parseFloat(getComputedStyle(label).lineHeight),
          sameRow: Math.abs((box.top + box.bottom) / 2 - (labelBox.top + labelBox.bottom) / 2) < 2,
          inside: box.left >= panelBox.left && box.right <= panelBox.right - padding,
        };
      });
      const where = `${viewport.width} px`;
      assert.equal(drawn.text, '30 documents', where);
      assert.ok(Math.abs(drawn.width - drawn.fitted) < 1, `${where}: the select ${drawn.width} px wide, its options ${drawn.fitted} px`);
      assert.ok(drawn.labelLines < 1.5, `${where}: the label on ${drawn.labelLines} lines`);
      assert.deepEqual([drawn.sameRow, drawn.inside], [true, true], `${where}: beside its label, inside the panel`);
      await close();
    }
  });

  test('chart 3\'s "Retrieval measured as" select is as wide as its options and inside its panel at every width from 320 to 1,920 px', async () => {
    const { page, close } = await openLab();
    for (const width of [320, 390, 600, 768, 950, 1000, 1200, 1280, 1400, 1920]) {
      await page.setViewportSize({ width, height: 900 });
      await page.waitForTimeout(100);
      const drawn = await page.$eval('#metric', (select) => {
        const panel = select.closest('section');
        const padding = Number.parseFloat(getComputedStyle(panel).paddingRight);
        const [box, panelBox] = [select, panel].map((element) => element.getBoundingClientRect());
        const widths = [...select.options].map((option) => {
          select.value = option.value;
          select.style.width = 'max-content';
          const fitted = select.getBoundingClientRect().width;
          select.style.width = '';
          return fitted;
        });
        select.value = 'mass';
        return { width: box.width, fitted: Math.max(...widths), inside: box.left >= panelBox.left && box.right <= panelBox.right - padding };
      });
      assert.ok(drawn.width >= drawn.fitted - 1, `${width} px: the select ${drawn.width} px wide, its widest option ${drawn.fitted} px`);
      assert.equal(drawn.inside, true, `${width} px: inside the panel`);
    }
    await close();
  });

  test('the published chart draws each model\'s closed-book (dashed) and oracle (dotted) accuracy at the data\'s values on its y axis, keyed in the legend and in the SVG', async () => {
    const { page, close } = await openLab();
    // the y of a value on the chart's axis, from two of its ticks (translate(0,y) and the value they read); d3-axis
    // sets its ticks half a pixel lower than the scale (crisp lines at one device pixel per pixel)
    const D3_AXIS_OFFSET = 0.5;
    const ticks = await page.$$eval('#published-chart .y-axis .tick', (nodes) => nodes.map((node) => [
      Number(node.querySelector('text').textContent), Number(node.getAttribute('transform').match(/,([-\d.]+)\)/)[1])]));
    const [[v0, y0], [v1, y1]] = [ticks[0], ticks.at(-1)];
    const yOf = (value) => y0 + (value - v0) * (y1 - y0) / (v1 - v0) - D3_AXIS_OFFSET;
    const levelOf = async (id) => {
      const points = pathPoints(await page.getAttribute(`#published-chart [data-series="${id}"] path.line`, 'd'));
      assert.equal(new Set(points.map(([, y]) => y)).size, 1, `${id} is level`);
      return { y: points[0][1], dotted: await page.$eval(`#published-chart [data-series="${id}"]`, (g) => g.classList.contains('dotted')) };
    };
    for (const [k, model] of PUBLISHED.models.entries()) {
      const oracle = await levelOf(`oracle-${k}`);
      const closedBook = await levelOf(`closed-book-${k}`);
      assert.ok(Math.abs(oracle.y - yOf(model.oracle)) < 0.01, `${model.model}: oracle at ${model.oracle}% (y ${oracle.y}, expected ${yOf(model.oracle)})`);
      assert.ok(Math.abs(closedBook.y - yOf(model.closed_book)) < 0.01, `${model.model}: closed book at ${model.closed_book}%`);
      assert.equal(oracle.dotted, true);
      assert.equal(await page.textContent(`#published-chart [data-series="oracle-${k}"] title`),
        `${model.model}, oracle (only the answer document): ${model.oracle.toFixed(1)}%`);
    }
    // GPT-3.5-Turbo at 20 documents: 53.8% in the middle, below the 56.1% closed book; its best, 75.8%, below the 88.3% oracle
    const gpt = (await page.$$eval('#published-chart .series', (groups) => groups.map((g) => [...g.querySelectorAll('circle')]
      .map((c) => Number(c.getAttribute('cy'))))))[0];
    assert.ok(Math.abs(gpt[2] - yOf(53.8)) < 0.01 && gpt[2] > (await levelOf('closed-book-0')).y, 'the middle below the closed book');
    assert.ok(Math.min(...gpt) > (await levelOf('oracle-0')).y, 'the best position below the oracle');
    // each point's tooltip in the data's precision, as the page's text quotes it (53.8%, not the axis's 54)
    const pointTitles = await page.$$eval('#published-chart .series', (groups) => groups.map((g) => [...g.querySelectorAll('circle title')]
      .map((title) => title.textContent)).filter((titles) => titles.length > 0));
    assert.deepEqual(pointTitles, PUBLISHED.models.map(({ model, curves }) => {
      const { positions, accuracy } = curves.find((curve) => curve.documents === 20);
      return positions.map((position, p) => `${model}: ${position} → ${accuracy[p].toFixed(1)}%`);
    }));
    assert.equal(pointTitles[0][2], 'GPT-3.5-Turbo: 10 → 53.8%');
    const keys = await page.$$eval('#published-legend li', (items) => items.map((item) => [item.textContent, item.className]));
    assert.deepEqual(keys.slice(-2), [
      ['dashed: the same model with no documents (closed book)', 'series-3 dashed'],
      ['dotted: the same model given only the document with the answer (oracle)', 'series-3 dotted'],
    ]);
    const svg = (await downloadOf(page, 'button[data-svg="published-chart"]')).bytes.toString('utf8');
    const exported = await page.evaluate((source) => {
      const file = new DOMParser().parseFromString(source, 'image/svg+xml');
      const keyLine = (text) => [...file.querySelectorAll('text')].find((t) => t.textContent === text)?.previousElementSibling;
      return {
        oracleKeyDash: keyLine('dotted: the same model given only the document with the answer (oracle)')?.getAttribute('stroke-dasharray'),
        closedKeyDash: keyLine('dashed: the same model with no documents (closed book)')?.getAttribute('stroke-dasharray'),
        oracleLine: file.querySelector('[data-series="oracle-0"] path')?.getAttribute('d'),
        oracleDash: file.querySelector('[data-series="oracle-0"] path')?.getAttribute('stroke-dasharray'),
      };
    }, svg);
    assert.deepEqual({ oracle: exported.oracleKeyDash, closedBook: exported.closedKeyDash }, { oracle: '2 3', closedBook: '6 4' });
    assert.equal(pathPoints(exported.oracleLine)[0][1], (await levelOf('oracle-0')).y, 'the SVG file draws the oracle line');
    assert.equal(exported.oracleDash, '2px, 3px', 'dotted in the file too');
    await close();
  });

  test('at 30 documents the extended-context variants\' closed-book and oracle lines are their own (Liu et al., Table 1), titled and drawn at those values', async () => {
    // Table 1 of Liu et al. (TACL 2024), written out here: the 30-document curves' models, in the chart's order
    const TABLE_1 = [
      ['GPT-3.5-Turbo (16K)', 56.0, 88.6], ['Claude-1.3 (100K)', 48.2, 76.4], ['LongChat-13B (16K)', 35.0, 83.4], ['MPT-30B-Instruct', 31.5, 81.9],
    ];
    const { page, close } = await openLab('#documents=30');
    await page.waitForFunction(() => document.querySelectorAll('#published-chart circle').length === 28, null, { timeout: TIMEOUT_MS });
    const ticks = await page.$$eval('#published-chart .y-axis .tick', (nodes) => nodes.map((node) => [
      Number(node.querySelector('text').textContent), Number(node.getAttribute('transform').match(/,([-\d.]+)\)/)[1])]));
    const [[v0, y0], [v1, y1]] = [ticks[0], ticks.at(-1)];
    const yOf = (value) => y0 + (value - v0) * (y1 - y0) / (v1 - v0) - 0.5;  // d3-axis sets its ticks half a pixel lower
    for (const [k, [model, closedBook, oracle]] of TABLE_1.entries()) {
      for (const [id, value, words] of [[`closed-book-${k}`, closedBook, 'closed book (no documents)'], [`oracle-${k}`, oracle, 'oracle (only the answer document)']]) {
        assert.equal(await page.textContent(`#published-chart [data-series="${id}"] title`), `${model}, ${words}: ${value.toFixed(1)}%`);
        const [[, y]] = pathPoints(await page.getAttribute(`#published-chart [data-series="${id}"] path.line`, 'd'));
        assert.ok(Math.abs(y - yOf(value)) < 0.01, `${model}, ${words}: y ${y}, ${value}% at ${yOf(value)}`);
      }
    }
    await close();
  });

  test('draws the needle sweep, the grid and a mitigation: the engine\'s numbers for the default settings', async () => {
    // the lab's defaults as engine options, written out here (web/lab/state.js DEFAULTS)
    const model = { layers: 12, residual: 0.85, causal: true, window: 0, sinks: 0, positional: { type: 'alibi', slope: 0.003 } };
    const needle = { signal: 3, noise: 1, trials: 8, metric: 'mass', depths: 11, seed: 1 };
    const lengths = [64, 128, 256, 512, 1024, 2048, 4096];
    const engine = await nodeEngine();
    const sweep = engine.needleSweep({ n: 1024, ...model, ...needle });
    const grid = engine.needleGrid({ ...model, ...needle, lengths });
    const calibrated = engine.needleSweep({ n: 1024, ...model, ...needle, mitigation: { type: 'calibration' } });
    // a read-out of three significant digits, or of two decimals, against the engine's number
    const near = (shown, expected, what, tolerance = 0.005 * Math.abs(expected)) => assert.ok(Math.abs(shown - expected) <= tolerance,
      `${what}: ${shown} shown, the engine's ${expected}`);
    const numbersOf = (text) => text.match(/\d+(\.\d+)?(e[+-]?\d+)?/g).map(Number);

    const { page, close } = await openLab();
    await page.waitForSelector('#needle-chart .series path', { timeout: TIMEOUT_MS });
    assert.equal(await page.locator('#needle-chart circle').count(), 11);
    const readOuts = await page.$$eval('#needle-summary dd', (nodes) => nodes.map((node) => node.textContent));
    // led by the worst depth: 10%, not the middle (the sweep's lowest value, at its second depth)
    const retrieval = Array.from(sweep.retrieval);
    assert.equal(retrieval.indexOf(Math.min(...retrieval)), 1);
    assert.equal(readOuts[0], `${format('.3g')(Math.min(...retrieval))} at 10%`);
    assert.equal(readOuts[0], '0.00144 at 10%');
    [sweep.summary.begin, sweep.summary.middle, sweep.summary.end, sweep.summary.maxOverMin].forEach((value, k) => {
      near(numbersOf(readOuts[k + 1])[0], value, `the sweep's read-out ${k + 1}`);
    });
    // each point's tooltip: its depth and its mass in the read-outs' three significant digits, not float64's 17
    const pointTitles = (chart) => page.$$eval(`#${chart} .series`, (groups) => groups.map((g) => [...g.querySelectorAll('circle title')]
      .map((title) => title.textContent)));
    const titlesOf = (label, s) => Array.from(s.retrieval, (value, k) => `${label}: ${format('.0%')(s.depths[k])} → ${format('.3g')(value)}`);
    assert.deepEqual(await pointTitles('needle-chart'), [titlesOf('attention mass on the needle', sweep)]);
    await page.waitForFunction(() => document.querySelectorAll('#needle-grid .cells rect').length === 77, null, { timeout: TIMEOUT_MS });
    // each cell's title: "n = L, depth D%: X× a fair share" (the mass times L − 1)
    const titles = await page.$$eval('#needle-grid .cells rect title', (nodes) => nodes.map((node) => node.textContent));
    titles.forEach((title, k) => {
      const [length, , shown] = numbersOf(title);
      const r = Math.floor(k / grid.cols);
      assert.equal(length, lengths[r], title);
      near(shown, grid.values[k] * (lengths[r] - 1), title);
    });
    await page.waitForSelector('#mitigation-chart .series path', { timeout: TIMEOUT_MS });
    await page.check('input[name="mitigation"][value="calibration"]');
    await page.waitForFunction(() => document.getElementById('mitigation-text').textContent.includes('Calibration'), null, { timeout: TIMEOUT_MS });
    // mean, worst depth ("0.00144 at 10% → 0.00351 at 100%"), middle, max ÷ min: before → after
    const mitigationReadOuts = (await page.$$eval('#mitigation-summary dd', (nodes) => nodes.map((node) => node.textContent))).map(numbersOf);
    const worst = (s) => { const values = Array.from(s.retrieval); const k = values.indexOf(Math.min(...values)); return [values[k], s.depths[k] * 100]; };
    const expected = [
      [sweep.summary.mean, calibrated.summary.mean], [...worst(sweep), ...worst(calibrated)],
      [sweep.summary.middle, calibrated.summary.middle], [sweep.summary.maxOverMin, calibrated.summary.maxOverMin],
    ];
    assert.deepEqual(await pointTitles('mitigation-chart'), [titlesOf('before', sweep), titlesOf('after: Calibration (Found in the Middle)', calibrated)]);
    assert.equal(mitigationReadOuts.length, 4);
    mitigationReadOuts.forEach((numbers, k) => {
      assert.equal(numbers.length, expected[k].length, `read-out ${k}: ${numbers}`);
      numbers.forEach((shown, i) => near(shown, expected[k][i], `calibration's read-out ${k}, number ${i}`));
    });
    await close();
  });

  test('the needle grid\'s lengths on 1 and on 2 workers: the status line says so, and the cells are the same', async () => {
    const titles = [];
    const dealt = [];  // per page, the lengths each grid worker was asked for
    for (const cores of [2, 3]) {
      const { page, close } = await openPage(suite, 'lab.html', {
        prepare: async (context) => {
          await context.route((url) => url.pathname.endsWith('/lab-worker.js') && url.search === '',
            (route) => route.fulfill({ status: 200, contentType: 'text/javascript', body: WATCHED_LAB_WORKER }));
          await collectBroadcasts(context, 'grid-calls');
          await context.addInitScript((count) => {
            Object.defineProperty(Navigator.prototype, 'hardwareConcurrency', { get: () => count });
          }, cores);
        },
      });
      assert.match(await page.locator('#engine-status').textContent(),
        new RegExp(`ready: WebAssembly with relaxed SIMD in ${2 + cores - 1} workers \\(live curves 1, experiments 1, needle grid ${cores - 1}\\)\\.`));
      await page.waitForFunction(() => document.querySelectorAll('#needle-grid .cells rect').length === 77, null, { timeout: TIMEOUT_MS });
      titles.push(await page.$$eval('#needle-grid .cells rect title', (nodes) => nodes.map((node) => node.textContent)));
      dealt.push(await broadcasts(page, 'grid-calls', cores - 1));
      await close();
    }
    assert.equal(titles[0].length, 77);
    assert.deepEqual(titles[1], titles[0]);
    // one grid on one worker, then the same lengths dealt out to two, none twice
    const [[alone], shared] = dealt;
    assert.equal(dealt[0].length, 1, 'one grid worker asked once');
    assert.equal(shared.length, 2, 'two grid workers asked once each');
    assert.notEqual(shared[0].worker, shared[1].worker);
    assert.ok(shared.every(({ lengths }) => lengths.length > 0), 'each worker computes lengths');
    assert.deepEqual(shared.flatMap(({ lengths }) => lengths).sort((a, b) => a - b), [...alone.lengths].sort((a, b) => a - b));
  });

  test('the experiments ask the engine only what changed: another mitigation no needle sweep, RoPE\'s n above 1,024 no experiment; the numbers the engine\'s', async () => {
    const hash = '#positional=rope&n=2048';
    const { settings } = parseHash(hash);
    const model = modelOptions(settings, 1024);  // RoPE's experiments stop at 1,024 (state.js ROPE_EXPERIMENT_LIMIT)
    const needle = needleOptions(settings);
    const engine = await nodeEngine();
    const sweep = engine.needleSweep({ ...model, ...needle });
    const calibrated = engine.needleSweep({ ...model, ...needle, mitigation: { type: 'calibration' } });
    const { page, close } = await openPage(suite, `lab.html${hash}`, {
      prepare: async (context) => {
        await context.route((url) => url.pathname.endsWith('/lab-worker.js') && url.search === '',
          (route) => route.fulfill({ status: 200, contentType: 'text/javascript', body: COUNTING_LAB_WORKER }));
        await collectBroadcasts(context, 'lab-calls');
      },
    });
    const idle = () => page.waitForFunction(() => document.querySelectorAll('[aria-busy]').length === 0, null, { timeout: TIMEOUT_MS });
    const answered = (type) => page.evaluate((t) => globalThis.broadcasts['lab-calls'].filter((c) => c.type === t && 'sweeps' in c).length, type);
    const since = (start) => page.evaluate((k) => globalThis.broadcasts['lab-calls'].slice(k), start);
    const callCount = () => page.evaluate(() => globalThis.broadcasts['lab-calls'].length);
    const readOuts = (id) => page.$$eval(`#${id} dd`, (nodes) => nodes.map((node) => node.textContent));
    const numbersOf = (text) => text.match(/\d+(\.\d+)?(e[+-]?\d+)?/g).map(Number);
    const near = (shown, expected, what) => assert.ok(Math.abs(shown - expected) <= 0.005 * Math.abs(expected),
      `${what}: ${shown} shown, the engine's ${expected}`);

    await page.waitForFunction(() => document.querySelectorAll('#needle-grid .cells rect').length === 55, null, { timeout: TIMEOUT_MS });
    await page.waitForSelector('#mitigation-chart .series path', { timeout: TIMEOUT_MS });
    await idle();
    const needleShown = await readOuts('needle-summary');

    // another mitigation: one request, answered with one sweep (the mitigated one), no needle sweep asked again
    const beforeMitigation = await callCount();
    await page.check('input[name="mitigation"][value="calibration"]');
    await page.waitForFunction(() => document.getElementById('mitigation-text').textContent.includes('Calibration'), null, { timeout: TIMEOUT_MS });
    await idle();
    const mitigationCalls = await since(beforeMitigation);
    assert.deepEqual(mitigationCalls, [{ type: 'mitigation' }, { type: 'mitigation', sweeps: 1 }]);
    const mitigationShown = (await readOuts('mitigation-summary')).map(numbersOf);
    [[sweep.summary.mean, calibrated.summary.mean], null, [sweep.summary.middle, calibrated.summary.middle],
      [sweep.summary.maxOverMin, calibrated.summary.maxOverMin]].forEach((expected, k) => {
      expected?.forEach((value, i) => near(mitigationShown[k][i], value, `calibration's read-out ${k}, number ${i}`));
    });

    // n from 2,048 to 4,096 under RoPE: the curves again, the experiments (capped at 1,024) not
    const curvesBefore = await answered('curves');
    const beforeLength = await callCount();
    await page.$eval('[data-testid="n-slider"]', (slider) => {
      slider.value = slider.max;
      slider.dispatchEvent(new Event('input', { bubbles: true }));
    });
    await page.waitForFunction((count) => globalThis.broadcasts['lab-calls'].filter((c) => c.type === 'curves' && 'sweeps' in c).length > count,
      curvesBefore, { timeout: TIMEOUT_MS });
    await idle();
    assert.equal(await page.locator('#n-value').textContent(), '4,096 tokens');
    // asked and answered: the position curve and chart 2 (both drawn up to n)
    assert.deepEqual((await since(beforeLength)).map(({ type }) => type).sort(), ['curves', 'curves', 'rope', 'rope']);
    assert.deepEqual(await readOuts('needle-summary'), needleShown, 'the needle sweep as it was');
    assert.deepEqual((await readOuts('mitigation-summary')).map(numbersOf), mitigationShown, 'the mitigation as it was');
    // after the worst depth's read-out, the first document's, the middle's and the last's
    [sweep.summary.begin, sweep.summary.middle, sweep.summary.end].forEach((value, k) => {
      near(numbersOf(needleShown[k + 1])[0], value, `the sweep's read-out ${k + 1}`);
    });
    await close();
  });

  test('chart 2 draws the model\'s own RoPE weight, exp(s·(g(d) − 1)), for the chosen base and strength, and says so', async () => {
    // g(d), the mean cosine of a 64-wide head's rotation angles (core/include/attn/lab/position_model.hpp)
    const meanCosine = (d, base) => Array.from({ length: 32 }, (_, t) => Math.cos(d * base ** (-t / 32))).reduce((a, b) => a + b) / 32;
    const weight = (d, base, s) => Math.exp(s * (meanCosine(d, base) - 1));
    const readingNumber = async (page) => Number((await page.textContent('#rope-reading')).match(/ ([\d.e+-]+)× the attention/)[1]);
    const { page, close } = await openLab('#n=256&positional=rope&ropeBase=500&ropeStrength=8');
    await page.waitForSelector('#rope-chart .series path', { timeout: TIMEOUT_MS });
    const legend = await page.$$eval('#rope-legend li', (items) => items.map((item) => [item.textContent, item.className]));
    assert.equal(legend.length, 4);
    assert.match(legend[0][0], /^the model's weight exp\(s·\(g\(d\) − 1\)\), base 500, s = 8$/);
    assert.deepEqual(legend.slice(1).map(([text, style]) => [text.includes('(chosen)'), style.includes('faint')]),
      [[true, false], [false, true], [false, true]], 'base 500 chosen: its bound drawn dashed, the others faint');
    // the farthest key of 256 tokens, the first, is 255 before the final one
    assert.match(await page.textContent('#rope-reading'), /^The model uses this weight now: .* a key 255 tokens before it /);
    let expected = weight(255, 500, 8);
    assert.ok(Math.abs(await readingNumber(page) - expected) <= 0.005 * expected, `s = 8: ${await readingNumber(page)}, the formula's ${expected}`);
    // one point per distance from 1 to 255 (the engine's 0..64, then log-spaced)
    const solid = await page.$$eval('#rope-chart .series path', (paths) => paths.map((path) => path.getAttribute('d')));
    assert.equal(pathPoints(solid[0]).length, pathPoints(solid[1]).length);

    const before = solid[0];
    await page.$eval('#rope-strength', (slider) => {
      slider.value = '2';
      slider.dispatchEvent(new Event('input', { bubbles: true }));
    });
    await page.waitForFunction((d) => document.querySelector('#rope-chart .series path').getAttribute('d') !== d, before, { timeout: TIMEOUT_MS });
    expected = weight(255, 500, 2);
    await page.waitForFunction(() => document.querySelector('#rope-legend li').textContent.endsWith('s = 2'), null, { timeout: TIMEOUT_MS });
    assert.ok(Math.abs(await readingNumber(page) - expected) <= 0.005 * expected, `s = 2: ${await readingNumber(page)}, the formula's ${expected}`);

    await page.selectOption('#rope-base', '500000');
    await page.waitForFunction(() => document.querySelector('#rope-legend li').textContent.includes('base 500,000'), null, { timeout: TIMEOUT_MS });
    expected = weight(255, 500000, 2);
    assert.ok(Math.abs(await readingNumber(page) - expected) <= 0.005 * expected, `base 500,000: ${await readingNumber(page)}, the formula's ${expected}`);
    assert.deepEqual((await page.$$eval('#rope-legend li', (items) => items.map((item) => item.textContent.includes('(chosen)')))),
      [false, false, false, true]);
    await page.check('input[name="positional"][value="alibi"]');
    await page.waitForFunction(() => document.getElementById('rope-reading').textContent.includes('once the distance decay is RoPE'), null, { timeout: TIMEOUT_MS });
    await close();
  });

  test('chart 2 calls its base "chosen" only under RoPE: under ALiBi and with no decay, where the RoPE controls are hidden, its dashed bound is the solid line\'s base', async () => {
    const legend = (page) => page.$$eval('#rope-legend li', (items) => items.map((item) => [item.textContent, item.className]));
    const bound = (base, words, style) => [`RoFormer's bound, base ${base}${words ? ` (${words})` : ''} (head width 64)`, `series-${style}`];
    const weight = ['the model\'s weight exp(s·(g(d) − 1)), base 10,000, s = 6', 'series-0 solid'];
    const legendFor = (words) => [weight, bound('500', '', '1 faint'), bound('10,000', words, '2 dashed'), bound('500,000', '', '4 faint')];
    const { page, close } = await openLab();  // ALiBi
    await page.waitForSelector('#rope-chart .series path', { timeout: TIMEOUT_MS });
    assert.equal(await page.isVisible('#rope-base'), false, 'no base to choose under ALiBi');
    assert.deepEqual(await legend(page), legendFor('the solid line\'s base'));
    await page.check('input[name="positional"][value="rope"]');
    await page.waitForFunction(() => document.getElementById('rope-legend').textContent.includes('(chosen)'), null, { timeout: TIMEOUT_MS });
    assert.equal(await page.isVisible('#rope-base'), true);
    assert.deepEqual(await legend(page), legendFor('chosen'));
    await page.check('input[name="positional"][value="none"]');
    await page.waitForFunction(() => !document.getElementById('rope-legend').textContent.includes('(chosen)'), null, { timeout: TIMEOUT_MS });
    assert.deepEqual(await legend(page), legendFor('the solid line\'s base'));
    await close();
  });

  test('the final token\'s own share reads in three significant digits, the engine\'s, never "0.0%" (Primacy: 8.27e-23%)', async () => {
    const engine = await nodeEngine();
    for (const hash of [PRIMACY, '']) {
      const { values } = engine.positionCurve(labModel(hash));
      const expected = values[values.length - 1] * 100;
      const { page, close } = await openLab(hash);
      const shown = await page.$$eval('[data-testid="position-summary"] dd', (nodes) => nodes.at(-1).textContent);
      assert.match(shown, /^[\d.]+(e[+-]\d+)?%$/, `${hash}: “${shown}”`);
      const number = Number(shown.slice(0, -1));
      assert.ok(number > 0 && Math.abs(number - expected) <= 0.005 * expected, `${hash}: “${shown}”, the engine's ${expected}%`);
      await close();
    }
  });

  test('without distractor noise the needle note says one trial, every seeded trial being the same (the engine\'s sweeps of 1 and 8 trials are), not "8 seeded trials"', async () => {
    const engine = await nodeEngine();
    for (const hash of ['#noise=0', '#noise=0&metric=top1']) {
      const { settings } = parseHash(hash);
      const sweep = (trials) => Array.from(engine.needleSweep({ ...modelOptions(settings), ...needleOptions({ ...settings, trials }) }).retrieval);
      assert.deepEqual(sweep(8), sweep(1), `${hash}: 8 trials give what one does`);
    }
    const { settings } = parseHash('#noise=0.25');
    const noisy = (trials) => Array.from(engine.needleSweep({ ...modelOptions(settings), ...needleOptions({ ...settings, trials }) }).retrieval);
    assert.notDeepEqual(noisy(8), noisy(1), 'with noise the trials differ');

    const { page, close } = await openLab('#noise=0');
    const start = 'n = 1,024 tokens: 1,023 documents of one token each before the final token; 11 depths, ';
    const note = () => page.textContent('#needle-note');
    assert.equal(await note(), `${start}one trial: with no distractor noise every seeded trial would be the same.`);
    const slide = (id, value) => page.$eval(`#${id}`, (slider, v) => {
      slider.value = String(v);
      slider.dispatchEvent(new Event('input', { bubbles: true }));
    }, value);
    await slide('noise', 0.25);
    await page.waitForFunction((text) => document.getElementById('needle-note').textContent === text, `${start}8 seeded trials.`, { timeout: TIMEOUT_MS });
    await slide('trials', 1);
    await page.waitForFunction((text) => document.getElementById('needle-note').textContent === text, `${start}1 seeded trial.`, { timeout: TIMEOUT_MS });
    await close();
  });

  test('without distractor noise the needle note says that chart 4\'s reordering runs the seeded trials, its retriever\'s estimate being noisy (the engine\'s reordered sweeps of 1 and 8 trials differ)', async () => {
    const engine = await nodeEngine();
    const { settings } = parseHash('#noise=0&mitigation=reorder');
    const reordered = (trials) => Array.from(engine.needleSweep({
      ...modelOptions(settings), ...needleOptions({ ...settings, trials }), mitigation: mitigationOption(settings),
    }).retrieval);
    assert.notDeepEqual(reordered(8), reordered(1), 'after reordering the trials differ');

    const { page, close } = await openLab('#noise=0&mitigation=reorder');
    const start = 'n = 1,024 tokens: 1,023 documents of one token each before the final token; 11 depths, ';
    assert.equal(await page.textContent('#needle-note'), `${start}one trial: with no distractor noise every seeded trial would be the same; `
      + 'chart 4\'s sweep after reordering, 8 seeded trials: the retriever\'s estimate has noise of its own (σ = 1).');
    await page.$eval('#noise', (slider) => {
      slider.value = '0.25';
      slider.dispatchEvent(new Event('input', { bubbles: true }));
    });
    await page.waitForFunction((text) => document.getElementById('needle-note').textContent === text, `${start}8 seeded trials.`, { timeout: TIMEOUT_MS });
    await close();
  });

  test('the needle note follows the mitigation alone: without noise, choosing reordering adds its trials, choosing query-aware takes them away', async () => {
    const { page, close } = await openLab('#noise=0');
    const start = 'n = 1,024 tokens: 1,023 documents of one token each before the final token; 11 depths, '
      + 'one trial: with no distractor noise every seeded trial would be the same';
    const noted = (text) => page.waitForFunction((expected) => document.getElementById('needle-note').textContent === expected, text, { timeout: TIMEOUT_MS });
    await noted(`${start}.`);
    await page.check('input[name="mitigation"][value="reorder"]');
    await noted(`${start}; chart 4's sweep after reordering, 8 seeded trials: the retriever's estimate has noise of its own (σ = 1).`);
    await page.check('input[name="mitigation"][value="query-aware"]');
    await noted(`${start}.`);
    await close();
  });

  test('under RoPE above 1,024 tokens the needle note says what the experiments computed, as at any n: the length they use, the documents, the depths and the trials', async () => {
    const { page, close } = await openLab('#positional=rope&n=2048&noise=0');
    const start = 'With RoPE the needle experiments use n = 1,024 tokens (RoPE has no O(n) path in the engine): '
      + '1,023 documents of one token each before the final token; 11 depths, ';
    assert.equal(await page.textContent('#needle-note'), `${start}one trial: with no distractor noise every seeded trial would be the same.`);
    await page.$eval('#noise', (slider) => {
      slider.value = '0.25';
      slider.dispatchEvent(new Event('input', { bubbles: true }));
    });
    await page.waitForFunction((text) => document.getElementById('needle-note').textContent === text, `${start}8 seeded trials.`, { timeout: TIMEOUT_MS });
    await close();
  });

  test('the texts say what a document, the shared q·k direction and attention received are, which charts have content, and the sinks\' share the engine\'s', async () => {
    const { page, close } = await openLab();
    const text = (selector) => page.textContent(selector).then((t) => t.replace(/\s+/g, ' '));
    const intro = await text('.lab-intro');
    assert.doesNotMatch(intro, /every curve below/);
    assert.match(intro, /Charts 1 and 2 are what attention does with positions alone: every content score is zero\. Charts 3 and 4 add content/);
    assert.match(await text('#rope-note'), /^Shared q·k direction: the score/);
    assert.match(await text('section:has(#rope-heading) details'), /the Shared q·k direction slider sets s/);
    const chart1 = await text('section:has(#position-heading) details');
    assert.match(chart1, /With the measure attention received the curve is the mean row of R/);
    const chart3 = await text('section:has(#needle-heading) details');
    assert.match(chart3, /A “document” is a single token here: every position before the final token is one, so at n = 1,024 there are 1,023 documents/);
    assert.equal(await text('#needle-note'), 'n = 1,024 tokens: 1,023 documents of one token each before the final token; 11 depths, 8 seeded trials.');

    // the sinks' share in the text, the engine's for the Sinks + window preset at n = 1,024
    const [, tokens, sinks, shown, fair, context] = chart1.match(/at ([\d,]+) tokens the (\d+) sinks together feed the final token ([\d.]+)% of its input, about the ([\d.]+)% that \d+ of the ([\d,]+) context tokens/);
    const streaming = { ...DEFAULTS, ...PRESETS.find(({ id }) => id === 'streaming').settings };
    assert.deepEqual([Number(tokens.replace(',', '')), Number(sinks), Number(context.replace(',', ''))], [streaming.n, streaming.sinks, streaming.n - 1]);
    const engine = await nodeEngine();
    const { values } = engine.positionCurve(modelOptions(streaming));
    const sinkShare = values.subarray(0, streaming.sinks).reduce((a, b) => a + b);
    assert.equal(shown, (sinkShare * 100).toFixed(2));
    assert.equal(fair, (streaming.sinks / (streaming.n - 1) * 100).toFixed(2));
    assert.ok(sinkShare < streaming.sinks / (streaming.n - 1), 'the sinks get less than a fair share: they soak up nothing');
    await close();
  });

  test('every chart downloads as PNG and as an SVG that parses and carries its title, axis titles, ticks and legend', async () => {
    const { page, close } = await openLab();
    await page.waitForSelector('#needle-chart .series path', { timeout: TIMEOUT_MS });
    await page.waitForFunction(() => document.querySelectorAll('#needle-grid .cells rect').length === 77, null, { timeout: TIMEOUT_MS });
    await page.waitForSelector('#mitigation-chart .series path', { timeout: TIMEOUT_MS });
    const charts = await page.$$eval('button[data-svg]', (buttons) => buttons.map((button) => button.dataset.svg));
    assert.deepEqual(charts, ['position-chart', 'rope-chart', 'needle-chart', 'needle-grid', 'mitigation-chart', 'published-chart']);
    assert.deepEqual(await page.$$eval('button[data-png]', (buttons) => buttons.map((button) => button.dataset.png)), charts);
    const titles = ['1. The position curve', '2. RoPE\'s long-term decay', '3. A needle in the haystack', 'Depth × context length',
      '4. Mitigations', '5. Published data (not a simulation)'];
    for (const [c, chart] of charts.entries()) {
      const png = await downloadOf(page, `button[data-png="${chart}"]`);
      assert.equal(png.name, `attention-lab-${chart}.png`);
      assert.deepEqual([...png.bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], `${chart}: a PNG`);
      const svg = await downloadOf(page, `button[data-svg="${chart}"]`);
      assert.equal(svg.name, `attention-lab-${chart}.svg`);
      const { error, title, text, shown } = await page.evaluate(({ source, id }) => {
        const button = document.querySelector(`button[data-svg="${id}"]`);
        const live = document.getElementById(id);
        const file = new DOMParser().parseFromString(source, 'image/svg+xml');
        return {
          error: file.querySelector('parsererror')?.textContent ?? null,
          title: file.querySelector('svg > title')?.textContent,
          text: [...file.querySelectorAll('text')].map((t) => t.textContent),
          shown: {
            labels: [...live.querySelectorAll('.axis-title, .tick text')].map((t) => t.textContent).filter(Boolean),
            legend: [...(document.getElementById(button.dataset.legend ?? '')?.children ?? [])].map((item) => item.textContent),
          },
        };
      }, { source: svg.bytes.toString('utf8'), id: chart });
      assert.equal(error, null, `${chart}: the SVG parses`);
      assert.equal(title, titles[c], `${chart}: titled`);
      assert.ok(text.includes(titles[c]), `${chart}: the title shows`);
      assert.ok(shown.labels.length > 4, `${chart}: ${shown.labels.length} axis titles and ticks`);
      for (const label of [...shown.labels, ...shown.legend]) assert.ok(text.includes(label), `${chart}: the SVG says “${label}”`);
    }
    await close();
  });

  test('each simulation chart\'s CSV holds the engine\'s numbers and the link to its settings in every row, and its figures carry the settings under the legend', async () => {
    const hash = '#n=256&slope=0.01&mitigation=calibration';
    const { settings } = parseHash(hash);
    const model = modelOptions(settings);
    const needle = needleOptions(settings);
    const engine = await nodeEngine();
    const curve = engine.positionCurve({ ...model, measure: 'final' });
    const sweep = engine.needleSweep({ ...model, ...needle });
    const calibrated = engine.needleSweep({ ...model, ...needle, mitigation: { type: 'calibration' } });
    const { n, ...gridModel } = model;
    const grid = engine.needleGrid({ ...gridModel, ...needle, lengths: GRID_LENGTHS });
    const meanCosine = (d, base) => Array.from({ length: 32 }, (_, t) => Math.cos(d * base ** (-t / 32))).reduce((a, b) => a + b) / 32;
    const f = (values) => Array.from(values, float32Text);

    const { page, close } = await openLab(hash);
    await page.waitForSelector('#needle-chart .series path', { timeout: TIMEOUT_MS });
    await page.waitForSelector('#rope-chart .series path', { timeout: TIMEOUT_MS });
    await page.waitForFunction(() => document.querySelectorAll('#needle-grid .cells rect').length === 77, null, { timeout: TIMEOUT_MS });
    await page.waitForFunction(() => document.getElementById('mitigation-text').textContent.includes('Calibration'), null, { timeout: TIMEOUT_MS });
    // the link to the settings each chart depends on: chart 2 only n of these, the mitigation alone chart 4
    const links = {
      'position-chart': 'lab.html#n=256&slope=0.01', 'rope-chart': 'lab.html#n=256', 'needle-chart': 'lab.html#n=256&slope=0.01',
      'needle-grid': 'lab.html#n=256&slope=0.01', 'mitigation-chart': `lab.html${hash}`,
    };
    const table = async (chart) => {
      const file = await downloadOf(page, `button[data-csv="${chart}"]`);
      assert.equal(file.name, `attention-lab-${chart}.csv`);
      const [header, ...rows] = file.bytes.toString('utf8').trimEnd().split('\n').map((line) => line.split(','));
      // the last column holds the link to the settings, in every row
      assert.equal(header.at(-1), 'settings', `${chart}: the settings column`);
      assert.deepEqual(new Set(rows.map((row) => row.at(-1))), new Set([links[chart]]), `${chart}: every row's settings`);
      return { header: header.slice(0, -1), columns: header.slice(0, -1).map((_, c) => rows.map((row) => row[c])) };
    };

    let { header, columns } = await table('position-chart');
    assert.deepEqual(header, ['position', 'share_of_final_token_input']);
    assert.deepEqual(columns, [Array.from({ length: 256 }, (_, j) => String(j)), f(curve.values)]);
    ({ header, columns } = await table('needle-chart'));
    assert.deepEqual(header, ['depth', 'position', 'mass']);
    assert.deepEqual(columns, [f(sweep.depths), Array.from(sweep.positions, String), f(sweep.retrieval)]);
    ({ header, columns } = await table('needle-grid'));
    assert.deepEqual(header, ['length', 'depth', 'mass']);
    assert.deepEqual(columns, [GRID_LENGTHS.flatMap((length) => Array(grid.cols).fill(String(length))),
      GRID_LENGTHS.flatMap(() => f(grid.depths)), f(grid.values)]);
    ({ header, columns } = await table('mitigation-chart'));
    assert.deepEqual(header, ['depth', 'mass_before', 'mass_after_calibration']);
    assert.deepEqual(columns, [f(sweep.depths), f(sweep.retrieval), f(calibrated.retrieval)]);
    ({ header, columns } = await table('rope-chart'));
    assert.deepEqual(header, ['distance', 'model_weight_base_10000_s_6', 'roformer_bound_base_500', 'roformer_bound_base_10000',
      'roformer_bound_base_500000']);
    assert.equal(columns[0].at(-1), '255', 'the farthest key of 256 tokens');
    columns[0].forEach((d, k) => {
      const expected = Math.exp(6 * (meanCosine(Number(d), 10000) - 1));
      assert.ok(Math.abs(Number(columns[1][k]) - expected) <= 1e-5 * expected, `distance ${d}: ${columns[1][k]}, the formula's ${expected}`);
    });

    // the settings under the legend: every one the chart depends on as the link writes it, and their link
    const captions = {
      'position-chart': 'Settings: n=256, layers=12, residual=0.85, causal=1, positional=alibi, slope=0.01, window=0, measure=final, '
        + 'logScale=1. Link: lab.html#n=256&slope=0.01',
      'mitigation-chart': 'Settings: n=256, layers=12, residual=0.85, causal=1, positional=alibi, slope=0.01, window=0, signal=3, '
        + 'noise=1, trials=8, metric=mass, mitigation=calibration. Link: lab.html#n=256&slope=0.01&mitigation=calibration',
    };
    for (const [chart, caption] of Object.entries(captions)) {
      const svg = await downloadOf(page, `button[data-svg="${chart}"]`);
      const lines = await page.evaluate((source) => {
        const file = new DOMParser().parseFromString(source, 'image/svg+xml');
        const height = Number(file.documentElement.getAttribute('height'));
        return [...file.querySelectorAll('text.caption')].map((text) => ({ text: text.textContent, y: Number(text.getAttribute('y')), height }));
      }, svg.bytes.toString('utf8'));
      assert.ok(lines.length > (chart === 'mitigation-chart' ? 1 : 0), `${chart}: the caption on ${lines.length} lines (the mitigation's cut into lines)`);
      assert.equal(lines.map(({ text }) => text).join(' '), caption, chart);
      assert.ok(lines.every(({ y, height }) => y < height), `${chart}: the caption inside the figure`);
    }
    await close();
  });

  test('a figure\'s caption lists only the settings its chart depends on: charts 1 and 2 none of the needle\'s, chart 2 only n and RoPE\'s; the needle sweep\'s lists the needle\'s', async () => {
    const hash = '#n=256&slope=0.01&window=128&sinks=4&noise=0.5&trials=4&metric=top1&mitigation=calibration&documents=30';
    const { page, close } = await openLab(hash);
    await page.waitForSelector('#needle-chart .series path', { timeout: TIMEOUT_MS });
    await page.waitForSelector('#rope-chart .series path', { timeout: TIMEOUT_MS });
    const model = 'n=256, layers=12, residual=0.85, causal=1, positional=alibi, slope=0.01, window=128, sinks=4';
    const position = await figureCaption(page, 'position-chart');
    const rope = await figureCaption(page, 'rope-chart');
    for (const [chart, caption] of Object.entries({ 'position-chart': position, 'rope-chart': rope })) {
      assert.doesNotMatch(caption, /\b(signal|noise|trials|metric|mitigation|documents)=/, `${chart}: ${caption}`);
    }
    assert.equal(position, `Settings: ${model}, measure=final, logScale=1. Link: lab.html#n=256&slope=0.01&window=128&sinks=4`);
    assert.equal(rope, 'Settings: n=256, positional=alibi, ropeBase=10000, ropeStrength=6. Link: lab.html#n=256');
    assert.equal(await figureCaption(page, 'needle-chart'), `Settings: ${model}, signal=3, noise=0.5, trials=4, metric=top1. `
      + 'Link: lab.html#n=256&slope=0.01&window=128&sinks=4&noise=0.5&trials=4&metric=top1');

    // RoPE, at the same n, base and strength: chart 2 computes nothing again, and its caption names RoPE, as it is drawn
    await page.check('input[name="positional"][value="rope"]');
    await page.waitForFunction(() => document.getElementById('rope-reading').textContent.startsWith('The model uses this weight now'),
      null, { timeout: TIMEOUT_MS });
    assert.equal(await figureCaption(page, 'rope-chart'), 'Settings: n=256, positional=rope, ropeBase=10000, ropeStrength=6. '
      + 'Link: lab.html#n=256&positional=rope');
    await page.waitForFunction(() => document.querySelectorAll('[aria-busy]').length === 0, null, { timeout: TIMEOUT_MS });
    assert.equal(await figureCaption(page, 'position-chart'), 'Settings: n=256, layers=12, residual=0.85, causal=1, positional=rope, '
      + 'ropeBase=10000, ropeStrength=6, window=128, sinks=4, measure=final, logScale=1. Link: lab.html#n=256&positional=rope&window=128&sinks=4');
    await close();
  });

  test('a figure\'s caption states the lengths it was computed at: under RoPE at n = 2,048 the needle sweep and the mitigation at 1,024, the grid at 64 to 1,024; chart 5 only its documents', async () => {
    const { page, close } = await openLab('#n=2048&positional=rope');
    await page.waitForSelector('#needle-chart .series path', { timeout: TIMEOUT_MS });
    await page.waitForFunction(() => document.querySelectorAll('#needle-grid .cells rect').length === 55, null, { timeout: TIMEOUT_MS });
    await page.waitForSelector('#mitigation-chart .series path', { timeout: TIMEOUT_MS });
    const model = (n) => `Settings: n=${n}, layers=12, residual=0.85, causal=1, positional=rope, ropeBase=10000, ropeStrength=6, window=0, `;
    const link = 'Link: lab.html#n=2048&positional=rope';
    const needle = (n) => `${model(n)}signal=3, noise=1, trials=8, metric=mass`;
    assert.equal(await figureCaption(page, 'position-chart'), `${model('2048')}measure=final, logScale=1. ${link}`);
    assert.equal(await figureCaption(page, 'needle-chart'), `${needle('2048 (computed at 1024)')}. ${link}`);
    assert.equal(await figureCaption(page, 'mitigation-chart'), `${needle('2048 (computed at 1024)')}, mitigation=query-aware. ${link}`);
    assert.equal(await figureCaption(page, 'needle-grid'), `${needle('2048 (computed at 64 to 1024)')}. ${link}`);
    assert.equal(await figureCaption(page, 'published-chart'), 'Settings: documents=20. Link: lab.html');
    await page.selectOption('#documents', '30');
    await page.waitForFunction(() => document.querySelectorAll('#published-chart circle').length === 28, null, { timeout: TIMEOUT_MS });
    assert.equal(await figureCaption(page, 'published-chart'), 'Settings: documents=30. Link: lab.html#documents=30');
    await close();
  });

  test('while a chart computes again, and after its request failed, its CSV and its figure name the settings of the numbers it shows', async () => {
    const { page, close } = await openPage(suite, 'lab.html', {
      prepare: (context) => context.route((url) => url.pathname.endsWith('/lab-worker.js') && url.search === '',
        (route) => route.fulfill({ status: 200, contentType: 'text/javascript', body: holdingLabWorker('grid') })),
    });
    const release = (outcome) => page.evaluate((message) => new BroadcastChannel('lab-release').postMessage(message), outcome);
    const idle = () => page.waitForFunction(() => !document.getElementById('needle-heading').closest('section').hasAttribute('aria-busy'),
      null, { timeout: TIMEOUT_MS });
    await page.waitForSelector('#needle-chart .series path.line', { timeout: TIMEOUT_MS });
    await release('answer');  // the grid at the defaults
    await idle();
    const defaults = 'Link: lab.html';  // the caption's end at the defaults (every setting listed before it)
    assert.deepEqual(await exportedSettings(page, 'needle-grid').then(({ link, caption }) => [link, caption.endsWith(defaults)]), ['lab.html', true]);

    // 4 trials: the sweep drawn, the grid held; the grid's files name the defaults, the sweep's 4 trials
    const sweep = await pathOf(page, '#needle-chart .series path.line');
    await page.$eval('#trials', (slider) => {
      slider.value = '4';
      slider.dispatchEvent(new Event('input', { bubbles: true }));
    });
    await page.waitForFunction((d) => document.querySelector('#needle-chart .series path.line').getAttribute('d') !== d, sweep, { timeout: TIMEOUT_MS });
    assert.match(await page.evaluate(() => window.location.hash), /trials=4/);
    let grid = await exportedSettings(page, 'needle-grid');
    assert.equal(grid.link, 'lab.html', 'the grid computing at 4 trials: its CSV names the settings of the grid shown');
    assert.match(grid.caption, /, trials=8, .*Link: lab\.html$/);
    const needle = await exportedSettings(page, 'needle-chart');
    assert.equal(needle.link, 'lab.html#trials=4');
    assert.match(needle.caption, /, trials=4, .*Link: lab\.html#trials=4$/);

    // the grid at 4 trials fails: the grid shown is still the defaults'
    await release('fail');
    await idle();
    assert.equal(await page.textContent('#notices'), 'the test failed this computation');
    grid = await exportedSettings(page, 'needle-grid');
    assert.deepEqual([grid.link, grid.caption.endsWith(defaults)], ['lab.html', true], 'after the failure');

    // the top-1 metric, the grid held: its CSV keeps the mass column of the grid shown
    await page.selectOption('#metric', 'top1');
    await page.waitForFunction(() => document.getElementById('needle-summary').textContent.includes('%'), null, { timeout: TIMEOUT_MS });
    grid = await exportedSettings(page, 'needle-grid');
    assert.deepEqual([grid.header, grid.link], ['length,depth,mass,settings', 'lab.html']);
    await close();
  });

  test('in the dark scheme a chart downloads in the light colours of a figure on paper, and the page stays dark', async () => {
    const { page, close } = await openPage(suite, 'lab.html', { colorScheme: 'dark' });
    await page.waitForSelector(POSITION_PATH, { timeout: TIMEOUT_MS });
    const svg = await downloadOf(page, 'button[data-svg="position-chart"]');
    const found = await page.evaluate((source) => {
      const file = new DOMParser().parseFromString(source, 'image/svg+xml');
      const root = getComputedStyle(document.documentElement);
      return {
        background: file.querySelector('svg > rect').getAttribute('fill'),
        texts: [...new Set([...file.querySelectorAll('text')].map((text) => text.getAttribute('fill')))].sort(),
        strokes: [...new Set([...file.querySelectorAll('path')].map((path) => path.getAttribute('stroke')))],
        page: { panel: root.getPropertyValue('--panel').trim(), series: root.getPropertyValue('--series-0').trim(), classes: document.documentElement.className },
      };
    }, svg.bytes.toString('utf8'));
    assert.equal(found.background, '#ffffff', 'the light panel');
    // the light --text and --muted, none of the dark ones (rgb(230, 233, 238), rgb(154, 164, 178))
    assert.deepEqual(found.texts, ['rgb(27, 31, 36)', 'rgb(90, 100, 114)']);
    assert.ok(found.strokes.includes('rgb(194, 65, 12)'), `the light first series colour among ${found.strokes}`);
    assert.ok(!found.strokes.includes('rgb(251, 146, 60)'), 'not the dark one');
    assert.deepEqual(found.page, { panel: '#171b21', series: '#fb923c', classes: '' }, 'the page keeps its dark colours');
    await close();
  });

  test('an engine that fails to load is reported on the page', async () => {
    await assertEngineFailureShown(suite, 'lab.html');
  });
});
