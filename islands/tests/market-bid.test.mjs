// The bid page's pure helpers: exact conversion, amounts per currency, time left, parsing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dateTime, parseAmount, timeLeft } from '../market-bid/amounts.js';
import { amountsPerCurrency, convertUp } from '../market-bid/convert.js';

test('conversion rounds up exactly, without floating-point noise', () => {
  assert.equal(Math.ceil(100 * 1.1), 111); // why convertUp does not multiply floats
  assert.equal(convertUp(100, '1.1'), 110);
  assert.equal(convertUp(185000, '1.024'), 189440);
  assert.equal(convertUp(188011, '1.024'), 192524);
  assert.equal(convertUp(188011, '0.0868'), 16320);
  assert.equal(convertUp(1000, '1'), 1000);
  assert.equal(convertUp(1000, '0'), null);
});

test('the chosen bidder keeps its own bid in its currency; others get the price times the rate', () => {
  const rates = [
    { currency: 'SEK', exchangeRate: '1' },
    { currency: 'NOK', exchangeRate: '1.024' },
    { currency: 'EUR', exchangeRate: '0.0868' },
  ];
  const bidder = { currency: 'NOK', bid: 191500, advertAmount: 187011 };
  assert.deepEqual(
    amountsPerCurrency(187011, rates, bidder).map((row) => row.amount),
    [187011, 191500, 16233],
  );
  // A changed price is converted for every currency, the bidder's too.
  assert.deepEqual(
    amountsPerCurrency(190000, rates, bidder).map((row) => row.amount),
    [190000, 194560, 16492],
  );
});

test('time left reads in days, hours or minutes, and ends', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  const at = (ms) => new Date(now + ms).toISOString();
  assert.deepEqual(timeLeft(at((2 * 24 + 4) * 3600e3 + 60e3), now), {
    key: 'timeLeftDays',
    params: { days: 2, hours: 4 },
  });
  assert.deepEqual(timeLeft(at(3 * 3600e3 + 12 * 60e3), now), {
    key: 'timeLeftHours',
    params: { hours: 3, minutes: 12 },
  });
  assert.deepEqual(timeLeft(at(20e3), now), { key: 'timeLeftMinutes', params: { minutes: 1 } });
  assert.equal(timeLeft(at(-1), now).key, 'ended');
});

test('typed amounts: digits with spaces, nothing else', () => {
  assert.equal(parseAmount('192 524'), 192524);
  assert.equal(parseAmount(' 1000 '), 1000);
  assert.equal(parseAmount(''), null);
  assert.equal(parseAmount('12.5'), null);
  assert.equal(parseAmount('-5'), null);
});

test('dates read y-MM-dd HH:mm in the local time zone', () => {
  const local = new Date(2026, 10, 5, 7, 3); // 5 November 2026, 07:03 here
  assert.equal(dateTime(local.toISOString()), '2026-11-05 07:03');
  assert.equal(dateTime('not a date'), '');
});
