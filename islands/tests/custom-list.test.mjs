// The seen-marker rules of the custom-list island (spec 02 sections 4 and 8).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { rowClasses, toggleSeen } from '../preparation/custom-list/seen.js';

const LIST = '/preparation-custom-lists/3';

/** A client that answers with `answer` (a value, or an error to throw) and records the calls. */
function fakeClient(answer) {
  const calls = [];
  const respond = async (...args) => {
    calls.push(args);
    if (answer instanceof Error) throw answer;
    return answer;
  };
  return {
    calls,
    post: (path, body, options) => respond('POST', path, body, options),
    delete: (path, options) => respond('DELETE', path, options),
  };
}

function apiError(status, body) {
  return Object.assign(new Error(body?.error || `HTTP ${status}`), { status, body });
}

test('an unseen row is highlighted; warning and advert rows get their classes', () => {
  assert.equal(rowClasses({ seenId: null }), 'row-unseen');
  assert.equal(rowClasses({ seenId: 4 }), '');
  assert.equal(rowClasses({ seenId: null, warning: true }), 'row-warning row-unseen');
  assert.equal(rowClasses({ seenId: 4, activeAdvert: true }), 'row-advert');
});

test('activating an unseen item creates a marker with the list and item references', async () => {
  const client = fakeClient({ id: 17 });
  const result = await toggleSeen({ id: 9, seenId: null }, LIST, client);
  assert.deepEqual(result, { seenId: 17, modal: null });
  const [method, path, body, options] = client.calls[0];
  assert.equal(method, 'POST');
  assert.equal(path, 'preparation-custom-list-seen');
  assert.deepEqual(body, { customList: LIST, item: '/preparation-items/9' });
  assert.equal(options.handleErrors, false);
});

test('activating a seen item deletes its marker', async () => {
  const client = fakeClient(null);
  const result = await toggleSeen({ id: 9, seenId: 17 }, LIST, client);
  assert.deepEqual(result, { seenId: null, modal: null });
  assert.deepEqual(client.calls[0].slice(0, 2), ['DELETE', 'preparation-custom-list-seen/17']);
});

test('a 422 on create takes the existing seenId and opens the modal with the error', async () => {
  const error = apiError(422, { error: 'Already seen', message: 'Already seen', seenId: 21 });
  const result = await toggleSeen({ id: 9, seenId: null }, LIST, fakeClient(error));
  assert.deepEqual(result, { seenId: 21, modal: 'Already seen' });
});

test('a 422 on delete clears the marker and opens the modal with the error', async () => {
  const error = apiError(422, { error: 'Gone already' });
  const result = await toggleSeen({ id: 9, seenId: 17 }, LIST, fakeClient(error));
  assert.deepEqual(result, { seenId: null, modal: 'Gone already' });
});

test('other failures leave the row as it was and are reported, not shown in the modal', async () => {
  for (const [row, error] of [
    [{ id: 9, seenId: null }, apiError(404, { message: 'Not found' })],
    [{ id: 9, seenId: null }, apiError(422, { error: 'No marker id', seenId: 0 })],
    [{ id: 9, seenId: 17 }, apiError(500, null)],
  ]) {
    const reported = [];
    const result = await toggleSeen(row, LIST, fakeClient(error), (e) => reported.push(e));
    assert.deepEqual(result, { seenId: row.seenId, modal: null });
    assert.equal(reported.length, 1);
  }
});
