// The Train page on a phone (web/train/option-groups.js, shared/page/option-groups.js and
// introduction.js) in Chromium: the run's groups of settings folded to their heading and a line
// of their settings, the introduction's later paragraphs folded, so that chart 1 begins within
// about 1.3 screens; the lines following the controls, the presets and a link; opened and
// folded by pointer and keyboard; a problem opening its group; on a desktop every control in
// sight and no button.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DESKTOP, PHONE, groupExpanded as expanded, openPage, startSuite, waitForHash } from './helpers.mjs';

// Measured at 390×844 with the engine's two-line status: the groups' buttons end at 841, 909,
// 977 and 1,044 px, chart 1's panel begins at 1,107 px (2,537 px, three screens, before the
// groups and the introduction folded).
const LAST_HEADING_END_PX = 1056;
const CHART_1_TOP_PX = 1120;
const GROUPS = {
  task: { title: 'Task', controls: ['#pairs', '#keys', '#values', '#answers', '#retrieval', '#running-span', '#serial-recall'] },
  model: { title: 'Model', controls: ['#layers', '#d-model', '#heads', '#positional', '#context', '#mlp'] },
  training: { title: 'Training', controls: ['#steps', '#batch', '#learning-rate', '#seed', '#seeds'] },
  evaluation: { title: 'Evaluation', controls: ['#every', '#sequences', '#evaluate-at'] },
};
const DEFAULT_SUMMARIES = {
  task: '16 pairs · 32 keys · 32 values · uniform',
  model: '2 layers, dModel 32, 2 heads · ALiBi · causal',
  training: '1,400 steps × 64 · lr 0.01 · seed 0',
  evaluation: 'every 100 · 2,048 held out · at 16, 24, 32',
};

let suite;
before(async () => { suite = await startSuite(); });
after(async () => { await suite?.close(); });

const toggle = (name) => `#${name}-group-toggle`;
const summary = (page, name) => page.textContent(`#${name}-group-summary`);
const summaries = async (page) => Object.fromEntries(await Promise.all(Object.keys(GROUPS).map(async (name) => [name, await summary(page, name)])));
const openTrain = (hash = '', viewport = PHONE) => openPage(suite, `train.html${hash}`, { viewport });

describe('the Train page\'s settings on a phone', () => {
  test('every group is folded to its heading and a whole line of its settings; chart 1 begins within 1.3 screens', async () => {
    const { page, close } = await openTrain();
    const layout = await page.evaluate((names) => {
      const top = (element) => element.getBoundingClientRect().top + scrollY;
      return {
        chart1: top(document.getElementById('training-heading').closest('.panel')),
        groups: names.map((name) => {
          const line = document.getElementById(`${name}-group-summary`);
          return { name, end: document.getElementById(`${name}-group-toggle`).getBoundingClientRect().bottom + scrollY,
            height: line.getBoundingClientRect().height, lineHeight: parseFloat(getComputedStyle(line).lineHeight),
            cut: line.scrollWidth > line.clientWidth };
        }),
      };
    }, Object.keys(GROUPS));
    assert.ok(layout.chart1 <= CHART_1_TOP_PX, `chart 1 begins at ${layout.chart1} px`);
    assert.ok(layout.chart1 <= 1.32 * PHONE.height, `chart 1 begins ${layout.chart1 / PHONE.height} screens down`);
    assert.ok(layout.groups.at(-1).end <= LAST_HEADING_END_PX, `the last group's heading ends at ${layout.groups.at(-1).end} px`);
    for (const { name, height, lineHeight, cut } of layout.groups) {
      assert.equal(await expanded(page, name), 'false', `${name} folded`);
      assert.ok(Math.abs(height - lineHeight) < 1 && !cut, `${name}'s line is one whole line: ${height} px, cut: ${cut}`);
      for (const control of GROUPS[name].controls) assert.equal(await page.isVisible(control), false, `${control} folded away`);
    }
    assert.deepEqual(await summaries(page), DEFAULT_SUMMARIES);
    // each button names its group and settings; the fieldsets keep their names
    for (const [name, { title }] of Object.entries(GROUPS)) {
      assert.equal(await page.getByRole('button', { name: `${title} ${DEFAULT_SUMMARIES[name]}`, exact: true }).count(), 1, `${name}'s button`);
      assert.equal(await page.getByRole('group', { name: title, exact: true }).count(), 1, `${name}'s fieldset`);
    }
    // the presets stay open; the introduction's first paragraph shows, the rest folded behind a summary
    assert.equal(await page.isVisible('button[data-preset="quick"]'), true);
    assert.equal(await page.getAttribute('#train-more', 'open'), null);
    assert.equal(await page.isVisible('.train-intro > p'), true);
    assert.equal(await page.isVisible('#train-more > p'), false);
    await page.click('#train-more > summary');
    assert.equal(await page.isVisible('#train-more > p'), true, 'the summary opens the rest');
    await close();
  });

  test('a line follows typing, a preset and a link; an opened group stays open', async () => {
    const { page, close } = await openTrain();
    await page.click(toggle('training'));
    assert.equal(await expanded(page, 'training'), 'true');
    for (const control of GROUPS.training.controls) assert.equal(await page.isVisible(control), true, `${control} in sight`);
    assert.equal(await page.isVisible('#pairs'), false, 'the other groups stay folded');
    await page.fill('#steps', '800');
    assert.equal(await summary(page, 'training'), '800 steps × 64 · lr 0.01 · seed 0');
    await waitForHash(page, 'steps=800');
    await page.fill('#seeds', '3');
    assert.equal(await summary(page, 'training'), '800 steps × 64 · lr 0.01 · seeds 0–2');
    // a preset sets every setting of the run but the seeds
    await page.click('button[data-preset="quick"]');
    assert.deepEqual(await summaries(page), {
      task: '4 pairs · 8 keys · 8 values · uniform',
      model: '2 layers, dModel 16, 2 heads · ALiBi · causal',
      training: '300 steps × 32 · lr 0.01 · seeds 0–2',
      evaluation: 'every 50 · 512 held out · at 4, 6, 8',
    });
    assert.equal(await expanded(page, 'training'), 'true', 'the group the user opened stays open');
    assert.equal(await expanded(page, 'model'), 'false');
    // a link
    await page.evaluate(() => { location.hash = '#pe=rope&layers=3&context=prefix&mlp=1'; });
    await page.waitForFunction(() => document.getElementById('model-group-summary').textContent.includes('RoPE'));
    assert.equal(await summary(page, 'model'), '3 layers, dModel 32, 2 heads, MLP · RoPE · bidirectional');
    assert.equal(await summary(page, 'training'), '1,400 steps × 64 · lr 0.01 · seed 0');
    await close();
  });

  test('the groups open and fold with Enter and Space, and a folded group\'s controls are out of the tab order', async () => {
    const { page, close } = await openTrain();
    await page.focus(toggle('task'));
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement.id), 'model-group-toggle', 'folded: Tab skips its controls');
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Enter');
    assert.equal(await expanded(page, 'task'), 'true');
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement.id), 'pairs', 'open: Tab reaches its first control');
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Space');
    assert.equal(await expanded(page, 'task'), 'false');
    assert.equal(await page.isVisible('#pairs'), false);
    assert.equal(await page.evaluate(() => document.activeElement.id), 'task-group-toggle', 'the focus stays on the button');
    await page.keyboard.press('Space');
    assert.equal(await expanded(page, 'task'), 'true');
    assert.equal(await page.isVisible('#pairs'), true);
    await close();
  });

  test('a problem opens its group, which the user can fold again; a problem that appears later opens its group too', async () => {
    // 3 heads do not split dModel 32
    const { page, close } = await openTrain('#pe=alibi&heads=3');
    assert.equal(await expanded(page, 'model'), 'true');
    assert.equal(await page.isVisible('#heads-message'), true);
    assert.match(await page.textContent('#heads-message'), /^3 heads cannot split dModel = 32/);
    for (const name of ['task', 'training', 'evaluation']) assert.equal(await expanded(page, name), 'false', `${name} without a problem stays folded`);
    await page.click(toggle('model'));
    assert.equal(await expanded(page, 'model'), 'false');
    // the same problem, the controls shown again by a link: the group stays as the user left it
    await page.evaluate(() => { location.hash = '#pe=alibi&heads=3&steps=500'; });
    await page.waitForFunction(() => document.getElementById('training-group-summary').textContent.startsWith('500 steps'));
    assert.equal(await expanded(page, 'model'), 'false');
    // more pairs than key symbols: a new problem, in the task
    await page.evaluate(() => { location.hash = '#pe=alibi&heads=3&pairs=40'; });
    await page.waitForFunction(() => document.getElementById('task-group-toggle').getAttribute('aria-expanded') === 'true');
    assert.equal(await page.isVisible('#pairs-message'), true);
    assert.equal(await summary(page, 'task'), '40 pairs · 32 keys · 32 values · uniform');
    await close();
  });
});

describe('the Train page\'s settings on a desktop', () => {
  test('every control in sight under its group\'s title, no button, the introduction open without a fold, whatever a phone left folded', async () => {
    const { page, close } = await openTrain('', PHONE);
    await page.click(toggle('model'));
    await page.click(toggle('model'));  // opened and folded again
    await page.setViewportSize(DESKTOP);
    for (const [name, { title, controls }] of Object.entries(GROUPS)) {
      assert.equal(await page.isVisible(toggle(name)), false, `${name}'s button hidden`);
      assert.equal(await page.isVisible(`#${name}-group-title`), true);
      assert.equal(await page.textContent(`#${name}-group-title`), title);
      for (const control of controls) assert.equal(await page.isVisible(control), true, `${control} in sight`);
    }
    assert.equal(await page.getAttribute('#train-more', 'open'), '');
    assert.equal(await page.isVisible('#train-more > summary'), false);
    assert.equal(await page.locator('#train-more > p').count(), 3);
    for (const paragraph of await page.locator('#train-more > p').all()) assert.equal(await paragraph.isVisible(), true);
    await close();
  });
});
