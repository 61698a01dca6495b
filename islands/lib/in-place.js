// Forms that answer in place (issue 37, point 13). A server-rendered form marked
// data-in-place="REGION [OTHER…]" posts with fetch; the page its redirect leads to is fetched the
// same way (the session's flash is read there), and only the elements with those ids are swapped
// for the new page's, with its alerts in place of the success alerts shown before (not a stack
// of every earlier outcome). The browser keeps the page: no styles, scripts, menus or dialogs
// load again. Without JavaScript, or should the answer not hold the region, the form posts as a
// full page load as before.

import { replaceSuccessAlerts } from './alerts.js';

/** Fired on the document (bubbling to the window) once a region is new. */
export const IN_PLACE_EVENT = 'cc:in-place';

/** The flashed messages the fetched page carries in its alerts island's props. */
export function flashedAlerts(doc) {
  const island = doc.querySelector('[data-island="alerts"]');
  try {
    return JSON.parse(island?.dataset.islandProps || '{}').initial || [];
  } catch {
    return [];
  }
}

/** What to focus once the region is new: the same kind of control on the same card, else the
 * region itself (so a screen reader is not left on a removed button). */
function focusAfter(region, key) {
  const card = key && region.querySelector(`[data-item-id="${CSS.escape(key)}"]`);
  const target = card?.querySelector('button:not([disabled])') || region;
  target.focus({ preventScroll: true });
}

async function answerInPlace(form, submitter, region, others) {
  const body = new FormData(form, submitter);
  const key = form.closest('[data-item-id]')?.dataset.itemId;
  form.setAttribute('aria-busy', 'true');
  if (submitter) submitter.disabled = true;
  const response = await fetch(form.action, {
    method: 'POST',
    body,
    credentials: 'same-origin',
    headers: { Accept: 'text/html' },
  });
  const html = response.headers.get('content-type')?.includes('text/html');
  const doc = new DOMParser().parseFromString(html ? await response.text() : '', 'text/html');
  const fresh = doc.getElementById(region.id);
  if (!fresh) {
    location.assign(response.url); // posted: show the page the server answered with
    return;
  }
  region.replaceWith(document.adoptNode(fresh));
  for (const other of others) {
    const update = doc.getElementById(other.id);
    if (update) other.replaceWith(document.adoptNode(update));
  }
  if (response.url && response.url !== location.href) history.replaceState(null, '', response.url);
  if (doc.title) document.title = doc.title;
  replaceSuccessAlerts(flashedAlerts(doc), { reveal: false }); // the latest outcome, not a stack
  focusAfter(fresh, key);
  // It bubbles to the window, where the menu refreshes its counts (islands/menu-tree).
  document.dispatchEvent(new CustomEvent(IN_PLACE_EVENT, { bubbles: true, detail: { region: fresh } }));
}

/** Answer marked forms in place; one listener on the document serves regions swapped later. */
export function enhanceInPlace() {
  document.addEventListener('submit', (event) => {
    const form = event.target;
    if (event.defaultPrevented || !(form instanceof HTMLFormElement)) return;
    const [region, ...others] = (form.dataset.inPlace || '')
      .split(/\s+/)
      .map((id) => id && document.getElementById(id))
      .filter(Boolean);
    if (!region || form.getAttribute('aria-busy') === 'true') return;
    event.preventDefault();
    answerInPlace(form, event.submitter, region, others).catch((error) => {
      // No answer came (offline, aborted): post it the old way.
      console.error('In place failed; posting the form as a page load', error);
      form.removeAttribute('aria-busy');
      HTMLFormElement.prototype.submit.call(form);
    });
  });
}
