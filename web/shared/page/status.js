// What every page says about itself above or beside its content: dismissable notices, the
// engine's status line (with <html data-engine>, which the tests wait for) and a progress
// line for long work. Messages are set as text, never as markup.
import { listBriefly } from '../format.js';

/**
 * Notices in `container`: add(message, {note}) appends one with a Dismiss button and returns
 * it, a problem (the error's colours) unless `note` (information: the accent's);
 * showLinkProblems(problems, notes = []) says how the page read the link (the notes, as
 * sentences) and which of its settings it ignored, in one notice that replaces the previous
 * one (none when there are neither), a note when it ignored none.
 */
export function createNotices(container) {
  let linkNotice = null;

  function add(message, { note = false } = {}) {
    const item = document.createElement('p');
    item.className = note ? 'notice note' : 'notice';
    const text = document.createElement('span');
    text.textContent = message;
    const close = document.createElement('button');
    close.type = 'button';
    close.textContent = 'Dismiss';
    close.addEventListener('click', () => item.remove());
    item.append(text, close);
    container.append(item);
    return item;
  }

  function showLinkProblems(problems, notes = []) {
    linkNotice?.remove();
    const ignored = problems.length > 0 ? [`Some settings in the link were ignored: ${listBriefly(problems)}.`] : [];
    const sentences = [...notes, ...ignored];
    linkNotice = sentences.length > 0 ? add(sentences.join(' '), { note: problems.length === 0 }) : null;
  }

  return { add, showLinkProblems };
}

// The engine's build (engine.simd) as a status line names it.
const BUILD_WORDS = { 'relaxed-simd': 'WebAssembly with relaxed SIMD', simd128: 'WebAssembly SIMD128' };

/** `Engine <version> ready: WebAssembly …` for the engine's {version, simd}. */
export function engineReady({ version, simd }) {
  return `Engine ${version} ready: ${BUILD_WORDS[simd] ?? 'WebAssembly'}`;
}

/**
 * Shows in `element` whether the engine started: describe(answer) once `ready` resolves, the
 * error as an alert when it rejects; <html data-engine> becomes 'ready' or 'failed'.
 * Resolves to whether the engine is ready.
 */
export function showEngineStatus(element, ready, describe) {
  return ready.then((answer) => {
    document.documentElement.dataset.engine = 'ready';
    element.textContent = describe(answer);
    return true;
  }, (error) => {
    document.documentElement.dataset.engine = 'failed';
    element.textContent = error.message;
    element.classList.add('error');
    element.setAttribute('role', 'alert');
    return false;
  });
}

/**
 * A <progress> `bar` and a `text` element that report long work: progress(message,
 * fraction) while it runs (no fraction: an indeterminate bar), done(message, isError) after.
 * With an `announcer` (announcer.js), a screen reader hears what done() says, not the progress,
 * which changes all the time: at once, or with `settle` once no other message has come for a
 * moment (a page that recomputes at every keystroke says it is done at every keystroke).
 */
export function createProgressLine(bar, text, { announcer = null, settle = false } = {}) {
  return {
    progress(message, fraction = null) {
      bar.hidden = false;
      if (fraction === null) bar.removeAttribute('value');
      else bar.value = fraction;
      text.classList.remove('error');
      text.textContent = message;
    },
    done(message, isError = false) {
      bar.hidden = true;
      text.classList.toggle('error', isError);
      text.textContent = message;
      if (settle) announcer?.settled(message);
      else announcer?.now(message);
    },
  };
}
