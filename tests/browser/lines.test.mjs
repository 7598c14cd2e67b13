// The lines view on screens of 1 and 2 device pixels per CSS pixel: its canvas holds device
// pixels (CSS size × devicePixelRatio), the lines of a focused query start at that query's
// row in CSS pixels at either ratio, the canvas is painted again when the ratio changes or
// its frame is resized, and its backing store stays within 4096 device pixels a side; off
// screen it is not painted until it comes near; a new result's lines are painted once the
// frame that shows the other views has been rendered.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { schemeTableau10 } from 'd3-scale-chromatic';
import { DESKTOP, PHONE, TIMEOUT_MS, longSampleText, startSuite, waitForRows } from './helpers.mjs';
import { LINES_MAX_TOKENS } from '../../web/playground/pipeline.js';

const HASH = '#h=2';              // two heads of the journey sentence: 6 tokens
const TOKENS = 6;
const CANVAS = '#lines-links';
const FRAME = '.lines-frame';
const QUERIES = '#lines text.token[role="button"]';
const MIN_PAINTED_CSS_PX = 1000;  // painted pixels of the whole drawing, in CSS pixels (× ratio² on the canvas)
const SAMPLE_PX = 2;              // CSS pixels right of where a query's lines start
const LINE_START_PX = 8;          // lines.js: TEXT_GAP_PX, between a token and its lines
const LINE_PX = 2;                // lines.js: LINE_PX, a line's width in CSS pixels
const BAND_SLACK_PX = 4;          // a steep line's rise over SAMPLE_PX, and antialiasing
const MAX_BACKING_PX = 4096;      // lines.js: MAX_BACKING_PX
const WIDE_FRAME_PX = 3000;       // × 2 device pixels would exceed MAX_BACKING_PX
const NARROW_FRAME_PX = 240;
const UNPREMULTIPLY_SLACK = 10;   // a channel of a translucent pixel read back (7 seen), against the colour painted
const ROW_PX = 22;                // lines.js: ROW_PX, a token's row
const TALL_RATIO = 5;             // × the view's height at LINES_MAX_TOKENS rows exceeds MAX_BACKING_PX

let suite;
before(async () => { suite = await startSuite(); });
after(async () => { await suite?.close(); });

// Opens the playground at `deviceScaleFactor` (helpers' openPage has none), brings the lines
// view on screen (on a phone it is far below the input) and waits until it shows the tokens
// (by default the 6 of HASH) and their lines; close() asserts no console error and no outside
// request.
async function openAt(deviceScaleFactor, viewport = DESKTOP, { hash = HASH, tokens = TOKENS } = {}) {
  const context = await suite.browser.newContext({ viewport, deviceScaleFactor });
  const problems = { console: [], page: [], external: [] };
  await context.route((url) => url.hostname !== '127.0.0.1', (route) => {
    problems.external.push(route.request().url());
    return route.abort();
  });
  const page = await context.newPage();
  page.on('console', (message) => {
    if (message.type() === 'error') problems.console.push(message.text());
  });
  page.on('pageerror', (error) => problems.page.push(error.message));
  await page.goto(`${suite.base}${hash}`);
  await page.waitForSelector('html[data-engine="ready"]', { timeout: TIMEOUT_MS });
  await waitForRows(page, tokens);
  await page.waitForFunction((n) => document.querySelectorAll('#lines text.token').length === 2 * n, tokens,
    { timeout: TIMEOUT_MS });
  await page.locator(FRAME).scrollIntoViewIfNeeded();
  await waitForPainted(page);
  return {
    page,
    async close() {
      await context.close();
      assert.deepEqual(problems.external, [], 'requests outside 127.0.0.1');
      assert.deepEqual(problems.page, [], 'uncaught page errors');
      assert.deepEqual(problems.console, [], 'console errors');
    },
  };
}

// The canvas's sizes, the ratio the page sees, and its painted pixels: {width, height,
// clientWidth, clientHeight, frameWidth, ratio, painted, signature}.
function canvasState(page) {
  return page.evaluate((selector) => {
    const canvas = document.querySelector(selector);
    const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
    let painted = 0;
    let signature = 0;
    for (let k = 3; k < data.length; k += 4) {
      if (data[k] > 0) {
        painted += 1;
        signature = (signature * 31 + k * data[k]) % 1_000_000_007;
      }
    }
    return {
      width: canvas.width, height: canvas.height, clientWidth: canvas.clientWidth, clientHeight: canvas.clientHeight,
      frameWidth: canvas.parentElement.clientWidth, ratio: window.devicePixelRatio, painted, signature,
    };
  }, CANVAS);
}

// Waits until the canvas has pixels painted.
async function waitForPainted(page) {
  await page.waitForFunction((selector) => {
    const canvas = document.querySelector(selector);
    if (canvas.width === 0 || canvas.height === 0) return false;
    const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
    for (let k = 3; k < data.length; k += 4) if (data[k] > 0) return true;
    return false;
  }, CANVAS, { timeout: TIMEOUT_MS });
}

// Waits until the canvas holds Math.round(CSS size × ratio) device pixels for the frame's width.
async function waitForBacking(page, ratio) {
  await page.waitForFunction(([selector, r]) => {
    const canvas = document.querySelector(selector);
    return canvas.clientWidth === canvas.parentElement.clientWidth && canvas.clientWidth > 0 &&
      canvas.width === Math.round(canvas.clientWidth * r) && canvas.height === Math.round(canvas.clientHeight * r);
  }, [CANVAS, ratio], { timeout: TIMEOUT_MS });
}

function assertBacking(state, ratio, what) {
  assert.equal(state.clientWidth, state.frameWidth, `${what}: the canvas spans its frame`);
  assert.equal(state.width, Math.round(state.clientWidth * ratio), `${what}: canvas.width for ${state.clientWidth} CSS px`);
  assert.equal(state.height, Math.round(state.clientHeight * ratio), `${what}: canvas.height for ${state.clientHeight} CSS px`);
  assert.ok(state.painted >= MIN_PAINTED_CSS_PX * ratio * ratio, `${what}: ${state.painted} painted device pixels`);
}

// Focuses query `position` in the lines view (its lines alone stay) and returns the rows, in
// CSS pixels, painted in the canvas's column SAMPLE_PX right of where the lines start, with
// the CSS y of every query's row.
async function focusedQueryRows(page, position) {
  await page.locator(QUERIES).nth(position).focus();
  return page.evaluate(([selector, queries, startPx, samplePx]) => {
    const canvas = document.querySelector(selector);
    const ratio = canvas.width / canvas.clientWidth;
    const texts = [...document.querySelectorAll(queries)];
    const left = Number(texts[0].getAttribute('x'));
    const x = Math.round((left + startPx + samplePx) * ratio);
    const { data } = canvas.getContext('2d').getImageData(x, 0, 1, canvas.height);
    const rows = [];
    for (let row = 0; row < canvas.height; ++row) if (data[4 * row + 3] > 0) rows.push(row / ratio);
    return { rows, ys: texts.map((text) => Number(text.getAttribute('y'))) };
  }, [CANVAS, QUERIES, LINE_START_PX, SAMPLE_PX]);
}

describe('lines view on high-DPI screens', () => {
  for (const ratio of [1, 2]) {
    for (const [device, viewport] of Object.entries({ desktop: DESKTOP, phone: PHONE })) {
      test(`the canvas holds CSS size × ${ratio} device pixels and the lines follow the focused query (${device})`, async () => {
        const { page, close } = await openAt(ratio, viewport);
        const whole = await canvasState(page);
        assert.equal(whole.ratio, ratio);
        assertBacking(whole, ratio, 'all lines');

        const signatures = new Set([whole.signature]);
        for (const position of [1, 4]) {
          const { rows, ys } = await focusedQueryRows(page, position);
          assert.ok(rows.length > 0, `query ${position}: its lines start at ${ys[position]}`);
          const low = ys[position] - BAND_SLACK_PX;
          const high = ys[position] + LINE_PX + BAND_SLACK_PX;
          const stray = rows.filter((y) => y < low || y > high);
          assert.deepEqual(stray, [], `query ${position}: rows painted outside ${low}…${high} CSS px`);
          const state = await canvasState(page);
          assert.ok(state.painted > 0 && state.painted < whole.painted, `query ${position}: ${state.painted} of ${whole.painted} pixels`);
          signatures.add(state.signature);
        }
        assert.equal(signatures.size, 3, 'all lines, query 1\'s and query 4\'s are three different drawings');

        // Selecting a query redraws the view with the query marked, at the same resolution.
        await page.locator(QUERIES).nth(4).click();
        await page.waitForFunction(() => document.querySelector('#lines text.token.selected')?.getAttribute('aria-label')
          ?.startsWith('query #4 '), null, { timeout: TIMEOUT_MS });
        await page.locator('#sentence').focus();
        assertBacking(await canvasState(page), ratio, 'after selecting query 4');
        await close();
      });
    }
  }

  test('a change of devicePixelRatio paints the canvas again at the new ratio', async () => {
    const { page, close } = await openAt(1);
    const before = await canvasState(page);
    assertBacking(before, 1, 'ratio 1');
    // Chromium's emulation tells media queries of a new ratio only along with a new viewport
    // size: the height changes by a pixel, the width (which the views' layout follows) stays.
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Emulation.setDeviceMetricsOverride', {
      width: DESKTOP.width, height: DESKTOP.height - 1, deviceScaleFactor: 2, mobile: false,
    });
    await waitForBacking(page, 2);
    const state = await canvasState(page);
    assert.equal(state.ratio, 2);
    assertBacking(state, 2, 'ratio 2 after the change');
    assert.equal(state.clientWidth, before.clientWidth, 'the same CSS size');
    await close();
  });

  test('off screen the lines are painted only once the view comes near (phone)', async () => {
    const { page, close } = await openAt(1, PHONE);
    const shown = await canvasState(page);
    // the input at the top of the page, the lines view several screens below
    await page.evaluate(() => window.scrollTo(0, 0));
    const distance = await page.evaluate((frame) => document.querySelector(frame).getBoundingClientRect().top / innerHeight, FRAME);
    assert.ok(distance > 2, `the lines view is ${distance.toFixed(1)} screens down`);
    await page.locator('#sentence').fill('the cat');
    await page.waitForFunction(() => document.querySelectorAll('#lines text.token').length === 4, null, { timeout: TIMEOUT_MS });
    await waitForRows(page, 2);
    // the tokens are laid out, the canvas keeps its last painting
    const offScreen = await canvasState(page);
    assert.deepEqual([offScreen.height, offScreen.painted, offScreen.signature], [shown.height, shown.painted, shown.signature]);
    // scrolled to within a screen of it, the view paints the two tokens' lines
    await page.evaluate((frame) => {
      const top = document.querySelector(frame).getBoundingClientRect().top + scrollY;
      window.scrollTo(0, top - 1.5 * innerHeight);
    }, FRAME);
    await page.waitForFunction(([selector, height]) => document.querySelector(selector).height !== height, [CANVAS, shown.height],
      { timeout: TIMEOUT_MS });
    const near = await canvasState(page);
    assert.ok(near.height < shown.height, `${near.height} device pixels high for 2 tokens, ${shown.height} for ${TOKENS}`);
    assertBacking(near, 1, 'the two tokens\' lines');
    await close();
  });

  test('resizing the frame alone redraws the view at its new width', async () => {
    const { page, close } = await openAt(2);
    const before = await canvasState(page);
    await page.evaluate(([frame, px]) => { document.querySelector(frame).style.width = `${px}px`; }, [FRAME, NARROW_FRAME_PX]);
    await page.waitForFunction((px) => document.querySelector('#lines-links').clientWidth === px, NARROW_FRAME_PX,
      { timeout: TIMEOUT_MS });
    await waitForBacking(page, 2);
    const state = await canvasState(page);
    assert.notEqual(state.clientWidth, before.clientWidth);
    assertBacking(state, 2, `a ${NARROW_FRAME_PX}-px frame`);
    assert.equal(await page.getAttribute('#lines', 'width'), String(NARROW_FRAME_PX), 'the tokens laid out for it too');
    await close();
  });

  test(`the backing store stays within ${MAX_BACKING_PX} device pixels a side: a wide frame, and a tall view`, async () => {
    const { page, close } = await openAt(2);
    await page.evaluate(([frame, px]) => { document.querySelector(frame).style.width = `${px}px`; }, [FRAME, WIDE_FRAME_PX]);
    await page.waitForFunction(([px, max]) => {
      const canvas = document.querySelector('#lines-links');
      return canvas.clientWidth === px && canvas.width === max;
    }, [WIDE_FRAME_PX, MAX_BACKING_PX], { timeout: TIMEOUT_MS });
    const wide = await canvasState(page);
    assertBacking(wide, MAX_BACKING_PX / WIDE_FRAME_PX, `a ${WIDE_FRAME_PX}-px frame at ratio 2`);
    await close();

    // the most rows the view shows, at a ratio that makes them taller than MAX_BACKING_PX
    const text = await longSampleText(LINES_MAX_TOKENS);
    const tallPage = await openAt(TALL_RATIO, DESKTOP, { hash: `#t=${encodeURIComponent(text)}&h=2`, tokens: LINES_MAX_TOKENS });
    await tallPage.page.waitForFunction(([selector, max]) => document.querySelector(selector).height === max,
      [CANVAS, MAX_BACKING_PX], { timeout: TIMEOUT_MS });
    const tall = await canvasState(tallPage.page);
    assert.ok(tall.clientHeight * TALL_RATIO > MAX_BACKING_PX, `${tall.clientHeight} CSS pixels high`);
    assertBacking(tall, MAX_BACKING_PX / tall.clientHeight, `${LINES_MAX_TOKENS} tokens at ratio ${TALL_RATIO}`);
    await tallPage.close();
  });

  test('a new result\'s lines are painted once the frame that shows its tokens has been rendered', async () => {
    const { page, close } = await openAt(1);
    const { height } = await canvasState(page);
    // when the tokens of a 7th word are drawn, the canvas still holds 6 rows of lines; after
    // the frame that shows them (a task queued from its animation frame callback), 7
    const heights = page.evaluate(([selector, tokens]) => new Promise((resolve) => {
      const canvas = document.querySelector(selector);
      const svg = document.querySelector('#lines');
      const observer = new MutationObserver(() => {
        if (svg.querySelectorAll('text.token').length !== 2 * tokens) return;
        observer.disconnect();
        const withTokens = canvas.height;
        requestAnimationFrame(() => setTimeout(() => resolve({ withTokens, afterFrame: canvas.height })));
      });
      observer.observe(svg, { childList: true, subtree: true });
    }), [CANVAS, TOKENS + 1]);
    await page.locator('#sentence').press('End');
    await page.keyboard.type(' again');
    assert.deepEqual(await heights, { withTokens: height, afterFrame: height + ROW_PX });
    await close();
  });

  test('the heads\' colours are listed under the lines, the colours their lines are painted in, side by side', async () => {
    const { page, close } = await openAt(1);
    const legend = () => page.$$eval('[data-testid="lines-heads"] li', (items) => items.map((item) => ({
      text: item.textContent, color: getComputedStyle(item.querySelector('.swatch')).backgroundColor,
      visible: item.checkVisibility(),
    })));
    const channels = (hex) => [1, 3, 5].map((k) => parseInt(hex.slice(k, k + 2), 16));
    const rgb = (hex) => `rgb(${channels(hex).join(', ')})`;
    assert.deepEqual(await legend(), [
      { text: 'Head 1', color: rgb(schemeTableau10[0]), visible: true },
      { text: 'Head 2', color: rgb(schemeTableau10[1]), visible: true },
    ]);
    // getImageData gives unpremultiplied colours: a faint line keeps its head's colour
    const opaquePixels = () => page.evaluate((selector) => {
      const canvas = document.querySelector(selector);
      const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
      const colors = [];
      for (let k = 0; k < data.length; k += 4) if (data[k + 3] >= 128) colors.push([data[k], data[k + 1], data[k + 2]]);
      return colors;
    }, CANVAS);
    const near = (pixel, hex) => pixel.every((v, k) => Math.abs(v - channels(hex)[k]) <= UNPREMULTIPLY_SLACK);
    // both heads' lines show: each head's lines beside the other's, not over them
    const both = await opaquePixels();
    for (const [head, hex] of [[1, schemeTableau10[0]], [2, schemeTableau10[1]]]) {
      const count = both.filter((pixel) => near(pixel, hex)).length;
      assert.ok(count >= MIN_PAINTED_CSS_PX / 4, `${count} pixels in head ${head}'s colour`);
    }
    // where a focused query's lines leave it, head 1's run above head 2's
    await page.locator(QUERIES).nth(0).focus();
    const column = await page.evaluate(([selector, queries, startPx, samplePx]) => {
      const canvas = document.querySelector(selector);
      const x = Math.round(Number(document.querySelector(queries).getAttribute('x')) + startPx + samplePx);
      const { data } = canvas.getContext('2d').getImageData(x, 0, 1, canvas.height);
      const rows = [];
      for (let y = 0; y < canvas.height; ++y) if (data[4 * y + 3] >= 128) rows.push([y, [data[4 * y], data[4 * y + 1], data[4 * y + 2]]]);
      return rows;
    }, [CANVAS, QUERIES, LINE_START_PX, SAMPLE_PX]);
    // each opaque pixel counted for the head whose colour it is nearer (the lines overlap a little)
    const distance = (pixel, hex) => Math.hypot(...pixel.map((v, k) => v - channels(hex)[k]));
    const rowsOf = (hex, other) => column.filter(([, pixel]) => distance(pixel, hex) < distance(pixel, other)).map(([y]) => y);
    const [first, second] = [rowsOf(schemeTableau10[0], schemeTableau10[1]), rowsOf(schemeTableau10[1], schemeTableau10[0])];
    const mean = (ys) => ys.reduce((a, b) => a + b, 0) / ys.length;
    assert.ok(first.length > 0 && second.length > 0 && mean(first) < mean(second),
      `head 1's lines above head 2's where they leave the query: rows ${first} and ${second}`);
    await page.locator(QUERIES).nth(0).blur();
    // 16 heads: 16 colours, none twice
    await page.evaluate(() => { location.hash = '#tw=linear&do=16&h=16'; });
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="lines-heads"] li').length === 16, null, { timeout: TIMEOUT_MS });
    const sixteen = await legend();
    assert.equal(new Set(sixteen.map(({ color }) => color)).size, 16, `the colours of 16 heads: ${sixteen.map(({ color }) => color)}`);
    // head 2 alone: its lines in its colour only, and one head needs no legend
    await page.evaluate(() => { location.hash = '#h=2&hv=2'; });
    await page.waitForFunction(() => document.querySelector('[data-testid="lines-heads"]').hidden, null, { timeout: TIMEOUT_MS });
    const alone = await opaquePixels();
    assert.ok(alone.length >= MIN_PAINTED_CSS_PX / 4, `${alone.length} opaque pixels`);
    assert.ok(alone.every((pixel) => near(pixel, schemeTableau10[1])), `every opaque pixel within ${UNPREMULTIPLY_SLACK} of head 2's colour`);
    await close();
  });
});
