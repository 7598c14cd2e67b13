// The tutorial sentences with their exact 3-d input vectors (tests/fixtures/seed-examples.json),
// and a long sample text for trying thousands of tokens.

/** Tutorial presets: word (lower case) → the tutorial's 3-d vector. */
export const PRESETS = {
  attention: {
    text: 'Attention Mechanism drives contextual embedding',
    query: 0,
    vectors: {
      attention: [0.12, 0.45, 0.67],
      mechanism: [0.34, 0.56, 0.78],
      drives: [0.23, 0.57, 0.91],
      contextual: [0.76, 0.88, 0.45],
      embedding: [0.54, 0.12, 0.34],
    },
  },
  journey: {
    text: 'Your journey starts with one step',
    query: 1,
    vectors: {
      your: [0.43, 0.15, 0.89],
      journey: [0.55, 0.87, 0.66],
      starts: [0.57, 0.85, 0.64],
      with: [0.22, 0.58, 0.33],
      one: [0.77, 0.25, 0.10],
      step: [0.05, 0.80, 0.55],
    },
  },
};

export const PRESET_DIMS = 3;

const SAMPLE_PARAGRAPH = 'Attention lets every word look at every other word and decide how much of it to ' +
  'take in. Each query is compared with each key, the scores are turned into weights that sum to one, and ' +
  'the values are mixed with those weights into a new vector for the word. Long documents make the matrix ' +
  'of weights grow with the square of their length, which is why memory runs out long before patience does. ' +
  'Models often remember the beginning and the end of a long context and lose what sits in the middle. ';

/**
 * A text of exactly `count` tokens, made of a repeated paragraph. `tokenEnds(text, limit)`
 * resolves to the UTF-16 offsets where the first `limit` tokens of `text` end, as the engine
 * tokenizes it (the page asks its worker; the tests the engine in Node).
 */
export async function longSample(count, tokenEnds) {
  // each word of the paragraph is at least one token, so this many paragraphs are enough
  const words = SAMPLE_PARAGRAPH.trim().split(' ').length;
  const text = SAMPLE_PARAGRAPH.repeat(Math.ceil(count / words));
  const ends = await tokenEnds(text, count);
  return text.slice(0, ends[count - 1]);
}
