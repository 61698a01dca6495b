// The alert store behind the alerts island.
import assert from 'node:assert/strict';
import { beforeEach, test } from 'node:test';
import {
  AUTO_DISMISS_MS,
  clearAlerts,
  dismissAlert,
  getAlerts,
  pushAlert,
  replaceSuccessAlerts,
  subscribe,
} from '../lib/alerts.js';

beforeEach(() => clearAlerts());

test('unknown types are shown as danger', () => {
  pushAlert({ type: 'rankingSummary', message: 'x' });
  pushAlert({ message: 'no type' });
  assert.deepEqual(
    getAlerts().map((alert) => alert.type),
    ['danger', 'info'],
  );
});

test('success and info close by themselves; warning and danger stay', () => {
  for (const type of ['success', 'info', 'warning', 'danger']) pushAlert({ type, message: type });
  assert.deepEqual(
    getAlerts().map((alert) => alert.timeout),
    [AUTO_DISMISS_MS, AUTO_DISMISS_MS, 0, 0],
  );
  assert.equal(AUTO_DISMISS_MS, 8000);
  pushAlert({ type: 'success', message: 'sticky', timeout: 0 });
  assert.equal(getAlerts().at(-1).timeout, 0);
});

test('subscribers hear every change; dismiss and clear remove alerts', () => {
  const heard = [];
  const unsubscribe = subscribe((alerts) => heard.push(alerts.length));
  const id = pushAlert({ type: 'info', message: 'one', link: '/x', linkText: 'Open' });
  pushAlert({ type: 'danger', message: 'two' });
  dismissAlert(id);
  dismissAlert(id);
  clearAlerts();
  clearAlerts();
  unsubscribe();
  pushAlert({ message: 'unheard' });
  assert.deepEqual(heard, [1, 2, 1, 0]);
});

test('an alert reveals the stack unless it came by itself (a poll)', () => {
  pushAlert({ type: 'success', message: 'saved' });
  pushAlert({ type: 'info', message: 'maintenance', timeout: 0, reveal: false });
  assert.deepEqual(
    getAlerts().map((alert) => alert.reveal),
    [true, false],
  );
});

test('an answer in place shows its outcome instead of the earlier successes, errors stay', () => {
  pushAlert({ type: 'success', message: 'The cost is added to Tvätt.' });
  pushAlert({ type: 'danger', message: 'Enter a number greater than 0' });
  pushAlert({ type: 'success', message: 'The cost is added to Tvätt.' });
  const ids = replaceSuccessAlerts([{ type: 'success', message: 'Tvätt started for ABC123.' }], {
    reveal: false,
  });
  assert.deepEqual(
    getAlerts().map((alert) => [alert.type, alert.message]),
    [
      ['danger', 'Enter a number greater than 0'],
      ['success', 'Tvätt started for ABC123.'],
    ],
  );
  assert.equal(ids.length, 1);
  assert.equal(getAlerts().at(-1).reveal, false);
  replaceSuccessAlerts([]);
  assert.deepEqual(
    getAlerts().map((alert) => alert.type),
    ['danger'],
  );
});
