// The page's own alerts (a public page has no shell alert stack): above the steps, danger ones
// announced at once, the others politely.
import { h } from '../public/core.js';

export function showAlert(type, message, link) {
  const host = document.getElementById('invite-alerts');
  if (!host) return null;
  const alert = h(
    'div',
    { className: `alert alert-${type}`, role: type === 'danger' ? 'alert' : null },
    h('div', { className: 'alert-body' }, message, link || null),
  );
  host.append(alert);
  return alert;
}

export function clearAlerts() {
  document.getElementById('invite-alerts')?.replaceChildren();
}
