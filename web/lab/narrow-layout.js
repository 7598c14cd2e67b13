// The lab on a narrow screen (one column, up to 900 px, as in lab.css): the charts
// come first. The settings are a sheet along the bottom of the screen, folded to one line
// that names them (its button opens and folds it, Escape folds it), so that a chart stays in
// view above the open sheet while a setting changes; the sheet's height, measured, keeps the
// page's end and what is focused or scrolled into view above it (lab.css). The introduction's
// second paragraph is folded, so that chart 1 begins on the first screen
// (shared/page/introduction.js).
import { foldIntroductionOnNarrowScreens } from '../shared/page/introduction.js';

const $ = (id) => document.getElementById(id);

/**
 * Binds the settings sheet's button; keeps the sheet's height in the CSS variable
 * --settings-sheet-height (the folded sheet grows when its line wraps, the open one with its
 * controls); folds the introduction's second paragraph on a narrow screen, opens it on a wider one.
 */
export function setUpNarrowLayout() {
  new ResizeObserver(([entry]) => {
    const height = entry.borderBoxSize[0].blockSize;
    document.documentElement.style.setProperty('--settings-sheet-height', `${height}px`);
  }).observe($('controls'));
  const toggle = $('settings-toggle');
  const setOpen = (open) => toggle.setAttribute('aria-expanded', String(open));
  toggle.addEventListener('click', () => setOpen(toggle.getAttribute('aria-expanded') !== 'true'));
  $('controls').addEventListener('keydown', (event) => {
    if (event.key !== 'Escape' || toggle.getAttribute('aria-expanded') !== 'true') return;
    setOpen(false);
    toggle.focus();
  });
  foldIntroductionOnNarrowScreens($('lab-how'));
}
