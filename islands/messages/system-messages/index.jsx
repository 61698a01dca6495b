// System messages on every signed-in page (spec 01 sections 3, 4, 7 and 9). Polls
// GET system-messages/my-messages every 5 minutes, starting at once; the same call's X-Cc-Version
// header drives the new-version banner (lib/api.js). After each poll it dispatches `dc:poll`
// on window ({detail: {messages}}) for other islands (e.g. menu counts) to refresh with.
// Alerts go to the alert stack; closing one records it viewed (persistent ones only hide).
// Dialogs are shown one at a time from a queue, which waits for its turn among the page's
// dialogs (lib/modal.js: never two at once): Close and "Do not show again" record the message
// viewed (a persistent one only leaves the queue); Escape only takes it off the queue for this
// page. Long descriptions open a read-more dialog.
import { useCallback, useEffect, useRef, useState } from 'react';
import { pushAlert, subscribe as subscribeAlerts } from '../../lib/alerts.js';
import { api } from '../../lib/api.js';
import { useGettext } from '../../lib/i18n.js';
import { Dialog } from '../../lib/dialog.js';
import { useModalTurn } from '../../lib/modal.js';
import {
  alertTypeOf,
  isViewed,
  LONG_DESCRIPTION,
  markViewed,
  POLL_MS,
  textLength,
  versionKey,
} from './store.js';

function Description({ html, clamp }) {
  // The description was sanitised on the server when it was saved (nh3).
  return (
    <div
      className={`system-message-description${clamp ? ' is-clamped' : ''}`}
      dangerouslySetInnerHTML={{ __html: html || '' }}
    />
  );
}

function reportViewed(message) {
  markViewed(message);
  api.post(`system-messages/${message.id}/viewed`, {}, { handleErrors: false }).catch(() => {});
}

export default function SystemMessages({ pollMs = POLL_MS }) {
  const gettext = useGettext();
  const [queue, setQueue] = useState([]);
  const [readMore, setReadMore] = useState(null);
  const shown = useRef(new Map()); // versionKey -> alert id, for alerts on this page
  const dismissed = useRef(new Set()); // versionKeys closed on this page
  const known = useRef(new Map()); // message id -> latest message
  const lastFetched = useRef(null);

  // An alert that leaves the stack was closed (by the user or its timeout).
  useEffect(
    () =>
      subscribeAlerts((alerts) => {
        const present = new Set(alerts.map((a) => a.id));
        for (const [key, alertId] of shown.current) {
          if (present.has(alertId)) continue;
          shown.current.delete(key);
          dismissed.current.add(key);
          const message = [...known.current.values()].find((m) => versionKey(m) === key);
          if (message && !message.options?.persistent) reportViewed(message);
        }
      }),
    [],
  );

  const receive = useCallback(
    (messages) => {
      const list = Array.isArray(messages) ? messages : [];
      for (const m of list) known.current.set(m.id, m);
      const fresh = list.filter(
        (m) => !isViewed(m) && !dismissed.current.has(versionKey(m)),
      );
      for (const m of fresh) {
        if (m.options?.showAs !== 'alert' || shown.current.has(versionKey(m))) continue;
        const alertId = pushAlert({
          type: alertTypeOf(m.type),
          message: m.message,
          link: m.description ? `#system-message-${m.id}` : null,
          linkText: m.description ? gettext('Read more') : null,
          timeout: 0,
          reveal: false, // it came with a poll: the page stays where the user is
        });
        shown.current.set(versionKey(m), alertId);
      }
      const modals = fresh.filter((m) => m.options?.showAs === 'modal');
      setQueue((current) => {
        const keys = new Set(modals.map(versionKey));
        // A message no longer active (or changed) leaves the queue; new ones join its end.
        const kept = current.filter((m) => keys.has(versionKey(m)));
        const have = new Set(kept.map(versionKey));
        return [...kept, ...modals.filter((m) => !have.has(versionKey(m)))];
      });
    },
    [gettext],
  );

  useEffect(() => {
    let stopped = false;
    let timer = null;
    const poll = async () => {
      const headers = lastFetched.current ? { 'last-fetched': lastFetched.current } : {};
      const started = new Date().toISOString();
      try {
        const messages = await api.get('system-messages/my-messages', {
          headers,
          handleErrors: false,
        });
        lastFetched.current = started;
        if (!stopped) receive(messages);
        window.dispatchEvent(new CustomEvent('dc:poll', { detail: { messages } }));
      } catch {
        // the next poll tries again
      }
      if (!stopped) timer = setTimeout(poll, pollMs);
    };
    poll();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [receive, pollMs]);

  // "Read more" links of alerts.
  useEffect(() => {
    const onClick = (event) => {
      const link = event.target instanceof Element && event.target.closest('a[href^="#system-message-"]');
      if (!link) return;
      event.preventDefault();
      const id = Number(link.getAttribute('href').slice('#system-message-'.length));
      const message = known.current.get(id);
      if (message) setReadMore(message);
    };
    document.addEventListener('click', onClick);
    return () => document.removeEventListener('click', onClick);
  }, []);

  const current = queue[0];
  const myTurn = useModalTurn(Boolean(readMore || current));
  const dequeue = (message) => {
    dismissed.current.add(versionKey(message));
    setQueue((q) => q.filter((m) => versionKey(m) !== versionKey(message)));
  };
  // Close and "Do not show again" both record the view (spec 01 section 4); a persistent
  // message is never recorded, so closing it only takes it off this page's queue.
  const close = (message) => {
    if (!message.options?.persistent) reportViewed(message);
    dequeue(message);
  };

  if (!myTurn) return null;
  if (readMore) {
    return (
      <Dialog
        title={readMore.message}
        className="system-message-modal read-more-modal"
        onEscape={() => setReadMore(null)}
        actions={
          <button type="button" className="btn btn-primary" onClick={() => setReadMore(null)}>
            {gettext('Close')}
          </button>
        }
      >
        <Description html={readMore.description} />
      </Dialog>
    );
  }
  if (!current) return null;
  const long = textLength(current.description) > LONG_DESCRIPTION;
  return (
    <Dialog
      key={versionKey(current)}
      title={current.message}
      className={`system-message-modal system-message-${alertTypeOf(current.type)}`}
      onEscape={() => dequeue(current)}
      actions={
        <>
          {long && (
            <button type="button" className="btn btn-secondary" onClick={() => setReadMore(current)}>
              {gettext('Read more')}
            </button>
          )}
          {!current.options?.persistent && (
            <button type="button" className="btn btn-secondary" onClick={() => close(current)}>
              {gettext('Do not show again')}
            </button>
          )}
          <button type="button" className="btn btn-primary" onClick={() => close(current)}>
            {gettext('Close')}
          </button>
        </>
      }
    >
      {queue.length > 1 && (
        <p className="muted system-message-count">
          {gettext('Message %(current)s of %(total)s', { current: 1, total: queue.length })}
        </p>
      )}
      <Description html={current.description} clamp={long} />
    </Dialog>
  );
}
