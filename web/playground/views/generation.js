// Generation step by step, beside the matrix: the key/value cache after the current step (a
// key cell and a value cell per token and head, evicted ones struck through with the step
// at which they left), its bytes in fp16 and fp32, and the check that the row the decoding
// step computed from the cache is the full causal matrix's row. Every number comes from the
// worker's `decode` answer (generation.js, through the engine).
import { formatBytes, formatCount } from '../../shared/format.js';

const MAX_CACHE_COLUMNS = 48;   // the latest tokens drawn (and the sinks); the others are counted in the note
const SUBSCRIPT_DIGITS = '₀₁₂₃₄₅₆₇₈₉';

const subscript = (number) => String(number).replace(/\d/g, (digit) => SUBSCRIPT_DIGITS[digit]);

function element(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (className) node.className = className;
  return node;
}

// The column head of one token: its position and text, and when it left the cache.
function tokenHead(entry, token) {
  const th = element('th', undefined, entry.evictedAt === null ? 'cached' : 'evicted');
  th.scope = 'col';
  const text = element('span', token.text, 'token');
  text.title = token.text;  // a long token is cut with an ellipsis
  th.append(element('span', `#${entry.token}`, 'position'), text);
  if (entry.evictedAt !== null) th.append(element('span', `left at ${entry.evictedAt}`, 'left'));
  return th;
}

// One cell: token j's key or value in one head, cached or evicted.
function cacheCell(kind, entry, step) {
  const evicted = entry.evictedAt !== null;
  const td = element('td', `${kind}${subscript(entry.token)}`,
    `${evicted ? 'evicted' : 'cached'}${entry.token === step ? ' newest' : ''}`);
  td.dataset.token = String(entry.token);
  td.dataset.state = evicted ? 'evicted' : 'cached';
  if (evicted) td.dataset.evictedAt = String(entry.evictedAt);
  return td;
}

/**
 * Fills `parts` ({panel, summary, table, check, note}) for decoded = the worker's `decode` answer
 * ({step, rows: [{head, weights, maxDifference}], entries, kvHeads, headWidth, shownKvHeads, bytes: {fp16, fp32}}:
 * the cache's rows are the key/value heads the shown query heads read), the tokens, and the
 * settings' window and sinks.
 */
export function renderGeneration(parts, { decoded, tokens, window, sinks }) {
  const { step, entries, bytes } = decoded;
  const newStep = parts.panel.hidden || parts.panel.dataset.step !== String(step);
  const cached = entries.filter((entry) => entry.evictedAt === null).length;
  const evicted = entries.length - cached;
  parts.panel.hidden = false;
  parts.panel.dataset.step = String(step);
  parts.panel.dataset.cached = String(cached);
  parts.panel.dataset.evicted = String(evicted);
  parts.panel.dataset.bytesFp16 = String(bytes.fp16);
  parts.panel.dataset.bytesFp32 = String(bytes.fp32);

  const kvHeads = decoded.kvHeads === 1 ? 'one key/value head' : `${decoded.kvHeads} key/value heads`;
  const bound = window > 0 ? ` The window keeps the last ${formatCount(window)}${sinks > 0 ? ` and the first ${formatCount(sinks)} (sinks)` : ''}, ` +
    `so the cache stops growing at ${formatCount(window + sinks)} tokens.` : ' Without a window it grows by one token a step.';
  parts.summary.textContent = `Step ${step}: token #${step} “${tokens[step].text}” fed. The cache holds ${formatCount(cached)} ` +
    `key${cached === 1 ? '' : 's'} and as many values${evicted > 0 ? ` (${formatCount(evicted)} evicted)` : ''}, ` +
    `${kvHeads} of width ${decoded.headWidth}: ${formatBytes(bytes.fp16)} in fp16, ${formatBytes(bytes.fp32)} in fp32 ` +
    `for this layer.${bound}`;

  // the latest tokens, and the sinks before them, which stay cached however long the text
  const latest = entries.slice(-MAX_CACHE_COLUMNS);
  const sinksBefore = window > 0 ? entries.slice(0, Math.min(sinks, entries.length - latest.length)) : [];
  const hidden = entries.length - latest.length - sinksBefore.length;
  const columns = hidden > 0 ? [...sinksBefore, null, ...latest] : [...sinksBefore, ...latest];  // null: the tokens left out
  const gap = () => element('td', '…', 'gap');
  const headRow = element('tr');
  headRow.append(element('td'), ...columns.map((entry) => (entry ? tokenHead(entry, tokens[entry.token]) : gap())));
  const thead = element('thead');
  thead.append(headRow);
  const body = element('tbody');
  for (const head of decoded.shownKvHeads) {
    for (const kind of ['k', 'v']) {
      const tr = element('tr');
      tr.dataset.head = String(head);
      const th = element('th', `Head ${head + 1} ${kind === 'k' ? 'keys' : 'values'}`);
      th.scope = 'row';
      tr.append(th, ...columns.map((entry) => (entry ? cacheCell(kind, entry, step) : gap())));
      body.append(tr);
    }
  }
  parts.table.replaceChildren(thead, body);
  // at a new step, a box narrower than the table (a phone) shows its end, the newest token
  if (newStep) {
    const box = parts.table.closest('.table-scroll');
    box.scrollLeft = box.scrollWidth;
  }
  const firstHidden = sinksBefore.length;
  parts.note.textContent = hidden > 0
    ? `Tokens #${firstHidden}–#${firstHidden + hidden - 1} are not drawn (…); the table shows ` +
      `${sinksBefore.length > 0 ? 'the sinks and ' : ''}the latest ${latest.length}.`
    : '';

  const largest = Math.max(...decoded.rows.map((row) => row.maxDifference));
  parts.check.dataset.maxDifference = String(largest);
  // the rows themselves, [{head, weights}], which the tests compare with the engine's own (a
  // property, not an attribute: nothing is serialised at each step)
  parts.check.decodedRows = decoded.rows;
  parts.check.textContent = `Row ${step} computed from the cache (token #${step}'s query against the keys and values of ` +
    `tokens 0–${step}) and row ${step} of the full causal matrix ` +
    `${largest === 0 ? 'are equal, number for number' : `differ by at most ${largest.toExponential(1)}`}: ` +
    'under a causal mask a row never changes once computed, which is why a decoder can keep the keys and values.';
}

/** Hides the panel (generation is off). */
export function hideGeneration(parts) {
  parts.panel.hidden = true;
}
