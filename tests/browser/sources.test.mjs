// The word-vector sources besides GloVe: random vectors are torch.rand(n, d) after
// torch.manual_seed(seed), drawn by the engine, and the editable table feeds the matrix.
// Expected numbers come from the same engine in Node.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { PRESETS } from '../../web/playground/presets.js';
import {
  TIMEOUT_MS, afterRedraw, assertClose, exportedJson, nodeEngine, openPage, startSuite, waitForHash, waitForRows,
} from './helpers.mjs';

const DEFAULT_TOKENS = 6;        // "Your journey starts with one step"
const TOLERANCE = 1e-6;          // the page and Node run the same wasm
const VECTOR_COLUMN = 7;         // of the steps table: x_j, all of it in data-values

let suite;
before(async () => { suite = await startSuite(); });
after(async () => { await suite?.close(); });

// The rows of x as the tutorial's steps table holds them (every row shows while n ≤ 24).
async function stepVectors(page, rows) {
  await page.waitForFunction((count) => document.querySelectorAll('[data-testid="steps-table"] tbody tr').length === count,
    rows, { timeout: TIMEOUT_MS });
  return page.evaluate((column) => [...document.querySelectorAll('[data-testid="steps-table"] tbody tr')]
    .map((row) => row.cells[column].dataset.values.split(',').map(Number)), VECTOR_COLUMN);
}

const rowsOf = ({ rows, cols, data }) => Array.from({ length: rows }, (_, r) => Array.from(data.subarray(r * cols, (r + 1) * cols)));

// The table's numbers as typed in its inputs, row by row.
const tableValues = (page) => page.evaluate(() => [...document.querySelectorAll('#vector-table tbody tr')]
  .map((row) => [...row.querySelectorAll('input')].map((input) => Number(input.value))));

describe('vector sources', () => {
  test('random vectors are torch.rand(n, d) after torch.manual_seed(seed), and a new seed draws new ones', async () => {
    const { page, close } = await openPage(suite, '#src=random&rs=7&rd=5&sw=tutorial');
    await waitForRows(page, DEFAULT_TOKENS);
    const engine = await nodeEngine();
    const expected = engine.torchGenerator(7).rand(DEFAULT_TOKENS, 5);
    assert.deepEqual(await stepVectors(page, DEFAULT_TOKENS), rowsOf(expected), 'x is torch.rand(6, 5) after the seed');
    assert.match(await page.textContent('#source-status'), /torch\.rand\(n, 5\) after torch\.manual_seed\(7\)/);
    const json = await exportedJson(page);
    assertClose(json.heads[0].weights, Array.from(engine.selfAttention(expected).weights[0].data), TOLERANCE, 'weights');

    await afterRedraw(page, () => page.fill('#random-seed', '8'));
    await waitForHash(page, 'rs=8');
    const reseeded = engine.torchGenerator(8).rand(DEFAULT_TOKENS, 5);
    assert.deepEqual(await stepVectors(page, DEFAULT_TOKENS), rowsOf(reseeded), 'x is torch.rand(6, 5) after seed 8');
    assert.notDeepEqual(rowsOf(reseeded), rowsOf(expected));
    await close();
  });

  test('the table starts from the vectors on display, and editing it changes the matrix and the link', async () => {
    const { page, close } = await openPage(suite, '#src=journey');
    await waitForRows(page, DEFAULT_TOKENS);
    const engine = await nodeEngine();
    const journey = Object.values(PRESETS.journey.vectors);

    await afterRedraw(page, () => page.selectOption('#source', 'table'));
    assert.ok(await page.isVisible('#vector-table'));
    assert.deepEqual(await page.locator('#vector-table tbody th').allTextContents(), PRESETS.journey.text.split(' '));
    assert.deepEqual(await tableValues(page), journey, 'the table holds the preset\'s vectors');
    const before = (await exportedJson(page)).heads[0].weights;
    assertClose(before, Array.from(engine.selfAttention(journey).weights[0].data), TOLERANCE, 'weights of the table');

    // "starts" (row 2) gets a new second coordinate
    const edited = journey.map((row) => [...row]);
    edited[2][1] = -1.5;
    await afterRedraw(page, () => page.getByLabel('starts (#2), x2').fill('-1.5'));
    const after = (await exportedJson(page)).heads[0].weights;
    assertClose(after, Array.from(engine.selfAttention(edited).weights[0].data), TOLERANCE, 'weights after the edit');
    const changed = after.map((w, k) => Math.abs(w - before[k])).filter((d) => d > TOLERANCE).length;
    assert.ok(changed >= DEFAULT_TOKENS, `only ${changed} weights changed`);
    await waitForHash(page, 'tv=');
    const hash = await page.evaluate(() => location.hash);
    assert.equal(new URLSearchParams(hash.slice(1)).get('tv').split(';')[2], '0.57,-1.5,0.64');
    await close();

    const reopened = await openPage(suite, hash);
    await waitForRows(reopened.page, DEFAULT_TOKENS);
    assert.deepEqual(await tableValues(reopened.page), edited, 'the link brings the edited table back');
    await reopened.close();
  });
});
