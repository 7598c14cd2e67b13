// Screenshots of the pages for looking at them, not a test: desktop (1400×1000) and phone
// (390×844), light and dark, the playground under a causal mask (so masked cells and their
// legend show), its 8 heads sharing 2 key/value heads (the head grid's groups) and its cost
// panel, the comparison of that setting (B) with the same one without the mask (A),
// generation step by step with a window and a sink (docs/generation-desktop.png),
// the step-by-step view walking through the matrix under RoPE, the lab, and the Train page
// before, during and after the default run (ATTN_TRAIN_HASH, e.g. '#pe=alibi&seeds=3', changes the run).
// Usage, after `node scripts/build.mjs wasm web`:
//   node tests/browser/screenshots.mjs [label] [pages]   → build/screenshots/<label>/*.png
// pages: a comma-separated choice of playground, lab, train (default all three).
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DESKTOP, PHONE, openPage, startSuite, trainAndWait, waitForRows } from './helpers.mjs';

const VIEWPORTS = { desktop: DESKTOP, phone: PHONE };
const SCHEMES = ['light', 'dark'];
const PLAYGROUND_HASH = '#c=1&h=2';  // causal: the upper triangle is masked; two heads
const PLAYGROUND_ROWS = 6;
// generation at step 7 ("and") of "Your journey starts with one step, and then another", a window of 3 and a sink
const GENERATION_HASH = `#t=${encodeURIComponent('Your journey starts with one step, and then another')}&gen=1&gs=7&q=7&w=3&sk=1&h=2&tw=linear&do=4`;
const GENERATION_ROWS = 8;
const WALKTHROUGH_HASH = '#h=2&hv=2&tw=linear&do=4&pe=rope&c=1&q=3';  // head 2, RoPE, causal
const COMPARE_HASH = '#c=1&h=2&hv=2&a=h%3D2';  // A: two heads, no mask; B: causal; head 2 of each
const GROUPED_HASH = '#tw=linear&do=16&h=8&kv=2&c=1';  // grouped-query attention: 8 heads, 2 key/value heads
const LAB_CHART = '#position-chart .series path';
const SETTLE_MS = 300;              // the hash write and the ResizeObserver's redraw
const TRAIN_HASH = process.env.ATTN_TRAIN_HASH ?? '';
const TRAIN_DURING_STEP = 700;      // the 'during' picture: once every seed has passed this step
const TRAIN_TIMEOUT_MS = 600_000;

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const label = process.argv[2] ?? 'latest';
const pages = new Set((process.argv[3] ?? 'playground,lab,train').split(','));
const folder = join(root, 'build', 'screenshots', label);
mkdirSync(folder, { recursive: true });

const suite = await startSuite();
try {
  for (const [device, viewport] of Object.entries(VIEWPORTS)) {
    for (const colorScheme of SCHEMES) {
      const name = `${device}-${colorScheme}`;
      if (pages.has('playground')) await playgroundShots(viewport, colorScheme, name);
      if (pages.has('lab')) await labShots(viewport, colorScheme, name);
      if (pages.has('train')) await trainShots(viewport, colorScheme, name);
    }
  }
  console.log(`screenshots: ${folder}`);
} finally {
  await suite.close();
}

// The playground, its matrix and lines; generation with a window; the walk-through.
async function playgroundShots(viewport, colorScheme, name) {
  const playground = await openPage(suite, PLAYGROUND_HASH, { viewport, colorScheme });
  await waitForRows(playground.page, PLAYGROUND_ROWS);
  // the lines view paints once it comes near the viewport (on a phone it is far below)
  await playground.page.locator('.lines-frame').scrollIntoViewIfNeeded();
  await playground.page.waitForTimeout(SETTLE_MS);
  await playground.page.evaluate(() => window.scrollTo(0, 0));
  await playground.page.screenshot({ path: join(folder, `playground-${name}.png`), fullPage: true });
  await playground.page.locator('.panel-matrix')
    .screenshot({ path: join(folder, `matrix-${name}.png`) });
  await playground.page.locator('.panel-lines')
    .screenshot({ path: join(folder, `lines-${name}.png`) });
  await playground.close();

  const grouped = await openPage(suite, GROUPED_HASH, { viewport, colorScheme });
  await waitForRows(grouped.page, PLAYGROUND_ROWS);
  await grouped.page.waitForTimeout(SETTLE_MS);
  await grouped.page.locator('.panel-matrix')
    .screenshot({ path: join(folder, `grouped-matrix-${name}.png`) });
  await grouped.page.locator('.panel-cost').screenshot({ path: join(folder, `cost-${name}.png`) });
  await grouped.close();

  const compare = await openPage(suite, COMPARE_HASH, { viewport, colorScheme });
  await compare.page.waitForFunction(() => document.getElementById('compare-heatmap').dataset.heads === '3');
  await compare.page.waitForTimeout(SETTLE_MS);
  await compare.page.screenshot({ path: join(folder, `compare-page-${name}.png`) });
  await compare.page.locator('#compare-panel').screenshot({ path: join(folder, `compare-${name}.png`) });
  await compare.close();

  const generation = await openPage(suite, GENERATION_HASH, { viewport, colorScheme });
  await waitForRows(generation.page, GENERATION_ROWS);
  await generation.page.waitForSelector('[data-testid="generation"]:not([hidden])');
  await generation.page.waitForTimeout(SETTLE_MS);
  await generation.page.locator('.panel-matrix')
    .screenshot({ path: join(folder, `generation-${name}.png`) });  // docs/generation-desktop.png
  await generation.close();

  const walkthrough = await openPage(suite, WALKTHROUGH_HASH, { viewport, colorScheme });
  await waitForRows(walkthrough.page, PLAYGROUND_ROWS);
  await walkthrough.page.waitForSelector('[data-testid="steps-table"][data-source="matrix"]');
  await walkthrough.page.waitForTimeout(SETTLE_MS);
  await walkthrough.page.locator('.panel-steps').screenshot({ path: join(folder, `steps-${name}.png`) });
  await walkthrough.close();
}

// The lab's position chart.
async function labShots(viewport, colorScheme, name) {
  const lab = await openPage(suite, 'lab.html', { viewport, colorScheme });
  await lab.page.waitForSelector(LAB_CHART);
  await lab.page.waitForTimeout(SETTLE_MS);
  await lab.page.screenshot({ path: join(folder, `lab-${name}.png`) });
  await lab.close();
}

// The Train page before, during and after a run.
async function trainShots(viewport, colorScheme, name) {
  const train = await openPage(suite, `train.html${TRAIN_HASH}`, { viewport, colorScheme });
  await train.page.waitForTimeout(SETTLE_MS);
  await train.page.screenshot({ path: join(folder, `train-before-${name}.png`) });
  const finished = trainAndWait(train.page, TRAIN_TIMEOUT_MS);
  await train.page.waitForFunction((step) => {
    const seeds = [...document.querySelectorAll('#seed-progress li')];
    return seeds.length > 0 && seeds.every((item) => Number(item.dataset.step) >= step);
  }, TRAIN_DURING_STEP, { timeout: TRAIN_TIMEOUT_MS });
  await train.page.evaluate(() => document.querySelector('.train-intro').scrollIntoView());
  await train.page.screenshot({ path: join(folder, `train-during-${name}.png`) });
  await finished;
  await train.page.waitForTimeout(SETTLE_MS);
  await train.page.evaluate(() => window.scrollTo(0, 0));
  await train.page.screenshot({ path: join(folder, `train-after-${name}.png`), fullPage: true });
  await train.page.evaluate(() => document.querySelector('.train-layout').scrollIntoView());
  await train.page.screenshot({ path: join(folder, `train-top-${name}.png`) });  // docs/train-desktop.png
  for (const [part, selector] of [['positions', 'section:has(#positions-chart)'], ['lengths', 'section:has(#lengths-chart)'],
    ['looks', 'section:has(#looks-chart)'], ['attention', 'section:has(#attention-map)'], ['runs', 'section:has(#runs-body)']]) {
    await train.page.locator(selector).screenshot({ path: join(folder, `train-${part}-${name}.png`) });
  }
  await train.close();
}
