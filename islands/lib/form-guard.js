// Enhancer for server-rendered forms marked <form data-form-guard>: the submit button stays
// disabled while the form is invalid, with the fields still needed named beside it (each a link
// to its field) and, once a field was left, what it needs next to the field; a submitted form
// shows a spinner and ignores a second submit. Without JavaScript the form simply posts as usual.
import { gettext } from './i18n.js';

const BUSY = 'formGuardBusy';

function submitButtons(form) {
  return Array.from(
    form.querySelectorAll('button:not([type]), button[type="submit"], input[type="submit"]'),
  ).filter((button) => !button.form || button.form === form);
}

/** A field's name as its label shows it (without the required mark). */
function fieldName(field) {
  const label = (field.id && field.form.querySelector(`label[for="${CSS.escape(field.id)}"]`))
    || field.closest('label');
  const text = label ? label.textContent : field.getAttribute('aria-label') || field.name;
  return text.replace(/[*:]\s*$/, '').replace(/\s+/g, ' ').trim();
}

function invalidFields(form) {
  return Array.from(form.elements).filter(
    (el) => el.willValidate && !el.validity.valid && el.type !== 'hidden',
  );
}

/** What a left, invalid field needs, next to it (a server-side error there stays as it is). */
function markField(field) {
  const box = field.closest('.form-field') || field.parentElement;
  let note = box.querySelector('[data-guard-error]');
  if (field.validity.valid || !field.dataset.guardLeft || box.querySelector('.field-error:not([data-guard-error])')) {
    if (note) {
      note.remove();
      field.removeAttribute('aria-invalid');
    }
    return;
  }
  if (!note) {
    note = document.createElement('p');
    note.className = 'field-error';
    note.dataset.guardError = '';
    note.id = `${field.id || field.name}-guard-error`;
    box.append(note);
    const described = (field.getAttribute('aria-describedby') || '').split(' ').filter(Boolean);
    if (!described.includes(note.id)) field.setAttribute('aria-describedby', [...described, note.id].join(' '));
  }
  note.textContent = gettext(field.validity.valueMissing ? 'FIELD_REQUIRED' : 'INVALID_VALUE');
  field.setAttribute('aria-invalid', 'true');
}

/** Beside the (disabled) buttons: which fields are still needed, each a link to its field. */
function showMissing(form, missing) {
  const buttons = submitButtons(form);
  const anchor = buttons[buttons.length - 1]?.closest('.form-actions') || buttons[buttons.length - 1];
  if (!anchor) return;
  let hint = form.querySelector('[data-guard-missing]');
  if (!missing.length) {
    hint?.remove();
    return;
  }
  if (!hint) {
    hint = document.createElement('p');
    hint.className = 'form-guard-missing';
    hint.dataset.guardMissing = '';
    hint.id = `${form.id || 'form'}-missing-${Math.random().toString(36).slice(2, 8)}`;
    hint.setAttribute('aria-live', 'polite');
    anchor.after(hint);
    for (const button of buttons) button.setAttribute('aria-describedby', hint.id);
  }
  const names = missing.map(fieldName).filter(Boolean);
  const key = names.join('|');
  if (hint.dataset.key === key) return;
  hint.dataset.key = key;
  const [before, after = ''] = gettext('Still needed: %(fields)s', { fields: '\u0000' }).split('\u0000');
  hint.replaceChildren(before);
  missing.forEach((field, i) => {
    const link = document.createElement('a');
    link.href = field.id ? `#${field.id}` : '#';
    link.textContent = names[i] || field.name;
    link.addEventListener('click', (event) => {
      event.preventDefault();
      field.focus();
    });
    hint.append(i ? ', ' : '', link);
  });
  hint.append(after);
}

function syncValidity(form) {
  if (form.dataset[BUSY]) return;
  const missing = invalidFields(form);
  // A button with formnovalidate (Fetch from provider) posts an unfinished form on purpose.
  for (const button of submitButtons(form)) button.disabled = missing.length > 0 && !button.formNoValidate;
  showMissing(form, missing);
  for (const field of form.querySelectorAll('[data-guard-left]')) markField(field);
}

function setBusy(form, submitter) {
  form.dataset[BUSY] = '1';
  form.setAttribute('aria-busy', 'true');
  const button = submitter || submitButtons(form)[0];
  if (button && button.tagName === 'BUTTON' && !button.querySelector('.spinner')) {
    const spinner = document.createElement('span');
    spinner.className = 'spinner';
    spinner.setAttribute('aria-hidden', 'true');
    button.prepend(spinner);
  }
  // Disable after the submit event: a button disabled now would drop its name=value from the
  // data the browser is about to send.
  setTimeout(() => {
    for (const other of submitButtons(form)) other.disabled = true;
  }, 0);
}

function reset(form) {
  delete form.dataset[BUSY];
  form.removeAttribute('aria-busy');
  for (const spinner of form.querySelectorAll('.spinner')) spinner.remove();
  syncValidity(form);
}

function guard(form) {
  if (form.dataset.formGuardReady) return;
  form.dataset.formGuardReady = '1';
  // Browser autofill may change values without an input event; focus, keys and the autofill
  // animation from app.css catch those cases so the button does not stay disabled.
  for (const type of ['input', 'change', 'focusin', 'keyup', 'animationstart']) {
    form.addEventListener(type, () => syncValidity(form));
  }
  form.addEventListener('focusout', (event) => {
    const field = event.target;
    if (!field.willValidate || field.type === 'hidden') return;
    field.dataset.guardLeft = '1';
    markField(field);
  });
  form.addEventListener('submit', (event) => {
    if (form.dataset[BUSY]) {
      event.preventDefault();
      return;
    }
    if (!form.noValidate && !form.checkValidity()) return; // the browser shows what is missing
    setBusy(form, event.submitter);
  });
  syncValidity(form);
}

/** Guard every form[data-form-guard] under `root`; safe to call again for new content. */
export function enhanceForms(root = document) {
  for (const form of root.querySelectorAll('form[data-form-guard]')) guard(form);
}

// A page restored from the back/forward cache would otherwise keep its spinner forever.
if (typeof window !== 'undefined') {
  window.addEventListener('pageshow', (event) => {
    if (!event.persisted) return;
    for (const form of document.querySelectorAll('form[data-form-guard]')) reset(form);
  });
}
