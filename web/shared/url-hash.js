// Reading a URL hash, shared by the pages' state parsers (playground/state.js, lab/state.js): its
// key=value pairs, and bad keys or values quoted briefly in the problems they report.

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
