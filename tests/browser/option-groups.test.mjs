// The playground's option groups (web/playground/option-groups.js) in Chromium: on a phone each
// group folds to a button naming its settings, every heading within a screen below the matrix,
// opened and folded by pointer and keyboard, its line following its controls; a problem opens
// its group; on a desktop every group is open and no button shows.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DESKTOP, PHONE, TIMEOUT_MS, afterRedraw, groupExpanded as expanded, openPage, startSuite, waitForHash, waitForRows } from './helpers.mjs';

const HEATMAP = '[data-testid="attention-heatmap"]';
const TOOLTIP = '[data-testid="heatmap-tooltip"]';
const GROUPS = {
  weights: { title: 'Trainable weights', controls: ['#trainable', '#torch-seed', '#d-out'] },
  heads: { title: 'Heads', controls: ['#heads', '#kv-heads', '#head-view'] },
  mask: { title: 'Mask and position', controls: ['#causal', '#window', '#sinks', '#positional'] },
  scores: { title: 'Scores and weights', controls: ['#scaling', '#normalization'] },
};
const TOKENS = 6;  // of the default sentence, "Your journey starts with one step"

let suite;
before(async () => { suite = await startSuite(); });
after(async () => { await suite?.close(); });

const toggle = (name) => `#${name}-group-toggle`;
const summary = (page, name) => page.textContent(`#${name}-group-summary`);

// The selected query's row read with the keyboard, its last key's tooltip: {weight, text}.
async function lastKeyOfRow(page) {
  await page.focus(HEATMAP);
  for (let j = 1; j < TOKENS; ++j) await page.keyboard.press('ArrowRight');
  return page.evaluate((selector) => {
    const tooltip = document.querySelector(selector);
    return { key: tooltip.dataset.key, weight: Number(tooltip.dataset.weight), text: tooltip.textContent };
  }, TOOLTIP);
}

describe('option groups', () => {
  test('on a phone every group is folded to its heading and settings, each heading within a screen below the matrix', async () => {
    // long settings: each summary stays one line, so the headings keep their height
    for (const hash of ['', '#tw=linear&ts=7&do=16&h=8&kv=2&hv=3&c=1&w=3&sk=1&pe=rope&rb=500000&rp=half&sc=0&nm=naive-softmax']) {
      const { page, close } = await openPage(suite, hash, { viewport: PHONE });
      await waitForRows(page, TOKENS);
      const boxes = await page.evaluate((names) => {
        const bottom = (element) => element.getBoundingClientRect().bottom + scrollY;
        const line = (element) => parseFloat(getComputedStyle(element).lineHeight);
        return {
          matrix: bottom(document.querySelector('[data-testid="attention-heatmap"]')),
          groups: names.map((name) => {
            const summaryLine = document.getElementById(`${name}-group-summary`);
            return { name, bottom: bottom(document.getElementById(`${name}-group-toggle`)),
              summaryHeight: summaryLine.getBoundingClientRect().height, summaryLine: line(summaryLine) };
          }),
        };
      }, Object.keys(GROUPS));
      for (const { name, bottom, summaryHeight, summaryLine } of boxes.groups) {
        assert.equal(await expanded(page, name), 'false', `${hash}: ${name} folded`);
        const below = bottom - boxes.matrix;
        assert.ok(below > 0 && below <= PHONE.height, `${hash}: ${name}'s heading ends ${below} px below the matrix`);
        assert.ok(Math.abs(summaryHeight - summaryLine) < 1, `${hash}: ${name}'s summary is one line: ${summaryHeight} px`);
        for (const control of GROUPS[name].controls) assert.equal(await page.isVisible(control), false, `${hash}: ${control} folded away`);
      }
      await close();
    }
  });

  test('on a phone the summaries name each group\'s settings, and the fieldsets keep their names', async () => {
    const { page, close } = await openPage(suite, '', { viewport: PHONE });
    await waitForRows(page, TOKENS);
    const texts = {};
    for (const name of Object.keys(GROUPS)) texts[name] = await summary(page, name);
    assert.deepEqual(texts, {
      weights: 'none: q, k, v are the vectors',
      heads: '1 head',
      mask: 'no mask · no positional encoding',
      scores: 'scaled by 1/√d · softmax',
    });
    for (const [name, { title }] of Object.entries(GROUPS)) {
      assert.equal(await page.getByRole('button', { name: `${title} ${texts[name]}`, exact: true }).count(), 1, `${name}'s button`);
      assert.equal(await page.getByRole('group', { name: title, exact: true }).count(), 1, `${name}'s fieldset`);
    }
    await close();
  });

  test('on a phone an opened group shows its controls; causal changes its line and the matrix, and the group stays open', async () => {
    const { page, close } = await openPage(suite, '', { viewport: PHONE });
    await waitForRows(page, TOKENS);
    const unmasked = await lastKeyOfRow(page);
    assert.ok(unmasked.weight > 0, `the last key's weight before the mask: ${unmasked.weight}`);
    await page.click(toggle('mask'));
    assert.equal(await expanded(page, 'mask'), 'true');
    for (const control of GROUPS.mask.controls) assert.equal(await page.isVisible(control), true, `${control} in sight`);
    assert.equal(await page.isVisible('#trainable'), false, 'the other groups stay folded');
    // the line follows the click at once, before the matrix is computed again
    let line;
    await afterRedraw(page, async () => {
      line = await page.evaluate(() => {
        document.getElementById('causal').click();
        return document.getElementById('mask-group-summary').textContent;
      });
    });
    assert.equal(line, 'causal · no positional encoding');
    assert.equal(await page.isChecked('#causal'), true);
    await waitForHash(page, 'c=1');
    const masked = await lastKeyOfRow(page);
    assert.deepEqual([masked.key, masked.weight, masked.text.endsWith('masked: score -Infinity, weight 0')], [String(TOKENS - 1), 0, true],
      `the matrix computed again, causal: ${masked.text}`);
    // a window typed in: the line says so (written at the change; read here after the recompute)
    await afterRedraw(page, () => page.fill('#window', '8'));
    assert.equal(await summary(page, 'mask'), 'causal · window 8 · no positional encoding');
    // opening another group leaves this one open
    await page.click(toggle('scores'));
    assert.deepEqual([await expanded(page, 'mask'), await expanded(page, 'scores')], ['true', 'true']);
    assert.equal(await page.isVisible('#causal'), true);
    await close();
  });

  test('on a phone the groups open and fold with Enter and Space, and a folded group\'s controls are out of the tab order', async () => {
    const { page, close } = await openPage(suite, '', { viewport: PHONE });
    await waitForRows(page, TOKENS);
    await page.focus(toggle('mask'));
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement.id), 'scores-group-toggle', 'folded: Tab skips its controls');
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Enter');
    assert.equal(await expanded(page, 'mask'), 'true');
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement.id), 'causal', 'open: Tab reaches its first control');
    await afterRedraw(page, () => page.keyboard.press('Space'));
    assert.equal(await page.isChecked('#causal'), true);
    assert.equal(await summary(page, 'mask'), 'causal · no positional encoding');
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Space');
    assert.equal(await expanded(page, 'mask'), 'false');
    assert.equal(await page.isVisible('#causal'), false);
    assert.equal(await page.evaluate(() => document.activeElement.id), 'mask-group-toggle', 'the focus stays on the button');
    await close();
  });

  test('on a phone a problem opens its group, which the user can fold again', async () => {
    // 3 heads do not split GloVe's 100 dimensions
    const { page, close } = await openPage(suite, '#h=3', { viewport: PHONE });
    await page.locator('[data-testid="heads-message"]').waitFor({ state: 'visible', timeout: TIMEOUT_MS });
    assert.equal(await expanded(page, 'heads'), 'true');
    assert.equal(await expanded(page, 'weights'), 'false', 'a group without a problem stays folded');
    await page.click(toggle('heads'));
    assert.equal(await expanded(page, 'heads'), 'false');
    // the same problem, the page's controls shown again: the group stays as the user left it
    await page.evaluate(() => { location.hash = '#h=3&c=1'; });
    await page.waitForFunction(() => document.getElementById('mask-group-summary').textContent.startsWith('causal'));
    assert.equal(await expanded(page, 'heads'), 'false');
    await close();
  });

  test('on a desktop every group is open and no button shows, whatever a phone left folded', async () => {
    const { page, close } = await openPage(suite, '', { viewport: PHONE });
    await waitForRows(page, TOKENS);
    await page.click(toggle('heads'));
    await page.click(toggle('heads'));  // opened and folded again
    await page.setViewportSize(DESKTOP);
    for (const [name, { title, controls }] of Object.entries(GROUPS)) {
      assert.equal(await page.isVisible(toggle(name)), false, `${name}'s button hidden`);
      assert.equal(await page.isVisible(`#${name}-group-title`), true);
      assert.equal(await page.textContent(`#${name}-group-title`), title);
      for (const control of controls) assert.equal(await page.isVisible(control), true, `${control} in sight`);
    }
    await close();
  });
});
