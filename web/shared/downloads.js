// Files a page offers for download, and the pieces of their text: download(blob) hands a
// Blob to the user, downloadCanvas a canvas as PNG; float32Text and csvField write numbers and
// fields of CSV or JSON files (the formatters run in workers too: no DOM at import time).

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
export function float32Text(value) {
  if (value === 0) return '0';  // the masked half of a causal matrix, at no cost
  if (!Number.isFinite(value)) return String(value);
  // Most float32 values need 7 or 8 digits: try 7 first, then 6 or 8 (toPrecision is the
  // cost; two calls instead of three make an export of 4,096² weights a quarter faster).
  const seven = roundTrips(value, MIN_DIGITS + 1);
  if (seven !== null) return roundTrips(value, MIN_DIGITS) ?? seven;
  return roundTrips(value, MIN_DIGITS + 2) ?? String(Number(value.toPrecision(FLOAT32_DIGITS)));
}

/**
 * A CSV field: quoted (quotes doubled) when it holds a comma, quote or line break; a leading
 * ' when it starts with = + - @ or a tab, so that spreadsheets do not run it as a formula.
 */
export function csvField(text) {
  const safe = FORMULA_START.test(text) ? `'${text}` : text;
  return NEEDS_QUOTES.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
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

/** Offers what `canvas` shows as a PNG file. */
export function downloadCanvas(canvas, filename) {
  canvas.toBlob((blob) => download(blob, filename), 'image/png');
}
