// The advert's side of the bid page: status and time left on the server-drawn vehicle card,
// prices, bid history and currencies.
import { amount, format, h, texts } from '../public/core.js';
import { dateTime, timeLeft } from './amounts.js';

const t = texts();

export const money = (value, currency) =>
  value === null || value === undefined ? '–' : `${amount(value)} ${currency}`;

/** The text of the time left, e.g. "2 d 4 h left", or "Ended". */
function timeLeftText(iso) {
  const left = timeLeft(iso);
  return format(t[left.key] || '', left.params);
}

/**
 * The vehicle card is drawn by the server (templates/market/_bid_advert.html). This writes the
 * end of bidding in the reader's time zone and follows the advert's status after each load.
 */
export function updateAdvertCard(card, data) {
  const status = card.querySelector('[data-advert-status]');
  if (status && data) {
    status.textContent = data.statusLabel;
    status.className = `bid-status bid-status-${data.status}`;
  }
  for (const node of card.querySelectorAll('[data-local-time]')) node.textContent = dateTime(node.dateTime);
  for (const node of card.querySelectorAll('[data-ends-at]')) {
    if (data) node.hidden = data.status !== 'published';
    node.textContent = timeLeftText(node.dataset.endsAt);
  }
}

/** Highest bid, start price and number of bids, in the advert's currency. */
export function priceSummary(data) {
  return h(
    'dl',
    { className: 'bid-prices' },
    h(
      'div',
      null,
      h('dt', null, t.highestBid),
      h('dd', { className: 'bid-price-main' }, data.highestBid === null ? t.noBids : money(data.highestBid, data.currency)),
    ),
    h('div', null, h('dt', null, t.startPrice), h('dd', null, money(data.startPrice, data.currency))),
    h('div', null, h('dt', null, t.bidCount), h('dd', null, String(data.bidCount))),
  );
}

/** The bid history; `own` names the viewer's group as "Your company", others anonymously. */
export function historyTable(data, { anonymous }) {
  const rows = data.advertBids.map((bid) =>
    h(
      'tr',
      { className: bid.createdByInstanceGroup && anonymous ? 'is-own' : null },
      h('td', { className: 'nowrap' }, dateTime(bid.createdAt)),
      h(
        'td',
        null,
        anonymous
          ? bid.createdByInstanceGroup
            ? h('strong', null, t.yourCompany)
            : t.anotherBidder
          : bid.createdByInstanceGroup?.name || t.anotherBidder,
      ),
      h('td', { className: 'num' }, money(bid.bid, bid.currency)),
    ),
  );
  return h(
    'section',
    { className: 'bid-card bid-history', 'aria-labelledby': 'bid-history-title' },
    h('h2', { id: 'bid-history-title' }, t.history),
    rows.length
      ? h(
          'div',
          { className: 'table-wrap' },
          h(
            'table',
            { className: 'table' },
            h('thead', null, h('tr', null, h('th', { scope: 'col' }, t.time), h('th', { scope: 'col' }, t.bidder), h('th', { scope: 'col', className: 'num' }, t.amount))),
            h('tbody', null, rows),
          ),
        )
      : h('p', { className: 'bid-empty' }, t.noBids),
    data.bidCount > rows.length && rows.length
      ? h('p', { className: 'field-hint' }, format(t.historyMore, { count: rows.length, total: data.bidCount }))
      : null,
  );
}

/**
 * The currency table: currency, exchange rate and an amount per currency; the row of
 * `highlight` is marked with `tag` (the bidder's own currency, or the chosen buyer's).
 */
export function currencyTable(rows, { title, amountLabel, highlight, tag = t.yourCurrency }) {
  return h(
    'div',
    { className: 'table-wrap bid-currencies' },
    h(
      'table',
      { className: 'table' },
      h('caption', null, title),
      h(
        'thead',
        null,
        h('tr', null, h('th', { scope: 'col' }, t.currency), h('th', { scope: 'col', className: 'num' }, t.exchangeRate), h('th', { scope: 'col', className: 'num' }, amountLabel)),
      ),
      h(
        'tbody',
        null,
        rows.map((row) =>
          h(
            'tr',
            { className: row.currency === highlight ? 'is-own' : null },
            h('th', { scope: 'row' }, row.currency, row.currency === highlight ? h('span', { className: 'bid-own-tag' }, tag) : null),
            h('td', { className: 'num' }, row.exchangeRate),
            h('td', { className: 'num' }, row.amount === null ? '–' : amount(row.amount)),
          ),
        ),
      ),
    ),
  );
}
