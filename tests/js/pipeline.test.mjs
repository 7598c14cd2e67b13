// The playground's update (web/playground/pipeline.js) against a scripted engine worker and
// views in Node: when a new input's tokens appear and when the progress line does, so that a
// recompute of a few milliseconds leaves the page's thread alone while the engine computes,
// and a long one says it is under way.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { PROGRESS_DELAY_MS, WAKE_FOR_MS, WAKE_LEAD_MS, createPipeline, typingPauseFor } from '../../web/playground/pipeline.js';
import { parseHash } from '../../web/playground/state.js';

const settled = () => new Promise((resolve) => { setImmediate(resolve); });
const sleep = (ms) => new Promise((resolve) => { setTimeout(resolve, ms); });

// A page around createPipeline: `events` records, in order, the worker requests, the tokens
// shown (onInput), the progress line and the heatmap drawn; each compute request waits until
// the test settles it with finishCompute() or failCompute(message); `timings` holds what each
// drawn update recorded, `drawn` what onDrawn heard.
function scriptedPage(text) {
  const { state } = parseHash('');
  state.text = text;
  const events = [];
  const computes = [];
  const timings = [];
  const drawn = [];
  let input = null;
  const vectors = {
    async embed() {
      if (input?.key === state.text) return;
      const tokens = state.text === '' ? [] : state.text.split(' ').map((word) => ({ text: word }));
      input = { key: state.text, tokens, labels: tokens.map((token, index) => ({ ...token, index })), x: null };
    },
    input: () => input,
  };
  const client = {
    request(name, payload) {
      events.push(`request ${name}`);
      if (name === 'wake') events.push(`wake ${payload.ms} ms`);
      if (name === 'compute') {
        return new Promise((resolve, reject) => computes.push({ resolve, reject, payload }));
      }
      const values = { memory: { scores: [], kvCache: [] }, blocks: { block: 1, panels: [] } };
      return Promise.resolve({ value: values[name] ?? {}, milliseconds: 1 });
    },
  };
  const record = (name) => () => { events.push(name); };
  const views = {
    clear: record('clear'), showWasmMemory() {}, draw: () => { events.push('draw'); return 1; },
    recordTiming: (started, pieces) => { timings.push(pieces); return 40 + timings.length; },
    markStale: record('stale'), hideGeneration() {}, showSteps() {}, showCost() {}, showKvCache() {},
  };
  const status = {
    progress: (message) => events.push(`progress ${message}`),
    done: (message, isError = false) => events.push(`${isError ? 'error' : 'done'} ${message}`),
  };
  const pipeline = createPipeline({
    client, state, vectors, views, status, comparison: { problem() {}, draw() {}, markStale() {} },
    onInput: (shown) => events.push(`tokens ${shown.key}`), onFit() {}, onDrawn: (ms, pause) => drawn.push([ms, pause]),
  });
  return {
    state, events, timings, drawn, update: pipeline.update, wake: pipeline.wake,
    finishCompute(index = computes.length - 1) {
      const { payload, resolve } = computes[index];
      resolve({ value: { n: input.tokens.length, heads: payload.options.heads, engineMs: 1, wasmBytes: 0 }, milliseconds: 1 });
    },
    failCompute(message, index = computes.length - 1) { computes[index].reject(new Error(message)); },
  };
}

const shown = (events) => events.filter((event) => /^(tokens|draw|progress|error)/.test(event));

describe('the playground\'s update', { timeout: 10_000 }, () => {
  test('a drawn update records the typing pause it followed, and tells onDrawn its time; one overtaken does not', async () => {
    const page = scriptedPage('the cat sat');
    const first = page.update({ typingPause: 120 });
    await settled();
    page.state.text = 'the cat';
    const second = page.update();
    await settled();
    page.finishCompute(0);
    page.finishCompute(1);
    await Promise.all([first, second]);
    assert.deepEqual(page.timings.map((pieces) => pieces.typingPause), [0], 'only the second update was drawn');
    assert.deepEqual(page.drawn, [[41, 0]]);
    const third = page.update({ typingPause: 60 });
    await settled();
    await third;  // the same settings: the computed result is reused
    assert.deepEqual(page.timings.map((pieces) => pieces.typingPause), [0, 60]);
    assert.deepEqual(page.drawn, [[41, 0], [42, 60]]);
  });

  test('the typing pause is twice a typed update\'s time, from 60 to 250 ms', () => {
    assert.deepEqual([0, 10, 30, 31, 40, 75, 100, 125, 126, 1300].map(typingPauseFor), [60, 60, 60, 62, 80, 150, 200, 250, 250, 250]);
  });

  test('wake asks the engine to keep its threads awake WAKE_FOR_MS, longer than the WAKE_LEAD_MS before the update is due', () => {
    assert.ok(WAKE_FOR_MS > 2 * WAKE_LEAD_MS, `${WAKE_FOR_MS} and ${WAKE_LEAD_MS} ms`);
    const page = scriptedPage('the cat sat');
    page.wake();
    assert.deepEqual(page.events, ['request wake', `wake ${WAKE_FOR_MS} ms`]);
  });

  test('a computation shorter than the delay shows neither progress nor the new tokens before it is drawn, then both at once', async () => {
    const page = scriptedPage('the cat sat');
    const update = page.update();
    await settled();
    assert.deepEqual(shown(page.events), [], 'nothing shown while the engine computes');
    page.finishCompute();
    await update;
    assert.deepEqual(shown(page.events), ['tokens the cat sat', 'draw']);
  });

  test('a computation that runs past the delay shows the progress line and the new tokens while it runs', async () => {
    const page = scriptedPage('the cat sat');
    const update = page.update();
    await sleep(PROGRESS_DELAY_MS + 100);
    const during = shown(page.events);
    assert.equal(during.length, 2, during.join('; '));
    assert.ok(during.includes('tokens the cat sat'));
    assert.match(during.find((event) => event.startsWith('progress')), /^progress Computing 3 × 3, 1 head: /);
    page.finishCompute();
    await update;
    assert.equal(shown(page.events).at(-1), 'draw');
    assert.equal(shown(page.events).filter((event) => event.startsWith('tokens')).length, 1, 'the tokens are shown once');
  });

  test('an update overtaken by a change of settings leaves its new tokens to the newer update', async () => {
    const page = scriptedPage('the cat sat');
    const first = page.update();
    await settled();
    page.state.heads = 2;  // the same input, other settings: the newer update does not embed it again
    const second = page.update();
    await settled();
    page.finishCompute(0);
    page.finishCompute(1);
    await Promise.all([first, second]);
    assert.deepEqual(shown(page.events), ['tokens the cat sat', 'draw']);
    await sleep(PROGRESS_DELAY_MS + 50);  // the delay passes: nothing is shown again
    assert.deepEqual(shown(page.events), ['tokens the cat sat', 'draw']);
  });

  test('settings changed while a new input computes do not put off its tokens', async () => {
    const page = scriptedPage('the cat sat');
    const first = page.update();
    await sleep(PROGRESS_DELAY_MS / 2);
    page.state.heads = 2;
    const second = page.update();
    await sleep(PROGRESS_DELAY_MS / 2 + 50);  // the input's delay has passed, the second update's not
    assert.ok(page.events.includes('tokens the cat sat'), page.events.join('; '));
    page.finishCompute(0);
    page.finishCompute(1);
    await Promise.all([first, second]);
  });

  test('an update overtaken by a new text never shows its own tokens after the newer ones', async () => {
    const page = scriptedPage('the cat');
    const first = page.update();
    await settled();
    page.state.text = 'a dog ran';
    const second = page.update();
    await settled();
    page.finishCompute(1);
    await second;
    page.finishCompute(0);
    await first;
    await sleep(PROGRESS_DELAY_MS + 50);
    assert.deepEqual(shown(page.events), ['tokens a dog ran', 'draw']);
  });

  test('no tokens, or settings that do not fit the input, show the tokens with what to do', async () => {
    const empty = scriptedPage('');
    await empty.update();
    assert.deepEqual(empty.events.filter((event) => /^(tokens|done|request compute)/.test(event)),
      ['tokens ', 'done Type a sentence to see its attention.']);
    const page = scriptedPage('the cat sat');
    page.state.heads = 3;  // the input is the page's default random vectors of 8 dimensions
    await page.update();
    const events = shown(page.events);
    assert.equal(events[0], 'tokens the cat sat');
    assert.match(events[1], /^error .*heads/);
    assert.ok(!page.events.includes('request compute'), 'nothing is computed');
  });

  test('a computation that fails shows the new tokens with its error', async () => {
    const page = scriptedPage('the cat sat');
    const update = page.update();
    await settled();
    page.failCompute('out of memory');
    await update;
    assert.deepEqual(shown(page.events), ['tokens the cat sat', 'error out of memory']);
  });
});
