// Builds the static site into dist/:
//   - bundles each page's entry and engine worker (web/playground/, web/lab/) into
//     dist/<name>.js (ES modules; code they share goes into dist/shared-<hash>.js; CSS an
//     entry imports goes into dist/<name>.css); the engine, which the source imports by its
//     source path (wasm/attention.mjs, typed by wasm/attention.d.ts), stays a separate file
//     the workers import at run time from dist/wasm/attention.mjs;
//   - copies each page's HTML and the shared stylesheet (web/shared/page/style.css);
//   - writes the GloVe asset to dist/embeddings/ (scripts/embeddings.mjs, cached in build/).
// Every URL stays relative, so dist/ works from any static host at any sub-path.
import { copyFileSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { build } from 'esbuild';
import { buildEmbeddings } from './embeddings.mjs';

// Bundled files: web/<path> → dist/<its file name>.
const ENTRIES = ['playground/main.js', 'playground/worker.js', 'lab/lab.js', 'lab/lab-worker.js'];
const COPIED = ['playground/index.html', 'lab/lab.html', 'shared/page/style.css'];
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

export async function buildWeb({ root, dist }) {
  const web = join(root, 'web');
  mkdirSync(dist, { recursive: true });
  // chunks of an earlier build have other hashes: drop them
  for (const file of readdirSync(dist).filter((name) => name.startsWith(CHUNK_PREFIX))) rmSync(join(dist, file));
  await build({
    entryPoints: Object.fromEntries(ENTRIES.map((file) => [basename(file, '.js'), join(web, file)])),
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
  for (const file of COPIED) copyFileSync(join(web, file), join(dist, basename(file)));
  console.log(`build: bundled ${ENTRIES.join(', ')}; copied ${COPIED.join(', ')}`);
  await buildEmbeddings({ root, dist });
  console.log('build: page in dist/');
}
