// The invitation form's rules (spec 02 section 5), the same as app/market/invites.py
// check_registration: each refused field by its path on the wire, with the spec's message key.

// Python's PASSWORD_RE: at least 7 characters with a lowercase letter, a digit and a special one.
const PASSWORD = /^(?=.*[a-z])(?=.*\d)(?=.*[^A-Za-z0-9\s]).{7,}$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const LETTER = /\p{L}/u;

export const COMPANY_FIELDS = [
  'instance.companyName',
  'instance.groups.0.companyId',
  'instance.groups.0.contactName',
  'instance.groups.0.contactEmail',
  'instance.groups.0.contactPhone',
  'instance.groups.0.invoiceReference',
  'instance.groups.0.invoiceEmail',
  'instance.groups.0.countryCode',
  'instance.groups.0.currency',
];

/** Whether a phone number is acceptable: it may not hold letters. */
export function phoneOk(value) {
  return !LETTER.test(value || '');
}

export function emailOk(value) {
  return EMAIL.test((value || '').trim());
}

export function passwordOk(value) {
  return PASSWORD.test(value || '') && value.length <= 128;
}

/**
 * The refused fields of `values` (path -> value): {path: key}. Company fields count only for a
 * new company (`newInstance`); an existing one's are read-only.
 */
export function validate(values, newInstance) {
  const keys = {};
  const text = (path) => String(values[path] ?? '').trim();
  const need = (path) => {
    if (text(path)) return true;
    keys[path] = 'FIELD_REQUIRED';
    return false;
  };
  if (newInstance) {
    need('instance.companyName');
    need('instance.groups.0.companyId');
    need('instance.groups.0.contactName');
    if (need('instance.groups.0.contactEmail') && !emailOk(text('instance.groups.0.contactEmail'))) {
      keys['instance.groups.0.contactEmail'] = 'INVALID_EMAIL';
    }
    if (need('instance.groups.0.contactPhone') && !phoneOk(text('instance.groups.0.contactPhone'))) {
      keys['instance.groups.0.contactPhone'] = 'INVALID_PHONE_NUMBER_CHARACTERS';
    }
    need('instance.groups.0.invoiceReference');
    if (need('instance.groups.0.invoiceEmail') && !emailOk(text('instance.groups.0.invoiceEmail'))) {
      keys['instance.groups.0.invoiceEmail'] = 'INVALID_EMAIL';
    }
  }
  need('user.firstname');
  need('user.lastname');
  if (need('user.email') && !emailOk(text('user.email'))) keys['user.email'] = 'INVALID_EMAIL';
  if (text('user.phoneNumber') && !phoneOk(text('user.phoneNumber'))) {
    keys['user.phoneNumber'] = 'INVALID_PHONE_NUMBER_CHARACTERS';
  }
  // The server strips surrounding spaces from every value, passwords included.
  const password = text('user.plainPassword.first');
  const repeat = text('user.plainPassword.second');
  if (!password) keys['user.plainPassword.first'] = 'PASSWORD_REQUIRED';
  else if (!passwordOk(password)) keys['user.plainPassword.first'] = 'PASSWORD_PATTERN';
  if (!repeat) keys['user.plainPassword.second'] = 'VERIFY_PASSWORD_REQUIRED';
  else if (password && repeat !== password) {
    keys['user.plainPassword.second'] = 'PASSWORDS_DOESNT_MATCH';
  }
  return keys;
}

/** The accept payload (spec 02 section 3) from the form's values. */
export function payload(values) {
  const value = (path) => String(values[path] ?? '').trim();
  const email = value('user.email');
  return {
    instance: {
      companyName: value('instance.companyName'),
      groups: [
        {
          name: value('instance.companyName'),
          companyId: value('instance.groups.0.companyId'),
          contactName: value('instance.groups.0.contactName'),
          contactEmail: value('instance.groups.0.contactEmail'),
          contactPhone: value('instance.groups.0.contactPhone'),
          invoiceReference: value('instance.groups.0.invoiceReference'),
          invoiceEmail: value('instance.groups.0.invoiceEmail'),
          currency: value('instance.groups.0.currency'),
          countryCode: value('instance.groups.0.countryCode'),
        },
      ],
    },
    user: {
      email,
      username: email,
      plainPassword: {
        first: value('user.plainPassword.first'),
        second: value('user.plainPassword.second'),
      },
      phoneNumber: value('user.phoneNumber'),
      firstname: value('user.firstname'),
      lastname: value('user.lastname'),
      language: value('user.language'),
    },
  };
}
