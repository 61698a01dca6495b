// The import progress bar's words and its end.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { finished, label } from '../admin/import-progress/progress.js';

const gettext = (text, params = {}) => text.replace(/%\((\w+)\)s/g, (_, name) => String(params[name]));

test('running: rows processed of the total', () => {
  const state = { status: 'running', processed: 250, total: 1000 };
  assert.equal(label(gettext, state), '250 of 1000 rows');
  assert.equal(finished(state), false);
});

test('done and failed end the polling with their own words', () => {
  assert.equal(label(gettext, { status: 'done' }), 'The import is done.');
  assert.equal(finished({ status: 'done' }), true);
  assert.match(label(gettext, { status: 'failed' }), /failed/);
  assert.equal(finished({ status: 'failed' }), true);
});
