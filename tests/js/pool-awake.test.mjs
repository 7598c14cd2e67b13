// keepAwake (wasm/pool-awake.mjs), which keeps a pool worker's event loop turning for a few
// milliseconds after an answer: the loop is busy for the time asked, answers other work meanwhile,
// and sleeps again afterwards; by setImmediate (Node's way) and by a MessageChannel (browsers').
// Measured by Node's event loop utilisation (the share of the time the loop was not waiting for
// events), which a loaded machine does not lower.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { keepAwake } from '../../dist/wasm/pool-awake.mjs';

// The event loop's utilisation while `run` runs, from 0 (asleep throughout) to 1.
async function utilisation(run) {
  const start = performance.eventLoopUtilization();
  await run();
  return performance.eventLoopUtilization(start).utilization;
}

// Waits until the event loop sleeps through 100 ms (the process's start-up, JIT and GC done:
// on a loaded machine they take longer); fails if it never does.
async function untilAsleep() {
  for (let tries = 0; tries < 20; ++tries) if (await utilisation(() => sleep(100)) < 0.2) return;
  assert.fail('the event loop never slept through 100 ms before the wake');
}

// keepAwake() as in Node, or as in a browser (no setImmediate).
function keepAwakeAs(way) {
  if (way === 'setImmediate') return keepAwake();
  const { setImmediate } = globalThis;
  globalThis.setImmediate = undefined;
  try {
    return keepAwake();
  } finally {
    globalThis.setImmediate = setImmediate;
  }
}

for (const way of ['setImmediate', 'MessageChannel']) {
  describe(`by ${way}`, () => {
    test('awake(ms) keeps the event loop turning for ms, timers still fire meanwhile, and then lets it sleep', async () => {
      const { awake } = keepAwakeAs(way);
      await untilAsleep();
      let awakeUntil = 0, lastFired = Infinity;
      const turning = await utilisation(async () => {
        awakeUntil = performance.now() + 200;
        awake(200);
        // timers (as the pool's messages) fire while it turns: ten of 10 ms, one after the
        // other, all before the 200 ms end (a loop that held them back would run them after)
        for (let k = 0; k < 10; ++k) await sleep(10);
        lastFired = performance.now();
      });
      assert.ok(lastFired < awakeUntil, `the tenth timer fired ${(lastFired - awakeUntil).toFixed(1)} ms after the wake's end`);
      assert.ok(turning > 0.8, `utilisation ${turning} while awake`);
      await sleep(150);  // the rest of the 200 ms
      assert.ok(await utilisation(() => sleep(100)) < 0.2, 'asleep after');
    });

    test('one loop at a time, also when the time ran out while a turn was queued', async () => {
      // Each turn queued and not yet run, counted by wrapping what the loop queues with.
      let queued = 0;
      let most = 0;
      const count = (run) => () => {
        queued -= 1;
        run();
      };
      const saved = { setImmediate: globalThis.setImmediate, MessageChannel: globalThis.MessageChannel };
      globalThis.setImmediate = (run) => {
        most = Math.max(most, ++queued);
        return saved.setImmediate(count(run));
      };
      globalThis.MessageChannel = class extends saved.MessageChannel {
        constructor() {
          super();
          const post = this.port1.postMessage.bind(this.port1);
          this.port1.postMessage = (message) => {
            most = Math.max(most, ++queued);
            post(message);
          };
          this.port2.addEventListener('message', () => { queued -= 1; });
        }
      };
      try {
        const { awake } = keepAwakeAs(way);
        for (let k = 0; k < 5; ++k) {
          awake(2);
          const start = performance.now();
          while (performance.now() - start < 5);  // the time runs out before the queued turn runs
        }
        awake(30);
        await sleep(60);
      } finally {
        Object.assign(globalThis, saved);
      }
      assert.equal(most, 1, 'turns queued at once');
    });

    test('awake again while turning extends the time', async () => {
      const { awake } = keepAwakeAs(way);
      awake(60);
      await sleep(30);
      awake(100);  // now until 130 ms
      const turning = await utilisation(() => sleep(80));
      assert.ok(turning > 0.8, `utilisation ${turning} after the extension`);
      await sleep(60);
      assert.ok(await utilisation(() => sleep(100)) < 0.2, 'asleep after');
    });

    test('a shorter time asked while turning ends the longer one (an answer within pool.wake\'s time), and stop() ends it at once', async () => {
      const { awake, stop } = keepAwakeAs(way);
      for (const end of [() => awake(5), stop]) {
        awake(300);
        await sleep(20);
        assert.ok(await utilisation(() => sleep(50)) > 0.8, 'awake');
        end();
        await sleep(20);
        assert.ok(await utilisation(() => sleep(100)) < 0.2, 'asleep after, long before the 300 ms');
      }
    });
  });
}
