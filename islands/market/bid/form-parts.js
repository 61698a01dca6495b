// The page-level box of the bid page (plain DOM, outside the React forms): the result of a
// call and a failed first load. The forms' own boxes are components.js's AlertBox.
import { h } from '../public/core.js';

/** A green, red, yellow or blue box; success is announced politely, the others at once. */
export function alertBox(kind, text, extra) {
  const success = kind === 'success';
  return h(
    'div',
    { className: `alert alert-${kind}`, role: success ? 'status' : 'alert', tabindex: '-1' },
    h('div', { className: 'alert-body' }, text, extra),
  );
}
