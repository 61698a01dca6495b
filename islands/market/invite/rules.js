// The invitation form's rules (spec 02 section 5). Which key each field is refused with comes
// from the server's table (app/market/invite_fields.json, given to the page as `form.rules`),
// the same table check_registration in app/market/invites.py applies; the checks it names are
// here, written as the server's.

// Python's PASSWORD_RE: at least 7 characters with a lowercase letter, a digit and a special one.
const PASSWORD = /^(?=.*[a-z])(?=.*\d)(?=.*[^A-Za-z0-9\s]).{7,}$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const LETTER = /\p{L}/u;
const PASSWORD_PATH = 'user.plainPassword.first';

/** The paths of the fields asked only of a new company. */
export function companyPaths(rules) {
  return rules.filter((rule) => rule.company).map((rule) => rule.path);
}

/** Whether a phone number is acceptable: it may not hold letters. */
export function phoneOk(value) {
  return !LETTER.test(value || '');
}

export function emailOk(value) {
  return EMAIL.test((value || '').trim());
}

export function passwordOk(value) {
  return PASSWORD.test(value || '') && [...value].length <= 128;
}

const CHECKS = {
  email: emailOk,
  phone: phoneOk,
  password: passwordOk,
  // Compared only with a password given.
  repeat: (value, text) => !text(PASSWORD_PATH) || value === text(PASSWORD_PATH),
};

function passes(rule, value, text) {
  if (rule.choices) return rule.choices.includes(value);
  const check = CHECKS[rule.check];
  return check ? check(value, text) : true;
}

/**
 * The refused fields of `values` (path -> value): {path: key}, by the server's `rules`. Company
 * fields count only for a new company (`newInstance`); an existing one's are read-only.
 */
export function validate(values, newInstance, rules) {
  const keys = {};
  // The server strips surrounding spaces from every value, passwords included.
  const text = (path) => String(values[path] ?? '').trim();
  for (const rule of rules) {
    if (rule.company && !newInstance) continue;
    const value = text(rule.path);
    if (!value) {
      if (rule.required) keys[rule.path] = rule.required;
    } else if (rule.maxLength && [...value].length > rule.maxLength) {
      keys[rule.path] = rule.tooLong || 'FIELD_TOO_LONG';
    } else if (!passes(rule, value, text)) {
      keys[rule.path] = rule.refused || 'INVALID_VALUE';
    }
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
