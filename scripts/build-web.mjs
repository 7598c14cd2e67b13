// Builds the static site into dist/, from the pages listed in web/shared/page/pages.js:
//   - writes each page to dist/<its file name>: its HTML's <head> and <body> set into the
//     layout every page shares (web/shared/page/layout.html: the policy, the stylesheet, the
//     navigation, on which the page is marked current); copies the shared stylesheet;
//   - bundles each page's scripts (its entry and its engine worker) into dist/<name>.js (ES
//     modules; code they share goes into dist/shared-<hash>.js; CSS an entry imports goes
//     into dist/<name>.css); the engine, which the source imports by its source path
//     (wasm/attention.mjs, typed by wasm/attention.d.ts), stays a separate file the workers
//     import at run time from dist/wasm/attention.mjs;
//   - writes the GloVe asset to dist/embeddings/ (scripts/embeddings.mjs, cached in build/).
// Every URL stays relative, so dist/ works from any static host at any sub-path.
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { build } from 'esbuild';
import { PAGES } from '../web/shared/page/pages.js';
import { buildEmbeddings } from './embeddings.mjs';

const LAYOUT = 'shared/page/layout.html';
const STYLESHEET = 'shared/page/style.css';
const SLOT = /\{\{(\w+)\}\}/g;
const NAVIGATION_INDENT = ' '.repeat(8);  // the layout's <ul> items
const CHUNK_PREFIX = 'shared-';
// The engine as the bundles import it at run time: beside them in dist/.
const ENGINE_IN_DIST = './wasm/attention.mjs';

// Resolves the source's import of wasm/attention.mjs to the engine in dist/, left unbundled.
const engineAtRunTime = {
  name: 'engine-at-run-time',
  setup(build) {
    build.onResolve({ filter: /\/wasm\/attention\.mjs$/ }, () => ({ path: ENGINE_IN_DIST, external: true }));
  },
};

const fileOf = (page) => basename(page.source);
const hrefOf = (page) => (fileOf(page) === 'index.html' ? './' : fileOf(page));
const escapeHtml = (text) => text.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

// What a page's HTML holds between <tag> and </tag>, without the line breaks around it.
function section(html, tag, source) {
  const match = html.match(new RegExp(`<${tag}>\\n?([\\s\\S]*?)\\n?</${tag}>`));
  if (!match) throw new Error(`${source} has no <${tag}>…</${tag}> for the layout`);
  return match[1];
}

// A page's link text in the navigation: its link, or, when it has a short one, both, of which
// the stylesheet shows one (the short on narrow screens), so that the link's name is the text it shows.
const linkText = (page) => (page.shortLink === undefined ? escapeHtml(page.link)
  : `<span class="link-long">${escapeHtml(page.link)}</span><span class="link-short">${escapeHtml(page.shortLink)}</span>`);

/**
 * The page `page` of `pages` as dist/ holds it: `layout` with its slots {{head}}, {{body}}
 * and {{navigation}} filled from `html`, the page's own HTML.
 */
export function renderPage(layout, page, html, pages = PAGES) {
  const navigation = pages.map((other) => `${NAVIGATION_INDENT}<li><a href="${hrefOf(other)}"` +
    `${other === page ? ' aria-current="page"' : ''}>${linkText(other)}</a></li>`).join('\n');
  const slots = { head: section(html, 'head', page.source), body: section(html, 'body', page.source), navigation };
  return layout.replace(SLOT, (slot, name) => {
    if (!(name in slots)) throw new Error(`${LAYOUT} has an unknown slot ${slot}`);
    return slots[name];
  });
}

/**
 * The dist/ file names of the pages and their scripts, which sit side by side there; a name
 * twice (two pages' worker.js) would overwrite a file, and is refused.
 */
export function distFiles(pages = PAGES) {
  const files = pages.flatMap((page) => [page.source, ...page.scripts]).map((file) => basename(file));
  const repeated = [...new Set(files.filter((file, k) => files.indexOf(file) !== k))];
  if (repeated.length > 0) {
    throw new Error(`web/shared/page/pages.js: ${repeated.join(', ')} would be written twice to dist/; ` +
      'give the pages and their scripts names of their own');
  }
  return files;
}

/** Every page of web/ as dist/ holds it: [{file, html}]. */
export function renderPages(web) {
  const layout = readFileSync(join(web, LAYOUT), 'utf8');
  return PAGES.map((page) => ({ file: fileOf(page), html: renderPage(layout, page, readFileSync(join(web, page.source), 'utf8')) }));
}

export async function buildWeb({ root, dist }) {
  const web = join(root, 'web');
  distFiles();
  mkdirSync(dist, { recursive: true });
  // chunks of an earlier build have other hashes: drop them
  for (const file of readdirSync(dist).filter((name) => name.startsWith(CHUNK_PREFIX))) rmSync(join(dist, file));
  const scripts = PAGES.flatMap((page) => page.scripts);
  await build({
    entryPoints: Object.fromEntries(scripts.map((file) => [basename(file, '.js'), join(web, file)])),
    outdir: dist,
    entryNames: '[name]',
    chunkNames: `${CHUNK_PREFIX}[hash]`,
    bundle: true,
    splitting: true,
    format: 'esm',
    target: 'es2022',
    minify: true,
    sourcemap: true,
    plugins: [engineAtRunTime],
    logLevel: 'warning',
  });
  const pages = renderPages(web);
  for (const { file, html } of pages) writeFileSync(join(dist, file), html);
  copyFileSync(join(web, STYLESHEET), join(dist, basename(STYLESHEET)));
  console.log(`build: bundled ${scripts.join(', ')}; pages ${pages.map(({ file }) => file).join(', ')} ` +
    `in the layout of ${LAYOUT}; copied ${STYLESHEET}`);
  await buildEmbeddings({ root, dist });
  console.log('build: page in dist/');
}
