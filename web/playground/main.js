// Wiring of the playground page: controls ↔ state (URL hash) → tokens and vectors → the
// engine in its worker → the views. Each stage runs again only when its inputs changed, and
// a newer change makes older, still-running updates stop at their next step.
import { embedTokens, loadGlove } from './input/embeddings.js';
import { download } from './weights-export.js';
import { formatCount, formatNumber, listBriefly } from '../shared/format.js';
import { shorten } from '../shared/url-hash.js';
import { ZOOM_STEP, colorDomain, createHeatmap, zoomRegion } from '../shared/heatmap/heatmap.js';
import { createLegend } from '../shared/heatmap/legend.js';
import { createLines } from './views/lines.js';
import { PRESETS, PRESET_DIMS, longSample } from './input/presets.js';
import { drawProfile } from './views/profile.js';
import { LIMITS, fieldLabel, formatField, formatLink, parseField, parseHash } from './state.js';
import { renderCost } from './views/cost.js';
import { renderSteps } from './views/steps.js';
import { Superseded, createWorkerClient } from '../shared/worker/client.js';

const MAX_TOKENS = 8192;             // longer texts are cut here (the engine's memory budget)
const LONG_SAMPLE_TOKENS = 4096;
const TYPING_DEBOUNCE_MS = 250;
const HASH_WRITE_DEBOUNCE_MS = 300;
const ELAPSED_TICK_MS = 100;
const SINGLE_MAX_CELLS = 512;        // cells per side of one large panel; longer inputs come pooled
const MULTIPLE_MAX_CELLS = 256;      // per side of each small multiple
const PROFILE_POINTS = 512;
const LINES_MAX_TOKENS = 40;
const STEPS_MAX_ROWS = 24;
const TOKEN_CHIPS_MAX = 256;
const TABLE_MAX_TOKENS = 16;
const TABLE_DECIMALS = 4;
const EXPORT_MAX_CELLS = 2 ** 24;    // heads × n × n of one CSV or JSON export
const MS_PER_SECOND = 1000;

const $ = (id) => document.getElementById(id);
const elements = {
  sentence: $('sentence'), longSample: $('long-sample'), tokenCount: $('token-count'), tokens: $('tokens'),
  sourceStatus: $('source-status'), randomOptions: $('random-options'), tableOptions: $('table-options'),
  vectorTable: $('vector-table'), headView: $('head-view'), headsHint: $('heads-hint'),
  engineStatus: $('engine-status'), notices: $('notices'), progress: $('progress'), computeStatus: $('compute-status'),
  heatmap: $('heatmap'), tooltip: $('heatmap-tooltip'), zoomStatus: $('zoom-status'),
  profile: $('profile'), lines: $('lines'), linesStatus: $('lines-status'),
  stepScaleRange: $('step-scale-range'), query: $('query'), tableMessage: $('vector-table-message'),
  linkNote: $('link-note'),
};

// Controls bound one-to-one to a setting: field name → element id.
const BOUND_CONTROLS = {
  source: 'source', randomSeed: 'random-seed', randomDims: 'random-dims', tableDims: 'table-dims',
  trainable: 'trainable', torchSeed: 'torch-seed', dOut: 'd-out', heads: 'heads', headView: 'head-view',
  causal: 'causal', window: 'window', sinks: 'sinks', positional: 'positional', ropeBase: 'rope-base',
  ropePairing: 'rope-pairing', alibiSlopes: 'alibi-slopes', scaling: 'scaling', normalization: 'normalization',
  query: 'query', stepScale: 'step-scale', value: 'value', pooling: 'pooling',
};
// A typed control's problems show in the element `${id}-message` under it.
const messageOf = (id) => $(`${id}-message`);
// The settings each source of vectors depends on, besides the text.
const SOURCE_FIELDS = { random: ['randomSeed', 'randomDims'], table: ['tableDims', 'table'] };
const PROJECTION_FIELDS = ['trainable', 'torchSeed', 'dOut'];

let state;
let glove = null;         // the decoded GloVe table, once loaded
let gloveLoading = null;  // its promise
let input = null;         // {key, tokens, labels, x, unknown, truncated}
let view = null;          // what the views show: {computed, heads, region, blocks, profiles, lines, milliseconds}
let updates = 0;          // generation of the latest update()
let linkNotice = null;    // the notice about the link's ignored settings, replaced by the next one
const typedProblems = new Map();  // field → what is wrong with the text in its control

const client = createWorkerClient(new Worker(new URL('./worker.js', import.meta.url), { type: 'module' }));
const heatmap = createHeatmap(elements.heatmap, elements.tooltip, {
  onSelectQuery: (query) => change({ query }),
  onZoom: (around) => zoomAround(around),
});
const updateLegend = createLegend({
  bar: $('legend-bar'), axis: $('legend-axis'), title: $('legend-title'), swatches: $('legend-swatches'),
});
const drawLines = createLines(elements.lines, $('lines-links'), { onSelectQuery: (query) => change({ query }) });

// ---- notices and status ---------------------------------------------------------------

function notice(message) {
  const item = document.createElement('p');
  item.className = 'notice';
  const text = document.createElement('span');
  text.textContent = message;
  const close = document.createElement('button');
  close.type = 'button';
  close.textContent = 'Dismiss';
  close.addEventListener('click', () => item.remove());
  item.append(text, close);
  elements.notices.append(item);
  return item;
}

function showProgress(text, fraction = null) {
  elements.progress.hidden = false;
  if (fraction === null) elements.progress.removeAttribute('value');
  else elements.progress.value = fraction;
  elements.computeStatus.classList.remove('error');
  elements.computeStatus.textContent = text;
}

function showDone(text, isError = false) {
  elements.progress.hidden = true;
  elements.computeStatus.classList.toggle('error', isError);
  elements.computeStatus.textContent = text;
}

// ---- state, URL hash and controls -------------------------------------------------------

let hashTimer = 0;
function writeHash() {
  clearTimeout(hashTimer);
  hashTimer = setTimeout(() => {
    const { hash, textLeftOut } = formatLink(state);
    history.replaceState(null, '', hash ? `#${hash}` : `${location.pathname}${location.search}`);
    elements.linkNote.hidden = !textLeftOut;
    elements.linkNote.textContent = textLeftOut
      ? `This text is not in the page's link: encoded for a URL it takes more than ${formatCount(LIMITS.MAX_LINK_TEXT)} ` +
        'characters, the most a link keeps. The link keeps every other setting; opened, it shows the default sentence.'
      : '';
  }, HASH_WRITE_DEBOUNCE_MS);
}

function readHash() {
  const { state: parsed, problems } = parseHash(location.hash);
  state = parsed;
  linkNotice?.remove();
  linkNotice = problems.length > 0 ? notice(`Some settings in the link were ignored: ${listBriefly(problems)}.`) : null;
}

function setControl(field, element) {
  if (element.type === 'checkbox') element.checked = state[field];
  else element.value = formatField(field, state[field]);
}

// ALiBi takes one slope per head; a list of another length waits for the heads or the list to change.
function slopesProblem() {
  const count = state.alibiSlopes.length;
  if (state.positional !== 'alibi' || count === 0 || count === state.heads) return null;
  return `${count} ALiBi slope${count === 1 ? '' : 's'} for ${state.heads} head${state.heads === 1 ? '' : 's'}: ` +
    'give one per head, or leave the slopes empty for the geometric ones.';
}

// The width d the heads split: of the vectors, or d_out with trainable weights.
function modelWidth() {
  return state.trainable === 'none' ? input?.x?.cols ?? state.randomDims : state.dOut;
}

// Head counts up to the page's maximum that split `width` evenly (into even widths for RoPE).
function headChoices(width, even) {
  const choices = [];
  for (let h = 1; h <= Math.min(width, LIMITS.MAX_HEADS); ++h) {
    if (width % h === 0 && (!even || (width / h) % 2 === 0)) choices.push(h);
  }
  return choices;
}

// The heads must split d evenly, and with RoPE into even widths (it rotates pairs of coordinates).
function headsProblem() {
  if (!input || input.tokens.length === 0) return null;
  const width = modelWidth();
  const heads = state.heads;
  const count = `${heads} head${heads === 1 ? '' : 's'}`;
  if (width % heads !== 0) {
    return `${count} cannot split d = ${width} into equal slices: choose ${headChoices(width, false).join(', ')}.`;
  }
  if (state.positional !== 'rope' || (width / heads) % 2 === 0) return null;
  const even = headChoices(width, true);
  return `RoPE rotates pairs of coordinates, so each head's width must be even: ${count} over d = ${width} ` +
    `${heads === 1 ? 'gives a head' : 'give heads'} of ${width / heads} dimensions. ` +
    (even.length > 0 ? `With RoPE choose ${even.join(', ')} heads.`
      : `No number of heads gives an even width with d = ${width}: use other vectors, or trainable weights with an even d_out.`);
}

// What is wrong with a setting besides its own text: checked against other settings.
function settingProblem(field) {
  if (field === 'alibiSlopes') return slopesProblem();
  if (field === 'heads') return headsProblem();
  return null;
}

// Marks a control invalid or valid, with its message under it.
function showProblem(field, element, problem) {
  if (problem === null) element.removeAttribute('aria-invalid');
  else element.setAttribute('aria-invalid', 'true');
  element.setCustomValidity(problem ?? '');
  const message = messageOf(element.id);
  if (message) {
    message.textContent = problem ?? '';
    message.hidden = problem === null;
  }
}

// A control's text that does not parse: its setting, the rule and what was typed.
function typedProblem(field, element, rule) {
  const start = `The ${fieldLabel(field)} must be ${rule}`;
  if (element.validity.badInput) return `${start}; what is typed is not a number.`;
  const typed = element.value.trim();
  return typed === '' ? `${start}; the box is empty.` : `${start}; got “${shorten(typed)}”.`;
}

function syncControls() {
  if (elements.sentence.value !== state.text) elements.sentence.value = state.text;
  fillHeadView();
  for (const [field, id] of Object.entries(BOUND_CONTROLS)) {
    const element = $(id);
    // a control being typed into keeps its text, even when it does not parse yet
    if (element !== document.activeElement || element.type === 'checkbox' || element.tagName === 'SELECT') {
      setControl(field, element);
      typedProblems.delete(field);
    }
    showProblem(field, element, typedProblems.get(field) ?? settingProblem(field));
  }
  elements.stepScaleRange.value = String(Math.log10(state.stepScale));
  elements.randomOptions.hidden = state.source !== 'random';
  $('torch-seed').disabled = state.trainable === 'none';
  $('d-out').disabled = state.trainable === 'none';
  $('sinks').disabled = state.window === 0;
  $('rope-options').hidden = state.positional !== 'rope';
  $('alibi-options').hidden = state.positional !== 'alibi';
  elements.tableOptions.hidden = state.source !== 'table';
}

function fillHeadView() {
  const options = [['all', state.heads === 1 ? 'The head' : 'All heads, small multiples']];
  for (let h = 1; h <= state.heads && state.heads > 1; ++h) options.push([String(h), `Head ${h} large`]);
  if (elements.headView.options.length === options.length && elements.headView.options[0].text === options[0][1]) return;
  elements.headView.replaceChildren(...options.map(([value, text]) => new Option(text, value)));
}

let typingTimer = 0;
/** Applies settings, brings the controls and the hash along, and schedules an update. */
function change(settings, { debounce = false } = {}) {
  Object.assign(state, settings);
  syncControls();
  writeHash();
  clearTimeout(typingTimer);
  if (debounce) typingTimer = setTimeout(update, TYPING_DEBOUNCE_MS);
  else update();
}

function bindControls() {
  for (const [field, id] of Object.entries(BOUND_CONTROLS)) {
    if (field === 'source') continue;  // below: a new source may bring its text or table along
    const element = $(id);
    const isText = element.type === 'number' || element.type === 'text';
    element.addEventListener(isText ? 'input' : 'change', () => {
      if (element.type === 'checkbox') return change({ [field]: element.checked });
      try {
        const value = parseField(field, element.value);
        typedProblems.delete(field);
        return change({ [field]: value }, { debounce: isText });
      } catch (error) {
        const problem = typedProblem(field, element, error.message);
        typedProblems.set(field, problem);
        return showProblem(field, element, problem);
      }
    });
  }
  elements.sentence.addEventListener('input', () => change({ text: elements.sentence.value, zoom: null }, { debounce: true }));
  elements.longSample.addEventListener('click', showLongSample);
  $('source').addEventListener('change', () => {
    const source = $('source').value;
    const preset = PRESETS[source];
    if (preset) change({ source, text: preset.text, query: preset.query, zoom: null });
    else if (source === 'table' && state.table.length === 0 && input?.x?.cols <= LIMITS.MAX_TABLE_DIMS) {
      change({ source, tableDims: input.x.cols, table: tableRows(input.x) });
    } else change({ source });
  });
  elements.stepScaleRange.addEventListener('input', () => {
    const scale = Number((10 ** Number(elements.stepScaleRange.value)).toPrecision(3));
    change({ stepScale: scale });
  });
  $('zoom-in').addEventListener('click', () => zoomAround({ factor: ZOOM_STEP }));
  $('zoom-out').addEventListener('click', () => zoomAround({ factor: 1 / ZOOM_STEP }));
  $('zoom-reset').addEventListener('click', () => zoomAround(null));
  $('export-png').addEventListener('click', exportPng);
  $('export-csv').addEventListener('click', () => exportWeights('csv'));
  $('export-json').addEventListener('click', () => exportWeights('json'));
  window.addEventListener('hashchange', () => {
    readHash();
    syncControls();
    if (input) renderVectorTable();  // a link with the same table still replaces what the cells hold
    update();
  });
}

// ---- tokens and vectors -----------------------------------------------------------------

function tableRows(x) {
  const rows = [];
  for (let r = 0; r < Math.min(x.rows, TABLE_MAX_TOKENS); ++r) {
    rows.push(Array.from(x.data.subarray(r * x.cols, (r + 1) * x.cols), (v) => Number(v.toFixed(TABLE_DECIMALS))));
  }
  return rows;
}

function ensureGlove() {
  gloveLoading ??= loadGlove(document.baseURI, (fraction) => {
    showProgress(`Loading GloVe vectors… ${Math.round(fraction * 100)}%`, fraction);
  }).then((table) => {
    glove = table;
    return table;
  }, (error) => {
    gloveLoading = null;
    throw new Error(`The GloVe vectors did not load (${error.message}).`);
  });
  return gloveLoading;
}

function sourceOf(kind) {
  if (kind === 'glove') return { type: 'glove', table: glove };
  if (PRESETS[kind]) return { type: 'preset', preset: PRESETS[kind] };
  return { type: 'table', dims: state.tableDims, rows: state.table };
}

// The engine's tokens of the text, from the worker, with the vectors of the chosen source;
// `current()` tells whether the update that asked is still the latest.
async function embed(current) {
  const key = JSON.stringify([state.text, state.source, ...(SOURCE_FIELDS[state.source] ?? []).map((f) => state[f])]);
  if (input?.key === key) return;
  const [{ value: { tokens, truncated } }] = await Promise.all([
    client.request('tokenize', { text: state.text, limit: MAX_TOKENS }),
    state.source === 'glove' && !glove ? ensureGlove() : null,
  ]);
  if (!current()) return;
  let x = null;
  let unknown = tokens.map(() => false);
  if (state.source !== 'random' && tokens.length > 0) ({ x, unknown } = embedTokens(tokens, sourceOf(state.source)));
  const labels = tokens.map((token, i) => ({ text: token.text, unknown: unknown[i], index: i }));
  input = { key, tokens, labels, x, unknown, truncated };
  renderTokens();
  renderSourceStatus();
  renderVectorTable();
}

// The UTF-16 offsets where the first `limit` tokens of `text` end, from the engine in the worker.
async function tokenEnds(text, limit) {
  const { value } = await client.request('tokenize', { text, limit }, { lane: 'sample' });
  return value.tokens.map((token) => token.end);
}

async function showLongSample() {
  try {
    change({ text: await longSample(LONG_SAMPLE_TOKENS, tokenEnds), zoom: null, query: 0 });
  } catch (error) {
    if (!(error instanceof Superseded)) showDone(error.message, true);
  }
}

function renderTokens() {
  const { labels, truncated } = input;
  const unknownCount = labels.filter((token) => token.unknown).length;
  const parts = [`${formatCount(labels.length)} token${labels.length === 1 ? '' : 's'}`];
  if (unknownCount > 0) parts.push(`${formatCount(unknownCount)} with a hashed vector (dashed)`);
  if (truncated) parts.push(`text cut at ${formatCount(MAX_TOKENS)} tokens`);
  elements.tokenCount.textContent = parts.join(' · ');
  elements.tokens.replaceChildren(...labels.slice(0, TOKEN_CHIPS_MAX).map((token) => {
    const item = document.createElement('li');
    const button = document.createElement('button');
    button.type = 'button';
    button.className = `token${token.unknown ? ' unknown' : ''}`;
    button.textContent = token.text;
    button.title = `#${token.index}${token.unknown ? ': not in the vocabulary, hashed vector' : ''}`;
    button.addEventListener('click', () => change({ query: token.index }));
    item.append(button);
    return item;
  }));
  if (labels.length > TOKEN_CHIPS_MAX) {
    const more = document.createElement('li');
    more.className = 'muted';
    more.textContent = `… ${formatCount(labels.length - TOKEN_CHIPS_MAX)} more`;
    elements.tokens.append(more);
  }
  markSelectedToken();
}

function markSelectedToken() {
  elements.tokens.querySelectorAll('button.token').forEach((button, i) => {
    button.setAttribute('aria-pressed', String(i === state.query));
  });
}

function renderSourceStatus() {
  const texts = {
    glove: glove ? `GloVe 6B: the ${formatCount(glove.rows)} most frequent words × ${glove.dims} dims (int8). ` +
      'Other words get a hashed vector and show dashed.' : '',
    journey: `The tutorial's ${PRESET_DIMS}-d vectors; other words get a hashed vector.`,
    attention: `The tutorial's ${PRESET_DIMS}-d vectors; other words get a hashed vector.`,
    random: `x = torch.rand(n, ${state.randomDims}) after torch.manual_seed(${state.randomSeed}), drawn by the engine.`,
    table: `Vectors from the table; rows after the ${TABLE_MAX_TOKENS}th and empty rows get a hashed vector.`,
  };
  elements.sourceStatus.textContent = texts[state.source];
}

let tableKey = '';
const tableCell = (x, r, c) => String(Number(x.data[r * x.cols + c].toFixed(TABLE_DECIMALS)));

// The editable table, rebuilt only when its shape or tokens change so typing keeps its focus;
// otherwise the cells not being typed into that do not hold x's numbers are given them.
function renderVectorTable() {
  if (state.source !== 'table') return;
  const { labels, x } = input;
  const shown = labels.slice(0, TABLE_MAX_TOKENS);
  const key = JSON.stringify([shown.map((token) => token.text), state.tableDims]);
  if (key === tableKey) {
    [...elements.vectorTable.tBodies[0].rows].forEach((tr, r) => tr.querySelectorAll('input').forEach((field, c) => {
      const shows = field.value.trim() === '' ? NaN : Math.fround(Number(field.value));
      if (field !== document.activeElement && shows !== x.data[r * x.cols + c]) field.value = tableCell(x, r, c);
    }));
    showTableProblems();
    return;
  }
  tableKey = key;
  elements.tableMessage.hidden = true;
  const head = document.createElement('tr');
  head.append(...['Token', ...Array.from({ length: state.tableDims }, (_, c) => `x${c + 1}`)].map((text) => {
    const th = document.createElement('th');
    th.scope = 'col';
    th.textContent = text;
    return th;
  }));
  elements.vectorTable.tHead.replaceChildren(head);
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
      field.addEventListener('input', () => editTable());
      td.append(field);
      tr.append(td);
    }
    return tr;
  });
  elements.vectorTable.tBodies[0].replaceChildren(...rows);
}

// A cell that holds no number a float32 can hold: marked, named in the message under the
// table, and the table's last good numbers stay in use.
function cellProblem(field) {
  const name = field.getAttribute('aria-label');
  if (field.validity.badInput) return `${name}: what is typed is not a number.`;
  if (field.value.trim() === '') return `${name} is empty.`;
  if (!Number.isFinite(Math.fround(Number(field.value)))) return `${name} = ${field.value} is beyond float32 (at most ±3.4e38).`;
  return null;
}

// Marks the cells without a usable number and names them under the table: {fields, ok}.
function showTableProblems() {
  const fields = [...elements.vectorTable.tBodies[0].rows].map((tr) => [...tr.querySelectorAll('input')]);
  const problems = [];
  for (const field of fields.flat()) {
    const problem = cellProblem(field);
    if (problem) problems.push(problem);
    if (problem) field.setAttribute('aria-invalid', 'true');
    else field.removeAttribute('aria-invalid');
  }
  elements.tableMessage.hidden = problems.length === 0;
  elements.tableMessage.textContent = problems.length === 0 ? ''
    : `${listBriefly(problems)} Every cell needs a finite number; the matrix keeps the last complete table.`;
  return { fields, ok: problems.length === 0 };
}

function editTable() {
  const { fields, ok } = showTableProblems();
  if (ok) change({ table: fields.map((row) => row.map((field) => Number(field.value))) }, { debounce: true });
}

// ---- stages that run in the worker -------------------------------------------------------

// Remembers the last result of a stage by key, and shares a run still in progress.
function stage() {
  let done = null;
  let running = null;
  return (key, run) => {
    if (done?.key === key) return Promise.resolve(done.value);
    if (running?.key === key) return running.promise;
    done = null;
    const promise = run().then((value) => {
      if (running?.promise === promise) {
        done = { key, value };
        running = null;
      }
      return value;
    }, (error) => {
      if (running?.promise === promise) running = null;
      throw error;
    });
    running = { key, promise };
    return promise;
  };
}
const computeStage = stage();
const blocksStage = stage();
const linesStage = stage();
const profilesStage = stage();
const stepsStage = stage();
const costStage = stage();

function positionalOption() {
  if (state.positional === 'rope') return { type: 'rope', base: state.ropeBase, pairing: state.ropePairing };
  if (state.positional === 'alibi' && state.alibiSlopes.length > 0) return { type: 'alibi', slopes: state.alibiSlopes };
  return { type: state.positional };
}

function attentionOptions() {
  return {
    heads: state.heads,
    scale: state.scaling,
    normalization: state.normalization,
    causal: state.causal,
    window: state.window,
    sinks: state.sinks,
    positional: positionalOption(),
  };
}

function compute() {
  const n = input.tokens.length;
  const key = JSON.stringify([input.key, PROJECTION_FIELDS.map((field) => state[field]), attentionOptions()]);
  return computeStage(key, async () => {
    const started = performance.now();
    const label = `${formatCount(n)} × ${formatCount(n)}, ${state.heads} head${state.heads === 1 ? '' : 's'}`;
    let phase = 'starting';
    const tick = () => showProgress(`Computing ${label}: ${phase}… ${((performance.now() - started) / MS_PER_SECOND).toFixed(1)} s`);
    tick();
    const timer = setInterval(tick, ELAPSED_TICK_MS);
    try {
      const payload = {
        x: input.x,
        random: { seed: state.randomSeed, rows: n, dims: state.randomDims },
        trainable: { kind: state.trainable, seed: state.torchSeed, dOut: state.dOut },
        options: attentionOptions(),
      };
      const { value, milliseconds } = await client.request('compute', payload, { onProgress: (next) => { phase = next; } });
      return { ...value, workerMs: milliseconds, receivedAt: performance.now(), key, label };
    } finally {
      clearInterval(timer);
    }
  });
}

function shownHeads() {
  return state.headView === 'all' ? Array.from({ length: state.heads }, (_, h) => h) : [state.headView - 1];
}

function region(n) {
  const zoom = state.zoom;
  if (zoom && zoom.size < n && zoom.row0 + zoom.size <= n && zoom.col0 + zoom.size <= n) return zoom;
  return { row0: 0, col0: 0, size: n };
}

// Zooms the state's region around cell (i, j), by default its centre; null shows everything.
function zoomAround(around) {
  if (!input || input.tokens.length === 0 || around === null) {
    change({ zoom: null });
    return;
  }
  const n = input.tokens.length;
  const area = region(n);
  const centre = (start) => start + Math.floor(area.size / 2);
  const { i = centre(area.row0), j = centre(area.col0), factor } = around;
  change({ zoom: zoomRegion(area, n, i, j, factor) });
}

// The pieces of the result the views draw: the heatmap's blocks, the lines view's window
// and the profiles. Each is asked for again only when what it depends on changed, so that
// selecting a query does not pool the matrix again.
async function fetchView(computed) {
  const heads = shownHeads();
  const area = region(computed.n);
  const linesCount = Math.min(computed.n, LINES_MAX_TOKENS);
  const linesStart = Math.min(area.row0, computed.n - linesCount);
  const pooling = state.pooling;
  const query = state.query;
  const started = performance.now();
  const timed = (answer) => ({ ...answer.value, workerMs: answer.milliseconds, receivedAt: performance.now() });
  const [blocks, lines, profiles] = await Promise.all([
    blocksStage(JSON.stringify([computed.key, heads, area, pooling]), () => client.request('blocks', {
      heads, ...area, pooling, maxCells: heads.length > 1 ? MULTIPLE_MAX_CELLS : SINGLE_MAX_CELLS,
    }).then(timed)),
    linesStage(JSON.stringify([computed.key, heads, linesStart, linesCount]), () => client.request('blocks', {
      heads, row0: linesStart, col0: linesStart, size: linesCount, maxCells: linesCount, pooling,
    }, { lane: 'lines' }).then(timed)),
    profilesStage(JSON.stringify([computed.key, heads, area.col0, area.size, pooling, query]), () => client.request('profiles', {
      heads, col0: area.col0, size: area.size, query, points: PROFILE_POINTS, pooling,
    }).then(timed)),
  ]);
  return {
    computed, heads, region: area, blocks, profiles, lines: { start: linesStart, count: linesCount, panels: lines.panels },
    milliseconds: performance.now() - started,
  };
}

function drawViews() {
  if (!view) return;
  const { computed, region: area, blocks, profiles, lines } = view;
  const started = performance.now();
  const panels = blocks.panels.map((panel) => ({ ...panel, heads: computed.heads }));
  const domain = colorDomain(panels, state.value);
  heatmap.draw({
    tokens: input.labels, n: computed.n, region: area, block: blocks.block, pooling: state.pooling,
    query: state.query, panels, value: state.value, domain,
  });
  updateLegend({ heading: state.value === 'weights' ? 'Attention weight' : 'Score (after scaling and position)', domain });
  drawProfile(elements.profile, { start: area.col0, count: area.size, ...profiles });
  drawLines({
    tokens: input.labels.slice(lines.start, lines.start + lines.count),
    heads: lines.panels.map((panel) => ({ head: panel.head, weights: panel.weights })),
    query: state.query,
  });
  elements.linesStatus.textContent = lines.count < computed.n
    ? `Tokens #${lines.start}–#${lines.start + lines.count - 1} of ${formatCount(computed.n)}; zoom the matrix to move this window.`
    : 'Hover or focus a token to keep only its lines; click a query to select it.';
  const last = area.row0 + area.size - 1;
  elements.zoomStatus.textContent = `Tokens #${area.row0}–#${last}${area.col0 !== area.row0 ? ` × #${area.col0}–#${area.col0 + area.size - 1}` : ''}` +
    (blocks.block > 1 ? `, blocks of ${blocks.block}×${blocks.block}` : '');
  return performance.now() - started;
}

function steps() {
  const key = JSON.stringify([input.key, state.query, state.stepScale]);
  return stepsStage(key, () => client.request('walkthrough', { query: state.query, scale: state.stepScale, maxRows: STEPS_MAX_ROWS })
    .then(({ value }) => value));
}

function cost(n) {
  const key = JSON.stringify([state.heads, n]);
  return costStage(key, () => client.request('memory', { heads: state.heads, n }).then(({ value }) => value));
}

function clearViews(message) {
  view = null;
  elements.heatmap.dataset.rows = '0';
  elements.heatmap.dataset.cols = '0';
  elements.heatmap.getContext('2d').clearRect(0, 0, elements.heatmap.width, elements.heatmap.height);
  showDone(message);
}

/** Brings every view up to date with `state`; a newer call makes this one stop early. */
async function update() {
  const generation = ++updates;
  const current = () => generation === updates;
  const started = performance.now();
  try {
    await embed(current);
    if (!current()) return;
    const n = input.tokens.length;
    if (n === 0) {
      clearViews('Type a sentence to see its attention.');
      return;
    }
    const fixes = {};
    if (state.query >= n) fixes.query = n - 1;
    if (state.headView !== 'all' && state.headView > state.heads) fixes.headView = 'all';
    if (Object.keys(fixes).length > 0) {
      Object.assign(state, fixes);
      syncControls();
      writeHash();
    }
    elements.query.max = String(n - 1);
    markSelectedToken();
    renderHeadsHint();
    const problem = slopesProblem() ?? headsProblem();
    if (problem) throw new Error(problem);
    const costRows = cost(n);
    const computed = await compute();
    if (!current()) return;
    elements.heatmap.dataset.wasmBytes = String(computed.wasmBytes);
    const fetched = await fetchView(computed);
    if (!current()) return;
    view = fetched;
    elements.heatmap.parentElement.classList.remove('stale');
    const drawMs = drawViews();
    const timing = `engine ${formatNumber(computed.engineMs, 0)} ms, view ${formatNumber(fetched.milliseconds, 0)} ms, ` +
      `drawing ${formatNumber(drawMs, 0)} ms`;
    showDone(`${computed.label} (${timing}).`);
    recordTiming(started, { computed, fetched, drawMs });
    const walk = await steps();
    if (!current()) return;
    renderSteps({ summary: $('steps-summary'), table: $('steps-table'), context: $('steps-context'), note: $('steps-note') },
      { walk, tokens: input.labels, query: state.query, scale: state.stepScale });
    const rows = await costRows;
    if (!current()) return;
    renderCost({ answer: $('cost-answer'), table: $('cost-table') }, { rows, heads: state.heads, n });
  } catch (error) {
    if (error instanceof Superseded || !current()) return;
    elements.heatmap.parentElement.classList.add('stale');
    showDone(error.message, true);
  }
}

// The heatmap's data-timing: milliseconds of this update's steps (tests and the curious read
// it). Worker times appear only for the pieces this update asked the worker for.
function recordTiming(started, { computed, fetched, drawMs }) {
  const fresh = (piece) => (piece.receivedAt >= started ? piece.workerMs : undefined);
  elements.heatmap.dataset.timing = JSON.stringify({
    engine: computed.receivedAt >= started ? computed.engineMs : undefined,
    compute: fresh(computed),
    blocks: fresh(fetched.blocks),
    profiles: fresh(fetched.profiles),
    view: fetched.milliseconds,
    draw: drawMs,
    update: performance.now() - started,
  });
}

// Which head counts fit, and the heads control's message, for the input's width.
function renderHeadsHint() {
  const width = modelWidth();
  const divisors = headChoices(width, false);
  const even = headChoices(width, true);
  elements.headsHint.textContent = `Heads split d = ${width} into equal slices: ${divisors.join(', ')}` +
    `${width > LIMITS.MAX_HEADS ? ' …' : ''} head${divisors.length === 1 ? '' : 's'} fit` +
    (state.positional === 'rope' ? `; with RoPE (even widths): ${even.length > 0 ? even.join(', ') : 'none'}.` : '.');
  if (!typedProblems.has('heads')) showProblem('heads', $('heads'), headsProblem());
}

// ---- exports ------------------------------------------------------------------------------

function exportPng() {
  if (!view) return;
  elements.heatmap.toBlob((blob) => download(blob, 'attention-heatmap.png'), 'image/png');
}

async function exportWeights(format) {
  if (!view) return;
  const heads = view.heads;
  const n = view.computed.n;
  if (heads.length * n * n > EXPORT_MAX_CELLS) {
    notice(`${formatCount(heads.length * n * n)} weights are too many for one file (at most ${formatCount(EXPORT_MAX_CELLS)}): ` +
      'show one head, or use a shorter text.');
    return;
  }
  const settings = {
    ...Object.fromEntries(['source', ...PROJECTION_FIELDS].map((field) => [field, state[field]])), ...attentionOptions(),
  };
  showProgress(`Preparing the ${format.toUpperCase()} file…`);
  try {
    const { value: blob } = await client.request('export', { format, heads, tokens: input.labels.map((t) => t.text), settings });
    download(blob, `attention-weights.${format}`);
    showDone(`Exported ${formatCount(heads.length * n * n)} weights as ${format.toUpperCase()}.`);
  } catch (error) {
    showDone(`The export failed: ${error.message}`, true);
  }
}

// ---- start ----------------------------------------------------------------------------------

readHash();
syncControls();
bindControls();
client.ready.then(({ version }) => {
  document.documentElement.dataset.engine = 'ready';
  elements.engineStatus.textContent = `Engine ${version} ready: WebAssembly in a worker.`;
}, (error) => {
  document.documentElement.dataset.engine = 'failed';
  elements.engineStatus.textContent = error.message;
  elements.engineStatus.classList.add('error');
  elements.engineStatus.setAttribute('role', 'alert');
});
let drawnWidth = 0;
new ResizeObserver(([entry]) => {
  if (entry.contentRect.width === drawnWidth) return;
  drawnWidth = entry.contentRect.width;
  drawViews();
}).observe(elements.heatmap.parentElement);
window.matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => drawViews());
update();
