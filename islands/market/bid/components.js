// The bid page's React parts (issue 17): the bidder's form and what the seller's forms share.
// Written with createElement so that node's test runner loads them as they are
// (islands/tests/market-bid.test.mjs). The vehicle card, the history and the texts are the
// server's (templates/market/bid.html, page texts); the page (page.js) loads the link's data and
// renders these into the action card. Each form keeps its submit button disabled while it is
// invalid or saving and hands its call to `page.send`, which shows the green or red result.
import { createElement as h, useState } from 'react';
import { amount, format, requestKey, t } from '../public/core.js';
import { useConfirm } from '../../lib/dialog.js';
import { parseAmount } from './amounts.js';
import { convertBack } from './convert.js';
import { ProvisionalPart } from './counter.js';

/** A green, red, yellow or blue box; success is announced politely, the others at once. */
export function AlertBox({ kind, text, children }) {
  return h(
    'div',
    { className: `alert alert-${kind}`, role: kind === 'success' ? 'status' : 'alert', tabIndex: -1 },
    h('div', { className: 'alert-body' }, text, children),
  );
}

/** The submit button; while saving it says so, shows a spinner and stays disabled. */
export function SubmitButton({ label, disabled, busy }) {
  return h(
    'button',
    { type: 'submit', className: 'btn btn-primary bid-submit', disabled, 'aria-busy': busy ? 'true' : 'false' },
    busy ? [h('span', { key: 's', className: 'spinner', 'aria-hidden': 'true' }), t.saving] : label,
  );
}

/**
 * One call at a time: `submit(event)` sends `call()` ([method, path, body], or null while there
 * is nothing to send) through page.send; `busy` is true meanwhile. With `confirm` (a function
 * of the request that resolves to true or false: useConfirm's question), nothing is sent
 * until it says yes.
 */
export function useSending(page, call, confirm = null) {
  const [busy, setBusy] = useState(false);
  const submit = async (event) => {
    event.preventDefault();
    const request = call();
    if (busy || !request) return;
    if (confirm && !(await confirm(request))) return;
    setBusy(true);
    try {
      await page.send(...request);
    } finally {
      setBusy(false);
    }
  };
  return { busy, submit };
}

/**
 * The currency table: currency, exchange rate and an amount per currency; the row of `highlight`
 * is marked with `tag` (the bidder's own currency, or the chosen buyer's). `heads` are the
 * server's column titles (the page's <template id="bid-currency-table">).
 */
export function CurrencyTable({ rows, title, amountLabel, highlight, tag = t.yourCurrency, heads }) {
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
        h(
          'tr',
          null,
          h('th', { scope: 'col' }, heads.currency),
          h('th', { scope: 'col', className: 'num' }, heads.exchangeRate),
          h('th', { scope: 'col', className: 'num' }, amountLabel),
        ),
      ),
      h(
        'tbody',
        null,
        rows.map((row) =>
          h(
            'tr',
            { key: row.currency, className: row.currency === highlight ? 'is-own' : undefined },
            h(
              'th',
              { scope: 'row' },
              row.currency,
              row.currency === highlight ? h('span', { className: 'bid-own-tag' }, tag) : null,
            ),
            h('td', { className: 'num' }, row.exchangeRate),
            h('td', { className: 'num' }, row.amount === null ? '–' : amount(row.amount)),
          ),
        ),
      ),
    ),
  );
}

// --- the bidder's form -------------------------------------------------------------------------

/**
 * The bid form's state: the amount shown (what the bidder typed, else the next bid), whether it
 * is below the minimum, and whether the button is disabled.
 */
export function bidState(typed, minimum, busy = false) {
  const text = typed ?? (minimum === null ? '' : String(minimum));
  const value = parseAmount(text);
  const low = value !== null && minimum !== null && value < minimum;
  return { text, value, low, disabled: busy || value === null || minimum === null || low };
}

/** A question for useConfirm before a step that binds: its first line, that it binds, and the buttons. */
export function bindingQuestion(title, first, binds, confirm) {
  return { title, lines: [first, binds], confirm, cancel: t.cancel };
}

/**
 * The confirmation of a bid of `value` in the bidder's `currency`: the amount, in the advert's
 * currency too when it is another (at the advert's `rate` there, as the server books it), and
 * that the bid binds.
 */
export function bidQuestion(value, currency, advertCurrency, rate) {
  const params = { amount: amount(value), currency };
  const advertAmount = currency !== advertCurrency && rate ? convertBack(value, rate) : null;
  const first =
    advertAmount === null
      ? format(t.confirmBid, params)
      : format(t.confirmBidConverted, { ...params, advertAmount: amount(advertAmount), advertCurrency });
  return bindingQuestion(t.confirmBidTitle, first, t.confirmBidBinds, format(t.confirmBidButton, params));
}

/** Bid: the amount in the bidder's currency, prefilled with the next bid there. */
export function BidForm({ data, currencies, page, texts }) {
  const currency = data.activeGroupCurrency;
  const mine = currencies.exchangeRates.find((row) => row.currency === currency);
  const minimum = mine ? mine.nextBid : null;
  const [typed, setTyped] = useState(page.kept.bid);
  const call = () => {
    const value = parseAmount(typed ?? (minimum === null ? '' : String(minimum)));
    return value === null ? null : ['POST', `_public/market-bid/${page.hashes}`, { bid: value, requestKey: page.kept.key }];
  };
  const { dialog, ask } = useConfirm();
  const confirm = ([, , body]) => ask(bidQuestion(body.bid, currency, data.currency, mine?.exchangeRate));
  const { busy, submit } = useSending(page, call, confirm);
  const state = bidState(typed, minimum, busy);
  const onChange = (event) => {
    page.kept.bid = event.target.value;
    // A new amount after a definite answer is a new form; a retry after no answer keeps the key.
    if (page.kept.answered) page.kept.key = requestKey();
    page.kept.answered = false;
    setTyped(event.target.value);
  };
  return [
    h('p', { key: 'as', className: 'bid-as' }, texts.bidAs),
    h(
      'form',
      { key: 'form', className: 'bid-form', noValidate: true, onSubmit: submit },
      h(
        'div',
        { className: 'form-field' },
        h('label', { htmlFor: 'bid-amount' }, texts.bidLabel),
        h(
          'div',
          { className: 'bid-amount' },
          h('input', {
            id: 'bid-amount',
            name: 'bid',
            type: 'number',
            inputMode: 'numeric',
            autoComplete: 'off',
            step: '1',
            required: true,
            'aria-describedby': 'bid-hint',
            'aria-invalid': state.low ? 'true' : 'false',
            min: minimum === null ? undefined : String(minimum),
            value: state.text,
            onChange,
          }),
          h('span', { className: 'bid-amount-currency', 'aria-hidden': 'true' }, currency),
        ),
        h(
          'p',
          { className: state.low ? 'field-error' : 'field-hint', id: 'bid-hint' },
          format(state.low ? t.bidTooLow : t.bidHint, { amount: amount(minimum), currency }),
        ),
      ),
      h(SubmitButton, { label: texts.placeBid, disabled: state.disabled, busy }),
    ),
    dialog && h('div', { key: 'dialog', hidden: true }, dialog),
    h(CurrencyTable, {
      key: 'currencies',
      rows: currencies.exchangeRates.map((row) => ({ ...row, amount: row.nextBid })),
      title: t.currencies,
      amountLabel: t.nextBid,
      highlight: currency,
      heads: texts.heads,
    }),
  ];
}

/**
 * Proxy bidding: the bidder's hidden maximum in their own currency (at least the next bid, or
 * above the maximum they have). Sent alone, the system bids the next bid for them at once.
 */
export function MaximumForm({ data, currencies, page }) {
  const currency = data.activeGroupCurrency;
  const mine = currencies.exchangeRates.find((row) => row.currency === currency);
  const own = data.yourMaximum;
  const floor = Math.max(mine ? mine.nextBid : 0, own ? own.amount + 1 : 0);
  const [typed, setTyped] = useState('');
  const [key, setKey] = useState(requestKey);
  const value = parseAmount(typed);
  const low = value !== null && value < floor;
  const call = () =>
    value === null || low ? null : ['POST', `_public/market-bid/${page.hashes}`, { maximum: value, requestKey: key }];
  const { dialog, ask } = useConfirm();
  const confirm = () => {
    const params = { amount: amount(value), currency };
    return ask({
      title: t.confirmMaximumTitle,
      lines: [format(t.confirmMaximum, params)],
      confirm: format(t.confirmMaximumButton, params),
      cancel: t.cancel,
    });
  };
  const { busy, submit } = useSending(page, call, confirm);
  const hint = own ? `${format(t.yourMaximum, { amount: amount(own.amount), currency: own.currency })} ${t.maximumHint}` : t.maximumHint;
  return h(
    'form',
    {
      className: 'bid-maximum',
      noValidate: true,
      onSubmit: (event) => {
        setKey(requestKey());
        return submit(event);
      },
      'aria-labelledby': 'bid-maximum-title',
    },
    h('h3', { id: 'bid-maximum-title', className: 'bid-subtitle' }, t.maximumTitle),
    h(
      'div',
      { className: 'form-field' },
      h('label', { htmlFor: 'bid-maximum' }, format(t.maximumLabel, { currency })),
      h(
        'div',
        { className: 'bid-amount' },
        h('input', {
          id: 'bid-maximum',
          name: 'maximum',
          type: 'number',
          inputMode: 'numeric',
          autoComplete: 'off',
          step: '1',
          min: String(floor),
          'aria-describedby': 'bid-maximum-hint',
          'aria-invalid': low ? 'true' : 'false',
          value: typed,
          onChange: (event) => setTyped(event.target.value),
        }),
        h('span', { className: 'bid-amount-currency', 'aria-hidden': 'true' }, currency),
      ),
      h('p', { className: low ? 'field-error' : 'field-hint', id: 'bid-maximum-hint' }, low ? format(t.bidTooLow, { amount: amount(floor), currency }) : hint),
    ),
    h(SubmitButton, { label: own ? t.raiseMaximum : t.setMaximum, disabled: busy || value === null || low, busy }),
    dialog,
  );
}

/** Buy now: one button, then a confirmation; the first taker gets the vehicle. */
export function BuyNow({ data, page }) {
  const offer = data.buyNow;
  const [confirming, setConfirming] = useState(false);
  const [key] = useState(requestKey);
  const { busy, submit } = useSending(page, () => ['POST', `_public/market-buy-now/${page.hashes}`, { requestKey: key }]);
  const params = { amount: amount(offer.amount), currency: offer.currency };
  return h(
    'form',
    { className: 'bid-buy-now', onSubmit: submit, 'aria-labelledby': 'bid-buy-now-title' },
    h('h3', { id: 'bid-buy-now-title', className: 'bid-subtitle' }, t.buyNowTitle),
    h('p', { className: 'field-hint' }, t.buyNowHint),
    confirming
      ? h(
          'div',
          { className: 'bid-buy-now-actions' },
          h(SubmitButton, { label: format(t.buyNowConfirm, params), disabled: busy, busy }),
          h('button', { type: 'button', className: 'btn btn-secondary', onClick: () => setConfirming(false), disabled: busy }, t.cancel),
        )
      : h('button', { type: 'button', className: 'btn btn-secondary', onClick: () => setConfirming(true) }, format(t.buyNow, params)),
  );
}

/** The bidder's part of the action card: allocated to you, leading, the form or closed. */
export function BidderParts({ data, currencies, page, texts }) {
  const parts = [];
  if (data.allocatedToYou) {
    const text = format(t.allocatedToYou, { amount: amount(data.allocatedSalesPrice), currency: data.currency });
    parts.push(
      h(AlertBox, { key: 'allocated', kind: 'success', text }, data.allocatedNotes ? h('span', { className: 'bid-notes' }, data.allocatedNotes) : null),
    );
  } else if (data.leading && data.biddingOpen) {
    parts.push(h('p', { key: 'leading', className: 'bid-leading' }, t.leading));
  }
  if (data.biddingOpen && data.reserveNotMet) parts.push(h('p', { key: 'reserve', className: 'bid-reserve' }, t.reserveNotMet));
  if (data.biddingOpen) {
    parts.push(h(BidForm, { key: `form-${page.kept.form}`, data, currencies, page, texts }));
    if (data.proxyBidding) parts.push(h(MaximumForm, { key: `maximum-${page.kept.form}`, data, currencies, page }));
    if (data.buyNow) parts.push(h(BuyNow, { key: 'buy-now', data, page }));
    if (data.softCloseSeconds) parts.push(h('p', { key: 'soft', className: 'field-hint bid-soft-close' }, format(t.softClose, { seconds: data.softCloseSeconds })));
  } else if (data.provisional) parts.push(h(ProvisionalPart, { key: 'provisional', data, page }));
  else if (!data.allocatedToYou) parts.push(h(AlertBox, { key: 'closed', kind: 'warning', text: data.closedMessage }));
  return parts;
}
