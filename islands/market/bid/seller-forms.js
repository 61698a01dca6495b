// The seller's forms (allocate, change status) as React components, loaded only on a seller's
// link. createElement, not JSX: node's test runner loads them as they are.
import { createElement as h, useState } from 'react';
import { amount, format, t } from '../public/core.js';
import { money } from './advert.js';
import { parseAmount } from './amounts.js';
import { useConfirm } from '../../lib/dialog.js';
import { AlertBox, bindingQuestion, CurrencyTable, SubmitButton, useSending } from './components.js';
import { amountsPerCurrency } from './convert.js';

export const NOTES_MAX = 255;

/** The notes field's state: its counter text and whether it is too long. */
export function notesState(text) {
  const length = String(text ?? '').length;
  return { counter: format(t.charactersLeft, { count: length, max: NOTES_MAX }), over: length > NOTES_MAX };
}

/** A form's notes, kept on the page (`page.kept`) so that a refused send leaves them typed in. */
function useKeptNotes(page, id) {
  const [notes, setNotes] = useState(page.kept.notes || '');
  const onChange = (text) => {
    page.kept.notes = text;
    setNotes(text);
  };
  return [notes, h(NotesField, { id, label: t.notesLabel, value: notes, onChange })];
}

/** A notes field with a live character counter (max 255); its text survives a reload. */
export function NotesField({ id, label, value, onChange }) {
  const state = notesState(value);
  return h(
    'div',
    { className: 'form-field' },
    h('label', { htmlFor: id }, label),
    h('textarea', {
      id,
      name: id,
      rows: 3,
      maxLength: NOTES_MAX,
      'aria-describedby': `${id}-count`,
      'aria-invalid': state.over ? 'true' : 'false',
      value,
      onChange: (event) => onChange(event.target.value),
    }),
    h('p', { className: state.over ? 'field-hint field-error' : 'field-hint', id: `${id}-count`, 'aria-live': 'polite' }, state.counter),
  );
}

/** Whether the allocate form can be sent: a buyer, a price above zero, notes that fit. */
export function allocateState({ bidder, price, notes, busy = false }) {
  const value = parseAmount(price);
  return { value, disabled: busy || !bidder || value === null || value <= 0 || notesState(notes).over };
}

/**
 * The confirmation of an allocation to `bidder` for `price` (the advert's currency): the buyer,
 * the price, in the buyer's currency too when it is another, and that it binds.
 */
export function allocateQuestion(bidder, price, currency, rates) {
  const params = { company: bidder.name, amount: amount(price), currency };
  const theirs = bidder.currency !== currency ? amountsPerCurrency(price, rates, bidder).find((row) => row.currency === bidder.currency) : null;
  const first =
    theirs && theirs.amount !== null
      ? format(t.confirmAllocateConverted, { ...params, buyerAmount: amount(theirs.amount), buyerCurrency: bidder.currency })
      : format(t.confirmAllocate, params);
  return bindingQuestion(t.confirmAllocateTitle, first, t.confirmAllocateBinds, format(t.confirmAllocateButton, params));
}

/** Allocate: a buyer among the bidders, the sales price (filled from its bid) and notes. */
export function AllocateForm({ data, currencies, page, heads }) {
  const bidders = new Map(data.bidders.map((b) => [String(b.id), b]));
  const [chosenId, setChosenId] = useState(page.kept.bidder ?? null);
  const [price, setPrice] = useState(page.kept.price || '');
  const [notes, notesField] = useKeptNotes(page, 'allocate-notes');
  const bidder = bidders.get(chosenId ?? '');
  const call = () => {
    const value = parseAmount(price);
    if (!bidder || value === null) return null;
    return [
      'PUT',
      `_public/market-bid/${page.link}`,
      { allocatedInstanceGroupId: bidder.id, allocatedSalesPrice: value, allocatedNotes: notes.trim() || null },
    ];
  };
  const { dialog, ask } = useConfirm();
  const confirm = ([, , body]) => ask(allocateQuestion(bidder, body.allocatedSalesPrice, data.currency, currencies?.exchangeRates));
  const { busy, submit } = useSending(page, call, confirm);
  const state = allocateState({ bidder, price, notes, busy });
  const choose = (next) => {
    page.kept.bidder = String(next.id);
    page.kept.price = String(next.advertAmount);
    setChosenId(String(next.id));
    setPrice(String(next.advertAmount));
  };
  return h(
    'form',
    { className: 'bid-form', noValidate: true, onSubmit: submit },
    h(
      'fieldset',
      { className: 'bid-choices' },
      h('legend', null, t.bidders),
      data.bidders.map((option, index) =>
        h(
          'label',
          { key: option.id, className: 'bid-choice' },
          h('input', {
            type: 'radio',
            name: 'bidder',
            value: String(option.id),
            required: index === 0,
            checked: chosenId === String(option.id),
            onChange: () => choose(option),
          }),
          h(
            'span',
            { className: 'bid-choice-text' },
            h('strong', null, option.name),
            h(
              'span',
              null,
              format(t.bidderBid, { amount: amount(option.bid), currency: option.currency }),
              option.currency !== data.currency
                ? [
                    ' ',
                    h('span', { key: 'own', className: 'nowrap' }, `(${money(option.advertAmount, data.currency)})`),
                    data.bidderRates?.[option.id] ? [' ', h('span', { key: 'rate', className: 'muted nowrap' }, format(t.bidderRate, { rate: data.bidderRates[option.id] }))] : null,
                  ]
                : null,
            ),
          ),
        ),
      ),
    ),
    h(
      'div',
      { className: 'form-field' },
      h('label', { htmlFor: 'allocate-price' }, format(t.priceLabel, { currency: data.currency })),
      h(
        'div',
        { className: 'bid-amount' },
        h('input', {
          id: 'allocate-price',
          name: 'allocatedSalesPrice',
          type: 'number',
          inputMode: 'numeric',
          min: '1',
          step: '1',
          required: true,
          autoComplete: 'off',
          'aria-describedby': 'allocate-price-hint',
          value: price,
          onChange: (event) => {
            page.kept.price = event.target.value;
            setPrice(event.target.value);
          },
        }),
        h('span', { className: 'bid-amount-currency', 'aria-hidden': 'true' }, data.currency),
      ),
      h('p', { className: 'field-hint', id: 'allocate-price-hint' }, t.priceHint),
    ),
    h(
      'div',
      { className: 'bid-allocate-amounts', 'aria-live': 'polite' },
      state.value === null
        ? null
        : h(CurrencyTable, {
            rows: amountsPerCurrency(state.value, currencies.exchangeRates, bidder),
            title: t.priceInCurrencies,
            amountLabel: t.amount,
            highlight: bidder?.currency,
            tag: t.buyerCurrency,
            heads,
          }),
    ),
    notesField,
    h(SubmitButton, { label: t.submitAllocate, disabled: state.disabled, busy }),
    dialog,
  );
}

/** The status hint: where the advert can go from its current status. */
export function statusHint(statuses) {
  const current = statuses.find((s) => s.current);
  const allowed = statuses.filter((s) => s.allowed).map((s) => s.label);
  return allowed.length ? format(t.allowedHint, { current: current?.label || '', allowed: allowed.join(', ') }) : t.noneAllowed;
}

/** Change status: the fixed status list (the current one marked) and notes. */
export function StatusForm({ data, page }) {
  const known = (value) => data.statuses.some((s) => s.value === value);
  const [status, setStatus] = useState(known(page.kept.status) ? page.kept.status : '');
  const [notes, notesField] = useKeptNotes(page, 'status-notes');
  const call = () =>
    status ? ['PUT', `_public/market-bid/${page.link}`, { status, statusNotes: notes.trim() || null }] : null;
  const { busy, submit } = useSending(page, call);
  const disabled = busy || !status || notesState(notes).over;
  return h(
    'form',
    { className: 'bid-form', noValidate: true, onSubmit: submit },
    h(
      'div',
      { className: 'form-field' },
      h('label', { htmlFor: 'status-select' }, t.statusLabel),
      h(
        'select',
        {
          id: 'status-select',
          name: 'status',
          required: true,
          'aria-describedby': 'status-hint',
          value: status,
          onChange: (event) => {
            page.kept.status = event.target.value;
            setStatus(event.target.value);
          },
        },
        h('option', { value: '' }, t.chooseStatus),
        data.statuses.map((s) =>
          h('option', { key: s.value, value: s.value }, s.current ? format(t.current, { label: s.label }) : s.label),
        ),
      ),
      h('p', { className: 'field-hint', id: 'status-hint' }, statusHint(data.statuses)),
    ),
    notesField,
    h(SubmitButton, { label: t.submitStatus, disabled, busy }),
  );
}

/** A provisional sale is decided on the advert's page: the link's pages say so and lead there. */
export function DecisionElsewhere({ data }) {
  return h(
    AlertBox,
    { kind: 'info', text: data.decisionMessage },
    ' ',
    h('a', { href: data.decisionUrl }, t.openAdvert),
  );
}

/** The seller's part of the action card: who has the advert, then the form of the link. */
export function SellerParts({ action, data, currencies, page, texts }) {
  const key = `form-${page.kept.form}`;
  if (data.decisionMessage) return h(DecisionElsewhere, { data });
  if (action !== 'allocate') return h(StatusForm, { key, data, page });
  const parts = [];
  if (data.allocatedInstanceGroup) {
    const text = format(t.allocatedTo, {
      company: data.allocatedInstanceGroup.name || '',
      amount: amount(data.allocatedSalesPrice),
      currency: data.currency,
    });
    parts.push(
      h(AlertBox, { key: 'allocated', kind: 'info', text }, data.allocatedNotes ? h('span', { className: 'bid-notes' }, data.allocatedNotes) : null),
    );
  }
  if (data.canAllocate) parts.push(h(AllocateForm, { key, data, currencies, page, heads: texts.heads }));
  else if (!data.allocatedInstanceGroup) {
    parts.push(h(AlertBox, { key: 'none', kind: 'warning', text: data.allocateMessage || t.noBidders }));
  }
  return parts;
}
