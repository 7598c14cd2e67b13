// The page half of the bad-input catalogue (the JavaScript API's half is tests/js/errors.test.mjs):
// bad inputs entered as a user enters them — the URL hash on load and changed through
// location.hash, typing and pasting in the sentence box, the number boxes, the vector table,
// the lab's link and sliders, the Train page's link, number boxes and model files. For each: a visible message names the field and the bad value
// or the rule; a cheap interaction still answers afterwards (the page did not freeze); no
// script ran (a marker global stays unset, no dialog opened, no markup was inserted). After
// the whole table, in the same page, a known input gives exactly the numbers it gave before
// the table, and the playground's engine worker holds no more wasm memory than its first
// run did.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  TIMEOUT_MS, TRAIN_QUICK, afterRedraw, exportedJson, longSampleText, nodeEngine, openPage, startSuite, trainAndWait,
  waitForRows,
} from './helpers.mjs';

const SENTENCE = '[data-testid="sentence-input"]';
const NOTICES = '#notices';
const STATUS = '#compute-status';
const KNOWN = '#src=journey';             // "Your journey starts with one step", the tutorial's 3-d vectors
const KNOWN_TOKENS = 6;
const PASTE_BYTES = 5 * 2 ** 20;
const MAX_NOTICE_CHARS = 2000;           // a notice about a 100 KB link stays readable
const MARKER = '__badInputRan';          // what every injected script would set on window
const MARKUP = `<img src=x onerror="window.${MARKER}=1;alert(1)"><script>window.${MARKER}=2</script><b>bold</b>`;
// `text` as a regular expression that matches it literally.
const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

let suite;
before(async () => { suite = await startSuite(); });
after(async () => { await suite?.close(); });

const repeat = (text, count) => Array.from({ length: count }, () => text).join('');

// ---- driving the page -------------------------------------------------------------------

// Changes the hash as a user editing the address bar does, so that the page hears a
// hashchange even when the new hash equals the one it wrote itself.
async function setHash(page, hash) {
  await page.evaluate((next) => {
    history.replaceState(null, '', `${location.pathname}${location.search}`);
    location.hash = next;
  }, hash);
}

// Waits until the text of `selector` is visible and matches every one of `patterns`
// (RegExps), and returns it.
async function messageOf(page, selector, ...patterns) {
  const sources = patterns.map(({ source, flags }) => [source, flags]);
  try {
    await page.waitForFunction(([sel, all]) => {
      const element = document.querySelector(sel);
      return element && !element.closest('[hidden]')
        && all.every(([source, flags]) => new RegExp(source, flags).test(element.textContent));
    }, [selector, sources], { timeout: TIMEOUT_MS });
  } catch (error) {
    const shown = await page.evaluate((sel) => document.querySelector(sel)?.textContent, selector);
    throw new Error(`${selector} does not say ${patterns.join(' and ')} (it says ${JSON.stringify(shown?.slice(0, 500))}): ` +
      error.message);
  }
  return page.textContent(selector);
}

// Fills a number box the way a keyboard does: selects what it holds and types `text`
// (letters a number box refuses are dropped, as they are for a user).
async function typeInto(page, selector, text) {
  await page.locator(selector).selectText({ timeout: TIMEOUT_MS });
  if (text === '') await page.keyboard.press('Delete');
  else await page.keyboard.type(text);
}

// The playground back to a valid state given by `hash`, drawn, with no message on display.
async function resetPlayground(page, hash) {
  await page.evaluate(() => document.activeElement?.blur());
  await afterRedraw(page, () => setHash(page, hash));
  const leftovers = await page.evaluate(() => ({
    notices: [...document.querySelectorAll('#notices .notice')].map((item) => item.textContent),
    messages: [...document.querySelectorAll('.field-message:not([hidden])')].map((item) => item.textContent),
    status: document.getElementById('compute-status').classList.contains('error'),
  }));
  assert.deepEqual(leftovers, { notices: [], messages: [], status: false }, `after resetting to ${hash}`);
}

// A cheap interaction that must answer: the colour select, there and back, seen in the hash.
async function assertPlaygroundResponsive(page) {
  for (const [value, written] of [['scores', true], ['weights', false]]) {
    await page.selectOption('#value', value, { timeout: TIMEOUT_MS });
    await page.waitForFunction((expected) => location.hash.includes('val=scores') === expected, written, { timeout: TIMEOUT_MS });
  }
}

// Nothing injected ran or was inserted: the marker is unset, no dialog opened, no element
// that markup would have made exists.
async function assertNoScriptRan(page, dialogs) {
  const found = await page.evaluate((marker) => ({
    marker: window[marker] ?? null,
    inserted: document.querySelectorAll('img, b, script:not([src]), iframe, object').length,
  }), MARKER);
  assert.deepEqual({ ...found, dialogs }, { marker: null, inserted: 0, dialogs: [] });
}

// Exact numbers of the page on display: every score and weight (the JSON export holds the
// shortest decimals that read back to the same float32), the steps table and the context
// vector, and the engines' wasm memory after the last computation (the engine worker's and its
// pool's) and the bytes their allocations hold.
async function playgroundNumbers(page) {
  await page.waitForFunction((rows) => document.querySelectorAll('[data-testid="steps-table"] tbody tr').length === rows,
    KNOWN_TOKENS, { timeout: TIMEOUT_MS });
  const { heads, tokens, shape } = await exportedJson(page);
  const shown = await page.evaluate(() => ({
    steps: [...document.querySelectorAll('[data-testid="steps-table"] tbody td')]
      .filter((cell) => cell.dataset.value !== undefined || cell.dataset.values !== undefined)
      .map((cell) => cell.dataset.value ?? cell.dataset.values),
    context: document.querySelector('[data-testid="context-vector"]').dataset.values,
    wasmBytes: Number(document.querySelector('[data-testid="attention-heatmap"]').dataset.wasmBytes),
    wasmInUse: Number(document.querySelector('[data-testid="attention-heatmap"]').dataset.wasmInUse),
  }));
  return { heads, tokens, shape, ...shown };
}

// ---- the playground's catalogue ---------------------------------------------------------

// Each entry: `start`, the valid hash it starts from; `enter(page)`, the bad input as a user
// gives it; `expect(page)`, which waits for the message and asserts what it names.
const notice = (...patterns) => (page) => messageOf(page, `${NOTICES} .notice`, ...patterns);
const status = (...patterns) => async (page) => {
  await page.waitForFunction(() => document.getElementById('compute-status').classList.contains('error'),
    null, { timeout: TIMEOUT_MS });
  return messageOf(page, STATUS, ...patterns);
};
const field = (id, ...patterns) => async (page) => {
  const text = await messageOf(page, `#${id}-message`, ...patterns);
  const control = id === 'vector-table' ? '#vector-table input[aria-invalid="true"]' : `#${id}`;
  assert.equal(await page.getAttribute(control, 'aria-invalid'), 'true', `${control} is marked invalid`);
  return text;
};
const both = (...checks) => async (page) => {
  for (const check of checks) await check(page);
};
const hash = (text) => (page) => setHash(page, text);
const type = (selector, text) => (page) => typeInto(page, selector, text);
const CELL = '[aria-label="starts (#2), x2"]';  // of the vector table: row "starts", column x2

const PLAYGROUND = [
  // the link, changed in the address bar
  { name: 'hash: an unknown key', start: KNOWN, enter: hash('#src=journey&zz=1'), expect: notice(/unknown setting “zz”/) },
  { name: 'hash: zero heads', start: KNOWN, enter: hash('#h=0'),
    expect: notice(/h \(number of heads\) must be a whole number from 1 to 16, got “0”/) },
  { name: 'hash: 999,999 heads', start: KNOWN, enter: hash('#h=999999'),
    expect: notice(/h \(number of heads\) must be a whole number from 1 to 16, got “999999”/) },
  { name: 'hash: an absurd window, 1e300', start: KNOWN, enter: hash('#w=1e300'),
    expect: notice(/w \(window\) must be a whole number from 0 to 1048576, got “1e300”/) },
  { name: 'hash: a negative seed', start: KNOWN, enter: hash('#src=random&rs=-1'),
    expect: notice(/rs \(random seed\) must be a whole number from 0 to 2147483647, got “-1”/) },
  { name: 'hash: values that are not numbers or choices', start: KNOWN, enter: hash('#h=abc&nm=bogus&c=yes'),
    expect: notice(/h \(number of heads\) must be a whole number from 1 to 16, got “abc”/,
      /nm \(normalisation\) must be one of softmax, naive-softmax, sum, got “bogus”/,
      /c \(causal mask\) must be 0 or 1, got “yes”/) },
  { name: 'hash: malformed percent-encoding', start: KNOWN, enter: hash('#t=%E0%A4%A&h=%ZZ'),
    expect: notice(/malformed percent-encoding in “t=%E0%A4%A”/, /malformed percent-encoding in “h=%ZZ”/) },
  { name: 'hash: a 300-character key', start: KNOWN, enter: hash(`#${'k'.repeat(300)}=1`),
    expect: notice(new RegExp(`unknown setting “${'k'.repeat(40)}…”`)) },
  { name: 'hash: 100 KB of junk', start: KNOWN, enter: hash(`#${repeat('x=1&', 25_000)}q=99999999`),
    expect: async (page) => {
      const text = await notice(/unknown setting “x”/,
        /q \(query token #\) must be a whole number from 0 to 1048576, got “99999999”/)(page);
      assert.ok(text.length < MAX_NOTICE_CHARS, `a notice of ${text.length} characters`);
    } },
  { name: 'hash: NaN in the vector table', start: KNOWN, enter: hash('#src=table&tv=1,2,3;NaN,1,2'),
    expect: notice(/tv \(vector table\) must be rows of numbers .*got “1,2,3;NaN,1,2”/) },
  { name: 'hash: a vector-table value beyond float32', start: KNOWN, enter: hash('#src=table&tv=1,2,3;1e39,1,2'),
    expect: notice(/tv \(vector table\) must be rows of numbers .*within ±3\.4e38/) },
  { name: 'hash: ALiBi slopes that are not numbers', start: KNOWN, enter: hash('#pe=alibi&as=abc'),
    expect: notice(/as \(ALiBi slopes\) must be numbers separated by commas.*“abc” is not a number/) },
  { name: 'hash: an infinite RoPE base', start: KNOWN, enter: hash('#pe=rope&h=2&rb=Infinity'),
    expect: notice(/rb \(RoPE base\) must be a positive number, got “Infinity”/) },
  { name: 'hash: 7 heads over 100-d GloVe', start: KNOWN, enter: hash('#h=7'),
    expect: both(field('heads', /7 heads cannot split d = 100 into equal slices: choose 1, 2, 4, 5, 10\./),
      status(/7 heads cannot split d = 100/)) },
  { name: 'hash: RoPE over 25-dimensional heads', start: KNOWN, enter: hash('#pe=rope&h=4'),
    expect: both(field('heads', /RoPE rotates pairs of coordinates, so each head's width must be even/,
      /4 heads over d = 100 give heads of 25 dimensions\. With RoPE choose 1, 2, 5, 10 heads\./),
    status(/4 heads over d = 100 give heads of 25 dimensions/)) },
  { name: 'hash: markup and script in the text', start: KNOWN, enter: hash(`#t=${encodeURIComponent(MARKUP)}`),
    expect: async (page) => {
      await page.waitForFunction(() => document.getElementById('sentence').value.startsWith('<img'), null, { timeout: TIMEOUT_MS });
      await messageOf(page, '#tokens', /^<img.*onerror.*<script>/);
    } },

  // the controls, typed into
  { name: 'heads: 0 typed', start: KNOWN, enter: type('#heads', '0'),
    expect: field('heads', /The number of heads must be a whole number from 1 to 16; got “0”/) },
  { name: 'heads: 1e999 typed', start: KNOWN, enter: type('#heads', '1e999'),
    expect: field('heads', /The number of heads must be a whole number from 1 to 16; what is typed is not a number/) },
  { name: 'heads: 7 typed over 100-d GloVe', start: '#h=2', enter: type('#heads', '7'),
    expect: both(field('heads', /7 heads cannot split d = 100/), status(/7 heads cannot split d = 100/)) },
  { name: 'RoPE chosen with 4 heads over 100 dims', start: '#h=4', enter: (page) => page.selectOption('#positional', 'rope'),
    expect: both(field('heads', /4 heads over d = 100 give heads of 25 dimensions/), status(/each head's width must be even/)) },
  { name: 'window: 1e300 typed', start: KNOWN, enter: type('#window', '1e300'),
    expect: field('window', /The window must be a whole number from 0 to 1048576; got “1e300”/) },
  { name: 'sinks: -1 typed', start: '#w=3', enter: type('#sinks', '-1'),
    expect: field('sinks', /The number of sink tokens must be a whole number from 0 to 1048576; got “-1”/) },
  { name: 'random seed: -1 typed', start: '#src=random', enter: type('#random-seed', '-1'),
    expect: field('random-seed', /The random seed must be a whole number from 0 to 2147483647; got “-1”/) },
  { name: 'random seed: 2^31 typed', start: '#src=random', enter: type('#random-seed', '2147483648'),
    expect: field('random-seed', /The random seed must be a whole number from 0 to 2147483647; got “2147483648”/) },
  { name: 'd_out: 99999 typed', start: '#tw=linear', enter: type('#d-out', '99999'),
    expect: field('d-out', /The d_out must be a whole number from 1 to 512; got “99999”/) },
  { name: 'hash: a negative generation step', start: KNOWN, enter: hash('#src=journey&gen=1&gs=-1'),
    expect: notice(/gs \(generation step\) must be a whole number from 0 to 1048576, got “-1”/) },
  { name: 'generation step: 1e300 typed', start: `${KNOWN}&gen=1`, enter: type('#generation-step', '1e300'),
    expect: field('generation-step', /The generation step must be a whole number from 0 to 1048576; got “1e300”/) },
  { name: 'scale: -3 typed', start: `${KNOWN}&sw=tutorial`, enter: type('#step-scale', '-3'),
    expect: field('step-scale', /The step-by-step scale must be a positive number; got “-3”/) },
  { name: 'scale: emptied', start: `${KNOWN}&sw=tutorial`, enter: type('#step-scale', ''),
    expect: field('step-scale', /The step-by-step scale must be a positive number; the box is empty/) },
  { name: 'RoPE base: 0 typed', start: '#pe=rope&h=2', enter: type('#rope-base', '0'),
    expect: field('rope-base', /The RoPE base must be a positive number; got “0”/) },
  { name: 'hash: 3 key/value heads for 4 heads', start: KNOWN, enter: hash('#tw=linear&do=8&h=4&kv=3'),
    expect: both(field('kv-heads', /3 key\/value heads cannot serve 4 query heads evenly: .*choose 1, 2, 4/),
      status(/3 key\/value heads cannot serve 4 query heads evenly/)) },
  { name: 'hash: 99 key/value heads', start: KNOWN, enter: hash('#tw=linear&kv=99'),
    expect: notice(/kv \(number of key\/value heads\) must be a whole number from 1 to 16, got “99”/) },
  { name: 'key/value heads: 0 typed', start: '#tw=linear&do=8&h=4', enter: type('#kv-heads', '0'),
    expect: field('kv-heads', /The number of key\/value heads must be a whole number from 1 to 16; got “0”/) },
  { name: 'key/value heads: 3 typed for 4 heads', start: '#tw=linear&do=8&h=4', enter: type('#kv-heads', '3'),
    expect: both(field('kv-heads', /3 key\/value heads cannot serve 4 query heads evenly/), status(/cannot serve 4 query heads/)) },
  { name: 'heads: 3 typed under 2 key/value heads', start: '#tw=linear&do=12&h=4&kv=2', enter: type('#heads', '3'),
    expect: both(field('kv-heads', /2 key\/value heads cannot serve 3 query heads evenly: .*choose 1, 3/), status(/cannot serve 3 query heads/)) },
  { name: 'ALiBi slopes: abc typed', start: '#pe=alibi&h=2', enter: (page) => page.fill('#alibi-slopes', 'abc'),
    expect: field('alibi-slopes', /The ALiBi slopes must be numbers separated by commas.*“abc” is not a number/) },
  { name: 'ALiBi slopes: one slope for two heads', start: '#pe=alibi&h=2', enter: (page) => page.fill('#alibi-slopes', '0.5'),
    expect: both(field('alibi-slopes', /1 ALiBi slope for 2 heads: give one per head/), status(/1 ALiBi slope for 2 heads/)) },
  { name: 'query: -1 typed', start: KNOWN, enter: type('#query', '-1'),
    expect: field('query', /The query token # must be a whole number from 0 to 1048576; got “-1”/) },
  { name: 'vector table: NaN typed', start: '#src=table', enter: type(CELL, 'NaN'),
    expect: field('vector-table', /starts \(#2\), x2 (is empty|: what is typed is not a number)\./, /Every cell needs a finite number/) },
  { name: 'vector table: Infinity as 1e999 typed', start: '#src=table', enter: type(CELL, '1e999'),
    expect: field('vector-table', /starts \(#2\), x2: what is typed is not a number/) },
  { name: 'vector table: 1e39 typed, beyond float32', start: '#src=table', enter: type(CELL, '1e39'),
    expect: field('vector-table', /starts \(#2\), x2 = 1e39 is beyond float32/) },
  { name: 'vector table: 1e30 typed, scores overflow', start: '#src=table', enter: type(CELL, '1e30'),
    expect: status(/softmax attention overflowed float32 in head 0, query 2: scores\[0\]\[2\]\[2\]/) },

  // the sentence box
  { name: 'sentence: markup and script typed', start: KNOWN, enter: (page) => page.fill(SENTENCE, MARKUP),
    expect: async (page) => {
      const chips = await messageOf(page, '#tokens', /^<img.*onerror.*<script>/);
      assert.ok(chips.includes('bold'), chips);
    } },
  { name: 'sentence: a 5 MB paste', start: '#h=2',
    enter: async (page) => {
      await page.evaluate((bytes) => navigator.clipboard.writeText("The cat didn't sit. ".repeat(bytes / 20)), PASTE_BYTES);
      await page.locator(SENTENCE).focus();
      await page.keyboard.press('Control+A');
      await page.keyboard.press('Control+V');
    },
    expect: async (page) => {
      await messageOf(page, '#token-count', /^8,192 tokens · .* · text cut at 8,192 tokens$/);
      await status(/^8,192 tokens × 2 heads need 1\.00 GiB of scores and weights; this page keeps at most 512 MiB/)(page);
      await messageOf(page, '#link-note',
        /This text is not in the page's link: encoded for a URL it takes more than 65,536 characters/);
      assert.equal(await page.evaluate(() => location.hash), '#h=2');
      assert.equal((await page.inputValue(SENTENCE)).length, PASTE_BYTES);
    } },
  { name: 'sentence: 4,096 tokens × 5 heads, past the page’s 512 MiB', start: '#h=5', enter: (page) => page.click('#long-sample'),
    expect: status(/^4,096 tokens × 5 heads need 640 MiB of scores and weights; this page keeps at most 512 MiB/,
      /use fewer heads or a shorter text/) },
];

// ---- the lab's catalogue ----------------------------------------------------------------

const LAB_NOTICE = '[data-testid="link-notices"] .notice';
const labNotice = (...patterns) => (page) => messageOf(page, LAB_NOTICE, ...patterns);
const LENGTHS = '16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096';

const LAB = [
  { name: 'lab hash: n = 1e300', enter: hash('#n=1e300'), expect: labNotice(new RegExp(`n must be one of ${LENGTHS}, got “1e300”`)) },
  { name: 'lab hash: a million positions', enter: hash('#n=1000000'), expect: labNotice(/n must be one of 16, .*4096, got “1000000”/) },
  { name: 'lab hash: zero and negative lengths', enter: hash('#n=0&layers=-1'),
    expect: labNotice(/n must be one of .*, got “0”/, /layers must be a whole number from 1 to 32, got “-1”/) },
  { name: 'lab hash: a million layers and trials', enter: hash('#layers=1e6&trials=1e6'),
    expect: labNotice(/layers must be a whole number from 1 to 32, got “1e6”/,
      /trials must be a whole number from 1 to 64, got “1e6”/) },
  { name: 'lab hash: residual and slope out of range', enter: hash('#residual=5&slope=-1'),
    expect: labNotice(/residual must be a number from 0 to 0\.95 in steps of 0\.05, got “5”/,
      /slope must be a number from 0\.0001 to 0\.32, got “-1”/) },
  { name: 'lab hash: a window and sinks off the sliders', enter: hash('#window=1e9&sinks=-3'),
    expect: labNotice(/window must be one of 0, 4, 8, .*1024, got “1e9”/, /sinks must be a whole number from 0 to 16, got “-3”/) },
  { name: 'lab hash: a RoPE base of 0', enter: hash('#positional=rope&ropeBase=0'),
    expect: labNotice(/ropeBase must be one of 500, 10000, 500000, got “0”/) },
  { name: 'lab hash: 7 documents', enter: hash('#documents=7'), expect: labNotice(/documents must be one of 10, 20, 30, got “7”/) },
  { name: 'lab hash: unknown keys and choices', enter: hash('#zz=1&measure=bogus&causal=abc'),
    expect: labNotice(/unknown setting “zz”/, /measure must be one of final, received, got “bogus”/,
      /causal must be 0 or 1, got “abc”/) },
  { name: 'lab hash: NaN and Infinity', enter: hash('#signal=NaN&noise=Infinity'),
    expect: labNotice(/signal must be a number from 0 to 10 in steps of 0\.5, got “NaN”/,
      /noise must be a number from 0 to 3 in steps of 0\.25, got “Infinity”/) },
  { name: 'lab hash: markup as a key and as a value, quoted as text', enter: hash(`#zz${encodeURIComponent(MARKUP)}=1&measure=${encodeURIComponent(MARKUP)}`),
    expect: labNotice(/unknown setting “zz<img src=x onerror=/, /measure must be one of final, received, got “<img src=x onerror=/) },
  { name: 'lab hash: malformed percent-encoding', enter: hash('#layers=%ZZ'),
    expect: labNotice(/malformed percent-encoding in “layers=%ZZ”/) },
  { name: 'lab hash: 100 KB', enter: hash(`#${repeat('n=1e9&', 17_000)}`),
    expect: async (page) => {
      const text = await labNotice(/n must be one of .*, got “1e9”\.Dismiss$/)(page);
      assert.ok(text.length < MAX_NOTICE_CHARS, `a notice of ${text.length} characters`);
    } },
  { name: 'lab slider: layers pushed past its end',
    enter: async (page) => {
      await page.locator('[data-testid="layers-slider"]').focus();
      for (let k = 0; k < 40; ++k) await page.keyboard.press('ArrowRight');
    },
    expect: async (page) => {
      await messageOf(page, '#layers-value', /^32$/);
      await page.waitForFunction(() => location.hash === '#layers=32', null, { timeout: TIMEOUT_MS });
    } },
];

const POSITION_PATH = '#position-chart .series path';

// The lab's numbers on display: the position curve as drawn and its summary, the needle
// sweep's and the mitigation's summaries.
async function labNumbers(page) {
  // each section drawn: its time written, not 'computing…', and the section no longer busy
  await page.waitForFunction(() => ['position-timing', 'needle-timing', 'mitigation-timing'].every((id) => {
    const timing = document.getElementById(id);
    return /\d/.test(timing.textContent) && !timing.closest('section').hasAttribute('aria-busy');
  }), null, { timeout: TIMEOUT_MS });
  return page.evaluate((path) => ({
    curve: document.querySelector(path).getAttribute('d'),
    position: document.getElementById('position-summary').textContent,
    needle: document.getElementById('needle-summary').textContent,
    mitigation: document.getElementById('mitigation-summary').textContent,
  }), POSITION_PATH);
}

async function assertLabResponsive(page) {
  for (const written of [true, false]) {
    await page.click('#log-scale', { timeout: TIMEOUT_MS });
    await page.waitForFunction((expected) => location.hash.includes('logScale=0') === expected, written, { timeout: TIMEOUT_MS });
  }
}

// ---- the Train page's catalogue ------------------------------------------------------------

const TRAIN_NOTICE = '[data-testid="link-notices"] .notice';
const trainNotice = (...patterns) => (page) => messageOf(page, TRAIN_NOTICE, ...patterns);
// A setting's message under its control, the control marked invalid, and Train waiting.
const trainField = (id, ...patterns) => async (page) => {
  const text = await messageOf(page, `#${id}-message`, ...patterns);
  assert.equal(await page.getAttribute(`#${id}`, 'aria-invalid'), 'true', `#${id} is marked invalid`);
  assert.ok(await page.isDisabled('[data-testid="train"]'), 'Train waits for a fix');
  return text;
};
const modelStatus = (...patterns) => async (page) => {
  await page.waitForFunction(() => document.getElementById('model-status').classList.contains('error'), null, { timeout: TIMEOUT_MS });
  return messageOf(page, '[data-testid="model-status"]', ...patterns);
};
const loadFile = (name, text) => (page) => page.setInputFiles('[data-testid="load-file"]', {
  name, mimeType: 'application/json', buffer: Buffer.from(text),
});
const MODEL_FILE_LIMIT_MIB = 32;

const TRAIN = [
  // the link, changed in the address bar
  { name: 'train hash: an unknown key', enter: hash('#zz=1'), expect: trainNotice(/unknown setting “zz”/) },
  { name: 'train hash: zero heads and 999 layers', enter: hash('#heads=0&layers=999'),
    expect: trainNotice(/heads \(heads\) must be a whole number from 1 to 16, got “0”/,
      /layers \(layers\) must be a whole number from 1 to 8, got “999”/) },
  { name: 'train hash: a learning rate of 0 and 1e300 steps', enter: hash('#lr=0&steps=1e300'),
    expect: trainNotice(/lr \(learning rate\) must be a number above 0 and at most 1, got “0”/,
      /steps \(steps\) must be a whole number from 1 to 100000, got “1e300”/) },
  { name: 'train hash: NaN and Infinity', enter: hash('#lr=NaN&retrieval=Infinity'),
    expect: trainNotice(/lr \(learning rate\) must be a number above 0 and at most 1, got “NaN”/,
      /retrieval \(retrieval weight\) must be a number from 0 to 100, got “Infinity”/) },
  { name: 'train hash: an unknown encoding and context', enter: hash('#pe=relative&context=both'),
    expect: trainNotice(/pe \(positional encoding\) must be one of alibi, rope, none, learned, sinusoidal, got “relative”/,
      /context \(context\) must be one of causal, prefix, got “both”/) },
  { name: 'train hash: lengths that are not a list of numbers', enter: hash('#evalAt=16,,x'),
    expect: trainNotice(/evalAt \(lengths to evaluate at\) must be up to 8 whole numbers from 1 to 256 separated by commas.*got “16,,x”/) },
  { name: 'train hash: 9 seeds', enter: hash('#seeds=9'), expect: trainNotice(/seeds \(seeds side by side\) must be a whole number from 1 to 8, got “9”/) },
  { name: 'train hash: malformed percent-encoding', enter: hash('#steps=%ZZ'), expect: trainNotice(/malformed percent-encoding in “steps=%ZZ”/) },
  { name: 'train hash: markup as a value', enter: hash(`#pe=${encodeURIComponent(MARKUP)}`),
    expect: trainNotice(/pe \(positional encoding\) must be one of .*, got “<img src=x onerror=/) },
  { name: 'train hash: 100 KB', enter: hash(`#${repeat('steps=0&', 12_500)}`),
    expect: async (page) => {
      const text = await trainNotice(/steps \(steps\) must be a whole number from 1 to 100000, got “0”\.Dismiss$/)(page);
      assert.ok(text.length < MAX_NOTICE_CHARS, `a notice of ${text.length} characters`);
    } },
  { name: 'train hash: 3 heads over dModel 32', enter: hash('#heads=3'),
    expect: trainField('heads', /^3 heads cannot split dModel = 32 into equal slices of even width, as RoPE needs: choose 1, 2, 4, 8, 16\.$/) },
  { name: 'train hash: RoPE over heads of 3 dimensions', enter: hash('#pe=rope&dModel=12&heads=4'),
    expect: trainField('heads', /RoPE rotates pairs of coordinates, so each head's width must be even: 4 heads over dModel = 12 give heads of 3 dimensions/) },
  { name: 'train hash: 40 pairs of 32 keys', enter: hash('#pairs=40'),
    expect: trainField('pairs', /^40 pairs need 40 distinct keys, but there are only 32 key symbols/) },
  { name: 'train hash: evaluating at more pairs than keys', enter: hash('#evalAt=16,40'),
    expect: trainField('evaluate-at', /^Evaluating at 40 pairs needs as many distinct keys, but there are only 32 key symbols/) },
  { name: 'train hash: every objective weighing 0', enter: hash('#retrieval=0'),
    expect: trainField('retrieval', /The objectives' weights add up to 0/) },

  // the controls, typed into
  { name: 'heads: 3 typed', enter: type('#heads', '3'), expect: trainField('heads', /^3 heads cannot split dModel = 32/) },
  { name: 'steps: 0 typed', enter: type('#steps', '0'), expect: trainField('steps', /^The steps must be a whole number from 1 to 100000; got “0”\.$/) },
  { name: 'learning rate: -1 typed', enter: type('#learning-rate', '-1'),
    expect: trainField('learning-rate', /^The learning rate must be a number above 0 and at most 1; got “-1”\.$/) },
  { name: 'learning rate: emptied', enter: type('#learning-rate', ''),
    expect: trainField('learning-rate', /^The learning rate must be a number above 0 and at most 1; the box is empty\.$/) },
  { name: 'dModel: 1e999 typed', enter: type('#d-model', '1e999'),
    expect: trainField('d-model', /^The dModel must be a whole number from 1 to 256; (what is typed is not a number|got “1e999”)\.$/) },
  { name: 'seeds: 9 typed', enter: type('#seeds', '9'), expect: trainField('seeds', /^The seeds side by side must be a whole number from 1 to 8; got “9”\.$/) },
  { name: 'evaluate at: abc typed', enter: (page) => page.fill('#evaluate-at', 'abc'),
    expect: trainField('evaluate-at', /^The lengths to evaluate at must be up to 8 whole numbers from 1 to 256 separated by commas, such as 16, 24, 32; got “abc”\.$/) },
  { name: 'pairs: 33 typed over 32 keys', enter: type('#pairs', '33'),
    expect: trainField('pairs', /^33 pairs need 33 distinct keys, but there are only 32 key symbols/) },

  // what only the engine refuses
  { name: 'a batch of 1 over three objectives, refused by the engine', start: '#pe=alibi&batch=1&span=1&recall=1',
    enter: (page) => page.click('[data-testid="train"]'),
    expect: async (page) => {
      await messageOf(page, '#batch-message', /training\.batch \(1\) is too small to give any objective of task\.mix a sequence/);
      await page.waitForFunction(() => document.getElementById('train-status').classList.contains('error'), null, { timeout: TIMEOUT_MS });
      await messageOf(page, '[data-testid="train-status"]', /^The run could not train: .*training\.batch \(1\) is too small/);
    } },

  // model files
  { name: 'load: a file that is not JSON', enter: loadFile('broken.json', '{"config": [1, 2'),
    expect: modelStatus(/^broken\.json was not loaded: the file is not JSON \(/) },
  { name: 'load: JSON that is not a saved model', enter: loadFile('list.json', '[1, 2, 3]'),
    expect: modelStatus(/^list\.json was not loaded: the file holds no saved model: its JSON is not an object\.$/) },
  { name: 'load: a saved model with a parameter of the wrong shape', enter: async (page) => {
    const saved = await savedModel();
    saved.parameters['head.bias'] = { rows: 1, cols: 3, data: [0, 0, 0] };
    await loadFile('shape.json', JSON.stringify(saved))(page);
  }, expect: modelStatus(/^shape\.json was not loaded: .*head\.bias/) },
  { name: 'load: markup in a saved model\'s name and in a parameter\'s name, quoted as text', enter: async (page) => {
    const saved = await savedModel();
    saved.parameters[MARKUP.slice(0, 40)] = saved.parameters['head.bias'];
    await loadFile('<b>x</b>.json', JSON.stringify(saved))(page);
  }, expect: modelStatus(new RegExp(`^<b>x</b>\\.json was not loaded: .*a parameter ${escapeRegExp(JSON.stringify(MARKUP.slice(0, 40)))} that this model does not`)) },
  { name: 'load: "NaN" for a number in a saved model', enter: async (page) => {
    const saved = await savedModel();
    saved.parameters['head.bias'].data[1] = 'NaN';
    await loadFile('nan.json', JSON.stringify(saved))(page);
  }, expect: modelStatus(/^nan\.json was not loaded: .*head\.bias\.data\[1\] must be a number, got the string "NaN"/) },
  // made in the page: 33 MiB through the DevTools protocol would take seconds
  { name: `load: a file over ${MODEL_FILE_LIMIT_MIB} MiB`, enter: (page) => page.evaluate((bytes) => {
    const input = document.querySelector('[data-testid="load-file"]');
    const files = new DataTransfer();
    files.items.add(new File([new Uint8Array(bytes).fill(32)], 'huge.json', { type: 'application/json' }));
    input.files = files.files;
    input.dispatchEvent(new Event('change', { bubbles: true }));
  }, (MODEL_FILE_LIMIT_MIB + 1) * 2 ** 20),
    expect: modelStatus(/^huge\.json was not loaded: it takes 33\.0 MiB, and the page reads model files up to 32\.0 MiB\.$/) },
];

// What model.save() writes for a model the quick run's task fits, made by the engine in Node.
async function savedModel() {
  const engine = await nodeEngine();
  const model = engine.createTransformer({ vocab: 19, outputs: 8, dModel: 16 });
  const saved = model.save();
  model.delete();
  return saved;
}

// The Train page back to the valid settings of `hash`, with no message on display.
async function resetTrain(page, start) {
  await page.evaluate(() => document.activeElement?.blur());
  await setHash(page, start);
  await page.waitForFunction(() => document.querySelector('[data-testid="link-notices"]').children.length === 0
    && [...document.querySelectorAll('.field-message')].every((message) => message.hidden)
    && !document.querySelector('[data-testid="train"]').disabled, null, { timeout: TIMEOUT_MS });
}

// A cheap interaction that must answer: the lengths chart's axis, there and back, seen in the hash.
async function assertTrainResponsive(page) {
  for (const [axis, written] of [['position', true], ['relative', false]]) {
    await page.selectOption('#axis', axis, { timeout: TIMEOUT_MS });
    await page.waitForFunction((expected) => location.hash.includes('axis=position') === expected, written, { timeout: TIMEOUT_MS });
  }
}

// The quick run's numbers: its final accuracy by position, and worker 0's wasm memory and the
// bytes of it its engine holds.
async function trainNumbers(page) {
  assert.equal(await trainAndWait(page), 'finished');
  return page.evaluate(() => ({
    positions: document.getElementById('positions-chart').dataset.values,
    wasmBytes: Number(document.querySelector('[data-testid="train-status"]').dataset.wasmBytes.split(',')[0]),
    wasmInUse: Number(document.querySelector('[data-testid="train-status"]').dataset.wasmInUse.split(',')[0]),
  }));
}

// ---- the tests ----------------------------------------------------------------------------

describe('bad inputs through the page', () => {
  test(`the playground: ${PLAYGROUND.length + 1} bad inputs, each named, none freezing the page or running script; ` +
    'then the same numbers', async (t) => {
    const { page, close } = await openPage(suite, `${KNOWN}&zz=1`, {
      prepare: (context) => context.grantPermissions(['clipboard-read', 'clipboard-write']),
    });
    const dialogs = [];
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      dialog.dismiss();
    });
    await t.test('hash on load: an unknown key', async () => {
      await waitForRows(page, KNOWN_TOKENS);
      await notice(/unknown setting “zz”/)(page);
      await assertPlaygroundResponsive(page);
      await assertNoScriptRan(page, dialogs);
    });
    await resetPlayground(page, KNOWN);
    const first = await playgroundNumbers(page);
    assert.ok(first.wasmBytes > 0, 'the heatmap carries data-wasm-bytes');
    assert.ok(first.wasmInUse > 0, 'the heatmap carries data-wasm-in-use');

    for (const entry of PLAYGROUND) {
      await t.test(entry.name, async () => {
        await resetPlayground(page, entry.start);
        await entry.enter(page);
        await entry.expect(page);
        await assertPlaygroundResponsive(page);
        await assertNoScriptRan(page, dialogs);
      });
    }

    await t.test('after the catalogue: the same numbers, and no more wasm memory', async (step) => {
      await resetPlayground(page, `${KNOWN}&h=1`);
      await waitForRows(page, KNOWN_TOKENS);
      const again = await playgroundNumbers(page);
      assert.deepEqual({ ...again, wasmBytes: 0, wasmInUse: 0 }, { ...first, wasmBytes: 0, wasmInUse: 0 }, 'every number as before the catalogue');
      step.diagnostic(`the engines' wasm memory: ${first.wasmBytes} bytes before the catalogue, ${again.wasmBytes} after`);
      assert.ok(again.wasmBytes <= first.wasmBytes, `wasm memory grew from ${first.wasmBytes} to ${again.wasmBytes} bytes`);
      // the engine worker's engine and its pool's hold what they held before the catalogue (an
      // allocation a failed call left behind would add to it)
      assert.equal(again.wasmInUse, first.wasmInUse, 'the bytes the engines\' allocations hold');
    });
    await close();
  });

  test(`the lab: ${LAB.length + 1} bad inputs, each named, none freezing the page; then the same curves`, async (t) => {
    const { page, close } = await openPage(suite, 'lab.html#zz=1');
    const dialogs = [];
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      dialog.dismiss();
    });
    let first;
    await t.test('lab hash on load: an unknown key', async () => {
      await labNotice(/unknown setting “zz”/)(page);
      first = await labNumbers(page);
      await assertLabResponsive(page);
      await assertNoScriptRan(page, dialogs);
    });
    for (const entry of LAB) {
      await t.test(entry.name, async () => {
        await page.evaluate(() => document.activeElement?.blur());
        await setHash(page, '#layers=12');  // the default: no notice
        await page.waitForFunction(() => document.querySelector('[data-testid="link-notices"]').children.length === 0,
          null, { timeout: TIMEOUT_MS });
        await entry.enter(page);
        await entry.expect(page);
        await assertLabResponsive(page);
        await assertNoScriptRan(page, dialogs);
      });
    }
    await t.test('after the catalogue: the same curves', async () => {
      await setHash(page, '#layers=12');
      await page.waitForFunction(() => document.getElementById('layers-value').textContent === '12', null, { timeout: TIMEOUT_MS });
      // the curves are computed again after the reset: wait for them, then compare (a timeout
      // leaves the comparison to say what differs)
      await page.waitForFunction(([path, expected]) => document.querySelector(path).getAttribute('d') === expected.curve
        && document.getElementById('needle-summary').textContent === expected.needle
        && document.getElementById('mitigation-summary').textContent === expected.mitigation,
      [POSITION_PATH, first], { timeout: TIMEOUT_MS }).catch(() => {});
      assert.deepEqual(await labNumbers(page), first);
    });
    await close();
  });

  test(`the Train page: ${TRAIN.length + 1} bad inputs, each named, none freezing the page or running script; then the same run`, async (t) => {
    const { page, close } = await openPage(suite, `train.html${TRAIN_QUICK}&zz=1`);
    const dialogs = [];
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      dialog.dismiss();
    });
    let first;
    await t.test('train hash on load: an unknown key; then the quick run', async () => {
      await trainNotice(/unknown setting “zz”/)(page);
      await resetTrain(page, TRAIN_QUICK);
      first = await trainNumbers(page);
      await assertTrainResponsive(page);
      await assertNoScriptRan(page, dialogs);
    });
    for (const entry of TRAIN) {
      await t.test(entry.name, async () => {
        await resetTrain(page, entry.start ?? '#pe=alibi&steps=1400');
        await entry.enter(page);
        await entry.expect(page);
        await assertTrainResponsive(page);
        await assertNoScriptRan(page, dialogs);
      });
    }
    await t.test('after the catalogue: the quick run gives the same numbers, in no more wasm memory', async (step) => {
      await resetTrain(page, TRAIN_QUICK);
      while (await page.locator('#runs-body tr').count() > 0) await page.click('#runs-body tr:first-child button:text("Remove")');
      const again = await trainNumbers(page);
      assert.equal(again.positions, first.positions);
      step.diagnostic(`worker 0's wasm memory: ${first.wasmBytes} bytes after the first run, ${again.wasmBytes} after the catalogue`);
      assert.ok(again.wasmBytes <= first.wasmBytes, `wasm memory grew from ${first.wasmBytes} to ${again.wasmBytes} bytes`);
      // the worker's engine holds the one model of the one run again (a failed load that kept its
      // model, or a removed run's, would add to it)
      assert.equal(again.wasmInUse, first.wasmInUse, 'the bytes the worker\'s engine holds');
    });
    await close();
  });

  test('the link keeps a text up to 65,536 encoded characters and says when it leaves a longer one out', async () => {
    const text = await longSampleText(8192);  // about 40,000 characters, the longest text the page reads
    const { page, close } = await openPage(suite, '#src=random&h=2');
    await waitForRows(page, KNOWN_TOKENS);
    await page.fill(SENTENCE, text);
    await page.waitForFunction((length) => location.hash.length > length, text.length, { timeout: TIMEOUT_MS });
    const { hash: kept } = new URL(page.url());
    assert.equal(new URLSearchParams(kept.slice(1)).get('t'), text);
    assert.ok(await page.isHidden('#link-note'));
    await close();

    const reopened = await openPage(suite, kept);
    await reopened.page.waitForFunction(() => document.getElementById('token-count').textContent.startsWith('8,192 tokens'),
      null, { timeout: TIMEOUT_MS });
    assert.equal(await reopened.page.inputValue(SENTENCE), text);

    // one more paragraph: too long for a link; the other settings stay in it
    await reopened.page.fill(SENTENCE, `${text} ${text}`);
    await messageOf(reopened.page, '#link-note', /not in the page's link/);
    await reopened.page.waitForFunction(() => location.hash === '#src=random&h=2', null, { timeout: TIMEOUT_MS });
    await reopened.page.fill(SENTENCE, 'Short again.');
    await reopened.page.waitForFunction(() => location.hash.includes('t=Short+again.'), null, { timeout: TIMEOUT_MS });
    assert.ok(await reopened.page.isHidden('#link-note'));
    await reopened.close();
  });
});
