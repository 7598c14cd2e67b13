// The step-by-step view for one query, in one of two versions. The matrix's: the selected
// query's row of one head of the matrix on display, with that head's q, k and v (projected,
// positioned, scaled and masked as the matrix is), its weights and its part of the context
// row, so the numbers are the heatmap's. The tutorial's raw version: q = k = v = x, scores
// (dot products times the scale), the weights under each normalisation, and the context
// vector. The engine's numbers as they are, Infinity and NaN included, via the worker.
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

// A key's token, cut with an ellipsis when long (the title holds it whole).
function tokenCell({ text, unknown }) {
  const td = cell('td', '', unknown ? 'unknown' : '');
  const span = cell('span', text, 'token-text');
  span.title = text;
  td.append(span);
  return td;
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

const NORMALIZATION_NAMES = { softmax: 'Softmax', 'naive-softmax': 'Naive softmax', sum: 'Sum ω/Σω' };
// the same within a sentence: lower-cased by hand, as toLowerCase() would turn Σ into σ
const NORMALIZATION_IN_TEXT = { softmax: 'softmax', 'naive-softmax': 'naive softmax', sum: 'sum ω/Σω' };
const POSITION_TEXT = {
  none: '',
  sinusoidal: ' The sinusoidal encoding was added to x before the projections.',
  rope: ' RoPE rotates q and each k by its position before the dot product: the q and k shown are after the rotation, so their dot product times the scale is the score.',
  alibi: ' ALiBi adds its bias to each score before the weights: the table shows the scaled dot product and the bias apart, and their sum.',
};

// ALiBi's slope m of query head `head` of `heads`: the one typed, or the geometric default
// 2^(−8h/H) for h = head + 1, in float32 as the engine has it.
function alibiSlope(positional, head, heads) {
  return Math.fround(positional.slopes?.[head] ?? 2 ** ((-8 * (head + 1)) / heads));
}

const dotProduct = (a, b) => a.reduce((sum, value, t) => sum + value * b[t], 0);

// The table's head: one column header per name; {number: text} heads a column of numbers,
// aligned as they are; {hidden: text} is read out but not shown.
function tableHead(names) {
  const tr = document.createElement('tr');
  tr.append(...names.map((name) => {
    const th = document.createElement('th');
    th.scope = 'col';
    if (typeof name === 'string') {
      th.textContent = name;
    } else if (name.number !== undefined) {
      th.textContent = name.number;
      th.className = 'number';
    } else {
      th.append(cell('span', name.hidden, 'visually-hidden'));
    }
    return th;
  }));
  const head = document.createElement('thead');
  head.append(tr);
  return head;
}

// Why naive softmax gave NaN: the row's largest score overflows exp in float32.
function overflowNote(largest) {
  return `The largest score is ${formatNumber(largest)}: exp of anything above ${FLOAT32_EXP_LIMIT} ` +
    'overflows float32 to Infinity, so the naive softmax divides Infinity by Infinity and gets NaN. ' +
    'The stable softmax subtracts the row maximum first, so its largest exponent is exp(0) = 1.';
}

// Which of the row's keys the table shows (`mask`: the mask's parts, as the summary names them).
function shownNote({ rows, visible, n }, mask) {
  if (rows.length === n) return 'These are the numbers of the heatmap’s row: hover its cells to compare.';
  const under = mask.length === 1 && mask[0] === 'causal' ? 'the causal mask' : `the mask (${mask.join(', ')})`;
  if (visible === n) return `Showing the ${rows.length} keys with the largest weights out of ${n}.`;
  if (rows.length === visible) return `Showing the ${visible} key${visible === 1 ? '' : 's'} visible under ${under}, of ${n}.`;
  return `Showing the ${rows.length} keys with the largest weights out of the ${visible} visible under ${under}, of ${n}.`;
}

// The matrix's version: walk = the worker's matrixWalk answer.
function renderMatrixSteps(parts, { walk, tokens, query }) {
  const { options } = walk;
  const heads = walk.heads === 1 ? '' : `, head ${walk.head + 1} of ${walk.heads}`;
  // the scale's value apart, so that it does not read as the score's
  const scaleText = options.scale === true ? `1/√${walk.keyWidth} (= ${formatNumber(walk.scale, 4)})`
    : formatNumber(walk.scale, 4);
  const rope = options.positional.type === 'rope';
  const queryText = rope ? `q after RoPE = ${vectorText(walk.query)} (before: ${vectorText(walk.queryBefore)})`
    : `q = ${vectorText(walk.query)}`;
  const mask = [options.causal && 'causal', options.window > 0 && `window ${options.window}`,
    options.window > 0 && options.sinks > 0 && `${options.sinks} sink${options.sinks === 1 ? '' : 's'}`].filter(Boolean);
  const alibi = options.positional.type === 'alibi';
  const slope = alibi ? alibiSlope(options.positional, walk.head, walk.heads) : 0;
  const bias = alibi ? ` − m · |${query} − j| (ALiBi, this head's slope m = ${Number(slope.toPrecision(6))})` : '';
  parts.summary.textContent = `Query #${query} “${tokens[query].text}”${heads}: ${queryText}; ` +
    `score ω_j = (q · k_j) × ${scaleText}${bias}${mask.length > 0 ? `, masked keys (${mask.join(', ')}) −Infinity` : ''}; ` +
    `weights by ${NORMALIZATION_IN_TEXT[options.normalization]}; ` +
    `context z = Σ_j weight_j · v_j, this head's part of the context row.${POSITION_TEXT[options.positional.type]}`;
  parts.summary.dataset.query = Array.from(walk.query).join(',');
  // under ALiBi the score's two parts first: the scaled dot product and the bias −m·|i − j|
  const scoreHeads = alibi ? [{ number: 'q · k_j × scale' }, { number: 'Bias −m·|i−j|' }] : [];
  const head = tableHead([{ number: '#' }, 'Key', ...scoreHeads, { number: 'Score ω' },
    { number: `Weight (${NORMALIZATION_NAMES[options.normalization]})` },
    { hidden: 'Weight as a bar' }, rope ? 'Key k_j after RoPE' : 'Key k_j', 'Value v_j']);
  const body = document.createElement('tbody');
  walk.rows.forEach((j, r) => {
    const tr = document.createElement('tr');
    if (j === query) tr.className = 'selected';
    const token = tokenCell(tokens[j]);
    const scoreParts = alibi
      ? [numberCell(dotProduct(walk.query, walk.keys[r]) * walk.scale), numberCell(-Math.fround(slope * Math.abs(query - j)) || 0)] : [];
    tr.append(cell('td', String(j), 'number'), token, ...scoreParts, numberCell(walk.scores[r]), numberCell(walk.weights[r]),
      barCell(walk.weights[r]), vectorCell(walk.keys[r]), vectorCell(walk.values[r]));
    body.append(tr);
  });
  parts.table.replaceChildren(head, body);
  parts.table.dataset.source = 'matrix';
  parts.context.textContent = `z = ${vectorText(walk.context)}`;
  parts.context.dataset.values = Array.from(walk.context).join(',');
  const overflowed = options.normalization === 'naive-softmax' && walk.weights.some((w) => !Number.isFinite(w));
  // a key cut from a long row ranks by weight, NaN first (walkthrough-keys.js): say so when an
  // overflow's NaN chose (the plain sum's NaN, 0 / 0, is not an overflow)
  const nanFirst = overflowed && walk.rows.length < walk.visible && walk.weights.some(Number.isNaN)
    ? 'NaN weights, whose exp overflowed, count as the largest.' : '';
  parts.note.textContent = [shownNote(walk, mask), nanFirst, overflowed ? overflowNote(Math.max(...walk.scores)) : '']
    .filter(Boolean).join(' ');
}

/** Empties `parts` ({intro, summary, table, context, note}): no query to walk through. */
export function clearSteps(parts) {
  for (const name of ['intro', 'summary', 'context', 'note']) parts[name].textContent = '';
  delete parts.context.dataset.values;
  delete parts.summary.dataset.query;
  delete parts.table.dataset.source;
  parts.table.replaceChildren(document.createElement('thead'), document.createElement('tbody'));
}

/**
 * Fills `parts` ({intro, summary, table, context, note}) for walk, the worker's walkthrough
 * answer: the matrix's version (source 'matrix'), or the tutorial's
 * {source: 'tutorial', n, dims, rows, scores, sum, naive, softmax, vectors, context}, and the tokens shown.
 */
export function renderSteps(parts, { walk, tokens, query, scale }) {
  parts.intro.textContent = walk.source === 'matrix'
    ? 'The selected query’s row of the matrix above: the same vectors, projections, head, scale, mask and positions.'
    : 'As in the tutorial, the query, keys and values are the token vectors themselves; the matrix applies every option.';
  if (walk.source === 'matrix') {
    renderMatrixSteps(parts, { walk, tokens, query });
    return;
  }
  parts.table.dataset.source = 'tutorial';
  delete parts.summary.dataset.query;
  const queryToken = tokens[query];
  parts.summary.textContent = `Query #${query} “${queryToken.text}”, scale ${formatNumber(scale, 3)}: ` +
    `score ω_j = (x_q · x_j) × scale, three ways to turn scores into weights, ` +
    `and the context vector z = Σ_j softmax_j · x_j.`;

  const body = document.createElement('tbody');
  walk.rows.forEach((j, r) => {
    const tr = document.createElement('tr');
    if (j === query) tr.className = 'selected';
    const token = tokenCell(tokens[j]);
    tr.append(cell('td', String(j), 'number'), token, numberCell(walk.scores[r]), numberCell(walk.sum[r]),
      numberCell(walk.naive[r]), numberCell(walk.softmax[r]), barCell(walk.softmax[r]),
      vectorCell(walk.vectors[r]));
    body.append(tr);
  });
  const head = tableHead([{ number: '#' }, 'Key', { number: 'Score ω' }, { number: 'Sum ω/Σω' },
    { number: 'Naive e^ω/Σe^ω' }, { number: 'Softmax' },
    { hidden: 'Softmax weight as a bar' }, 'Vector x_j']);
  parts.table.replaceChildren(head, body);

  parts.context.textContent = `z = ${vectorText(walk.context)}`;
  parts.context.dataset.values = Array.from(walk.context).join(',');

  const notes = [];
  if (walk.rows.length < walk.n) {
    notes.push(`Showing the ${walk.rows.length} keys with the largest softmax weights out of ${walk.n}.`);
  }
  const largest = Math.max(...walk.scores);
  if (walk.naive.some((w) => !Number.isFinite(w))) {
    notes.push(overflowNote(largest));
  } else {
    notes.push(`The largest score is ${formatNumber(largest)}; naive softmax overflows once a score passes ` +
      `${FLOAT32_EXP_LIMIT} (raise the scale to see it).`);
  }
  parts.note.textContent = notes.join(' ');
}
