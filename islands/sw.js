// The service worker (spec 01 sections 4 and 9), served from /sw.js so that its scope is the
// whole site. It caches only the hashed bundles under /static/dist/: their names change with
// their content, so a cached copy is never stale. Every other request (pages, /api/, /assets/,
// the manifest, the catalogues) is left to the network untouched, so HTML is never stale.
//
// islands/build.mjs bundles this file to static/dist/sw.js (unhashed) and defines:
//   __SW_VERSION__  the bundle version (the same 12 hex digits as in X-Cc-Version), so that
//                   every new build changes this file and the browser installs it as an update;
//   __SW_FILES__    the files named in static/dist/manifest.json, pre-cached on install.

/* global __SW_VERSION__, __SW_FILES__ */
const VERSION = __SW_VERSION__;
const FILES = __SW_FILES__;
const PREFIX = 'dealercare-bundles-';
const CACHE = `${PREFIX}${VERSION}`;
const DIST = '/static/dist/';
// esbuild's [hash] is 8 characters of A-Z and 2-7; see entryNames and chunkNames in build.mjs.
const HASHED = /-[A-Z2-7]{8}\.(js|css)$/;

/** True for the requests this worker answers: GETs of hashed bundles on this origin. */
export function isBundle(request, origin) {
  if (request.method !== 'GET') return false;
  const url = new URL(request.url);
  return url.origin === origin && url.pathname.startsWith(DIST) && HASHED.test(url.pathname);
}

async function cacheFirst(request) {
  const cache = await caches.open(CACHE);
  const cached = await cache.match(request);
  if (cached) return cached;
  const response = await fetch(request);
  if (response.ok && response.type === 'basic') await cache.put(request, response.clone());
  return response;
}

self.addEventListener('install', (event) => {
  event.waitUntil(
    caches.open(CACHE).then((cache) => cache.addAll(FILES.map((file) => DIST + file))),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) {
        if (name.startsWith(PREFIX) && name !== CACHE) await caches.delete(name);
      }
      await self.clients.claim();
    })(),
  );
});

self.addEventListener('fetch', (event) => {
  if (isBundle(event.request, self.location.origin)) event.respondWith(cacheFirst(event.request));
});

// The new-version banner's reload button (lib/menu.js) asks the waiting worker to take over.
self.addEventListener('message', (event) => {
  const data = event.data;
  if (data === 'skipWaiting' || data?.type === 'skipWaiting') self.skipWaiting();
});
