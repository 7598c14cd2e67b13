// Exports of the attention weights. The formatters build text in chunks (the worker calls
// them, so a 4,096-token export never blocks the page); download() hands a Blob to the user.
//
// CSV: a header `head,query_index,query,<key tokens…>`, then one line per head and query
//   with that query's weights over every key. Fields with a comma, quote or line break are
//   quoted (quotes doubled); a token that starts with = + - @ or a tab gets a leading ' so
//   that spreadsheets do not run it as a formula.
// JSON: {format, tokens, settings, shape: [heads, n, m], heads: [{head, scores, weights}]},
//   with rows as arrays; the non-finite numbers JSON cannot hold (masked scores −Infinity,
//   naive-softmax overflow) are the strings "Infinity", "-Infinity" and "NaN".
// Numbers are the shortest decimals that read back to the same float32.

const JSON_FORMAT = 'attention-playground/weights@1';
const MIN_DIGITS = 6;
const FLOAT32_DIGITS = 9;  // enough significant digits for any float32 to round-trip
const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;
const REVOKE_AFTER_MS = 60_000;  // keep the blob URL alive while the browser starts the download

// value written with `digits` significant digits, if that reads back to the same float32.
function roundTrips(value, digits) {
  const candidate = Number(value.toPrecision(digits));
  return Math.fround(candidate) === value ? String(candidate) : null;
}

/** Shortest decimal text of a float32 value; "Infinity", "-Infinity", "NaN" when not finite. */
function float32Text(value) {
  if (value === 0) return '0';  // the masked half of a causal matrix, at no cost
  if (!Number.isFinite(value)) return String(value);
  // Most float32 values need 7 or 8 digits: try 7 first, then 6 or 8 (toPrecision is the
  // cost; two calls instead of three make an export of 4,096² weights a quarter faster).
  const seven = roundTrips(value, MIN_DIGITS + 1);
  if (seven !== null) return roundTrips(value, MIN_DIGITS) ?? seven;
  return roundTrips(value, MIN_DIGITS + 2) ?? String(Number(value.toPrecision(FLOAT32_DIGITS)));
}

function csvText(text) {
  const safe = FORMULA_START.test(text) ? `'${text}` : text;
  return NEEDS_QUOTES.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/** CSV chunks; heads: [{head (1-based), weights: Float32Array n×m}], tokens: n = m strings. */
export function csvChunks({ tokens, heads }) {
  const n = tokens.length;
  const chunks = [`head,query_index,query,${tokens.map(csvText).join(',')}\r\n`];
  for (const { head, weights } of heads) {
    for (let i = 0; i < n; ++i) {
      const cells = new Array(n);
      for (let j = 0; j < n; ++j) cells[j] = float32Text(weights[i * n + j]);
      chunks.push(`${head},${i},${csvText(tokens[i])},${cells.join(',')}\r\n`);
    }
  }
  return chunks;
}

function jsonNumber(value) {
  return Number.isFinite(value) ? float32Text(value) : `"${value}"`;
}

function jsonRows(matrix, n, chunks) {
  for (let i = 0; i < n; ++i) {
    const cells = new Array(n);
    for (let j = 0; j < n; ++j) cells[j] = jsonNumber(matrix[i * n + j]);
    chunks.push(`${i === 0 ? '' : ','}\n[${cells.join(',')}]`);
  }
}

/** JSON chunks; heads: [{head, scores, weights}], settings: the options that produced them. */
export function jsonChunks({ tokens, heads, settings }) {
  const n = tokens.length;
  const chunks = [`{"format":${JSON.stringify(JSON_FORMAT)},"tokens":${JSON.stringify(tokens)},` +
    `"settings":${JSON.stringify(settings)},"shape":[${heads.length},${n},${n}],"heads":[`];
  heads.forEach(({ head, scores, weights }, h) => {
    chunks.push(`${h === 0 ? '' : ','}{"head":${head},"scores":[`);
    jsonRows(scores, n, chunks);
    chunks.push('],"weights":[');
    jsonRows(weights, n, chunks);
    chunks.push(']}');
  });
  chunks.push(']}\n');
  return chunks;
}

/** Offers `blob` as a file download. */
export function download(blob, filename) {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), REVOKE_AFTER_MS);
}
