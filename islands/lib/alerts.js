// The alert stream: any code may push an alert; the alerts island renders the stack.
// Alerts pushed before the island has mounted are kept and shown once it does.

const TYPES = new Set(['info', 'success', 'warning', 'danger']);

/** Success and info alerts go away by themselves after this long; others stay. */
export const AUTO_DISMISS_MS = 8000;

let alerts = [];
let nextId = 1;
const subscribers = new Set();

function emit() {
  for (const fn of subscribers) fn(alerts);
}

/** The type an alert is shown as: the four known types, anything else as danger. */
export function alertType(type) {
  return TYPES.has(type) ? type : 'danger';
}

/**
 * Show an alert: {type, message, title?, link?, linkText?, timeout?, reveal?}. A timeout of 0
 * keeps it until closed; without one, success and info alerts close after AUTO_DISMISS_MS.
 * The stack is part of the page above its content: an alert the user's action caused scrolls it
 * into view (`reveal`, default true); one that arrives by itself (a poll) does not move the page.
 * Returns the alert's id.
 */
export function pushAlert({
  type = 'info',
  message = '',
  title,
  link,
  linkText,
  timeout,
  reveal = true,
} = {}) {
  const shownAs = alertType(type);
  const alert = {
    id: nextId++,
    type: shownAs,
    message: message === null || message === undefined ? '' : String(message),
    title: title || null,
    link: link || null,
    linkText: linkText || null,
    reveal: Boolean(reveal),
    timeout:
      typeof timeout === 'number'
        ? timeout
        : shownAs === 'success' || shownAs === 'info'
          ? AUTO_DISMISS_MS
          : 0,
  };
  alerts = [...alerts, alert];
  emit();
  return alert.id;
}

/** Remove one alert. */
export function dismissAlert(id) {
  const remaining = alerts.filter((alert) => alert.id !== id);
  if (remaining.length !== alerts.length) {
    alerts = remaining;
    emit();
  }
}

/**
 * Show the alerts a form's answer brought (`fresh`, as for pushAlert) in place of the success
 * alerts shown before: a run of quick actions answered in place on one page (the station's
 * phone page, lib/in-place.js) shows the latest outcome, not a growing stack of earlier ones.
 * Warnings and errors stay until they are closed. Returns the new alerts' ids.
 */
export function replaceSuccessAlerts(fresh, extra = {}) {
  const remaining = alerts.filter((alert) => alert.type !== 'success');
  if (remaining.length !== alerts.length) {
    alerts = remaining;
    emit();
  }
  return fresh.map((alert) => pushAlert({ ...alert, ...extra }));
}

/** Remove every alert. */
export function clearAlerts() {
  if (alerts.length) {
    alerts = [];
    emit();
  }
}

/** The alerts currently shown, oldest first (a new array after every change). */
export function getAlerts() {
  return alerts;
}

/** Call `fn(alerts)` after every change; returns the unsubscribe function. */
export function subscribe(fn) {
  subscribers.add(fn);
  return () => subscribers.delete(fn);
}
