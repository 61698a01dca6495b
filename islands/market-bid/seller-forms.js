// The seller's forms (allocate, change status), loaded only on a seller's link.
import { amount, format, h, t } from '../public/core.js';
import { currencyTable, money } from './advert.js';
import { parseAmount } from './amounts.js';
import { amountsPerCurrency } from './convert.js';
import { alertBox, sendingForm, submitButton } from './form-parts.js';

const NOTES_MAX = 255;

/** A notes field with a live character counter (max 255); its text survives a reload. */
export function notesField(id, label, page) {
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



/** Allocate: a buyer among the bidders, the sales price (filled from its bid) and notes. */
function allocateForm(data, currencies, page) {
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
  const state = { busy: false };
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
    button.disabled = state.busy || !bidder || value === null || value <= 0 || !notes.valid();
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
          bidder.currency !== data.currency
            ? [' ', h('span', { className: 'nowrap' }, `(${money(bidder.advertAmount, data.currency)})`)]
            : '',
        ),
      ),
    ),
  );
  price.value = page.kept.price || '';
  price.addEventListener('input', redraw);
  notes.area.addEventListener('input', redraw);

  const call = () => {
    const bidder = chosen();
    const value = parseAmount(price.value);
    if (!bidder || value === null) return null;
    return [
      'PUT',
      `_public/market-bid/${page.link}`,
      { allocatedInstanceGroupId: bidder.id, allocatedSalesPrice: value, allocatedNotes: notes.area.value.trim() || null },
    ];
  };
  const form = sendingForm(
    { page, state, button, label, refresh: redraw, call },
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
function statusForm(data, page) {
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
  const state = { busy: false };
  select.value = data.statuses.some((s) => s.value === page.kept.status) ? page.kept.status : '';
  const check = () => {
    page.kept.status = select.value;
    button.disabled = state.busy || !select.value || !notes.valid();
  };
  select.addEventListener('change', check);
  notes.area.addEventListener('input', check);
  const call = () =>
    select.value
      ? ['PUT', `_public/market-bid/${page.link}`, { status: select.value, statusNotes: notes.area.value.trim() || null }]
      : null;
  const form = sendingForm(
    { page, state, button, label, refresh: check, call },
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

/** The seller's part of the action card: who has the advert, then the form of the link. */
export function sellerParts(action, data, currencies, page) {
  if (action !== 'allocate') return statusForm(data, page);
  const parts = [];
  if (data.allocatedInstanceGroup) {
    parts.push(
      alertBox(
        'info',
        format(t.allocatedTo, {
          company: data.allocatedInstanceGroup.name || '',
          amount: amount(data.allocatedSalesPrice),
          currency: data.currency,
        }),
        data.allocatedNotes ? h('span', { className: 'bid-notes' }, data.allocatedNotes) : null,
      ),
    );
  }
  if (data.canAllocate) parts.push(...allocateForm(data, currencies, page));
  else if (!data.allocatedInstanceGroup) parts.push(alertBox('warning', data.allocateMessage || t.noBidders));
  return parts;
}
