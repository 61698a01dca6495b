// Shared by the public market pages (bid, allocate, change status; invitation). No catalogue
// download: the page's texts arrive translated in <script type="application/json"
// id="page-texts">, and every message of a call comes translated from the server. The forms are
// React components (one React chunk shared by every public page); this file has no React.

/** The page's translated texts, by name, read once when the page script starts. */
export const t = (() => {
  const node = globalThis.document?.getElementById('page-texts'); // none in node's tests
  try {
    return node ? JSON.parse(node.textContent) : {};
  } catch {
    return {};
  }
})();

/** Python-style %(name)s interpolation, as the server's catalogue writes it. */
export function format(text, params) {
  return String(text).replace(/%\(([^)]+)\)s/g, (m, name) => (name in params ? params[name] : m));
}

/** Whole units grouped as the page's language writes numbers, as the server formats them. */
export function amount(value) {
  return new Intl.NumberFormat(globalThis.document?.documentElement.lang || undefined).format(Math.trunc(Number(value) || 0));
}

function meta(name) {
  return document.querySelector(`meta[name="${name}"]`)?.content || '';
}

/**
 * A JSON call to apiUrl + path. Resolves to {ok, status, data}; a network failure resolves to
 * status 0 with the page's connection message, so callers have one shape to handle.
 */
export async function api(method, path, body) {
  const headers = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (method !== 'GET') headers['X-CSRFToken'] = meta('csrf-token');
  const base = document.documentElement.dataset.apiUrl || '/api/';
  try {
    const response = await fetch(base + path.replace(/^\//, ''), {
      method,
      headers,
      credentials: 'same-origin',
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const data = await response.json().catch(() => ({}));
    return { ok: response.ok, status: response.status, data };
  } catch {
    return { ok: false, status: 0, data: { message: t.connectionError || 'Network error' } };
  }
}

/** document.createElement with attributes, properties (on*, hidden, disabled) and children. */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith('on')) el.addEventListener(key.slice(2), value);
    else if (key === 'className') el.className = value;
    else if (key in el && typeof value !== 'string') el[key] = value;
    else el.setAttribute(key, value === true ? '' : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

/**
 * A random key (128 bits, hex) for one filled-in form, so that sending it twice records it once.
 * getRandomValues works on any page; crypto.randomUUID only on https.
 */
export function requestKey() {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');
}
