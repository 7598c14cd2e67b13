// createAttentionPool in Chromium, on Web Workers: the one-thread engine's numbers bit for bit,
// and a worker that throws outside a call (an error event) fails its calls with an Error and
// is replaced.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { openPage, startSuite } from './helpers.mjs';

// A pool worker that throws, outside any call, when a call's q starts with THROW_NOW; it holds
// the messages that come before the real worker (imported after it, so that it listens first)
// has loaded, and hands them on.
const MORTAL_WORKER = `
const THROW_NOW = 4343;
const waiting = [];
let loaded = false;
self.addEventListener('message', (event) => {
  if (event.data?.args?.[0]?.data?.[0] === THROW_NOW) {
    event.stopImmediatePropagation();
    throw new Error('deliberate failure');
  }
  if (!loaded) {
    event.stopImmediatePropagation();
    waiting.push(event.data);
  }
});
await import('./pool-worker.mjs');
loaded = true;
for (const data of waiting) self.dispatchEvent(new MessageEvent('message', { data }));
`;

let suite;
before(async () => { suite = await startSuite(); });
after(async () => { await suite?.close(); });

describe('the pool in Chromium', () => {
  test('2 Web Workers, and 1 with the page\'s thread, give the one-thread engine\'s numbers, split by heads and by query rows', async () => {
    // 4 cores, so that 1 worker leaves the page's thread a core: it still waits, being a page's main thread
    const { page, close } = await openPage(suite, '', {
      prepare: (context) => context.addInitScript(() => {
        Object.defineProperty(Navigator.prototype, 'hardwareConcurrency', { get: () => 4 });
      }),
    });
    const outcomes = await page.evaluate(async () => {
      const { default: createAttention, createAttentionPool } = await import('./wasm/attention.mjs');
      const engine = await createAttention();
      const pool = await createAttentionPool({ workers: 2, splitFrom: 0 });  // every call split, however small
      const generator = engine.torchGenerator(7);
      const x = generator.rand(300, 32);
      const [wq, wk, wv] = [0, 1, 2].map(() => generator.rand(32, 32));
      const bytes = (result) => [...(result.scores ?? []), ...(result.weights ?? []), result.context, result.q, result.k, result.v, result.output]
        .filter(Boolean).map((matrix) => new Uint8Array(matrix.data.buffer, matrix.data.byteOffset, matrix.data.byteLength));
      const same = (a, b) => a.length === b.length && a.every((array, i) => array.length === b[i].length && array.every((value, k) => value === b[i][k]));
      const calls = [
        { heads: 4, causal: true, positional: { type: 'rope' }, wq, wk, wv },
        { heads: 1, causal: true, window: 50, sinks: 2, kernel: 'flash' },
        { heads: 2, positional: { type: 'alibi' }, wq, wk, wv, wo: generator.rand(32, 5) },
      ];
      const results = [];
      for (const options of calls) results.push(same(bytes(await pool.selfAttention(x, options)), bytes(engine.selfAttention(x, options))));
      // on a page's main thread the caller waits by default, even with cores left for it; asked, it computes a part
      const spare = await createAttentionPool({ workers: 1, splitFrom: 0, engine });
      const withCaller = await createAttentionPool({ workers: 1, splitFrom: 0, engine, callerPart: true });
      for (const options of calls) results.push(same(bytes(await withCaller.selfAttention(x, options)), bytes(engine.selfAttention(x, options))));
      const outcome = { results, workers: pool.workers, callerPart: [pool.callerPart, spare.callerPart, withCaller.callerPart] };
      await Promise.all([pool.close(), spare.close(), withCaller.close()]);
      return outcome;
    });
    assert.equal(outcomes.workers, 2);
    assert.deepEqual(outcomes.callerPart, [false, false, true]);
    assert.deepEqual(outcomes.results, [true, true, true, true, true, true]);
    await close();
  });

  test('a worker that throws outside a call: its calls reject with an Error naming it, and a new worker answers', async () => {
    const { page, close } = await openPage(suite, '', {
      prepare: (context) => context.route('**/wasm/mortal-pool-worker.mjs',
        (route) => route.fulfill({ status: 200, contentType: 'text/javascript', body: MORTAL_WORKER })),
    });
    const outcome = await page.evaluate(async () => {
      const { default: createAttention, createAttentionPool } = await import('./wasm/attention.mjs');
      const engine = await createAttention();
      // engine: null: the calls below, small as they are, go to the workers
      const pool = await createAttentionPool({ workers: 2, engine: null, workerURL: new URL('./wasm/mortal-pool-worker.mjs', document.baseURI) });
      const q = engine.torchGenerator(3).rand(50, 8);
      const deadly = { ...q, data: q.data.slice() };
      deadly.data[0] = 4343;
      const [failed] = await Promise.allSettled([pool.attention(deadly, q, q, { heads: 2 })]);
      const after = await pool.attention(q, q, q, { heads: 2, causal: true });
      const expected = engine.attention(q, q, q, { heads: 2, causal: true });
      const answered = after.context.data.every((value, i) => Object.is(value, expected.context.data[i]));
      await pool.close();
      return { status: failed.status, isError: failed.reason instanceof Error, message: failed.reason?.message, answered };
    });
    assert.equal(outcome.status, 'rejected');
    assert.ok(outcome.isError);
    assert.match(outcome.message, /^attention pool worker [01] threw: .*deliberate failure/);
    assert.ok(outcome.answered, 'the replaced workers give the engine\'s numbers');
    await close({ expectErrors: true });
  });
});
