// Translations for the islands: one JSON catalogue per locale (msgid -> msgstr), built by the
// Python side from the same .po files as the server.
//
// The message extractor is Babel's JavaScript extractor, so translatable text must be written as a
// literal call: gettext('Some text'). Keys that only exist at run time (server error keys) go
// through translate(), which the extractor does not look at.
import { useSyncExternalStore } from 'react';

const DEFAULT_I18N_BASE = '/assets/i18n/';

let catalogue = {};
let loading = null;
let revision = 0;
const subscribers = new Set();

function html() {
  return globalThis.document?.documentElement;
}

function notify() {
  revision += 1;
  for (const fn of subscribers) fn(revision);
}

async function fetchCatalogue(url) {
  const response = await fetch(url, {
    credentials: 'same-origin',
    headers: { Accept: 'application/json' },
  });
  if (!response.ok) throw new Error(`Translations ${url} answered ${response.status}`);
  const data = await response.json();
  return data && typeof data === 'object' && !Array.isArray(data) ? data : {};
}

/** Load the page's catalogue (the <html data-i18n-url>) once; later calls share the first load. */
export function loadCatalogue() {
  if (!loading) {
    const url = html()?.dataset?.i18nUrl;
    loading = url
      ? fetchCatalogue(url).then((data) => {
          catalogue = data;
          notify();
          return catalogue;
        })
      : Promise.resolve(catalogue);
  }
  return loading;
}

/** Where the catalogue for `tag` lives: next to the page's own catalogue, same query string. */
export function catalogueUrl(tag) {
  const current = html()?.dataset?.i18nUrl;
  if (!current) return `${DEFAULT_I18N_BASE}${encodeURIComponent(tag)}.json`;
  const [path, query] = current.split('?');
  const base = path.slice(0, path.lastIndexOf('/') + 1) || DEFAULT_I18N_BASE;
  return `${base}${encodeURIComponent(tag)}.json${query ? `?${query}` : ''}`;
}

/** Switch the islands to another locale: load its catalogue and re-render subscribers. */
export async function setLanguage(tag) {
  const data = await fetchCatalogue(catalogueUrl(tag));
  catalogue = data;
  loading = Promise.resolve(catalogue);
  notify();
  return catalogue;
}

/** Replace the catalogue in use directly (tests; a page without data-i18n-url). */
export function setCatalogue(data) {
  catalogue = data || {};
  notify();
}

/** Python-style %(name)s interpolation; %% is a literal percent sign. */
export function interpolate(text, params) {
  if (!params) return text;
  return text.replace(/%(?:%|\(([^)]+)\)([sdif]))/g, (match, name, conversion) => {
    if (match === '%%') return '%';
    if (!Object.prototype.hasOwnProperty.call(params, name)) return match;
    const value = params[name];
    if (value === null || value === undefined) return '';
    if (conversion === 'd' || conversion === 'i') {
      const number = Number(value);
      return Number.isFinite(number) ? String(Math.trunc(number)) : String(value);
    }
    return String(value);
  });
}

/**
 * The translation of `msgid`, interpolated with `params`. A missing or empty translation shows
 * params.default when given, otherwise the msgid itself.
 */
export function translate(msgid, params) {
  const key = msgid === null || msgid === undefined ? '' : String(msgid);
  let text = catalogue[key];
  if (typeof text !== 'string' || text === '') {
    text = params && params.default !== undefined ? String(params.default) : key;
  }
  return interpolate(text, params);
}

/** The extractable spelling of translate(): always call it with a literal first argument. */
export const gettext = translate;

/** Call `fn` after every catalogue change; returns the unsubscribe function. */
export function subscribe(fn) {
  subscribers.add(fn);
  return () => subscribers.delete(fn);
}

function getRevision() {
  return revision;
}

/** React hook: returns gettext and re-renders the component when the language changes. */
export function useGettext() {
  useSyncExternalStore(subscribe, getRevision, getRevision);
  return gettext;
}
