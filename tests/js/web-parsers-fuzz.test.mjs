// Seeded fuzzing of the page's parsers of user-controlled text: the URL-hash state of the
// playground (web/playground/state.js), of the lab (web/lab/state.js) and of the Train page
// (web/train/state.js), which run in the browser and so are out of libFuzzer's reach, and the
// tokenizer the page calls, engine.tokenize, whose core fuzz_text covers: here its
// JavaScript side (lone surrogates, UTF-16 offsets). Random and mutated inputs;
// invariants checked on each.
import assert from 'node:assert/strict';
import test from 'node:test';
import createAttention from '../../dist/wasm/attention.mjs';
import { DEFAULTS as LAB_DEFAULTS, parseHash as parseLabHash, toHash as labHash } from '../../web/lab/state.js';
import { LIMITS, formatHash, formatLink, parseHash } from '../../web/playground/state.js';
import { DEFAULTS as TRAIN_DEFAULTS, parseHash as parseTrainHash, toHash as trainHash } from '../../web/train/state.js';
import { mulberry32, pick, randomInt } from './reference.mjs';

const engine = await createAttention();

const CASES = 20000;
const MAX_SHOWN_VALUE = 41;  // parseHash quotes at most 40 characters of a bad value, then '…'

// Pieces hostile text is made of: separators of the hash and of words, markup, escapes,
// non-ASCII letters, emoji, a lone surrogate, control characters, clitics.
const PIECES = ['#', '&', '=', '+', '%', '%2', '%E2%80', '%zz', '%3D', '%26', 't', 'h', 'c', 'w', 'sk', 'q', 'src', 'a',
  'pe', 'tv', 'as', 'z', 'hv', 'kv', 'tw', 'rs', 'rb', 'rp', 'gs', '1', '0', '-0', '-1', '0.5', '1e9', '99999999999', 'NaN',
  'glove', 'table', 'alibi', 'rope', 'all', 'linear', ';', ',',
  ' ', '\t', '\n', '\u0000', '\u001b', '<script>alert(1)</script>', '"', "'", '’', "n't", "'s",
  'don', 'state-of-the-art', 'é', 'ß', 'İ', 'ǅ', '日本語', 'مرحبا', '😀', '👩‍👩‍👧', '\uD800', '\uDC00',
  '\u200b', '\uFEFF', '-', '—', '.', '...', 'x'.repeat(300)];

function randomText(random, pieces = PIECES, maxPieces = 24) {
  let text = '';
  for (let count = randomInt(random, 0, maxPieces); count > 0; --count) text += pick(random, pieces);
  return text;
}

// A valid hash, changed at a few random places: the inputs a shared link gets after a copy
// and paste gone wrong.
function mutate(random, text) {
  let result = text;
  for (let edits = randomInt(random, 1, 4); edits > 0; --edits) {
    const at = randomInt(random, 0, result.length);
    const kind = randomInt(random, 0, 2);
    if (kind === 0) result = result.slice(0, at) + pick(random, PIECES) + result.slice(at);
    else if (kind === 1) result = result.slice(0, at) + result.slice(at + randomInt(random, 1, 5));
    else result = result.slice(0, at) + pick(random, PIECES) + result.slice(at + 1);
  }
  return result;
}

// Each key of the page's state at least once (state.js FIELDS), with values it takes.
const VALID_HASHES = ['', '#t=Hello+world&h=2&c=1', '#src=random&rs=7&h=4', '#pe=alibi&h=2&as=0.5,0.25',
  '#pe=rope&rb=500&rp=half', '#src=table&tv=1,-2;3,4', '#w=3&sk=1&c=1&q=2', '#h=2&a=h%3D1%26c%3D1%26t%3DHi',
  '#c=1&a=', '#z=0,0,4&hv=2&kv=1&tw=linear&h=4', '#gen=1&gs=3&c=1',
  '#src=random&rd=4&td=2&ts=5&do=8&sc=0&nm=sum&ss=0.5&sw=tutorial&val=scores&pool=mean&cs=log'];

test('parseHash never throws, reports every problem briefly, and round-trips what it keeps', () => {
  const random = mulberry32(20261122);
  for (let i = 0; i < CASES; ++i) {
    const hash = i % 2 === 0 ? randomText(random) : mutate(random, pick(random, VALID_HASHES));
    let parsed;
    assert.doesNotThrow(() => { parsed = parseHash(hash); }, `parseHash(${JSON.stringify(hash)})`);
    assert.ok(Array.isArray(parsed.problems));
    for (const problem of parsed.problems) {
      assert.equal(typeof problem, 'string');
      assert.ok(problem.length < 200 + MAX_SHOWN_VALUE, `a long problem for ${JSON.stringify(hash)}: ${problem}`);
    }
    const again = parseHash(formatHash(parsed.state));
    assert.deepEqual(again.problems, [], `the kept state of ${JSON.stringify(hash)} formats to a hash with problems`);
    assert.deepEqual(again.state, parsed.state, `the kept state of ${JSON.stringify(hash)} does not round-trip`);
  }
});

test('−0 in a link reads as 0, which is what the link writes back: the table, the slopes, the lab\'s and the Train page\'s numbers', () => {
  const { state, problems } = parseHash('#src=table&tv=-0,1;2,-0&pe=alibi&as=-0,0.5');
  assert.deepEqual(problems, []);
  assert.ok(Object.is(state.table[0][0], 0) && Object.is(state.table[1][1], 0) && Object.is(state.alibiSlopes[0], 0));
  assert.deepEqual(parseHash(formatHash(state)).state, state);
  assert.ok(Object.is(parseLabHash('#residual=-0').settings.residual, 0));
  assert.ok(Object.is(parseTrainHash('#span=-0').settings.runningSpan, 0));
});

test('parseHash keeps valid settings beside invalid ones', () => {
  const { state, problems } = parseHash('#h=2&h2=x&w=abc&c=1');
  assert.equal(state.heads, 2);
  assert.equal(state.causal, true);
  assert.equal(problems.length, 2);
});

test('parseHash names a malformed percent-escape instead of reading it as U+FFFD or a literal %', () => {
  const { state, problems } = parseHash('#t=%E0%A4%A&h=2&w=%ZZ&c=1');
  assert.equal(state.text, parseHash('').state.text);
  assert.equal(state.window, 0);
  assert.deepEqual([state.heads, state.causal], [2, true]);
  assert.deepEqual(problems, [
    'malformed percent-encoding in “t=%E0%A4%A” (a % must start an escape such as %C3%A9)',
    'malformed percent-encoding in “w=%ZZ” (a % must start an escape such as %C3%A9)',
  ]);
  assert.equal(parseHash('#t=100%25+sure').state.text, '100% sure');
});

test('formatLink keeps a text of up to MAX_LINK_TEXT encoded characters and leaves a longer one out', () => {
  const state = parseHash('#h=2').state;
  const limit = LIMITS.MAX_LINK_TEXT;
  const fits = { ...state, text: 'a'.repeat(limit) };
  assert.deepEqual(formatLink(fits), { hash: formatHash(fits), textLeftOut: false });
  assert.equal(parseHash(formatLink(fits).hash).state.text, fits.text);
  // é is %C3%A9, six characters encoded: what counts is the length in the link
  const accents = Math.floor(limit / 6);
  assert.equal(formatLink({ ...state, text: 'é'.repeat(accents) }).textLeftOut, false);
  for (const text of ['a'.repeat(limit + 1), 'é'.repeat(accents + 1), "The cat didn't sit. ".repeat(2 ** 18)]) {
    assert.deepEqual(formatLink({ ...state, text }), { hash: 'h=2', textLeftOut: true }, `${text.length} characters`);
  }
});

// The lab's link: the values its sliders, selects and radios can take, and nothing else.
const LAB_PIECES = ['n', 'layers', 'residual', 'slope', 'ropeBase', 'ropeStrength', 'window', 'sinks', 'signal', 'noise',
  'trials', 'documents', 'positional', 'measure', 'metric', 'mitigation', 'causal', 'logScale', 'zz', '=', '&', '%', '%2',
  '0', '-0', '1', '-1', '2', '3', '0.5', '0.05', '0.003', '1e300', '1e6', 'NaN', 'Infinity', '16', '64', '1024', '4096', '10000',
  'rope', 'alibi', 'none', 'received', 'top1', 'reorder', ' ', '+', 'x'.repeat(300)];

test('the lab’s parseHash never throws, keeps only values its controls take, and round-trips them', () => {
  const random = mulberry32(20261123);
  const documents = [10, 20, 30];
  for (let i = 0; i < CASES; ++i) {
    const hash = randomText(random, LAB_PIECES, 12);
    let parsed;
    assert.doesNotThrow(() => { parsed = parseLabHash(hash, { documents }); }, `parseHash(${JSON.stringify(hash)})`);
    const { settings, problems } = parsed;
    for (const problem of problems) assert.ok(problem.length < 200 + MAX_SHOWN_VALUE, `a long problem for ${JSON.stringify(hash)}: ${problem}`);
    assert.deepEqual(Object.keys(settings).sort(), Object.keys(LAB_DEFAULTS).sort());
    assert.ok(settings.n >= 16 && settings.n <= 4096 && settings.layers >= 1 && settings.layers <= 32, JSON.stringify(settings));
    assert.ok(settings.trials >= 1 && settings.trials <= 64 && documents.includes(settings.documents), JSON.stringify(settings));
    const again = parseLabHash(labHash(settings), { documents });
    assert.deepEqual(again, { settings, problems: [] }, `the kept settings of ${JSON.stringify(hash)} do not round-trip`);
  }
});

test('the lab’s parseHash names each value its controls cannot take', () => {
  const { settings, problems } = parseLabHash('#n=1e300&layers=3&trials=1e6&causal=abc&zz=1', { documents: [10, 20, 30] });
  assert.deepEqual(settings, { ...LAB_DEFAULTS, layers: 3 });
  assert.deepEqual(problems, [
    'n must be one of 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, got “1e300”',
    'trials must be a whole number from 1 to 64, got “1e6”',
    'causal must be 0 or 1, got “abc”',
    'unknown setting “zz”',
  ]);
});

// The Train page's link: numbers of every kind, lists, choices.
const TRAIN_PIECES = ['pairs', 'keys', 'values', 'answers', 'retrieval', 'span', 'recall', 'spanItems', 'layers', 'dModel',
  'heads', 'mlp', 'pe', 'context', 'steps', 'batch', 'lr', 'seed', 'seeds', 'every', 'heldOut', 'evalAt', 'axis', 'target',
  'example', 'zz', '=', '&', '%', '%2', '%2C', ',', '0', '-0', '1', '-1', '2', '8', '16', '32', '0.5', '1e-3', '1e300', '1e6', 'NaN',
  'Infinity', '2147483648', 'rope', 'alibi', 'learned', 'prefix', 'ends', 'position', 'first', ' ', '+', 'x'.repeat(300)];

test('the Train page’s parseHash never throws, keeps settings within their rules, and round-trips them', () => {
  const random = mulberry32(20261124);
  for (let i = 0; i < CASES; ++i) {
    const hash = randomText(random, TRAIN_PIECES, 12);
    let parsed;
    assert.doesNotThrow(() => { parsed = parseTrainHash(hash); }, `parseHash(${JSON.stringify(hash)})`);
    const { settings, problems } = parsed;
    for (const problem of problems) assert.ok(problem.length < 200 + MAX_SHOWN_VALUE, `a long problem for ${JSON.stringify(hash)}: ${problem}`);
    assert.deepEqual(Object.keys(settings).sort(), Object.keys(TRAIN_DEFAULTS).sort());
    assert.ok(settings.heads >= 1 && settings.heads <= 16 && settings.seeds >= 1 && settings.seeds <= 8, JSON.stringify(settings));
    assert.ok(settings.learningRate > 0 && settings.learningRate <= 1 && settings.retrieval >= 0, JSON.stringify(settings));
    assert.ok(settings.evaluateAt.every((pairs) => Number.isInteger(pairs) && pairs >= 1 && pairs <= 256), JSON.stringify(settings));
    const again = parseTrainHash(trainHash(settings));
    assert.deepEqual(again, { settings, problems: [], notes: [] }, `the kept settings of ${JSON.stringify(hash)} do not round-trip`);
  }
});

test('engine.tokenize never throws on page text; tokens are ordered spans that cover every visible character', () => {
  const random = mulberry32(7);
  for (let i = 0; i < CASES; ++i) {
    const text = randomText(random);
    const { tokens, starts, ends, truncated } = engine.tokenize(text);
    assert.equal(truncated, false);
    let covered = 0;
    tokens.forEach((token, t) => {
      assert.ok(starts[t] >= covered && ends[t] > starts[t], `overlapping or empty token in ${JSON.stringify(text)}`);
      assert.equal(text.slice(starts[t], ends[t]), token);
      assert.ok(!/[\s\p{Cc}]/u.test(token), `a token with white space in ${JSON.stringify(text)}`);
      assert.ok(/^[\s\p{Cc}\p{Cf}]*$/u.test(text.slice(covered, starts[t])), `skipped a visible character in ${JSON.stringify(text)}`);
      covered = ends[t];
    });
    assert.ok(/^[\s\p{Cc}\p{Cf}]*$/u.test(text.slice(covered)), `dropped the end of ${JSON.stringify(text)}`);
    const again = engine.tokenize(tokens.join(' ')).tokens;
    assert.deepEqual(again, tokens, `tokens of ${JSON.stringify(text)} split differently when spaced out`);
  }
});
