// The playground page in Chromium: loading from a sub-path, the heatmap, typing, the tooltip
// against the engine, keyboard use, the URL hash, markup typed as text, a failed engine load.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { splitCall } from '../../dist/wasm/pool-split.mjs';
import { TYPING_PAUSE_MS, WAKE_FOR_MS, typingPauseFor } from '../../web/playground/pipeline.js';
import { COLOR_TABLE } from '../../web/shared/heatmap/colors.js';
import {
  SUB_PATH, TIMEOUT_MS, assertEngineFailureShown, broadcasts, collectBroadcasts, exportedJson, gloveInput, longSampleText, nodeEngine, openPage, startSuite, tokensOf,
  waitForHash, waitForRows,
} from './helpers.mjs';

const HEATMAP = '[data-testid="attention-heatmap"]';
const SENTENCE = '[data-testid="sentence-input"]';
const DEFAULT_TEXT = 'Your journey starts with one step';
const SCAN_STEPS = 14;          // hover points per side of the canvas when looking for cells
const TOLERANCE = 1e-6;         // the page and Node run the same wasm: equal up to float printing
const SPLIT_TOKENS = 440;       // enough for the page's pool to split a call (its splitFrom, 2^23)

// Appended to wasm/pool-awake.mjs as served, which every pool worker imports (Chromium does not
// route the script of a worker started by a worker, but it routes what that script imports):
// in each worker, tells a BroadcastChannel of every call the pool hands it ({worker, call,
// part}: the worker's own id, and the call's part option, null without). The engine worker
// imports it too, and is handed no pool calls.
const POOL_CALL_WATCHER = `
if (typeof WorkerGlobalScope !== 'undefined') {
  const channel = new BroadcastChannel('pool-calls');
  const worker = crypto.randomUUID();
  self.addEventListener('message', ({ data }) => {
    if (data?.call) channel.postMessage({ worker, call: data.call, part: (data.call === 'selfAttention' ? data.args[1] : data.args[3])?.part ?? null });
  });
}
`;

let suite;
before(async () => { suite = await startSuite(); });
after(async () => { await suite?.close(); });

// Hovers a grid of points over the heatmap; returns the tooltip of every exact cell found,
// with the point that showed it.
async function scanTooltips(page) {
  const box = await page.locator(HEATMAP).boundingBox();
  const found = new Map();
  for (let a = 0; a < SCAN_STEPS; ++a) {
    for (let b = 0; b < SCAN_STEPS; ++b) {
      const point = { x: box.x + ((b + 0.5) / SCAN_STEPS) * box.width, y: box.y + ((a + 0.5) / SCAN_STEPS) * box.height };
      await page.mouse.move(point.x, point.y);
      const tip = await page.evaluate(() => {
        const tooltip = document.querySelector('[data-testid="heatmap-tooltip"]');
        return tooltip.hidden || tooltip.dataset.query === undefined ? null : { ...tooltip.dataset, text: tooltip.textContent };
      });
      if (tip) found.set(`${tip.head}:${tip.query}:${tip.key}`, { ...tip, point });
    }
  }
  return [...found.values()];
}

describe('playground page', () => {
  test('loads from a sub-path, sets the ready flag and draws a heatmap that is not blank', async () => {
    const { page, close } = await openPage(suite);
    // every file the page asked for, under the sub-path it was opened at
    const paths = await page.evaluate(() => performance.getEntriesByType('resource').map(({ name }) => new URL(name).pathname));
    assert.ok(paths.some((path) => path.endsWith('.js')) && paths.every((path) => path.startsWith(SUB_PATH)), paths.join(', '));
    await waitForRows(page, 6);
    assert.equal(await page.locator(HEATMAP).getAttribute('data-cols'), '6');
    const table = new Set();
    for (let k = 0; k < COLOR_TABLE.length; k += 4) table.add((COLOR_TABLE[k] << 16) | (COLOR_TABLE[k + 1] << 8) | COLOR_TABLE[k + 2]);
    const pixels = await page.evaluate(() => {
      const canvas = document.querySelector('[data-testid="attention-heatmap"]');
      const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
      const colours = [];
      for (let k = 0; k < data.length; k += 4) {
        if (data[k + 3] === 255) colours.push((data[k] << 16) | (data[k + 1] << 8) | data[k + 2]);
      }
      return colours;
    });
    const onScale = pixels.filter((colour) => table.has(colour));
    assert.ok(onScale.length > 36 * 100, `only ${onScale.length} pixels carry colour-map colours`);
    assert.ok(new Set(onScale).size >= 6, `only ${new Set(onScale).size} distinct colours on the scale`);
    assert.match(await page.locator('#engine-status').textContent(), /ready/);
    const policy = await page.getAttribute('meta[http-equiv="Content-Security-Policy"]', 'content');
    assert.match(policy, /default-src 'self'; script-src 'self' 'wasm-unsafe-eval'(;|$)/);
    assert.doesNotMatch(policy, /'unsafe-eval'|'unsafe-inline'/);
    assert.equal(await page.locator('script:not([src])').count(), 0, 'no inline scripts');
    await close();
  });

  test('every control has a label', async () => {
    const { page, close } = await openPage(suite, '#src=table');
    await waitForRows(page, 6);
    const unlabelled = await page.evaluate(() => [...document.querySelectorAll('input, select, textarea, button')]
      .filter((control) => !(control.labels?.length > 0 || control.getAttribute('aria-label') ||
        control.getAttribute('aria-labelledby') || (control.tagName === 'BUTTON' && control.textContent.trim())))
      .map((control) => control.outerHTML));
    assert.deepEqual(unlabelled, []);
    await close();
  });

  test('typing redraws the matrix with one row per token', async () => {
    const { page, close } = await openPage(suite);
    await waitForRows(page, 6);
    await page.fill(SENTENCE, 'The cat sat on the mat.');
    await waitForRows(page, 7);
    await page.locator(SENTENCE).press('End');
    await page.locator(SENTENCE).pressSequentially(' It purred!');
    await waitForRows(page, 10);
    assert.equal(await page.locator('#tokens button.token').count(), 10);
    await close();
  });

  test('typing waits for a pause of twice the last typed update\'s time (pipeline.js typingPauseFor), waking the engine\'s threads before it ends', async () => {
    const { page, close } = await openPage(suite);
    await waitForRows(page, 6);
    const timing = () => page.getAttribute(HEATMAP, 'data-timing').then((text) => JSON.parse(text));
    await page.locator(SENTENCE).focus();
    await page.locator(SENTENCE).press('End');
    let expected = TYPING_PAUSE_MS.most;  // no typed update timed yet: the page's first one does not count
    for (const key of ['s', 'Backspace', 's']) {
      // the time of the key, and of the drawing it led to (the heatmap's new timing record)
      await page.evaluate((selector) => {
        const canvas = document.querySelector(selector);
        window.typed = new Promise((resolve) => {
          document.addEventListener('keydown', () => {
            const keyAt = performance.now();
            const observer = new MutationObserver(() => {
              observer.disconnect();
              resolve(performance.now() - keyAt);
            });
            observer.observe(canvas, { attributes: true, attributeFilter: ['data-timing'] });
          }, { once: true });
        });
      }, HEATMAP);
      await page.keyboard.press(key);
      const waited = await page.evaluate(() => window.typed);
      const after = await timing();
      assert.equal(after.typingPause, expected, `'${key}'`);
      assert.ok(waited >= expected, `'${key}': drawn ${waited} ms after the key, within the ${expected} ms pause`);
      expected = typingPauseFor(after.update);
      // the engine's threads were woken shortly before the pause ended, and still awake for the call
      assert.ok(after.wokenAhead > 0 && after.wokenAhead < WAKE_FOR_MS, `'${key}': woken ${after.wokenAhead} ms ahead`);
    }
    // a setting changed by a control does not wait, nor wake the threads ahead
    await page.check('#causal');
    await page.waitForFunction((selector) => JSON.parse(document.querySelector(selector).dataset.timing).typingPause === 0,
      HEATMAP, { timeout: TIMEOUT_MS });
    assert.equal((await timing()).wokenAhead, undefined);
    await close();
  });

  test('a link that comes during a typing pause (Back, a pasted link) ends the pause: the link\'s update is the only one', async () => {
    const { page, close } = await openPage(suite);
    await waitForRows(page, 6);
    await page.locator(SENTENCE).focus();
    await page.locator(SENTENCE).press('End');
    // every drawing from here on, with the typing pause its update waited for
    await page.evaluate((selector) => {
      window.drawnPauses = [];
      new MutationObserver(() => window.drawnPauses.push(JSON.parse(document.querySelector(selector).dataset.timing).typingPause))
        .observe(document.querySelector(selector), { attributes: true, attributeFilter: ['data-timing'] });
    }, HEATMAP);
    await page.keyboard.press('s');  // its update waits TYPING_PAUSE_MS.most: no typed update has been timed
    await page.evaluate(() => { location.hash = '#t=One%20step%20at%20a%20time&h=2'; });
    await waitForRows(page, 5);
    // long enough for the typed update's timers to have fired, had they been left
    await page.waitForTimeout(2 * TYPING_PAUSE_MS.most);
    assert.deepEqual(await page.evaluate(() => window.drawnPauses), [0], 'one drawing, the link\'s, which waited for no pause');
    assert.equal(await page.evaluate(() => location.hash), '#t=One%20step%20at%20a%20time&h=2');
    assert.equal(await page.inputValue(SENTENCE), 'One step at a time');
    await close();
  });

  test('hover tooltips show the engine’s scores and weights, and a click selects the query', async () => {
    const { page, close } = await openPage(suite);
    await waitForRows(page, 6);
    const engine = await nodeEngine();
    const { x } = await gloveInput(DEFAULT_TEXT);
    const expected = engine.selfAttention(x);
    const tips = await scanTooltips(page);
    assert.ok(tips.length >= 12, `found only ${tips.length} cells by hovering`);
    for (const tip of tips) {
      const at = Number(tip.query) * 6 + Number(tip.key);
      assert.ok(Math.abs(Number(tip.score) - expected.scores[0].data[at]) <= TOLERANCE, `score of ${tip.query},${tip.key}`);
      assert.ok(Math.abs(Number(tip.weight) - expected.weights[0].data[at]) <= TOLERANCE, `weight of ${tip.query},${tip.key}`);
      assert.ok(tip.text.includes(DEFAULT_TEXT.split(' ')[Number(tip.query)]), 'the tooltip names the query token');
    }
    const last = tips.at(-1);
    await page.mouse.click(last.point.x, last.point.y);
    await page.waitForFunction((q) => document.getElementById('query').value === q, last.query, { timeout: TIMEOUT_MS });
    await close();
  });

  test('on 2 workers and the engine\'s own thread (3 cores): the status line says so, and every head\'s scores and weights are the engine\'s, bit for bit', async () => {
    const text = await longSampleText(SPLIT_TOKENS);
    const engine = await nodeEngine();
    const { x } = await gloveInput(text);
    // split by heads (2 heads, RoPE, causal: two parts' worth, a worker's and the engine
    // worker's), and by blocks of query rows (1 head: four parts' worth, on all three threads)
    for (const [hash, options, by] of [
      ['&h=2&pe=rope&c=1', { heads: 2, positional: { type: 'rope' }, causal: true }, 'heads'],
      ['', {}, 'rows'],
    ]) {
      const heads = options.heads ?? 1, width = x.cols / heads;
      const split = splitCall({ n: x.rows, m: x.rows, heads, keyWidth: width, valueWidth: width, options, workers: 2, callerPart: true });
      assert.equal(split.by, by, `${hash}: the page splits this call`);
      const { page, close } = await openPage(suite, `#t=${encodeURIComponent(text)}${hash}`, {
        prepare: async (context) => {
          await context.route('**/wasm/pool-awake.mjs', async (route) => {
            const response = await route.fetch();
            await route.fulfill({ response, body: `${await response.text()}${POOL_CALL_WATCHER}` });
          });
          await collectBroadcasts(context, 'pool-calls');
          await context.addInitScript(() => {
            Object.defineProperty(Navigator.prototype, 'hardwareConcurrency', { get: () => 3 });
          });
        },
      });
      await waitForRows(page, SPLIT_TOKENS);
      assert.match(await page.locator('#engine-status').textContent(), /ready: WebAssembly with relaxed SIMD on 2 workers and the engine's own thread\./);
      // each worker's part (the first of 2 when split by heads, the first 2 of 3 by rows); the
      // engine worker computes the last part itself
      const parts = split.parts.slice(0, -1);
      const calls = await broadcasts(page, 'pool-calls', parts.length);
      const ignoringOrder = (list) => list.map((entry) => JSON.stringify(entry)).sort();
      assert.deepEqual(ignoringOrder(calls.map(({ call, part }) => ({ call, part }))), ignoringOrder(parts.map((part) => ({ call: 'selfAttention', part }))),
        `${hash}: the workers' calls`);
      assert.equal(new Set(calls.map(({ worker }) => worker)).size, parts.length, `${hash}: the workers' parts each on a worker of its own`);
      const expected = engine.selfAttention(x, { ...options, kernel: 'materialized' });
      const exported = await exportedJson(page);
      assert.equal(exported.heads.length, options.heads ?? 1);
      exported.heads.forEach(({ scores, weights }, h) => {
        assert.deepEqual([scores.length, weights.length], [expected.scores[h].data.length, expected.weights[h].data.length], `${hash}: head ${h}'s cells`);
        assert.ok(scores.every((value, k) => Math.fround(value) === expected.scores[h].data[k]), `${hash}: scores of head ${h}`);
        assert.ok(weights.every((value, k) => Math.fround(value) === expected.weights[h].data[k]), `${hash}: weights of head ${h}`);
      });
      await close();
    }
  });

  test('a host without the relaxed-SIMD build: the page runs the SIMD128 build, on its workers too, and says so', async () => {
    const { page, close } = await openPage(suite, '', {
      prepare: (context) => context.route(/\/attention_core\.relaxed\.wasm$/, (route) => route.fulfill({ status: 404, body: 'gone' })),
    });
    await waitForRows(page, 6);
    assert.match(await page.locator('#engine-status').textContent(), /ready: WebAssembly SIMD128 on \d+ workers?/);
    await close({ expectErrors: true });  // the browser reports the file it did not get
  });

  test('the heatmap works from the keyboard', async () => {
    const { page, close } = await openPage(suite);
    await waitForRows(page, 6);
    await page.locator(HEATMAP).focus();
    const tooltip = page.locator('[data-testid="heatmap-tooltip"]');
    await tooltip.waitFor({ state: 'visible' });
    assert.equal(await tooltip.getAttribute('data-query'), '1');
    assert.equal(await tooltip.getAttribute('data-key'), '0');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowDown');
    assert.equal(await tooltip.getAttribute('data-query'), '2');
    assert.equal(await tooltip.getAttribute('data-key'), '1');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.getElementById('query').value === '2', null, { timeout: TIMEOUT_MS });
    await close();
  });

  test('settings survive a round trip through the URL', async () => {
    const first = await openPage(suite);
    await waitForRows(first.page, 6);
    await first.page.fill('#heads', '2');
    await first.page.check('#causal');
    await first.page.selectOption('#positional', 'alibi');
    await first.page.selectOption('#normalization', 'sum');
    await first.page.selectOption('#value', 'scores');
    await first.page.locator('#tokens button.token').nth(3).click();
    await waitForHash(first.page, 'q=3');
    await waitForRows(first.page, 6);
    const url = first.page.url();
    for (const part of ['h=2', 'c=1', 'pe=alibi', 'nm=sum', 'val=scores']) assert.ok(url.includes(part), `${part} in ${url}`);
    await first.close();

    const second = await openPage(suite, new URL(url).hash);
    await waitForRows(second.page, 6);
    const page = second.page;
    assert.equal(await page.inputValue('#heads'), '2');
    assert.equal(await page.isChecked('#causal'), true);
    assert.equal(await page.inputValue('#positional'), 'alibi');
    assert.equal(await page.inputValue('#normalization'), 'sum');
    assert.equal(await page.inputValue('#value'), 'scores');
    assert.equal(await page.inputValue('#query'), '3');
    assert.equal(await page.locator(HEATMAP).getAttribute('data-heads'), '2');
    assert.equal(await page.locator('#tokens button.token[aria-pressed="true"]').textContent(), 'with');
    assert.equal(await page.evaluate(() => location.hash), new URL(url).hash);
    await second.close();
  });

  test('a malformed hash is ignored with a visible notice, and its valid settings still apply', async () => {
    const { page, close } = await openPage(suite, '#h=abc&zz=1&c=1&nm=bogus&z=1,2');
    await waitForRows(page, 6);
    const notice = page.locator('#notices .notice');
    await notice.waitFor({ state: 'visible' });
    const text = await notice.textContent();
    for (const part of ['h (number of heads) must be', 'unknown setting “zz”', 'nm (normalisation) must be', 'z (zoom) must be']) assert.ok(text.includes(part), `${part} in ${text}`);
    assert.equal(await page.inputValue('#heads'), '1');
    assert.equal(await page.isChecked('#causal'), true);
    await close();
  });

  test('the page tokenizes with the engine: GloVe clitics and inner hyphens, looked up in lower case', async () => {
    const { page, close } = await openPage(suite);
    await waitForRows(page, 6);
    const text = "Don't stop the state-of-the-art, it’s nine o'clock.";
    await page.fill(SENTENCE, text);
    await waitForRows(page, 11);
    const chips = await page.evaluate(() => [...document.querySelectorAll('#tokens button.token')].map((b) => ({
      text: b.textContent, unknown: b.classList.contains('unknown'),
    })));
    // GloVe's 50,000 words (wink's copy) hold no word with an apostrophe: the clitics and
    // o'clock get hashed vectors, the words before the clitics their own.
    assert.deepEqual(chips.map((chip) => chip.text),
      ['Do', "n't", 'stop', 'the', 'state-of-the-art', ',', 'it', '’s', 'nine', "o'clock", '.']);
    assert.deepEqual(chips.filter((chip) => chip.unknown).map((chip) => chip.text), ["n't", '’s', "o'clock"]);
    const expected = await gloveInput(text);
    assert.deepEqual(expected.tokens.map((token) => token.text), chips.map((chip) => chip.text));
    assert.deepEqual(expected.unknown, chips.map((chip) => chip.unknown));
    await close();
  });

  test('a 5 MB paste is cut at 8,192 tokens with a notice, and the page goes on working', async () => {
    const { page, close } = await openPage(suite, '#src=random&h=2');
    await waitForRows(page, 6);
    await page.evaluate((sentence) => {
      const box = document.querySelector(sentence);
      box.value = "The cat didn't sit. ".repeat(5 * 2 ** 20 / 20);
      box.dispatchEvent(new Event('input', { bubbles: true }));
    }, SENTENCE);
    await page.waitForFunction(() => document.getElementById('token-count').textContent.includes('text cut'),
      null, { timeout: TIMEOUT_MS });
    assert.equal(await page.textContent('#token-count'), '8,192 tokens · text cut at 8,192 tokens');
    const chips = await page.locator('#tokens button.token').allTextContents();
    assert.equal(chips.length, 256);
    assert.deepEqual(chips.slice(0, 7), ['The', 'cat', 'did', "n't", 'sit', '.', 'The']);
    assert.equal(await page.textContent('#tokens li.muted'), '… 7,936 more');
    // 8,192 tokens × 2 heads need more scores and weights than the page keeps: said, not tried
    await page.waitForFunction(() => document.getElementById('compute-status').classList.contains('error'),
      null, { timeout: TIMEOUT_MS });
    assert.match(await page.textContent('#compute-status'), /^8,192 tokens × 2 heads need 1.00 GiB of scores and weights/);
    await page.fill(SENTENCE, "It's fine.");
    await waitForRows(page, 4);
    assert.equal(await page.textContent('#token-count'), '4 tokens');
    await close();
  });

  test('a screen reader hears the token count and what the computation came to once typing stops, not at every keystroke: the visible lines are no live regions, their spoken copies are written once', async () => {
    const { page, close } = await openPage(suite, '#src=random');
    await page.waitForFunction(() => ['token-count-spoken', 'compute-status-spoken'].every((id) => document.getElementById(id).textContent !== ''),
      null, { timeout: TIMEOUT_MS });
    assert.equal(await page.textContent('#token-count-spoken'), '6 tokens');
    for (const selector of ['#token-count', '#compute-status', '.progress-line']) {
      assert.equal(await page.getAttribute(selector, 'aria-live'), null, `${selector}: not live`);
    }
    for (const id of ['token-count-spoken', 'compute-status-spoken']) assert.equal(await page.getAttribute(`#${id}`, 'aria-live'), 'polite');
    await page.evaluate(() => {
      window.spoken = [];
      for (const id of ['token-count-spoken', 'compute-status-spoken']) {
        const region = document.getElementById(id);
        new MutationObserver(() => window.spoken.push([id, region.textContent])).observe(region, { childList: true, characterData: true, subtree: true });
      }
    });
    // five sentences one word longer each, every one computed and drawn before the next is typed
    const words = ['Your', 'journey', 'starts', 'with', 'one', 'small', 'step', 'today'];
    for (let count = 4; count <= 8; ++count) {
      await page.fill(SENTENCE, words.slice(0, count).join(' '));
      await waitForRows(page, count);
      assert.equal(await page.textContent('#token-count'), `${count} tokens`);
    }
    await page.waitForFunction(() => window.spoken.filter(([id]) => id === 'compute-status-spoken').length > 0, null, { timeout: TIMEOUT_MS });
    await page.waitForTimeout(1200);
    const spoken = await page.evaluate(() => window.spoken);
    assert.deepEqual(spoken.filter(([id]) => id === 'token-count-spoken'), [['token-count-spoken', '8 tokens']]);
    const computed = spoken.filter(([id]) => id === 'compute-status-spoken');
    assert.equal(computed.length, 1, JSON.stringify(computed));
    assert.match(computed[0][1], /^8 × 8, 1 head .*\(engine \d+ ms, view \d+ ms, drawing \d+ ms\)\.$/);
    assert.equal(computed[0][1], await page.textContent('#compute-status'));
    await close();
  });

  test('a 300-letter word keeps the page as wide as the window: its chip, key cells and cache column cut it, their titles hold it', async () => {
    const word = 'a'.repeat(300);
    // query 0, the word: the walk-through and the cache panel quote it
    const { page, close } = await openPage(suite, `#t=${word}%20step&gen=1&gs=1&q=0`);
    await page.waitForFunction(() => document.querySelector('[data-testid="generation"]').dataset.step === '1'
      && document.querySelectorAll('[data-testid="steps-table"] tbody tr').length === 2
      && document.querySelectorAll('#lines text.token').length === 4, null, { timeout: TIMEOUT_MS });
    const widths = () => page.evaluate(() => ({ document: document.documentElement.scrollWidth, viewport: document.documentElement.clientWidth }));
    const shown = await widths();
    assert.equal(shown.document, shown.viewport, `the page is ${shown.document} px wide in a ${shown.viewport} px window`);
    const cut = await page.evaluate(() => {
      const frame = document.querySelector('.lines-frame').getBoundingClientRect();
      const named = (selector) => [...document.querySelectorAll(selector)].map((element) => ({
        width: element.getBoundingClientRect().width, title: element.title,
      }));
      return {
        chip: named('#tokens button.token')[0],
        keyCells: named('[data-testid="steps-table"] tbody .token-text'),
        cacheColumn: named('#cache-table thead .token')[0],
        linesInFrame: [...document.querySelectorAll('#lines text')].every((text) => {
          const box = text.getBoundingClientRect();
          return box.left >= frame.left - 1 && box.right <= frame.right + 1;
        }),
      };
    });
    const rem = await page.evaluate(() => parseFloat(getComputedStyle(document.documentElement).fontSize));
    const widest = 12 * rem;  // style.css: a long token's max-width
    assert.ok(cut.chip.width <= widest + 1 && cut.chip.title === `#0 ${word}: not in the vocabulary, hashed vector`, `the chip: ${cut.chip.width} px`);
    assert.ok(cut.keyCells[0].width <= widest + 1 && cut.keyCells[0].title === word, `the key cell: ${cut.keyCells[0].width} px`);
    assert.ok(cut.cacheColumn.width <= widest + 1 && cut.cacheColumn.title === word, `the cache column: ${cut.cacheColumn.width} px`);
    assert.ok(cut.linesInFrame, 'the lines view\'s labels stay in its frame');
    await page.uncheck('#generate');
    await waitForRows(page, 2);
    const off = await widths();
    assert.equal(off.document, off.viewport, `without generation: ${off.document} px in ${off.viewport} px`);
    await close();
  });

  test('heads that d_out cannot split: the message offers the smallest d_out that fits, and one click computes it', async () => {
    for (const { hash, heads, fix } of [
      { hash: '#tw=linear', heads: 4, fix: 4 },            // d_out 2 → 4: the smallest the 4 heads divide
      { hash: '#tw=linear&pe=rope', heads: 4, fix: 8 },    // under RoPE each head's width is even: 8
      { hash: '#tw=linear&do=5', heads: 3, fix: 6 },       // from the current d_out up, not from 1
    ]) {
      const { page, close } = await openPage(suite, hash);
      await waitForRows(page, 6);
      assert.ok(await page.isHidden('#heads-fix'), `${hash}: no fix while the heads fit`);
      await page.fill('#heads', String(heads));
      await page.waitForFunction(() => document.getElementById('compute-status').classList.contains('error'), null, { timeout: TIMEOUT_MS });
      assert.match(await page.textContent('#heads-message'), new RegExp(`^${heads} heads`));
      assert.equal(await page.textContent('#heads-fix'), `Set d_out to ${fix}`, hash);
      await page.click('#heads-fix');
      await page.waitForFunction((text) => document.getElementById('compute-status').textContent.startsWith(text),
        `6 × 6, ${heads} heads`, { timeout: TIMEOUT_MS });
      assert.equal(await page.inputValue('#d-out'), String(fix));
      assert.ok(await page.isHidden('#heads-message'));
      assert.ok(await page.isHidden('#heads-fix'));
      await page.waitForFunction(() => !document.querySelector('.heatmap-frame.stale'), null, { timeout: TIMEOUT_MS });  // no longer greyed
      await waitForHash(page, `do=${fix}`);
      await close();
    }
    // without trainable weights d is the vectors' own: nothing to set
    const { page, close } = await openPage(suite);
    await waitForRows(page, 6);
    await page.fill('#heads', '7');
    await page.locator('#heads-message').waitFor({ state: 'visible' });
    assert.ok(await page.isHidden('#heads-fix'));
    await close();
  });

  test('the 4,096-token sample replaces the typed text as typing would: Ctrl+Z brings the text back', async () => {
    const { page, close } = await openPage(suite);
    await waitForRows(page, 6);
    const typed = 'My own words, typed here';
    await page.fill(SENTENCE, typed);
    await waitForRows(page, (await tokensOf(typed)).length);
    await page.click('#long-sample');
    await waitForRows(page, 4096, 60_000);
    assert.equal(await page.inputValue(SENTENCE), await longSampleText(4096));
    await page.focus(SENTENCE);
    await page.keyboard.press('Control+z');
    await waitForRows(page, (await tokensOf(typed)).length, 60_000);
    assert.equal(await page.inputValue(SENTENCE), typed);
    await page.waitForFunction((text) => new URLSearchParams(location.hash.slice(1)).get('t') === text, typed, { timeout: TIMEOUT_MS });
    await close();
  });

  test('markup typed into the box is shown as text and never executed', async () => {
    const { page, close } = await openPage(suite);
    await waitForRows(page, 6);
    const markup = '<img src=x onerror="document.documentElement.dataset.pwned=1"><script>document.documentElement.dataset.pwned=2</script><b>bold</b>';
    await page.fill(SENTENCE, markup);
    await waitForRows(page, (await tokensOf(markup)).length);
    const found = await page.evaluate(() => ({
      pwned: document.documentElement.dataset.pwned ?? null,
      injected: document.querySelectorAll('img, b, script:not([src])').length,
      chips: [...document.querySelectorAll('#tokens button.token')].map((b) => b.textContent).join(''),
      lines: [...document.querySelectorAll('#lines text.token')].map((t) => t.textContent).join(''),
    }));
    assert.equal(found.pwned, null);
    assert.equal(found.injected, 0);
    assert.ok(found.chips.includes('<img') || found.chips.startsWith('<img'), found.chips);
    assert.ok(found.chips.includes('onerror'));
    assert.ok(found.lines.includes('<'));
    await close();
  });

  test('an engine that fails to load is reported on the page', async () => {
    await assertEngineFailureShown(suite, '');
  });
});
