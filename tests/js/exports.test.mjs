// The page's export formatters (web/playground/weights-export.js) on generated matrices: every number reads
// back to the same float32 and no shorter decimal would.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { csvChunks, jsonChunks } from '../../web/playground/weights-export.js';
import { mulberry32 } from './reference.mjs';

// n×n float32 values of every kind: weights, zeros, powers of two, raw bit patterns.
function generatedMatrix(n, seed) {
  const random = mulberry32(seed);
  const values = new Float32Array(n * n);
  const bits = new Uint32Array(values.buffer);
  for (let i = 0; i < values.length; ++i) {
    const kind = i % 4;
    if (kind === 0) values[i] = random();
    else if (kind === 1) values[i] = 0;
    else if (kind === 2) values[i] = 2 ** Math.floor(random() * 250 - 125);
    else bits[i] = Math.floor(random() * 0x7f000000);  // finite, positive
  }
  return values;
}

function assertShortestRoundTrip(text, value) {
  assert.equal(Math.fround(Number(text)), value, `${text} reads back to ${value}`);
  // significant digits: no sign, exponent, point, nor leading or trailing zeros
  const digits = text.replace(/^-|e.*$/g, '').replace('.', '').replace(/^0+|0+$/g, '').length;
  if (digits > 6) {
    const shorter = Number(value.toPrecision(digits - 1));
    assert.notEqual(Math.fround(shorter), value, `${text}: ${shorter} is shorter and reads back too`);
  }
}

test('CSV: every weight reads back to its float32, written in the fewest digits', () => {
  const n = 60;
  const weights = generatedMatrix(n, 7);
  const tokens = Array.from({ length: n }, (_, i) => `t${i}`);
  const lines = csvChunks({ tokens, heads: [{ head: 1, weights }] }).join('').trimEnd().split('\r\n');
  assert.equal(lines.length, n + 1);
  lines.slice(1).forEach((line, i) => {
    const cells = line.split(',').slice(3);
    assert.equal(cells.length, n);
    cells.forEach((text, j) => assertShortestRoundTrip(text, weights[i * n + j]));
  });
});

test('JSON: scores and weights read back exactly, non-finite scores as strings', () => {
  const n = 40;
  const scores = generatedMatrix(n, 8);
  scores[3] = -Infinity;
  scores[5] = NaN;
  const weights = generatedMatrix(n, 9);
  const parsed = JSON.parse(jsonChunks({ tokens: Array(n).fill('x'), heads: [{ head: 1, scores, weights }], settings: {} }).join(''));
  const [{ scores: scoreRows, weights: weightRows }] = parsed.heads;
  assert.equal(scoreRows[0][3], '-Infinity');
  assert.equal(scoreRows[0][5], 'NaN');
  assert.deepEqual([scoreRows.length, weightRows.length], [n, n]);
  const scoreValues = scoreRows.flat();
  assert.equal(scoreValues.length, n * n);
  // every score: a finite one as a number that reads back to the float, the others as strings
  scoreValues.forEach((value, index) => {
    if (typeof value === 'string') assert.ok(!Number.isFinite(scores[index]) && Object.is(Number(value), scores[index]), `score ${index}: ${value}`);
    else assert.equal(Math.fround(value), scores[index], `score ${index}`);
  });
  const weightValues = weightRows.flat();
  assert.equal(weightValues.length, n * n);
  weightValues.forEach((value, index) => assert.equal(Math.fround(value), weights[index], `weight ${index}`));
});
