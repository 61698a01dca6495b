// Enhancer for server-rendered forms marked <form data-form-guard>: the submit button stays
// disabled while the form is invalid, and a submitted form shows a spinner and ignores a second
// submit. Without JavaScript the form simply posts as usual.

const BUSY = 'formGuardBusy';

function submitButtons(form) {
  return Array.from(
    form.querySelectorAll('button:not([type]), button[type="submit"], input[type="submit"]'),
  ).filter((button) => !button.form || button.form === form);
}

function syncValidity(form) {
  if (form.dataset[BUSY]) return;
  const valid = form.checkValidity();
  for (const button of submitButtons(form)) button.disabled = !valid;
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
