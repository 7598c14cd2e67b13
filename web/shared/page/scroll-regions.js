// Tables wider than their panel scroll sideways in a .table-scroll box. A box that scrolls is
// a stop of the keyboard (tabindex 0: the arrow keys then scroll it) and a region named by its
// data-label; a box whose table fits is neither, and adds no stop to the tab order. Checked
// whenever the box or its table changes size (a narrower window, a table filled or grown).

function update(box) {
  if (box.scrollWidth > box.clientWidth) {
    box.tabIndex = 0;
    box.setAttribute('role', 'region');
    box.setAttribute('aria-label', box.dataset.label);
  } else {
    box.removeAttribute('tabindex');
    box.removeAttribute('role');
    box.removeAttribute('aria-label');
  }
}

/** Watches every .table-scroll box under `root` (each with a data-label naming its table). */
export function watchScrollRegions(root = document) {
  const observer = new ResizeObserver((entries) => {
    for (const { target } of entries) update(target.closest('.table-scroll'));
  });
  for (const box of root.querySelectorAll('.table-scroll')) {
    observer.observe(box);
    if (box.firstElementChild) observer.observe(box.firstElementChild);
  }
}
