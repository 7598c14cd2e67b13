// Builds the parts named on the command line, in order:
//   native    build/native: the core, the Catch2 suite and the native benchmark (g++)
//   sanitize  build/sanitize: the core and the Catch2 suite under AddressSanitizer and
//             UndefinedBehaviorSanitizer (Debian's clang-14; CMake option ATTN_SANITIZE)
//   fuzz      build/sanitize: the libFuzzer targets of tests/fuzz (ATTN_FUZZ), same flags
//   wasm      build/wasm: the Embind module (em++) in its SIMD128 and relaxed-SIMD builds,
//             copied with its JS API to dist/wasm/
//   web       dist/: the static page (scripts/build-web.mjs)
// Usage: node scripts/build.mjs native sanitize fuzz wasm web
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { standardizeRelaxedSimd } from './relaxed-simd.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');

function run(command, args) {
  console.log(`build: ${command} ${args.join(' ')}`);
  execFileSync(command, args, { stdio: 'inherit', cwd: root });
}

// Configures once (CMake re-configures by itself when a CMakeLists.txt changes), then builds
// the given targets (all when none are named).
function cmakeBuild(buildDir, configure, targets = []) {
  if (!existsSync(join(root, buildDir, 'build.ninja'))) configure();
  run('cmake', ['--build', buildDir, ...(targets.length > 0 ? ['--target', ...targets] : [])]);
}

// The hardening build: one clang-14 build folder for the sanitized Catch2 suite and the
// fuzz targets, so that the instrumented core is compiled once for both. RelWithDebInfo:
// optimised enough to keep the suite fast, with line numbers in every report.
function sanitizeBuild(targets) {
  cmakeBuild('build/sanitize', () =>
    run('cmake', ['-S', '.', '-B', 'build/sanitize', '-G', 'Ninja', '-DCMAKE_BUILD_TYPE=RelWithDebInfo',
      '-DCMAKE_CXX_COMPILER=clang++-14', '-DATTN_SANITIZE=ON', '-DATTN_FUZZ=ON']), targets);
}

const steps = {
  native() {
    cmakeBuild('build/native', () =>
      run('cmake', ['-S', '.', '-B', 'build/native', '-G', 'Ninja', '-DCMAKE_BUILD_TYPE=Release']));
  },
  sanitize() {
    sanitizeBuild(['attn_tests']);
  },
  fuzz() {
    sanitizeBuild(['fuzz_attention', 'fuzz_text', 'fuzz_train']);
  },
  wasm() {
    // Emscripten's own node emulator flag (--experimental-wasm-threads) breaks Node 20.
    cmakeBuild('build/wasm', () =>
      run('emcmake', ['cmake', '-S', '.', '-B', 'build/wasm', '-G', 'Ninja', '-DCMAKE_BUILD_TYPE=Release',
        `-DCMAKE_CROSSCOMPILING_EMULATOR=${process.execPath}`]));
    const out = join(dist, 'wasm');
    mkdirSync(out, { recursive: true });
    const built = join(root, 'build/wasm/wasm');
    for (const file of ['attention_core.mjs', 'attention_core.wasm']) {
      copyFileSync(join(built, file), join(out, file));
    }
    // One glue serves both builds (engine.mjs names the .wasm file it loads): they differ only
    // in simd::multiply_add, so their glue may differ only in the file name.
    const glue = readFileSync(join(built, 'attention_core.mjs'), 'utf8');
    const relaxedGlue = readFileSync(join(built, 'attention_core_relaxed.mjs'), 'utf8');
    if (relaxedGlue.replaceAll('attention_core_relaxed.wasm', 'attention_core.wasm') !== glue) {
      throw new Error('build: the relaxed-SIMD build has glue of its own; engine.mjs loads both with one');
    }
    const relaxed = standardizeRelaxedSimd(readFileSync(join(built, 'attention_core_relaxed.wasm')));
    if (relaxed.rewritten === 0) throw new Error('build: the relaxed-SIMD build has no relaxed multiply-add');
    writeFileSync(join(out, 'attention_core.relaxed.wasm'), relaxed.bytes);
    console.log(`build: ${relaxed.rewritten} multiply-adds of the relaxed-SIMD build given the standard opcode`);
    // The JavaScript API: attention.mjs, the modules of its call groups, its declarations.
    for (const file of readdirSync(join(root, 'wasm')).filter((name) => /\.(mjs|d\.ts)$/.test(name))) {
      copyFileSync(join(root, 'wasm', file), join(out, file));
    }
    console.log(`build: engine in ${join('dist', 'wasm')}`);
  },
  async web() {
    // Imported here, not at the top: build-web.mjs needs esbuild from node_modules, and the
    // native and wasm steps must run before `npm ci`.
    const { buildWeb } = await import('./build-web.mjs');
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
