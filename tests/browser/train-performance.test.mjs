// Timings of the Train page in Chromium, merged into build/web-timings.json under `train`: the
// default run (2 layers, dModel 32, 2 heads, ALiBi, 16 pairs of 32 keys and 32 values, batch
// 64, 1,400 steps, a checkpoint every 100 steps on 2,048 held-out sequences) with one seed on
// one worker, with one seed on a team of two workers (the page told of 3 cores), then with
// three seeds side by side (one worker each). No timing is asserted: the numbers
// depend on the machine and on what else runs on it; the test checks that each run finished.
// It takes about two minutes, so it runs only when asked:
//   ATTN_TRAIN_TIMINGS=1 node --test tests/browser/train-performance.test.mjs
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { openPage, startSuite, trainAndWait } from './helpers.mjs';
import { teamsFor } from '../../web/train/runner.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const RESULTS_FILE = join(root, 'build', 'web-timings.json');
const RUN_TIMEOUT_MS = 300_000;
const SEEDS = 3;
const skip = process.env.ATTN_TRAIN_TIMINGS ? false : 'set ATTN_TRAIN_TIMINGS=1 to time the default run (about two minutes)';

let suite;
const results = {};
before(async () => { if (!skip) suite = await startSuite(); });
after(async () => {
  await suite?.close();
  if (skip) return;
  mkdirSync(dirname(RESULTS_FILE), { recursive: true });
  const earlier = existsSync(RESULTS_FILE) ? JSON.parse(readFileSync(RESULTS_FILE, 'utf8')) : {};
  const machine = { cpus: cpus().length, model: cpus()[0]?.model, loadAverage: loadavg() };
  const train = { date: new Date().toISOString(), machine, ...results };
  writeFileSync(RESULTS_FILE, `${JSON.stringify({ ...earlier, train }, null, 2)}\n`);
});

// Trains the page's default run with `seeds` seeds, on a page told the machine has `cores`
// cores (or the real count): {seconds from the click to the end (the final evaluations
// included), the page's own count, each seed's steps}.
async function timeDefaultRun(seeds, cores = undefined) {
  const { page, close } = await openPage(suite, seeds === 1 ? 'train.html' : `train.html#pe=alibi&seeds=${seeds}`, {
    prepare: cores && ((context) => context.addInitScript((count) => {
      Object.defineProperty(Navigator.prototype, 'hardwareConcurrency', { get: () => count });
    }, cores)),
  });
  // every worker's engine loaded before the clock starts
  const workers = teamsFor(seeds, Math.max(1, (cores ?? cpus().length) - 1)).flat().length;
  await page.waitForFunction((count) => Number(document.documentElement.dataset.workers) >= count, workers);
  const started = Date.now();
  assert.equal(await trainAndWait(page, RUN_TIMEOUT_MS), 'finished');
  const seconds = (Date.now() - started) / 1000;
  const shown = await page.evaluate(() => ({
    status: document.querySelector('[data-testid="train-status"]').textContent,
    steps: [...document.querySelectorAll('#seed-progress li')].map((item) => Number(item.dataset.step)),
  }));
  await close();
  assert.deepEqual(shown.steps, Array(seeds).fill(1400));
  return { seeds, workers, seconds, pageSeconds: Number(shown.status.match(/in ([\d.]+) s/)[1]) };
}

describe('Train page timings', { skip }, () => {
  test('the default run: one seed on one worker, one seed on two, three seeds side by side', async () => {
    results.oneSeed = await timeDefaultRun(1, 2);
    results.oneSeedTwoWorkers = await timeDefaultRun(1, 3);
    results.twoWorkersOverOne = results.oneSeedTwoWorkers.seconds / results.oneSeed.seconds;
    results.threeSeeds = await timeDefaultRun(SEEDS);
    results.threeOverOne = results.threeSeeds.seconds / results.oneSeed.seconds;
  });
});
