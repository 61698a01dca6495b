// The advert's side of the bid page: status and time left on the server-drawn vehicle card,
// prices and bid history (plain DOM on the server's markup; the forms are React components).
import { amount, format, h, t } from '../public/core.js';
import { dateTime, timeLeft } from './amounts.js';

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
  if (data?.endsAt) setEndsAt(card, data.endsAt);
  if (data) {
    const status = card.querySelector('[data-advert-status]');
    status.textContent = data.statusLabel;
    status.className = `bid-status bid-status-${data.status}`;
  }
  for (const node of card.querySelectorAll('[data-local-time]')) node.textContent = dateTime(node.dateTime, true);
  for (const node of card.querySelectorAll('[data-ends-at]')) {
    if (data) node.hidden = data.status !== 'published';
    node.textContent = timeLeftText(node.dataset.endsAt);
  }
}

/**
 * A new end of bidding (a late bid moved it): the time and the time left follow; returns true
 * when it moved.
 */
export function setEndsAt(card, iso) {
  const time = card.querySelector('[data-local-time]');
  if (!time || time.dateTime === iso) return false;
  time.dateTime = iso;
  for (const node of card.querySelectorAll('[data-ends-at]')) node.dataset.endsAt = iso;
  return true;
}

/**
 * Highest bid, start price and number of bids into the card's list, in the advert's currency; a
 * bidder whose currency is another reads the highest bid in theirs first, the advert's beside it.
 */
export function fillPrices(card, data) {
  const field = (name) => card.querySelector(`[data-price="${name}"]`);
  if (!field('highest')) return;
  const own = data.highestBidOwn;
  if (data.highestBid === null) field('highest').textContent = t.noBids;
  else if (own) {
    field('highest').replaceChildren(
      h('span', { className: 'nowrap' }, money(own.amount, own.currency)),
      h('span', { className: 'bid-price-secondary' }, format(t.highestOwn, { amount: amount(data.highestBid), currency: data.currency })),
    );
  } else field('highest').textContent = money(data.highestBid, data.currency);
  field('start').textContent = money(data.startPrice, data.currency);
  field('count').textContent = data.bidCount;
}

/**
 * The bids into the server-drawn history card; `anonymous` names only the viewer's own group
 * ("Your company"), the others are "Another bidder". Each time is the reader's, its zone named,
 * as everywhere on public pages.
 */
export function fillHistory(card, data, { anonymous }) {
  const rows = data.advertBids.map((bid) =>
    h(
      'tr',
      { className: bid.createdByInstanceGroup && anonymous ? 'is-own' : null },
      h('td', null, dateTime(bid.createdAt, true)),
      h(
        'td',
        null,
        anonymous
          ? bid.createdByInstanceGroup
            ? h('strong', null, t.yourCompany)
            : t.anotherBidder
          : bid.createdByInstanceGroup?.name || t.anotherBidder,
        bid.automatic || bid.buyNow ? h('span', { className: 'bid-kind' }, bid.buyNow ? t.buyNowTitle : t.automatic) : null,
      ),
      h('td', { className: 'num' }, money(bid.bid, bid.currency)),
    ),
  );
  card.querySelector('tbody').replaceChildren(...rows);
  card.querySelector('.table-wrap').hidden = !rows.length;
  card.querySelector('.bid-empty').hidden = rows.length > 0;
  const more = card.querySelector('[data-history-more]');
  more.hidden = !(data.bidCount > rows.length && rows.length);
  more.textContent = format(t.historyMore, { count: rows.length, total: data.bidCount });
  card.hidden = false;
}
