// One form field of the islands (the widget editor, "My settings"), as the templates' `field`
// macro writes it: the label, the control, then its hint and its error; the control described
// by both and marked invalid while there is an error.
// createElement, not JSX: node's test runner loads lib/ as it is.
import { createElement as h } from 'react';

/** The aria-describedby and aria-invalid of the control `id`: its hint and its error, if any. */
export function described(id, error, hint) {
  const ids = [];
  if (hint) ids.push(`${id}-hint`);
  if (error) ids.push(`${id}-error`);
  return { 'aria-describedby': ids.join(' ') || undefined, 'aria-invalid': error ? 'true' : undefined };
}

/** The field around its control (`children`, whose id is `id`). */
export function Field({ id, label, error, hint, children }) {
  return h(
    'div',
    { className: 'form-field' },
    h('label', { htmlFor: id }, label),
    children,
    hint && h('p', { className: 'field-hint', id: `${id}-hint` }, hint),
    error && h('p', { className: 'field-error', id: `${id}-error` }, error),
  );
}
