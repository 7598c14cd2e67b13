// Builds the static page into dist/: bundles web/main.js (the engine module under
// dist/wasm/ stays a separate file that the page imports at run time) and copies the
// HTML and CSS.
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

export async function buildWeb({ root, dist }) {
  mkdirSync(dist, { recursive: true });
  await build({
    entryPoints: [join(root, 'web/main.js')],
    outfile: join(dist, 'app.js'),
    bundle: true,
    format: 'esm',
    target: 'es2022',
    minify: true,
    sourcemap: true,
    external: ['./wasm/attention.mjs'],
    logLevel: 'warning',
  });
  for (const file of ['index.html', 'style.css']) copyFileSync(join(root, 'web', file), join(dist, file));
  console.log('build: page in dist/');
}
