// createAttentionPool: the engine on several worker_threads. Every result is the one-thread
// engine's, bit for bit, for every option, split by heads and by query rows; errors are the
// engine's Errors; a worker that dies fails its calls with an Error and is replaced; a closed
// pool says so.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { after, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import createAttention, { createAttentionPool } from '../../dist/wasm/attention.mjs';
import { attentionArguments } from '../../dist/wasm/attention-arguments.mjs';
import { resolveCallerPart } from '../../dist/wasm/pool.mjs';
import { sliceHeads, splitCall, visibleKeys } from '../../dist/wasm/pool-split.mjs';
import { createSlot, workerStarter } from '../../dist/wasm/pool-threads.mjs';
import { bytesOf, errorOf, mulberry32, pick, randomInt, randomMatrix } from './reference.mjs';

const engine = await createAttention();
// splitFrom 0: every call is split over every worker, however small (the tests' calls are);
// callerPart, whether the caller's thread computes a part too, is given (its default depends on
// the thread and the machine's cores): 2 and 3 workers alone, and 2 workers with the caller's thread.
const two = await createAttentionPool({ workers: 2, splitFrom: 0, callerPart: false });
const three = await createAttentionPool({ workers: 3, splitFrom: 0, callerPart: false });
const twoAndCaller = await createAttentionPool({ workers: 2, splitFrom: 0, callerPart: true });
after(() => Promise.all([two.close(), three.close(), twoAndCaller.close()]));
// A pool's threads, for the tests' labels.
const threadsOf = (pool) => `${pool.workers} workers${pool.callerPart ? ' and the caller' : ''}`;

// A first q value at which fixtures/mortal-pool-worker.mjs exits, or throws (its EXIT_NOW, THROW_NOW).
const EXIT_NOW = 4242;
const THROW_NOW = 4343;
const flat = (rows) => ({ rows: rows.length, cols: rows[0].length, data: Float32Array.from(rows.flat()) });

// The matrices of a result by name (scores.0, weights.1, context, q …), null for flash's.
function matricesOf(result) {
  const entries = [];
  for (const name of ['scores', 'weights']) {
    if (result[name] === null) entries.push([name, null]);
    else result[name].forEach((matrix, h) => entries.push([`${name}.${h}`, matrix]));
  }
  for (const name of ['context', 'q', 'k', 'v', 'output']) {
    if (name in result) entries.push([name, result[name]]);
  }
  return entries;
}

// The same numbers, bit for bit, in the same shapes, with the same kernel.
function assertSameResult(actual, expected, label) {
  assert.equal(actual.kernel, expected.kernel, `${label}: kernel`);
  const got = matricesOf(actual), want = matricesOf(expected);
  assert.deepEqual(got.map(([name]) => name), want.map(([name]) => name), `${label}: the result's matrices`);
  got.forEach(([name, matrix], i) => {
    const wanted = want[i][1];
    if (wanted === null) return assert.equal(matrix, null, `${label}: ${name}`);
    assert.deepEqual([matrix.rows, matrix.cols], [wanted.rows, wanted.cols], `${label}: ${name}'s shape`);
    assert.ok(bytesOf(matrix.data).equals(bytesOf(wanted.data)), `${label}: ${name} differs from the engine's`);
    return undefined;
  });
}

// Every mask, positional encoding, scale, normalisation and kernel, one option set at a time
// (the sum normalisation, which divides by a row sum near zero, without positions).
function optionGrid(heads, random) {
  const positionals = [
    { type: 'none' }, { type: 'alibi' }, { type: 'alibi', slopes: Array.from({ length: heads }, (_, h) => 0.05 * (h + 1)) },
    { type: 'rope' }, { type: 'rope', pairing: 'half', base: 500 },
  ];
  const masks = [{}, { window: 7 }, { window: 7, sinks: 3 }, { window: 70, sinks: 5 }, { prefix: 4 }, { window: 5, prefix: 6 }];
  const grid = [];
  for (const normalization of ['softmax', 'naive-softmax', 'sum']) {
    for (const causal of [false, true]) {
      for (const mask of masks) {
        for (const positional of positionals) {
          if (normalization === 'sum' && positional.type !== 'none') continue;
          grid.push({
            heads, normalization, causal, ...mask, positional,
            scale: pick(random, [true, false, 0.6]), kernel: pick(random, ['materialized', 'flash']),
          });
        }
      }
    }
  }
  return grid;
}

describe('the same numbers as the one-thread engine', () => {
  // every option on 2 workers; every other one on 2 workers and the caller
  for (const [pool, seed, every] of [[two, 20261124, 1], [twoAndCaller, 20261201, 2]]) {
    test(`attention on ${threadsOf(pool)}, every option: split by heads (3 heads), by query rows (1 head)`, async () => {
      const random = mulberry32(seed);
      for (const heads of [1, 3]) {
        for (const options of optionGrid(heads, random).filter((_, i) => i % every === 0)) {
          // across the kernels' 64-row blocks and 512-key tiles, with m < n too; even head widths for RoPE
          const n = randomInt(random, 1, 200), m = randomInt(random, 1, 1100);
          const dh = 2 * randomInt(random, 1, 4), dvh = randomInt(random, 1, 5);
          const q = randomMatrix(random, n, heads * dh), k = randomMatrix(random, m, heads * dh);
          const v = randomMatrix(random, m, heads * dvh);
          assertSameResult(await pool.attention(q, k, v, options), engine.attention(q, k, v, options),
            `${JSON.stringify(options)} n=${n} m=${m}`);
        }
      }
    });
  }

  test('attention on 3 workers, and on 2 workers and the caller, with 2 heads: every head in each block of query rows', async () => {
    const random = mulberry32(20261125);
    for (const options of optionGrid(2, random).filter((_, i) => i % 3 === 0)) {
      const n = randomInt(random, 130, 400), m = randomInt(random, 1, 400);
      const q = randomMatrix(random, n, 8), k = randomMatrix(random, m, 8), v = randomMatrix(random, m, 6);
      for (const pool of [three, twoAndCaller]) {
        assertSameResult(await pool.attention(q, k, v, options), engine.attention(q, k, v, options),
          `${JSON.stringify(options)} n=${n} m=${m}, ${threadsOf(pool)}`);
      }
    }
  });

  test('selfAttention: no projections, wq/wk/wv, and wo with bo (rows), every positional encoding', async () => {
    const random = mulberry32(20261126);
    const dIn = 10;
    for (const weights of ['none', 'projections', 'output']) {
      for (const positional of [{ type: 'none' }, { type: 'sinusoidal' }, { type: 'rope', pairing: 'half' }, { type: 'alibi' }]) {
        for (const [pool, heads] of [[two, 1], [two, 4], [three, 2], [twoAndCaller, 3], [twoAndCaller, 1]]) {
          const n = randomInt(random, 1, 300);
          const width = weights === 'none' ? 4 * heads : dIn;
          const x = randomMatrix(random, n, width);
          const options = { heads, causal: random() < 0.5, positional, kernel: pick(random, ['auto', 'flash']) };
          if (weights !== 'none') {
            Object.assign(options, { wq: randomMatrix(random, dIn, 4 * heads), wk: randomMatrix(random, dIn, 4 * heads), wv: randomMatrix(random, dIn, 2 * heads) });
          }
          if (weights === 'output') Object.assign(options, { wo: randomMatrix(random, 2 * heads, 3), bo: [0.5, -1, 0.25] });
          assertSameResult(await pool.selfAttention(x, options), engine.selfAttention(x, options),
            `${weights}, ${positional.type}, ${threadsOf(pool)}, ${heads} heads, n=${n}`);
        }
      }
    }
  });

  test('selfAttention hands each worker copies of x and the projections, handed over: the caller\'s arrays stay whole and unchanged, call after call', async () => {
    // the buffers handed over with each call a worker is sent (Node's Worker, spied on)
    const handed = [];
    const post = Worker.prototype.postMessage;
    Worker.prototype.postMessage = function (message, transfer) {
      if (message?.call === 'selfAttention') handed.push({ args: message.args, transfer: [...(transfer ?? [])] });
      return post.call(this, message, transfer);
    };
    try {
      const random = mulberry32(20261129);
      const dIn = 10;
      // by heads, by heads with the caller's part, by rows with it, by rows with wo, and one row: one worker
      const cases = [[two, 4, 200, false, 2], [twoAndCaller, 3, 200, false, 2], [twoAndCaller, 1, 200, false, 2], [two, 2, 150, true, 2], [two, 1, 1, false, 1]];
      for (const [pool, heads, n, output, workers] of cases) {
        const x = flat(randomMatrix(random, n, dIn));
        const options = {
          heads, wq: flat(randomMatrix(random, dIn, 4 * heads)), wk: flat(randomMatrix(random, dIn, 4 * heads)), wv: flat(randomMatrix(random, dIn, 2 * heads)),
        };
        if (output) Object.assign(options, { wo: flat(randomMatrix(random, 2 * heads, 3)), bo: Float32Array.of(0.5, -1, 0.25) });
        const given = [x, options.wq, options.wk, options.wv, options.wo].filter(Boolean);
        const copies = given.map((matrix) => Float32Array.from(matrix.data));
        const label = `${threadsOf(pool)}, ${heads} heads, n=${n}${output ? ', wo' : ''}`;
        for (let call = 0; call < 2; ++call) {
          handed.length = 0;
          assertSameResult(await pool.selfAttention(x, options), engine.selfAttention(x, options), `${label}, call ${call}`);
          given.forEach((matrix, i) => assert.ok(bytesOf(matrix.data).equals(bytesOf(copies[i])), `${label}: input ${i} whole after call ${call}`));
          assert.equal(handed.length, workers, `${label}: the parts sent to workers`);
          for (const { args: [sentX, sent], transfer } of handed) {
            const inputs = [sentX, sent.wq, sent.wk, sent.wv, sent.wo].filter(Boolean);
            assert.equal(inputs.length, given.length, label);
            // each input a copy of the caller's, handed over (and so emptied here)
            inputs.forEach((matrix, i) => {
              assert.ok(transfer.includes(matrix.data.buffer), `${label}: input ${i} handed over`);
              assert.notEqual(matrix.data, given[i].data, `${label}: input ${i} a copy`);
            });
          }
        }
      }
    } finally {
      Worker.prototype.postMessage = post;
    }
  });

  test('calls at the same time each get their own result', async () => {
    const random = mulberry32(20261127);
    const calls = Array.from({ length: 8 }, (_, i) => {
      const n = randomInt(random, 20, 150);
      return [randomMatrix(random, n, 8), randomMatrix(random, n, 8), randomMatrix(random, n, 4), { heads: 1 + (i % 2) * 3, causal: i % 3 === 0 }];
    });
    const results = await Promise.all(calls.map((args, i) => [two, twoAndCaller][i % 2].attention(...args)));
    results.forEach((result, i) => assertSameResult(result, engine.attention(...calls[i]), `call ${i}`));
  });

  test('a part given by the caller is computed whole on one worker, as the engine computes it', async () => {
    const random = mulberry32(20261128);
    const q = randomMatrix(random, 70, 8), k = randomMatrix(random, 90, 8), v = randomMatrix(random, 90, 4);
    const options = { heads: 2, causal: true, part: { rows: [13, 61], heads: [1, 2] } };
    const onCaller = [];
    const counting = { ...engine, attention: (...args) => onCaller.push(args) && engine.attention(...args) };
    // a message per call a worker computes
    const channel = new BroadcastChannel('pool-worker-reuse');
    const heard = [];
    channel.onmessage = ({ data }) => heard.push(data);
    const pool = await createAttentionPool({
      workers: 2, splitFrom: 0, callerPart: false, engine: counting,
      workerURL: new URL('./fixtures/reuse-recording-pool-worker.mjs', import.meta.url),
    });
    try {
      assertSameResult(await pool.attention(q, k, v, options), engine.attention(q, k, v, options), 'part');
      for (let wait = 0; heard.length < 1 && wait < 200; ++wait) await sleep(5);
      await sleep(50);  // a second worker's message, had there been one
      assert.equal(heard.length, 1, 'one worker computed it');
      assert.equal(onCaller.length, 0, 'the caller\'s engine computed nothing');
    } finally {
      channel.close();
      await pool.close();
    }
  });

  test('reuse: a previous result\'s arrays are handed to the workers and come back with the new numbers', async () => {
    const random = mulberry32(20261129);
    const q = randomMatrix(random, 40, 8), k = randomMatrix(random, 40, 8), v = randomMatrix(random, 40, 8);
    const options = { heads: 2, kernel: 'materialized' };
    const previous = await two.attention(randomMatrix(random, 40, 8), k, v, options);
    const arrays = [...previous.scores, ...previous.weights, previous.context].map((matrix) => matrix.data);
    const reused = await two.attention(q, k, v, { ...options, reuse: previous });
    const fresh = engine.attention(q, k, v, options);
    assertSameResult(reused, fresh, 'reused');
    assert.equal(reused.context.data, arrays.at(-1), 'the joined context is written into the previous one');
    assert.ok(arrays.slice(0, -1).every((array) => array.length === 0), 'the heads\' arrays went to the workers');
    assert.ok(reused.scores.every((matrix) => matrix.data.length === 40 * 40));
  });

  test('reuse with the caller\'s part: its heads\' arrays stay on the caller\'s thread and hold the new numbers', async () => {
    const random = mulberry32(20261202);
    const q = randomMatrix(random, 40, 12), k = randomMatrix(random, 40, 12), v = randomMatrix(random, 40, 6);
    const options = { heads: 3, kernel: 'materialized' };  // heads [0, 1) and [1, 2) on the workers, [2, 3) on the caller
    const previous = await twoAndCaller.attention(randomMatrix(random, 40, 12), k, v, options);
    const [scores, weights] = [previous.scores.map((matrix) => matrix.data), previous.weights.map((matrix) => matrix.data)];
    const context = previous.context.data;
    const reused = await twoAndCaller.attention(q, k, v, { ...options, reuse: previous });
    assertSameResult(reused, engine.attention(q, k, v, options), 'reused');
    assert.equal(reused.context.data, context, 'the joined context, the caller\'s head written first, is the previous one');
    assert.deepEqual([...scores, ...weights].map((array) => array.length), [0, 0, 1600, 0, 0, 1600],
      'the workers\' heads went to them; the caller\'s stayed');
    assert.equal(reused.scores[2].data, scores[2], 'the caller\'s head\'s scores are written into the previous ones');
    assert.equal(reused.weights[2].data, weights[2]);
  });

  test('selfAttention with the caller\'s part and reuse: q, k, v, output and context written into the previous ones (the caller\'s first), the engine\'s numbers; heads 8 and 40 columns wide, 3 key/value heads and 1', async () => {
    const random = mulberry32(20261127);
    const n = 48, dIn = 16;
    for (const [dh, kvHeads] of [[8, 3], [40, 3], [8, 1], [40, 1]]) {
      // heads [0, 1) and [1, 2) on the workers, [2, 3) on the caller; with 1 key/value head every part writes it
      const options = {
        heads: 3, ...(kvHeads !== 3 && { kvHeads }), kernel: 'materialized',
        wq: randomMatrix(random, dIn, 3 * dh), wk: randomMatrix(random, dIn, kvHeads * dh), wv: randomMatrix(random, dIn, kvHeads * dh),
      };
      const previous = await twoAndCaller.selfAttention(randomMatrix(random, n, dIn), options);
      const names = ['q', 'k', 'v', 'output', 'context'];
      const arrays = names.map((name) => previous[name].data);
      const x = randomMatrix(random, n, dIn);
      const reused = await twoAndCaller.selfAttention(x, { ...options, reuse: previous });
      const label = `heads ${dh} wide, kvHeads ${kvHeads}`;
      assertSameResult(reused, engine.selfAttention(x, options), label);
      names.forEach((name, i) => assert.equal(reused[name].data, arrays[i], `${label}: ${name} is written into the previous one`));
    }
  });

  test('reuse sharing a buffer with the inputs is left alone: a call whose parts fail runs again from its inputs as they were', async () => {
    // x is the previous result's q (an identity projection made it x0). Heads 0 and 1 project
    // x's columns 8 and 9 beyond float32 at rows 2 and 5 (the workers' parts fail with different
    // messages, so the whole call runs again on one worker); head 2, the caller's, projects
    // columns 0–3 and succeeds. Had its q been written into the previous q, it would have
    // overwritten x's columns 8–11, and the call run again would not have failed.
    const n = 8, d = 12;
    const x0 = Array.from({ length: n }, (_, i) => Array.from({ length: d }, (_, c) => ((c === 8 && i === 2) || (c === 9 && i === 5) ? 1e30 : (i + c) / 10)).map(Math.fround));
    const matrixOf = (entry) => Array.from({ length: d }, (_, r) => Array.from({ length: d }, (_, c) => entry(r, c)));
    const identity = matrixOf((r, c) => (r === c ? 1 : 0));
    const previous = await twoAndCaller.selfAttention(x0, { heads: 3, wq: identity, wk: matrixOf(() => 0), wv: identity, kernel: 'materialized' });
    const x = previous.q;
    assert.deepEqual(Array.from(x.data), x0.flat(), 'x is x0');
    // q's column 0 (head 0) is 1e10 × x's column 8, column 4 (head 1) 1e10 × column 9, columns 8–11 (head 2) x's 0–3
    const wq = matrixOf((r, c) => ((c === 0 && r === 8) || (c === 4 && r === 9) ? 1e10 : c >= 8 && r === c - 8 ? 1 : 0));
    const options = { heads: 3, wq, wk: identity, wv: identity, kernel: 'materialized' };
    const expected = errorOf(() => engine.selfAttention(x0, options));
    assert.ok(expected instanceof Error, 'the engine throws');
    await assert.rejects(twoAndCaller.selfAttention(x, { ...options, reuse: previous }), (error) => error.message === expected.message);
    assert.deepEqual(Array.from(x.data), x0.flat(), 'x is as it was');
    // attention: q is the previous result's context; the caller's head's context is not written into it
    const random = mulberry32(20261128);
    const [k, v] = [randomMatrix(random, 40, 12), randomMatrix(random, 40, 12)];
    const before = await twoAndCaller.attention(randomMatrix(random, 40, 12), k, v, { heads: 3 });
    const q = before.context, qValues = Array.from(q.data);
    const after = await twoAndCaller.attention(q, k, v, { heads: 3, reuse: before });
    assertSameResult(after, engine.attention({ rows: 40, cols: 12, data: Float32Array.from(qValues) }, k, v, { heads: 3 }), 'q as the previous context');
    assert.notEqual(after.context.data, q.data);
    assert.deepEqual(Array.from(q.data), qValues, 'q is as it was');
  });

  test('a split by rows with the caller\'s part: the caller writes its rows into the previous result in place, the workers into their last parts\' arrays; the engine\'s numbers call after call, shapes changing', async () => {
    // the caller's engine, recording the reuse of each call it computes
    const given = [];
    const recorded = {
      ...engine,
      attention: (q, k, v, options) => {
        given.push(options.reuse);
        return engine.attention(q, k, v, options);
      },
    };
    // the lengths of the scores arrays each worker is given to write into, a message per part
    const channel = new BroadcastChannel('pool-worker-reuse');
    const heard = [];
    channel.onmessage = ({ data }) => heard.push(data);
    const offered = async () => {
      for (let wait = 0; heard.length < 2 && wait < 200; ++wait) await new Promise((resolve) => setTimeout(resolve, 5));
      return heard.splice(0).map(({ scores }) => JSON.stringify(scores)).sort();
    };
    const pool = await createAttentionPool({
      workers: 2, splitFrom: 0, callerPart: true, engine: recorded,
      workerURL: new URL('./fixtures/reuse-recording-pool-worker.mjs', import.meta.url),
    });
    try {
      const random = mulberry32(20261126);
      const k = randomMatrix(random, 150, 8), v = randomMatrix(random, 150, 8);
      const options = { kernel: 'materialized' };  // one head: rows [0, 50), [50, 100) on the workers, [100, 150) on the caller
      const previous = await pool.attention(randomMatrix(random, 150, 8), k, v, options);
      assert.deepEqual(await offered(), ['[]', '[]'], 'a first call: nothing to write into');
      const [scores, weights] = [previous.scores[0].data, previous.weights[0].data];
      const q = randomMatrix(random, 150, 8);
      const reused = await pool.attention(q, k, v, { ...options, reuse: previous });
      assertSameResult(reused, engine.attention(q, k, v, options), 'reused');
      assert.deepEqual(await offered(), ['[7500]', '[7500]'], 'each worker its last part\'s 50 × 150 scores');
      assert.equal(reused.scores[0].data, scores, 'the joined scores are the previous ones');
      assert.equal(reused.weights[0].data, weights);
      const view = given.at(-1).scores[0].data;
      assert.deepEqual([view.buffer === scores.buffer, view.byteOffset, view.length], [true, 100 * 150 * 4, 50 * 150],
        'the caller wrote its rows into a view of the previous scores');
      assert.equal(given.at(-1).weights[0].data.buffer, weights.buffer);
      // arrays of another shape's parts are offered, and the engine ignores them
      const shorter = [randomMatrix(random, 150, 8), randomMatrix(random, 130, 8), randomMatrix(random, 130, 8)];
      assertSameResult(await pool.attention(...shorter, options), engine.attention(...shorter, options), 'another shape');
      assert.deepEqual(await offered(), ['[7500]', '[7500]']);
      assertSameResult(await pool.attention(q, k, v, options), engine.attention(q, k, v, options), 'back to the first shape');
      assert.deepEqual(await offered(), ['[6500]', '[6500]'], 'the 50 × 130 parts of the call before');
      const causal = { ...options, causal: true };  // its parts of other sizes, then into their arrays
      assertSameResult(await pool.attention(q, k, v, causal), engine.attention(q, k, v, causal), 'causal');
      // (each message is awaited, not dropped: a BroadcastChannel's messages may arrive after the call's answer)
      assert.deepEqual(await offered(), ['[7500]', '[7500]'], 'the causal call was offered the 50 × 150 parts');
      assertSameResult(await pool.attention(q, k, v, causal), engine.attention(q, k, v, causal), 'causal, into recycled arrays');
      const { parts } = splitCall({ n: 150, m: 150, heads: 1, options: causal, workers: 2, splitFrom: 0, callerPart: true });
      assert.deepEqual(await offered(), parts.slice(0, 2).map(({ rows: [r0, r1] }) => `[${(r1 - r0) * 150}]`).sort(),
        'each worker its last causal part\'s scores');
      // a call split by heads takes none, and leaves none
      const threeHeads = [0, 1, 2].map(() => randomMatrix(random, 150, 12));
      const threeHeadOptions = { ...options, heads: 3 };  // a head on each thread
      assertSameResult(await pool.attention(...threeHeads, threeHeadOptions), engine.attention(...threeHeads, threeHeadOptions), 'by heads');
      assert.deepEqual(await offered(), ['[]', '[]'], 'the split by heads: no worker offered the last rows\' arrays');
      assertSameResult(await pool.attention(q, k, v, options), engine.attention(q, k, v, options), 'after a split by heads');
      assert.deepEqual(await offered(), ['[]', '[]'], 'nothing kept across a split by heads');
    } finally {
      channel.close();
      await pool.close();
    }
  });

  test('a split call with the caller\'s part: each part writes its context into its part\'s of the call before, the workers\' inputs are cut or copied into the arrays they handed back; the engine\'s numbers call after call, by heads and by rows, shapes changing, earlier results untouched', async () => {
    // the caller's engine, recording the reuse it is given and the results it returns
    const given = [], returned = [];
    const recorded = {
      ...engine,
      attention: (q, k, v, options) => {
        given.push(options.reuse);
        returned.push(engine.attention(q, k, v, options));
        return returned.at(-1);
      },
    };
    const channel = new BroadcastChannel('pool-worker-reuse');
    const heard = [];
    channel.onmessage = ({ data }) => heard.push(data);
    // what the workers were offered for the last `parts` parts sent to them, sorted: the
    // length of the context to write into, whether the pool asked for q, k and v back, and which
    // of them came in arrays the worker had handed back
    const offered = async (parts = 2) => {
      for (let wait = 0; heard.length < parts && wait < 200; ++wait) await new Promise((resolve) => setTimeout(resolve, 5));
      return heard.splice(0).map(({ context, returnInputs, handedBack }) => `context ${context}${returnInputs ? ', inputs back' : ''}` +
        `${handedBack.some(Boolean) ? `, into ${['q', 'k', 'v'].filter((_, i) => handedBack[i]).join(' ')}` : ''}`).sort();
    };
    const pool = await createAttentionPool({
      workers: 2, splitFrom: 0, callerPart: true, engine: recorded,
      workerURL: new URL('./fixtures/reuse-recording-pool-worker.mjs', import.meta.url),
    });
    try {
      const random = mulberry32(20261127);
      const inputs = (n) => [randomMatrix(random, n, 12), randomMatrix(random, n, 12), randomMatrix(random, n, 6)];
      const options = { heads: 3, kernel: 'flash' };  // a head on each worker, the last on the caller
      const calls = [];  // [inputs, the pool's result, the engine's]
      const call = async (args, label) => {
        const result = await pool.attention(...args, options);
        const expected = engine.attention(...args, options);
        assertSameResult(result, expected, label);
        calls.push([args, result, expected]);
        return result;
      };
      await call(inputs(40), 'first');
      assert.deepEqual(await offered(), ['context null, inputs back', 'context null, inputs back'], 'a first call: nothing to write into');
      assert.equal(given.at(-1).context, null);
      await call(inputs(40), 'second');
      assert.deepEqual(await offered(), ['context 80, inputs back, into q k v', 'context 80, inputs back, into q k v'],
        'each worker its last 40 × 2 context, its heads cut into the arrays it handed back');
      assert.equal(given.at(-1).context.data, returned.at(-2).context.data, 'the caller writes into its last part\'s context');
      assert.equal(returned.at(-1).context.data, returned.at(-2).context.data);
      await call(inputs(30), 'another shape');  // offered 40 × 2, which the engine ignores, and new arrays cut
      assert.deepEqual(await offered(), ['context 80, inputs back', 'context 80, inputs back']);
      await call(inputs(30), 'the same shape again');
      assert.deepEqual(await offered(), ['context 60, inputs back, into q k v', 'context 60, inputs back, into q k v']);
      // a split by rows: each worker a copy of every input, handed back, and its rows' context
      const oneHead = () => [randomMatrix(random, 150, 8), randomMatrix(random, 150, 8), randomMatrix(random, 150, 8)];
      const rowsCall = async (args, label) => {
        const result = await pool.attention(...args);
        const expected = engine.attention(...args);
        assertSameResult(result, expected, label);
        calls.push([args, result, expected]);
      };
      await rowsCall(oneHead(), 'split by rows');
      assert.deepEqual(await offered(), ['context 60, inputs back', 'context 60, inputs back'], 'the heads\' contexts, ignored');
      await rowsCall(oneHead(), 'split by rows again');
      assert.deepEqual(await offered(), ['context 400, inputs back, into q k v', 'context 400, inputs back, into q k v'],
        'rows [0, 50) and [50, 100) of 8, every input copied into the arrays handed back');
      assert.equal(given.at(-1).context.data, returned.at(-2).context.data, 'the caller\'s rows too');
      await call(inputs(30), 'heads after rows');
      assert.deepEqual(await offered(), ['context 400, inputs back', 'context 400, inputs back']);
      await call(inputs(30), 'heads again');
      assert.deepEqual(await offered(), ['context 60, inputs back, into q k v', 'context 60, inputs back, into q k v']);
      // two calls at once: the first takes the arrays, the second none
      const together = [inputs(30), inputs(30)];
      await Promise.all(together.map((args, i) => call(args, `at once, ${i}`)));
      assert.deepEqual(await offered(4), ['context 60, inputs back, into q k v', 'context 60, inputs back, into q k v',
        'context null, inputs back', 'context null, inputs back']);
      // a part's arrays beyond SPARES_MAX_BYTES (32 MiB) are not kept: each worker's copy of a q of 32 MiB
      const longQ = { rows: 2 ** 17, cols: 64, data: new Float32Array(2 ** 23).map((_, i) => Math.sin(i)) };
      for (const label of ['a long q', 'a long q again']) {
        const kLong = randomMatrix(random, 16, 64), vLong = randomMatrix(random, 16, 64);
        assertSameResult(await pool.attention(longQ, kLong, vLong), engine.attention(longQ, kLong, vLong), label);
        assert.deepEqual((await offered()).map((words) => words.includes('into')), [false, false], `${label}: nothing kept`);
      }
      calls.forEach(([, result, expected], i) => assertSameResult(result, expected, `call ${i + 1}, after the later calls`));
    } finally {
      channel.close();
      await pool.close();
    }
  });
});

describe('grouped-query attention (kvHeads) on the pool: the one-thread engine\'s numbers', () => {
  // (heads, kvHeads): on 3 workers 4 heads split [0, 1), [1, 2), [2, 4), so that with 2 or 1
  // key/value heads neighbouring parts read the same one.
  const PAIRS = [[4, 2], [4, 1], [6, 3], [6, 2], [3, 1], [8, 2]];

  test('attention on 2 and 3 workers, every option, split by heads', async () => {
    const random = mulberry32(20261127);
    for (const [heads, kvHeads] of PAIRS) {
      for (const options of optionGrid(heads, random).filter((_, i) => i % 2 === 0)) {
        const n = randomInt(random, 1, 200), m = randomInt(random, 1, 260);
        const dh = 2 * randomInt(random, 1, 4), dvh = randomInt(random, 1, 5);
        const q = randomMatrix(random, n, heads * dh), k = randomMatrix(random, m, kvHeads * dh);
        const v = randomMatrix(random, m, kvHeads * dvh);
        const grouped = { ...options, kvHeads };
        const expected = engine.attention(q, k, v, grouped);
        assert.equal(expected.context.cols, heads * dvh);
        for (const pool of [two, three, twoAndCaller]) {
          assertSameResult(await pool.attention(q, k, v, grouped), expected,
            `${JSON.stringify(grouped)} n=${n} m=${m}, ${threadsOf(pool)}`);
        }
      }
    }
  });

  test('selfAttention with wq, wk, wv of kvHeads heads: q, k, v, context and output, by heads and by rows (wo)', async () => {
    const random = mulberry32(20261128);
    const dIn = 10, dh = 4, dvh = 3;
    for (const [heads, kvHeads] of PAIRS) {
      for (const output of [false, true]) {
        for (const positional of [{ type: 'none' }, { type: 'rope' }, { type: 'alibi' }]) {
          const n = randomInt(random, 1, 200);
          const x = randomMatrix(random, n, dIn);
          const options = {
            heads, kvHeads, causal: random() < 0.5, positional, kernel: pick(random, ['auto', 'flash']),
            wq: randomMatrix(random, dIn, heads * dh), wk: randomMatrix(random, dIn, kvHeads * dh),
            wv: randomMatrix(random, dIn, kvHeads * dvh),
          };
          if (output) Object.assign(options, { wo: randomMatrix(random, heads * dvh, 3), bo: [0.5, -1, 0.25] });
          const expected = engine.selfAttention(x, options);
          assert.deepEqual([expected.k.cols, expected.v.cols], [kvHeads * dh, kvHeads * dvh]);
          for (const pool of [two, three, twoAndCaller]) {
            assertSameResult(await pool.selfAttention(x, options), expected,
              `heads ${heads}, kvHeads ${kvHeads}, ${output ? 'wo' : 'no wo'}, ${positional.type}, n=${n}, ${threadsOf(pool)}`);
          }
        }
      }
    }
  });

  test('splitting by heads names the key/value heads each part reads', () => {
    assert.deepEqual(splitCall({ n: 64, m: 64, heads: 4, kvHeads: 2, options: {}, workers: 3, splitFrom: 0 }),
      { by: 'heads', parts: [{ heads: [0, 1] }, { heads: [1, 2] }, { heads: [2, 4] }], kvRanges: [[0, 1], [0, 1], [1, 2]] });
    assert.deepEqual(splitCall({ n: 64, m: 64, heads: 8, kvHeads: 1, options: {}, workers: 2, splitFrom: 0 }).kvRanges, [[0, 1], [0, 1]]);
    assert.deepEqual(splitCall({ n: 64, m: 64, heads: 6, kvHeads: 3, options: {}, workers: 2, splitFrom: 0 }).kvRanges, [[0, 2], [1, 3]]);
  });
});

describe('splitting', () => {
  test('the work of each query row is the keys it sees: the engine\'s unmasked scores, over generated masks', () => {
    const random = mulberry32(29);
    for (let trial = 0; trial < 300; ++trial) {
      const n = randomInt(random, 1, 24), m = n + randomInt(random, 0, 12);
      const options = {
        causal: random() < 0.6, window: pick(random, [0, 0, 1, 2, 3, 7, 40]), sinks: pick(random, [0, 0, 1, 2, 5]),
        prefix: pick(random, [0, 0, 1, 3, n + m]),
      };
      const { scores: [scores] } = engine.attention(randomMatrix(random, n, 4), randomMatrix(random, m, 4), randomMatrix(random, m, 4),
        { ...options, kernel: 'materialized' });
      const unmasked = Array.from({ length: n }, (_, row) => scores.data.subarray(row * m, (row + 1) * m)
        .filter((score) => score !== -Infinity).length);
      assert.deepEqual(Array.from(visibleKeys(options, n, m)), unmasked, `n ${n}, m ${m}, ${JSON.stringify(options)}`);
    }
  });

  test('heads in runs of equal size, query rows in blocks of 64 with the causal work balanced', () => {
    assert.deepEqual(splitCall({ n: 512, m: 512, heads: 8, options: {}, workers: 2, splitFrom: 0 }),
      { by: 'heads', parts: [{ heads: [0, 4] }, { heads: [4, 8] }], kvRanges: [[0, 4], [4, 8]] });
    assert.deepEqual(splitCall({ n: 10, m: 10, heads: 5, options: {}, workers: 3, splitFrom: 0 }).parts.map((p) => p.heads),
      [[0, 1], [1, 3], [3, 5]]);
    const bidirectional = splitCall({ n: 4096, m: 4096, heads: 1, options: { kernel: 'flash' }, workers: 2, splitFrom: 0 });
    assert.deepEqual(bidirectional, { by: 'rows', parts: [{ rows: [0, 2048] }, { rows: [2048, 4096] }] });
    // Under a causal mask row i sees i + 1 keys: half the pairs lie below row n/√2 ≈ 2896.
    const causal = splitCall({ n: 4096, m: 4096, heads: 1, options: { kernel: 'flash', causal: true }, workers: 2, splitFrom: 0 });
    const cut = causal.parts[0].rows[1];
    assert.equal(cut % 64, 0);
    assert.ok(Math.abs(cut - 4096 / Math.SQRT2) <= 64, `cut at ${cut}`);
    // A sliding window makes every row cost the same again.
    const windowed = splitCall({ n: 4096, m: 4096, heads: 1, options: { kernel: 'flash', causal: true, window: 256 }, workers: 2, splitFrom: 0 });
    assert.ok(Math.abs(windowed.parts[0].rows[1] - 2048) <= 128);
  });

  test('by default a part gets at least 2^23 multiply-adds: calls of less than two parts\' worth run on the caller\'s thread, larger ones on as many workers as they afford', () => {
    const call = (n, heads, workers, options = {}) => splitCall({ n, m: n, heads, keyWidth: 64, valueWidth: 64, options, workers });
    assert.deepEqual(call(12, 1, 7), { by: 'caller' }, 'a sentence');
    assert.deepEqual(call(256, 1, 2), { by: 'caller' }, 'n = 256: 256² pairs × 128 = 2^23, one part\'s worth');
    assert.deepEqual(call(256, 1, 1, { part: { rows: [0, 1] } }), { by: 'caller' }, 'a caller\'s part of a small call');
    assert.deepEqual(call(363, 1, 1), { by: 'whole' }, 'two parts\' worth on one worker');
    assert.deepEqual(call(363, 1, 2, { part: { rows: [0, 1] } }), { by: 'whole' }, 'a caller\'s part of a larger call');
    assert.deepEqual(call(512, 1, 7).parts.map((p) => p.rows), [[0, 128], [128, 256], [256, 384], [384, 512]], 'n = 512: four parts\' worth');
    assert.equal(call(512, 8, 7).parts.length, 7, '8 heads × 512: 32 parts\' worth, every worker');
    assert.deepEqual(call(512, 8, 2).parts.map((p) => p.heads), [[0, 4], [4, 8]]);
    // a causal mask halves the pairs: 363² × 128 are two parts' worth, 363·364/2 × 128 one
    assert.deepEqual(call(363, 1, 2, { causal: true }), { by: 'caller' });
    assert.equal(call(363, 1, 2).by, 'rows');
    assert.deepEqual(call(362, 1, 2), { by: 'caller' }, '362² × 128 pairs: under two parts\' worth');
    // the page's 512 tokens × 8 heads of 8: 4 parts' worth, two workers
    assert.equal(splitCall({ n: 512, m: 512, heads: 8, keyWidth: 8, valueWidth: 8, options: {}, workers: 2 }).by, 'heads');
    assert.equal(splitCall({ n: 512, m: 512, heads: 8, keyWidth: 8, valueWidth: 8, options: {}, workers: 2, splitFrom: 2 ** 24 }).by,
      'heads', 'a larger splitFrom: 512² × 16 × 8 = 2^25, two parts\' worth');
    assert.deepEqual(splitCall({ n: 512, m: 512, heads: 8, keyWidth: 8, valueWidth: 8, options: {}, workers: 2, splitFrom: 2 ** 25 }),
      { by: 'caller' }, 'one part\'s worth');
    assert.deepEqual(splitCall({ n: 512, m: 512, heads: 3, keyWidth: NaN, valueWidth: 64, options: {}, workers: 2 }), { by: 'caller' },
      'shapes that do not fit (heads not dividing dk): on the caller\'s engine, for its error');
  });

  test('a pool with the default splitFrom gives the engine\'s numbers whole and split', async () => {
    const pool = await createAttentionPool({ workers: 2 });
    try {
      const random = mulberry32(20261203);
      for (const [n, heads] of [[12, 1], [256, 1], [600, 1], [300, 4]]) {
        const q = randomMatrix(random, n, heads * 64), k = randomMatrix(random, n, heads * 64), v = randomMatrix(random, n, heads * 64);
        const options = { heads, causal: true, kernel: 'flash' };
        assertSameResult(await pool.attention(q, k, v, options), engine.attention(q, k, v, options), `n = ${n}, ${heads} heads`);
      }
    } finally {
      await pool.close();
    }
  });

  test('calls of less than two parts\' worth run on the caller\'s engine (the one given), larger ones on the workers; engine: null sends every call to a worker', async () => {
    const ran = [];
    const counting = {
      attention: (...args) => { ran.push('attention'); return engine.attention(...args); },
      selfAttention: (...args) => { ran.push('selfAttention'); return engine.selfAttention(...args); },
      simd: engine.simd,
    };
    const [given, workersOnly] = [await createAttentionPool({ workers: 2, engine: counting, callerPart: false }),
      await createAttentionPool({ workers: 2, engine: null })];
    try {
      const random = mulberry32(20261125);
      const small = [12, 12, 12].map(() => randomMatrix(random, 12, 64));
      const large = [600, 600, 600].map(() => randomMatrix(random, 600, 64));
      const options = { causal: true, kernel: 'flash' };
      for (const pool of [given, workersOnly]) {
        assertSameResult(await pool.attention(...small, options), engine.attention(...small, options), 'a sentence');
        assertSameResult(await pool.selfAttention(small[0], { heads: 2 }), engine.selfAttention(small[0], { heads: 2 }), 'a sentence');
        assertSameResult(await pool.attention(...large, options), engine.attention(...large, options), 'n = 600');
      }
      assert.deepEqual(ran, ['attention', 'selfAttention'], 'only the pool given the engine ran the sentence on it, and not n = 600');
      // a pool given an engine, or none, holds only its workers' memory; one that loaded its own, that one's too
      assert.equal(given.memoryBytes, workersOnly.memoryBytes);
      assert.ok(two.memoryBytes >= given.memoryBytes + 16 * 2 ** 20, `${two.memoryBytes} and ${given.memoryBytes} bytes`);
    } finally {
      await Promise.all([given.close(), workersOnly.close()]);
    }
  });

  test('with callerPart the caller\'s thread takes one more part, the last: one worker and the caller split a call', () => {
    const call = (n, heads, workers, callerPart, options = {}) =>
      splitCall({ n, m: n, heads, keyWidth: 64, valueWidth: 64, options, workers, callerPart });
    assert.deepEqual(call(512, 8, 1, true).parts.map((p) => p.heads), [[0, 4], [4, 8]], '8 heads × 512 on a worker and the caller');
    assert.deepEqual(call(512, 8, 1, false), { by: 'whole' }, 'on one worker alone');
    assert.equal(call(512, 8, 2, true).parts.length, 3);
    assert.deepEqual(call(4096, 1, 1, true, { causal: true, kernel: 'flash' }).parts.map((p) => p.rows[1]), [2880, 4096],
      'causal rows balanced over a worker and the caller: 2,880 ≈ 4,096/√2');
    // the parts' worth still bounds their count: 363² × 128 multiply-adds are two parts' worth, 512² × 128 four
    assert.equal(call(363, 1, 7, true).parts.length, 2);
    assert.equal(call(512, 1, 7, true).parts.length, 4);
    assert.deepEqual(call(362, 1, 7, true), { by: 'caller' }, 'under two parts\' worth: the caller alone');
    // what cannot be split runs on the caller's thread, with no message
    assert.deepEqual(call(512, 8, 1, true, { part: { rows: [0, 1] } }), { by: 'caller' }, 'a caller\'s part');
    assert.deepEqual(splitCall({ n: 1, m: 2 ** 20, heads: 1, keyWidth: 64, valueWidth: 64, options: {}, workers: 2, callerPart: true }),
      { by: 'caller' }, 'one query over a million keys (16 parts\' worth) on 2 workers and the caller');
    assert.deepEqual(splitCall({ n: 1, m: 2 ** 20, heads: 1, keyWidth: 64, valueWidth: 64, options: {}, workers: 2 }), { by: 'whole' });
  });

  test('the caller\'s part runs on the caller\'s engine, the others on the workers', async () => {
    const parts = [];
    const counting = {
      attention: (...args) => { parts.push(['attention', args[3].part]); return engine.attention(...args); },
      selfAttention: (...args) => { parts.push(['selfAttention', args[1].part]); return engine.selfAttention(...args); },
      simd: engine.simd,
    };
    const pool = await createAttentionPool({ workers: 1, engine: counting, callerPart: true });
    try {
      const random = mulberry32(20261203);
      const [q, k, v] = [0, 1, 2].map(() => randomMatrix(random, 600, 64));
      const x = randomMatrix(random, 600, 128);
      assertSameResult(await pool.attention(q, k, v, { causal: true, kernel: 'flash' }), engine.attention(q, k, v, { causal: true, kernel: 'flash' }), 'rows');
      assertSameResult(await pool.attention(x, x, x, { heads: 2 }), engine.attention(x, x, x, { heads: 2 }), 'heads');
      assertSameResult(await pool.selfAttention(x, { heads: 2, causal: true }), engine.selfAttention(x, { heads: 2, causal: true }), 'heads');
      // causal rows: equal work cuts at 600/√2 ≈ 424, on a block of 64 rows
      assert.deepEqual(parts, [['attention', { rows: [448, 600] }], ['attention', { heads: [1, 2] }], ['selfAttention', { heads: [1, 2] }]],
        'the last part of each call, the whole matrices with the part option');
    } finally {
      await pool.close();
    }
  });

  test('by default the caller computes a part on a worker\'s thread with a core left for it, not on a main thread', async () => {
    const resolve = (given) => resolveCallerPart({ callerPart: undefined, engine, workers: 3, cores: 4, workerThread: true, ...given });
    assert.equal(resolve({}), true, 'a worker\'s thread, 3 workers on 4 cores');
    assert.equal(resolve({ workers: 4 }), false, 'as many workers as cores: none left for the caller');
    assert.equal(resolve({ workerThread: false }), false, 'a main thread: a page\'s, or a Node program\'s event loop');
    assert.equal(resolve({ engine: null }), false, 'no engine to compute on');
    assert.equal(resolve({ callerPart: true, workerThread: false, workers: 9 }), true, 'asked');
    assert.equal(resolve({ callerPart: false }), false, 'asked');
    // this thread is Node's main thread; a worker thread's pool with the default workers (cores − 1) computes a part
    const mainThreadPool = await createAttentionPool({ workers: 1, engine });
    assert.equal(mainThreadPool.callerPart, false);
    await mainThreadPool.close();
    const script = `import(${JSON.stringify(new URL('../../dist/wasm/attention.mjs', import.meta.url).href)}).then(async ({ createAttentionPool }) => {
      const pool = await createAttentionPool();
      require('node:worker_threads').parentPort.postMessage(pool.callerPart);
      await pool.close();
    });`;
    const inWorker = await new Promise((settle, reject) => {
      const worker = new Worker(script, { eval: true });
      worker.once('message', settle);
      worker.once('error', reject);
    });
    assert.equal(inWorker, availableParallelism() > 1, `in a worker thread, ${availableParallelism()} cores`);
  });

  test('with wo, or fewer heads than workers, every part holds every head; one worker or a caller\'s part: no split', () => {
    assert.equal(splitCall({ n: 300, m: 300, heads: 4, options: {}, workers: 2, mixesHeads: true, splitFrom: 0 }).by, 'rows');
    assert.equal(splitCall({ n: 300, m: 300, heads: 2, options: {}, workers: 3, splitFrom: 0 }).by, 'rows');
    assert.equal(splitCall({ n: 300, m: 300, heads: 8, options: {}, workers: 1, splitFrom: 0 }).by, 'whole');
    assert.equal(splitCall({ n: 300, m: 300, heads: 8, options: { part: { rows: [0, 1] } }, workers: 2, splitFrom: 0 }).by, 'whole');
    assert.deepEqual(splitCall({ n: 1, m: 5, heads: 1, options: {}, workers: 2, splitFrom: 0 }), { by: 'whole' });
    assert.deepEqual(splitCall({ n: 3, m: 5, heads: 1, options: {}, workers: 3, splitFrom: 0 }).parts.map((p) => p.rows), [[0, 1], [1, 2], [2, 3]]);
  });
});

describe('a split by heads sends each worker only its heads\' columns', () => {
  const random = mulberry32(20261201);
  const [n, m, dh, dvh] = [37, 45, 4, 3];
  const callOf = (heads, kvHeads, options = {}) => attentionArguments(randomMatrix(random, n, heads * dh),
    randomMatrix(random, m, kvHeads * dh), randomMatrix(random, m, kvHeads * dvh), { heads, ...(kvHeads !== heads && { kvHeads }), ...options });
  const slicesOf = (call, workers) => {
    const split = splitCall({ n, m, heads: call.options.heads, kvHeads: call.options.kvHeads, options: call.options, workers, splitFrom: 0 });
    const slicePart = sliceHeads(call, split);
    return slicePart && split.parts.map((_, p) => slicePart(p));
  };

  test('each part: its heads\' columns of q, its key/value heads\' of k and v, the kernel the whole call runs, its slopes', () => {
    const call = callOf(6, 3, { positional: { type: 'alibi', slopes: [1, 2, 3, 4, 5, 6] } });
    const parts = slicesOf(call, 3);
    assert.deepEqual(parts.map(({ q, k, v }) => [q.cols, k.cols, v.cols]), [[2 * dh, dh, dvh], [2 * dh, dh, dvh], [2 * dh, dh, dvh]]);
    assert.deepEqual(Array.from(parts[1].q.data.subarray(0, 2 * dh)), Array.from(call.q.data.subarray(2 * dh, 4 * dh)));
    assert.deepEqual(Array.from(parts[2].v.data.subarray(dvh, 2 * dvh)), Array.from(call.v.data.subarray(3 * dvh + 2 * dvh, 3 * dvh + 3 * dvh)));
    assert.deepEqual(parts.map(({ options }) => [options.heads, options.kvHeads, options.kernel, Array.from(options.positional.slopes)]),
      [[2, 1, 'materialized', [1, 2]], [2, 1, 'materialized', [3, 4]], [2, 1, 'materialized', [5, 6]]]);
  });

  test('a part is cut into the arrays it is given where their lengths fit, else into new ones', () => {
    const call = callOf(4, 2);
    const split = splitCall({ n, m, heads: 4, kvHeads: 2, options: call.options, workers: 2, splitFrom: 0 });
    const slicePart = sliceHeads(call, split);
    const fresh = slicePart(1);
    const into = { q: new Float32Array(n * 2 * dh).fill(7), k: new Float32Array(m * dh), v: new Float32Array(m * dvh + 1) };
    const cut = slicePart(1, into);
    assert.equal(cut.q.data, into.q, 'q into the array given');
    assert.equal(cut.k.data, into.k);
    assert.notEqual(cut.v.data, into.v, 'v of another length: a new array');
    for (const name of ['q', 'k', 'v']) assert.deepEqual(cut[name], fresh[name], `${name}: the same part`);
  });

  test('not when a part would not give the whole call\'s numbers or error: every input then, with part', () => {
    assert.equal(slicesOf(callOf(4, 2), 3), null, 'heads [0, 1) and [1, 2) share a key/value head');
    assert.equal(slicesOf(callOf(4, 4, { positional: { type: 'alibi' } }), 2), null, 'ALiBi\'s default slopes depend on H');
    assert.equal(slicesOf(callOf(4, 4, { positional: { type: 'alibi', slopes: [1] } }), 2), null, 'slopes not one per head: the whole call\'s error');
    const wrongK = attentionArguments(randomMatrix(random, n, 8), randomMatrix(random, m, 6), randomMatrix(random, m, 4), { heads: 2 });
    assert.equal(slicesOf(wrongK, 2), null, 'k columns differ from q: the whole call\'s error');
    assert.equal(slicesOf(callOf(2, 2), 3), null, 'fewer heads than workers: split by rows');
    const huge = { rows: 8192, cols: 8, data: new Float32Array(8192 * 8) };
    const beyond = attentionArguments(huge, huge, huge, { heads: 4, kernel: 'materialized' });
    assert.equal(sliceHeads(beyond, splitCall({ n: 8192, m: 8192, heads: 4, options: beyond.options, workers: 2, splitFrom: 0 })), null,
      'a materialising call beyond the budget that a part would fit');
    const auto = attentionArguments(huge, huge, huge, { heads: 4 });
    const split = splitCall({ n: 8192, m: 8192, heads: 4, options: auto.options, workers: 2, splitFrom: 0 });
    assert.equal(sliceHeads(auto, split)(0).options.kernel, 'flash', "'auto' over the budget: the parts run flash, as the whole call would");
    // the budget's edge, where the core's automatic kernel changes (tests/native/test_attention.cpp):
    // 128 heads over 1,024 × 1,024 fill the 1 GiB exactly, one key more is beyond it
    const edge = (m, kernel) => {
      const queries = { rows: 1024, cols: 128, data: new Float32Array(1024 * 128) };
      const keys = { rows: m, cols: 128, data: new Float32Array(m * 128) };
      const call = attentionArguments(queries, keys, keys, { heads: 128, ...(kernel && { kernel }) });
      return sliceHeads(call, splitCall({ n: 1024, m, heads: 128, options: call.options, workers: 2, splitFrom: 0 }));
    };
    assert.equal(edge(1024)(0).options.kernel, 'materialized', "'auto' at the budget's last byte materialises");
    assert.equal(edge(1025)(0).options.kernel, 'flash', "'auto' one key beyond it streams");
    assert.equal(edge(1025, 'materialized'), null, 'materialising one key beyond it: the whole call\'s error');
  });

  test('bit for bit the engine\'s at heads of 64, both kernels, every positional encoding, grouped or not', async () => {
    const random64 = mulberry32(20261202);
    for (const [heads, kvHeads] of [[8, 8], [8, 2], [4, 4]]) {
      for (const kernel of ['flash', 'materialized']) {
        for (const positional of [{ type: 'none' }, { type: 'rope' }, { type: 'alibi', slopes: Array.from({ length: heads }, (_, h) => 0.01 * (h + 1)) }]) {
          const rows = randomInt(random64, 100, 300);
          const q = randomMatrix(random64, rows, heads * 64), k = randomMatrix(random64, rows, kvHeads * 64);
          const v = randomMatrix(random64, rows, kvHeads * 64);
          const options = { heads, kvHeads, kernel, positional, causal: random64() < 0.5 };
          assertSameResult(await two.attention(q, k, v, options), engine.attention(q, k, v, options), JSON.stringify(options));
        }
      }
    }
  });
});

describe('the workers\' protocol', () => {
  test('a worker hands back the arrays of q, k and v it was given when asked (returnInputs), each alone in its buffer, and only then', async () => {
    const worker = new Worker(new URL('../../dist/wasm/pool-worker.mjs', import.meta.url));
    const next = () => new Promise((resolve) => {
      worker.once('message', resolve);
    });
    // q in a buffer of its own, or a view of the middle of a larger one (which stays with the worker)
    const qOf = (rows, alone) => {
      if (alone) return rows;
      const data = new Float32Array(rows.data.length + 2);
      data.set(rows.data, 1);
      return { ...rows, data: data.subarray(1, rows.data.length + 1) };
    };
    try {
      let answer = next();
      worker.postMessage({ load: { simd: engine.simd } });
      assert.equal((await answer).simd, engine.simd);
      const random = mulberry32(20261128);
      for (const [returnInputs, qAlone, handedBack] of [[true, true, [160, 192, 96]], [true, false, [null, 192, 96]], [false, true, []]]) {
        const args = [qOf(flat(randomMatrix(random, 20, 8)), qAlone), flat(randomMatrix(random, 24, 8)), flat(randomMatrix(random, 24, 4))];
        const copies = args.map((matrix) => Float32Array.from(matrix.data));
        answer = next();
        worker.postMessage({ id: 1, call: 'attention', args: [...args, { heads: 2 }], returnInputs },
          args.map((matrix) => matrix.data.buffer));
        const { value, inputs } = await answer;
        assertSameResult(value, engine.attention(...args.map((matrix, i) => ({ ...matrix, data: copies[i] })), { heads: 2 }), 'the answer');
        assert.deepEqual(inputs.map((array) => array?.length ?? null), handedBack, `returnInputs ${returnInputs}, q alone ${qAlone}`);
        inputs.forEach((array, i) => assert.ok(array === null || bytesOf(array).equals(bytesOf(copies[i])), 'with the numbers sent'));
      }
    } finally {
      await worker.terminate();
    }
  });
});

describe('the workers\' memory', () => {
  test('a worker reports its engine\'s memory with its engine\'s load, every answer, and a failed call\'s, and the pool keeps the last', async () => {
    const worker = new Worker(new URL('../../dist/wasm/pool-worker.mjs', import.meta.url));
    const next = () => new Promise((resolve) => {
      worker.once('message', resolve);
    });
    const fresh = await createAttention();
    try {
      let answer = next();
      worker.postMessage({ load: { simd: engine.simd } });
      const ready = await answer;
      assert.deepEqual([ready.memoryBytes, ready.memoryInUseBytes], [fresh.memoryBytes, fresh.memoryInUseBytes], 'ready');
      const q = flat(randomMatrix(mulberry32(20261130), 20, 8));
      answer = next();
      worker.postMessage({ id: 1, call: 'attention', args: [q, q, q, { heads: 2 }] });
      const computed = await answer;
      assert.equal(computed.memoryInUseBytes, fresh.memoryInUseBytes, 'after a call that leaves nothing behind');
      assert.ok(computed.memoryBytes >= ready.memoryBytes);
      answer = next();
      worker.postMessage({ id: 2, call: 'attention', args: [q, q, q, { heads: 3 }] });
      const failed = await answer;
      assert.match(failed.error, /heads/);
      assert.deepEqual([failed.memoryBytes, failed.memoryInUseBytes], [computed.memoryBytes, fresh.memoryInUseBytes], 'a failed call\'s answer');
    } finally {
      await worker.terminate();
    }
    // the pool's slot keeps what the last answer said, a failed call's too (a scripted worker)
    const said = [{ memoryBytes: 100, memoryInUseBytes: 10 }, { memoryBytes: 200, memoryInUseBytes: 20 }, { memoryBytes: 300, memoryInUseBytes: 30 }];
    const slot = createSlot(0, (listeners) => ({
      post: (message) => queueMicrotask(() => {
        if (message.load) listeners.message({ ready: 'scripted', simd: message.load.simd, ...said[0] });
        else if (message.id === 1) listeners.message({ id: 1, value: {}, inputs: [], ...said[1] });
        else listeners.message({ id: message.id, error: 'refused', ...said[2] });
      }),
      terminate: () => {},
      keepAlive: () => {},
    }), { simd: engine.simd });
    slot.start();
    await slot.ready;
    const memory = () => [slot.memoryBytes, slot.memoryInUseBytes];
    assert.deepEqual(memory(), [100, 10], 'after loading');
    await slot.request('attention', []);
    assert.deepEqual(memory(), [200, 20], 'after an answer');
    await assert.rejects(slot.request('attention', []), /refused/);
    assert.deepEqual(memory(), [300, 30], 'after a failed call');
    await slot.close(new Error('closed'));
  });
});

describe('errors', () => {
  const Q = [[1, 2, 3, 4], [5, 6, 7, 8]];
  const K = [[1, 0, 1, 0], [0, 1, 0, 1], [1, 1, 1, 1]];
  const V = [[1, 2], [3, 4], [5, 6]];
  const X = Array.from({ length: 130 }, (_, i) => [i / 100, 1, -i / 50, 0.5]);
  const late = X.map((row, i) => (i === 120 ? [0, NaN, 0, 0] : row));
  const huge = { rows: 16385, cols: 1, data: new Float32Array(16385) };
  // q whose scores overflow in head 0 (query 0) and head 1 (query 1): the parts fail differently.
  const overflowing = [[1e20, 0, 0, 0], [0, 0, 1e20, 0]];
  const CALLS = [
    ['q is a string', 'attention', ['q', K, V]],
    ['ragged k', 'attention', [Q, [[1, 2, 3, 4], [1]], V]],
    ['NaN in q', 'attention', [[[1, 2, 3, 4], [5, 6, NaN, 8]], K, V, { heads: 2 }]],
    ['Infinity in v', 'attention', [Q, K, [[1, 2], [Infinity, 4], [5, 6]], { heads: 2 }]],
    ['k columns differ from q', 'attention', [Q, [[1, 2, 3]], [[1, 2]], { heads: 2 }]],
    ['heads not dividing dk', 'attention', [Q, K, V, { heads: 3 }]],
    ['heads 0', 'attention', [Q, K, V, { heads: 0 }]],
    ['unknown option', 'attention', [Q, K, V, { casual: true }]],
    ['options not an object', 'attention', [Q, K, V, 'flash']],
    ['bad normalization', 'attention', [Q, K, V, { heads: 2, normalization: 'softmx' }]],
    ['slopes not one per head', 'attention', [Q, K, V, { heads: 2, positional: { type: 'alibi', slopes: [1] } }]],
    ['rope over odd heads', 'attention', [Q, K, V, { heads: 4, positional: { type: 'rope' } }]],
    ['negative window', 'attention', [Q, K, V, { window: -1 }]],
    ['reuse a number', 'attention', [Q, K, V, { reuse: 5 }]],
    ['a part beyond n', 'attention', [Q, K, V, { part: { rows: [1, 9] } }]],
    ['materialising beyond the budget', 'attention', [huge, huge, huge, { kernel: 'materialized' }]],
    ['overflow in two heads', 'attention', [overflowing, overflowing, overflowing, { heads: 2, scale: false, kernel: 'materialized' }]],
    ['NaN in x at a late row (the second block of rows)', 'selfAttention', [late, { causal: true }]],
    ['wq without wk', 'selfAttention', [X, { wq: [[1], [2], [3], [4]] }]],
    ['wo rows differ from v', 'selfAttention', [X, { heads: 2, wo: [[1, 2], [3, 4]] }]],
    ['a projection that overflows in one head', 'selfAttention', [X, {
      heads: 2, wq: [[3e38, 0], [3e38, 0], [0, 0], [0, 0]], wk: [[1, 0], [0, 1], [0, 0], [0, 0]], wv: [[1, 0], [0, 1], [0, 0], [0, 0]],
    }]],
    ['unknown selfAttention option', 'selfAttention', [X, { Wq: X }]],
  ];

  for (const [name, call, args] of CALLS) {
    test(`${name}: the pool rejects with the engine's Error`, async () => {
      let expected;
      try {
        engine[call](...args);
      } catch (error) {
        expected = error;
      }
      assert.ok(expected instanceof Error, 'the engine throws');
      for (const pool of [two, three, twoAndCaller]) {
        await assert.rejects(pool[call](...args), (error) => error instanceof Error && error.message === expected.message);
      }
    });
  }

  test('after the failed calls the pool answers as before', async () => {
    const random = mulberry32(20261130);
    const q = randomMatrix(random, 100, 8);
    for (const pool of [two, three, twoAndCaller]) {
      assertSameResult(await pool.attention(q, q, q, { heads: 2, causal: true }), engine.attention(q, q, q, { heads: 2, causal: true }),
        `after, ${threadsOf(pool)}`);
    }
  });

  test('createAttentionPool checks its options', async () => {
    for (const [options, words] of [
      [{ workers: 0 }, /workers must be a whole number from 1 to 2147483647, got 0/],
      [{ workers: 1.5 }, /workers must be a whole number/],
      [{ workers: '2' }, /workers must be a whole number.*string/],
      [{ workers: 257 }, /workers must be a whole number from 1 to 256, got 257/],
      [{ workers: 2, splitFrom: -1 }, /splitFrom must be a whole number ≥ 0, got -1/],
      [{ workers: 2, splitFrom: 'many' }, /splitFrom must be a whole number ≥ 0, got the string "many"/],
      [{ threads: 2 }, /unknown option 'threads' in createAttentionPool options; known options are workers, workerURL/],
      [{ workerURL: 5 }, /workerURL must be a URL or a string, got number/],
      [{ engine: 5 }, /engine must be an engine of createAttention\(\) or null, got 5/],
      [{ engine: { attention() {} } }, /engine must be an engine of createAttention\(\) or null, got an object/],
      [{ callerPart: 'yes' }, /callerPart must be true or false, got the string "yes"/],
      [{ callerPart: true, engine: null }, /callerPart must be false when engine is null: the caller's thread has no engine/],
    ]) {
      await assert.rejects(createAttentionPool(options), (error) => error instanceof Error && words.test(error.message));
    }
  });

  test('a worker whose engine or script does not load: createAttentionPool rejects, naming the cause, once', async () => {
    await assert.rejects(createAttentionPool({ workers: 2, workerURL: new URL('./fixtures/broken-pool-worker.mjs', import.meta.url) }),
      /the attention pool could not start: attention pool worker \d could not load the engine: attention_core.wasm was not found/);
    await assert.rejects(createAttentionPool({ workers: 2, workerURL: new URL('./fixtures/no-such-worker.mjs', import.meta.url) }),
      /the attention pool could not start: attention pool worker \d threw: Cannot find module/);
  });
});

describe('wake: the threads kept awake for a call that is coming', () => {
  // Event loop utilisation (the share of the time a thread's loop was not waiting for events:
  // 1 while it turns, near 0 while it sleeps, whatever else the machine runs) of this thread and
  // of each of a pool's workers (fixtures/measured-pool-worker.mjs), while `act` runs and `ms` after.
  const channel = new BroadcastChannel('pool-worker-loop');
  after(() => channel.close());
  // {threadId: {idle, active}} of the `count` measured workers
  const workerLoops = (count) => new Promise((resolve) => {
    const loops = {};
    channel.onmessage = ({ data: { threadId, idle, active } }) => {
      loops[threadId] = { idle, active };
      if (Object.keys(loops).length === count) resolve(loops);
    };
    channel.postMessage('utilisation');
  });
  async function utilisationWhile(pool, ms, act = () => {}) {
    const workers = await workerLoops(pool.workers);
    const caller = performance.eventLoopUtilization();
    act();
    await sleep(ms);
    const later = await workerLoops(pool.workers);
    const share = (id) => {
      const active = later[id].active - workers[id].active;
      return active / (later[id].idle - workers[id].idle + active);
    };
    return {
      caller: performance.eventLoopUtilization(caller).utilization,
      workers: Object.keys(workers).map(share),  // by thread id: the pool's workers in the order they started
      get worker() { return this.workers[0]; },
    };
  }
  const measuredPool = (options) => createAttentionPool({
    workers: 1, engine, workerURL: new URL('./fixtures/measured-pool-worker.mjs', import.meta.url), ...options,
  });
  const q = randomMatrix(mulberry32(20261126), 40, 8);

  test('wake(ms) keeps the worker turning for ms or until the next call, then lets it sleep; the caller\'s thread only with callerPart', async () => {
    for (const callerPart of [false, true]) {
      const pool = await measuredPool({ callerPart, splitFrom: 0 });
      const label = `callerPart ${callerPart}`;
      try {
        const before = await utilisationWhile(pool, 100);
        assert.ok(before.worker < 0.2 && before.caller < 0.2, `asleep before, ${label}: ${JSON.stringify(before)}`);
        const awake = await utilisationWhile(pool, 150, () => pool.wake(300));
        assert.ok(awake.worker > 0.8, `the worker turns, ${label}: ${awake.worker}`);
        if (callerPart) assert.ok(awake.caller > 0.8, `the caller turns: ${awake.caller}`);
        else assert.ok(awake.caller < 0.2, `the caller is not woken without callerPart: ${awake.caller}`);
        // the call it was for is answered as ever, and ends it (the worker's 5 ms after an answer)
        assertSameResult(await pool.attention(q, q, q, { heads: 2 }), engine.attention(q, q, q, { heads: 2 }), 'a call while awake');
        await sleep(20);
        const afterCall = await utilisationWhile(pool, 100);  // within the 300 ms
        assert.ok(afterCall.worker < 0.2 && afterCall.caller < 0.2, `asleep after the call, ${label}: ${JSON.stringify(afterCall)}`);
        // and without a call, when its time is up
        pool.wake(100);
        await sleep(120);
        const ended = await utilisationWhile(pool, 100);
        assert.ok(ended.worker < 0.2 && ended.caller < 0.2, `asleep after the time, ${label}: ${JSON.stringify(ended)}`);
      } finally {
        await pool.close();
      }
    }
  });

  test('wake wakes the threads the last call used: every worker before a first call, one after a call on one', async () => {
    const pool = await measuredPool({ workers: 2, callerPart: false, splitFrom: 0 });
    const wide = randomMatrix(mulberry32(20261127), 200, 8);  // split by rows over both workers
    const narrow = randomMatrix(mulberry32(20261128), 1, 8);  // one row: one worker
    try {
      const awakeAfter = async (call) => {
        await call?.();
        await sleep(30);
        const { workers } = await utilisationWhile(pool, 100, () => pool.wake(200));
        await sleep(150);  // the rest of the wake
        return workers.map((share) => share > 0.8);
      };
      assert.deepEqual(await awakeAfter(), [true, true], 'before a first call');
      assert.deepEqual(await awakeAfter(() => pool.attention(narrow, narrow, narrow)), [true, false], 'after a call on one worker');
      assert.deepEqual(await awakeAfter(() => pool.attention(wide, wide, wide)), [true, true], 'after a call on both');
    } finally {
      await pool.close();
    }
  });

  test('a call computed on the caller\'s thread alone ends the workers\' wake; close() ends the caller\'s', async () => {
    const alone = await measuredPool({ callerPart: false, splitFrom: 2 ** 40 });  // every call on the caller's engine
    try {
      alone.wake(300);
      await sleep(20);
      assertSameResult(await alone.attention(q, q, q, { heads: 2 }), engine.attention(q, q, q, { heads: 2 }), 'on the caller');
      await sleep(20);
      const { worker } = await utilisationWhile(alone, 100);
      assert.ok(worker < 0.2, `the worker asleep after a call it did not get: ${worker}`);
    } finally {
      await alone.close();
    }
    const closing = await createAttentionPool({ workers: 1, engine, callerPart: true });
    closing.wake(1000);
    await closing.close();
    await sleep(20);
    const since = performance.eventLoopUtilization();
    await sleep(100);
    const caller = performance.eventLoopUtilization(since).utilization;
    assert.ok(caller < 0.2, `the caller asleep after close: ${caller}`);
  });

  test('wake checks its milliseconds, and a closed pool says so', async () => {
    const pool = await createAttentionPool({ workers: 1 });
    for (const ms of [-1, 1001, Number.NaN, Infinity, '5', undefined, null]) {
      assert.throws(() => pool.wake(ms), (error) => error instanceof Error &&
        /^wake's ms must be a number of milliseconds from 0 to 1000, got /.test(error.message), String(ms));
    }
    pool.wake(0);
    pool.wake(1000);
    await pool.close();
    assert.throws(() => pool.wake(10), /the attention pool is closed; start another with createAttentionPool/);
  });
});

describe('workers that die, and closing', () => {
  test('a worker that exits or throws fails its calls with an Error naming it, and is replaced', async () => {
    const pool = await createAttentionPool({
      workers: 2, splitFrom: 0, workerURL: new URL('./fixtures/mortal-pool-worker.mjs', import.meta.url),
    });
    const random = mulberry32(20261131);
    const q = randomMatrix(random, 50, 8);
    try {
      // Split by heads, each worker gets its head's 4 columns of q: the marker at column 0 ends
      // worker 0, at column 4 worker 1, at both each of them (the first part's named); a call
      // queued behind it on the same workers fails too, and the replacements answer.
      const cases = [[[0], 0], [[4], 1], [[0, 4], 0]];
      for (const [marker, cause] of [[EXIT_NOW, /exited with code 3/], [THROW_NOW, /threw: deliberate failure/]]) {
        for (const [columns, named] of cases) {
          const deadly = flat(q.map((row, i) => (i === 0 ? row.map((value, j) => (columns.includes(j) ? marker : value)) : row)));
          const label = `${cause.source}, marker at column ${columns.join(' and ')}`;
          const [first, queued] = await Promise.allSettled([pool.attention(deadly, q, q, { heads: 2 }), pool.attention(q, q, q, { heads: 2 })]);
          assert.equal(first.status, 'rejected', label);
          assert.ok(first.reason instanceof Error);
          assert.match(first.reason.message, new RegExp(`^attention pool worker ${named} `), label);
          assert.match(first.reason.message, cause);
          assert.equal(queued.status, 'rejected', label);
          assert.match(queued.reason.message, new RegExp(`^attention pool worker ${named} `), label);
          assert.match(queued.reason.message, cause);
          assertSameResult(await pool.attention(q, q, q, { heads: 2, causal: true }), engine.attention(q, q, q, { heads: 2, causal: true }),
            `${label}: the replacements answer`);
        }
      }
    } finally {
      await pool.close();
    }
  });

  test('a call handing over a buffer already handed over fails with an Error, and the worker answers the next', async () => {
    const slot = createSlot(0, await workerStarter(new URL('../../dist/wasm/pool-worker.mjs', import.meta.url)), { simd: engine.simd });
    slot.start();
    try {
      await slot.ready;
      const q = flat(randomMatrix(mulberry32(20261130), 6, 4));
      const gone = new Float32Array(q.data);
      structuredClone(gone.buffer, { transfer: [gone.buffer] });  // detached
      const refused = slot.request('attention', [{ ...q, data: gone }, q, q, {}], [gone.buffer]);
      await assert.rejects(Promise.race([refused, sleep(5000).then(() => 'unsettled')]), /could not be sent to a pool worker: .*detached/);
      const { value } = await slot.request('attention', [q, q, q, {}]);
      assertSameResult(value, engine.attention(q, q, q), 'the next call');
    } finally {
      await slot.close(new Error('closed'));
    }
  });

  test('close(): calls under way and later calls reject with an Error that says the pool is closed', async () => {
    const pool = await createAttentionPool({ workers: 2 });
    const big = randomMatrix(mulberry32(20261132), 1500, 16);
    const closedWords = /the attention pool was closed before the call finished/;
    // split by rows, and by heads sending each worker its heads' columns (a failure there used
    // to rerun the whole call on a new worker after the pool had closed)
    const running = [pool.attention(big, big, big, { kernel: 'flash' }), pool.attention(big, big, big, { kernel: 'flash', heads: 2 })]
      .map((call) => assert.rejects(call, closedWords));
    await pool.close();
    await Promise.all(running);
    await assert.rejects(pool.attention([[1]], [[1]], [[1]]), /the attention pool is closed; start another with createAttentionPool/);
    await pool.close();  // a second close does nothing
  });

  test('the pool\'s count, version and wasm memory', async () => {
    assert.equal(two.workers, 2);
    assert.equal(two.version, engine.version);
    assert.ok(two.memoryBytes >= 2 * 16 * 2 ** 20, `${two.memoryBytes} bytes`);
  });

  test('the bytes the engines\' allocations hold (memoryInUseBytes): a fresh engine\'s per worker, and the same after split calls and failed ones', async () => {
    const fresh = (await createAttention()).memoryInUseBytes;  // an engine as a worker loads it, warmed up
    const pool = await createAttentionPool({ workers: 2, splitFrom: 0, engine: null });
    try {
      assert.ok(fresh > 0, `${fresh} bytes`);
      assert.equal(pool.memoryInUseBytes, 2 * fresh, 'after loading');
      const random = mulberry32(20261130);
      const q = randomMatrix(random, 200, 8);
      for (const options of [{ heads: 2, kernel: 'materialized' }, { heads: 1, kernel: 'flash', causal: true }]) {
        assertSameResult(await pool.attention(q, q, q, options), engine.attention(q, q, q, options), JSON.stringify(options));
        assert.equal(pool.memoryInUseBytes, 2 * fresh, `after a split call, ${JSON.stringify(options)}`);
      }
      const late = q.map((row, i) => (i === 150 ? [NaN, ...row.slice(1)] : row));
      await assert.rejects(pool.attention(late, q, q, { heads: 2 }), /NaN/);
      assert.equal(pool.memoryInUseBytes, 2 * fresh, 'after a failed call');
    } finally {
      await pool.close();
    }
    // a pool's own engine on the caller's thread counts too
    const owning = await createAttentionPool({ workers: 1 });
    try {
      assert.equal(owning.memoryInUseBytes, 2 * fresh);
    } finally {
      await owning.close();
    }
  });

  test('split calls of changing shapes, 600 of them: the arrays a pool keeps between calls do not pile up', async () => {
    const random = mulberry32(20261129);
    // by heads and by rows, flash and materialised, on two workers and the caller
    const shapes = [[64, 4, 'flash'], [200, 1, 'flash'], [96, 3, 'materialized'], [300, 1, 'materialized'], [128, 2, 'flash']];
    const inputs = shapes.map(([n, heads, kernel]) => ({
      args: [0, 1, 2].map(() => flat(randomMatrix(random, n, heads * 64))), options: { heads, kernel },
    }));
    const calls = async (count) => {
      for (let call = 0; call < count; ++call) {
        const { args, options } = inputs[call % inputs.length];
        await twoAndCaller.attention(...args, options);
      }
    };
    await calls(100);
    const [rss, wasm] = [process.memoryUsage().rss, twoAndCaller.memoryBytes];
    await calls(500);
    const grown = process.memoryUsage().rss - rss;
    assert.ok(grown < 32 * 2 ** 20, `the process grew by ${(grown / 2 ** 20).toFixed(1)} MiB`);
    assert.equal(twoAndCaller.memoryBytes, wasm, 'the workers\' wasm memory grew');
    const { args, options } = inputs[2];
    assertSameResult(await twoAndCaller.attention(...args, options), engine.attention(...args, options), 'after them');
  });

  test('an idle pool that is never closed does not keep Node running; a script given to node -e, and V8 options, start it too', () => {
    const script = `import { createAttentionPool } from ${JSON.stringify(new URL('../../dist/wasm/attention.mjs', import.meta.url).href)};
      const pool = await createAttentionPool({ workers: 2 });
      const { context } = await pool.attention([[1, 0]], [[1, 0], [0, 1]], [[1], [3]]);
      console.log(context.data[0].toFixed(4));`;
    const { status, stdout } = spawnSync(process.execPath, ['--max-semi-space-size=32', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(status, 0, 'Node ends by itself');
    const weight = Math.exp(1 / Math.SQRT2);  // scores 1/√2 and 0
    assert.equal(stdout.trim(), ((weight + 3) / (weight + 1)).toFixed(4));
  });
});
