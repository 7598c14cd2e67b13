// The lab's controls: their ranges and options set up from state.js and the published data,
// the settings shown in them and their read-outs, and what each control sets, with the scope
// of what that changes (mechanisms feed every chart; the needle's settings only charts 3–4).
import { format } from 'd3-format';
import { formatCount, plural } from '../shared/format.js';
import { DOCUMENT_COUNTS, SOURCE } from '../shared/published-data.js';
import { isPresetOf, LENGTHS, PRESETS, RANGES, SLOPES, WINDOWS } from './state.js';

const $ = (id) => document.getElementById(id);
const slopeText = format('.2~e');
const nearestIndex = (list, value) => list.reduce((best, v, k) => (Math.abs(v - value) < Math.abs(list[best] - value) ? k : best), 0);
// the slope slider's stop nearest to `slope` on a log scale (a link's slope may lie between them)
const slopeToSlider = (slope) => nearestIndex(SLOPES.map(Math.log10), Math.log10(slope));

// Each control, by name: the settings it sets and the scope of what it changes.
const CONTROLS = {
  n: [(el) => ({ n: LENGTHS[Number(el.value)] }), 'mechanisms'],
  layers: [(el) => ({ layers: Number(el.value) }), 'mechanisms'],
  residual: [(el) => ({ residual: Number(el.value) }), 'mechanisms'],
  causal: [(el) => ({ causal: el.checked }), 'mechanisms'],
  positional: [(el) => ({ positional: el.value }), 'mechanisms'],
  slope: [(el) => ({ slope: SLOPES[Number(el.value)] }), 'mechanisms'],
  ropeBase: [(el) => ({ ropeBase: Number(el.value) }), 'mechanisms'],
  ropeStrength: [(el) => ({ ropeStrength: Number(el.value) }), 'mechanisms'],
  window: [(el) => ({ window: WINDOWS[Number(el.value)] }), 'mechanisms'],
  sinks: [(el) => ({ sinks: Number(el.value) }), 'mechanisms'],
  measure: [(el) => ({ measure: el.value }), 'measure'],
  logScale: [(el) => ({ logScale: el.checked }), 'position-view'],
  signal: [(el) => ({ signal: Number(el.value) }), 'needle'],
  noise: [(el) => ({ noise: Number(el.value) }), 'needle'],
  trials: [(el) => ({ trials: Number(el.value) }), 'needle'],
  metric: [(el) => ({ metric: el.value }), 'needle'],
  mitigation: [(el) => ({ mitigation: el.value }), 'mitigation'],
  documents: [(el) => ({ documents: Number(el.value) }), 'published'],
};

/** What the control `element` sets and the scope of the change: [settings, scope], or null for no control of the lab. */
export function readControl(element) {
  const control = CONTROLS[element.name];
  if (!control) return null;
  const [read, scope] = control;
  return [read(element), scope];
}

/**
 * Gives the sliders their ranges, the selects their options and the presets their buttons
 * (pressed while the settings are the preset's, showSettings); onPreset(settings).
 */
export function setUpControls({ onPreset }) {
  $('n').max = String(LENGTHS.length - 1);
  $('window').max = String(WINDOWS.length - 1);
  $('slope').max = String(SLOPES.length - 1);
  for (const [name, [min, max, step]] of Object.entries(RANGES)) {
    Object.assign(document.querySelector(`input[name="${name}"]`), { min, max, step });
  }
  for (const documents of DOCUMENT_COUNTS) $('documents').append(new Option(`${documents} documents`, String(documents)));
  $('published-source').textContent = `Source: ${SOURCE.match(/^.*?\)/)?.[0] ?? SOURCE}. `
    + 'Multi-document question answering, accuracy by the position of the answer document, transcribed from the paper\'s tables.';
  for (const preset of PRESETS) {
    const button = document.createElement('button');
    button.type = 'button';
    button.textContent = preset.label;
    button.dataset.preset = preset.id;
    button.setAttribute('aria-pressed', 'false');
    button.addEventListener('click', () => onPreset(preset.settings));
    $('presets').append(button);
  }
}

// The decay in a few words: 'ALiBi 3e-3', 'RoPE 10,000', 'no decay'.
function decayWords(settings) {
  if (settings.positional === 'alibi') return `ALiBi ${slopeText(settings.slope)}`;
  if (settings.positional === 'rope') return `RoPE ${formatCount(settings.ropeBase)}`;
  return 'no decay';
}

/**
 * The mechanisms in one line, for the folded settings sheet of a narrow screen:
 * '1,024 tokens · L 12 · α 0.85 · causal · ALiBi 3e-3', with '· window 128 + 4 sinks' when windowed
 * ('· window 128' without sinks, '· window 128 + 1 sink' with one).
 */
export function settingsDigest(settings) {
  const parts = [
    `${formatCount(settings.n)} tokens`, `L ${settings.layers}`, `α ${format('.2f')(settings.residual)}`,
    settings.causal ? 'causal' : 'bidirectional', decayWords(settings),
  ];
  if (settings.window > 0) {
    parts.push(settings.sinks > 0 ? `window ${settings.window} + ${plural(settings.sinks, 'sink')}` : `window ${settings.window}`);
  }
  return parts.join(' · ');
}

// Puts the slider `id` at `position` and writes the value it stands for, `text`, in its read-out
// (the <output> `${id}-value`) and in its aria-valuetext (`spoken`, when it reads better than
// `text`), so that a screen reader announces that value and not the slider's position: '1,024
// tokens', not 12.
function showSlider(id, position, text, spoken = text) {
  $(id).value = String(position);
  $(id).setAttribute('aria-valuetext', spoken);
  $(`${id}-value`).textContent = text;
}

/** Puts `settings` into the controls and their read-outs, and presses the preset they are, if any. */
export function showSettings(settings) {
  const form = $('controls');
  $('settings-digest').textContent = settingsDigest(settings);
  for (const preset of PRESETS) {
    $('presets').querySelector(`[data-preset="${preset.id}"]`).setAttribute('aria-pressed', String(isPresetOf(preset, settings)));
  }
  showSlider('n', nearestIndex(LENGTHS, settings.n), `${formatCount(settings.n)} tokens`);
  showSlider('layers', settings.layers, String(settings.layers));
  showSlider('residual', settings.residual, format('.2f')(settings.residual));
  $('causal').checked = settings.causal;
  for (const radio of form.elements.positional) radio.checked = radio.value === settings.positional;
  // the read-out's '3e-3' spoken as the decimal the link holds, '0.003'
  showSlider('slope', slopeToSlider(settings.slope), slopeText(settings.slope), String(settings.slope));
  $('slope-control').hidden = settings.positional !== 'alibi';
  $('rope-controls').hidden = settings.positional !== 'rope';
  $('rope-base').value = String(settings.ropeBase);
  showSlider('rope-strength', settings.ropeStrength, String(settings.ropeStrength));
  showSlider('window', nearestIndex(WINDOWS, settings.window), settings.window === 0 ? 'off' : `${settings.window} tokens`);
  showSlider('sinks', settings.sinks, settings.window === 0 ? 'needs a window' : String(settings.sinks));
  $('sinks').disabled = settings.window === 0;
  for (const radio of form.elements.measure) radio.checked = radio.value === settings.measure;
  showSlider('signal', settings.signal, String(settings.signal));
  showSlider('noise', settings.noise, String(settings.noise));
  showSlider('trials', settings.trials, String(settings.trials));
  $('metric').value = settings.metric;
  $('log-scale').checked = settings.logScale;
  for (const radio of document.querySelectorAll('input[name="mitigation"]')) radio.checked = radio.value === settings.mitigation;
  $('documents').value = String(settings.documents);
}
