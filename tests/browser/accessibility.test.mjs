// Accessibility, checked by axe-core (a dev dependency, evaluated into the page by the test, not
// served): no violation of WCAG 2.1 A and AA or of axe's best practices on the three pages, in
// both colour schemes, on a desktop and a phone, in the states that add content (generation
// step by step, a comparison, grouped heads, a finished training run, on a phone with its
// settings unfolded). And the tables that scroll sideways: a named region the keyboard can reach
// and scroll, only while they scroll.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { DESKTOP, PHONE, TIMEOUT_MS, TRAIN_QUICK, openPage, startSuite, trainAndWait, waitForRows } from './helpers.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const AXE = readFileSync(join(root, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
const RULES = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'];
// What axe leaves for a person to judge, node by node, and why each kind is judged fine: the
// contrast of text over a scroll shadow's gradient (bgGradient; the same colours over the plain
// panel pass), of a chart's text inside its SVG (imgNode), of tick numbers too short to tell
// from symbols (shortTextContent) and of the zoom-out button's − (nonBmp), which axe cannot
// compute; and whether + and − are part of the names "Zoom in" and "Zoom out".
const JUDGED = {
  'color-contrast': (node) => ['bgGradient', 'imgNode', 'shortTextContent', 'nonBmp'].includes(node.any[0]?.data?.messageKey),
  'label-content-name-mismatch': (node) => ['#zoom-in', '#zoom-out'].includes(node.target.join(' ')),
};
const STEPS_BOX = '.table-scroll:has([data-testid="steps-table"])';  // the walk-through's table, which a phone scrolls
const QUIET_MS = 500;             // the page is audited once its DOM has not changed for this long
const MAX_SETTLE_MS = 15_000;     // and fails if it keeps changing longer

let suite;
before(async () => { suite = await startSuite(); });
after(async () => { await suite?.close(); });

// Resolves to true once the page's DOM has not changed for QUIET_MS (its workers' answers
// drawn), or to false after MAX_SETTLE_MS: axe reads the DOM while it runs, and a view drawn
// again meanwhile leaves it unable to judge.
function settled(page) {
  return page.evaluate(([quietMs, maxMs]) => new Promise((resolve) => {
    let timer = setTimeout(() => done(true), quietMs);
    const limit = setTimeout(() => done(false), maxMs);
    const observer = new MutationObserver(() => {
      clearTimeout(timer);
      timer = setTimeout(() => done(true), quietMs);
    });
    function done(quiet) {
      clearTimeout(timer);
      clearTimeout(limit);
      observer.disconnect();
      resolve(quiet);
    }
    observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  }), [QUIET_MS, MAX_SETTLE_MS]);
}

// axe's findings on the page once it has settled: {violations, unjudged}, each "rule: targets";
// unjudged: what axe could not decide, less the nodes JUDGED fine.
async function audit(page) {
  assert.equal(await settled(page), true, `the page still changed after ${MAX_SETTLE_MS} ms`);
  await page.evaluate(AXE);
  const result = await page.evaluate((rules) => window.axe.run(document, { runOnly: rules }), RULES);
  const describe = (findings) => findings.map(({ id, nodes }) => `${id}: ${nodes.map((node) => node.target.join(' ')).join(', ')}`);
  const unjudged = result.incomplete
    .map(({ id, nodes }) => ({ id, nodes: nodes.filter((node) => !JUDGED[id]?.(node)) }))
    .filter(({ nodes }) => nodes.length > 0);
  return { violations: describe(result.violations), unjudged: describe(unjudged) };
}

const PLAYGROUND_STATES = [
  { name: 'the journey sentence', hash: '', rows: 6 },
  { name: 'generation step by step at step 3', hash: '#gen=1&gs=3&h=2&tw=linear&do=4', rows: 4 },
  { name: 'a comparison of A and B', hash: '#c=1&h=2&hv=2&a=h%3D2', rows: 6 },
  { name: '8 heads sharing 2 key/value heads', hash: '#tw=linear&do=16&h=8&kv=2&c=1', rows: 6 },
  { name: 'a link with settings it left out, named in notices', hash: '#h=0&zz=1&w=abc', rows: 6 },
];

describe('accessibility', () => {
  for (const [device, viewport] of Object.entries({ desktop: DESKTOP, phone: PHONE })) {
    for (const colorScheme of ['light', 'dark']) {
      test(`the playground on a ${device}, ${colorScheme}: no violation in any state`, async () => {
        for (const { name, hash, rows } of PLAYGROUND_STATES) {
          const { page, close } = await openPage(suite, hash, { viewport, colorScheme });
          await waitForRows(page, rows);
          const { violations, unjudged } = await audit(page);
          assert.deepEqual(violations, [], name);
          assert.deepEqual(unjudged, [], name);
          await close();
        }
      });

      test(`the lab and the Train page after a run, on a ${device}, ${colorScheme}: no violation`, async () => {
        const lab = await openPage(suite, 'lab.html', { viewport, colorScheme });
        assert.deepEqual(await audit(lab.page), { violations: [], unjudged: [] }, 'the lab');
        await lab.close();
        const train = await openPage(suite, `train.html${TRAIN_QUICK}`, { viewport, colorScheme });
        assert.deepEqual(await audit(train.page), { violations: [], unjudged: [] }, 'the Train page before training');
        assert.equal(await trainAndWait(train.page), 'finished');
        assert.deepEqual(await audit(train.page), { violations: [], unjudged: [] }, 'the Train page after training');
        if (viewport === PHONE) {
          // the run's card with its settings unfolded (a desktop's table shows them, with no button)
          await train.page.click('#runs-body .settings-toggle');
          assert.equal(await train.page.isVisible('#runs-body .run-settings'), true, 'the settings in sight');
          assert.deepEqual(await audit(train.page), { violations: [], unjudged: [] }, 'the run\'s settings unfolded');
        }
        await train.close();
      });
    }
  }

  test('on a phone, a fold\'s button is named by its words, without the arrow drawn beside them (▴ ▸ ▾)', async () => {
    for (const [path, button] of [['lab.html', '#settings-toggle'], ['', '.option-group-toggle'], ['train.html', '.option-group-toggle']]) {
      const { page, close } = await openPage(suite, path, { viewport: PHONE });
      const toggle = page.locator(button).first();
      for (const expanded of ['false', 'true']) {
        await page.waitForFunction(([selector, value]) => document.querySelector(selector).getAttribute('aria-expanded') === value,
          [button, expanded], { timeout: TIMEOUT_MS });
        const arrow = await toggle.evaluate((element) => getComputedStyle(element, '::after').content);
        assert.match(arrow, /[▴▸▾]/u, `${path || 'playground'}: an arrow is drawn`);
        const name = (await toggle.ariaSnapshot()).match(/button "(.*)"/u)[1];
        assert.doesNotMatch(name, /[▴▸▾]/u, `${path || 'playground'}, expanded ${expanded}: ${name}`);
        assert.ok(name.length > 10, name);
        if (expanded === 'false') await toggle.click();
      }
      await close();
    }
  });

  test('a table that scrolls sideways is a named region the keyboard reaches and scrolls; one that fits is not a stop', async () => {
    const { page, close } = await openPage(suite, '', { viewport: PHONE });
    await waitForRows(page, 6);
    const steps = page.locator(STEPS_BOX);
    await page.waitForFunction((box) => document.querySelector(box).tabIndex === 0, STEPS_BOX);
    assert.equal(await steps.getAttribute('role'), 'region');
    assert.equal(await steps.getAttribute('aria-label'), 'Step-by-step table');
    await steps.focus();
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction((box) => document.querySelector(box).scrollLeft > 0, STEPS_BOX);
    // the cost tables fit a phone: no stop, no region
    for (const table of ['#cost-table', '#kv-cache-table']) {
      const box = page.locator(`.table-scroll:has(${table})`);
      assert.equal(await box.getAttribute('tabindex'), null, table);
      assert.equal(await box.getAttribute('role'), null, table);
    }
    // on a desktop the steps table fits: the box keeps the focus the keyboard left on it, and
    // leaves the tab order once the focus moves on
    await page.setViewportSize(DESKTOP);
    await page.waitForFunction((box) => {
      const element = document.querySelector(box);
      return element.scrollWidth <= element.clientWidth + 1;
    }, STEPS_BOX);
    // ResizeObserver callbacks run before the next frame is painted: two frames and the check has run
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    assert.equal(await page.evaluate((box) => document.activeElement === document.querySelector(box), STEPS_BOX), true,
      'the focus stays on the box');
    assert.equal(await steps.getAttribute('tabindex'), '0');
    await page.keyboard.press('Shift+Tab');
    await page.waitForFunction((box) => !document.querySelector(box).hasAttribute('tabindex'), STEPS_BOX);
    assert.equal(await steps.getAttribute('role'), null);
    assert.equal(await steps.getAttribute('aria-label'), null);
    await close();
  });
});
