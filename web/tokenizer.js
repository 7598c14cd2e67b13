// Word-and-punctuation tokenizer, close to the Penn Treebank style GloVe was trained on.
// Rules, applied left to right over the text:
//   1. whitespace separates tokens and is dropped;
//   2. a word is a run of letters, combining marks and digits, with inner hyphens kept
//      ("state-of-the-art", "covid-19");
//   3. English clitics split off as GloVe has them: "don't" → do + n't, "it's" → it + 's,
//      also 're 've 'll 'd 'm (straight or curly apostrophe);
//   4. any other character (punctuation, symbols, emoji) is a token of its own.
// Tokens keep the text as typed; `key` is the lower-case form used to look words up
// (GloVe 6B is lower-case).

const TOKEN_PATTERN = new RegExp([
  String.raw`[\p{L}\p{M}\p{N}]+(?=n['’]t(?![\p{L}\p{M}\p{N}]))`, // the word before n't
  String.raw`n['’]t(?![\p{L}\p{M}\p{N}])`,                       // n't
  String.raw`['’](?:s|re|ve|ll|d|m)(?![\p{L}\p{M}\p{N}])`,       // 's 're 've 'll 'd 'm
  String.raw`[\p{L}\p{M}\p{N}]+(?:-[\p{L}\p{M}\p{N}]+)*`,        // words, inner hyphens kept
  String.raw`\S`,                                                // one other character
].join('|'), 'giu');

/** Splits text into at most `limit` tokens: [{text, key, start, end}] with UTF-16 offsets. */
export function tokenize(text, limit = Infinity) {
  const tokens = [];
  for (const match of text.matchAll(TOKEN_PATTERN)) {
    if (tokens.length === limit) break;
    const word = match[0];
    tokens.push({ text: word, key: word.toLowerCase().replaceAll('’', "'"), start: match.index, end: match.index + word.length });
  }
  return tokens;
}
