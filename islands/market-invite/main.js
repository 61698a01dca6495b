// The invitation page (spec 02 sections 2-8): load the invite, show the seller's terms, then the
// registration form; accept leads to the market, decline to the root. The markup and its
// translated labels come from templates/market/invite.html, the texts from #page-texts.
import { api, format, h, t as T } from '../public/core.js';
import { clearAlerts, showAlert } from './alerts.js';
import { COMPANY_FIELDS, payload, validate } from './rules.js';

const root = document.getElementById('invite');
const form = document.getElementById('invite-form');
const submit = document.getElementById('invite-submit');
const path = `_public/instance-invites/${root?.dataset.inviteHash}`;

const state = { invite: null, newInstance: true, saving: false, touched: new Set(), server: {} };

const $ = (id) => document.getElementById(id);
const fields = () => [...form.querySelectorAll('[data-field]')];
const field = (name) => form.querySelector(`[data-field="${name}"]`);

function go(url) {
  window.location.assign(url);
}

/** Alert, then leave: the server has flashed the same message for the next page. */
function leave(type, message, url) {
  showAlert(type, message);
  go(url);
}

/** A failure the next page cannot repeat: the alert stays, with a way to the start page. */
function stay(message) {
  showAlert('danger', message, [' ', h('a', { href: root.dataset.rootUrl }, T.goToStart)]);
}

function values() {
  const result = {};
  for (const input of fields()) result[input.dataset.field] = input.value;
  if (!state.newInstance && state.invite?.invited) {
    const invited = state.invite.invited;
    result['instance.companyName'] = invited.companyName;
    result['instance.groups.0.companyId'] = invited.companyId || '';
    result['instance.groups.0.countryCode'] = invited.countryCode;
    result['instance.groups.0.currency'] = invited.currency;
  }
  return result;
}

function setError(input, key, text) {
  const error = $(`${input.id}-error`);
  const hint = $(`${input.id}-hint`) ? `${input.id}-hint` : '';
  // A hint that states the rule itself gives way to the rule's message.
  if (hint && 'ruleHint' in input.dataset) $(hint).hidden = Boolean(key);
  if (key) {
    error.textContent = text || T.messages?.[key] || key;
    error.dataset.messageKey = key;
    error.hidden = false;
    input.setAttribute('aria-invalid', 'true');
    const rest = 'ruleHint' in input.dataset ? '' : hint;
    input.setAttribute('aria-describedby', `${input.id}-error ${rest}`.trim());
  } else {
    error.textContent = '';
    delete error.dataset.messageKey;
    error.hidden = true;
    input.removeAttribute('aria-invalid');
    if (hint) input.setAttribute('aria-describedby', hint);
    else input.removeAttribute('aria-describedby');
  }
}

/** Check the form: errors under touched fields (and the server's), submit only when valid. */
function refresh() {
  const keys = validate(values(), state.newInstance);
  for (const input of fields()) {
    const name = input.dataset.field;
    const server = state.server[name];
    if (server) setError(input, server.key, server.text);
    else setError(input, state.touched.has(name) ? keys[name] : null);
  }
  const valid = Object.keys(keys).length === 0 && Object.keys(state.server).length === 0;
  submit.disabled = !valid || state.saving;
  $('invite-submit-hint').textContent = valid || state.saving ? '' : T.fixFields;
  return valid;
}

function showStep(step) {
  $('invite-terms').hidden = step !== 'terms';
  form.hidden = step !== 'form';
  for (const item of $('invite-steps').querySelectorAll('li')) {
    if (item.dataset.step === step) item.setAttribute('aria-current', 'step');
    else item.removeAttribute('aria-current');
  }
}

function fill(invite) {
  state.invite = invite;
  state.newInstance = !invite.invited;
  $('invite-title').textContent = format(T.invitationFrom, { seller: invite.sellerName });
  $('invite-lead').textContent = format(T.invitedBy, {
    seller: invite.sellerName,
    company: invite.invited ? invite.invited.companyName : invite.companyName,
  });
  $('invite-lead').hidden = false;
  $('invite-steps').hidden = false;
  $('invite-terms-title').textContent = format(T.termsOf, { seller: invite.sellerName });
  $('invite-terms-text').textContent = invite.terms;
  field('instance.companyName').value = invite.companyName || '';
  field('instance.groups.0.companyId').value = invite.companyId || '';
  field('instance.groups.0.contactEmail').value = invite.userEmail || '';
  field('instance.groups.0.invoiceEmail').value = invite.userEmail || '';
  field('user.email').value = invite.userEmail || '';
  if (invite.language) field('user.language').value = invite.language;
  const existing = form.querySelector('[data-company="existing"]');
  form.querySelector('[data-company="new"]').hidden = !state.newInstance;
  existing.hidden = state.newInstance;
  if (!state.newInstance) {
    $('invite-form-title').textContent = format(T.joinCompany, {
      company: invite.invited.companyName,
    });
    for (const name of COMPANY_FIELDS) field(name)?.setAttribute('disabled', '');
    const country = field('instance.groups.0.countryCode');
    const label = [...country.options].find((o) => o.value === invite.invited.countryCode);
    for (const dd of existing.querySelectorAll('[data-invited]')) {
      const key = dd.dataset.invited;
      dd.textContent =
        key === 'countryCode' && label ? label.textContent : invite.invited[key] || '–';
    }
  }
  $('invite-loading').hidden = true;
  showStep('terms');
}

async function load() {
  const { ok, data } = await api('GET', path);
  if (!ok) {
    $('invite-loading').hidden = true;
    if (data.flashed) leave('danger', data.message, root.dataset.rootUrl);
    else stay(data.message);
    return;
  }
  if (data.acceptedAt || data.deniedAt) {
    leave('danger', T.invalidInvitation, root.dataset.rootUrl);
    return;
  }
  if (data.user) {
    leave('info', T.logInToAccept, root.dataset.acceptUrl);
    return;
  }
  fill(data);
}

function acceptTerms() {
  clearAlerts();
  showStep('form');
  field(state.newInstance ? 'instance.companyName' : 'user.firstname').focus();
  refresh();
}

function askDecline(open) {
  $('invite-decline-confirm').hidden = !open;
  $('invite-terms-actions').hidden = open;
  (open ? $('invite-decline-no') : $('invite-decline')).focus();
}

async function decline() {
  const yes = $('invite-decline-yes');
  yes.disabled = true;
  yes.textContent = T.declining;
  clearAlerts();
  const { ok, data } = await api('PUT', `${path}/deny-invite`);
  if (ok) {
    leave('success', data.message, data.redirect || root.dataset.rootUrl);
    return;
  }
  yes.disabled = false;
  yes.textContent = yes.dataset.label;
  showAlert('danger', data.message);
}

async function send(event) {
  event.preventDefault();
  for (const input of fields()) state.touched.add(input.dataset.field);
  if (!refresh() || state.saving) return;
  state.saving = true;
  const label = submit.textContent;
  submit.textContent = T.saving;
  refresh();
  clearAlerts();
  const { ok, status, data } = await api('PUT', `${path}/accept-invite`, payload(values()));
  if (ok) {
    leave('success', data.message, data.redirect);
    return;
  }
  state.saving = false;
  submit.textContent = label;
  if (status === 422 && data.keys) {
    const shown = [];
    for (const [name, key] of Object.entries(data.keys)) {
      if (!field(name) || field(name).disabled) continue;
      state.server[name] = { key, text: data.errors?.[name] };
      shown.push(field(name));
    }
    if (!shown.length) showAlert('danger', data.message);
    refresh();
    shown[0]?.focus();
    return;
  }
  showAlert('danger', data.message);
  refresh();
}

function start() {
  if (!root || !form) return;
  const yes = $('invite-decline-yes');
  yes.dataset.label = yes.textContent;
  const currencies = JSON.parse(root.dataset.countryCurrency || '{}');
  $('invite-accept-terms').addEventListener('click', acceptTerms);
  $('invite-decline').addEventListener('click', () => askDecline(true));
  $('invite-decline-no').addEventListener('click', () => askDecline(false));
  yes.addEventListener('click', decline);
  form.addEventListener('input', (event) => {
    const name = event.target.dataset?.field;
    if (!name) return;
    delete state.server[name];
    if (name === 'user.plainPassword.first') delete state.server['user.plainPassword.second'];
    refresh();
  });
  form.addEventListener('change', (event) => {
    const name = event.target.dataset?.field;
    if (name === 'instance.groups.0.countryCode' && currencies[event.target.value]) {
      field('instance.groups.0.currency').value = currencies[event.target.value];
    }
  });
  form.addEventListener('focusout', (event) => {
    // A field shows its error once it has been left (Angular's "touched").
    const name = event.target.dataset?.field;
    if (!name) return;
    state.touched.add(name);
    refresh();
  });
  form.addEventListener('submit', send);
  load();
}

start();
