// The engine's warm-up (createAttention's warmUp option, wasm/warm-up.mjs): on by default, off
// when asked, each hot kernel run WARM_UP_ROUNDS times with inputs the engine accepts, and no
// number of a later call changed by it. How much it saves is measured, not asserted (README
// "The first call: a warm-up", and node bench/run.mjs first-call).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import createAttention from '../../dist/wasm/attention.mjs';
import { WARM_UP_ROUNDS, warmUp } from '../../dist/wasm/warm-up.mjs';
import { mulberry32, randomMatrix } from './reference.mjs';

// An engine whose selfAttention, attention and poolBlocks calls are recorded ({name, options},
// and the shapes of attention's q, k and v), then made; torchGenerator, which draws its inputs, passed through.
function recording(engine) {
  const calls = [];
  return {
    calls,
    engine: {
      torchGenerator: (seed) => engine.torchGenerator(seed),
      selfAttention: (x, options) => {
        calls.push({ name: 'selfAttention', options });
        return engine.selfAttention(x, options);
      },
      attention: (q, k, v, options) => {
        calls.push({ name: 'attention', options, shapes: [q, k, v].map(({ rows, cols }) => [rows, cols]) });
        return engine.attention(q, k, v, options);
      },
      poolBlocks: (region) => {
        calls.push({ name: 'poolBlocks', options: region });
        return engine.poolBlocks(region);
      },
    },
  };
}

describe('warm-up', () => {
  test('on by default: warmUpMs is how long it took; off with warmUp: false', async () => {
    const warmed = await createAttention();
    assert.ok(Number.isFinite(warmed.warmUpMs) && warmed.warmUpMs > 0, `warmUpMs ${warmed.warmUpMs}`);
    assert.equal((await createAttention({ warmUp: true })).warmUpMs > 0, true);
    assert.equal((await createAttention({ warmUp: false })).warmUpMs, null);
  });

  test('a warmUp that is not a boolean is an Error naming it', async () => {
    for (const [value, described] of [[1, '1'], ['yes', 'the string "yes"'], [null, 'null']]) {
      await assert.rejects(createAttention({ warmUp: value }), { message: `warmUp must be true or false, got ${described}` });
    }
  });

  test('runs each hot kernel WARM_UP_ROUNDS times, unmasked and causal, on inputs the engine accepts', async () => {
    const { calls, engine } = recording(await createAttention({ warmUp: false }));
    const milliseconds = warmUp(engine);
    assert.ok(milliseconds > 0);
    const of = (name) => calls.filter((call) => call.name === name);
    assert.equal(calls.length, 3 * WARM_UP_ROUNDS);
    for (const name of ['selfAttention', 'attention', 'poolBlocks']) assert.equal(of(name).length, WARM_UP_ROUNDS, name);
    for (const { options } of of('selfAttention')) {
      assert.equal(options.kernel, 'materialized');
      assert.ok(options.wq && options.wk && options.wv && options.heads > 1, 'projections and heads');
    }
    for (const { options, shapes } of of('attention')) {
      assert.equal(options.kernel, 'flash');
      // more keys than one of the flash kernel's key tiles (kernels.hpp kFlashTileCols, 512)
      assert.ok(shapes[1][0] > 512, `${shapes[1][0]} keys: more than one key tile`);
    }
    assert.deepEqual(new Set(of('attention').map(({ options }) => options.causal)), new Set([false, true]));
    assert.deepEqual(new Set(of('poolBlocks').map(({ options }) => options.mode)), new Set(['max', 'mean']));
  });

  test('the warm-up leaves no state: a warmed engine\'s later calls give the numbers of one created without it, bit for bit', async () => {
    const [warmed, cold] = await Promise.all([createAttention(), createAttention({ warmUp: false })]);
    const random = mulberry32(41);
    const x = randomMatrix(random, 70, 24);
    const [wq, wk, wv] = [0, 1, 2].map(() => randomMatrix(random, 24, 24));
    for (const options of [
      { heads: 3, wq, wk, wv, kernel: 'materialized' },
      { heads: 2, wq, wk, wv, causal: true, kernel: 'flash', positional: { type: 'rope' } },
      { heads: 4, wq, wk, wv, window: 9, sinks: 2, kernel: 'materialized', positional: { type: 'alibi' } },
    ]) {
      const [a, b] = [warmed, cold].map((engine) => engine.selfAttention(x, options));
      assert.deepEqual(a.context.data, b.context.data, JSON.stringify({ ...options, wq: 1, wk: 1, wv: 1 }));
      assert.deepEqual(a.scores?.map((m) => m.data), b.scores?.map((m) => m.data));
    }
  });
});
