// The menu tree island (issue 17): its markup is the server's (so hydration changes nothing),
// the keyboard walks the visible entries, the counts refresh, and a leaf closes a phone menu.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createElement as h } from 'react';
import { renderToString } from 'react-dom/server';
import { MainMenu, UserMenu, userMenuMove } from '../shell/menu-tree/components.js';
import { countsStore, FOCUS_REFRESH_GAP_MS, POLL_EVENT, refreshCounts } from '../shell/menu-tree/index.js';
import { groupId, initialCounts, keyAction, mergeCounts, visibleEntries } from '../shell/menu-tree/tree.js';

const ITEMS = [
  { key: 'my-dashboard', title: 'My dashboard', href: '/my-dashboard' },
  {
    key: 'begcare',
    title: 'Used vehicles',
    href: '/begcare',
    toggleLabel: 'Show or hide Used vehicles',
    children: [
      { key: 'begcare.dashboard', title: 'Dashboard', href: '/begcare/dashboard' },
      {
        key: 'begcare.items.incoming',
        title: 'Incoming',
        href: '/begcare/items/incoming',
        count: 20,
        countLabel: '20 vehicles',
      },
    ],
  },
  {
    key: 'newcare',
    title: 'New vehicles',
    href: '/newcare',
    toggleLabel: 'Show or hide New vehicles',
    children: [{ key: 'newcare.dashboard', title: 'Dashboard', href: '/newcare/dashboard' }],
  },
  {
    key: 'custom-list.manage',
    title: 'Manage custom lists',
    href: '/custom-list',
    mobileOnly: true,
    separator: true,
  },
  { key: 'logout', title: 'Log out', href: '/logout', mobileOnly: true },
];
const MAIN = {
  label: 'Main menu',
  items: ITEMS,
  active: ['begcare', 'begcare.items.incoming'],
  current: 'begcare.items.incoming',
  logoutAction: '/logout',
  csrfToken: 'TOKEN',
};

// What templates/macros/nav.html prints for ITEMS (app/shell/layout.py strips the white space
// between tags), as React writes it: a self-closing <input/>, the form's attributes in another
// order (hydration compares neither).
const SERVER_NAV =
  '<ul class="nav-list nav-level-1" data-nav-root="">' +
  '<li class="nav-item" data-menu-key="my-dashboard"><a href="/my-dashboard" data-nav-leaf="">' +
  '<span class="nav-title">My dashboard</span></a></li>' +
  '<li class="nav-item active has-children" data-menu-key="begcare"><a href="/begcare">' +
  '<span class="nav-title">Used vehicles</span></a>' +
  '<button type="button" class="nav-expand" aria-expanded="true" aria-controls="nav-begcare">' +
  '<span class="visually-hidden">Show or hide Used vehicles</span></button>' +
  '<div id="nav-begcare"><ul class="nav-list nav-level-2">' +
  '<li class="nav-item" data-menu-key="begcare.dashboard"><a href="/begcare/dashboard" data-nav-leaf="">' +
  '<span class="nav-title">Dashboard</span></a></li>' +
  '<li class="nav-item active" data-menu-key="begcare.items.incoming">' +
  '<a href="/begcare/items/incoming" aria-current="page" data-nav-leaf="">' +
  '<span class="nav-title">Incoming</span><span class="nav-count" aria-label="20 vehicles">20</span></a></li>' +
  '</ul></div></li>' +
  '<li class="nav-item has-children" data-menu-key="newcare"><a href="/newcare">' +
  '<span class="nav-title">New vehicles</span></a>' +
  '<button type="button" class="nav-expand" aria-expanded="false" aria-controls="nav-newcare">' +
  '<span class="visually-hidden">Show or hide New vehicles</span></button>' +
  '<div id="nav-newcare" class="nav-collapsed-group"><ul class="nav-list nav-level-2">' +
  '<li class="nav-item" data-menu-key="newcare.dashboard"><a href="/newcare/dashboard" data-nav-leaf="">' +
  '<span class="nav-title">Dashboard</span></a></li></ul></div></li>' +
  '<li class="nav-separator mobile-only" role="separator"></li>' +
  '<li class="nav-item mobile-only" data-menu-key="custom-list.manage"><a href="/custom-list" data-nav-leaf="">' +
  '<span class="nav-title">Manage custom lists</span></a></li>' +
  '<li class="nav-item mobile-only" data-menu-key="logout"><form class="nav-form" action="/logout" method="post">' +
  '<input type="hidden" name="csrf_token" value="TOKEN"/><button type="submit">Log out</button></form></li>' +
  '</ul>';

test('the first render is the markup the server drew: hydration changes nothing', () => {
  assert.equal(renderToString(h(MainMenu, MAIN)), SERVER_NAV);
});

test('on admin pages the menu starts with the Back link and the heading', () => {
  const html = renderToString(
    h(MainMenu, {
      ...MAIN,
      items: [],
      active: [],
      current: null,
      admin: { back: 'Back', backHref: '/', heading: 'Administration', headingHref: '/admin' },
    }),
  );
  assert.equal(
    html,
    '<p class="nav-back"><a href="/">← Back</a></p>' +
      '<p class="nav-heading"><a href="/admin">Administration</a></p>' +
      '<ul class="nav-list nav-level-1" data-nav-root=""></ul>',
  );
});

test('the user menu renders the server list: entries, company switch, logout form', () => {
  const html = renderToString(
    h(UserMenu, {
      items: [{ key: 'user', title: 'My settings', href: '/user' }],
      switchLabel: 'Switch company or user',
      logoutLabel: 'Log out',
      logoutAction: '/logout',
      csrfToken: 'T',
    }),
  );
  assert.equal(
    html,
    '<li data-menu-key="user"><a href="/user">My settings</a></li>' +
      '<li><button type="button" class="btn-link" data-reveal-top-selector="">Switch company or user</button></li>' +
      '<li><form action="/logout" method="post"><input type="hidden" name="csrf_token" value="T"/>' +
      '<button type="submit" class="btn-link">Log out</button></form></li>',
  );
});

test('a refreshed count replaces the one the server drew, with its label', () => {
  const counts = countsStore(initialCounts(ITEMS));
  assert.deepEqual(counts.get(), { 'begcare.items.incoming': { count: 20, label: '20 vehicles' } });
  assert.equal(counts.apply({ counts: { 'begcare.items.incoming': { count: 21, label: '21 vehicles' } } }), true);
  const html = renderToString(h(MainMenu, { ...MAIN, counts }));
  assert.match(html, /<span class="nav-count" aria-label="21 vehicles">21<\/span>/);
  // The same answer again, or an unreadable one, changes nothing.
  assert.equal(counts.apply({ counts: { 'begcare.items.incoming': { count: 21, label: '21 vehicles' } } }), false);
  for (const junk of [null, 'x', { counts: null }, { counts: { a: { count: '3', label: 'x' } } }]) {
    assert.equal(counts.apply(junk), false);
  }
  const shown = counts.get();
  assert.equal(mergeCounts(shown, { counts: {} }), shown);
});

test('the keyboard walks the visible entries of the tree', () => {
  const expanded = new Set(['begcare']);
  const wide = visibleEntries(ITEMS, expanded, false);
  assert.deepEqual(
    wide.map((row) => row.key),
    ['my-dashboard', 'begcare', 'begcare.dashboard', 'begcare.items.incoming', 'newcare'],
  );
  const phone = visibleEntries(ITEMS, expanded, true).map((row) => row.key);
  assert.deepEqual(phone.slice(-2), ['custom-list.manage', 'logout']);

  assert.deepEqual(keyAction(wide, 'my-dashboard', 'ArrowDown'), { focus: 'begcare' });
  assert.deepEqual(keyAction(wide, 'begcare', 'ArrowUp'), { focus: 'my-dashboard' });
  assert.deepEqual(keyAction(wide, 'newcare', 'ArrowDown'), { focus: 'newcare' }, 'stays at the end');
  assert.deepEqual(keyAction(wide, 'begcare.dashboard', 'Home'), { focus: 'my-dashboard' });
  assert.deepEqual(keyAction(wide, 'my-dashboard', 'End'), { focus: 'newcare' });
  // Right opens a closed group, then enters it; Left leaves to the parent, then closes it.
  assert.deepEqual(keyAction(wide, 'newcare', 'ArrowRight'), { expand: 'newcare', focus: 'newcare' });
  assert.deepEqual(keyAction(wide, 'begcare', 'ArrowRight'), { focus: 'begcare.dashboard' });
  assert.deepEqual(keyAction(wide, 'begcare.items.incoming', 'ArrowLeft'), { focus: 'begcare' });
  assert.deepEqual(keyAction(wide, 'begcare', 'ArrowLeft'), { collapse: 'begcare', focus: 'begcare' });
  assert.deepEqual(keyAction(wide, 'my-dashboard', 'ArrowRight'), { focus: 'my-dashboard' });
  // Escape closes the group around the focus, or leaves the tree at the top.
  assert.deepEqual(keyAction(wide, 'begcare.dashboard', 'Escape'), { collapse: 'begcare', focus: 'begcare' });
  assert.deepEqual(keyAction(wide, 'begcare', 'Escape'), { escape: true });
  assert.equal(keyAction(wide, 'begcare', 'a'), null);
  assert.equal(groupId('admin.general.x'), 'nav-admin-general-x');
});

test('the user menu wraps round with the arrow keys', () => {
  assert.equal(userMenuMove(0, 3, 'ArrowDown'), 1);
  assert.equal(userMenuMove(2, 3, 'ArrowDown'), 0);
  assert.equal(userMenuMove(0, 3, 'ArrowUp'), 2);
  assert.equal(userMenuMove(-1, 3, 'ArrowDown'), 0);
  assert.equal(userMenuMove(1, 3, 'End'), 2);
  assert.equal(userMenuMove(1, 3, 'Home'), 0);
  assert.equal(userMenuMove(1, 3, 'Tab'), null);
});

test('counts refresh on dc:poll, after an in-place answer and on focus, not more often than the gap on focus', async () => {
  const listeners = {};
  const win = { addEventListener: (name, fn) => (listeners[name] = fn) };
  let clock = 0;
  const calls = [];
  let answer = 21;
  const fetcher = (url) => {
    calls.push(url);
    return Promise.resolve({
      ok: true,
      json: () => ({ counts: { 'begcare.items.incoming': { count: answer, label: `${answer} vehicles` } } }),
    });
  };
  const counts = countsStore(initialCounts(ITEMS));
  const refresh = refreshCounts(counts, '/api/me/menu-counts', { win, fetcher, now: () => clock });
  listeners.focus();
  assert.equal(calls.length, 0, 'just loaded: the page has fresh counts');
  await listeners[POLL_EVENT]();
  assert.deepEqual(calls, ['/api/me/menu-counts']);
  assert.equal(counts.get()['begcare.items.incoming'].count, 21);
  clock += FOCUS_REFRESH_GAP_MS;
  answer = 19;
  await listeners.focus();
  assert.equal(calls.length, 2);
  assert.equal(counts.get()['begcare.items.incoming'].count, 19);
  // A state moved in place: the menu asks at once, whatever the focus gap.
  answer = 18;
  await listeners['cc:in-place']();
  assert.equal(calls.length, 3);
  assert.equal(counts.get()['begcare.items.incoming'].count, 18);
  // A failed call keeps what is shown.
  const failing = refreshCounts(counts, '/x', { win: { addEventListener() {} }, fetcher: () => Promise.reject(new Error('offline')) });
  assert.equal(await failing(), false);
  assert.equal(counts.get()['begcare.items.incoming'].count, 18);
  assert.equal(typeof refresh, 'function');
});
