// The alert stack at the bottom of every page. Server flash messages arrive as `initial`; the
// rest comes from the alert store (lib/alerts.js).
import { useEffect, useLayoutEffect, useRef, useState, useSyncExternalStore } from 'react';
import { dismissAlert, getAlerts, pushAlert, subscribe } from '../lib/alerts.js';
import { useGettext } from '../lib/i18n.js';

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

export default function Alerts({ initial = [] }) {
  const alerts = useSyncExternalStore(subscribe, getAlerts, getAlerts);
  const seeded = useRef(false);

  // Before the first paint, so the server's no-JS copy of the flash messages does not flicker.
  useLayoutEffect(() => {
    if (seeded.current) return;
    seeded.current = true;
    for (const item of Array.isArray(initial) ? initial : []) pushAlert(item);
  }, [initial]);

  return (
    <div className="alert-stack" role="status" aria-live="polite">
      {alerts.map((alert) => (
        <Alert key={alert.id} alert={alert} />
      ))}
    </div>
  );
}
