// The bid page's pure helpers: exact conversion, amounts per currency, time left, parsing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dateTime, parseAmount, timeLeft, zoneName } from '../market/bid/amounts.js';
import { amountsPerCurrency, convertBack, convertUp } from '../market/bid/convert.js';

test('conversion rounds up exactly, without floating-point noise', () => {
  assert.equal(Math.ceil(100 * 1.1), 111); // why convertUp does not multiply floats
  assert.equal(convertUp(100, '1.1'), 110);
  assert.equal(convertUp(185000, '1.024'), 189440);
  assert.equal(convertUp(188011, '1.024'), 192524);
  assert.equal(convertUp(188011, '0.0868'), 16320);
  assert.equal(convertUp(1000, '1'), 1000);
  assert.equal(convertUp(1000, '0'), null);
});

test("a bid in another currency is booked in the advert's rounded down, as the server does", () => {
  assert.equal(convertBack(192524, '1.024'), 188011); // 188 011.7 SEK
  assert.equal(convertBack(195000, '1.024'), 190429);
  assert.equal(convertBack(110, '1.1'), 100);
  assert.equal(convertBack(1000, '0'), null);
  // What convertUp gives converts back to at least the amount it came from.
  for (const n of [1, 999, 188011, 5_000_000]) assert.ok(convertBack(convertUp(n, '0.0868'), '0.0868') >= n);
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

test('a public page names the zone after the time: its city and abbreviation', () => {
  const when = new Date(Date.UTC(2026, 6, 1, 10, 0));
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const named = dateTime(when.toISOString(), true);
  assert.ok(named.startsWith(`${dateTime(when.toISOString())} (`), named);
  if (zone.includes('/')) assert.ok(named.includes(zone.split('/').pop().replaceAll('_', ' ')), named);
  assert.match(zoneName(when, 'en-GB'), /\S/);
});

// --- the React forms (issue 17): their rules and their markup ------------------------------------

import { createElement as h } from 'react';
import { renderToString } from 'react-dom/server';
import { BidderParts, bidState } from '../market/bid/components.js';
import { allocateState, notesState, SellerParts } from '../market/bid/seller-forms.js';

const TEXTS = {
  bidAs: 'You bid for Fjordauto AS.',
  bidLabel: 'Your bid in NOK',
  placeBid: 'Place bid',
  heads: { currency: 'Currency', exchangeRate: 'Exchange rate' },
};
const RATES = {
  exchangeRates: [
    { currency: 'SEK', exchangeRate: '1', nextBid: 191000 },
    { currency: 'NOK', exchangeRate: '1.024', nextBid: 195584 },
  ],
};
const page = (kept = {}) => ({
  hashes: 'g/a/u',
  link: 'allocate/g/a/u',
  kept: { bid: null, key: 'k', answered: false, form: 1, ...kept },
  send: async () => true,
});
const BID_DATA = {
  activeGroupCurrency: 'NOK',
  currency: 'SEK',
  biddingOpen: true,
  leading: false,
  allocatedToYou: false,
};

test('the bid form starts at the next bid and refuses less, or nothing', () => {
  assert.deepEqual(bidState(null, 195584), { text: '195584', value: 195584, low: false, disabled: false });
  assert.equal(bidState('195 583', 195584).low, true);
  assert.equal(bidState('195 583', 195584).disabled, true);
  assert.equal(bidState('200000', 195584).disabled, false);
  assert.equal(bidState('200000', 195584, true).disabled, true, 'disabled while saving');
  assert.equal(bidState('12.5', 195584).disabled, true);
  assert.equal(bidState('', 195584).disabled, true);
  assert.equal(bidState(null, null).disabled, true, 'no rate for the currency: nothing to bid');
});

test('the bid form renders the server texts, the amount in the bidder currency and the table', () => {
  const html = renderToString(h(BidderParts, { data: BID_DATA, currencies: RATES, page: page(), texts: TEXTS }));
  assert.match(html, /<p class="bid-as">You bid for Fjordauto AS.<\/p>/);
  assert.match(html, /<label for="bid-amount">Your bid in NOK<\/label>/);
  assert.match(html, /min="195584"[^>]*value="195584"/);
  assert.match(html, /<button type="submit" class="btn btn-primary bid-submit" aria-busy="false">Place bid<\/button>/);
  assert.match(html, /<tr class="is-own"><th scope="row">NOK<span class="bid-own-tag">/);
  // A typed amount survives a reload of the data (a failed call), the minimum below it.
  const kept = renderToString(h(BidderParts, { data: BID_DATA, currencies: RATES, page: page({ bid: '100' }), texts: TEXTS }));
  assert.match(kept, /value="100"/);
  assert.match(kept, /aria-invalid="true"/);
  assert.match(kept, /class="field-error" id="bid-hint"/);
  assert.match(kept, /disabled=""/);
});

test('the bidder sees leading, allocated or closed instead of or above the form', () => {
  const leading = renderToString(h(BidderParts, { data: { ...BID_DATA, leading: true }, currencies: RATES, page: page(), texts: TEXTS }));
  assert.match(leading, /<p class="bid-leading">/);
  const closed = renderToString(
    h(BidderParts, { data: { ...BID_DATA, biddingOpen: false, closedMessage: 'Bidding has ended.' }, currencies: RATES, page: page(), texts: TEXTS }),
  );
  assert.match(closed, /<div class="alert alert-warning" role="alert" tabindex="-1"><div class="alert-body">Bidding has ended.<\/div><\/div>/);
  assert.doesNotMatch(closed, /<form/);
  const allocated = renderToString(
    h(BidderParts, {
      data: { ...BID_DATA, biddingOpen: false, allocatedToYou: true, allocatedSalesPrice: 190000, allocatedNotes: 'Pick up Friday' },
      currencies: RATES,
      page: page(),
      texts: TEXTS,
    }),
  );
  assert.match(allocated, /class="alert alert-success" role="status"/);
  assert.match(allocated, /<span class="bid-notes">Pick up Friday<\/span>/);
});

const SELLER_DATA = {
  currency: 'SEK',
  canAllocate: true,
  allocatedInstanceGroup: null,
  bidders: [
    { id: 3, name: 'Malmö Bilcenter AB', bid: 190000, currency: 'SEK', advertAmount: 190000 },
    { id: 2, name: 'Fjordauto AS', bid: 191500, currency: 'NOK', advertAmount: 187012 },
  ],
  statuses: [
    { value: 'published', label: 'Published', current: true, allowed: false },
    { value: 'closed', label: 'Closed', current: false, allowed: true },
    { value: 'draft', label: 'Draft', current: false, allowed: false },
  ],
};

test('allocate needs a buyer, a whole price above zero and notes of at most 255 characters', () => {
  const bidder = SELLER_DATA.bidders[0];
  assert.equal(allocateState({ bidder, price: '190000', notes: '' }).disabled, false);
  assert.equal(allocateState({ bidder: undefined, price: '190000', notes: '' }).disabled, true);
  assert.equal(allocateState({ bidder, price: '0', notes: '' }).disabled, true);
  assert.equal(allocateState({ bidder, price: '1.5', notes: '' }).disabled, true);
  assert.equal(allocateState({ bidder, price: '190000', notes: 'x'.repeat(256) }).disabled, true);
  assert.equal(allocateState({ bidder, price: '190000', notes: 'x'.repeat(255) }).disabled, false);
  assert.equal(allocateState({ bidder, price: '190000', notes: '', busy: true }).disabled, true);
  assert.equal(notesState('x'.repeat(256)).over, true);
});

test('the allocate form lists the bidders, converted where their currency differs', () => {
  const html = renderToString(h(SellerParts, { action: 'allocate', data: SELLER_DATA, currencies: RATES, page: page(), texts: TEXTS }));
  assert.match(html, /<legend>/);
  assert.match(html, /<strong>Malmö Bilcenter AB<\/strong>/);
  assert.match(html, /<span class="nowrap">\(187,012 SEK\)<\/span>/);
  assert.equal((html.match(/type="radio"/g) || []).length, 2);
  // A chosen buyer (kept over a reload) fills the price and the table per currency.
  const chosen = renderToString(
    h(SellerParts, { action: 'allocate', data: SELLER_DATA, currencies: RATES, page: page({ bidder: '2', price: '187012' }), texts: TEXTS }),
  );
  assert.match(chosen, /checked=""[^>]*value="2"|value="2"[^>]*checked=""/);
  assert.match(chosen, /<tr class="is-own"><th scope="row">NOK/);
  assert.match(chosen, /<td class="num">191,500<\/td>/, "the buyer's own bid in its currency");
});

test('a seller without bidders, or after allocating, sees why instead of the form', () => {
  const none = renderToString(
    h(SellerParts, { action: 'allocate', data: { ...SELLER_DATA, canAllocate: false, bidders: [], allocateMessage: 'No bids.' }, currencies: RATES, page: page(), texts: TEXTS }),
  );
  assert.match(none, /alert-warning[^>]*><div class="alert-body">No bids.</);
  const done = renderToString(
    h(SellerParts, {
      action: 'allocate',
      data: { ...SELLER_DATA, canAllocate: false, allocatedInstanceGroup: { name: 'Fjordauto AS' }, allocatedSalesPrice: 187012 },
      currencies: RATES,
      page: page(),
      texts: TEXTS,
    }),
  );
  assert.match(done, /alert-info/);
});

test('change status offers the fixed list with the current one marked, and says where it may go', () => {
  const html = renderToString(h(SellerParts, { action: 'change-status', data: SELLER_DATA, currencies: null, page: page(), texts: TEXTS }));
  assert.equal((html.match(/<option/g) || []).length, 4);
  assert.match(html, /<button type="submit"[^>]*disabled=""/);
  assert.match(html, /<option value="published">/);
  // A status kept over a reload is chosen again; one no longer in the list is not.
  const kept = renderToString(h(SellerParts, { action: 'change-status', data: SELLER_DATA, currencies: null, page: page({ status: 'closed' }), texts: TEXTS }));
  assert.match(kept, /<option value="closed" selected="">/);
  assert.doesNotMatch(kept, /<button type="submit"[^>]*disabled=""/);
  const gone = renderToString(h(SellerParts, { action: 'change-status', data: SELLER_DATA, currencies: null, page: page({ status: 'sold' }), texts: TEXTS }));
  assert.match(gone, /<option value="" selected="">/);
});

// --- the reserve and the counteroffer (islands/market/bid/counter.js) --------------------------

import { provisionalStep } from '../market/bid/counter.js';

const PROVISIONAL = { yours: true, dueAt: '2026-12-01T15:30:00+00:00', counterPrice: null, counterInYourCurrency: null };

test('the provisional part: the highest bidder waits, then answers a counter; others only wait', () => {
  assert.equal(provisionalStep(null), 'other');
  assert.equal(provisionalStep({ ...PROVISIONAL, yours: false }), 'other');
  assert.equal(provisionalStep(PROVISIONAL), 'waiting');
  assert.equal(provisionalStep({ ...PROVISIONAL, counterPrice: 170000 }), 'counter');
});

test('a counteroffer shows its price and two answers, never a bid form', () => {
  const data = {
    ...BID_DATA,
    biddingOpen: false,
    closedMessage: 'Bidding has ended under the reserve.',
    provisional: { ...PROVISIONAL, counterPrice: 170000, counterInYourCurrency: 174080 },
    answerPath: '_public/market-bid-counter/g/a/u',
  };
  const html = renderToString(h(BidderParts, { data, currencies: RATES, page: page(), texts: TEXTS }));
  assert.match(html, /<section class="bid-counter" aria-labelledby="bid-counter-title">/);
  assert.equal((html.match(/<button type="button"/g) || []).length, 2);
  assert.doesNotMatch(html, /<form|alert-warning/);
  const waiting = renderToString(h(BidderParts, { data: { ...data, provisional: PROVISIONAL }, currencies: RATES, page: page(), texts: TEXTS }));
  assert.match(waiting, /class="alert alert-info" role="status"/);
  assert.doesNotMatch(waiting, /<button/);
});

test('while bidding, an unmet reserve shows as a tag above the form, never its amount', () => {
  const html = renderToString(h(BidderParts, { data: { ...BID_DATA, reserveNotMet: true }, currencies: RATES, page: page(), texts: TEXTS }));
  assert.match(html, /<p class="bid-reserve">/);
  const met = renderToString(h(BidderParts, { data: { ...BID_DATA, reserveNotMet: false }, currencies: RATES, page: page(), texts: TEXTS }));
  assert.doesNotMatch(met, /bid-reserve/);
});
