// Exports: the PNG is the heatmap's figure, as the SVG draws it, the CSV and JSON hold the
// engine's numbers for the page's tokens and settings (escaping included), and trainable weights
// follow PyTorch.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { PRESETS } from '../../web/playground/presets.js';
import { COLOR_TABLE } from '../../web/shared/heatmap/colors.js';
import {
  TIMEOUT_MS, assertClose, downloadOf, exportedJson, figureFiles, gloveInput, longSampleText, nodeEngine, openPage, seedExample, startSuite, waitForRows,
} from './helpers.mjs';

const SENTENCE = '[data-testid="sentence-input"]';
const TEXT = 'She said "hi", then =left.';
const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const PNG_SCALE = 2;            // device pixels per CSS pixel of a figure's PNG (downloads.js)
const WHITE = [255, 255, 255, 255];  // the figure's background (heatmap-svg.js), opaque
const FIXTURE_TOLERANCE = 1e-4;  // the tutorials print 4 decimals
const TOLERANCE = 1e-6;

let suite;
before(async () => { suite = await startSuite(); });
after(async () => { await suite?.close(); });

// RFC 4180 records: quoted fields may hold commas, quotes ("") and line breaks.
function parseCsv(text) {
  const records = [];
  let record = [];
  let field = '';
  let quoted = false;
  for (let k = 0; k < text.length; ++k) {
    const c = text[k];
    if (quoted) {
      if (c === '"' && text[k + 1] === '"') field += text[++k];
      else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      record.push(field);
      field = '';
    } else if (c === '\r' && text[k + 1] === '\n') {
      record.push(field);
      records.push(record);
      record = [];
      field = '';
      k += 1;
    } else field += c;
  }
  return records;
}

// The colour the heatmap gives a weight w on the domain [0, hi]: viridis' step round(w / hi · 255), as #rrggbb.
function viridisHex(w, hi) {
  const step = Math.round((w / hi) * 255);
  return `#${[0, 1, 2].map((c) => COLOR_TABLE[step * 4 + c].toString(16).padStart(2, '0')).join('')}`;
}

// What the page's SVG file holds, read by Chromium's DOMParser: its parse error (or null), its
// title, its texts, per panel its cells' fills and <title>s, and its embedded images.
function readSvg(page, text) {
  return page.evaluate((source) => {
    const svg = new DOMParser().parseFromString(source, 'image/svg+xml');
    return {
      error: svg.querySelector('parsererror')?.textContent ?? null,
      root: svg.documentElement.localName,
      title: svg.querySelector('svg > title')?.textContent,
      text: [...svg.querySelectorAll('text')].map((t) => t.textContent),
      cells: [...svg.querySelectorAll('g.cells')].map((g) => [...g.querySelectorAll('rect')].map((rect) => ({
        fill: rect.getAttribute('fill'), title: rect.querySelector('title').textContent,
      }))),
      images: [...svg.querySelectorAll('image')].map((image) => image.getAttribute('href').slice(0, 22)),
      frames: [...svg.querySelectorAll('rect.frame')].map((rect) => rect.getAttribute('stroke')),
      // the query labels left of each matrix (anchored at their end)
      rowLabels: [...svg.querySelectorAll('text[text-anchor="end"]')].map((t) => t.textContent),
      // per panel: the hatching under its cells (not the legend's swatch), and the viewport that
      // clips its image of pooled cells with the image's own height
      hatches: [...svg.querySelectorAll('rect')].filter((rect) => rect.getAttribute('fill') === 'url(#masked-hatch)' && !rect.closest('.legend'))
        .map((rect) => ({ width: Number(rect.getAttribute('width')), height: Number(rect.getAttribute('height')) })),
      // per panel: the dashed outline of the rows not fed yet, and its name
      pending: [...svg.querySelectorAll('rect.pending')].map((rect) => ({
        y: Number(rect.getAttribute('y')), width: Number(rect.getAttribute('width')), height: Number(rect.getAttribute('height')),
        dashes: rect.getAttribute('stroke-dasharray'),
      })),
      pendingNames: [...svg.querySelectorAll('text.pending')].map((t) => t.textContent),
      viewports: [...svg.querySelectorAll('g > svg')].map((viewport) => ({
        width: Number(viewport.getAttribute('width')), height: Number(viewport.getAttribute('height')),
        imageHeight: Number(viewport.querySelector('image').getAttribute('height')),
      })),
    };
  }, text);
}

// The JSON export's numbers, with its strings for non-finite values.
const fromJson = (value) => (typeof value === 'string' ? Number(value) : value);

// The playground under a causal mask with TEXT typed into it, its tokens, and the engine's
// result for the same input.
async function openTypedCausal() {
  const { page, close } = await openPage(suite, '#c=1');
  await page.fill(SENTENCE, TEXT);
  const { tokens, x } = await gloveInput(TEXT);
  await waitForRows(page, tokens.length);
  return { page, close, tokens, expected: (await nodeEngine()).selfAttention(x, { causal: true }) };
}

describe('exports', () => {
  test('settings that fail grey the matrix and disable its exports, the error stays; settings that work export their own numbers', async () => {
    const { page, close } = await openPage(suite, '#tw=linear');
    await waitForRows(page, 6);
    const buttons = ['#export-png', '#export-svg', '#export-csv', '#export-json'];
    const disabled = () => Promise.all(buttons.map((button) => page.isDisabled(button)));
    assert.deepEqual(await disabled(), [false, false, false, false]);
    await page.fill('#heads', '4');
    await page.waitForFunction(() => document.getElementById('compute-status').classList.contains('error'), null, { timeout: TIMEOUT_MS });
    assert.deepEqual(await disabled(), [true, true, true, true], 'the greyed matrix cannot be exported');
    await page.click('#export-json', { force: true });  // a click on the disabled button does nothing
    const status = await page.textContent('#compute-status');
    assert.match(status, /^4 heads cannot split d = 2/, 'the error stays');
    await page.fill('#heads', '2');
    await page.waitForFunction(() => document.getElementById('compute-status').textContent.startsWith('6 × 6, 2 heads'), null,
      { timeout: TIMEOUT_MS });
    assert.deepEqual(await disabled(), [false, false, false, false]);
    const file = await exportedJson(page);
    assert.equal(file.settings.heads, 2);
    assert.deepEqual(file.shape, [2, 6, 6], 'both heads on display exported');
    assert.deepEqual(file.heads.map((h) => h.weights.length), [36, 36]);
    await close();
  });

  for (const colorScheme of ['light', 'dark']) {
    test(`PNG in the ${colorScheme} scheme: the heatmap's figure, titled, with axis titles and legend, on opaque white, at twice the SVG's size`, async () => {
      const { page, close } = await openPage(suite, '#c=1&h=2', { colorScheme });
      await waitForRows(page, 6);
      const png = await downloadOf(page, '#export-png');
      assert.equal(png.name, 'attention-heatmap.png');
      assert.deepEqual([...png.bytes.subarray(0, PNG_SIGNATURE.length)], PNG_SIGNATURE);
      const svg = await downloadOf(page, '#export-svg');
      const files = await figureFiles(page, png, svg);
      assert.deepEqual([files.png.width, files.png.height], [files.svg.width * PNG_SCALE, files.svg.height * PNG_SCALE]);
      for (const corner of files.png.corners) assert.deepEqual(corner, WHITE);
      for (const text of ['Attention weights (6 tokens).', 'Head 1 of 2', 'Head 2 of 2', 'key →', '← query', 'masked']) {
        assert.ok(files.svg.texts.includes(text), `the figure says “${text}”: ${files.svg.texts.join(' | ')}`);
      }
      await close();
    });
  }

  test('CSV and JSON files hold the engine’s weights', async () => {
    const { page, close, tokens, expected } = await openTypedCausal();
    const n = tokens.length;

    const csv = await downloadOf(page, '#export-csv');
    assert.equal(csv.name, 'attention-weights.csv');
    const [header, ...rows] = parseCsv(csv.bytes.toString('utf8'));
    const shown = tokens.map((t) => (t.text.startsWith('=') ? `'${t.text}` : t.text));
    assert.deepEqual(header, ['head', 'query_index', 'query', ...shown]);
    assert.equal(rows.length, n);
    rows.forEach((row, i) => {
      assert.deepEqual(row.slice(0, 3), ['1', String(i), shown[i]]);
      const weights = row.slice(3).map(Number);
      assert.deepEqual(weights.map(Math.fround), Array.from(expected.weights[0].data.subarray(i * n, (i + 1) * n)));
    });

    const json = await downloadOf(page, '#export-json');
    assert.equal(json.name, 'attention-weights.json');
    const file = JSON.parse(json.bytes.toString('utf8'));
    assert.deepEqual(file.tokens, tokens.map((t) => t.text));
    assert.deepEqual(file.shape, [1, n, n]);
    assert.equal(file.settings.causal, true);
    assert.equal(file.heads[0].scores[0][1], '-Infinity', 'masked scores are written as "-Infinity"');
    assert.deepEqual(file.heads[0].weights.flat().map(Math.fround), Array.from(expected.weights[0].data));
    assert.deepEqual(file.heads[0].scores.flat().map(fromJson).map(Math.fround), Array.from(expected.scores[0].data));
    await close();
  });

  test('nn.Linear weights from torch.manual_seed(789) give the tutorial’s numbers', async () => {
    const { page, close } = await openPage(suite, '#src=journey&tw=linear&ts=789&do=2');
    await waitForRows(page, 6);
    const json = JSON.parse((await downloadOf(page, '#export-json')).bytes.toString('utf8'));
    const engine = await nodeEngine();
    const example = seedExample('your-journey-starts-with-one-step');
    assert.deepEqual(example.inputs.map((row) => row.map(Math.fround)),
      Object.values(PRESETS.journey.vectors).map((row) => row.map(Math.fround)), 'the preset is the tutorial’s input');
    // PyTorch keeps W as out×in and computes x·Wᵀ; selfAttention takes W in×out.
    const generator = engine.torchGenerator(789);
    const transposed = ({ rows, cols, data }) =>
      Array.from({ length: cols }, (_, c) => Array.from({ length: rows }, (_, r) => data[r * cols + c]));
    const [wq, wk, wv] = ['query', 'key', 'value'].map(() => transposed(generator.linear(3, 2, false).weight));
    const expected = engine.selfAttention(example.inputs, { wq, wk, wv });
    assertClose(Array.from(expected.context.data), example.trainable_v2.context.flat(), FIXTURE_TOLERANCE, 'context');
    assertClose(json.heads[0].weights.flat(), Array.from(expected.weights[0].data), TOLERANCE, 'page weights');
    await close();
  });

  test('SVG: the heatmap as a figure that parses, with token labels, axis titles, legend, and the heatmap’s colours and numbers', async () => {
    const { page, close, tokens, expected: engineResult } = await openTypedCausal();
    const n = tokens.length;
    const weights = engineResult.weights[0].data;
    const file = await downloadOf(page, '#export-svg');
    assert.equal(file.name, 'attention-heatmap.svg');
    const svg = await readSvg(page, file.bytes.toString('utf8'));
    assert.equal(svg.error, null);
    assert.equal(svg.root, 'svg');
    assert.equal(svg.title, `Attention weights (${n} tokens).`);
    for (const label of [svg.title, 'Head 1 of 1', 'key →', '← query', 'Attention weight', 'masked', '0.0', '1.0']) {
      assert.ok(svg.text.includes(label), `the SVG says “${label}”`);
    }
    for (const token of tokens) assert.ok(svg.text.includes(token.text), `the SVG labels “${token.text}”`);
    // one rect per unmasked cell (j ≤ i), row by row, coloured as the heatmap colours it
    const hi = Math.max(...weights);
    const expected = [];
    for (let i = 0; i < n; ++i) {
      for (let j = 0; j <= i; ++j) {
        expected.push({
          fill: viridisHex(weights[i * n + j], hi), cell: `query #${i} “${tokens[i].text}”, key #${j} “${tokens[j].text}”`, weight: weights[i * n + j],
        });
      }
    }
    assert.equal(svg.cells.length, 1);
    assert.deepEqual(svg.cells[0].map((c) => c.fill), expected.map((c) => c.fill));
    const [cells, values] = [0, 1].map((part) => svg.cells[0].map((c) => c.title.split(': ')[part]));
    assert.deepEqual(cells, expected.map((c) => c.cell));
    assert.deepEqual(values.map((v) => Math.fround(Number(v))), expected.map((c) => c.weight), 'each cell’s weight, float32 for float32');
    assert.deepEqual(svg.images, []);
    assert.deepEqual(svg.pending, [], 'every row drawn: none outlined as not fed');
    await close();
  });

  test('SVG: generation step by step with grouped heads: the rows fed so far, each head titled and framed by its key/value group', async () => {
    // 4 heads sharing 2 key/value heads, at step 2 of "Your journey starts with one step"
    const { page, close } = await openPage(suite, '#tw=linear&do=8&h=4&kv=2&gen=1&gs=2');
    await page.waitForFunction(() => document.querySelector('[data-testid="generation"]').dataset.step === '2', null, { timeout: TIMEOUT_MS });
    await waitForRows(page, 3);
    const groups = await page.evaluate(() => document.querySelector('[data-testid="attention-heatmap"]').dataset.kvGroups);
    assert.equal(groups, '0,0,1,1');
    const svg = await readSvg(page, (await downloadOf(page, '#export-svg')).bytes.toString('utf8'));
    assert.equal(svg.error, null);
    assert.equal(svg.title, 'Attention weights (6 tokens, generated up to query #2).');
    for (const title of ['Head 1 of 4 · kv 1 of 2', 'Head 2 of 4 · kv 1 of 2', 'Head 3 of 4 · kv 2 of 2', 'Head 4 of 4 · kv 2 of 2']) {
      assert.ok(svg.text.includes(title), `the SVG titles a panel “${title}”`);
    }
    // queries 0..2 under the causal mask: 1 + 2 + 3 cells a panel, and their labels alone
    assert.equal(svg.cells.length, 4);
    for (const cells of svg.cells) {
      assert.deepEqual(cells.map((c) => c.title.match(/^query #(\d+)/)[1]).map(Number), [0, 1, 1, 2, 2, 2]);
    }
    assert.deepEqual(svg.rowLabels, Array(4).fill(['Your', 'journey', 'starts']).flat());
    assert.equal(svg.hatches.length, 4);
    for (const { width, height } of svg.hatches) assert.ok(Math.abs(height - width / 2) < 1e-9, `the hatching of 3 rows of 6: ${height} of ${width}`);
    // rows 3–5, not fed yet: outlined with dashes under the hatching, and named
    assert.equal(svg.pending.length, 4);
    for (const [k, { width, height, dashes }] of svg.pending.entries()) {
      const side = svg.hatches[k].width;
      assert.ok(Math.abs(height - (side / 2 - 1)) < 1e-9 && Math.abs(width - (side - 1)) < 1e-9, `the outline of rows 3–5: ${width} × ${height}`);
      assert.equal(dashes, '4 3');
    }
    assert.deepEqual(svg.pendingNames, Array(4).fill('queries #3–#5: not fed yet'));
    // each head framed in its group's colour, as on the page
    assert.equal(svg.frames.length, 4);
    assert.equal(svg.frames[0], svg.frames[1]);
    assert.equal(svg.frames[2], svg.frames[3]);
    assert.notEqual(svg.frames[0], svg.frames[2]);
    await close();
  });

  test('SVG: generation step by step over a pooled matrix: each panel\'s image clipped to the rows fed so far', async () => {
    const text = await longSampleText(600);
    const { page, close } = await openPage(suite, `#t=${encodeURIComponent(text)}&gen=1&gs=300`);
    await waitForRows(page, 301);
    const svg = await readSvg(page, (await downloadOf(page, '#export-svg')).bytes.toString('utf8'));
    assert.equal(svg.error, null);
    assert.equal(svg.title, 'Attention weights (600 tokens, generated up to query #300). Each cell is the max of a block of 2×2 tokens.');
    assert.equal(svg.viewports.length, 1);
    const [{ width, height, imageHeight }] = svg.viewports;
    assert.ok(Math.abs(height - (width * 301) / 600) < 1e-9, `rows 0–300 of 600: ${height} of ${width}`);
    assert.ok(Math.abs(imageHeight - (width * 302) / 600) < 1e-9, `151 blocks of 2 rows, the last reaching past row 300: ${imageHeight}`);
    assert.deepEqual(svg.hatches.map((hatch) => hatch.height), [height], 'the hatching under the rows fed alone');
    assert.equal(svg.pending.length, 1);
    assert.ok(Math.abs(svg.pending[0].height - ((width * 299) / 600 - 1)) < 1e-9, `rows 301–599 outlined: ${svg.pending[0].height}`);
    assert.deepEqual(svg.pendingNames, ['queries #301–#599: not fed yet']);
    // at step 598 the one row left is 0.8 px tall: too thin to outline
    await page.fill('#generation-step', '598');
    await page.press('#generation-step', 'Enter');
    await page.waitForFunction(() => document.querySelector('[data-testid="generation"]').dataset.step === '598', null, { timeout: TIMEOUT_MS });
    const last = await readSvg(page, (await downloadOf(page, '#export-svg')).bytes.toString('utf8'));
    assert.equal(last.title, 'Attention weights (600 tokens, generated up to query #598). Each cell is the max of a block of 2×2 tokens.');
    assert.deepEqual([last.pending, last.pendingNames], [[], []]);
    await close();
  });

  test('SVG: a big matrix goes in pooled, as an image per panel, and its title says how', async () => {
    const text = 'a '.repeat(1024);
    const { page, close } = await openPage(suite, `#t=${encodeURIComponent(text)}&h=2`);
    await waitForRows(page, 1024);
    const file = await downloadOf(page, '#export-svg');
    assert.ok(file.bytes.length < 1_000_000, `${file.bytes.length} bytes`);
    const svg = await readSvg(page, file.bytes.toString('utf8'));
    assert.equal(svg.error, null);
    assert.equal(svg.title, 'Attention weights (1,024 tokens). Each cell is the max of a block of 4×4 tokens.');
    assert.deepEqual(svg.cells, []);
    assert.deepEqual(svg.images, ['data:image/png;base64,', 'data:image/png;base64,']);
    assert.ok(svg.text.includes('Head 2 of 2'));
    await close();
  });
});
