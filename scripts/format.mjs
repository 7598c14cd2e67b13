// Formats every C++ source of core/, wasm/, tests/ and bench/ with clang-format 14 (Debian's
// clang-format package, which scripts/setup.mjs installs) and the committed .clang-format.
// Usage: node scripts/format.mjs            formats the files in place
//        node scripts/format.mjs --check    changes nothing; names each file clang-format would
//                                           change and exits 1 if there is one (npm test runs it)
import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const FOLDERS = ['core', 'wasm', 'tests', 'bench'];
const SOURCE = /\.(cpp|hpp|h)$/;
// Other versions lay some constructs out differently: the check would flag formatted files.
const VERSION = 14;
const COMMANDS = [`clang-format-${VERSION}`, 'clang-format'];

function clangFormat() {
  for (const command of COMMANDS) {
    const { stdout, error } = spawnSync(command, ['--version'], { encoding: 'utf8' });
    if (!error && new RegExp(`version ${VERSION}\\.`).test(stdout)) return command;
  }
  console.error(`format: clang-format ${VERSION} is missing (tried ${COMMANDS.join(', ')}); ` +
    'install it with `node scripts/setup.mjs --with-format` (Debian: apt-get install clang-format)');
  process.exit(1);
}

function sources() {
  return FOLDERS.flatMap((folder) => readdirSync(join(root, folder), { recursive: true })
    .filter((file) => SOURCE.test(file))
    .map((file) => join(folder, file)))
    .sort();
}

const command = clangFormat();
const files = sources();
if (process.argv.includes('--check')) {
  // --dry-run reports each place it would change as "file:line:col: error: …".
  const { status, stderr } = spawnSync(command, ['--dry-run', '--Werror', ...files],
    { cwd: root, encoding: 'utf8', maxBuffer: 1 << 26 });
  const unformatted = [...new Set(stderr.split('\n')
    .map((line) => line.match(/^(.+?):\d+:\d+: error: code should be clang-formatted/)?.[1])
    .filter(Boolean))];
  if (status !== 0 && unformatted.length === 0) {
    console.error(`${stderr}format: ${command} failed (exit status ${status})`);
    process.exit(1);
  }
  if (unformatted.length > 0) {
    console.error(`format: ${unformatted.length} of ${files.length} C++ files are not formatted as .clang-format says:\n` +
      unformatted.map((file) => `  ${file}`).join('\n') +
      '\nRun `npm run format` to format them, then commit.');
    process.exit(1);
  }
  console.log(`format: all ${files.length} C++ files are formatted (${command})`);
} else {
  execFileSync(command, ['-i', ...files], { cwd: root, stdio: 'inherit' });
  console.log(`format: ${command} -i on ${files.length} files`);
}
