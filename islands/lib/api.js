// The JSON client every island uses. Paths are relative to <html data-api-url>.
// Error handling follows spec 01 section 8; see request() for the order of the rules.
import { clearAlerts, pushAlert } from './alerts.js';
import { gettext, setLanguage, translate } from './i18n.js';
import { readStorage, writeStorage } from './storage.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const DEFAULT_LANGUAGE = 'en-GB';

/** A refused or failed call: `status` is 0 when the network failed; `body` is the parsed answer. */
export class ApiError extends Error {
  constructor(status, body = null, statusText = '', options = undefined) {
    const message =
      (body && typeof body === 'object' && (body.message || body.error)) ||
      `HTTP ${status} ${statusText}`.trim();
    super(String(message), options);
    this.name = 'ApiError';
    this.status = status;
    this.statusText = statusText;
    this.body = body;
  }
}

function html() {
  return document.documentElement;
}

function apiBase() {
  const base = html().dataset.apiUrl || '/api/';
  return base.endsWith('/') ? base : `${base}/`;
}

function currentLanguage() {
  return html().lang || DEFAULT_LANGUAGE;
}

function csrfMeta() {
  return document.querySelector('meta[name="csrf-token"]');
}

/** The full URL for an API path; a path starting with "/" or a scheme is used as given. */
export function apiUrl(path, params) {
  let url = /^([a-z][a-z0-9+.-]*:|\/)/i.test(path) ? path : apiBase() + path;
  if (params) {
    const query = new URLSearchParams();
    for (const [key, value] of Object.entries(params)) {
      if (value === undefined || value === null) continue;
      for (const item of Array.isArray(value) ? value : [value]) query.append(key, String(item));
    }
    const text = query.toString();
    if (text) url += (url.includes('?') ? '&' : '?') + text;
  }
  return url;
}

// --- response headers -------------------------------------------------------------------------

let seenVersion = null;

/** Remember the page's bundle version (main.jsx calls this with <html data-version> on load). */
export function rememberVersion(version) {
  if (!version) return;
  seenVersion = version;
  writeStorage('version', version);
}

function checkVersion(version) {
  if (!version) return;
  const previous = seenVersion ?? html().dataset.version ?? readStorage('version');
  writeStorage('version', version);
  seenVersion = version;
  if (previous && previous !== version) {
    window.dispatchEvent(new CustomEvent('cc:new-version', { detail: { version } }));
  }
}

function checkLanguage(tag) {
  if (!tag || tag === currentLanguage()) return;
  html().lang = tag;
  setLanguage(tag).catch(() => {
    // keep the current catalogue; the next page load renders the new language anyway
  });
}

/** Use `token` for later state-changing calls (a new session after sign-in has a new one). */
export function setCsrfToken(token) {
  const meta = token && csrfMeta();
  if (meta) meta.setAttribute('content', token);
}

function readHeaders(response) {
  const headers = response.headers;
  checkLanguage(headers.get('X-Cc-Language'));
  checkVersion(headers.get('X-Cc-Version'));
  setCsrfToken(headers.get('X-CSRFToken'));
}

async function readBody(response) {
  if (response.status === 204 || response.status === 205) return null;
  const text = await response.text().catch(() => '');
  if (!text) return null;
  const type = response.headers.get('Content-Type') || '';
  if (type.includes('json')) {
    try {
      return JSON.parse(text);
    } catch {
      return null;
    }
  }
  return text;
}

// --- 401: the login modal ---------------------------------------------------------------------

let authPending = null;

/** True while a 401 waits for the login modal (the modal opens itself when it mounts late). */
export function isAuthPending() {
  return authPending !== null;
}

function onLoginPage() {
  return window.location.pathname.replace(/\/+$/, '') === '/login';
}

function goToLoginPage() {
  const loginUrl = html().dataset.loginUrl || '/login';
  const here = window.location.pathname + window.location.search;
  const glue = loginUrl.includes('?') ? '&' : '?';
  window.location.assign(`${loginUrl}${glue}next=${encodeURIComponent(here)}`);
}

function waitForAuthentication() {
  if (!authPending) {
    authPending = new Promise((resolve) => {
      window.addEventListener(
        'cc:authenticated',
        () => {
          authPending = null;
          resolve();
        },
        { once: true },
      );
    });
    // The login modal cancels this event to say it is taking over. A page without a modal
    // (none mounted and none on its way) sends the user to the login page instead.
    const event = new CustomEvent('cc:unauthorized', { cancelable: true });
    const claimed = !window.dispatchEvent(event);
    if (!claimed && !document.querySelector('[data-island="login-modal"]')) goToLoginPage();
  }
  return authPending;
}

// --- other errors -----------------------------------------------------------------------------

function endsInLogin(address) {
  return address.split(/[?#]/)[0].replace(/\/+$/, '').endsWith('/login');
}

function alertHttpError(status, statusText) {
  pushAlert({
    type: 'danger',
    message: gettext('Http error with status and text %(status)s %(statusText)s', {
      status,
      statusText,
    }),
  });
}

function alertClientError(body) {
  if (!body || typeof body !== 'object') return;
  if (body.error) {
    clearAlerts();
    pushAlert({ type: 'danger', message: translate(body.error, { value: body.message }) });
  } else if (body.alertUrl) {
    pushAlert({
      type: 'danger',
      title: gettext('Error'),
      message: translate(body.message || '', { value: body.value }),
      link: body.alertUrl,
      linkText: body.linkText || body.alertUrl,
    });
  } else if (body.message) {
    pushAlert({ type: 'danger', message: String(body.message) });
  }
}

/** Show the alert the client shows for `error` by default (for callers using handleErrors false). */
export function reportApiError(error) {
  if (!(error instanceof ApiError)) return;
  if (error.status >= 400 && error.status < 500) alertClientError(error.body);
  else alertHttpError(error.status, error.statusText);
}

/**
 * Send one call. Options: params (query), headers, handleErrors (default true: show alerts),
 * authRetry (default true: a 401 waits for the login modal, then the call is repeated once),
 * signal. Resolves with the parsed body; rejects with an ApiError.
 */
export async function request(method, path, body, options = {}) {
  const { params, headers = {}, handleErrors = true, authRetry = true, signal } = options;
  const verb = method.toUpperCase();
  const init = {
    method: verb,
    credentials: 'same-origin',
    headers: {
      Accept: 'application/json',
      'Accept-Language': currentLanguage(),
      ...headers,
    },
    signal,
  };
  if (!SAFE_METHODS.has(verb)) {
    const token = csrfMeta()?.getAttribute('content');
    if (token) init.headers['X-CSRFToken'] = token;
  }
  if (body !== undefined && body !== null) {
    if (typeof FormData !== 'undefined' && body instanceof FormData) {
      init.body = body;
    } else {
      init.headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
  }

  let response;
  try {
    response = await fetch(apiUrl(path, params), init);
  } catch (error) {
    if (error?.name === 'AbortError') throw error;
    if (handleErrors) alertHttpError(0, '');
    throw new ApiError(0, null, '', { cause: error });
  }

  readHeaders(response);
  const authenticateUrl = response.headers.get('X-Authenticate-Url');
  if (authenticateUrl && !endsInLogin(authenticateUrl)) {
    window.location.assign(authenticateUrl);
    return new Promise(() => {}); // the page is leaving; nothing more to show
  }

  const data = await readBody(response);
  if (response.ok) return data;

  const { status, statusText } = response;
  if (status === 401 && authRetry && !onLoginPage()) {
    await waitForAuthentication();
    return request(verb, path, body, { ...options, authRetry: false });
  }
  if (handleErrors) {
    if (status >= 400 && status < 500) alertClientError(data);
    else alertHttpError(status, statusText);
  }
  throw new ApiError(status, data, statusText);
}

export const api = {
  get: (path, options) => request('GET', path, undefined, options),
  delete: (path, options) => request('DELETE', path, undefined, options),
  post: (path, body, options) => request('POST', path, body, options),
  put: (path, body, options) => request('PUT', path, body, options),
  patch: (path, body, options) => request('PATCH', path, body, options),
};

export default api;
