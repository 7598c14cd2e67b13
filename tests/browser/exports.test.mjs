// Exports: the PNG is the heatmap canvas, the CSV and JSON hold the engine's numbers for the
// page's tokens and settings (escaping included), and trainable weights follow PyTorch.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { PRESETS } from '../../web/playground/presets.js';
import {
  assertClose, downloadOf, gloveInput, nodeEngine, openPage, seedExample, startSuite, waitForRows,
} from './helpers.mjs';

const SENTENCE = '[data-testid="sentence-input"]';
const TEXT = 'She said "hi", then =left.';
const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
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

// The JSON export's numbers, with its strings for non-finite values.
const fromJson = (value) => (typeof value === 'string' ? Number(value) : value);

describe('exports', () => {
  test('PNG, CSV and JSON files hold the heatmap and the engine’s weights', async () => {
    const { page, close } = await openPage(suite, '#c=1');
    await page.fill(SENTENCE, TEXT);
    const { tokens, x } = await gloveInput(TEXT);
    const n = tokens.length;
    await waitForRows(page, n);
    const expected = (await nodeEngine()).selfAttention(x, { causal: true });

    const png = await downloadOf(page, '#export-png');
    assert.equal(png.name, 'attention-heatmap.png');
    assert.deepEqual([...png.bytes.subarray(0, PNG_SIGNATURE.length)], PNG_SIGNATURE);
    const size = await page.evaluate(() => {
      const canvas = document.querySelector('[data-testid="attention-heatmap"]');
      return [canvas.width, canvas.height];
    });
    assert.deepEqual([png.bytes.readUInt32BE(16), png.bytes.readUInt32BE(20)], size);

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
});
