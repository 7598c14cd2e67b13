// How the pages write numbers (web/shared/format.js): bytes in binary units with three
// significant digits, token counts, numbers with their non-finite values as they are.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { scaleLog } from 'd3-scale';
import { formatBytes, formatNumber, formatTokens, logAxisFormat, logTickLabel, ticksWithEnds } from '../../web/shared/format.js';

const KiB = 2 ** 10, MiB = 2 ** 20, GiB = 2 ** 30, TiB = 2 ** 40;

test('formatBytes: three significant digits in the largest unit below the value', () => {
  const golden = [
    [0, '0 B'], [288, '288 B'], [1023, '1023 B'], [KiB, '1.00 KiB'], [65_843, '64.3 KiB'], [257 * KiB, '257 KiB'],
    [128 * MiB, '128 MiB'], [640 * MiB, '640 MiB'], [33 * MiB, '33.0 MiB'], [1.5 * GiB, '1.50 GiB'], [8 * GiB, '8.00 GiB'],
    [512 * GiB, '512 GiB'], [1023.99 * KiB, '1024 KiB'], [2048 * TiB, '2048 TiB'],
    [9.996 * KiB, '10.0 KiB'], [9.994 * KiB, '9.99 KiB'], [99.97 * KiB, '100 KiB'], [99.94 * KiB, '99.9 KiB'],
  ];
  for (const [bytes, text] of golden) assert.equal(formatBytes(bytes), text, `${bytes} bytes`);
});

test('formatTokens and formatNumber', () => {
  assert.deepEqual([1024, 32 * 1024, 1000, 4097].map(formatTokens), ['1K', '32K', '1,000', '4,097']);
  assert.deepEqual([0.5, 1e-4, 0, Infinity, -Infinity, NaN].map((v) => formatNumber(v)),
    ['0.5000', '1.00e-4', '0.0000', 'Infinity', '-Infinity', 'NaN']);
});

test('logAxisFormat: 1, 2 and 5 of each decade over at most two decades, 1 alone over more', () => {
  // as line-chart.js draws a log axis: d3's domain rounded out to whole decades, and its ticks
  const labels = (low, high) => {
    const y = scaleLog().domain([low, high]).nice(5);
    const format = logAxisFormat(y.domain(), (value) => `${Number(value.toPrecision(6))}`);
    return y.ticks(5).map(format).filter(Boolean);
  };
  assert.deepEqual(labels(0.15, 5.5), ['0.1', '0.2', '0.5', '1', '2', '5', '10']);
  assert.deepEqual(labels(0.004, 0.03), ['0.001', '0.002', '0.005', '0.01', '0.02', '0.05', '0.1']);
  assert.deepEqual(labels(1.2, 300), ['1', '10', '100', '1000']);
  assert.deepEqual(labels(1.5e-4, 8), ['0.0001', '0.001', '0.01', '0.1', '1', '10']);
});

test('logTickLabel: written out up to four characters, with an exponent beyond, so that 0.000001 reads 1e-6', () => {
  const golden = [
    [1e-6, '1e-6'], [2e-5, '2e-5'], [1e-4, '1e-4'], [0.001, '1e-3'], [0.005, '5e-3'], [0.01, '0.01'], [0.05, '0.05'],
    [0.1, '0.1'], [1, '1'], [10, '10'], [1000, '1000'], [10000, '1e+4'], [5e5, '5e+5'], [0.1 + 0.2, '0.3'], [1e-20, '1e-20'],
  ];
  for (const [value, text] of golden) assert.equal(logTickLabel(value), text, `${value}`);
  // as line-chart.js labels the Sinks + window preset's axis, 1e-6 to 10
  const y = scaleLog().domain([4.1e-6, 4.4]).nice(5);
  assert.deepEqual(y.ticks(5).map(logAxisFormat(y.domain(), logTickLabel)).filter(Boolean),
    ['1e-6', '1e-5', '1e-4', '1e-3', '0.01', '0.1', '1', '10']);
});

test('ticksWithEnds: a domain end three fifths of a step or more from the nearest tick is added', () => {
  assert.deepEqual(ticksWithEnds([0, 500, 1000], [0, 1400]), [0, 500, 1000, 1400]);
  assert.deepEqual(ticksWithEnds([0, 500, 1000, 1500], [0, 1600]), [0, 500, 1000, 1500]);
  assert.deepEqual(ticksWithEnds([5, 10, 15], [1, 16]), [1, 5, 10, 15]);
  assert.deepEqual(ticksWithEnds([2, 4, 6, 8, 10, 12, 14, 16], [1, 16]), [2, 4, 6, 8, 10, 12, 14, 16]);
  assert.deepEqual(ticksWithEnds([0, 500, 1000], [0, 1250]), [0, 500, 1000], 'half a step: the labels would crowd');
  assert.deepEqual(ticksWithEnds([0, 500, 1000], [0, 1300]), [0, 500, 1000, 1300]);
  assert.deepEqual(ticksWithEnds([0, 0.2, 0.4, 0.6, 0.8, 1], [0, 1]), [0, 0.2, 0.4, 0.6, 0.8, 1]);
  assert.deepEqual(ticksWithEnds([3], [1, 5]), [1, 3, 5]);
});
