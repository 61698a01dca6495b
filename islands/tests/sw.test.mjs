// The service worker (islands/sw.js): only hashed bundles are cached; pages and calls go to the
// network untouched; old caches are dropped; a skipWaiting message is obeyed.
import assert from 'node:assert/strict';
import { test } from 'node:test';

const handlers = {};
const caches = new Map();
const fetched = [];
let skipped = 0;
let claimed = 0;

function fakeCache(name) {
  if (!caches.has(name)) {
    const entries = new Map();
    caches.set(name, {
      entries,
      addAll: async (urls) => urls.forEach((url) => entries.set(url, `cached ${url}`)),
      match: async (request) => entries.get(new URL(request.url).pathname),
      put: async (request, response) => entries.set(new URL(request.url).pathname, response),
    });
  }
  return caches.get(name);
}

globalThis.__SW_VERSION__ = 'abc123def456';
globalThis.__SW_FILES__ = ['main-AAAAAAAA.js', 'chunks/alerts-BBBBBBBB.js'];
globalThis.caches = {
  open: async (name) => fakeCache(name),
  keys: async () => [...caches.keys()],
  delete: async (name) => caches.delete(name),
};
globalThis.fetch = async (request) => {
  fetched.push(request.url);
  return { ok: true, type: 'basic', clone: () => 'copy' };
};
globalThis.self = {
  location: { origin: 'https://dealer.test' },
  clients: { claim: async () => (claimed += 1) },
  skipWaiting: () => (skipped += 1),
  addEventListener: (type, fn) => {
    handlers[type] = fn;
  },
};

await import('../sw.js');
const CACHE = 'dealercare-bundles-abc123def456';

async function extendable(type, extra = {}) {
  let waited = null;
  handlers[type]({ waitUntil: (promise) => (waited = promise), ...extra });
  await waited;
}

function fetchEvent(url, method = 'GET') {
  const event = {
    request: { url, method },
    answered: null,
    respondWith(promise) {
      this.answered = promise;
    },
  };
  handlers.fetch(event);
  return event;
}

test('install pre-caches the files the manifest names, in a cache named by version', async () => {
  await extendable('install');
  assert.deepEqual(
    [...caches.get(CACHE).entries.keys()],
    ['/static/dist/main-AAAAAAAA.js', '/static/dist/chunks/alerts-BBBBBBBB.js'],
  );
});

test('activate deletes old bundle caches only, then takes over open pages', async () => {
  fakeCache('dealercare-bundles-000000000000');
  fakeCache('someone-else');
  await extendable('activate');
  assert.deepEqual([...caches.keys()].sort(), [CACHE, 'someone-else']);
  assert.equal(claimed, 1);
});

test('hashed bundles are answered cache-first', async () => {
  const hit = fetchEvent('https://dealer.test/static/dist/main-AAAAAAAA.js');
  assert.equal(await hit.answered, 'cached /static/dist/main-AAAAAAAA.js');
  assert.deepEqual(fetched, []);
  const miss = fetchEvent('https://dealer.test/static/dist/chunks/user-settings-CCCCCCCC.js');
  await miss.answered;
  assert.deepEqual(fetched, ['https://dealer.test/static/dist/chunks/user-settings-CCCCCCCC.js']);
  assert.equal(caches.get(CACHE).entries.get('/static/dist/chunks/user-settings-CCCCCCCC.js'), 'copy');
});

test('pages, calls, catalogues, the manifest and other origins go to the network untouched', () => {
  for (const url of [
    'https://dealer.test/',
    'https://dealer.test/begcare/items/incoming',
    'https://dealer.test/api/me/instances',
    'https://dealer.test/assets/i18n/sv-SE.json',
    'https://dealer.test/static/dist/manifest.json',
    'https://dealer.test/static/dist/i18n/sv-SE.json',
    'https://dealer.test/sw.js',
    'https://cdn.example/static/dist/main-AAAAAAAA.js',
  ]) {
    assert.equal(fetchEvent(url).answered, null, url);
  }
  assert.equal(fetchEvent('https://dealer.test/static/dist/main-AAAAAAAA.js', 'POST').answered, null);
});

test('a skipWaiting message activates the waiting worker', () => {
  handlers.message({ data: { type: 'skipWaiting' } });
  handlers.message({ data: 'skipWaiting' });
  handlers.message({ data: { type: 'other' } });
  assert.equal(skipped, 2);
});
