// The quick test's send queue (islands/quicktest/fill/main.js) and the print window's close delay
// (islands/shell/print/print.js).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { closeDelay } from '../shell/print/print.js';
import { createQueue } from '../quicktest/fill/main.js';

function memoryStore(initial = []) {
  let saved = initial;
  return { load: () => saved, save: (values) => (saved = values), saved: () => saved };
}

test('a value that cannot be sent waits, and only its newest version is sent later', async () => {
  let online = false;
  const sent = [];
  const store = memoryStore();
  const queue = createQueue({
    store,
    send: async (entry) => {
      if (!online) return 'retry';
      sent.push(entry.payload.value);
      return 'done';
    },
  });
  assert.equal(await queue.put({ key: 'a', kind: 'value', payload: { value: '1' } }), false);
  assert.equal(await queue.put({ key: 'a', kind: 'value', payload: { value: '2' } }), false);
  await queue.put({ key: 'b', kind: 'value', payload: { value: 'x' } });
  assert.equal(queue.pending(), 2);
  assert.equal(store.saved().length, 2); // kept for a reload of the page
  online = true;
  assert.equal(await queue.flush(), true);
  assert.deepEqual(sent, ['2', 'x']);
  assert.equal(queue.pending(), 0);
  assert.deepEqual(store.saved(), []);
});

test('a refused value leaves the queue; a flush during a send waits for it', async () => {
  let release;
  const gate = new Promise((resolve) => (release = resolve));
  const queue = createQueue({
    send: async (entry) => {
      if (entry.key === 'slow') await gate;
      return 'done';
    },
  });
  const first = queue.put({ key: 'slow', kind: 'value', payload: {} });
  const second = queue.flush();
  release();
  assert.equal(await first, true);
  assert.equal(await second, true);
  assert.equal(queue.pending(), 0);
});

test('values waiting from before a reload are sent first', async () => {
  const sent = [];
  const queue = createQueue({
    store: memoryStore([{ key: 'old', kind: 'value', payload: { value: 'o' } }]),
    send: async (entry) => (sent.push(entry.key), 'done'),
  });
  await queue.put({ key: 'new', kind: 'value', payload: { value: 'n' } });
  assert.deepEqual(sent, ['old', 'new']);
});

test('the print window closes 1 s after saving, 10 s in Firefox, never on a phone', () => {
  const chrome = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36';
  const firefox = 'Mozilla/5.0 (X11; Linux x86_64; rv:132.0) Gecko/20100101 Firefox/132.0';
  const iphone = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148';
  const android = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 Chrome/131.0 Mobile Safari/537.36';
  assert.equal(closeDelay(chrome), 1000);
  assert.equal(closeDelay(firefox), 10000);
  assert.equal(closeDelay(iphone), null);
  assert.equal(closeDelay(android), null);
});
