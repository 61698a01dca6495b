// The invitation form's rules in the browser: the same cases as the server's
// (tests/market/test_invites.py NEW_COMPANY_RULES and USER_RULES).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { payload, validate } from '../market-invite/rules.js';

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
];

function refused(path, value, newInstance) {
  const values = { ...GOOD, [path]: value };
  if (path === 'user.plainPassword.first' && value) values['user.plainPassword.second'] = value;
  return validate(values, newInstance);
}

test('a complete form is valid', () => {
  assert.deepEqual(validate(GOOD, true), {});
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

test('an existing company needs none of the company fields', () => {
  const values = { ...GOOD };
  for (const [path] of COMPANY) values[path] = '';
  assert.deepEqual(validate(values, false), {});
});

test('the payload has the spec shape, the e-mail as username', () => {
  const body = payload({ ...GOOD, 'user.email': ' tove@testbil.example.com ' });
  assert.equal(body.instance.companyName, 'Testbil AB');
  assert.equal(body.instance.groups[0].name, 'Testbil AB');
  assert.equal(body.instance.groups[0].countryCode, 'SE');
  assert.equal(body.user.username, 'tove@testbil.example.com');
  assert.deepEqual(body.user.plainPassword, { first: 'Secret-pass-1', second: 'Secret-pass-1' });
});
