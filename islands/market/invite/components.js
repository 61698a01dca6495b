// The invitation page's React components (issue 17): the seller's terms (accept, or decline
// after a confirmation) and the registration form. Written with createElement so that node's
// test runner loads them as they are (islands/tests/market-invite.test.mjs). Every text, field
// and choice is the server's (templates/market/invite.html, #invite-form-props and the page
// texts); every rule is rules.js's, the same as the server's; every state comes from flow.js.
// A new server-driven state (e.g. "log in to accept") is a step of Invitation and one more
// component here.
import { createElement as h, useEffect, useRef, useState } from 'react';
import { format, t as T } from '../public/core.js';
import { initialValues, isNewCompany, sentValues, serverErrors, shownErrors } from './flow.js';
import { companyPaths, payload, validate } from './rules.js';

/** One input with its label, hint and error, as the server drew it before (ids included). */
export function Field({ field, value, error, disabled, optionalText, onChange, onBlur }) {
  const hintId = field.hint ? `${field.id}-hint` : null;
  const errorId = `${field.id}-error`;
  let describedBy = hintId;
  if (error) describedBy = `${errorId} ${field.ruleHint ? '' : hintId || ''}`.trim();
  return h(
    'div',
    { className: 'form-field' },
    h(
      'label',
      { htmlFor: field.id },
      field.required ? field.label : `${field.label} `,
      field.required ? null : h('span', { className: 'invite-optional' }, optionalText),
    ),
    h('input', {
      id: field.id,
      name: field.path,
      'data-field': field.path,
      type: field.type,
      maxLength: field.maxlength,
      required: field.required || undefined,
      'aria-required': field.required ? 'true' : undefined,
      autoComplete: field.autocomplete,
      'aria-describedby': describedBy || undefined,
      'aria-invalid': error ? 'true' : undefined,
      'data-rule-hint': field.ruleHint ? '' : undefined,
      readOnly: field.readonly || undefined,
      disabled: disabled || undefined,
      value,
      onChange: (event) => onChange(field.path, event.target.value),
      onBlur: () => onBlur(field.path),
    }),
    hintId
      ? h('p', { className: 'field-hint', id: hintId, hidden: Boolean(error && field.ruleHint) }, field.hint)
      : null,
    h(FieldError, { id: errorId, error, max: field.maxlength }),
  );
}

function FieldError({ id, error, max }) {
  const text = error ? error.text || format(T.messages?.[error.key] || error.key, { max }) : '';
  return h('p', { className: 'field-error', id, hidden: !error, 'data-message-key': error?.key }, text);
}

/** A choice (country, currency, language) with its label and error. */
export function Select({ field, value, error, disabled, onChange, onBlur }) {
  return h(
    'div',
    { className: 'form-field' },
    h('label', { htmlFor: field.id }, field.label),
    h(
      'select',
      {
        id: field.id,
        name: field.path,
        'data-field': field.path,
        required: true,
        'aria-required': 'true',
        'aria-describedby': error ? `${field.id}-error` : undefined,
        'aria-invalid': error ? 'true' : undefined,
        disabled: disabled || undefined,
        value,
        onChange: (event) => onChange(field.path, event.target.value),
        onBlur: () => onBlur(field.path),
      },
      field.options.map(([code, label]) => h('option', { key: code, value: code }, label)),
    ),
    h(FieldError, { id: `${field.id}-error`, error }),
  );
}

function Fields({ fields, form, values, errors, disabled = false, on }) {
  return fields.map((field) => {
    const props = {
      key: field.id,
      field,
      value: values[field.path] ?? '',
      error: errors[field.path],
      disabled,
      optionalText: form.optional,
      ...on,
    };
    const control = field.options ? h(Select, props) : h(Field, props);
    return field.wide ? h('div', { key: field.id, className: 'invite-wide' }, control) : control;
  });
}

function Fieldset({ legend, children, ...rest }) {
  return h('fieldset', { className: 'invite-fieldset', ...rest }, h('legend', null, legend), children);
}

/** The seller's terms: accept them to register, or decline after a confirmation. */
export function Terms({ invite, texts, hidden, onAccept, onDecline }) {
  const [confirming, setConfirming] = useState(false);
  const [declining, setDeclining] = useState(false);
  const opened = useRef(null);
  useEffect(() => {
    if (opened.current === null) {
      opened.current = confirming;
      return;
    }
    document.getElementById(confirming ? 'invite-decline-no' : 'invite-decline')?.focus();
  }, [confirming]);
  const decline = async () => {
    setDeclining(true);
    const left = await onDecline();
    if (!left) setDeclining(false);
  };
  return h(
    'section',
    { className: 'card invite-card', id: 'invite-terms', 'aria-labelledby': 'invite-terms-title', hidden },
    h('h2', { id: 'invite-terms-title' }, format(T.termsOf, { seller: invite.sellerName })),
    h('p', { className: 'muted' }, texts.intro),
    h(
      'div',
      { className: 'invite-terms-text', id: 'invite-terms-text', tabIndex: 0, role: 'region', 'aria-labelledby': 'invite-terms-title' },
      invite.terms,
    ),
    h(
      'div',
      { className: 'form-actions invite-actions', id: 'invite-terms-actions', hidden: confirming },
      h('button', { type: 'button', className: 'btn btn-primary', id: 'invite-accept-terms', onClick: onAccept }, texts.accept),
      h('button', { type: 'button', className: 'btn btn-secondary', id: 'invite-decline', onClick: () => setConfirming(true) }, texts.decline),
    ),
    h(
      'div',
      { className: 'invite-confirm', id: 'invite-decline-confirm', role: 'group', 'aria-labelledby': 'invite-decline-question', hidden: !confirming },
      h('p', { id: 'invite-decline-question' }, h('strong', null, texts.question), ` ${texts.consequence}`),
      h(
        'div',
        { className: 'form-actions' },
        h('button', { type: 'button', className: 'btn btn-danger', id: 'invite-decline-yes', disabled: declining, onClick: decline }, declining ? T.declining : texts.yes),
        h('button', { type: 'button', className: 'btn btn-secondary', id: 'invite-decline-no', onClick: () => setConfirming(false) }, texts.cancel),
      ),
    ),
  );
}

/** Every field of the form, company and user, in order. */
export function allFields(form) {
  return [...form.company.flatMap((set) => set.fields), ...form.user.fields];
}

/**
 * The registration form: a new company's details and the user, or only the user for a company
 * already on the market (its details shown, read-only). Errors show once a field is left; the
 * server's refusals show under their fields until they change. `onSend(body)` answers
 * { ok, status, data } (the page leaves on success).
 */
export function RegistrationForm({ invite, form, countryCurrency, hidden, onSend, alerts }) {
  const fields = allFields(form);
  const newCompany = isNewCompany(invite);
  const [values, setValues] = useState(() => initialValues(invite, fields));
  const [touched, setTouched] = useState(() => new Set());
  const [server, setServer] = useState({});
  const [saving, setSaving] = useState(false);
  const [focusPath, setFocusPath] = useState(null);
  useEffect(() => {
    if (!focusPath) return;
    document.querySelector(`[data-field="${focusPath}"]`)?.focus();
    setFocusPath(null);
  }, [focusPath]);

  const sent = sentValues(values, invite);
  const keys = validate(sent, newCompany, form.rules);
  const errors = shownErrors(keys, touched, server);
  const valid = Object.keys(keys).length === 0 && Object.keys(server).length === 0;

  const change = (path, value) => {
    setServer((old) => {
      const next = { ...old };
      delete next[path];
      if (path === 'user.plainPassword.first') delete next['user.plainPassword.second'];
      return next;
    });
    setValues((old) => {
      const next = { ...old, [path]: value };
      if (path === 'instance.groups.0.countryCode' && countryCurrency[value]) {
        next['instance.groups.0.currency'] = countryCurrency[value];
      }
      return next;
    });
  };
  // A field shows its error once it has been left (Angular's "touched").
  const blur = (path) => setTouched((old) => (old.has(path) ? old : new Set(old).add(path)));
  const on = { onChange: change, onBlur: blur };

  const submit = async (event) => {
    event.preventDefault();
    setTouched(new Set(fields.map((field) => field.path)));
    if (!valid || saving) return;
    setSaving(true);
    alerts.clear();
    const { ok, status, data } = await onSend(payload(sent));
    if (ok) return; // the page is leaving
    setSaving(false);
    if (status === 422 && data.keys) {
      const editable = new Set(
        fields.map((field) => field.path).filter((path) => newCompany || !companyPaths(form.rules).includes(path)),
      );
      const found = serverErrors(data, editable);
      if (!found) {
        alerts.show('danger', data.message);
        return;
      }
      setServer(found);
      setFocusPath(fields.find((field) => field.path in found).path);
      return;
    }
    alerts.show('danger', data.message);
  };

  return h(
    'form',
    { className: 'card invite-card invite-form', id: 'invite-form', noValidate: true, 'aria-labelledby': 'invite-form-title', hidden, onSubmit: submit },
    h('h2', { id: 'invite-form-title' }, newCompany ? form.title : format(T.joinCompany, { company: invite.invited.companyName })),
    h('p', { className: 'muted' }, form.intro),
    h(
      'div',
      { 'data-company': 'new', hidden: !newCompany },
      form.company.map((set) =>
        h(
          Fieldset,
          { key: set.legend, legend: set.legend },
          h('div', { className: 'invite-grid' }, h(Fields, { fields: set.fields, form, values, errors, disabled: !newCompany, on })),
        ),
      ),
    ),
    h(
      Fieldset,
      { legend: form.existingLegend, 'data-company': 'existing', hidden: newCompany },
      h('p', { className: 'field-hint' }, form.existingHint),
      h(
        'dl',
        { className: 'invite-facts' },
        form.facts.map((fact) =>
          h('div', { key: fact.key }, h('dt', null, fact.label), h('dd', { 'data-invited': fact.key }, factText(invite, fact.key, form))),
        ),
      ),
    ),
    h(
      Fieldset,
      { legend: form.user.legend },
      h('div', { className: 'invite-grid' }, h(Fields, { fields: form.user.fields, form, values, errors, on })),
    ),
    h(
      'div',
      { className: 'form-actions invite-actions' },
      h(
        'button',
        { type: 'submit', className: 'btn btn-primary', id: 'invite-submit', disabled: !valid || saving, 'aria-describedby': 'invite-submit-hint' },
        saving ? T.saving : form.submit,
      ),
      h('p', { className: 'field-hint', id: 'invite-submit-hint' }, valid || saving ? '' : T.fixFields),
    ),
  );
}

/** An existing company's detail as shown: the country by its name, a dash for nothing. */
function factText(invite, key, form) {
  const invited = invite.invited;
  if (!invited) return '';
  if (key === 'countryCode') {
    const country = form.company.flatMap((set) => set.fields).find((f) => f.path === 'instance.groups.0.countryCode');
    const named = country?.options.find(([code]) => code === invited.countryCode);
    if (named) return named[1];
  }
  return invited[key] || '–';
}

/**
 * The page's steps once the invite is in: the terms, then the form. `onStep(step)` tells the
 * server-drawn header which step is current.
 */
export function Invitation({ invite, props, countryCurrency, onStep, onDecline, onSend, alerts }) {
  const [step, setStep] = useState('terms');
  useEffect(() => {
    onStep?.(step);
    if (step === 'form') {
      const first = isNewCompany(invite) ? 'instance.companyName' : 'user.firstname';
      document.querySelector(`[data-field="${first}"]`)?.focus();
    }
  }, [step]);
  const accept = () => {
    alerts.clear();
    setStep('form');
  };
  return [
    h(Terms, { key: 'terms', invite, texts: props.terms, hidden: step !== 'terms', onAccept: accept, onDecline }),
    h(RegistrationForm, { key: 'form', invite, form: props.form, countryCurrency, hidden: step !== 'form', onSend, alerts }),
  ];
}
