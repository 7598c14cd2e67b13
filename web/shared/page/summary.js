// A summary under a chart (<dl class="summary">, styled in style.css): terms and their values
// on one wrapping line, "peak at: 12 %   middle: 48 %". Values are set as text.

/** Fills the <dl> `element` with [term, value] pairs. */
export function summaryList(element, entries) {
  element.replaceChildren(...entries.flatMap(([term, value]) => {
    const dt = document.createElement('dt');
    dt.textContent = term;
    const dd = document.createElement('dd');
    dd.textContent = value;
    return [dt, dd];
  }));
}
