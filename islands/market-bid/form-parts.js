// What the bid page's forms share. Each form keeps its submit button disabled while it is
// invalid or saving and hands its call to `page.send`, which shows the green or red result.
// The bid form is loaded with the page; the seller's two forms (allocate, change status) only
// on a seller's link, so a bidder's phone never downloads them.
import { format, h, texts } from '../public/core.js';

const t = texts();
export const NOTES_MAX = 255;

export function submitButton(label) {
  return h('button', { type: 'submit', className: 'btn btn-primary bid-submit', disabled: true }, label);
}

/** While saving: the button says so, shows a spinner and stays disabled. */
export function saving(button, label, on) {
  button.replaceChildren(...(on ? [h('span', { className: 'spinner', 'aria-hidden': 'true' }), t.saving] : [label]));
  button.setAttribute('aria-busy', on ? 'true' : 'false');
}

/** A notes field with a live character counter (max 255); its text survives a reload. */
export function notesField(id, label, page) {
  const counter = h('p', { className: 'field-hint', id: `${id}-count`, 'aria-live': 'polite' });
  const area = h('textarea', {
    id,
    name: id,
    rows: 3,
    maxlength: String(NOTES_MAX),
    'aria-describedby': `${id}-count`,
  });
  area.value = page.kept.notes || '';
  const count = () => {
    page.kept.notes = area.value;
    counter.textContent = format(t.charactersLeft, { count: area.value.length, max: NOTES_MAX });
    const over = area.value.length > NOTES_MAX;
    area.setAttribute('aria-invalid', over ? 'true' : 'false');
    counter.classList.toggle('field-error', over);
  };
  area.addEventListener('input', count);
  count();
  const field = h('div', { className: 'form-field' }, h('label', { for: id }, label), area, counter);
  return { field, area, valid: () => area.value.length <= NOTES_MAX };
}


/**
 * A form that sends one call at a time. `call()` gives the call's [method, path, body], or null
 * while there is nothing to send. During the call `state.busy` is true, the button shows that it
 * is saving and `refresh` redraws the form (its check keeps the button disabled while busy).
 */
export function sendingForm({ page, state, button, label, refresh, call }, ...children) {
  const onsubmit = async (event) => {
    event.preventDefault();
    const request = call();
    if (state.busy || !request) return;
    state.busy = true;
    saving(button, label, true);
    refresh();
    await page.send(...request);
    state.busy = false;
    saving(button, label, false);
    refresh();
  };
  return h('form', { className: 'bid-form', noValidate: true, onsubmit }, ...children);
}
