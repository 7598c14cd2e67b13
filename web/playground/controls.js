// The option controls: each bound control sets one setting, its text parsed by state.js;
// text that does not parse is named under the control, and the setting keeps its last good
// value meanwhile. sync() brings every control in line with the state, with the problems of
// settings that fail together (checks.js) under their controls. The zoom buttons, the
// step-by-step scale slider and generation's transport (play, pause, back, forward, a step
// slider) are here too, and the options' groups, which a narrow screen folds to a line of
// their settings (option-groups.js).
import { MIN_ZOOM_TOKENS, ZOOM_STEP, zoomRegion } from '../shared/heatmap/heatmap.js';
import { showProblem, typedProblem } from '../shared/page/control-problems.js';
import { headsFix, headsHint, headsProblem, kvHeadsHint, kvHeadsProblem, slopesProblem } from './checks.js';
import { fitStep, selectQuery } from './generation.js';
import { createOptionGroups } from './option-groups.js';
import { fieldLabel, formatField, parseField, shownRegion } from './state.js';

// Controls bound one-to-one to a setting: field name → element id. The source is bound by
// input/vectors.js: a new source may bring its text or table along.
const BOUND_CONTROLS = {
  source: 'source', randomSeed: 'random-seed', randomDims: 'random-dims', tableDims: 'table-dims',
  trainable: 'trainable', torchSeed: 'torch-seed', dOut: 'd-out', heads: 'heads', kvHeads: 'kv-heads', headView: 'head-view',
  causal: 'causal', window: 'window', sinks: 'sinks', positional: 'positional', ropeBase: 'rope-base',
  ropePairing: 'rope-pairing', alibiSlopes: 'alibi-slopes', scaling: 'scaling', normalization: 'normalization',
  query: 'query', stepScale: 'step-scale', stepSource: 'step-source', value: 'value', colorScale: 'color-scale', pooling: 'pooling',
  generate: 'generate', generationStep: 'generation-step',
};
const BOUND_ELSEWHERE = ['source'];
const STEP_SCALE_DIGITS = 3;  // significant digits of a scale set with the slider
const PLAY_STEP_MS = 700;     // between two generation steps while playing

const $ = (id) => document.getElementById(id);
/**
 * Binds the controls to `state`: onChange(settings, {debounce}) applies what a control sets;
 * vectors.input() is the current input (its width decides which head counts fit). Returns
 * {sync(), fitInput(n), zoomAround(around)}.
 */
export function createControls({ state, vectors, onChange }) {
  const typedProblems = new Map();  // field → what is wrong with the text in its control
  const headView = $('head-view');
  const stepScaleRange = $('step-scale-range');
  const stepRange = $('generation-step-range');
  const playButton = $('generation-play');
  const groups = createOptionGroups();
  let tokens = 0;       // of the current input, which bounds the generation step
  let playTimer = 0;    // the next step's timer while playing, else 0

  // What is wrong with a setting besides its own text: checked against other settings.
  function settingProblem(field) {
    if (field === 'alibiSlopes') return slopesProblem(state);
    if (field === 'heads') return headsProblem(state, vectors.input());
    if (field === 'kvHeads') return kvHeadsProblem(state);
    return null;
  }

  // The one-click way out of a heads problem that d_out can end: "Set d_out to 8".
  const headsFixButton = $('heads-fix');
  let fixedDOut = null;  // the d_out the button sets, or null while it is hidden
  function showHeadsFix() {
    fixedDOut = typedProblems.has('heads') ? null : headsFix(state, vectors.input());
    // hidden, the button keeps its last text (index.html's at first): a button always has a name
    const label = `Set d_out to ${fixedDOut}`;
    if (fixedDOut !== null && headsFixButton.textContent !== label) headsFixButton.textContent = label;
    headsFixButton.parentElement.hidden = fixedDOut === null;
  }
  headsFixButton.addEventListener('click', () => {
    if (fixedDOut !== null) onChange({ dOut: fixedDOut });
  });

  function fillHeadView() {
    const options = [['all', state.heads === 1 ? 'The head' : 'All heads, small multiples']];
    for (let h = 1; h <= state.heads && state.heads > 1; ++h) options.push([String(h), `Head ${h} large`]);
    if (headView.options.length === options.length && headView.options[0].text === options[0][1]) return;
    headView.replaceChildren(...options.map(([value, text]) => new Option(text, value)));
  }

  function sync() {
    fillHeadView();
    for (const [field, id] of Object.entries(BOUND_CONTROLS)) {
      const element = $(id);
      // a control being typed into keeps its text, even when it does not parse yet
      if (element !== document.activeElement || element.type === 'checkbox' || element.tagName === 'SELECT') {
        if (element.type === 'checkbox') element.checked = state[field];
        else element.value = formatField(field, state[field]);
        typedProblems.delete(field);
      }
      showProblem(element, typedProblems.get(field) ?? settingProblem(field));
    }
    showHeadsFix();
    showZoomButtons();
    showColorScale();
    stepScaleRange.value = String(Math.log10(state.stepScale));
    $('step-scale-field').hidden = state.stepSource !== 'tutorial';
    $('generation-transport').hidden = !state.generate;
    stepRange.value = String(state.generationStep);
    // generation step by step is causal whatever the checkbox held
    $('causal').disabled = state.generate;
    if (state.generate) $('causal').checked = true;
    if (!state.generate && playTimer) pause();
    $('random-options').hidden = state.source !== 'random';
    $('torch-seed').disabled = state.trainable === 'none';
    $('d-out').disabled = state.trainable === 'none';
    $('kv-heads').disabled = state.trainable === 'none';
    $('kv-heads-hint').textContent = kvHeadsHint(state);
    $('sinks').disabled = state.window === 0;
    $('rope-options').hidden = state.positional !== 'rope';
    $('alibi-options').hidden = state.positional !== 'alibi';
    $('table-options').hidden = state.source !== 'table';
    groups.show(state);
  }

  /**
   * Fits the settings and controls to an input of n ≥ 1 tokens: a query past the end becomes
   * the last token (generating step by step, a query past the step becomes the step's token), a
   * head shown past the heads becomes 'all'; the query box's range and the
   * hint of which head counts fit follow. Returns whether a setting changed.
   */
  function fitInput(n) {
    const fixes = {};
    if (state.query >= n) fixes.query = n - 1;
    if (state.headView !== 'all' && state.headView > state.heads) fixes.headView = 'all';
    if (state.generationStep >= n) fixes.generationStep = fitStep(state.generationStep, n);
    // a link or the generation box switched on, with a query not fed yet: the newest token is the query
    const step = fixes.generationStep ?? state.generationStep;
    if (state.generate && (fixes.query ?? state.query) > step) fixes.query = step;
    const changed = Object.keys(fixes).length > 0;
    if (changed) {
      Object.assign(state, fixes);
      sync();
    }
    // Written only where they change: a keystroke's recompute was otherwise laid out and
    // painted again while the engine's threads computed it.
    const last = String(n - 1);
    for (const element of [$('query'), stepRange, $('generation-step')]) {
      if (element.max !== last) element.max = last;
    }
    tokens = n;
    if (stepRange.value !== String(state.generationStep)) stepRange.value = String(state.generationStep);
    const hint = headsHint(state, vectors.input());
    if ($('heads-hint').textContent !== hint) $('heads-hint').textContent = hint;
    if (!typedProblems.has('heads')) showProblem($('heads'), headsProblem(state, vectors.input()));
    showHeadsFix();
    showZoomButtons();
    groups.show(state);
    return changed;
  }

  // Zooms the matrix around cell (i, j), by default the selected query's row and column when
  // it is shown (so that it stays in view), else the centre of what is shown; null shows all.
  function zoomAround(around) {
    const input = vectors.input();
    if (!input || input.tokens.length === 0 || around === null) {
      onChange({ zoom: null });
      return;
    }
    const n = input.tokens.length;
    const area = shownRegion(state, n);
    const near = (start) => (state.query >= start && state.query < start + area.size ? state.query : start + Math.floor(area.size / 2));
    const { i = near(area.row0), j = near(area.col0), factor } = around;
    onChange({ zoom: zoomRegion(area, n, i, j, factor) });
  }

  // + and − only while they can act: in down to MIN_ZOOM_TOKENS rows, out up to the whole matrix.
  // The colour scale applies to weights: over scores the control shows the linear scale they
  // are drawn on, disabled, with the reason beside it (its description only then: a hidden
  // element still describes a control); the setting waits for the weights.
  function showColorScale() {
    const scores = state.value === 'scores';
    const control = $('color-scale');
    control.disabled = scores;
    if (scores) {
      control.value = 'linear';
      control.setAttribute('aria-describedby', 'color-scale-note');
    } else control.removeAttribute('aria-describedby');
    $('color-scale-note').hidden = !scores;
  }

  function showZoomButtons() {
    const n = vectors.input()?.tokens.length ?? 0;
    const { size } = shownRegion(state, n);
    $('zoom-in').disabled = size <= MIN_ZOOM_TOKENS;
    $('zoom-out').disabled = size >= n;
  }

  for (const [field, id] of Object.entries(BOUND_CONTROLS)) {
    if (BOUND_ELSEWHERE.includes(field)) continue;
    const element = $(id);
    const isText = element.type === 'number' || element.type === 'text';
    element.addEventListener(isText ? 'input' : 'change', () => {
      if (element.type === 'checkbox') return onChange({ [field]: element.checked });
      try {
        const value = parseField(field, element.value);
        typedProblems.delete(field);
        // a generation step typed in its box makes its token the query, as the transport does;
        // a query typed in its box is selected as a clicked one is
        if (field === 'query') return onChange(selectQuery(state, value), { debounce: isText });
        const follows = field === 'generationStep' && tokens > 0 ? { query: fitStep(value, tokens) } : {};
        return onChange({ [field]: value, ...follows }, { debounce: isText });
      } catch (error) {
        const problem = typedProblem(fieldLabel(field), element, error.message);
        typedProblems.set(field, problem);
        return showProblem(element, problem);
      }
    });
  }
  stepScaleRange.addEventListener('input', () => {
    const scale = Number((10 ** Number(stepScaleRange.value)).toPrecision(STEP_SCALE_DIGITS));
    onChange({ stepScale: scale });
  });
  // Generation: one step at a time, or played on a timer until the last token. The newest
  // token becomes the selected query, so the walk-through and the profile follow its row.
  function stepTo(step) {
    if (tokens === 0) return;
    const next = fitStep(step, tokens);
    onChange({ generationStep: next, query: next });
  }
  function pause() {
    clearTimeout(playTimer);
    playTimer = 0;
    playButton.textContent = 'Play';
    playButton.setAttribute('aria-pressed', 'false');
  }
  function playNext() {
    if (state.generationStep >= tokens - 1) {
      pause();
      return;
    }
    stepTo(state.generationStep + 1);
    playTimer = setTimeout(playNext, PLAY_STEP_MS);
  }
  playButton.addEventListener('click', () => {
    if (playTimer) {
      pause();
      return;
    }
    playButton.textContent = 'Pause';
    playButton.setAttribute('aria-pressed', 'true');
    if (state.generationStep >= tokens - 1) stepTo(0);  // played to the end: again from the first token
    playTimer = setTimeout(playNext, PLAY_STEP_MS);
  });
  $('generation-back').addEventListener('click', () => {
    pause();
    stepTo(state.generationStep - 1);
  });
  $('generation-forward').addEventListener('click', () => {
    pause();
    stepTo(state.generationStep + 1);
  });
  stepRange.addEventListener('input', () => {
    pause();
    stepTo(Number(stepRange.value));
  });
  $('zoom-in').addEventListener('click', () => zoomAround({ factor: ZOOM_STEP }));
  $('zoom-out').addEventListener('click', () => zoomAround({ factor: 1 / ZOOM_STEP }));
  $('zoom-reset').addEventListener('click', () => zoomAround(null));

  return { sync, fitInput, zoomAround };
}
