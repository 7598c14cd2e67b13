// The positional options of the playground: RoPE's base and pairing, ALiBi's slopes (the
// geometric default or one per head, checked with a visible message), each reaching the
// engine and the link. Expected weights come from the same engine in Node.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { HASH_WRITE_DEBOUNCE_MS } from '../../web/playground/link.js';
import {
  afterRedraw, assertClose, exportedJson, gloveInput, nodeEngine, openPage, startSuite, waitForHash, waitForRows,
} from './helpers.mjs';

const TEXT = 'Your journey starts with one step';
const TOKENS = 6;
const HEADS = 2;               // GloVe's 100 dims: two heads of 50, an even width for RoPE
const TOLERANCE = 1e-6;        // the page and Node run the same wasm
const MESSAGE = '[data-testid="alibi-slopes-message"]';
const SCORE_TOLERANCE = 1e-5;  // a float32 score against the float64 dot product of the float32 vectors shown

let suite;
before(async () => { suite = await startSuite(); });
after(async () => { await suite?.close(); });

// The weights of every head the page shows, against selfAttention(x, {heads, positional}) in Node.
async function assertWeights(page, positional, what) {
  const { x } = await gloveInput(TEXT);
  const expected = (await nodeEngine()).selfAttention(x, { heads: HEADS, positional });
  const json = await exportedJson(page);
  assert.equal(json.heads.length, HEADS);
  json.heads.forEach((head, h) => assertClose(head.weights, Array.from(expected.weights[h].data), TOLERANCE, `${what}, head ${h + 1}`));
  return json.heads.flatMap((head) => head.weights);
}

describe('positional options', () => {
  test('RoPE’s base and pairing show with RoPE, reach the engine and survive the link', async () => {
    const { page, close } = await openPage(suite, `#pe=rope&h=${HEADS}`);
    await waitForRows(page, TOKENS);
    assert.ok(await page.isVisible('#rope-options'));
    assert.ok(await page.isHidden('#alibi-options'));
    assert.equal(await page.inputValue('#rope-base'), '10000');
    assert.equal(await page.inputValue('#rope-pairing'), 'interleaved');
    const standard = await assertWeights(page, { type: 'rope' }, 'RoPE, base 10000, interleaved');

    await afterRedraw(page, () => page.fill('#rope-base', '500'));
    await afterRedraw(page, () => page.selectOption('#rope-pairing', 'half'));
    const changed = await assertWeights(page, { type: 'rope', base: 500, pairing: 'half' }, 'RoPE, base 500, halves');
    assert.ok(changed.some((w, k) => Math.abs(w - standard[k]) > 1e-3), 'base and pairing change the weights');
    await waitForHash(page, 'rp=half');
    const { hash } = new URL(page.url());
    assert.match(hash, /rb=500/);
    await close();

    const reopened = await openPage(suite, hash);
    await waitForRows(reopened.page, TOKENS);
    assert.equal(await reopened.page.inputValue('#rope-base'), '500');
    assert.equal(await reopened.page.inputValue('#rope-pairing'), 'half');
    await assertWeights(reopened.page, { type: 'rope', base: 500, pairing: 'half' }, 'RoPE, base 500, halves, from the link');
    await reopened.close();
  });

  test('under RoPE the walk-through shows the rotated q and k: their dot product times the scale is each score', async () => {
    for (const hash of ['#h=2&hv=2&tw=linear&do=4&pe=rope&c=1&q=3', `#pe=rope&h=${HEADS}&rb=500&rp=half&q=4`]) {
      const { page, close } = await openPage(suite, hash);
      await waitForRows(page, TOKENS);
      await page.waitForFunction(() => document.querySelector('[data-testid="steps-table"]').dataset.source === 'matrix'
        && document.getElementById('steps-summary').dataset.query, null);
      const walk = await page.evaluate(() => {
        const rows = [...document.querySelectorAll('[data-testid="steps-table"] tbody tr')];
        return {
          summary: document.getElementById('steps-summary').textContent,
          keyHead: document.querySelector('[data-testid="steps-table"] thead th:nth-child(6)').textContent,
          q: document.getElementById('steps-summary').dataset.query.split(',').map(Number),
          rows: rows.map((row) => ({ score: Number(row.cells[2].dataset.value), k: row.cells[5].dataset.values.split(',').map(Number) })),
        };
      });
      assert.match(walk.summary, /: q after RoPE = \[.*\] \(before: \[/, hash);
      assert.equal(walk.keyHead, 'Key k_j after RoPE');
      const scale = 1 / Math.sqrt(walk.q.length);
      assert.ok(walk.rows.length > 1, hash);
      for (const [r, { score, k }] of walk.rows.entries()) {
        if (score === -Infinity) continue;  // a key the causal mask hides
        const dot = k.reduce((sum, value, t) => sum + value * walk.q[t], 0);
        assert.ok(Math.abs(dot * scale - score) <= SCORE_TOLERANCE, `${hash}, row ${r}: q·k × ${scale} = ${dot * scale}, the score ${score}`);
      }
      await close();
    }
  });

  test('under ALiBi the walk-through shows the score\'s two parts: the scaled dot product plus the bias −m·|i − j| is each score', async () => {
    // head 1 of 2 with the geometric slopes (2^(−8·1/2) = 0.0625), causal; head 2 with a typed slope
    for (const [hash, slope, query] of [['#pe=alibi&h=2&c=1&q=3', 0.0625, 3], [`#pe=alibi&h=2&hv=2&as=${encodeURIComponent('0.5,1')}&q=4`, 1, 4]]) {
      const { page, close } = await openPage(suite, hash);
      await waitForRows(page, TOKENS);
      await page.waitForFunction(() => document.querySelector('[data-testid="steps-table"]').dataset.source === 'matrix'
        && document.getElementById('steps-summary').dataset.query, null);
      const walk = await page.evaluate(() => ({
        summary: document.getElementById('steps-summary').textContent,
        heads: [...document.querySelectorAll('[data-testid="steps-table"] thead th')].slice(2, 5).map((th) => th.textContent),
        rows: [...document.querySelectorAll('[data-testid="steps-table"] tbody tr')].map((row) => ({
          key: Number(row.cells[0].textContent), dot: Number(row.cells[2].dataset.value), bias: Number(row.cells[3].dataset.value),
          score: Number(row.cells[4].dataset.value),
        })),
      }));
      assert.match(walk.summary, new RegExp(`score ω_j = \\(q · k_j\\) × 1/√\\d+ \\(= [\\d.]+\\) − m · \\|${query} − j\\| \\(ALiBi, this head's slope m = ${slope}\\)`), hash);
      assert.deepEqual(walk.heads, ['q · k_j × scale', 'Bias −m·|i−j|', 'Score ω'], hash);
      assert.equal(walk.rows.length, TOKENS, hash);
      for (const { key, dot, bias, score } of walk.rows) {
        assert.equal(bias, -Math.fround(slope * Math.abs(query - key)) || 0, `${hash}, key ${key}`);
        if (score === -Infinity) continue;  // a key the causal mask hides
        assert.ok(Math.abs(dot + bias - score) <= SCORE_TOLERANCE, `${hash}, key ${key}: ${dot} + ${bias}, the score ${score}`);
        assert.ok(Math.abs(bias) > SCORE_TOLERANCE || key === query, `${hash}, key ${key}: a bias`);
      }
      await close();
    }
  });

  test('ALiBi: geometric slopes by default, one per head when typed, and a visible message for a bad list', async () => {
    const { page, close } = await openPage(suite, `#pe=alibi&h=${HEADS}`);
    await waitForRows(page, TOKENS);
    assert.ok(await page.isVisible('#alibi-slopes'));
    assert.ok(await page.isHidden('#rope-options'));
    assert.ok(await page.isHidden(MESSAGE));
    await assertWeights(page, { type: 'alibi' }, 'geometric slopes');

    await afterRedraw(page, () => page.fill('#alibi-slopes', '0.5, 0.1'));
    await assertWeights(page, { type: 'alibi', slopes: [0.5, 0.1] }, 'slopes 0.5, 0.1');
    await waitForHash(page, `as=${encodeURIComponent('0.5,0.1')}`);

    // not a number: the message says so, the last good slopes stay in use
    await page.fill('#alibi-slopes', '0.5, abc');
    await page.locator(MESSAGE).waitFor({ state: 'visible' });
    assert.match(await page.textContent(MESSAGE), /“abc” is not a number/);
    assert.equal(await page.getAttribute('#alibi-slopes', 'aria-invalid'), 'true');
    await assertWeights(page, { type: 'alibi', slopes: [0.5, 0.1] }, 'the last good slopes');
    await page.waitForTimeout(2 * HASH_WRITE_DEBOUNCE_MS);  // a link written after the bad entry would have come by now
    assert.match(await page.evaluate(() => location.hash), /as=0\.5%2C0\.1/);

    // one slope for two heads: the message asks for one per head and the matrix waits
    await afterRedraw(page, () => page.fill('#alibi-slopes', '0.5'));
    assert.match(await page.textContent(MESSAGE), /1 ALiBi slope for 2 heads: give one per head/);
    assert.match(await page.textContent('#compute-status'), /1 ALiBi slope for 2 heads/);
    assert.ok(await page.locator('.heatmap-frame.stale').count() === 1, 'the matrix on display is marked stale');

    // one head: the single slope fits
    await afterRedraw(page, () => page.fill('#heads', '1'));
    assert.ok(await page.isHidden(MESSAGE));
    assert.equal(await page.getAttribute('#alibi-slopes', 'aria-invalid'), null);

    // back to two heads and an empty box: the geometric slopes again
    await afterRedraw(page, () => page.fill('#heads', String(HEADS)));
    await afterRedraw(page, () => page.fill('#alibi-slopes', ''));
    assert.ok(await page.isHidden(MESSAGE));
    await assertWeights(page, { type: 'alibi' }, 'geometric slopes again');
    await page.waitForFunction(() => !location.hash.includes('as='), null);
    await close();
  });
});
