// The cost panel: memory of the score matrices for 1K–128K tokens, materialised in fp32 and
// fp16, next to the flash kernel's working set; every number is engine.attentionMemory.
import { scaleLog } from 'd3-scale';
import { formatBytes, formatCount, formatTokens } from '../../shared/format.js';

const QUESTION_TOKENS = 32 * 1024;  // "how much memory does full attention need at 32K tokens in fp16?"
const BAR_MAX_PX = 120;
const BAR_MIN_PX = 2;

function barCell(bytes, scale, kind) {
  const td = document.createElement('td');
  td.className = 'cost-cell';
  const bar = document.createElement('span');
  bar.className = `bar bar-${kind}`;
  bar.style.width = `${scale(bytes)}px`;
  const text = document.createElement('span');
  text.textContent = formatBytes(bytes);
  td.dataset.bytes = String(bytes);
  td.append(bar, text);
  return td;
}

/** Fills `parts` ({answer, table}) from rows [{n, fp32, fp16, flash}] for `heads` heads and the input's n. */
export function renderCost(parts, { rows, heads, n }) {
  const all = rows.flatMap((row) => [row.fp32, row.fp16, row.flash]);
  const scale = scaleLog().domain([Math.min(...all), Math.max(...all)]).range([BAR_MIN_PX, BAR_MAX_PX]);
  const body = document.createElement('tbody');
  for (const row of rows) {
    const tr = document.createElement('tr');
    const th = document.createElement('th');
    th.scope = 'row';
    th.textContent = row.n === n ? `${formatCount(row.n)} (this input)` : formatTokens(row.n);
    if (row.n === QUESTION_TOKENS) tr.className = 'highlight';
    if (row.n === n) tr.classList.add('current');
    tr.append(th, barCell(row.fp32, scale, 'fp32'), barCell(row.fp16, scale, 'fp16'), barCell(row.flash, scale, 'flash'));
    body.append(tr);
  }
  parts.table.tBodies[0].replaceWith(body);
  const question = rows.find((row) => row.n === QUESTION_TOKENS);
  const headsText = heads === 1 ? 'one head' : `${heads} heads`;
  parts.answer.textContent = `Full attention over 32K tokens in fp16 needs ${formatBytes(question.fp16)} ` +
    `for the score matrix of ${headsText} in one layer (${formatBytes(question.fp32)} in fp32), ` +
    `while the flash kernel works in ${formatBytes(question.flash)}: it never holds the n×n matrix, ` +
    'only one tile of scores and two numbers per row.';
  parts.answer.dataset.bytes = String(question.fp16);
}
