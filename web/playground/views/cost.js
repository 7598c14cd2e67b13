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

/** Fills `parts` ({answer, table}) from rows [{n, fp32, fp16, flash}] for `heads` heads and the input's n (null: no input). */
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
    'only a tile of scores for each head (16 queries × 512 keys, less for a shorter input) and two numbers per row of the tile.';
  parts.answer.dataset.bytes = String(question.fp16);
}

// The cache at this many tokens answers the panel's question (Llama 2 7B at 4K: 2 GiB).
const KV_QUESTION_TOKENS = 4096;
const KV_BAR_MAX_PX = 90;

function kvCell(bytes, scale, beyondContext, contextTokens) {
  const td = barCell(bytes, scale, 'fp16');
  if (beyondContext) {
    td.classList.add('beyond');
    td.title = `Past the model's context of ${formatCount(contextTokens)} tokens: what the cache would hold if it ran that long`;
  }
  return td;
}

/**
 * Fills `parts` ({answer, table}) from models [{name, layers, kvHeads, headWidth, window,
 * context, perToken, at: [{tokens, bytes}]}] (engine.kvCacheMemory's numbers); kvHeads and
 * heads: the page's own setting (kvHeads null when every head has its own).
 */
export function renderKvCache(parts, { models, kvHeads, heads }) {
  const all = models.flatMap((model) => model.at.map((cell) => cell.bytes));
  const scale = scaleLog().domain([Math.min(...all), Math.max(...all)]).range([BAR_MIN_PX, KV_BAR_MAX_PX]);
  const body = document.createElement('tbody');
  for (const model of models) {
    const tr = document.createElement('tr');
    tr.dataset.model = model.name;
    const th = document.createElement('th');
    th.scope = 'row';
    th.textContent = model.name;
    const shape = document.createElement('span');
    shape.className = 'model-shape muted';
    shape.textContent = `${model.layers} × ${model.kvHeads} × ${model.headWidth}` +
      (model.kvHeads < model.heads ? ` (${model.heads} query heads)` : '') +
      (model.window > 0 ? `, window ${formatCount(model.window)}` : '');
    th.append(shape);
    const perToken = document.createElement('td');
    perToken.textContent = formatBytes(model.perToken);
    perToken.dataset.bytes = String(model.perToken);
    tr.append(th, perToken, ...model.at.map((cell) => kvCell(cell.bytes, scale, cell.tokens > model.context, model.context)));
    body.append(tr);
  }
  parts.table.tBodies[0].replaceWith(body);
  const at = (name, tokens) => models.find((model) => model.name === name).at.find((cell) => cell.tokens === tokens).bytes;
  const llama2 = at('Llama 2 7B', KV_QUESTION_TOKENS);
  const llama3 = at('Llama 3 8B', KV_QUESTION_TOKENS);
  const own = kvHeads === null ? '' : ` This page's ${heads} heads now share ${kvHeads} key/value head${kvHeads === 1 ? '' : 's'}: ` +
    `its cache is ${heads / kvHeads}× smaller than with one per head.`;
  parts.answer.textContent = `Generating 4K tokens, Llama 2 7B keeps ${formatBytes(llama2)} of keys and values in fp16; ` +
    `Llama 3 8B, whose 32 query heads share 8 key/value heads, keeps ${formatBytes(llama3)}, a quarter.${own}`;
  parts.answer.dataset.bytes = String(llama2);
}
