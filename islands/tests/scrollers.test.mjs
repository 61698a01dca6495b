// Scrolling boxes get a keyboard tab stop while they scroll and hold nothing focusable
// (lib/scrollers.js), and lose it when they fit again.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { scrolls, updateScroller } from '../lib/scrollers.js';

function box({ overflowX = 'auto', overflowY = 'visible', wide = true, focusable = false } = {}) {
  const attributes = new Map();
  return {
    style: { overflowX, overflowY },
    scrollWidth: wide ? 900 : 300,
    clientWidth: 300,
    scrollHeight: 200,
    clientHeight: 200,
    dataset: {},
    querySelector: () => (focusable ? {} : null),
    hasAttribute: (name) => attributes.has(name),
    removeAttribute: (name) => attributes.delete(name),
    set tabIndex(value) {
      attributes.set('tabindex', String(value));
    },
    get tabIndex() {
      return Number(attributes.get('tabindex') ?? -1);
    },
    attributes,
  };
}
const view = { getComputedStyle: (el) => el.style };

test('a box scrolls only when its overflow lets it and its content is larger', () => {
  assert.equal(scrolls(box(), view), true);
  assert.equal(scrolls(box({ wide: false }), view), false);
  assert.equal(scrolls(box({ overflowX: 'visible' }), view), false);
});

test('a scrolling box without focusable content gets a tab stop, and loses it when it fits', () => {
  const el = box();
  updateScroller(el, view);
  assert.equal(el.tabIndex, 0);
  assert.ok('scrollStop' in el.dataset);
  el.scrollWidth = 300;
  updateScroller(el, view);
  assert.equal(el.attributes.has('tabindex'), false);
  assert.ok(!('scrollStop' in el.dataset));
});

test('a box with a link inside, or a tab stop of its own, is left alone', () => {
  const linked = box({ focusable: true });
  updateScroller(linked, view);
  assert.equal(linked.attributes.has('tabindex'), false);
  const own = box();
  own.attributes.set('tabindex', '-1');
  own.scrollWidth = 300;
  updateScroller(own, view);
  assert.equal(own.attributes.get('tabindex'), '-1', 'a tabindex the page set is not taken away');
});
