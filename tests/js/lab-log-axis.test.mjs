// Chart 1's log axis (web/lab/views/log-axis.js): the domain it spans, tight to the curve rather
// than whole decades, and its note on the positions it leaves out, counting the zeros apart.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LOG_FLOOR, gapNote, logDomain } from '../../web/lab/views/log-axis.js';

test('logDomain: the curve\'s lowest and highest share, not whole decades (the defaults\' 0.82 to 5.54 is not 0.1 to 10)', () => {
  assert.deepEqual(logDomain(0.82, 5.54), [0.82, 5.54]);
  assert.deepEqual(logDomain(1e-6, 10), [1e-6, 10]);
});

test('logDomain: a curve spanning less than a factor of 4 is widened to 4 about its geometric middle (a flat curve at 1 spans 0.5 to 2)', () => {
  assert.deepEqual(logDomain(1, 1), [0.5, 2]);
  const [low, high] = logDomain(0.9, 1.2);
  assert.ok(Math.abs(high / low - 4) < 1e-12 && Math.abs(low * high - 0.9 * 1.2) < 1e-12, `${low}, ${high}`);
});

test('gapNote: nothing left out, no note; shares under the floor named as too small, exact zeros counted apart', () => {
  const floor = LOG_FLOOR;
  assert.equal(gapNote([1, 0.5, 2], floor), '');
  assert.equal(gapNote([1e-9, 1, 1, 1], floor), 'The line leaves out 1 of the 4 positions (25%): their shares are below a millionth of the highest, too small for the log axis.');
  assert.equal(gapNote([0, 0, 1, 1], floor), 'The line leaves out 2 of the 4 positions (50%): their shares are 0 (in single precision).');
  assert.equal(gapNote([0, 0, 1e-9, 1, 1, 1, 1, 1], floor), 'The line leaves out 3 of the 8 positions (37.5%): 2 have a share of 0 '
    + '(in single precision), 1 a share above 0 but below a millionth of the highest, too small for the log axis.');
});
