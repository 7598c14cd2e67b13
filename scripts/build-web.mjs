// Builds the static site into dist/:
//   - bundles each page entry found among web/main.js, web/worker.js, web/lab.js and
//     web/lab-worker.js into dist/<name>.js (ES modules; code they share goes into
//     dist/shared-<hash>.js; CSS an entry imports goes into dist/<name>.css); the
//     engine, dist/wasm/attention.mjs, stays a separate file the worker imports at run time;
//   - copies web/*.html and web/*.css;
//   - writes the GloVe asset to dist/embeddings/ (scripts/embeddings.mjs, cached in build/).
// Every URL stays relative, so dist/ works from any static host at any sub-path.
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { buildEmbeddings } from './embeddings.mjs';

const ENTRIES = ['main.js', 'worker.js', 'lab.js', 'lab-worker.js'];
const COPIED = /\.(html|css)$/;
const CHUNK_PREFIX = 'shared-';

export async function buildWeb({ root, dist }) {
  const web = join(root, 'web');
  mkdirSync(dist, { recursive: true });
  // chunks of an earlier build have other hashes: drop them
  for (const file of readdirSync(dist).filter((name) => name.startsWith(CHUNK_PREFIX))) rmSync(join(dist, file));
  const entryPoints = ENTRIES.filter((file) => existsSync(join(web, file))).map((file) => join(web, file));
  await build({
    entryPoints,
    outdir: dist,
    entryNames: '[name]',
    chunkNames: `${CHUNK_PREFIX}[hash]`,
    bundle: true,
    splitting: true,
    format: 'esm',
    target: 'es2022',
    minify: true,
    sourcemap: true,
    external: ['./wasm/attention.mjs'],
    logLevel: 'warning',
  });
  const copied = readdirSync(web).filter((file) => COPIED.test(file));
  for (const file of copied) copyFileSync(join(web, file), join(dist, file));
  console.log(`build: bundled ${entryPoints.map((file) => file.slice(web.length + 1)).join(', ')}; ` +
    `copied ${copied.join(', ')}`);
  await buildEmbeddings({ root, dist });
  console.log('build: page in dist/');
}
