// Tables wider than their panel scroll sideways in a .table-scroll box. A box that scrolls is
// a stop of the keyboard (tabindex 0: the arrow keys then scroll it) and a region named by its
// data-region-label; a box whose table fits is neither, and adds no stop to the tab order. Checked
// whenever the box or its table changes size (a narrower window, a table filled or grown). A box
// the keyboard is on stays a stop until focus leaves it, so that a wider window or a shorter table
// never drops the focus to the page's start.

const recheckedOnBlur = new WeakSet();  // boxes to check again once focus leaves them

// A pixel of slack: a table as wide as its box can measure a fraction wider.
function markScrollable(box) {
  if (box.scrollWidth > box.clientWidth + 1) {
    box.tabIndex = 0;
    box.setAttribute('role', 'region');
    box.setAttribute('aria-label', box.dataset.regionLabel);
  } else if (document.activeElement === box) {
    if (recheckedOnBlur.has(box)) return;
    recheckedOnBlur.add(box);
    box.addEventListener('blur', () => {
      recheckedOnBlur.delete(box);
      markScrollable(box);
    }, { once: true });
  } else {
    box.removeAttribute('tabindex');
    box.removeAttribute('role');
    box.removeAttribute('aria-label');
  }
}

/** Watches every .table-scroll box of the page (each with a data-region-label naming its table). */
export function watchScrollRegions() {
  const observer = new ResizeObserver((entries) => {
    for (const { target } of entries) markScrollable(target.closest('.table-scroll'));
  });
  for (const box of document.querySelectorAll('.table-scroll')) {
    observer.observe(box);
    if (box.firstElementChild) observer.observe(box.firstElementChild);
  }
}
