// Chart 6, the runs: a table that keeps every finished (or stopped, or loaded) run with its
// settings, seeds, accuracy at the trained length, at its first pair, over its middle third
// (the mean of those pairs, which the cell names: 45.3% (6–11)) and at its last pair, and
// time; a checkbox overlays a run's accuracy by position on the chart below it, Show brings a
// run back into the charts above, Use settings puts its settings back in the controls and the
// link, Remove drops it (and frees its models). A run that has not learned the task
// (learning.js) has the presets' dagger after its name, as they do, and in the overlay's
// legend, which the note under the table explains. On a phone each run is a card (train.css)
// whose settings fold behind a button of their own.
import { createLineChart, seriesColor } from '../../shared/line-chart.js';
import { daggerMark, learningOf, LEARNED_FRACTION, NOT_LEARNED_MARK, NOT_LEARNED_WORDS } from '../learning.js';
import { middlePairs, positionsAt, runName, runSummary } from '../runs.js';
import { pairX } from './lengths.js';
import { percent, percentFine, spreadSeries } from './readouts.js';

const $ = (id) => document.getElementById(id);
const TIME_DIGITS = 1;

// A cell; `label`, its column's heading, is what a phone shows before it, where the rows
// stack as cards without the table's header (train.css).
function cell(text, className, label) {
  const td = document.createElement('td');
  td.textContent = text;
  if (className) td.className = className;
  if (label) td.dataset.label = label;
  return td;
}

function button(text, onClick, label) {
  const element = document.createElement('button');
  element.type = 'button';
  element.textContent = text;
  element.setAttribute('aria-label', label);
  element.addEventListener('click', onClick);
  return element;
}

const statusWords = { finished: 'finished', stopped: 'stopped', loaded: 'loaded' };

const notLearned = (run) => learningOf(run)?.learned === false;

// What follows the name of a run that has not learned the task: the dagger, aria-hidden, and
// its words for a screen reader in its place (none for a run that has learned).
const notLearnedMark = (run) => (notLearned(run) ? daggerMark('not-learned-mark', NOT_LEARNED_WORDS) : []);

/** Returns draw(runs, shownRun); callbacks onShow(run), onUseSettings(run), onRemove(run). */
export function createRunsTable({ onShow, onUseSettings, onRemove }) {
  const overlaid = new Set();  // ids of the runs on the overlay chart
  const unfolded = new Set();  // ids of the runs whose settings a phone's card shows
  const chart = createLineChart($('overlay-chart'), {
    xLabel: 'position of the queried pair (first → last)', yLabel: 'accuracy', xFormat: percent, yFormat: percent,
    legend: $('overlay-legend'),
  });
  let last = { runs: [], shown: null };
  $('runs-not-learned').textContent = `${NOT_LEARNED_MARK} near chance: the run has not learned the task (its held-out accuracy ` +
    `at the trained length is less than ${percent(LEARNED_FRACTION)} of the way from chance to every answer right); its accuracy by ` +
    'position is noise, not a shape.';

  // A run's entry in the overlay's legend: '#2 Sinusoidal († near chance; mean of 3 seeds, band: their range)'.
  function overlayLabel(run, curve) {
    const notes = [
      ...(notLearned(run) ? [`${NOT_LEARNED_MARK} near chance`] : []),
      ...(curve.seeds > 1 ? [`mean of ${curve.seeds} seeds, band: their range`] : []),
    ];
    return `${runName(run)}${notes.length > 0 ? ` (${notes.join('; ')})` : ''}`;
  }

  function drawOverlay(runs) {
    const series = runs.filter((run) => overlaid.has(run.id)).flatMap((run) => {
      const curve = positionsAt(run, run.settings.pairs);
      if (!curve) return [];
      // the mean and its band alone (the series' last): the overlay compares runs, not their seeds
      return [spreadSeries({
        id: `run-${run.id}`, label: overlayLabel(run, curve),
        curve, seeds: curve.seeds,
        xs: curve.mean.map((_, i) => pairX(i, curve.pairs, 'relative')), colorIndex: seriesColor(run.id - 1), points: true,
      }).at(-1)];
    });
    chart({ series, xDomain: [0, 1], yDomain: [0, 1] });
    $('overlay-chart').dataset.runs = series.map((s) => s.id).join(',');
  }

  function draw(runs, shown) {
    last = { runs, shown };
    for (const ids of [overlaid, unfolded]) for (const id of ids) if (!runs.some((run) => run.id === id)) ids.delete(id);
    const rows = runs.map((run) => {
      const summary = runSummary(run);
      const k = run.settings.pairs;
      const row = document.createElement('tr');
      row.dataset.run = String(run.id);
      if (run === shown) row.classList.add('selected');
      const check = document.createElement('input');
      check.type = 'checkbox';
      check.checked = overlaid.has(run.id);
      check.setAttribute('aria-label', `Overlay run ${run.id}`);
      check.addEventListener('change', () => {
        if (check.checked) overlaid.add(run.id);
        else overlaid.delete(run.id);
        drawOverlay(last.runs);
      });
      const overlay = document.createElement('td');
      overlay.dataset.label = 'overlay';
      overlay.append(check);
      // the name in a span of its own, which a phone's card cuts with an ellipsis (train.css)
      const name = cell('');
      const nameText = document.createElement('span');
      nameText.className = 'run-name';
      nameText.textContent = runName(run);
      nameText.title = runName(run);
      name.append(nameText, ...notLearnedMark(run));
      const label = document.createElement('div');
      label.id = `run-${run.id}-settings`;
      label.className = 'run-settings muted small';
      label.textContent = run.label;
      // shown on a phone only (train.css), where it folds the settings away and back
      const unfold = button('settings', () => {
        if (unfolded.has(run.id)) unfolded.delete(run.id);
        else unfolded.add(run.id);
        unfold.setAttribute('aria-expanded', String(unfolded.has(run.id)));
      }, `Settings of run ${run.id}`);
      unfold.className = 'settings-toggle';
      unfold.setAttribute('aria-expanded', String(unfolded.has(run.id)));
      unfold.setAttribute('aria-controls', label.id);
      name.append(unfold, label);
      const actions = document.createElement('td');
      const buttons = document.createElement('div');
      buttons.className = 'actions';
      actions.append(buttons);
      buttons.append(
        button('Show', () => onShow(run), `Show run ${run.id} in the charts`),
        button('Use settings', () => onUseSettings(run), `Use settings of run ${run.id} in the controls and the link`),
        button('Remove', () => onRemove(run), `Remove run ${run.id}`),
      );
      row.append(
        overlay, name,
        cell(run.seeds.map((s) => s.seed).join(', '), 'number', 'seed numbers'),
        cell(statusWords[run.status] ?? run.status, '', 'status'),
        cell(summary ? percentFine(summary.accuracy) : '—', 'number', 'accuracy'),
        cell(summary ? percentFine(summary.first) : '—', 'number', 'first'),
        cell(summary && summary.middle !== null ? `${percentFine(summary.middle)} (${middlePairs(k)})` : '—', 'number', 'middle'),
        cell(summary ? percentFine(summary.last) : '—', 'number', 'last'),
        cell(run.source === 'loaded' ? '—' : `${run.seconds.toFixed(TIME_DIGITS)} s`, 'number', 'time'),
        actions,
      );
      return row;
    });
    $('runs-body').replaceChildren(...rows);
    $('runs-empty').hidden = runs.length > 0;
    $('runs-not-learned').hidden = !runs.some(notLearned);
    $('runs-table').hidden = runs.length === 0;  // no header over no rows
    drawOverlay(runs);
  }

  return {
    draw,
    /** Puts a run on the overlay chart (each new run is). */
    overlay(run) {
      overlaid.add(run.id);
    },
    redraw: () => draw(last.runs, last.shown),
  };
}
