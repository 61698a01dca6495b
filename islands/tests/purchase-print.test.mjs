import assert from 'node:assert/strict';
import { test } from 'node:test';
import { closeDelay } from '../purchase/print/close.js';

test('the print window closes 1 s after saving', () => {
  const chrome = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/120.0 Safari/537.36';
  assert.equal(closeDelay(chrome), 1000);
});

test('Firefox waits 10 s', () => {
  assert.equal(closeDelay('Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0'), 10000);
});

test('mobile browsers never close the window', () => {
  assert.equal(closeDelay('Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) Safari/604.1'), null);
  assert.equal(closeDelay('Mozilla/5.0 (Linux; Android 14) Chrome/120.0 Mobile Safari/537.36'), null);
});
