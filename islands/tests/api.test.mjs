// The api client against a stubbed fetch and a minimal fake page (spec 01 sections 7 and 8).
import assert from 'node:assert/strict';
import { beforeEach, test } from 'node:test';

// --- a minimal page ----------------------------------------------------------------------------

const csrfMeta = {
  content: 'token-1',
  getAttribute(name) {
    return name === 'content' ? this.content : null;
  },
  setAttribute(name, value) {
    if (name === 'content') this.content = value;
  },
};
const page = { loginModalMounted: true };
const assigned = [];
const storage = new Map();

globalThis.document = {
  documentElement: {
    lang: 'sv-SE',
    dataset: { apiUrl: '/api/', i18nUrl: '/assets/i18n/sv-SE.json', loginUrl: '/login' },
  },
  querySelector(selector) {
    if (selector === 'meta[name="csrf-token"]') return csrfMeta;
    if (selector === '[data-island="login-modal"]') return page.loginModalMounted ? {} : null;
    return null;
  },
};
globalThis.window = Object.assign(new EventTarget(), {
  location: {
    pathname: '/begcare/dashboard',
    search: '?division=all',
    assign: (url) => assigned.push(url),
  },
});
globalThis.localStorage = {
  getItem: (key) => (storage.has(key) ? storage.get(key) : null),
  setItem: (key, value) => storage.set(key, String(value)),
};

// --- a scripted server ---------------------------------------------------------------------------

const calls = [];
let answers = [];

/** Queue the next answers: [status, body, headers?] or an Error for a network failure. */
function answer(...items) {
  answers.push(...items);
}

globalThis.fetch = async (url, init = {}) => {
  calls.push({ url, ...init });
  if (url.startsWith('/assets/i18n/')) {
    return new Response(JSON.stringify({ 'Sign in': 'Anmelden' }), {
      headers: { 'Content-Type': 'application/json' },
    });
  }
  const next = answers.shift();
  if (!next) throw new Error(`No scripted answer for ${init.method} ${url}`);
  if (next instanceof Error) throw next;
  const [status, body, headers = {}] = next;
  const statusText = { 401: 'Unauthorized', 503: 'Service Unavailable' }[status] ?? '';
  return new Response(body === undefined ? null : JSON.stringify(body), {
    status,
    statusText,
    headers: { 'Content-Type': 'application/json', ...headers },
  });
};

const { api, ApiError, isAuthPending, reportApiError } = await import('../lib/api.js');
const { clearAlerts, getAlerts, pushAlert } = await import('../lib/alerts.js');
const { setCatalogue } = await import('../lib/i18n.js');

function events(type) {
  const seen = [];
  const listener = (event) => seen.push(event);
  window.addEventListener(type, listener);
  seen.stop = () => window.removeEventListener(type, listener);
  return seen;
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

beforeEach(() => {
  calls.length = 0;
  answers = [];
  assigned.length = 0;
  clearAlerts();
  setCatalogue({});
  page.loginModalMounted = true;
  window.location.pathname = '/begcare/dashboard';
  document.documentElement.lang = 'sv-SE';
});

// --- requests ----------------------------------------------------------------------------------

test('GET is sent to the api url with credentials, language and query parameters', async () => {
  answer([200, [{ id: 1, companyName: 'Bil AB' }]]);
  const body = await api.get('me/instances', { params: { pagination: false, skip: null } });
  assert.deepEqual(body, [{ id: 1, companyName: 'Bil AB' }]);
  const [call] = calls;
  assert.equal(call.url, '/api/me/instances?pagination=false');
  assert.equal(call.method, 'GET');
  assert.equal(call.credentials, 'same-origin');
  assert.equal(call.headers.Accept, 'application/json');
  assert.equal(call.headers['Accept-Language'], 'sv-SE');
  assert.equal(call.headers['X-CSRFToken'], undefined);
  assert.equal(call.body, undefined);
});

test('PATCH sends JSON and the CSRF token from the meta tag', async () => {
  answer([204]);
  const body = await api.patch('me/change-active-instance/2', { reload: true });
  assert.equal(body, null);
  const [call] = calls;
  assert.equal(call.method, 'PATCH');
  assert.equal(call.headers['X-CSRFToken'], 'token-1');
  assert.equal(call.headers['Content-Type'], 'application/json');
  assert.equal(call.body, '{"reload":true}');
});

test('a new CSRF token in a response replaces the one in the meta tag', async () => {
  answer([200, {}, { 'X-CSRFToken': 'token-2' }], [200, {}]);
  await api.post('auth/login', { email: 'a@b.test', password: 'x' });
  await api.delete('custom-lists/3');
  assert.equal(calls[1].headers['X-CSRFToken'], 'token-2');
  csrfMeta.content = 'token-1';
});

// --- 401 and the login modal ----------------------------------------------------------------

test('401 opens the login modal once, queues the calls and retries them after sign-in', async () => {
  const unauthorized = events('cc:unauthorized');
  // The modal claims the event, as the login-modal island does.
  const claim = (event) => event.preventDefault();
  window.addEventListener('cc:unauthorized', claim);

  answer([401, { message: 'Not logged in' }], [401, { message: 'Not logged in' }]);
  let settled = 0;
  const first = api.get('me/instances').finally(() => settled++);
  const second = api.get('users/detailed-list').finally(() => settled++);
  await tick();
  await tick();

  assert.equal(unauthorized.length, 1, 'one cc:unauthorized for both calls');
  assert.equal(settled, 0, 'both calls wait for the sign-in');
  assert.equal(isAuthPending(), true);
  assert.deepEqual(getAlerts(), [], 'a 401 shows no alert');
  assert.deepEqual(assigned, []);

  answer([200, ['instances']], [200, ['users']]);
  window.dispatchEvent(new CustomEvent('cc:authenticated'));
  assert.deepEqual(await first, ['instances']);
  assert.deepEqual(await second, ['users']);
  assert.equal(isAuthPending(), false);
  assert.deepEqual(
    calls.map((call) => call.url),
    ['/api/me/instances', '/api/users/detailed-list', '/api/me/instances', '/api/users/detailed-list'],
  );

  window.removeEventListener('cc:unauthorized', claim);
  unauthorized.stop();
});

test('a call retried after sign-in is retried only once', async () => {
  const claim = (event) => event.preventDefault();
  window.addEventListener('cc:unauthorized', claim);
  answer([401, {}]);
  const call = api.get('me/instances');
  await tick();
  answer([401, {}]);
  window.dispatchEvent(new CustomEvent('cc:authenticated'));
  const error = await call.catch((failure) => failure);
  assert.ok(error instanceof ApiError);
  assert.equal(error.status, 401);
  assert.equal(calls.length, 2);
  window.removeEventListener('cc:unauthorized', claim);
});

test('401 on /login, or with authRetry false, is an ordinary error', async () => {
  const unauthorized = events('cc:unauthorized');
  window.location.pathname = '/login';
  answer([401, { message: 'Wrong e-mail or password' }]);
  await assert.rejects(api.get('me'), (error) => error.status === 401);

  window.location.pathname = '/begcare/dashboard';
  answer([401, { message: 'Wrong e-mail or password' }]);
  await assert.rejects(
    api.post('auth/login', {}, { authRetry: false, handleErrors: false }),
    (error) => error.status === 401 && error.body.message === 'Wrong e-mail or password',
  );
  assert.equal(unauthorized.length, 0);
  assert.equal(isAuthPending(), false);
  unauthorized.stop();
});

test('401 on a page without a login modal goes to the login page', async () => {
  page.loginModalMounted = false;
  answer([401, {}]);
  api.get('me/instances');
  await tick();
  await tick();
  assert.deepEqual(assigned, ['/login?next=%2Fbegcare%2Fdashboard%3Fdivision%3Dall']);
  answer([200, {}]);
  window.dispatchEvent(new CustomEvent('cc:authenticated')); // release the pending call
});

test('an authenticate address not ending in /login redirects the browser', async () => {
  answer([401, {}, { 'X-Authenticate-Url': 'https://sso.example.test/start?app=cc' }]);
  const call = api.get('me/instances');
  const outcome = await Promise.race([call.then(() => 'settled'), tick().then(() => 'pending')]);
  assert.equal(outcome, 'pending');
  assert.deepEqual(assigned, ['https://sso.example.test/start?app=cc']);
  assert.deepEqual(getAlerts(), []);
});

test('an authenticate address ending in /login does not redirect', async () => {
  answer([403, { message: 'Forbidden' }, { 'X-Authenticate-Url': '/login' }]);
  await assert.rejects(api.get('me/instances'), ApiError);
  assert.deepEqual(assigned, []);
});

// --- other errors ---------------------------------------------------------------------------

test('body.error: clears the alerts and shows the translated key with the message as value', async () => {
  pushAlert({ type: 'info', message: 'older alert' });
  setCatalogue({ 'ERROR.ADVERT_CLOSED': 'The advert closed at %(value)s' });
  answer([409, { error: 'ERROR.ADVERT_CLOSED', message: '12:00' }]);
  const error = await api.post('adverts/1/bids', { amount: 1 }).catch((failure) => failure);
  assert.ok(error instanceof ApiError);
  assert.equal(error.status, 409);
  assert.deepEqual(error.body, { error: 'ERROR.ADVERT_CLOSED', message: '12:00' });
  const alerts = getAlerts();
  assert.equal(alerts.length, 1);
  assert.equal(alerts[0].type, 'danger');
  assert.equal(alerts[0].message, 'The advert closed at 12:00');
});

test('body.error without a translation shows the key itself', async () => {
  answer([400, { error: 'ERROR.SOMETHING', message: 'x' }]);
  await assert.rejects(api.get('x'));
  assert.equal(getAlerts()[0].message, 'ERROR.SOMETHING');
});

test('body.alertUrl: an alert with the message, a link and its text under the error title', async () => {
  answer([403, { message: 'Accept the terms first', alertUrl: '/terms', linkText: 'Terms' }]);
  await assert.rejects(api.get('market/adverts'));
  const [alert] = getAlerts();
  assert.equal(alert.type, 'danger');
  assert.equal(alert.title, 'Error');
  assert.equal(alert.message, 'Accept the terms first');
  assert.equal(alert.link, '/terms');
  assert.equal(alert.linkText, 'Terms');
});

test('body.message: a danger alert with the message', async () => {
  pushAlert({ type: 'info', message: 'kept' });
  answer([404, { message: 'The vehicle does not exist.' }]);
  await assert.rejects(api.get('preparation-items/9/list-extended'), (error) => error.status === 404);
  assert.deepEqual(
    getAlerts().map(({ type, message }) => [type, message]),
    [
      ['info', 'kept'],
      ['danger', 'The vehicle does not exist.'],
    ],
  );
});

test('422 carries the field errors and keys for the form', async () => {
  const body = {
    message: 'Check the fields',
    errors: { landingPage: 'Choose a page you can open' },
    keys: { landingPage: 'LANDING_PAGE_INVALID' },
  };
  answer([422, body]);
  const error = await api.patch('me/options', {}, { handleErrors: false }).catch((e) => e);
  assert.equal(error.status, 422);
  assert.deepEqual(error.body.errors, body.errors);
  assert.deepEqual(error.body.keys, body.keys);
  assert.deepEqual(getAlerts(), [], 'handleErrors false shows no alert');
  reportApiError(error);
  assert.equal(getAlerts()[0].message, 'Check the fields');
});

test('5xx: a danger alert with status and status text', async () => {
  setCatalogue({
    'Http error with status and text %(status)s %(statusText)s': 'HTTP-fel %(status)s %(statusText)s',
  });
  answer([503, { message: 'down' }]);
  const error = await api.get('me/instances').catch((e) => e);
  assert.equal(error.status, 503);
  assert.deepEqual(
    getAlerts().map(({ type, message }) => [type, message]),
    [['danger', 'HTTP-fel 503 Service Unavailable']],
  );
});

test('a network failure: a danger alert with status 0', async () => {
  answer(new TypeError('Failed to fetch'));
  const error = await api.get('me/instances').catch((e) => e);
  assert.ok(error instanceof ApiError);
  assert.equal(error.status, 0);
  assert.equal(getAlerts()[0].message, 'Http error with status and text 0 ');
});

test('handleErrors false: no alert for 4xx, 5xx or network failures', async () => {
  answer([400, { error: 'ERROR.X' }], [500, {}], new TypeError('offline'));
  for (let i = 0; i < 3; i++) {
    await assert.rejects(api.get('x', { handleErrors: false }), ApiError);
  }
  assert.deepEqual(getAlerts(), []);
});

// --- response headers -------------------------------------------------------------------------

test('X-Cc-Version: stored, and a change from the stored version raises cc:new-version', async () => {
  storage.set('version', 'v1');
  const seen = events('cc:new-version');
  answer([200, {}, { 'X-Cc-Version': 'v1' }]);
  await api.get('me');
  assert.equal(seen.length, 0);

  answer([200, {}, { 'X-Cc-Version': 'v2' }]);
  await api.get('me');
  assert.equal(seen.length, 1);
  assert.deepEqual(seen[0].detail, { version: 'v2' });
  assert.equal(storage.get('version'), 'v2');

  answer([200, {}, { 'X-Cc-Version': 'v2' }], [404, {}, { 'X-Cc-Version': 'v3' }]);
  await api.get('me');
  assert.equal(seen.length, 1, 'no second event for the same version');
  await assert.rejects(api.get('me'));
  assert.equal(seen.length, 2, 'error answers carry the version too');
  seen.stop();
});

test('X-Cc-Language: a different language switches the page and the catalogue', async () => {
  answer([200, {}, { 'X-Cc-Language': 'de-DE' }]);
  await api.get('me');
  assert.equal(document.documentElement.lang, 'de-DE');
  await tick();
  assert.ok(calls.some((call) => call.url === '/assets/i18n/de-DE.json'));

  calls.length = 0;
  answer([200, {}, { 'X-Cc-Language': 'de-DE' }]);
  await api.get('me');
  assert.equal(calls[0].headers['Accept-Language'], 'de-DE');
  assert.equal(calls.length, 1, 'the same language loads nothing');
});
