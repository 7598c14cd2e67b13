// The step-by-step view for one query: scores (dot products times the scale), the weights
// under each normalisation, and the context vector, with the engine's numbers as they are,
// Infinity and NaN included. All values come from engine.walkthrough (via the worker).
import { formatNumber } from '../../shared/format.js';

const SHOWN_DIMS = 3;            // vector entries shown before "… k more"
const FLOAT32_EXP_LIMIT = 88.72; // exp(x) overflows float32 above about this x
const WEIGHT_BAR_PX = 60;

function cell(tag, text, className) {
  const element = document.createElement(tag);
  element.textContent = text;
  if (className) element.className = className;
  return element;
}

function vectorText(vector) {
  const shown = Array.from(vector.slice(0, SHOWN_DIMS), (v) => formatNumber(v, 2));
  const more = vector.length - SHOWN_DIMS;
  return `[${shown.join(', ')}${more > 0 ? `, … ${more} more` : ''}]`;
}

function numberCell(value) {
  const td = cell('td', formatNumber(value), Number.isFinite(value) ? 'number' : 'number overflow');
  td.dataset.value = String(value);
  return td;
}

// The vector, shortened; data-values holds all of it.
function vectorCell(vector) {
  const td = cell('td', vectorText(vector), 'vector');
  td.dataset.values = Array.from(vector).join(',');
  return td;
}

function barCell(weight) {
  const td = cell('td', '', 'bar-cell');
  const bar = document.createElement('span');
  bar.className = 'bar';
  bar.style.width = `${Math.max(0, Math.min(1, weight)) * WEIGHT_BAR_PX}px`;
  td.append(bar);
  return td;
}

/**
 * Fills `parts` ({summary, table, context, note}) for walk =
 * {n, dims, rows, scores, sum, naive, softmax, vectors, context} and the tokens shown.
 */
export function renderSteps(parts, { walk, tokens, query, scale }) {
  const queryToken = tokens[query];
  parts.summary.textContent = `Query #${query} “${queryToken.text}”, scale ${formatNumber(scale, 3)}: ` +
    `score ω_j = (x_q · x_j) × scale, three ways to turn scores into weights, ` +
    `and the context vector z = Σ_j softmax_j · x_j.`;

  const body = document.createElement('tbody');
  walk.rows.forEach((j, r) => {
    const tr = document.createElement('tr');
    if (j === query) tr.className = 'selected';
    const token = cell('td', tokens[j].text, tokens[j].unknown ? 'unknown' : '');
    tr.append(cell('td', String(j), 'number'), token, numberCell(walk.scores[r]), numberCell(walk.sum[r]),
      numberCell(walk.naive[r]), numberCell(walk.softmax[r]), barCell(walk.softmax[r]),
      vectorCell(walk.vectors[r]));
    body.append(tr);
  });
  parts.table.tBodies[0].replaceWith(body);

  parts.context.textContent = `z = ${vectorText(walk.context)}`;
  parts.context.dataset.values = Array.from(walk.context).join(',');

  const notes = [];
  if (walk.rows.length < walk.n) {
    notes.push(`Showing the ${walk.rows.length} keys with the largest softmax weights out of ${walk.n}.`);
  }
  const largest = Math.max(...walk.scores);
  if (walk.naive.some((w) => !Number.isFinite(w))) {
    notes.push(`The largest score is ${formatNumber(largest)}: exp of anything above ${FLOAT32_EXP_LIMIT} ` +
      'overflows float32 to Infinity, so the naive softmax divides Infinity by Infinity and gets NaN. ' +
      'The stable softmax subtracts the row maximum first, so its largest exponent is exp(0) = 1.');
  } else {
    notes.push(`The largest score is ${formatNumber(largest)}; naive softmax overflows once a score passes ` +
      `${FLOAT32_EXP_LIMIT} (raise the scale to see it).`);
  }
  parts.note.textContent = notes.join(' ');
}
