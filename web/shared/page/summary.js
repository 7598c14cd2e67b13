// A summary under a chart (<dl class="summary">, styled in style.css): terms and their values
// on a wrapping line, "peak at: 12 %   middle: 48 %", each term kept on one line with its value
// (a <div> around each pair, as HTML allows in a <dl>). Values are set as text.

/** Fills the <dl> `element` with [term, value] pairs. */
export function summaryList(element, entries) {
  element.replaceChildren(...entries.map(([term, value]) => {
    const pair = document.createElement('div');
    const dt = document.createElement('dt');
    dt.textContent = term;
    const dd = document.createElement('dd');
    dd.textContent = value;
    pair.append(dt, dd);
    return pair;
  }));
}
