// The invitation page's states (spec 02 sections 4 and 8), decided from the invite call's
// answer: a pure function, so that a new state the server adds is one more case here and one
// more component in components.js. No DOM, no React: tested in node.

/**
 * What the page does with the invite call's answer ({ ok, data }):
 * - { leave: { type, message, url } }: alert, then go (the server flashed the same message);
 * - { stay: message }: alert with a way to the start page, nothing else;
 * - { step: 'terms', invite }: show the seller's terms, then the form.
 * `texts` are the page texts (invalidInvitation, logInToAccept), `urls` { root, accept }.
 */
export function firstStep({ ok, data }, texts, urls) {
  if (!ok) {
    return data?.flashed
      ? { leave: { type: 'danger', message: data.message, url: urls.root } }
      : { stay: data?.message };
  }
  if (data.acceptedAt || data.deniedAt) {
    return { leave: { type: 'danger', message: texts.invalidInvitation, url: urls.root } };
  }
  // A registered user, or a company already on the market (its administrator answers signed in).
  if (data.user || data.signInToAccept) {
    return { leave: { type: 'info', message: texts.logInToAccept, url: urls.accept } };
  }
  return { step: 'terms', invite: data };
}

/** Whether the invite is for a company not on the market yet (its company fields are asked). */
export function isNewCompany(invite) {
  return !invite?.invited;
}

/** The form's first values from the invite (what the seller typed in for the invited). */
export function initialValues(invite, fields) {
  const values = {};
  for (const field of fields) values[field.path] = field.options ? field.selected : '';
  values['instance.companyName'] = invite.companyName || '';
  values['instance.groups.0.companyId'] = invite.companyId || '';
  values['instance.groups.0.contactEmail'] = invite.userEmail || '';
  values['instance.groups.0.invoiceEmail'] = invite.userEmail || '';
  values['user.email'] = invite.userEmail || '';
  if (invite.language) values['user.language'] = invite.language;
  return values;
}

/** The values sent: for an existing company its own details, not the (hidden) fields. */
export function sentValues(values, invite) {
  if (isNewCompany(invite)) return values;
  const invited = invite.invited;
  return {
    ...values,
    'instance.companyName': invited.companyName,
    'instance.groups.0.companyId': invited.companyId || '',
    'instance.groups.0.countryCode': invited.countryCode,
    'instance.groups.0.currency': invited.currency,
  };
}

/**
 * The errors shown, by field path: the server's first (until the field changes), else the
 * rule's, once the field has been left (touched).
 */
export function shownErrors(keys, touched, server) {
  const shown = {};
  for (const [path, error] of Object.entries(server)) shown[path] = error;
  for (const [path, key] of Object.entries(keys)) {
    if (!(path in shown) && touched.has(path)) shown[path] = { key };
  }
  return shown;
}

/**
 * The server's refusal of a sent form (422 with keys by path): the errors to show under the
 * fields the reader can change; null when none of them is (the message is then an alert).
 */
export function serverErrors(data, editable) {
  const errors = {};
  for (const [path, key] of Object.entries(data?.keys || {})) {
    if (editable.has(path)) errors[path] = { key, text: data.errors?.[path] };
  }
  return Object.keys(errors).length ? errors : null;
}
