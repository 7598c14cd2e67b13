// The needle grid's colour scale (web/lab/views/grid.js): a log scale where the masses span
// one, a linear one where they do not (no two different values above 0) and for a rate, and
// the note under the grid naming the scale it is.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { colorScale, scaleNoteText } from '../../web/lab/views/grid.js';

test('masses that span decades: a log scale from the lowest above 0 to the highest, and the note says log', () => {
  const { color, log } = colorScale([0, 0.01, 1, 40], false);
  assert.equal(log, true);
  assert.deepEqual(color.domain(), [0.01, 40]);
  assert.equal(color(2), color.interpolator()(Math.log(2 / 0.01) / Math.log(40 / 0.01)), 'colours follow the logarithm');
  assert.equal(scaleNoteText({ low: '0.01×', high: '40×', log }),
    'Colour, on a log scale: dark purple = 0.01× (the grid\'s lowest above 0), yellow = 40× (its highest).');
});

test('masses with no two different values above 0: a linear scale from 0, and the note says linear', () => {
  for (const [values, domain] of [[[0.5, 0.5, 0.5], [0, 0.5]], [[0, 0, 3], [0, 3]], [[0, 0], [0, 1]]]) {
    const { color, log } = colorScale(values, false);
    assert.equal(log, false, `${values}`);
    assert.deepEqual(color.domain(), domain, `${values}`);
    assert.equal(color(domain[1] / 2), color.interpolator()(0.5), `${values}: colours follow the value`);
  }
  const { log } = colorScale([2, 2], false);
  assert.equal(scaleNoteText({ low: '0×', high: '2×', log }), 'Colour, on a linear scale: dark purple = 0×, yellow = 2×.');
});

test('a rate: linear from 0 to 100%, and the note says linear', () => {
  const { color, log } = colorScale([0.001, 0.5, 1], true);
  assert.equal(log, false);
  assert.deepEqual(color.domain(), [0, 1]);
  assert.equal(scaleNoteText({ low: '0%', high: '100%', log }), 'Colour, on a linear scale: dark purple = 0%, yellow = 100%.');
});
