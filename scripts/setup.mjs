// Installs what the build needs and is missing: Debian packages through apt-get (as
// root; otherwise prints the exact command and stops), then npm packages from the
// lockfile. Usage: node scripts/setup.mjs [--with-browser] [--with-format]
// --with-browser (what `npm test` passes) adds the packages only the test suites need:
// Chromium for the browser suite, Clang 14 with its sanitizer and libFuzzer runtimes for the
// sanitize and fuzz suites, llvm-symbolizer for readable sanitizer reports, and clang-format
// for the format check. --with-format (what `npm run format` passes) adds clang-format alone.
import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

// Each Debian package with a file that shows it is installed.
const SYSTEM_PACKAGES = [
  { name: 'cmake', file: '/usr/bin/cmake' },
  { name: 'ninja-build', file: '/usr/bin/ninja' },
  { name: 'g++', file: '/usr/bin/g++' },
  { name: 'emscripten', file: '/usr/bin/em++' },
  { name: 'libxtensor-dev', file: '/usr/include/xtensor/xtensor.hpp' },
  { name: 'catch2', file: '/usr/include/catch2/catch.hpp' },
  { name: 'nlohmann-json3-dev', file: '/usr/include/nlohmann/json.hpp' },
];
const TEST_PACKAGES = [
  { name: 'chromium', file: '/usr/bin/chromium' },
  { name: 'clang-14', file: '/usr/bin/clang++-14' },
  { name: 'libclang-rt-14-dev', file: '/usr/lib/llvm-14/lib/clang/14.0.6/lib/linux/libclang_rt.fuzzer-x86_64.a' },
  { name: 'llvm-14', file: '/usr/bin/llvm-symbolizer-14' },
];
const FORMAT_PACKAGES = [
  { name: 'clang-format', file: '/usr/bin/clang-format' },
];

function run(command, args, options = {}) {
  console.log(`setup: ${command} ${args.join(' ')}`);
  execFileSync(command, args, { stdio: 'inherit', cwd: root, ...options });
}

function installSystemPackages(wanted) {
  const missing = wanted.filter((pkg) => !existsSync(pkg.file)).map((pkg) => pkg.name);
  if (missing.length === 0) return;
  const install = ['install', '-y', '--no-install-recommends', ...missing];
  if (process.getuid?.() !== 0) {
    console.error(`setup: missing Debian packages: ${missing.join(' ')}\nRun as root:\n` +
      `  apt-get update && apt-get install ${install.slice(1).join(' ')}`);
    process.exit(1);
  }
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  run('apt-get', ['update', '-qq'], { env });
  run('apt-get', ['-qq', ...install], { env });
}

function installNpmPackages() {
  const lockfile = join(root, 'package-lock.json');
  const installed = join(root, 'node_modules', '.package-lock.json');
  if (existsSync(installed) && statSync(installed).mtimeMs >= statSync(lockfile).mtimeMs) return;
  run('npm', ['ci', '--no-audit', '--no-fund']);
}

const withTests = process.argv.includes('--with-browser');
const withFormat = withTests || process.argv.includes('--with-format');
installSystemPackages([...SYSTEM_PACKAGES, ...(withTests ? TEST_PACKAGES : []), ...(withFormat ? FORMAT_PACKAGES : [])]);
installNpmPackages();
console.log('setup: every dependency is installed');
