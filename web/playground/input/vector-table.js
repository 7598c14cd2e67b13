// The vector table: one row of numbers per token (the first TABLE_MAX_TOKENS tokens), to edit
// by hand. It is rebuilt only when its shape or tokens change, so typing keeps its focus. A
// cell that holds no number a float32 can hold is marked and named under the table, and the
// matrix keeps the last complete table meanwhile.
import { listBriefly } from '../../shared/format.js';

export const TABLE_MAX_TOKENS = 16;
const TABLE_DECIMALS = 4;

const tableCell = (x, r, c) => String(Number(x.data[r * x.cols + c].toFixed(TABLE_DECIMALS)));

/** The first rows of the matrix x, rounded as the table shows them. */
export function tableRows(x) {
  const rows = [];
  for (let r = 0; r < Math.min(x.rows, TABLE_MAX_TOKENS); ++r) {
    rows.push(Array.from(x.data.subarray(r * x.cols, (r + 1) * x.cols), (v) => Number(v.toFixed(TABLE_DECIMALS))));
  }
  return rows;
}

function cellProblem(field) {
  const name = field.getAttribute('aria-label');
  if (field.validity.badInput) return `${name}: what is typed is not a number.`;
  if (field.value.trim() === '') return `${name} is empty.`;
  if (!Number.isFinite(Math.fround(Number(field.value)))) return `${name} = ${field.value} is beyond float32 (at most ±3.4e38).`;
  return null;
}

/** Binds the table to `state`; onChange(settings, {debounce}) takes a complete table. Returns {show(input)}. */
export function createVectorTable({ state, onChange }) {
  const table = document.getElementById('vector-table');
  const message = document.getElementById('vector-table-message');
  let shownKey = '';

  // Marks the cells without a usable number and names them under the table: {fields, ok}.
  function showProblems() {
    const fields = [...table.tBodies[0].rows].map((tr) => [...tr.querySelectorAll('input')]);
    const problems = [];
    for (const field of fields.flat()) {
      const problem = cellProblem(field);
      if (problem) problems.push(problem);
      if (problem) field.setAttribute('aria-invalid', 'true');
      else field.removeAttribute('aria-invalid');
    }
    message.hidden = problems.length === 0;
    message.textContent = problems.length === 0 ? ''
      : `${listBriefly(problems)} Every cell needs a finite number; the matrix keeps the last complete table.`;
    return { fields, ok: problems.length === 0 };
  }

  function edit() {
    const { fields, ok } = showProblems();
    if (ok) onChange({ table: fields.map((row) => row.map((field) => Number(field.value))) }, { debounce: true });
  }

  // The table for the input's vectors x; cells not being typed into that do not hold x's
  // numbers are given them.
  function show({ labels, x }) {
    if (state.source !== 'table') return;
    const shown = labels.slice(0, TABLE_MAX_TOKENS);
    const key = JSON.stringify([shown.map((token) => token.text), state.tableDims]);
    if (key === shownKey) {
      [...table.tBodies[0].rows].forEach((tr, r) => tr.querySelectorAll('input').forEach((field, c) => {
        const shows = field.value.trim() === '' ? NaN : Math.fround(Number(field.value));
        if (field !== document.activeElement && shows !== x.data[r * x.cols + c]) field.value = tableCell(x, r, c);
      }));
      showProblems();
      return;
    }
    shownKey = key;
    message.hidden = true;
    const head = document.createElement('tr');
    head.append(...['Token', ...Array.from({ length: state.tableDims }, (_, c) => `x${c + 1}`)].map((text) => {
      const th = document.createElement('th');
      th.scope = 'col';
      th.textContent = text;
      return th;
    }));
    table.tHead.replaceChildren(head);
    const rows = shown.map((token, r) => {
      const tr = document.createElement('tr');
      const th = document.createElement('th');
      th.scope = 'row';
      th.textContent = token.text;
      tr.append(th);
      for (let c = 0; c < state.tableDims; ++c) {
        const td = document.createElement('td');
        const field = document.createElement('input');
        field.type = 'number';
        field.step = 'any';
        field.value = tableCell(x, r, c);
        field.setAttribute('aria-label', `${token.text} (#${r}), x${c + 1}`);
        field.addEventListener('input', edit);
        td.append(field);
        tr.append(td);
      }
      return tr;
    });
    table.tBodies[0].replaceChildren(...rows);
  }

  return { show };
}
