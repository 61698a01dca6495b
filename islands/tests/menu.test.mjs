// The shell's menu and header rules (spec 01 sections 4, 5 and 9): logo bursts, the nav cookie,
// the 90 % rule, search phrases and the top selector's dropdown rules.
import assert from 'node:assert/strict';
import { mock, test } from 'node:test';
import {
  BURST_GAP_MS,
  createClickBurst,
  enhanceMenus,
  navCookie,
  searchPhrase,
  shouldCloseAfterLeaf,
} from '../lib/menu.js';
import { fakeEvent } from './fake-events.mjs';
import {
  activeInstanceId,
  instanceChoices,
  userChoices,
  userLabel,
} from '../shell/top-selector/choices.js';

// --- a minimal page ----------------------------------------------------------------------------

class FakeClassList {
  constructor(...names) {
    this.names = new Set(names);
  }
  contains(name) {
    return this.names.has(name);
  }
  toggle(name, force) {
    const on = force === undefined ? !this.names.has(name) : force;
    if (on) this.names.add(name);
    else this.names.delete(name);
    return on;
  }
  remove(name) {
    this.names.delete(name);
  }
  add(name) {
    this.names.add(name);
  }
}

class FakeElement {
  constructor({ matches = [], attrs = {}, classes = [], parent = null } = {}) {
    this.matches = matches;
    this.attrs = { ...attrs };
    this.classList = new FakeClassList(...classes);
    this.parent = parent;
    this.hidden = false;
    this.dataset = {};
    this.listeners = {};
  }
  closest(selector) {
    for (let el = this; el; el = el.parent) {
      if (selector.split(',').some((part) => el.matches.includes(part.trim()))) return el;
    }
    return null;
  }
  getAttribute(name) {
    return this.attrs[name] ?? null;
  }
  setAttribute(name, value) {
    this.attrs[name] = String(value);
  }
  removeAttribute(name) {
    delete this.attrs[name];
  }
  addEventListener(type, fn) {
    (this.listeners[type] ||= []).push(fn);
  }
  querySelector() {
    return null;
  }
  querySelectorAll() {
    return [];
  }
  focus() {
    this.focused = true;
  }
}

/** A page with the given elements: `bySelector` answers querySelector(All), `byId` getElementById. */
function fakePage({ bySelector = {}, byId = {}, mobile = false } = {}) {
  const listeners = [];
  const assigned = [];
  const doc = {
    cookie: '',
    documentElement: { dataset: {} },
    addEventListener: (type, fn, options) => listeners.push({ type, fn, options }),
    querySelector: (selector) => [bySelector[selector]].flat()[0] ?? null,
    querySelectorAll: (selector) => [bySelector[selector] ?? []].flat(),
    getElementById: (id) => byId[id] ?? null,
  };
  const win = {
    innerWidth: mobile ? 375 : 1280,
    location: { assign: (url) => assigned.push(url), reload() {} },
    navigator: {},
    matchMedia: () => ({ matches: mobile, addEventListener() {} }),
    addEventListener() {},
    setTimeout,
  };
  const click = (target, extra = {}) => {
    const event = fakeEvent('click', target, extra);
    for (const { type, fn } of listeners) if (type === 'click') fn(event);
    return event;
  };
  return { doc, win, click, assigned };
}

// --- five logo clicks --------------------------------------------------------------------------

function manualTimers() {
  const pending = new Map();
  let next = 1;
  return {
    setTimer: (fn) => {
      pending.set(next, fn);
      return next++;
    },
    clearTimer: (id) => pending.delete(id),
    /** Let the pause after the last click run out. */
    elapse: () => {
      const due = [...pending.values()];
      pending.clear();
      for (const fn of due) fn();
    },
    get pending() {
      return pending.size;
    },
  };
}

test('five clicks in a burst reveal; the burst then starts over', () => {
  const timers = manualTimers();
  const short = [];
  const burst = createClickBurst({ ...timers, onShortBurst: (count) => short.push(count) });
  assert.deepEqual(
    [1, 2, 3, 4].map(() => burst.click()),
    ['wait', 'wait', 'wait', 'wait'],
  );
  assert.equal(burst.click(), 'reveal');
  assert.equal(timers.pending, 0, 'no way home is left pending after a reveal');
  assert.equal(burst.count, 0);
  assert.deepEqual(short, []);
});

test('a pause ends the burst: a single click still does its own thing, counting restarts', () => {
  const timers = manualTimers();
  const short = [];
  const burst = createClickBurst({ ...timers, onShortBurst: (count) => short.push(count) });
  burst.click();
  timers.elapse();
  assert.deepEqual(short, [1]);
  for (let i = 0; i < 3; i += 1) burst.click();
  timers.elapse(); // too slow: four more would not reveal
  assert.deepEqual(short, [1, 3]);
  assert.deepEqual(
    [1, 2, 3, 4, 5].map(() => burst.click()),
    ['wait', 'wait', 'wait', 'wait', 'reveal'],
  );
});

test('the burst gap is about 600 ms with real timers', () => {
  mock.timers.enable({ apis: ['setTimeout'] });
  try {
    const short = [];
    const burst = createClickBurst({ onShortBurst: (count) => short.push(count) });
    burst.click();
    mock.timers.tick(BURST_GAP_MS - 50);
    burst.click(); // still the same burst
    mock.timers.tick(BURST_GAP_MS - 50);
    assert.deepEqual(short, []);
    mock.timers.tick(100);
    assert.deepEqual(short, [2]);
  } finally {
    mock.timers.reset();
  }
});

test('the logo waits for the burst: one click goes home, five reveal the top selector', () => {
  mock.timers.enable({ apis: ['setTimeout'] });
  try {
    const panel = new FakeElement({ matches: ['[data-top-selector]'] });
    panel.hidden = true;
    const logo = new FakeElement({ matches: ['[data-logo]'], attrs: { href: '/' } });
    const page = fakePage({ bySelector: { '[data-top-selector]': panel } });
    enhanceMenus(page.doc, page.win);

    const first = page.click(logo);
    assert.equal(first.defaultPrevented, true, 'the navigation is held');
    assert.deepEqual(page.assigned, []);
    mock.timers.tick(BURST_GAP_MS + 1);
    assert.deepEqual(page.assigned, ['/'], 'a single click still goes home');

    for (let i = 0; i < 5; i += 1) page.click(logo);
    mock.timers.tick(BURST_GAP_MS * 2);
    assert.equal(panel.hidden, false);
    assert.deepEqual(page.assigned, ['/'], 'a reveal does not navigate');

    // Once it shows, the logo is a plain link again, and new-tab clicks were never held.
    assert.equal(page.click(logo).defaultPrevented, false);
  } finally {
    mock.timers.reset();
  }
});

test('without a top selector on the page the logo is a plain link', () => {
  const logo = new FakeElement({ matches: ['[data-logo]'], attrs: { href: '/' } });
  const page = fakePage();
  enhanceMenus(page.doc, page.win);
  assert.equal(page.click(logo).defaultPrevented, false);
});

test('new-tab clicks on the logo are never held', () => {
  const panel = new FakeElement();
  panel.hidden = true;
  const logo = new FakeElement({ matches: ['[data-logo]'], attrs: { href: '/' } });
  const page = fakePage({ bySelector: { '[data-top-selector]': panel } });
  enhanceMenus(page.doc, page.win);
  for (const extra of [{ ctrlKey: true }, { metaKey: true }, { shiftKey: true }, { button: 1 }]) {
    assert.equal(page.click(logo, extra).defaultPrevented, false, JSON.stringify(extra));
  }
});

// --- the nav cookie ----------------------------------------------------------------------------

test('the collapsed desktop menu is remembered for a year, site-wide, SameSite=Lax', () => {
  const cookie = navCookie(true);
  assert.match(cookie, /^nav=collapsed;/);
  assert.match(cookie, /; path=\/;/);
  assert.match(cookie, /max-age=31536000/);
  assert.match(cookie, /SameSite=Lax/);
});

test('expanding deletes the cookie', () => {
  const cookie = navCookie(false);
  assert.match(cookie, /^nav=;/);
  assert.match(cookie, /max-age=0/);
  assert.match(cookie, /; path=\//);
});

test('the toggle writes the cookie on desktop only', () => {
  for (const mobile of [false, true]) {
    const frame = new FakeElement({ matches: ['.app'] });
    const toggle = new FakeElement({ matches: ['[data-nav-toggle]'] });
    const page = fakePage({ bySelector: { '.app': frame }, mobile });
    enhanceMenus(page.doc, page.win); // no MutationObserver here: the click path is used
    frame.classList.add('nav-collapsed'); // what shell.js does on the toggle's click
    page.click(toggle);
    assert.equal(page.doc.cookie, mobile ? '' : navCookie(true), `mobile ${mobile}`);
    if (!mobile) {
      frame.classList.remove('nav-collapsed');
      page.click(toggle);
      assert.equal(page.doc.cookie, navCookie(false));
    }
  }
});

// --- the 90 % rule -----------------------------------------------------------------------------

test('on a phone a leaf closes a menu that covers more than 90 % of the width', () => {
  assert.equal(shouldCloseAfterLeaf({ mobile: true, menuWidth: 352, windowWidth: 375 }), true);
  assert.equal(shouldCloseAfterLeaf({ mobile: true, menuWidth: 337.5, windowWidth: 375 }), false);
  assert.equal(shouldCloseAfterLeaf({ mobile: true, menuWidth: 300, windowWidth: 414 }), false);
  assert.equal(shouldCloseAfterLeaf({ mobile: false, menuWidth: 1280, windowWidth: 1280 }), false);
  assert.equal(shouldCloseAfterLeaf({ mobile: true, menuWidth: 10, windowWidth: 0 }), false);
});

// Choosing a leaf and the group buttons: the menu tree island, see menu-tree.test.mjs.

// --- search ------------------------------------------------------------------------------------

test('search phrases are trimmed; an empty phrase is nothing to search for', () => {
  assert.equal(searchPhrase('  ABC123 '), 'ABC123');
  assert.equal(searchPhrase('Volvo V70'), 'Volvo V70');
  for (const empty of ['', '   ', '\t\n', null, undefined]) assert.equal(searchPhrase(empty), null);
});

function searchPage({ mobile = false, value = '' } = {}) {
  const input = new FakeElement({ attrs: { id: 'searchphrase' } });
  input.id = 'searchphrase';
  input.value = value;
  const submit = new FakeElement();
  const form = new FakeElement({ matches: ['form[data-search]'] });
  form.querySelector = (selector) => (selector.startsWith('input') ? input : submit);
  form.contains = (el) => el === input || el === submit;
  const page = fakePage({ bySelector: { 'form[data-search]': [form] }, mobile });
  enhanceMenus(page.doc, page.win);
  const submitForm = () => {
    const event = fakeEvent('submit', form);
    for (const fn of form.listeners.submit) fn(event);
    return event.defaultPrevented ? 'stopped' : 'sent';
  };
  return { form, input, submit, submitForm };
}

test('an empty search does nothing; a phrase is sent trimmed', () => {
  const { input, submitForm } = searchPage({ value: '   ' });
  assert.equal(submitForm(), 'stopped');
  assert.equal(input.value, '');
  assert.equal(input.focused, true);
  input.value = '  ABC123  ';
  assert.equal(submitForm(), 'sent');
  assert.equal(input.value, 'ABC123');
});

test('on a phone the search button first opens the field', () => {
  const { form, input, submit, submitForm } = searchPage({ mobile: true, value: 'XYZ' });
  assert.equal(submit.getAttribute('aria-expanded'), 'false');
  assert.equal(submitForm(), 'stopped');
  assert.equal(form.classList.contains('is-expanded'), true);
  assert.equal(submit.getAttribute('aria-expanded'), 'true');
  assert.equal(input.focused, true);
  assert.equal(submitForm(), 'sent');
});

test('on desktop the search button is a plain submit button', () => {
  const { submit, submitForm } = searchPage({ value: 'XYZ' });
  assert.equal(submit.getAttribute('aria-expanded'), null);
  assert.equal(submitForm(), 'sent');
});

// --- division selector -------------------------------------------------------------------------

test('choosing a division stores it and submits the form; the no-JS button hides', () => {
  const stored = new Map();
  globalThis.localStorage = { setItem: (key, value) => stored.set(key, value) };
  try {
    const button = new FakeElement();
    let submitted = 0;
    const form = new FakeElement();
    form.querySelectorAll = () => [button];
    form.requestSubmit = () => {
      submitted += 1;
    };
    const page = fakePage({ bySelector: { 'form[data-division-selector]': [form] } });
    enhanceMenus(page.doc, page.win);
    assert.equal(button.hidden, true);
    const select = { tagName: 'SELECT', value: 'region-4', dataset: {} };
    for (const fn of form.listeners.change) fn({ target: select });
    assert.equal(stored.get('selectedDivisionDropdownValue'), 'region-4');
    assert.equal(submitted, 1);
  } finally {
    delete globalThis.localStorage;
  }
});

// --- the top selector's dropdown rules ------------------------------------------------------------

test('the company dropdown shows only with more than one instance', () => {
  const one = { 'hydra:member': [{ id: 1, companyName: 'A', active: true }], activeInstanceId: 1 };
  const two = {
    'hydra:member': [
      { id: 1, companyName: 'A', active: true },
      { id: 2, companyName: 'B', active: true },
    ],
    activeInstanceId: 2,
  };
  assert.deepEqual(instanceChoices(one), []);
  assert.deepEqual(
    instanceChoices(two).map((i) => i.id),
    [1, 2],
  );
  assert.equal(activeInstanceId(two), 2);
  assert.equal(activeInstanceId({ 'hydra:member': [{ id: 7, active: true }] }), 7);
  assert.deepEqual(instanceChoices(null), []);
});

test('the user dropdown excludes the current user and needs more than one user listed', () => {
  const ada = { id: 1, username: 'ada@x', fullName: 'Ada Admin' };
  const sara = { id: 2, username: 'sara@x', fullName: 'Sara Lindqvist' };
  assert.deepEqual(userChoices({ 'hydra:member': [ada], currentUserId: 1 }, 1), []);
  assert.deepEqual(userChoices({ 'hydra:member': [sara], currentUserId: 1 }, 1), []);
  assert.deepEqual(userChoices({ 'hydra:member': [ada, sara], currentUserId: 1 }, 1), [sara]);
  assert.deepEqual(userChoices({ 'hydra:member': [ada, sara] }, 2), [ada]);
  assert.equal(userLabel(sara), 'Sara Lindqvist (sara@x)');
  assert.equal(userLabel({ id: 3, username: 'u', firstname: 'Bo', lastname: 'Ek' }), 'Bo Ek (u)');
});
