// The three forms of the bid page. Each keeps its submit button disabled while the form is
// invalid or saving and hands its call to `page.send`, which shows the green or red result.
import { amount, format, h, requestKey, texts } from '../public/core.js';
import { currencyTable, money } from './advert.js';
import { amountsPerCurrency, parseAmount } from './amounts.js';

const t = texts();
const NOTES_MAX = 255;

function submitButton(label) {
  return h('button', { type: 'submit', className: 'btn btn-primary bid-submit', disabled: true }, label);
}

/** While saving: the button says so, shows a spinner and stays disabled. */
function saving(button, label, on) {
  button.replaceChildren(...(on ? [h('span', { className: 'spinner', 'aria-hidden': 'true' }), t.saving] : [label]));
  button.setAttribute('aria-busy', on ? 'true' : 'false');
}

/** A notes field with a live character counter (max 255); its text survives a reload. */
function notesField(id, label, page) {
  const counter = h('p', { className: 'field-hint', id: `${id}-count`, 'aria-live': 'polite' });
  const area = h('textarea', {
    id,
    name: id,
    rows: 3,
    maxlength: String(NOTES_MAX),
    'aria-describedby': `${id}-count`,
  });
  area.value = page.kept.notes || '';
  const count = () => {
    page.kept.notes = area.value;
    counter.textContent = format(t.charactersLeft, { count: area.value.length, max: NOTES_MAX });
    const over = area.value.length > NOTES_MAX;
    area.setAttribute('aria-invalid', over ? 'true' : 'false');
    counter.classList.toggle('field-error', over);
  };
  area.addEventListener('input', count);
  count();
  const field = h('div', { className: 'form-field' }, h('label', { for: id }, label), area, counter);
  return { field, area, valid: () => area.value.length <= NOTES_MAX };
}

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
  let busy = false;

  const check = () => {
    const value = parseAmount(input.value);
    const low = value !== null && minimum !== null && value < minimum;
    hint.textContent = format(low ? t.bidTooLow : t.bidHint, { amount: amount(minimum), currency });
    hint.className = low ? 'field-error' : 'field-hint';
    input.setAttribute('aria-invalid', low ? 'true' : 'false');
    button.disabled = busy || value === null || minimum === null || low;
  };
  input.addEventListener('input', () => {
    page.kept.bid = input.value;
    // A new amount after a definite answer is a new form; a retry after no answer keeps the key.
    if (page.kept.answered) page.kept.key = requestKey();
    page.kept.answered = false;
    check();
  });
  check();

  const form = h(
    'form',
    {
      className: 'bid-form',
      noValidate: true,
      onsubmit: async (event) => {
        event.preventDefault();
        const value = parseAmount(input.value);
        if (busy || value === null) return;
        busy = true;
        saving(button, label, true);
        check();
        await page.send('POST', `_public/market-bid/${page.hashes}`, {
          bid: value,
          requestKey: page.kept.key,
        });
        busy = false;
        saving(button, label, false);
        check();
      },
    },
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

/** Allocate: a buyer among the bidders, the sales price (filled from its bid) and notes. */
export function allocateForm(data, currencies, page) {
  const bidders = new Map(data.bidders.map((b) => [String(b.id), b]));
  const price = h('input', {
    id: 'allocate-price',
    name: 'allocatedSalesPrice',
    type: 'number',
    inputmode: 'numeric',
    min: '1',
    step: '1',
    required: true,
    autocomplete: 'off',
    'aria-describedby': 'allocate-price-hint',
  });
  const notes = notesField('allocate-notes', t.notesLabel, page);
  const tableSlot = h('div', { className: 'bid-allocate-amounts', 'aria-live': 'polite' });
  const label = t.submitAllocate;
  const button = submitButton(label);
  let busy = false;
  const chosen = () => bidders.get(form.querySelector('input[name="bidder"]:checked')?.value || '');

  const redraw = () => {
    const bidder = chosen();
    const value = parseAmount(price.value);
    page.kept.price = price.value;
    tableSlot.replaceChildren(
      value === null
        ? ''
        : currencyTable(amountsPerCurrency(value, currencies.exchangeRates, bidder), {
            title: t.priceInCurrencies,
            amountLabel: t.amount,
            highlight: bidder?.currency,
            tag: t.buyerCurrency,
          }),
    );
    button.disabled = busy || !bidder || value === null || value <= 0 || !notes.valid();
  };

  const options = data.bidders.map((bidder, index) =>
    h(
      'label',
      { className: 'bid-choice' },
      h('input', {
        type: 'radio',
        name: 'bidder',
        value: String(bidder.id),
        required: index === 0,
        checked: page.kept.bidder === String(bidder.id),
        onchange: () => {
          page.kept.bidder = String(bidder.id);
          price.value = String(bidder.advertAmount);
          redraw();
        },
      }),
      h(
        'span',
        { className: 'bid-choice-text' },
        h('strong', null, bidder.name),
        h(
          'span',
          null,
          format(t.bidderBid, { amount: amount(bidder.bid), currency: bidder.currency }),
          bidder.currency !== data.currency ? ` (${money(bidder.advertAmount, data.currency)})` : '',
        ),
      ),
    ),
  );
  price.value = page.kept.price || '';
  price.addEventListener('input', redraw);
  notes.area.addEventListener('input', redraw);

  const form = h(
    'form',
    {
      className: 'bid-form',
      noValidate: true,
      onsubmit: async (event) => {
        event.preventDefault();
        const bidder = chosen();
        const value = parseAmount(price.value);
        if (busy || !bidder || value === null) return;
        busy = true;
        saving(button, label, true);
        redraw();
        await page.send('PUT', `_public/market-bid/${page.link}`, {
          allocatedInstanceGroupId: bidder.id,
          allocatedSalesPrice: value,
          allocatedNotes: notes.area.value.trim() || null,
        });
        busy = false;
        saving(button, label, false);
        redraw();
      },
    },
    h('fieldset', { className: 'bid-choices' }, h('legend', null, t.bidders), options),
    h(
      'div',
      { className: 'form-field' },
      h('label', { for: 'allocate-price' }, format(t.priceLabel, { currency: data.currency })),
      h('div', { className: 'bid-amount' }, price, h('span', { className: 'bid-amount-currency', 'aria-hidden': 'true' }, data.currency)),
      h('p', { className: 'field-hint', id: 'allocate-price-hint' }, t.priceHint),
    ),
    tableSlot,
    notes.field,
    button,
  );
  redraw();
  return [form];
}

/** Change status: the fixed status list (the current one marked) and notes. */
export function statusForm(data, page) {
  const current = data.statuses.find((s) => s.current);
  const allowed = data.statuses.filter((s) => s.allowed).map((s) => s.label);
  const select = h(
    'select',
    { id: 'status-select', name: 'status', required: true, 'aria-describedby': 'status-hint' },
    h('option', { value: '' }, t.chooseStatus),
    data.statuses.map((s) => h('option', { value: s.value }, s.current ? format(t.current, { label: s.label }) : s.label)),
  );
  const notes = notesField('status-notes', t.notesLabel, page);
  const label = t.submitStatus;
  const button = submitButton(label);
  let busy = false;
  select.value = data.statuses.some((s) => s.value === page.kept.status) ? page.kept.status : '';
  const check = () => {
    page.kept.status = select.value;
    button.disabled = busy || !select.value || !notes.valid();
  };
  select.addEventListener('change', check);
  notes.area.addEventListener('input', check);
  const form = h(
    'form',
    {
      className: 'bid-form',
      noValidate: true,
      onsubmit: async (event) => {
        event.preventDefault();
        if (busy || !select.value) return;
        busy = true;
        saving(button, label, true);
        check();
        await page.send('PUT', `_public/market-bid/${page.link}`, {
          status: select.value,
          statusNotes: notes.area.value.trim() || null,
        });
        busy = false;
        saving(button, label, false);
        check();
      },
    },
    h(
      'div',
      { className: 'form-field' },
      h('label', { for: 'status-select' }, t.statusLabel),
      select,
      h(
        'p',
        { className: 'field-hint', id: 'status-hint' },
        allowed.length ? format(t.allowedHint, { current: current?.label || '', allowed: allowed.join(', ') }) : t.noneAllowed,
      ),
    ),
    notes.field,
    button,
  );
  check();
  return [form];
}
