// engine.tokenize and engine.parseVectors: the calls that read user-controlled text, on
// ordinary and hostile input (markup, control characters, lone surrogates, huge pastes,
// emoji, right-to-left text).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import createAttention from '../../dist/wasm/attention.mjs';
import { errorOf, mulberry32, pick, randomInt } from './reference.mjs';

const engine = await createAttention();
const FIVE_MB = 5 * 1024 * 1024;

const tokensOf = (text) => engine.tokenize(text).tokens;


// Every token is the slice of the text at its offsets, in order, without overlap.
function assertWellFormed(text, result) {
  const { tokens, starts, ends } = result;
  assert.ok(Array.isArray(tokens) && Array.isArray(starts) && Array.isArray(ends));
  assert.equal(starts.length, tokens.length);
  assert.equal(ends.length, tokens.length);
  let previousEnd = 0;
  tokens.forEach((token, i) => {
    assert.equal(typeof starts[i], 'number');
    assert.ok(starts[i] >= previousEnd && starts[i] < ends[i] && ends[i] <= text.length, `token ${i} offsets`);
    assert.equal(token, text.slice(starts[i], ends[i]));
    previousEnd = ends[i];
  });
}

describe('tokenize', () => {
  test('words and single punctuation marks, with UTF-16 offsets into the text', () => {
    const text = 'Your journey starts, with one step.';
    const result = engine.tokenize(text);
    assert.deepEqual(result.tokens, ['Your', 'journey', 'starts', ',', 'with', 'one', 'step', '.']);
    assert.deepEqual(result.starts, [0, 5, 13, 19, 21, 26, 30, 34]);
    assert.deepEqual(result.ends, [4, 12, 19, 20, 25, 29, 34, 35]);
    assertWellFormed(text, result);
    assert.equal(result.truncated, false);
    assert.deepEqual(engine.tokenize(''), { tokens: [], starts: [], ends: [], truncated: false });
  });

  test("GloVe's clitics split off: n't, 's, 're, 've, 'll, 'd, 'm, with either apostrophe, in any case", () => {
    const text = "Don't, it’s: they're we've I'll she'd I'M can't WON’T";
    const result = engine.tokenize(text);
    assert.deepEqual(result.tokens, ['Do', "n't", ',', 'it', '’s', ':', 'they', "'re", 'we', "'ve", 'I', "'ll",
      'she', "'d", 'I', "'M", 'ca', "n't", 'WO', 'N’T']);
    assert.deepEqual(result.starts, [0, 2, 5, 7, 9, 11, 13, 17, 21, 23, 27, 28, 32, 35, 38, 39, 42, 44, 48, 50]);
    assert.deepEqual(result.ends, [2, 5, 6, 9, 11, 12, 17, 20, 23, 26, 28, 31, 35, 37, 39, 41, 44, 47, 50, 53]);
    assertWellFormed(text, result);
  });

  test('a clitic is a token only where its word ends: before punctuation, space, another clitic or the end', () => {
    assert.deepEqual(tokensOf("don'tcha it'sa we'llx it's. can't've we'll've don't-know"),
      ["don'tcha", "it'sa", "we'llx", 'it', "'s", '.', 'ca', "n't", "'ve", 'we', "'ll", "'ve", 'do', "n't", '-', 'know']);
    assert.deepEqual(tokensOf("'s n't 'tis dogs 's U.S.'s"), ["'s", "n't", "'", 'tis', 'dogs', "'s", 'U', '.', 'S', '.', "'s"]);
    assert.deepEqual(tokensOf("it'sn't it's\u0301"), ['it', "'s", "n't", "it's\u0301"]);
  });

  test('a hyphen-minus between two word characters joins them; other hyphens and dashes are symbols', () => {
    assert.deepEqual(tokensOf("state-of-the-art covid-19 x-ray's naïve-café well-don't"),
      ['state-of-the-art', 'covid-19', 'x-ray', "'s", 'naïve-café', 'well-do', "n't"]);
    assert.deepEqual(tokensOf('-5 a--b well- a\u2010b a\u2014b'),
      ['-', '5', 'a', '-', '-', 'b', 'well', '-', 'a', '\u2010', 'b', 'a', '\u2014', 'b']);
  });

  test('an apostrophe that starts no clitic stays in its word between word characters, else is a symbol', () => {
    assert.deepEqual(tokensOf("o'clock l’homme rock'n'roll y'all O'Neill"),
      ["o'clock", 'l’homme', "rock'n'roll", "y'all", "O'Neill"]);
    assert.deepEqual(tokensOf("rock 'n' roll '90s dogs' o''clock"),
      ['rock', "'", 'n', "'", 'roll', "'", '90s', 'dogs', "'", 'o', "'", "'", 'clock']);
  });

  test('UTF-16 offsets around clitics after a surrogate pair', () => {
    const text = '😀don’t l’homme';
    const result = engine.tokenize(text);
    assert.deepEqual(result.tokens, ['😀', 'do', 'n’t', 'l’homme']);
    assert.deepEqual(result.starts, [0, 2, 4, 8]);
    assert.deepEqual(result.ends, [2, 4, 7, 15]);
  });

  test('markup and script tags come back as plain tokens: nothing is parsed or run', () => {
    const text = '<script>globalThis.pwned = true</script><img src=x onerror="alert(1)"> &lt;b&gt; ${x} {{y}}';
    const result = engine.tokenize(text);
    assertWellFormed(text, result);
    assert.deepEqual(result.tokens.slice(0, 14),
      ['<', 'script', '>', 'globalThis', '.', 'pwned', '=', 'true', '<', '/', 'script', '>', '<', 'img']);
    assert.ok(result.tokens.includes('onerror') && result.tokens.includes('lt') && result.tokens.includes('$'));
    for (const token of result.tokens) assert.ok(token.length === 1 || /^[\p{L}\p{N}']+$/u.test(token), token);
  });

  test('letters of any script are words; CJK runs are one word; accents stay with their letter', () => {
    assert.deepEqual(tokensOf('café naïve Ελλάδα Москва 日本語です。 e\u0301te'),
      ['café', 'naïve', 'Ελλάδα', 'Москва', '日本語です', '。', 'e\u0301te']);
  });

  test('right-to-left text; bidi controls separate tokens and never reach one', () => {
    assert.deepEqual(tokensOf('שלום עולם! مرحبا بالعالم؟'), ['שלום', 'עולם', '!', 'مرحبا', 'بالعالم', '؟']);
    const text = 'abc\u202Edcba\u202C x\u2067y\u2069 \u200Fz';
    const result = engine.tokenize(text);
    assert.deepEqual(result.tokens, ['abc', 'dcba', 'x', 'y', 'z']);
    assert.equal(result.starts[1], 4);
    for (const token of result.tokens) assert.doesNotMatch(token, /[\u202A-\u202E\u2066-\u2069\u200E\u200F]/);
  });

  test('an emoji sequence, a flag or a keycap is one token, with surrogate-pair offsets', () => {
    const text = '👩‍💻 🇫🇷🇩🇪 👍🏽 ❤️‍🔥 #️⃣ 😀😀';
    const result = engine.tokenize(text);
    assert.deepEqual(result.tokens, ['👩‍💻', '🇫🇷', '🇩🇪', '👍🏽', '❤️‍🔥', '#️⃣', '😀', '😀']);
    assert.deepEqual([result.starts[0], result.ends[0]], [0, 5]);  // U+1F469 U+200D U+1F4BB
    assertWellFormed(text, result);
  });

  test('control characters and invisible format characters separate tokens', () => {
    const text = 'a\u0000b\u0007c\u001Bd\u007Fe\u0085f\r\ng\u000Bh\u000Ci\tj\uFEFFk\u200Bl';
    assert.deepEqual(tokensOf(text), ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l']);
    assert.deepEqual(tokensOf(' \t\r\n\u00A0\u3000\u2028\u2029'), []);
  });

  test('lone surrogates are tokens of their own and leave every offset right', () => {
    const text = 'a\uD800b \uDC00 x\uD83D \uDE00y 😀 \uD800';
    const result = engine.tokenize(text);
    assertWellFormed(text, result);
    assert.deepEqual(result.tokens, ['a', '\uD800', 'b', '\uDC00', 'x', '\uD83D', '\uDE00', 'y', '😀', '\uD800']);
    assert.equal(result.ends.at(-1), text.length);
  });

  test('random mixtures of code units: tokens are slices; only whitespace, controls and format characters are dropped', () => {
    const random = mulberry32(900);
    const pool = ['a', 'Z', '7', "'", '’', ' ', '\t', '\n', '.', '<', '>', '&', '"', 'é', '\u0301', '日', 'ש', 'م',
      '\u202E', '\u200B', '\u200D', '\u200C', '\uFE0F', '\u0000', '\u0085', '\u00A0', '\u3000', '😀', '🇫', '🏽',
      '\uD800', '\uDC00', '\uFFFD', '\u00AD', '#', '\u20E3'];
    for (let round = 0; round < 300; ++round) {
      const text = Array.from({ length: randomInt(random, 0, 60) }, () => pick(random, pool)).join('');
      const result = engine.tokenize(text);
      assertWellFormed(text, result);
      let covered = '';
      let previousEnd = 0;
      result.tokens.forEach((token, i) => {
        covered += text.slice(previousEnd, result.starts[i]);
        previousEnd = result.ends[i];
        assert.doesNotMatch(token, /[\s\p{Cc}]/u, `token ${JSON.stringify(token)} of ${JSON.stringify(text)}`);
      });
      covered += text.slice(previousEnd);
      assert.match(covered, /^[\s\p{Cc}\p{Cf}]*$/u, `dropped ${JSON.stringify(covered)} from ${JSON.stringify(text)}`);
    }
  });

  test('5 MB pastes: whitespace, one long word, and too many tokens with a clear error', () => {
    assert.deepEqual(tokensOf(' '.repeat(FIVE_MB)), []);
    const word = engine.tokenize('a'.repeat(FIVE_MB));
    assert.deepEqual([word.starts, word.ends], [[0], [FIVE_MB]]);
    const error = errorOf(() => engine.tokenize('The cat sat on the mat. '.repeat(FIVE_MB / 24)));
    assert.ok(error instanceof Error);
    assert.match(error.message, /^text has more than 16384 tokens, the most one call returns \(token 16385 starts at UTF-16 offset \d+/);
  });

  test('exactly 16384 tokens pass; text longer than 2^24 code units is refused before it reaches wasm', () => {
    assert.equal(tokensOf('w '.repeat(16384)).length, 16384);
    const error = errorOf(() => engine.tokenize(' '.repeat(2 ** 24 + 1)));
    assert.match(error.message, /^text is 16777217 UTF-16 code units long, more than the 16777216 accepted/);
    const multibyte = errorOf(() => engine.tokenize('日'.repeat(2 ** 23)));  // 2^23 units, 3 × 2^23 bytes
    assert.match(multibyte.message, /^text is 25165824 bytes of UTF-8, more than the 16777216 accepted/);
  });

  test('a limit returns the first tokens, and truncated says whether more follow', () => {
    const text = "Don't stop, it's fine. ";
    assert.deepEqual(engine.tokenize(text, { limit: 3 }),
      { tokens: ['Do', "n't", 'stop'], starts: [0, 2, 6], ends: [2, 5, 10], truncated: true });
    assert.deepEqual(engine.tokenize(text, { limit: 8 }), { ...engine.tokenize(text), truncated: false });
    assert.deepEqual(engine.tokenize('a b \u200B\t', { limit: 2 }).truncated, false);
    assert.deepEqual(engine.tokenize(' x', { limit: 0 }), { tokens: [], starts: [], ends: [], truncated: true });
    const random = mulberry32(11);
    const pool = ['a', 'n', "n't", "'s", '’', '-', ' ', '.', '😀', '\uD800', '日本', '\u200B'];
    for (let round = 0; round < 500; ++round) {
      const sample = Array.from({ length: randomInt(random, 0, 30) }, () => pick(random, pool)).join('');
      const limit = randomInt(random, 0, 20);
      const all = engine.tokenize(sample);
      const first = engine.tokenize(sample, { limit });
      assert.deepEqual(first, {
        tokens: all.tokens.slice(0, limit), starts: all.starts.slice(0, limit), ends: all.ends.slice(0, limit),
        truncated: all.tokens.length > limit,
      }, JSON.stringify({ sample, limit }));
    }
  });

  test('a 5 MB paste with a limit is cut there, not refused', () => {
    const text = "The cat didn't sit. ".repeat(FIVE_MB / 20);
    const cut = engine.tokenize(text, { limit: 8192 });
    assert.equal(cut.tokens.length, 8192);
    assert.equal(cut.truncated, true);
    // six tokens in 20 characters a sentence: token 8191 is the 2nd of sentence 1365 (from 0)
    assert.deepEqual([cut.tokens.at(-1), cut.starts.at(-1), cut.ends.at(-1)], ['cat', 1365 * 20 + 4, 1365 * 20 + 7]);
    assert.deepEqual(cut.tokens.slice(0, 7), ['The', 'cat', 'did', "n't", 'sit', '.', 'The']);
    assert.equal(engine.tokenize(text, { limit: 16384 }).tokens.length, 16384);
  });

  test('a bad limit or an unknown option is an Error naming it', () => {
    const messageOf = (options) => errorOf(() => engine.tokenize('a b', options)).message;
    assert.equal(messageOf({ limit: 16385 }), 'limit is 16385 tokens, more than the 16384 one call returns');
    for (const bad of [-1, 1.5, '5', NaN, null]) {
      assert.match(messageOf({ limit: bad }), /^limit must be a whole number from 0 to 2147483647, got /);
    }
    assert.equal(messageOf({ max: 3 }), "unknown option 'max' in tokenize options; known options are limit");
    assert.match(messageOf('limit'), /^tokenize options must be an object, got the string "limit"/);
  });

  test('anything but a string is an Error naming the argument', () => {
    for (const bad of [undefined, null, 5, ['a'], { toString: () => 'a' }, new String('a'), Symbol('s')]) {
      const error = errorOf(() => engine.tokenize(bad));
      assert.ok(error instanceof Error, String(typeof bad));
      assert.match(error.message, /^text must be a string, got /);
    }
  });
});

describe('parseVectors', () => {
  test('numbers separated by spaces, commas or tabs, one row per line', () => {
    const table = engine.parseVectors('0.43 0.15 0.89\n0.55,0.87,0.66\n0.57\t0.85 ,\t0.64\n');
    assert.equal(table.rows, 3);
    assert.equal(table.cols, 3);
    assert.ok(table.data instanceof Float32Array);
    assert.deepEqual(Array.from(table.data), [0.43, 0.15, 0.89, 0.55, 0.87, 0.66, 0.57, 0.85, 0.64].map(Math.fround));
  });

  test('NumPy and PyTorch prints, comments, CRLF, a BOM, the minus sign and non-breaking spaces', () => {
    const same = (text, rows) => assert.deepEqual(Array.from(engine.parseVectors(text).data), rows.flat().map(Math.fround));
    same('[[ 0.4300,  0.1500],\n [ 0.5500,  0.8700]]\n', [[0.43, 0.15], [0.55, 0.87]]);
    same('[\n  [1, 2,],\n  [3, 4],\n]\n', [[1, 2], [3, 4]]);
    same('# x y\r\n1 2 # first\r\n\r\n3 4\r5 6', [[1, 2], [3, 4], [5, 6]]);
    same('\uFEFF1\u00A02\n\u22123 +4', [[1, 2], [-3, 4]]);
    assert.ok(Object.is(engine.parseVectors('-0').data[0], -0));
  });

  test('the result is a matrix the other calls take as it is', () => {
    const x = engine.parseVectors('0.43 0.15 0.89\n0.55 0.87 0.66\n0.57 0.85 0.64');
    const { context } = engine.selfAttention(x, { scale: false });
    const asRows = engine.selfAttention([[0.43, 0.15, 0.89], [0.55, 0.87, 0.66], [0.57, 0.85, 0.64]], { scale: false });
    assert.deepEqual([context.rows, context.cols], [3, 3]);
    assert.deepEqual(context.data, asRows.context.data, 'the same numbers as those rows given as number[][]');
  });

  test('errors name the line, the column and what was found', () => {
    const cases = [
      ['1 2 3\n4 five 6', "line 2, column 3: expected a number, found 'five'"],
      ['1 2 3\n4 5\n', 'line 2 has 2 numbers but line 1 has 3; every row needs the same count'],
      ['1,,2', "line 1, column 3: expected a number, found ','"],
      ['1 [2', "line 1, column 3: expected a comma, a space, ']' or the end of the line, found '['"],
      ['[1 2] x', "line 1, column 7: expected the end of the line after ']', found 'x'"],
      ['1 NaN', "line 1, column 3: expected a finite number, found 'NaN'"],
      ['1 1e39', "line 1, column 3: expected a number within float32's range (±3.4028235e+38), found '1e39'"],
      ['日本 1', "line 1, column 1: expected a number, found '日本'"],
      ['😀 1 x', "line 1, column 1: expected a number, found '😀'"],
      ['1 2 😀x', "line 1, column 5: expected a number, found '😀x'"],
      ['', 'no numbers found: paste one row of numbers per line, separated by spaces, commas or tabs'],
    ];
    for (const [text, message] of cases) {
      const error = errorOf(() => engine.parseVectors(text));
      assert.ok(error instanceof Error, JSON.stringify(text));
      assert.equal(error.message, message);
    }
  });

  test('hostile text in an error is quoted as text, named by code point or cut short, never echoed raw', () => {
    const messageOf = (text) => errorOf(() => engine.parseVectors(text)).message;
    assert.equal(messageOf('<script>alert(1)</script>'), "line 1, column 1: expected a number, found '<script>alert(1)</script…'");
    assert.equal(messageOf('1 2 \u0007'), 'line 1, column 5: expected a number, found the control character U+0007');
    assert.equal(messageOf('1 \u202E2'), 'line 1, column 3: expected a number, found the invisible character U+202E');
    assert.equal(messageOf('1 \uD800'), "line 1, column 3: expected a number, found '\uFFFD'");
    for (const text of ['1 \u0000', '<b>\u001B[31m', '1 \u202E2', '\u2066x', 'a'.repeat(1000)]) {
      const message = messageOf(text);
      assert.doesNotMatch(message, /[\p{Cc}\u202A-\u202E\u2066-\u2069]/u, JSON.stringify(message));
      assert.ok(message.length < 200, message);
    }
  });

  test('a 5 MB table parses; a ragged last line names its number', () => {
    const row = '0.125, -2.5, 3e-2, 4, 5.5, -6.75, 7, 8\n';
    const text = row.repeat(Math.ceil(FIVE_MB / row.length));
    const table = engine.parseVectors(text);
    assert.equal(table.rows, Math.ceil(FIVE_MB / row.length));
    assert.equal(table.cols, 8);
    assert.equal(table.data.at(-3), -6.75);
    const error = errorOf(() => engine.parseVectors(`${text}1 2\n`));
    assert.equal(error.message, `line ${table.rows + 1} has 2 numbers but line 1 has 8; every row needs the same count`);
  });

  test('anything but a string is an Error naming the argument', () => {
    for (const bad of [undefined, null, 1.5, [[1, 2]], { rows: 1 }]) {
      assert.match(errorOf(() => engine.parseVectors(bad)).message, /^text must be a string, got /);
    }
  });
});

test('after every hostile input above the engine answers as before', () => {
  assert.deepEqual(tokensOf("It's fine."), ['It', "'s", 'fine', '.']);
  assert.deepEqual(Array.from(engine.parseVectors('1 2').data), [1, 2]);
});
