// The bidder's form: the amount in the bidder's currency, prefilled with the next bid.
import { amount, format, h, requestKey, texts } from '../public/core.js';
import { currencyTable } from './advert.js';
import { parseAmount } from './amounts.js';
import { sendingForm, submitButton } from './form-parts.js';

const t = texts();

/** Bid: the amount in the bidder's currency, prefilled with the next bid there. */
export function bidForm(data, currencies, page) {
  const mine = currencies.exchangeRates.find((row) => row.currency === data.activeGroupCurrency);
  const minimum = mine ? mine.nextBid : null;
  const currency = data.activeGroupCurrency;
  const input = h('input', {
    id: 'bid-amount',
    name: 'bid',
    type: 'number',
    inputmode: 'numeric',
    autocomplete: 'off',
    min: minimum === null ? null : String(minimum),
    step: '1',
    required: true,
    'aria-describedby': 'bid-hint',
  });
  input.value = page.kept.bid ?? (minimum === null ? '' : String(minimum));
  const hint = h('p', { className: 'field-hint', id: 'bid-hint' });
  const label = t.submitBid;
  const button = submitButton(label);
  const state = { busy: false };

  const check = () => {
    const value = parseAmount(input.value);
    const low = value !== null && minimum !== null && value < minimum;
    hint.textContent = format(low ? t.bidTooLow : t.bidHint, { amount: amount(minimum), currency });
    hint.className = low ? 'field-error' : 'field-hint';
    input.setAttribute('aria-invalid', low ? 'true' : 'false');
    button.disabled = state.busy || value === null || minimum === null || low;
  };
  input.addEventListener('input', () => {
    page.kept.bid = input.value;
    // A new amount after a definite answer is a new form; a retry after no answer keeps the key.
    if (page.kept.answered) page.kept.key = requestKey();
    page.kept.answered = false;
    check();
  });
  check();

  const call = () => {
    const value = parseAmount(input.value);
    return value === null ? null : ['POST', `_public/market-bid/${page.hashes}`, { bid: value, requestKey: page.kept.key }];
  };
  const form = sendingForm(
    { page, state, button, label, refresh: check, call },
    h(
      'div',
      { className: 'form-field' },
      h('label', { for: 'bid-amount' }, format(t.bidLabel, { currency })),
      h('div', { className: 'bid-amount' }, input, h('span', { className: 'bid-amount-currency', 'aria-hidden': 'true' }, currency)),
      hint,
    ),
    button,
  );
  return [
    h('p', { className: 'bid-as' }, format(t.biddingAs, { company: data.activeGroup.name })),
    form,
    currencyTable(
      currencies.exchangeRates.map((row) => ({ ...row, amount: row.nextBid })),
      { title: t.currencies, amountLabel: t.nextBid, highlight: currency },
    ),
  ];
}

