// The pages as the build makes them (scripts/build-web.mjs): each page's own HTML in the
// layout every page shares (web/shared/page/layout.html), with the navigation from
// web/shared/page/pages.js; the pages keep the file names old links point at; the playground's HTML
// names no class that nothing styles or uses.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { distFiles, renderPage, renderPages } from '../../scripts/build-web.mjs';
import { PAGES } from '../../web/shared/page/pages.js';

const web = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'web');
const count = (text, pattern) => (text.match(pattern) ?? []).length;
// The navigation's links of a page: [{href, current, text, short}], short the text narrow
// screens show instead (undefined for a link that has none).
const TEXTS = /^<span class="link-long">([^<]*)<\/span><span class="link-short">([^<]*)<\/span>$/;
const links = (html) => [...html.match(/<nav\b[\s\S]*?<\/nav>/)[0].matchAll(/<a href="([^"]*)"( aria-current="page")?>(.*?)<\/a>/g)]
  .map(([, href, current, inner]) => {
    const [, text, short] = inner.match(TEXTS) ?? [inner, inner, undefined];
    return { href, current: Boolean(current), text, short };
  });

describe('the pages of web/', () => {
  const pages = renderPages(web);

  test('keep the file names links point at: index.html, lab.html and train.html', () => {
    assert.deepEqual(pages.map(({ file }) => file), ['index.html', 'lab.html', 'train.html']);
  });

  for (const [k, { file, html }] of pages.entries()) {
    test(`${file}: one document with the shared head, its own title and script, and no slot left`, () => {
      assert.equal(count(html, /<!doctype html>/gi), 1);
      assert.equal(count(html, /<head>/g), 1);
      assert.equal(count(html, /<body>/g), 1);
      assert.equal(count(html, /<title>[^<]+<\/title>/g), 1);
      assert.equal(count(html, /http-equiv="Content-Security-Policy"/g), 1);
      assert.equal(count(html, /<link rel="stylesheet" href="style\.css">/g), 1);
      assert.equal(count(html, /\{\{|\}\}/g), 0);
      assert.ok(html.includes(`<script type="module" src="${PAGES[k].scripts[0].split('/').pop()}"></script>`));
      assert.ok(html.indexOf('</head>') < html.indexOf('<header class="site-header">'));
      assert.ok(html.indexOf('</header>') < html.indexOf('<main'));
    });

    test(`${file}: the navigation lists every page in order, with its short text if it has one, and marks this one current`, () => {
      assert.deepEqual(links(html), PAGES.map((page, p) => ({
        href: page.source.endsWith('/index.html') ? './' : page.source.split('/').pop(),
        current: p === k,
        text: page.link,
        short: page.shortLink,
      })));
    });
  }
});

describe('the layout', () => {
  const layout = '<html><head>\n{{head}}\n</head><body><nav><ul>\n{{navigation}}\n</ul></nav>\n{{body}}\n</body></html>';
  const source = '<head>\n  <title>T</title>\n</head>\n<body>\n  <main>M</main>\n</body>\n';

  test('another page is one more entry in the list: its link comes last, marked current on its page', () => {
    const another = { source: 'notes/notes.html', link: 'Notes & tests', shortLink: 'N&T', scripts: ['notes/notes.js'] };
    const html = renderPage(layout, another, source, [...PAGES, another]);
    assert.deepEqual(links(html).at(-1), { href: 'notes.html', current: true, text: 'Notes &#38; tests', short: 'N&#38;T' });
    assert.equal(links(html).filter((link) => link.current).length, 1);
    assert.ok(html.includes('<head>\n  <title>T</title>\n</head>'));
    assert.ok(html.includes('<main>M</main>'));
  });

  test('pages and scripts land side by side in dist/: a name twice is refused', () => {
    assert.deepEqual(distFiles(), ['index.html', 'main.js', 'worker.js', 'lab.html', 'lab.js', 'lab-worker.js',
      'train.html', 'train.js', 'train-worker.js']);
    const another = { source: 'notes/notes.html', link: 'Notes', scripts: ['notes/notes.js', 'notes/worker.js'] };
    assert.throws(() => distFiles([...PAGES, another]), /worker\.js would be written twice to dist\//);
  });

  test('a page without a head or a body, or a layout slot of no known name, is refused with its name', () => {
    const page = PAGES[0];
    assert.throws(() => renderPage(layout, page, '<body></body>'), new RegExp(`${page.source} has no <head>`));
    assert.throws(() => renderPage(layout, page, '<head></head>'), new RegExp(`${page.source} has no <body>`));
    assert.throws(() => renderPage(`${layout}{{footer}}`, page, source), /unknown slot \{\{footer\}\}/);
  });
});

describe('the pages\' HTML', () => {
  // every file under `folder` whose name ends with `extension`, its text
  const texts = (folder, extension) => readdirSync(folder, { recursive: true })
    .filter((name) => name.endsWith(extension)).map((name) => readFileSync(join(folder, name), 'utf8'));
  // a name inside a string literal of a script ('…', "…" or `…`), not in a comment or an identifier
  const inString = (name) => new RegExp(`(['"\`])[^'"\`\n]*(?<![\\w-])${name}(?![\\w-])[^'"\`\n]*\\1`);

  for (const [folder, file] of [['playground', 'index.html'], ['lab', 'lab.html'], ['train', 'train.html']]) {
    test(`${file} names no class that neither a stylesheet styles nor a script's string names`, () => {
      const html = readFileSync(join(web, folder, file), 'utf8');
      const classes = new Set([...html.matchAll(/class="([^"]*)"/g)].flatMap(([, names]) => names.split(/\s+/)));
      const styles = [...texts(join(web, 'shared'), '.css'), ...texts(join(web, folder), '.css')].join('\n');
      const scripts = [...texts(join(web, 'shared'), '.js'), ...texts(join(web, folder), '.js')].join('\n');
      const styled = (name) => new RegExp(`\\.${name}(?![\\w-])`).test(styles);
      const unused = [...classes].filter((name) => !styled(name) && !inString(name).test(scripts));
      assert.deepEqual(unused, []);
    });
  }

  test('a class named only in a comment or an identifier counts as unused', () => {
    assert.equal(inString('legend').test('// the legend\nconst legend = 1;'), false);
    assert.equal(inString('legend').test("item.className = 'swatch legend';"), true);
    assert.equal(inString('field-fix').test('const fix = `.field-fix`;'), true);
    assert.equal(inString('fix').test("'field-fix'"), false);
  });
});
