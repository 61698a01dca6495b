// The page-frame enhancers: the error page's go-back link (spec 01 section 2).
import assert from 'node:assert/strict';
import { beforeEach, test } from 'node:test';
import { fakeEvent } from './fake-events.mjs';

// --- a minimal page ----------------------------------------------------------------------------

class FakeElement {
  constructor(...selectors) {
    this.selectors = selectors;
  }

  closest(selector) {
    const wanted = selector.split(',').map((part) => part.trim());
    return wanted.some((part) => this.selectors.includes(part)) ? this : null;
  }
}

const listeners = {};
const steps = [];
let reloads = 0;

globalThis.Element = FakeElement;
globalThis.document = {
  addEventListener: (type, fn) => {
    listeners[type] = fn;
  },
  querySelector: () => null,
  querySelectorAll: () => [],
};
globalThis.window = {
  history: { length: 1, go: (delta) => steps.push(delta) },
  location: {
    reload: () => {
      reloads += 1;
    },
  },
  matchMedia: () => ({ matches: false, addEventListener() {} }),
  addEventListener() {},
};

const { enhanceShell, goBack } = await import('../lib/shell.js');
enhanceShell();

/** A click on `target` as the document's listener sees it; `followed` tells if the link opens. */
function click(target, extra = {}) {
  const event = fakeEvent('click', target, extra);
  listeners.click(event);
  return { followed: !event.defaultPrevented };
}

beforeEach(() => {
  steps.length = 0;
  reloads = 0;
});

// --- go back ---------------------------------------------------------------------------------

test('go-back steps two entries back when the history is long enough', () => {
  window.history.length = 3;
  const { followed } = click(new FakeElement('[data-go-back]'));
  assert.deepEqual(steps, [-2]);
  assert.equal(followed, false);
});

test('go-back follows its href (the root) when the history is short', () => {
  for (const length of [1, 2]) {
    window.history.length = length;
    const { followed } = click(new FakeElement('[data-go-back]'));
    assert.equal(followed, true, `history of ${length}`);
  }
  assert.deepEqual(steps, []);
});

test('go-back leaves new-tab clicks and other buttons to the browser', () => {
  window.history.length = 5;
  const link = new FakeElement('[data-go-back]');
  for (const extra of [{ ctrlKey: true }, { metaKey: true }, { shiftKey: true }, { button: 1 }]) {
    assert.equal(click(link, extra).followed, true, JSON.stringify(extra));
  }
  assert.deepEqual(steps, []);
});

test('goBack can be given another window', () => {
  const other = { history: { length: 4, go: (delta) => steps.push(['other', delta]) } };
  const event = { button: 0, preventDefault() {} };
  goBack(event, other);
  assert.deepEqual(steps, [['other', -2]]);
});

test('other clicks keep their own behaviour', () => {
  window.history.length = 5;
  click(new FakeElement('[data-reload]'));
  assert.equal(reloads, 1);
  assert.equal(click(new FakeElement('a')).followed, true);
  assert.deepEqual(steps, []);
});
