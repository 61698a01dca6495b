// The bidder's side of a provisional sale (app/market/reserve.py): bidding ended under the
// seller's hidden reserve. The highest bidder sees that the seller is deciding, then the
// seller's counteroffer with Accept and Decline, answered through this same link. Other
// bidders see that the seller is deciding. createElement, not JSX: node's test runner loads it.
import { createElement as h, useState } from 'react';
import { amount, format, t } from '../public/core.js';
import { dateTime } from './amounts.js';

/** What the provisional part shows: 'counter' (answer it), 'waiting' (the seller decides), 'other'. */
export function provisionalStep(provisional) {
  if (!provisional?.yours) return 'other';
  return provisional.counterPrice === null || provisional.counterPrice === undefined ? 'waiting' : 'counter';
}

/** The counteroffer with its two answers; `page.send` shows the result and reloads the data. */
export function CounterAnswer({ data, page }) {
  const offer = data.provisional;
  const [busy, setBusy] = useState(null);
  const answer = async (choice) => {
    if (busy) return;
    setBusy(choice);
    try {
      await page.send('POST', data.answerPath, { answer: choice });
    } finally {
      setBusy(null);
    }
  };
  const button = (choice, label, kind) =>
    h(
      'button',
      {
        key: choice,
        type: 'button',
        className: `btn ${kind}`,
        disabled: busy !== null,
        'aria-busy': busy === choice ? 'true' : 'false',
        onClick: () => answer(choice),
      },
      busy === choice ? [h('span', { key: 's', className: 'spinner', 'aria-hidden': 'true' }), t.saving] : label,
    );
  const own = offer.counterInYourCurrency;
  return h(
    'section',
    { className: 'bid-counter', 'aria-labelledby': 'bid-counter-title' },
    h('h3', { id: 'bid-counter-title' }, t.counterTitle),
    h('p', { className: 'bid-counter-price' }, `${amount(offer.counterPrice)} ${data.currency}`),
    h('p', null, format(t.counterText, { amount: amount(offer.counterPrice), currency: data.currency, time: dateTime(offer.dueAt) })),
    own !== null && own !== undefined && data.activeGroupCurrency !== data.currency
      ? h('p', { className: 'field-hint' }, format(t.counterOwn, { amount: amount(own), currency: data.activeGroupCurrency }))
      : null,
    h(
      'div',
      { className: 'form-actions bid-counter-actions' },
      button('accept', t.acceptCounter, 'btn-primary'),
      button('decline', t.declineCounter, 'btn-secondary'),
    ),
  );
}

/** The action card's part while the advert is provisionally sold. */
export function ProvisionalPart({ data, page }) {
  const step = provisionalStep(data.provisional);
  if (step === 'counter') return h(CounterAnswer, { data, page });
  const text = step === 'waiting' ? format(t.provisionalYours, { time: dateTime(data.provisional.dueAt) }) : t.provisionalOther;
  return h('div', { className: 'alert alert-info', role: 'status' }, h('div', { className: 'alert-body' }, text));
}
