// What a screen reader hears of text that changes often (web/shared/page/announcer.js): a
// settled text once nothing else has come for 800 ms, written once; a milestone at once.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createAnnouncer } from '../../web/shared/page/announcer.js';

// A live region as the announcer sees it, recording what it was given to speak.
function recordingRegion() {
  const spoken = [];
  let text = '';
  return {
    spoken,
    get textContent() { return text; },
    set textContent(value) {
      text = value;
      spoken.push(value);
    },
  };
}

describe('the announcer', () => {
  test('texts that come less than 800 ms apart are spoken once, the last, 800 ms after it came', (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const region = recordingRegion();
    const announcer = createAnnouncer(region);
    for (const text of ['12 tokens', '13 tokens', '14 tokens']) {
      announcer.settled(text);
      t.mock.timers.tick(500);
    }
    assert.deepEqual(region.spoken, []);
    t.mock.timers.tick(299);
    assert.deepEqual(region.spoken, []);
    t.mock.timers.tick(1);
    assert.deepEqual(region.spoken, ['14 tokens']);
  });

  test('a text spoken already is not spoken again, and a return to it drops the text that was waiting', (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const region = recordingRegion();
    const announcer = createAnnouncer(region);
    announcer.settled('a U');
    t.mock.timers.tick(800);
    announcer.settled('a U');  // a redraw
    t.mock.timers.tick(800);
    announcer.settled('recency');
    t.mock.timers.tick(400);
    announcer.settled('a U');  // back before it was spoken
    t.mock.timers.tick(2000);
    assert.deepEqual(region.spoken, ['a U']);
  });

  test('now() speaks at once and drops a settled text still waiting', (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const region = recordingRegion();
    const announcer = createAnnouncer(region);
    announcer.settled('Computed 8 heads');
    announcer.now('Trained 300 steps.');
    assert.deepEqual(region.spoken, ['Trained 300 steps.']);
    t.mock.timers.tick(2000);
    assert.deepEqual(region.spoken, ['Trained 300 steps.']);
  });
});
