// Boxes that scroll their content (a wide table on a phone, a long one in a statistics card) must
// be reachable by keyboard (WCAG 2.1.1, axe's scrollable-region-focusable): while a box overflows
// and holds nothing focusable, it gets tabindex="0", so Tab stops on it (with the focus ring) and
// the arrow keys scroll it; when it fits again the tab stop goes. Boxes drawn later (islands,
// rows added) are picked up too. No React: the staff shell, the bid pages and the print views
// share it.

export const SCROLLER_SELECTOR = '.table-wrap, .widget-chart-table, .pa-table';
const FOCUSABLE = 'a[href], button, input, select, textarea, summary, [tabindex]:not([data-scroll-stop])';

/** Whether `el` scrolls: its overflow is auto or scroll and its content is larger than it. */
export function scrolls(el, view) {
  const style = view.getComputedStyle(el);
  const x = /auto|scroll/.test(style.overflowX) && el.scrollWidth > el.clientWidth + 1;
  const y = /auto|scroll/.test(style.overflowY) && el.scrollHeight > el.clientHeight + 1;
  return x || y;
}

/** Give `el` its tab stop while it scrolls and holds nothing focusable; take it back after. */
export function updateScroller(el, view) {
  const needs = scrolls(el, view) && !el.querySelector(FOCUSABLE);
  if (needs && !el.hasAttribute('tabindex')) {
    el.tabIndex = 0;
    el.dataset.scrollStop = '';
  } else if (!needs && el.dataset.scrollStop !== undefined) {
    el.removeAttribute('tabindex');
    delete el.dataset.scrollStop;
  }
}

/** Keep every scrolling box under `doc` reachable by keyboard, now and as the page changes. */
export function keepScrollersFocusable(doc = document) {
  const view = doc.defaultView;
  if (!view?.ResizeObserver || !view.MutationObserver) return;
  const sizes = new view.ResizeObserver((entries) => {
    for (const entry of entries) updateScroller(entry.target, view);
  });
  const watch = (node) => {
    if (node.matches(SCROLLER_SELECTOR)) sizes.observe(node);
    for (const box of node.querySelectorAll(SCROLLER_SELECTOR)) sizes.observe(box);
  };
  watch(doc.documentElement);
  new view.MutationObserver((records) => {
    for (const record of records) {
      for (const node of record.addedNodes) if (node.nodeType === 1) watch(node);
      const box = record.target.closest?.(SCROLLER_SELECTOR);
      if (box) updateScroller(box, view);
    }
  }).observe(doc.body, { childList: true, subtree: true });
}
