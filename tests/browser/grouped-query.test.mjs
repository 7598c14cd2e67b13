// Grouped-query attention in the playground: the key/value heads control reaches the engine
// (exported and hovered numbers equal engine.selfAttention with kvHeads and the page's
// projections), survives the link, shows which query heads share a key/value head in the
// head grid, applies only with trainable weights; and the cost panel's key/value cache of
// published models equals engine.kvCacheMemory and the golden numbers.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { schemeTableau10 } from 'd3-scale-chromatic';
import {
  TIMEOUT_MS, exportedJson, gloveInput, nodeEngine, openPage, startSuite, waitForHash, waitForRows,
} from './helpers.mjs';

const HEATMAP = '[data-testid="attention-heatmap"]';
const TEXT_ROWS = 6;                      // "Your journey starts with one step"
const DEFAULT_TEXT = 'Your journey starts with one step';
const TORCH_SEED = 123;                   // the page's default torch.manual_seed
// 4 query heads of 2 over d_out 8 sharing 2 key/value heads, nn.Linear weights, causal, RoPE.
const GROUPED = { heads: 4, kvHeads: 2, dOut: 8 };
const GROUPED_HASH = `#tw=linear&do=${GROUPED.dOut}&h=${GROUPED.heads}&kv=${GROUPED.kvHeads}&c=1&pe=rope`;
const MiB = 2 ** 20, GiB = 2 ** 30;

let suite;
before(async () => { suite = await startSuite(); });
after(async () => { await suite?.close(); });

// torch.nn.Linear keeps its weight as out×in; the page multiplies x·W with W in×out.
function transposed({ rows, cols, data }) {
  const out = new Float32Array(rows * cols);
  for (let r = 0; r < rows; ++r) for (let c = 0; c < cols; ++c) out[c * rows + r] = data[r * cols + c];
  return { rows: cols, cols: rows, data: out };
}

// What the page computes for GROUPED_HASH, in Node: W_query d_in×8, then W_key and W_value
// d_in×(2·8/4), drawn in that order after torch.manual_seed(123).
async function expectedGrouped() {
  const engine = await nodeEngine();
  const { x } = await gloveInput(DEFAULT_TEXT);
  const generator = engine.torchGenerator(TORCH_SEED);
  const linear = (cols) => transposed(generator.linear(x.cols, cols, false).weight);
  const kvCols = (GROUPED.kvHeads * GROUPED.dOut) / GROUPED.heads;
  const wq = linear(GROUPED.dOut), wk = linear(kvCols), wv = linear(kvCols);
  return engine.selfAttention(x, {
    heads: GROUPED.heads, kvHeads: GROUPED.kvHeads, causal: true, positional: { type: 'rope' }, wq, wk, wv, kernel: 'materialized',
  });
}

// Pixels of the heatmap canvas exactly of the CSS colour `hex` (#rrggbb).
async function pixelsOf(page, hex) {
  return page.evaluate(([selector, color]) => {
    const canvas = document.querySelector(selector);
    const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
    const [r, g, b] = [1, 3, 5].map((at) => parseInt(color.slice(at, at + 2), 16));
    let count = 0;
    for (let k = 0; k < data.length; k += 4) if (data[k] === r && data[k + 1] === g && data[k + 2] === b && data[k + 3] === 255) ++count;
    return count;
  }, [HEATMAP, hex]);
}

describe('the key/value heads control', () => {
  test('reaches the engine: the export and the hovered cell equal selfAttention with kvHeads, bit for bit', async () => {
    const { page, close } = await openPage(suite, GROUPED_HASH);
    await waitForRows(page, TEXT_ROWS);
    const expected = await expectedGrouped();
    const exported = await exportedJson(page);
    assert.equal(exported.heads.length, GROUPED.heads);
    assert.equal(exported.settings.kvHeads, GROUPED.kvHeads, 'the export names the key/value heads');
    exported.heads.forEach(({ scores, weights }, h) => {
      assert.deepEqual([scores.length, weights.length], [expected.scores[h].data.length, expected.weights[h].data.length], `head ${h}'s cells`);
      assert.ok(scores.every((value, k) => Math.fround(value) === expected.scores[h].data[k]), `scores of head ${h}`);
      assert.ok(weights.every((value, k) => Math.fround(value) === expected.weights[h].data[k]), `weights of head ${h}`);
    });
    // Heads 0 and 1 share key/value head 0, heads 2 and 3 key/value head 1: their scores differ
    // (their queries do), but a head's numbers are not another group's.
    assert.notDeepEqual(exported.heads[0].weights, exported.heads[2].weights);
    // The keyboard's first cell: query 1, key 0 of head 1, named with its key/value head.
    await page.locator(HEATMAP).focus();
    const tooltip = page.locator('[data-testid="heatmap-tooltip"]');
    await tooltip.waitFor({ state: 'visible' });
    const tip = await tooltip.evaluate((element) => ({ ...element.dataset, text: element.textContent }));
    const head = Number(tip.head ?? 0), at = Number(tip.query) * TEXT_ROWS + Number(tip.key);
    assert.ok(Math.abs(Number(tip.weight) - expected.weights[head].data[at]) <= 1e-6, `hovered weight ${tip.weight}`);
    assert.match(tip.text, /Head 1 of 4 · kv 1 of 2/);
    await close();
  });

  test('the head grid names each head\'s key/value head and frames each group in its colour', async () => {
    const { page, close } = await openPage(suite, GROUPED_HASH);
    await waitForRows(page, TEXT_ROWS);
    assert.equal(await page.locator(HEATMAP).getAttribute('data-kv-groups'), '0,0,1,1');
    // The page's group colours: Tableau 10's blue, purple, brown … (no orange or red).
    const [first, second, third] = [schemeTableau10[0], schemeTableau10[6], schemeTableau10[8]];
    // Two frames per colour, each at least the panel's four sides long.
    const side = await page.evaluate((selector) => document.querySelector(selector).clientWidth / 8, HEATMAP);
    assert.ok(await pixelsOf(page, first) >= 2 * 4 * side, `frames of group 1 (${first})`);
    assert.ok(await pixelsOf(page, second) >= 2 * 4 * side, `frames of group 2 (${second})`);
    assert.equal(await pixelsOf(page, third), 0, 'no third group');
    await close();

    // Multi-head attention (no kvHeads): no groups, no frames.
    const plain = await openPage(suite, `#tw=linear&do=${GROUPED.dOut}&h=${GROUPED.heads}&c=1&pe=rope`);
    await waitForRows(plain.page, TEXT_ROWS);
    assert.equal(await plain.page.locator(HEATMAP).getAttribute('data-kv-groups'), '');
    assert.equal(await pixelsOf(plain.page, first), 0);
    await plain.close();
  });

  test('typed in, it goes into the link; the link opens the same setting and numbers', async () => {
    const first = await openPage(suite);
    await waitForRows(first.page, TEXT_ROWS);
    assert.equal(await first.page.isDisabled('#kv-heads'), true, 'without trainable weights the box is disabled');
    assert.match(await first.page.locator('[data-testid="kv-heads-hint"]').textContent(), /needs trainable weights/);
    await first.page.selectOption('#trainable', 'linear');
    await first.page.fill('#d-out', String(GROUPED.dOut));
    await first.page.fill('#heads', String(GROUPED.heads));
    await first.page.check('#causal');
    await first.page.selectOption('#positional', 'rope');
    await first.page.fill('#kv-heads', String(GROUPED.kvHeads));
    await waitForHash(first.page, `kv=${GROUPED.kvHeads}`);
    await first.page.waitForFunction(() => document.querySelector('[data-testid="attention-heatmap"]').dataset.kvGroups === '0,0,1,1',
      null, { timeout: TIMEOUT_MS });
    assert.match(await first.page.locator('[data-testid="kv-heads-hint"]').textContent(),
      /Grouped-query attention: 2 groups, each sharing one key\/value head \(2 query heads each\)/);
    const url = first.page.url();
    await first.close();

    const second = await openPage(suite, new URL(url).hash);
    await waitForRows(second.page, TEXT_ROWS);
    assert.equal(await second.page.inputValue('#kv-heads'), String(GROUPED.kvHeads));
    const expected = await expectedGrouped();
    const exported = await exportedJson(second.page);
    assert.equal(exported.heads.length, GROUPED.heads);
    exported.heads.forEach(({ weights }, h) => {
      assert.equal(weights.length, expected.weights[h].data.length, `head ${h}'s cells`);
      assert.ok(weights.every((value, k) => Math.fround(value) === expected.weights[h].data[k]), `weights of head ${h}`);
    });
    // Emptied, the box means one key/value head per head, and the link drops the setting.
    await second.page.fill('#kv-heads', '');
    await second.page.waitForFunction(() => !location.hash.includes('kv='), null, { timeout: TIMEOUT_MS });
    await second.close();
  });
});

describe('the cost panel: what real models pay for their key/value cache', () => {
  test('the named configurations\' bytes equal engine.kvCacheMemory and the golden numbers', async () => {
    const { page, close } = await openPage(suite);
    await waitForRows(page, TEXT_ROWS);
    await page.waitForFunction(() => document.querySelectorAll('#kv-cache-table tbody tr').length === 4, null, { timeout: TIMEOUT_MS });
    const rows = await page.$$eval('#kv-cache-table tbody tr', (trs) => trs.map((tr) => ({
      model: tr.dataset.model,
      bytes: [...tr.querySelectorAll('td[data-bytes]')].map((td) => Number(td.dataset.bytes)),
      beyond: [...tr.querySelectorAll('td.cost-cell')].map((td) => td.classList.contains('beyond')),
      text: tr.textContent,
    })));
    // Per token, then 4K, 32K and 128K tokens, fp16.
    const golden = {
      'GPT-2 small': [36864, 144 * MiB, 1152 * MiB, 4.5 * GiB],
      'Llama 2 7B': [512 * 1024, 2 * GiB, 16 * GiB, 64 * GiB],
      'Llama 3 8B': [128 * 1024, 512 * MiB, 4 * GiB, 16 * GiB],
      'Mistral 7B': [128 * 1024, 512 * MiB, 512 * MiB, 512 * MiB],
    };
    const published = {
      'GPT-2 small': { layers: 12, kvHeads: 12, headWidth: 64, window: 0 },
      'Llama 2 7B': { layers: 32, kvHeads: 32, headWidth: 128, window: 0 },
      'Llama 3 8B': { layers: 32, kvHeads: 8, headWidth: 128, window: 0 },
      'Mistral 7B': { layers: 32, kvHeads: 8, headWidth: 128, window: 4096 },
    };
    const engine = await nodeEngine();
    assert.deepEqual(rows.map((row) => row.model), Object.keys(golden));
    for (const row of rows) {
      assert.deepEqual(row.bytes, golden[row.model], row.model);
      const config = published[row.model];
      const fromEngine = [1, 4096, 32768, 131072].map((tokens) => engine.kvCacheMemory({ tokens, ...config }));
      assert.deepEqual(row.bytes, fromEngine, `${row.model} against engine.kvCacheMemory`);
    }
    assert.match(rows[1].text, /Llama 2 7B32 × 32 × 128512 KiB2\.00 GiB16\.0 GiB64\.0 GiB/);
    // Past the context: GPT-2 (1,024) everywhere, Llama 2 (4,096) at 32K and 128K.
    assert.deepEqual(rows[0].beyond, [true, true, true]);
    assert.deepEqual(rows[1].beyond, [false, true, true]);
    assert.match(await page.locator('[data-testid="kv-cache-answer"]').textContent(),
      /Generating 4K tokens, Llama 2 7B keeps 2\.00 GiB .* Llama 3 8B, whose 32 query heads share 8 key\/value heads, keeps 512 MiB, a quarter\./);
    await close();
  });

  test('with the page\'s own heads grouped, the answer says how much smaller its cache is', async () => {
    const { page, close } = await openPage(suite, GROUPED_HASH);
    await waitForRows(page, TEXT_ROWS);
    await page.waitForFunction(() => /4 heads now share 2 key\/value heads: its cache is 2× smaller/
      .test(document.querySelector('[data-testid="kv-cache-answer"]').textContent), null, { timeout: TIMEOUT_MS });
    await close();
  });
});
