// A page's introduction where its settings stack above its charts (a page of settings beside
// charts, style.css's .tool-layout: the lab, the Train page): its paragraphs after the first sit
// in a <details class="explain intro-more">, folded on a narrow screen so that the first chart
// comes sooner. Wider, the details is open and its summary hidden (style.css), so that it reads
// as the paragraphs it holds.

/** The widest screen on which a page of settings beside charts takes one column: style.css's breakpoint. */
const NARROW_WIDTH_PX = 900;

/** Folds `details` on a narrow screen and opens it on a wider one, now and whenever the width crosses over. */
export function foldIntroductionOnNarrowScreens(details) {
  const narrow = window.matchMedia(`(width <= ${NARROW_WIDTH_PX}px)`);
  const fold = () => { details.open = !narrow.matches; };
  fold();
  narrow.addEventListener('change', fold);
}
