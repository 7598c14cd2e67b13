// The header every page shares (web/shared/page/layout.html) and the engine's status line under
// it: on a phone, two short rows (the title, then every link in one row, the lab's by its short
// text, each a target big enough to tap) and the status line in two lines at most, so that the
// first panel starts near the top of the screen; on a desktop, one row with the links' full texts.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DESKTOP, PHONE, openPage, startSuite } from './helpers.mjs';

const PAGES = ['', 'lab.html', 'train.html'];
const MIN_TARGET_PX = 24;          // WCAG 2.5.8's smallest target, a side
const PHONE_TAP_HEIGHT_PX = 44;    // how tall a link takes taps on a phone (WCAG 2.5.5)
const PHONE_STATUS_END_PX = 114;   // measured: the status line ends at 110 px (190 before the compact header)
const PHONE_FIRST_PANEL_PX = 126;  // measured: the first panel starts at 122 px (184 to 203 before)
const DESKTOP_LINKS_END_PX = 40;   // the last link ends this close to the page's right edge at most
const ONE_LINE_PX = 20;            // the desktop's status line, one line of 0.85rem text
// Widths at which the sides are checked: phones wide and narrow, the header's two rows at 600 px,
// one column at 850 px, and a desktop.
const SIDE_WIDTHS = [320, 430, 560, 600, 850, 1400];
const PHONE_MAX_WIDTH = 560;       // style.css's phone query: the title over the links

let suite;
before(async () => { suite = await startSuite(); });
after(async () => { await suite?.close(); });

// The header's boxes once the engine is ready (the status line's final text): the links' visible
// texts and boxes, the title's, the status line's, the top of the highest panel, the page's width.
function measure(page) {
  return page.evaluate(() => {
    const box = (element) => element.getBoundingClientRect().toJSON();
    return {
      links: [...document.querySelectorAll('.site-header nav a')].map((link) => ({ text: link.innerText, ...box(link) })),
      brand: box(document.querySelector('.brand')),
      status: box(document.getElementById('engine-status')),
      firstPanel: Math.min(...[...document.querySelectorAll('main .panel')].map((panel) => panel.getBoundingClientRect().top)),
      scrollWidth: document.documentElement.scrollWidth,
    };
  });
}

// The link under the point (x, y) of the viewport: its visible text, or null.
const linkAt = (page, x, y) => page.evaluate(([x, y]) => document.elementFromPoint(x, y)?.closest('a')?.innerText ?? null, [x, y]);

describe('the shared header', () => {
  for (const path of PAGES) {
    const name = path || 'index.html';

    test(`${name} on a phone: the links in one row of tap targets, the first panel ${PHONE_FIRST_PANEL_PX} px from the top at most`, async () => {
      const { page, close } = await openPage(suite, path, { viewport: PHONE });
      const { links, brand, status, firstPanel, scrollWidth } = await measure(page);
      assert.deepEqual(links.map((link) => link.text), ['Playground', 'Lab', 'Train']);
      // the name a screen reader gives is the text shown (axe's label-in-name)
      const navigation = page.getByRole('navigation', { name: 'Pages' });
      assert.equal(await navigation.getByRole('link', { name: 'Lab', exact: true }).count(), 1);
      assert.deepEqual(links.map((link) => link.y), links.map(() => links[0].y), 'the links share one row');
      assert.ok(links[0].y >= brand.y + brand.height, 'under the title');
      for (const link of links) {
        assert.ok(link.width >= MIN_TARGET_PX && link.height >= MIN_TARGET_PX, `${link.text}: ${link.width} × ${link.height} px`);
        assert.ok(link.x >= 0 && link.x + link.width <= PHONE.width, `${link.text} from ${link.x} to ${link.x + link.width} px`);
        // taps land on the link 44 px tall, centred on it, and the title keeps its own
        const centre = link.x + link.width / 2;
        const slack = (PHONE_TAP_HEIGHT_PX - link.height) / 2;
        assert.equal(await linkAt(page, centre, link.y - slack + 1), link.text, `${link.text}: a tap just above it`);
        assert.equal(await linkAt(page, centre, link.y + link.height + slack - 1), link.text, `${link.text}: a tap just under it`);
      }
      assert.equal(await linkAt(page, brand.x + brand.width / 2, brand.y + brand.height - 1), 'Attention Playground');
      assert.ok(brand.height >= MIN_TARGET_PX, `the title's link ${brand.height} px tall`);
      assert.match(await page.textContent('#engine-status'), /^Engine \S+ ready: WebAssembly/);
      assert.ok(status.y + status.height <= PHONE_STATUS_END_PX, `the status line ends at ${status.y + status.height} px`);
      assert.ok(firstPanel <= PHONE_FIRST_PANEL_PX, `the first panel starts at ${firstPanel} px`);
      assert.ok(scrollWidth <= PHONE.width, `the page is ${scrollWidth} px wide`);
      await close();
    });

    test(`${name} on a desktop: the title and the links' full texts in one row`, async () => {
      const { page, close } = await openPage(suite, path, { viewport: DESKTOP });
      const { links, brand, status } = await measure(page);
      assert.deepEqual(links.map((link) => link.text), ['Playground', 'Lost in the middle lab', 'Train']);
      const navigation = page.getByRole('navigation', { name: 'Pages' });
      assert.equal(await navigation.getByRole('link', { name: 'Lost in the middle lab', exact: true }).count(), 1);
      for (const link of links) {
        assert.ok(Math.abs(link.y + link.height / 2 - (brand.y + brand.height / 2)) <= 1, `${link.text} beside the title`);
      }
      assert.ok(links.at(-1).x + links.at(-1).width > DESKTOP.width - DESKTOP_LINKS_END_PX, 'the links at the right');
      assert.ok(status.height <= ONE_LINE_PX, `the status line one line: ${status.height} px`);
      await close();
    });

    test(`${name} at ${SIDE_WIDTHS.join(', ')} px: the title, the status line and the panels share their left edge; on a phone the title is over the links`, async () => {
      const { page, close } = await openPage(suite, path, { viewport: PHONE });
      for (const width of SIDE_WIDTHS) {
        await page.setViewportSize({ width, height: PHONE.height });
        const { links, brand, status, scrollWidth } = await measure(page);
        const panel = await page.$eval('main .panel', (element) => element.getBoundingClientRect().x);
        assert.deepEqual([Math.round(brand.x), Math.round(status.x)], [Math.round(panel), Math.round(panel)], `${width} px: title, status line, panel`);
        if (width <= PHONE_MAX_WIDTH) assert.ok(links[0].y >= brand.y + brand.height, `${width} px: the links under the title`);
        assert.ok(scrollWidth <= width, `${width} px: the page is ${scrollWidth} px wide`);
      }
      await close();
    });
  }
});
