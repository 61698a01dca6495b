// The invitation form's rules in the browser: the same cases as the server's
// (tests/market/test_invites.py NEW_COMPANY_RULES and USER_RULES), by the same table of fields
// and keys (app/market/invite_fields.json; the page gets it with the choices the server adds).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { companyPaths, payload, validate } from '../market/invite/rules.js';

const CHOICES = {
  country: ['SE', 'NO', 'FI', 'DE', 'DK'],
  currency: ['SEK', 'NOK', 'DKK', 'EUR'],
  language: ['sv-SE', 'en-GB'],
};
const RULES = JSON.parse(readFileSync(new URL('../../app/market/invite_fields.json', import.meta.url), 'utf8')).map(
  (rule) => (CHOICES[rule.check] ? { ...rule, choices: CHOICES[rule.check] } : rule),
);

const GOOD = {
  'instance.companyName': 'Testbil AB',
  'instance.groups.0.companyId': '556000-0001',
  'instance.groups.0.contactName': 'Tove Test',
  'instance.groups.0.contactEmail': 'kontakt@testbil.example.com',
  'instance.groups.0.contactPhone': '+46 70 123 45 67',
  'instance.groups.0.invoiceReference': 'Tove Test',
  'instance.groups.0.invoiceEmail': 'faktura@testbil.example.com',
  'instance.groups.0.countryCode': 'SE',
  'instance.groups.0.currency': 'SEK',
  'user.firstname': 'Tove',
  'user.lastname': 'Test',
  'user.email': 'tove@testbil.example.com',
  'user.phoneNumber': '',
  'user.plainPassword.first': 'Secret-pass-1',
  'user.plainPassword.second': 'Secret-pass-1',
  'user.language': 'sv-SE',
};

const COMPANY = [
  ['instance.groups.0.countryCode', 'US', 'INVALID_VALUE'],
  ['instance.groups.0.currency', 'USD', 'INVALID_VALUE'],
  ['instance.companyName', 'x'.repeat(201), 'FIELD_TOO_LONG'],
  ['instance.companyName', '', 'FIELD_REQUIRED'],
  ['instance.groups.0.companyId', '  ', 'FIELD_REQUIRED'],
  ['instance.groups.0.contactName', '', 'FIELD_REQUIRED'],
  ['instance.groups.0.contactEmail', '', 'FIELD_REQUIRED'],
  ['instance.groups.0.contactEmail', 'not-an-address', 'INVALID_EMAIL'],
  ['instance.groups.0.contactPhone', '', 'FIELD_REQUIRED'],
  ['instance.groups.0.contactPhone', '070 ABC', 'INVALID_PHONE_NUMBER_CHARACTERS'],
  ['instance.groups.0.invoiceReference', '', 'FIELD_REQUIRED'],
  ['instance.groups.0.invoiceEmail', '', 'FIELD_REQUIRED'],
  ['instance.groups.0.invoiceEmail', 'faktura@', 'INVALID_EMAIL'],
];
const USER = [
  ['user.firstname', '', 'FIELD_REQUIRED'],
  ['user.lastname', '', 'FIELD_REQUIRED'],
  ['user.email', '', 'FIELD_REQUIRED'],
  ['user.email', 'someone@', 'INVALID_EMAIL'],
  ['user.phoneNumber', '+46 70 abc', 'INVALID_PHONE_NUMBER_CHARACTERS'],
  ['user.phoneNumber', '070 ÅÄÖ', 'INVALID_PHONE_NUMBER_CHARACTERS'],
  ['user.plainPassword.first', '', 'PASSWORD_REQUIRED'],
  ['user.plainPassword.first', 'short1!', null],
  ['user.plainPassword.first', 'abc12!', 'PASSWORD_PATTERN'],
  ['user.plainPassword.first', 'abcdefg!', 'PASSWORD_PATTERN'],
  ['user.plainPassword.first', 'ABCDEF1!', 'PASSWORD_PATTERN'],
  ['user.plainPassword.first', 'abcdef12', 'PASSWORD_PATTERN'],
  ['user.plainPassword.second', '', 'VERIFY_PASSWORD_REQUIRED'],
  ['user.plainPassword.second', 'Other-pass-2', 'PASSWORDS_DOESNT_MATCH'],
  ['user.plainPassword.first', `a1!${'x'.repeat(126)}`, 'PASSWORD_PATTERN'], // 129 characters
  ['user.firstname', 'x'.repeat(101), 'FIELD_TOO_LONG'],
  ['user.email', `${'x'.repeat(250)}@a.se`, 'FIELD_TOO_LONG'],
  ['user.phoneNumber', '1'.repeat(41), 'FIELD_TOO_LONG'],
  ['user.language', 'de-DE', 'INVALID_VALUE'],
];

function refused(path, value, newInstance) {
  const values = { ...GOOD, [path]: value };
  if (path === 'user.plainPassword.first' && value) values['user.plainPassword.second'] = value;
  return validate(values, newInstance, RULES);
}

test('a complete form is valid', () => {
  assert.deepEqual(validate(GOOD, true, RULES), {});
});

for (const [path, value, key] of [...COMPANY, ...USER]) {
  test(`new company: ${path} = ${JSON.stringify(value)} gives ${key}`, () => {
    assert.deepEqual(refused(path, value, true), key ? { [path]: key } : {});
  });
}

for (const [path, value, key] of USER) {
  test(`existing company: ${path} = ${JSON.stringify(value)} gives ${key}`, () => {
    assert.deepEqual(refused(path, value, false), key ? { [path]: key } : {});
  });
}

test('the company fields are those the table marks', () => {
  assert.deepEqual(companyPaths(RULES), RULES.slice(0, 9).map((rule) => rule.path));
});

test('an existing company needs none of the company fields', () => {
  const values = { ...GOOD };
  for (const [path] of COMPANY) values[path] = '';
  assert.deepEqual(validate(values, false, RULES), {});
});

test('the payload has the spec shape, the e-mail as username', () => {
  const body = payload({ ...GOOD, 'user.email': ' tove@testbil.example.com ' });
  assert.equal(body.instance.companyName, 'Testbil AB');
  assert.equal(body.instance.groups[0].name, 'Testbil AB');
  assert.equal(body.instance.groups[0].countryCode, 'SE');
  assert.equal(body.user.username, 'tove@testbil.example.com');
  assert.deepEqual(body.user.plainPassword, { first: 'Secret-pass-1', second: 'Secret-pass-1' });
});

// --- the React components and the page's states (issue 17) --------------------------------------

import { createElement as h } from 'react';
import { renderToString } from 'react-dom/server';
import { Field, Invitation, RegistrationForm, Terms } from '../market/invite/components.js';
import { firstStep, initialValues, sentValues, serverErrors, shownErrors } from '../market/invite/flow.js';

const F = (over) => ({ required: true, type: 'text', maxlength: 200, ...over });
const FORM = {
  rules: RULES,
  title: 'Register your company',
  intro: 'Fields marked (optional) may be left empty; all others are required.',
  optional: '(optional)',
  submit: 'Register and go to the market',
  existingLegend: 'Company',
  existingHint: 'Your company is already on the market.',
  facts: [
    { key: 'companyName', label: 'Company name' },
    { key: 'countryCode', label: 'Country' },
  ],
  company: [
    {
      legend: 'Company',
      fields: [
        F({ id: 'company-name', path: 'instance.companyName', label: 'Company name', autocomplete: 'organization' }),
        F({ id: 'company-id', path: 'instance.groups.0.companyId', label: 'Company ID', hint: 'Organisation or VAT number.', maxlength: 50 }),
        { id: 'country', path: 'instance.groups.0.countryCode', label: 'Country', options: [['SE', 'Sweden'], ['NO', 'Norway']], selected: 'SE' },
        { id: 'currency', path: 'instance.groups.0.currency', label: 'Currency', options: [['SEK', 'SEK'], ['NOK', 'NOK']], selected: 'SEK' },
      ],
    },
    { legend: 'Contact person', fields: [F({ id: 'contact-name', path: 'instance.groups.0.contactName', label: 'Contact name', wide: true })] },
  ],
  user: {
    legend: 'Your user account',
    fields: [
      F({ id: 'firstname', path: 'user.firstname', label: 'First name' }),
      F({ id: 'email', path: 'user.email', label: 'E-mail', type: 'email', hint: 'You log in with this address.' }),
      F({ id: 'phone', path: 'user.phoneNumber', label: 'Phone', type: 'tel', required: false }),
      F({ id: 'password', path: 'user.plainPassword.first', label: 'Password', type: 'password', hint: 'At least 7…', ruleHint: true }),
    ],
  },
};
const TERMS = { intro: 'Read the terms.', accept: 'Accept terms', decline: 'Decline', question: 'Decline?', consequence: 'The seller is told.', yes: 'Yes, decline', cancel: 'Cancel' };
const NEW_INVITE = { sellerName: 'Nordbil AB', companyName: 'Vestkyst Bil AS', companyId: '987654321', userEmail: 'post@vestkystbil.test', language: 'en-GB', terms: 'Bids are binding.', invited: null };
const EXISTING = { ...NEW_INVITE, invited: { companyName: 'Fjordauto AS', companyId: '', countryCode: 'NO', currency: 'NOK' } };
const alerts = { show() {}, clear() {} };

test('the invite answer decides the first step: leave, stay, or the terms', () => {
  const texts = { invalidInvitation: 'INVALID', logInToAccept: 'LOG IN' };
  const urls = { root: '/', accept: '/market/accept-invite/h' };
  assert.deepEqual(firstStep({ ok: false, data: { flashed: true, message: 'Gone' } }, texts, urls), {
    leave: { type: 'danger', message: 'Gone', url: '/' },
  });
  assert.deepEqual(firstStep({ ok: false, status: 0, data: { message: 'No connection' } }, texts, urls), { stay: 'No connection' });
  assert.deepEqual(firstStep({ ok: true, data: { deniedAt: '2026-01-01' } }, texts, urls).leave, { type: 'danger', message: 'INVALID', url: '/' });
  assert.deepEqual(firstStep({ ok: true, data: { acceptedAt: '2026-01-01' } }, texts, urls).leave.message, 'INVALID');
  assert.deepEqual(firstStep({ ok: true, data: { user: true } }, texts, urls).leave, { type: 'info', message: 'LOG IN', url: urls.accept });
  // A company already on the market: its administrator answers signed in, never the public form.
  assert.deepEqual(firstStep({ ok: true, data: { ...NEW_INVITE, invited: true, signInToAccept: true } }, texts, urls).leave, { type: 'info', message: 'LOG IN', url: urls.accept });
  assert.deepEqual(firstStep({ ok: true, data: NEW_INVITE }, texts, urls), { step: 'terms', invite: NEW_INVITE });
});

test('the form starts with what the seller typed in; an existing company sends its own details', () => {
  const fields = [...FORM.company.flatMap((s) => s.fields), ...FORM.user.fields];
  const values = initialValues(NEW_INVITE, fields);
  assert.equal(values['instance.companyName'], 'Vestkyst Bil AS');
  assert.equal(values['user.email'], 'post@vestkystbil.test');
  assert.equal(values['instance.groups.0.countryCode'], 'SE');
  assert.equal(values['instance.groups.0.currency'], 'SEK');
  assert.equal(sentValues(values, NEW_INVITE), values);
  const sent = sentValues(values, EXISTING);
  assert.equal(sent['instance.companyName'], 'Fjordauto AS');
  assert.equal(sent['instance.groups.0.countryCode'], 'NO');
  assert.equal(sent['instance.groups.0.currency'], 'NOK');
});

test("errors show once a field is left; the server's stay until the field changes", () => {
  const keys = { 'user.firstname': 'FIELD_REQUIRED', 'user.email': 'INVALID_EMAIL' };
  assert.deepEqual(shownErrors(keys, new Set(), {}), {});
  assert.deepEqual(shownErrors(keys, new Set(['user.email']), {}), { 'user.email': { key: 'INVALID_EMAIL' } });
  const server = { 'user.email': { key: 'EMAIL_TAKEN', text: 'Taken' } };
  assert.deepEqual(shownErrors(keys, new Set(['user.email']), server)['user.email'], server['user.email']);
  const editable = new Set(['user.email']);
  assert.deepEqual(serverErrors({ keys: { 'user.email': 'EMAIL_TAKEN' }, errors: { 'user.email': 'Taken' } }, editable), server);
  assert.equal(serverErrors({ keys: { 'instance.companyName': 'X' } }, editable), null, 'a read-only field: the message is an alert');
  assert.equal(serverErrors({}, editable), null);
});

test('a field has its label, hint and hidden error; an error describes it instead of a rule hint', () => {
  const password = FORM.user.fields[3];
  const quiet = renderToString(h(Field, { field: password, value: '', onChange() {}, onBlur() {} }));
  assert.match(quiet, /<label for="password">Password<\/label>/);
  assert.match(quiet, /aria-describedby="password-hint"/);
  assert.match(quiet, /<p class="field-error" id="password-error" hidden=""><\/p>/);
  const refused = renderToString(h(Field, { field: password, value: 'x', error: { key: 'PASSWORD_PATTERN', text: 'Too simple' }, onChange() {}, onBlur() {} }));
  assert.match(refused, /aria-describedby="password-error"/);
  assert.match(refused, /aria-invalid="true"/);
  assert.match(refused, /<p class="field-hint" id="password-hint" hidden="">/);
  assert.match(refused, /data-message-key="PASSWORD_PATTERN">Too simple<\/p>/);
  const phone = renderToString(h(Field, { field: FORM.user.fields[2], value: '', optionalText: '(optional)', onChange() {}, onBlur() {} }));
  assert.match(phone, /<label for="phone">Phone <span class="invite-optional">\(optional\)<\/span><\/label>/);
  assert.doesNotMatch(phone, /required/);
});

test('a new company is asked for its details; an existing one is shown, read-only', () => {
  const fresh = renderToString(h(RegistrationForm, { invite: NEW_INVITE, form: FORM, countryCurrency: {}, hidden: false, onSend() {}, alerts }));
  assert.match(fresh, /<h2 id="invite-form-title">Register your company<\/h2>/);
  assert.match(fresh, /<div data-company="new">/);
  assert.match(fresh, /data-company="existing" hidden=""/);
  assert.match(fresh, /value="Vestkyst Bil AS"/);
  assert.match(fresh, /<div class="invite-wide"><div class="form-field"><label for="contact-name">/);
  assert.match(fresh, /id="invite-submit" disabled=""/, 'required fields are empty');
  const joining = renderToString(h(RegistrationForm, { invite: EXISTING, form: FORM, countryCurrency: {}, hidden: false, onSend() {}, alerts }));
  assert.match(joining, /<div data-company="new" hidden="">/);
  assert.match(joining, /<dd data-invited="companyName">Fjordauto AS<\/dd>/);
  assert.match(joining, /<dd data-invited="countryCode">Norway<\/dd>/);
  assert.match(joining, /id="company-name"[^>]*disabled=""/);
});

test('the terms come first, the decline confirmation hidden; the form hidden until they are accepted', () => {
  const html = renderToString(h(Invitation, { invite: NEW_INVITE, props: { terms: TERMS, form: FORM }, countryCurrency: {}, alerts }));
  assert.match(html, /<section class="card invite-card" id="invite-terms"[^>]*>/);
  assert.doesNotMatch(html, /id="invite-terms"[^>]*hidden/);
  assert.match(html, /id="invite-terms-text"[^>]*>Bids are binding.<\/div>/);
  assert.match(html, /id="invite-decline-confirm"[^>]*hidden=""/);
  assert.match(html, /<form[^>]*id="invite-form"[^>]*hidden=""/);
  const terms = renderToString(h(Terms, { invite: NEW_INVITE, texts: TERMS, hidden: true }));
  assert.match(terms, /<p id="invite-decline-question"><strong>Decline\?<\/strong> The seller is told.<\/p>/);
});
