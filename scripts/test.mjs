// Runs every suite, after `node scripts/build.mjs native wasm web`:
//   native   Catch2 through ctest (build/native)
//   js       node:test suites of the engine's JavaScript API (tests/js)
//   browser  Playwright in Debian's Chromium against dist/ (tests/browser)
// Exits non-zero when any suite fails.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function testFiles(folder) {
  const dir = join(root, folder);
  if (!existsSync(dir)) return [];
  return readdirSync(dir).filter((f) => f.endsWith('.test.mjs')).sort().map((f) => join(folder, f));
}

const nodeTest = (files, ...flags) => [process.execPath, ['--test', '--test-reporter=spec', ...flags, ...files]];
const suites = [
  { name: 'native', run: ['ctest', ['--test-dir', 'build/native', '--output-on-failure']] },
  { name: 'js', files: testFiles('tests/js') },
  { name: 'browser', files: testFiles('tests/browser'), flags: ['--test-concurrency=1'] },
];

const failed = [];
for (const { name, run, files, flags = [] } of suites) {
  if (files && files.length === 0) throw new Error(`no *.test.mjs files in tests/${name}`);
  const [command, args] = run ?? nodeTest(files, ...flags);
  console.log(`\n=== ${name} tests ===`);
  const { status } = spawnSync(command, args, { stdio: 'inherit', cwd: root });
  if (status !== 0) failed.push(name);
}
console.log(failed.length === 0 ? '\nAll suites passed.' : `\nFailed suites: ${failed.join(', ')}`);
process.exit(failed.length === 0 ? 0 : 1);
