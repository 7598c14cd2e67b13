// Runs every suite, after `node scripts/build.mjs native sanitize fuzz wasm web`:
//   format    every C++ source as .clang-format says (scripts/format.mjs --check, no build)
//   native    Catch2 through ctest (build/native)
//   sanitize  the same Catch2 suite built with AddressSanitizer and UndefinedBehaviorSanitizer
//             (build/sanitize); any finding aborts it
//   fuzz      each libFuzzer target of tests/fuzz for ATTN_FUZZ_SECONDS seconds (default 60),
//             from its seeds in tests/fuzz/corpus/<target>/ and what earlier runs found in
//             build/fuzz/corpus/<target>/; a crash is saved under build/fuzz/findings/.
//             libFuzzer's random seed is ATTN_FUZZ_SEED (default 1; 0 draws a new seed each
//             run, to explore further). A fixed seed does not make two runs alike: how far a
//             run gets depends on the machine's speed, and which inputs it keeps on the
//             coverage they reach, which varies from run to run (measured: two clean runs of
//             4,000 executions from seed 1 kept 249 and 267 inputs of fuzz_attention, with or
//             without address randomisation). A finding is reproduced from its saved input.
//   js        node:test suites in Node (tests/js): the engine's JavaScript API, and the web
//             modules that need no browser (pooling, the worker client, parsers, exports, pages),
//             with relaxed SIMD off: the engine's SIMD128 build
//   relaxed   the same suites with --experimental-wasm-relaxed-simd: the engine's relaxed-SIMD
//             build, which browsers load where they run it (Chromium does)
//   browser   Playwright in Debian's Chromium against dist/ (tests/browser); Chromium loads the
//             relaxed-SIMD build, and so does Node's engine, with the flag, for the pages' numbers
// Usage: node scripts/test.mjs [suite ...]   (all suites when none is named)
// Exits non-zero when any suite fails.
import { spawnSync } from 'node:child_process';
import {
  closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function testFiles(folder) {
  const dir = join(root, folder);
  if (!existsSync(dir)) return [];
  return readdirSync(dir).filter((f) => f.endsWith('.test.mjs')).sort().map((f) => join(folder, f));
}

// Sanitizer settings: stop at the first finding, with a symbolised stack trace; leaks count too.
const SYMBOLIZER = '/usr/bin/llvm-symbolizer-14';
const SANITIZER_ENV = {
  ASAN_OPTIONS: 'abort_on_error=1:detect_leaks=1:detect_stack_use_after_return=1:strict_string_checks=1',
  UBSAN_OPTIONS: 'halt_on_error=1:print_stacktrace=1',
  ...(existsSync(SYMBOLIZER) ? { ASAN_SYMBOLIZER_PATH: SYMBOLIZER } : {}),
};

const FUZZ_TARGETS = ['fuzz_attention', 'fuzz_text', 'fuzz_train'];
const DEFAULT_FUZZ_SECONDS = 60;
const DEFAULT_FUZZ_SEED = 1;

function fuzzSeconds() {
  const text = process.env.ATTN_FUZZ_SECONDS ?? String(DEFAULT_FUZZ_SECONDS);
  const seconds = Number(text);
  if (!Number.isInteger(seconds) || seconds < 1) {
    throw new Error(`ATTN_FUZZ_SECONDS must be a whole number of seconds ≥ 1, got ${JSON.stringify(text)}`);
  }
  return seconds;
}

function fuzzSeed() {
  const text = process.env.ATTN_FUZZ_SEED ?? String(DEFAULT_FUZZ_SEED);
  const seed = Number(text);
  if (!Number.isInteger(seed) || seed < 0 || seed > 2 ** 32 - 1) {
    throw new Error(`ATTN_FUZZ_SEED must be a whole number from 0 to 2^32 - 1, got ${JSON.stringify(text)}`);
  }
  return seed;
}

// What a fuzz finding leaves for the end of the run, where a CI log's tail shows it: the
// sanitizer's or the invariant's words, where the input was saved, and the input in base64.
const fuzzFindings = [];
const FINDING_LINE = /invariant broken|  call: |ERROR: |SUMMARY: |deadly signal|timeout after|out-of-memory|Test unit written to|^Base64: /;

// Runs one libFuzzer target and prints its executions, coverage and corpus in one line.
function runFuzzTarget(target, seconds, seed) {
  const binary = join(root, 'build/sanitize/tests/fuzz', target);
  if (!existsSync(binary)) {
    console.error(`fuzz: ${binary} is missing; run node scripts/build.mjs fuzz`);
    return false;
  }
  const corpus = join(root, 'build/fuzz/corpus', target);  // grows run after run
  const findings = join(root, 'build/fuzz/findings');
  mkdirSync(corpus, { recursive: true });
  mkdirSync(findings, { recursive: true });
  const args = [`-max_total_time=${seconds}`, `-seed=${seed}`, '-print_final_stats=1', '-timeout=20',
    `-artifact_prefix=${findings}/${target}-`, corpus, join(root, 'tests/fuzz/corpus', target)];
  const log = join(root, 'build/fuzz', `${target}.log`);
  console.log(`fuzz: ${target} ${args.join(' ')}  (output in ${log})`);
  const logFile = openSync(log, 'w');
  const { status, error } = spawnSync(binary, args, {
    cwd: root, env: { ...process.env, ...SANITIZER_ENV }, stdio: ['ignore', logFile, logFile],
  });
  closeSync(logFile);
  const output = readFileSync(log, 'utf8');
  const lines = output.split('\n');
  if (error || status !== 0) {
    // The finding: libFuzzer's report, the sanitizer's or the invariant's message, and the input.
    console.error(lines.slice(-80).join('\n'));
    console.error(`fuzz: ${target} found a problem (${error?.message ?? `exit status ${status}`}); ` +
      `reproduce with ${binary} <the crash file named above>`);
    fuzzFindings.push(`${target} (${error?.message ?? `exit status ${status}`}):`,
      ...lines.filter((line) => FINDING_LINE.test(line)).map((line) => `  ${line.slice(0, 2000)}`));
    return false;
  }
  const stat = (name) => output.match(new RegExp(`stat::${name}:\\s*(\\d+)`))?.[1] ?? '?';
  const done = lines.filter((line) => /^#\d+\s+(DONE|pulse|NEW|REDUCE|INITED)/.test(line)).at(-1) ?? '';
  const field = (name) => done.match(new RegExp(`${name}: (\\d+\\S*)`))?.[1] ?? '?';
  console.log(`fuzz: ${target}: ${stat('number_of_executed_units')} executions in ${seconds} s ` +
    `(${stat('average_exec_per_sec')}/s), coverage ${field('cov')} edges, ${field('ft')} features, ` +
    `corpus ${field('corp')}, peak RSS ${stat('peak_rss_mb')} MB, no finding`);
  return true;
}

const nodeTest = (files, ...flags) => [process.execPath, ['--test', '--test-reporter=spec', ...flags, ...files]];
// Where Node knows the flag (Node 20 off by default, Node 21+ on), the js pass turns relaxed
// SIMD off, so that it runs the SIMD128 build, and the relaxed pass on; a Node that has dropped
// the flag runs relaxed SIMD by default, and the relaxed pass fails when it does not
// (ATTN_RELAXED_SIMD=required, tests/js/simd-builds.test.mjs).
const RELAXED_SIMD_FLAG = '--experimental-wasm-relaxed-simd';
const knowsRelaxedSimdFlag = spawnSync(process.execPath, [RELAXED_SIMD_FLAG, '-e', '0']).status === 0;
const relaxedSimdFlags = knowsRelaxedSimdFlag ? [RELAXED_SIMD_FLAG] : [];
const simd128Flags = knowsRelaxedSimdFlag ? ['--no-experimental-wasm-relaxed-simd'] : [];
const suites = [
  { name: 'format', run: [process.execPath, [join(root, 'scripts/format.mjs'), '--check']] },
  { name: 'native', run: ['ctest', ['--test-dir', 'build/native', '--output-on-failure']] },
  { name: 'sanitize', run: [join(root, 'build/sanitize/tests/native/attn_tests'), []], env: SANITIZER_ENV },
  { name: 'fuzz', custom: () => FUZZ_TARGETS.map((target) => runFuzzTarget(target, fuzzSeconds(), fuzzSeed())).every(Boolean) },
  { name: 'js', files: testFiles('tests/js'), flags: simd128Flags },
  { name: 'relaxed', files: testFiles('tests/js'), flags: relaxedSimdFlags, env: { ATTN_RELAXED_SIMD: 'required' } },
  // Node's engine, which the pages' numbers are held to, loads the build Chromium's does
  { name: 'browser', files: testFiles('tests/browser'), flags: ['--test-concurrency=1', ...relaxedSimdFlags] },
];

const requested = process.argv.slice(2);
for (const name of requested) {
  if (!suites.some((suite) => suite.name === name)) {
    console.error(`test: unknown suite '${name}'; suites are ${suites.map((s) => s.name).join(', ')}`);
    process.exit(1);
  }
}

const failed = [];
const timings = [];
for (const { name, run, files, flags = [], env = {}, custom } of suites) {
  if (requested.length > 0 && !requested.includes(name)) continue;
  if (files && files.length === 0) throw new Error(`no *.test.mjs files in tests/${name}`);
  console.log(`\n=== ${name} tests ===`);
  const started = Date.now();
  let passed;
  if (custom) {
    passed = custom();
  } else {
    const [command, args] = run ?? nodeTest(files, ...flags);
    const { status, error } = spawnSync(command, args, { stdio: 'inherit', cwd: root, env: { ...process.env, ...env } });
    if (error) console.error(`test: ${command}: ${error.message}`);
    passed = status === 0;
  }
  timings.push(`${name} ${((Date.now() - started) / 1000).toFixed(1)} s`);
  if (!passed) failed.push(name);
}
console.log(`\nTimes: ${timings.join(', ')}`);
console.log(failed.length === 0 ? 'All suites passed.' : `Failed suites: ${failed.join(', ')}`);
if (fuzzFindings.length > 0) console.log(`Fuzz findings (reproduce: echo <Base64> | base64 -d > unit; build/sanitize/tests/fuzz/<target> unit):\n${fuzzFindings.join('\n')}`);
process.exit(failed.length === 0 ? 0 : 1);
