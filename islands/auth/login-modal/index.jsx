// The sign-in dialog that appears when a call answers 401 (spec 01 sections 2 and 4). The session
// is gone, so it cannot be dismissed: the user signs in again or goes to the login page. On
// success it announces cc:authenticated and the api client repeats the calls that failed.
import { useEffect, useId, useRef, useState } from 'react';
import { api, isAuthPending, setCsrfToken } from '../../lib/api.js';
import { Dialog } from '../../lib/dialog.js';
import { useGettext } from '../../lib/i18n.js';

/** A required field of the form, described by the error above it while there is one. */
function Field({ id, name, label, inputRef, type, autoComplete, value, onChange, errorId }) {
  return (
    <div className="form-field">
      <label htmlFor={id}>{label}</label>
      <input
        ref={inputRef}
        id={id}
        name={name}
        type={type}
        autoComplete={autoComplete}
        required
        value={value}
        onChange={(event) => onChange(event.target.value)}
        aria-describedby={errorId}
      />
    </div>
  );
}

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

  // The focus goes to the first field still to fill in.
  const onOpen = () => {
    const field = emailRef.current?.value ? passwordRef.current : emailRef.current;
    field?.focus();
    setValid(Boolean(formRef.current?.checkValidity()));
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

  const errorId = `${ids}-error`;
  // Escape is deliberately no way out (no onEscape): without signing in nothing on the page works.
  return (
    <Dialog
      title={gettext('Your session has ended')}
      description={gettext('Sign in again to continue where you left off.')}
      onOpen={onOpen}
      trapFocus
    >
      <form ref={formRef} onSubmit={onSubmit} onInput={onInput} aria-busy={loading || undefined}>
        {error && (
          <p id={errorId} className="alert alert-danger" role="alert">
            {error}
          </p>
        )}
        <Field id={`${ids}-email`} name="email" label={gettext('E-mail')} inputRef={emailRef} type="email"
          autoComplete="username" value={email} onChange={setEmail} errorId={error ? errorId : undefined} />
        <Field id={`${ids}-password`} name="password" label={gettext('Password')} inputRef={passwordRef} type="password"
          autoComplete="current-password" value={password} onChange={setPassword} errorId={error ? errorId : undefined} />
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
    </Dialog>
  );
}
