// Text the user pastes (core/include/attn/text/): the tokenizer and the vector-table parser.
import {
  describe, fail, requireCount, requireKnownKeys, unwrap,
} from './arguments.mjs';

// The longest text either call takes, in UTF-16 code units: the core's limit of 2^24 bytes of
// UTF-8 (a code unit is at least one byte), checked here before the text is copied into wasm.
const MAX_TEXT_LENGTH = 2 ** 24;
// A surrogate without its partner. Embind's UTF-8 encoder would merge it with the next
// character; replaced by U+FFFD (also one code unit) the offsets stay those of the original.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

function requireText(text) {
  if (typeof text !== 'string') fail(`text must be a string, got ${describe(text)}`);
  if (text.length > MAX_TEXT_LENGTH) {
    fail(`text is ${text.length} UTF-16 code units long, more than the ${MAX_TEXT_LENGTH} accepted; paste less`);
  }
  return text.replace(LONE_SURROGATE, '\uFFFD');
}

export function textCalls(core) {
  /** Words, clitics and single symbols of `text`, each text.slice(starts[i], ends[i]); with a limit, the first ones. */
  function tokenize(text, options = {}) {
    requireKnownKeys('tokenize options', options, ['limit']);
    const limit = options.limit === undefined ? undefined : requireCount('limit', options.limit, 0);
    const { starts, ends, truncated } = unwrap(core.tokenize(requireText(text), limit));
    const startList = Array.from(starts), endList = Array.from(ends);
    return { tokens: startList.map((start, i) => text.slice(start, endList[i])), starts: startList, ends: endList, truncated };
  }

  /** A pasted table of numbers, one row per line → {rows, cols, data: Float32Array}. */
  function parseVectors(text) {
    return unwrap(core.parseVectors(requireText(text)));
  }

  return { tokenize, parseVectors };
}
