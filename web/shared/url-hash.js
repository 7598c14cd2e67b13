// Reading a URL hash, shared by the pages' state parsers (playground/, lab/ and train/state.js):
// its key=value pairs, each read into the setting whose key it is, and bad keys or values
// quoted briefly in the problems they report.

const MAX_SHOWN = 40;  // characters of a bad key or value quoted back in a problem

/** Text as a problem quotes it: at most MAX_SHOWN characters, then '…'. */
export function shorten(text) {
  return text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}…` : text;
}

// Whether a piece of the hash has a % that starts no escape, or escapes that are not UTF-8
// (URLSearchParams would quietly keep the % or read U+FFFD).
function malformedEscape(part) {
  try {
    decodeURIComponent(part);
    return false;
  } catch {
    return true;
  }
}

/**
 * '#a=1&b=2' → [['a', '1'], ['b', '2']], in order. A part with a malformed %-escape is left
 * out and named in `problems` (an array the caller collects them in).
 */
export function hashEntries(hash, problems) {
  const entries = [];
  for (const part of hash.replace(/^#/, '').split('&')) {
    if (part === '') continue;
    if (malformedEscape(part)) {
      problems.push(`malformed percent-encoding in “${shorten(part)}” (a % must start an escape such as %C3%A9)`);
      continue;
    }
    entries.push(...new URLSearchParams(part));
  }
  return entries;
}

/**
 * A reader of hash entries into settings by `fields` ({name: {key, label, codec}}, codecs as
 * setting-codecs.js makes them): read(settings, key, value, problems) sets the named setting
 * to codec.parse(value), or says in `problems` that the key is unknown or the value bad
 * ('h (number of heads) must be a whole number from 1 to 16, got “x”').
 */
export function fieldReader(fields) {
  const byKey = new Map(Object.entries(fields).map(([name, field]) => [field.key, [name, field]]));
  return (settings, key, value, problems) => {
    const entry = byKey.get(key);
    if (!entry) {
      problems.push(`unknown setting “${shorten(key)}”`);
      return;
    }
    const [name, field] = entry;
    try {
      settings[name] = field.codec.parse(value);
    } catch (error) {
      problems.push(`${key} (${field.label}) must be ${error.message}, got “${shorten(value)}”`);
    }
  };
}
