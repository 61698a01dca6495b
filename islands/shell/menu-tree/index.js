// The menu tree island (issue 17): hydrates the server-drawn main (or admin) menu and the user
// menu with React, from the props in <script id="menu-tree-props">, and keeps the counts fresh
// while the page stays open: on window focus, on the `dc:poll` event of the system-message
// poll and after a form answered in place (a state moved), from /api/me/menu-counts (the counts
// the pages use, cached on the server).
import { createElement as h } from 'react';
import { hydrateRoot } from 'react-dom/client';
import { IN_PLACE_EVENT } from '../../lib/in-place.js';
import { MOBILE_QUERY, shouldCloseAfterLeaf } from '../../lib/menu.js';
import { MainMenu, UserMenu } from './components.js';
import { initialCounts, mergeCounts } from './tree.js';

/** A refresh on focus waits at least this long after the previous one. */
export const FOCUS_REFRESH_GAP_MS = 15000;
export const POLL_EVENT = 'dc:poll';

/** A tiny store of counts by entry key, shared by every root of the island. */
export function countsStore(initial) {
  let counts = initial;
  const listeners = new Set();
  return {
    get: () => counts,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    apply(answer) {
      const next = mergeCounts(counts, answer);
      if (next === counts) return false;
      counts = next;
      for (const listener of listeners) listener();
      return true;
    },
  };
}

/**
 * Refresh `store` from `url` on window focus (at most once per FOCUS_REFRESH_GAP_MS) and on
 * every `dc:poll` and in-place answer (IN_PLACE_EVENT). A failed call keeps what is shown; the
 * session's end is the shell's business.
 */
export function refreshCounts(store, url, { win = window, fetcher = win.fetch?.bind(win), now = Date.now } = {}) {
  let last = now();
  let running = null;
  const refresh = () => {
    if (running || !fetcher) return running;
    last = now();
    running = fetcher(url, { credentials: 'same-origin', headers: { Accept: 'application/json' } })
      .then((response) => (response.ok ? response.json() : null))
      .then((answer) => store.apply(answer))
      .catch(() => false)
      .finally(() => {
        running = null;
      });
    return running;
  };
  win.addEventListener('focus', () => {
    return now() - last >= FOCUS_REFRESH_GAP_MS ? refresh() : null;
  });
  win.addEventListener(POLL_EVENT, refresh);
  win.addEventListener(IN_PLACE_EVENT, refresh);
  return refresh;
}

function mobileStore(win) {
  const query = win.matchMedia?.(MOBILE_QUERY);
  return {
    get: () => Boolean(query?.matches),
    subscribe(listener) {
      query?.addEventListener?.('change', listener);
      return () => query?.removeEventListener?.('change', listener);
    },
  };
}

function closePhoneMenu(doc) {
  doc.querySelector('.app')?.classList.remove('nav-open');
  for (const toggle of doc.querySelectorAll('.menu-toggle, [data-nav-toggle]')) {
    toggle.setAttribute('aria-expanded', 'false');
  }
}

function readProps(doc) {
  const script = doc.getElementById('menu-tree-props');
  if (!script) return null;
  try {
    return JSON.parse(script.textContent);
  } catch (error) {
    console.error('The menu tree has unreadable props', error);
    return null;
  }
}

/** Hydrate the menus of a shell page; returns the React roots (none on other pages). */
export function hydrateMenus(doc = document, win = window) {
  const props = readProps(doc);
  const nav = doc.querySelector('nav[data-menu-tree]');
  if (!props || !nav) return [];
  const mobile = mobileStore(win);
  const counts = countsStore(initialCounts(props.main.items));
  const onLeaf = () => {
    const frame = doc.querySelector('.app');
    if (!frame?.classList.contains('nav-open')) return;
    const rule = {
      mobile: mobile.get(),
      menuWidth: nav.getBoundingClientRect().width,
      windowWidth: win.innerWidth,
    };
    if (shouldCloseAfterLeaf(rule)) closePhoneMenu(doc);
  };
  const onRecoverableError = (error) => console.error('The menu tree could not hydrate', error);
  const roots = [
    hydrateRoot(nav, h(MainMenu, { ...props.main, counts, mobile, onLeaf }), { onRecoverableError }),
  ];
  const userList = doc.querySelector('ul[data-user-menu]');
  if (userList && props.user) {
    roots.push(hydrateRoot(userList, h(UserMenu, props.user), { onRecoverableError }));
  }
  if (props.main.countsUrl) refreshCounts(counts, props.main.countsUrl, { win });
  nav.dataset.menuHydrated = 'true';
  return roots;
}
