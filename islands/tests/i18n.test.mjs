// i18n: interpolation, missing keys, catalogue loading and language switches.
import assert from 'node:assert/strict';
import { beforeEach, test } from 'node:test';

const requested = [];
globalThis.document = {
  documentElement: { lang: 'sv-SE', dataset: { i18nUrl: '/assets/i18n/sv-SE.json?v=abc' } },
};
globalThis.fetch = async (url) => {
  requested.push(url);
  const catalogues = {
    '/assets/i18n/sv-SE.json?v=abc': { 'Sign in': 'Logga in' },
    '/assets/i18n/de-DE.json?v=abc': { 'Sign in': 'Anmelden' },
  };
  const body = catalogues[url];
  return new Response(JSON.stringify(body ?? {}), {
    status: body ? 200 : 404,
    headers: { 'Content-Type': 'application/json' },
  });
};

const i18n = await import('../lib/i18n.js');
const { gettext, interpolate, loadCatalogue, setCatalogue, setLanguage, subscribe, translate } =
  i18n;

beforeEach(() => {
  requested.length = 0;
});

test('loadCatalogue fetches the page catalogue once', async () => {
  const [first, second] = await Promise.all([loadCatalogue(), loadCatalogue()]);
  assert.deepEqual(first, { 'Sign in': 'Logga in' });
  assert.equal(first, second);
  assert.deepEqual(requested, ['/assets/i18n/sv-SE.json?v=abc']);
  await loadCatalogue();
  assert.equal(requested.length, 1);
  assert.equal(gettext('Sign in'), 'Logga in');
});

test('a missing key shows the key itself', () => {
  setCatalogue({});
  assert.equal(gettext('Your session has ended'), 'Your session has ended');
  assert.equal(translate('ERROR.UNKNOWN'), 'ERROR.UNKNOWN');
});

test('a missing key shows params.default when given', () => {
  setCatalogue({});
  assert.equal(translate('ERROR.UNKNOWN', { default: 'Something failed' }), 'Something failed');
});

test('an empty translation counts as missing', () => {
  setCatalogue({ Save: '' });
  assert.equal(gettext('Save'), 'Save');
});

test('translations interpolate Python-style named placeholders', () => {
  setCatalogue({
    'Http error with status and text %(status)s %(statusText)s':
      'HTTP-fel %(status)s %(statusText)s',
  });
  assert.equal(
    gettext('Http error with status and text %(status)s %(statusText)s', {
      status: 503,
      statusText: 'Service Unavailable',
    }),
    'HTTP-fel 503 Service Unavailable',
  );
});

test('missing keys are interpolated too, and %% is a percent sign', () => {
  setCatalogue({});
  const text = gettext('%(count)d of %(total)s at 50%%', { count: 3.7, total: 'ten' });
  assert.equal(text, '3 of ten at 50%');
});

test('placeholders without a value stay as written; text without params is untouched', () => {
  assert.equal(interpolate('Hello %(name)s', { other: 1 }), 'Hello %(name)s');
  assert.equal(interpolate('100%% sure', undefined), '100%% sure');
  assert.equal(interpolate('Value: %(value)s', { value: null }), 'Value: ');
});

test('setLanguage loads the catalogue next to the page one and notifies subscribers', async () => {
  const seen = [];
  const unsubscribe = subscribe((revision) => seen.push(revision));
  await setLanguage('de-DE');
  unsubscribe();
  assert.deepEqual(requested, ['/assets/i18n/de-DE.json?v=abc']);
  assert.equal(seen.length, 1);
  assert.equal(gettext('Sign in'), 'Anmelden');
});

test('a failed language switch keeps the current catalogue', async () => {
  await assert.rejects(setLanguage('xx-XX'));
  assert.equal(gettext('Sign in'), 'Anmelden');
});
