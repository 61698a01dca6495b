// What the bid page's forms share. Each form keeps its submit button disabled while it is
// invalid or saving and hands its call to `page.send`, which shows the green or red result.
// The bid form is loaded with the page; the seller's two forms (allocate, change status), their
// notes field and their part of the page only on a seller's link, so a bidder's phone never
// downloads them.
import { format, h, t } from '../public/core.js';

/** A green, red, yellow or blue box; success is announced politely, the others at once. */
export function alertBox(kind, text, extra) {
  const success = kind === 'success';
  return h(
    'div',
    { className: `alert alert-${kind}`, role: success ? 'status' : 'alert', tabindex: '-1' },
    h('div', { className: 'alert-body' }, text, extra),
  );
}

export function submitButton(label) {
  return h('button', { type: 'submit', className: 'btn btn-primary bid-submit', disabled: true }, label);
}

/** While saving: the button says so, shows a spinner and stays disabled. */
export function saving(button, label, on) {
  button.replaceChildren(...(on ? [h('span', { className: 'spinner', 'aria-hidden': 'true' }), t.saving] : [label]));
  button.setAttribute('aria-busy', on ? 'true' : 'false');
}

/**
 * Makes `form` send one call at a time. `call()` gives the call's [method, path, body], or null
 * while there is nothing to send. During the call `state.busy` is true, the button shows that it
 * is saving and `refresh` redraws the form (its check keeps the button disabled while busy).
 */
export function sendOnSubmit(form, { page, state, button, label, refresh, call }) {
  form.addEventListener('submit', async (event) => {
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
  });
  return form;
}

/** A new form of `children` that sends as sendOnSubmit says. */
export function sendingForm(options, ...children) {
  return sendOnSubmit(h('form', { className: 'bid-form', noValidate: true }, ...children), options);
}
