// What is wrong with a control, shown where the user typed it. Shared by the pages' controls.js.
import { shorten } from '../url-hash.js';

/**
 * Marks a control invalid (a problem's words) or valid again (null), with the words in the
 * element `${element.id}-message` under it when the page has one.
 */
export function showProblem(element, problem) {
  if (problem === null) element.removeAttribute('aria-invalid');
  else element.setAttribute('aria-invalid', 'true');
  element.setCustomValidity?.(problem ?? '');
  const message = document.getElementById(`${element.id}-message`);
  // Written only when it changes: the playground checks its heads on every recompute, and an
  // unchanged message written again was laid out again beside the computation.
  if (message && message.textContent !== (problem ?? '')) {
    message.textContent = problem ?? '';
    message.hidden = problem === null;
  }
}

/** A control's text that does not parse: its setting's label, the rule and what was typed. */
export function typedProblem(label, element, rule) {
  const start = `The ${label} must be ${rule}`;
  if (element.validity.badInput) return `${start}; what is typed is not a number.`;
  const typed = element.value.trim();
  return typed === '' ? `${start}; the box is empty.` : `${start}; got “${shorten(typed)}”.`;
}
