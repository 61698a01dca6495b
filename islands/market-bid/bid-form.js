// The bidder's form: the amount in the bidder's currency, prefilled with the next bid. The form
// itself comes drawn and translated in the page (<template id="bid-form">).
import { amount, format, requestKey, t } from '../public/core.js';
import { currencyTable } from './advert.js';
import { parseAmount } from './amounts.js';
import { sendOnSubmit } from './form-parts.js';

/** Bid: the amount in the bidder's currency, prefilled with the next bid there. */
export function bidForm(data, currencies, page) {
  const mine = currencies.exchangeRates.find((row) => row.currency === data.activeGroupCurrency);
  const minimum = mine ? mine.nextBid : null;
  const currency = data.activeGroupCurrency;
  const parts = document.getElementById('bid-form').content.cloneNode(true);
  const form = parts.querySelector('form');
  const input = form.elements.bid;
  const hint = form.querySelector('#bid-hint');
  const button = form.querySelector('button');
  const label = button.textContent;
  const state = { busy: false };
  if (minimum !== null) input.min = String(minimum);
  input.value = page.kept.bid ?? (minimum === null ? '' : String(minimum));

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
  sendOnSubmit(form, { page, state, button, label, refresh: check, call });
  return [
    ...parts.children,
    currencyTable(
      currencies.exchangeRates.map((row) => ({ ...row, amount: row.nextBid })),
      { title: t.currencies, amountLabel: t.nextBid, highlight: currency },
    ),
  ];
}
