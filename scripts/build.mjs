// Builds the parts named on the command line, in order:
//   native  build/native: the core, the Catch2 suite and the native benchmark (g++)
//   wasm    build/wasm: the Embind module (em++), copied with its JS API to dist/wasm/
//   web     dist/: the static page (scripts/build-web.mjs)
// Usage: node scripts/build.mjs native wasm web
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildWeb } from './build-web.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');

function run(command, args) {
  console.log(`build: ${command} ${args.join(' ')}`);
  execFileSync(command, args, { stdio: 'inherit', cwd: root });
}

// Configures once (CMake re-configures by itself when a CMakeLists.txt changes), then builds.
function cmakeBuild(buildDir, configure) {
  if (!existsSync(join(root, buildDir, 'build.ninja'))) configure();
  run('cmake', ['--build', buildDir]);
}

const steps = {
  native() {
    cmakeBuild('build/native', () =>
      run('cmake', ['-S', '.', '-B', 'build/native', '-G', 'Ninja', '-DCMAKE_BUILD_TYPE=Release']));
  },
  wasm() {
    // Emscripten's own node emulator flag (--experimental-wasm-threads) breaks Node 20.
    cmakeBuild('build/wasm', () =>
      run('emcmake', ['cmake', '-S', '.', '-B', 'build/wasm', '-G', 'Ninja', '-DCMAKE_BUILD_TYPE=Release',
        `-DCMAKE_CROSSCOMPILING_EMULATOR=${process.execPath}`]));
    const out = join(dist, 'wasm');
    mkdirSync(out, { recursive: true });
    for (const file of ['attention_core.mjs', 'attention_core.wasm']) {
      copyFileSync(join(root, 'build/wasm/wasm', file), join(out, file));
    }
    for (const file of ['attention.mjs', 'arguments.mjs', 'attention.d.ts']) {
      copyFileSync(join(root, 'wasm', file), join(out, file));
    }
    console.log(`build: engine in ${join('dist', 'wasm')}`);
  },
  async web() {
    await buildWeb({ root, dist });
  },
};

const requested = process.argv.slice(2);
for (const name of requested) {
  if (!steps[name]) {
    console.error(`build: unknown step '${name}'; steps are ${Object.keys(steps).join(', ')}`);
    process.exit(1);
  }
}
for (const name of requested) await steps[name]();
