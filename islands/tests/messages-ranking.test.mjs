// The viewed records of system messages and the ranking summary's rules (spec 01 sections 4, 9).
import assert from 'node:assert/strict';
import { beforeEach, test } from 'node:test';
import {
  alertTypeOf,
  isViewed as messageViewed,
  markViewed as markMessage,
  readViewed as readMessages,
  textLength,
} from '../messages/system-messages/store.js';
import {
  divisionFromValue,
  divisionToShow,
  isViewed as summaryViewed,
  markViewed as markSummary,
  seasonOf,
} from '../ranking/tier-summary/rules.js';

function memoryStorage() {
  const data = new Map();
  return {
    getItem: (k) => (data.has(k) ? data.get(k) : null),
    setItem: (k, v) => data.set(k, String(v)),
    removeItem: (k) => data.delete(k),
  };
}

beforeEach(() => {
  globalThis.localStorage = memoryStorage();
});

test('a viewed message is unviewed again once its modifiedAt changes', () => {
  const message = { id: 4, modifiedAt: '2026-11-01T10:00:00+00:00' };
  assert.equal(messageViewed(message), false);
  markMessage(message, new Date('2026-11-02T00:00:00Z'));
  assert.equal(messageViewed(message), true);
  assert.deepEqual(readMessages(), [
    { id: 4, createdAt: '2026-11-01T10:00:00+00:00', viewedAt: '2026-11-02T00:00:00.000Z' },
  ]);
  assert.equal(messageViewed({ ...message, modifiedAt: '2026-11-03T09:00:00+00:00' }), false);
  markMessage({ ...message, modifiedAt: 'later' });
  assert.equal(readMessages().length, 1); // one record per message
});

test('message types: the known ones, rankingSummary as info, anything else as danger', () => {
  assert.equal(alertTypeOf('warning'), 'warning');
  assert.equal(alertTypeOf('rankingSummary'), 'info');
  assert.equal(alertTypeOf('oops'), 'danger');
  assert.equal(textLength('<p>a  <b>b</b></p>'), 3);
});

test('unreadable stored records count as none', () => {
  localStorage.setItem('viewedSystemMessages', '{not json');
  assert.deepEqual(readMessages(), []);
});

test('the summary runs on an item page or for a stored value naming a division', () => {
  assert.equal(divisionFromValue('division-12'), 12);
  assert.equal(divisionFromValue('region-3'), null);
  assert.equal(divisionFromValue('all'), null);
  assert.equal(divisionToShow({ manageDivisionId: 7, storedValue: 'all' }), 7);
  assert.equal(divisionToShow({ storedValue: 'division-5' }), 5);
  assert.equal(divisionToShow({ storedValue: null }), null);
});

test('summaries are viewed per division and season; marking all marks each', () => {
  const summary = { seasonData: { current: { identifier: '2026-Q4' }, previous: null } };
  assert.equal(seasonOf(summary), '2026-Q4');
  assert.equal(seasonOf({ seasonData: { current: null, previous: { identifier: 'Q3' } } }), 'Q3');
  markSummary([1], '2026-Q4');
  assert.equal(summaryViewed(1, '2026-Q4'), true);
  assert.equal(summaryViewed(2, '2026-Q4'), false);
  assert.equal(summaryViewed(1, '2027-Q1'), false);
  markSummary([1, 2, 3], '2026-Q4');
  assert.equal(summaryViewed(3, '2026-Q4'), true);
  assert.equal(JSON.parse(localStorage.getItem('viewedTierSummaryMessages')).length, 3);
});

test('one dialog at a time: turns are given in the order asked, the next when one lets go', async () => {
  const { currentTurn, requestTurn } = await import('../lib/modal.js');
  const news = Symbol('news');
  const summary = Symbol('summary');
  const releaseNews = requestTurn(news);
  const releaseSummary = requestTurn(summary);
  requestTurn(news); // asking again keeps the place
  assert.equal(currentTurn(), news);
  releaseNews();
  assert.equal(currentTurn(), summary);
  releaseNews(); // letting go twice changes nothing
  assert.equal(currentTurn(), summary);
  releaseSummary();
  assert.equal(currentTurn(), undefined);
});
