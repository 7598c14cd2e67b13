// How a page spells a setting in its URL hash and its controls: parse(text) gives the value or
// throws an Error whose message is the rule ("a whole number from 1 to 64"), format(value) gives
// the text back. Shared by the pages' state.js.

/** A number read from a link, −0 as 0: String(−0) writes "0", so a link keeps no −0 to read back. */
export function linkNumber(text) {
  const value = Number(text);
  return value === 0 ? 0 : value;
}

/** Whole numbers from min to max (written in digits only); min and max stay readable. */
export function wholeNumber(min, max) {
  return {
    parse(text) {
      const value = Number(text);
      if (!/^\d+$/.test(text) || value < min || value > max) throw new Error(`a whole number from ${min} to ${max}`);
      return value;
    },
    format: String,
    min,
    max,
  };
}

/** One of `choices`, spelled as it is. */
export function choice(choices) {
  return {
    parse(text) {
      if (!choices.includes(text)) throw new Error(`one of ${choices.join(', ')}`);
      return text;
    },
    format: String,
  };
}

/** A checkbox: '1' or '0'. */
export const flag = {
  parse(text) {
    if (text !== '0' && text !== '1') throw new Error('0 or 1');
    return text === '1';
  },
  format: (value) => (value ? '1' : '0'),
};
