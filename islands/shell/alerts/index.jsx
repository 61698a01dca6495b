// The alert stack of every page, in the page flow above the content (it never covers a control).
// Server flash messages arrive as `initial`; the rest comes from the alert store (lib/alerts.js).
// A new alert that asks to be revealed brings the stack into view when the page is scrolled
// past it.
import { useEffect, useLayoutEffect, useRef, useState, useSyncExternalStore } from 'react';
import { dismissAlert, getAlerts, pushAlert, subscribe } from '../../lib/alerts.js';
import { useGettext } from '../../lib/i18n.js';

/** Spec 01 section 9: the alert fade takes 250 ms. */
const FADE_MS = 250;

function Alert({ alert }) {
  const gettext = useGettext();
  const [leaving, setLeaving] = useState(false);
  const [paused, setPaused] = useState(false);

  useEffect(() => {
    if (!leaving) return undefined;
    const timer = setTimeout(() => dismissAlert(alert.id), FADE_MS);
    return () => clearTimeout(timer);
  }, [leaving, alert.id]);

  // Auto-dismiss waits while the pointer or keyboard focus is on the alert, so it can be read.
  useEffect(() => {
    if (!alert.timeout || paused || leaving) return undefined;
    const timer = setTimeout(() => setLeaving(true), alert.timeout);
    return () => clearTimeout(timer);
  }, [alert.timeout, paused, leaving]);

  const className = `alert alert-${alert.type}${leaving ? ' is-leaving' : ''}`;
  return (
    <div
      className={className}
      role={alert.type === 'danger' ? 'alert' : undefined}
      onMouseEnter={() => setPaused(true)}
      onMouseLeave={() => setPaused(false)}
      onFocus={() => setPaused(true)}
      onBlur={() => setPaused(false)}
    >
      <div className="alert-body">
        {alert.title && <strong className="alert-title">{alert.title}</strong>}
        <span className="alert-message">{alert.message}</span>
        {alert.link && (
          <a className="alert-link" href={alert.link}>
            {alert.linkText || alert.link}
          </a>
        )}
      </div>
      <button
        type="button"
        className="alert-close"
        aria-label={gettext('Close')}
        onClick={() => setLeaving(true)}
      >
        <span aria-hidden="true">×</span>
      </button>
    </div>
  );
}

function useReveal(alerts) {
  const ref = useRef(null);
  const seen = useRef(new Set());
  useEffect(() => {
    const fresh = alerts.filter((a) => !seen.current.has(a.id));
    for (const a of fresh) seen.current.add(a.id);
    const stack = ref.current;
    if (!stack || !fresh.some((a) => a.reveal)) return;
    const header = document.querySelector('.shell-header')?.getBoundingClientRect().bottom || 0;
    if (stack.getBoundingClientRect().top < header) stack.scrollIntoView({ block: 'start' });
  }, [alerts]);
  return ref;
}

export default function Alerts({ initial = [] }) {
  const alerts = useSyncExternalStore(subscribe, getAlerts, getAlerts);
  const seeded = useRef(false);
  const ref = useReveal(alerts);

  // Before the first paint, so the server's no-JS copy of the flash messages does not flicker.
  useLayoutEffect(() => {
    if (seeded.current) return;
    seeded.current = true;
    for (const item of Array.isArray(initial) ? initial : []) pushAlert(item);
  }, [initial]);

  return (
    <div ref={ref} className="alert-stack" role="status" aria-live="polite">
      {alerts.map((alert) => (
        <Alert key={alert.id} alert={alert} />
      ))}
    </div>
  );
}
