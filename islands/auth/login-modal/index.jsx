// The sign-in dialog that appears when a call answers 401 (spec 01 sections 2 and 4). The session
// is gone, so it cannot be dismissed: the user signs in again or goes to the login page. On
// success it announces cc:authenticated and the api client repeats the calls that failed.
import { useEffect, useId, useRef, useState } from 'react';
import { createPortal } from 'react-dom';
import { api, isAuthPending, setCsrfToken } from '../../lib/api.js';
import { useGettext } from '../../lib/i18n.js';
import { useModalHost } from '../../lib/modal.js';

const FOCUSABLE =
  'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), ' +
  'textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

export default function LoginModal({ email: initialEmail = '', loginUrl }) {
  const gettext = useGettext();
  const [open, setOpen] = useState(isAuthPending);
  const [email, setEmail] = useState(initialEmail);
  const [password, setPassword] = useState('');
  const [valid, setValid] = useState(false);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState('');
  const busy = useRef(false);
  const formRef = useRef(null);
  const dialogRef = useRef(null);
  const emailRef = useRef(null);
  const passwordRef = useRef(null);
  const ids = useId();
  const href = loginUrl || document.documentElement.dataset.loginUrl || '/login';

  useEffect(() => {
    const onUnauthorized = (event) => {
      event.preventDefault(); // tells the api client that the modal takes over
      setOpen(true);
    };
    window.addEventListener('cc:unauthorized', onUnauthorized);
    if (isAuthPending()) setOpen(true); // a 401 that arrived while this island was loading
    return () => window.removeEventListener('cc:unauthorized', onUnauthorized);
  }, []);

  const host = useModalHost(open, () => {
    const field = emailRef.current?.value ? passwordRef.current : emailRef.current;
    field?.focus();
    setValid(Boolean(formRef.current?.checkValidity()));
  });

  const onKeyDown = (event) => {
    if (event.key === 'Escape') {
      // Deliberately not a way out: without signing in nothing on the page works.
      event.preventDefault();
      event.stopPropagation();
      return;
    }
    if (event.key !== 'Tab') return;
    const dialog = dialogRef.current;
    const items = Array.from(dialog.querySelectorAll(FOCUSABLE));
    if (!items.length) {
      event.preventDefault();
      return;
    }
    const first = items[0];
    const last = items[items.length - 1];
    const inside = dialog.contains(document.activeElement);
    if (event.shiftKey && (!inside || document.activeElement === first)) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && (!inside || document.activeElement === last)) {
      event.preventDefault();
      first.focus();
    }
  };

  const onInput = () => setValid(Boolean(formRef.current?.checkValidity()));

  const onSubmit = async (event) => {
    event.preventDefault();
    if (busy.current) return; // a second submit while loading is ignored
    const form = formRef.current;
    if (!form.checkValidity()) {
      form.reportValidity();
      return;
    }
    busy.current = true;
    setLoading(true);
    setError('');
    try {
      const result = await api.post(
        'auth/login',
        { email: email.trim(), password },
        { authRetry: false, handleErrors: false },
      );
      setCsrfToken(result?.csrfToken); // the new session's token, for the calls about to retry
      setPassword('');
      setOpen(false);
      window.dispatchEvent(new CustomEvent('cc:authenticated'));
    } catch (failure) {
      const message = failure?.body?.message;
      setError(
        message
          ? String(message)
          : failure?.status === 429
            ? gettext('Too many attempts. Wait a moment and try again.')
            : gettext('Signing in did not work. Try again.'),
      );
      passwordRef.current?.focus();
    } finally {
      busy.current = false;
      setLoading(false);
    }
  };

  if (!open) return null;

  const titleId = `${ids}-title`;
  const textId = `${ids}-text`;
  const errorId = `${ids}-error`;
  return createPortal(
    <div className="modal-backdrop">
      <div
        ref={dialogRef}
        className="modal"
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        aria-describedby={textId}
        tabIndex={-1}
        onKeyDown={onKeyDown}
      >
        <h2 id={titleId} className="modal-title">
          {gettext('Your session has ended')}
        </h2>
        <p id={textId}>{gettext('Sign in again to continue where you left off.')}</p>
        <form ref={formRef} onSubmit={onSubmit} onInput={onInput} aria-busy={loading || undefined}>
          {error && (
            <p id={errorId} className="alert alert-danger" role="alert">
              {error}
            </p>
          )}
          <div className="form-field">
            <label htmlFor={`${ids}-email`}>{gettext('E-mail')}</label>
            <input
              ref={emailRef}
              id={`${ids}-email`}
              name="email"
              type="email"
              autoComplete="username"
              required
              value={email}
              onChange={(event) => setEmail(event.target.value)}
              aria-describedby={error ? errorId : undefined}
            />
          </div>
          <div className="form-field">
            <label htmlFor={`${ids}-password`}>{gettext('Password')}</label>
            <input
              ref={passwordRef}
              id={`${ids}-password`}
              name="password"
              type="password"
              autoComplete="current-password"
              required
              value={password}
              onChange={(event) => setPassword(event.target.value)}
              aria-describedby={error ? errorId : undefined}
            />
          </div>
          <div className="form-actions">
            <button type="submit" className="btn btn-primary" disabled={!valid || loading}>
              {loading && <span className="spinner" aria-hidden="true" />}
              {gettext('Sign in')}
            </button>
            <a className="btn btn-link" href={href}>
              {gettext('Go to the login page')}
            </a>
          </div>
        </form>
      </div>
    </div>,
    host,
  );
}
