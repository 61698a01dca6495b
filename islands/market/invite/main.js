// The invitation page (spec 02 sections 2-8): load the invite, then the seller's terms and the
// registration form as React components (components.js); accept leads to the market, decline to
// the root. The header and the alerts are the server's markup (templates/market/invite.html),
// filled here; the forms' texts and fields come from #invite-form-props, the messages from
// #page-texts.
import { createElement } from 'react';
import { createRoot } from 'react-dom/client';
import { api, format, h, t as T } from '../public/core.js';
import { clearAlerts, showAlert } from './alerts.js';
import { Invitation } from './components.js';
import { firstStep } from './flow.js';

const root = document.getElementById('invite');
const $ = (id) => document.getElementById(id);
const alerts = { show: showAlert, clear: clearAlerts };

/** Alert, then leave: the server has flashed the same message for the next page. */
function leave({ type, message, url }) {
  showAlert(type, message);
  window.location.assign(url);
}

/** A failure the next page cannot repeat: the alert stays, with a way to the start page. */
function stay(message) {
  showAlert('danger', message, [' ', h('a', { href: root.dataset.rootUrl }, T.goToStart)]);
}

/** The server-drawn header: who invites whom, and which step is current. */
function fillHeader(invite) {
  $('invite-title').textContent = format(T.invitationFrom, { seller: invite.sellerName });
  $('invite-lead').textContent = format(T.invitedBy, {
    seller: invite.sellerName,
    company: invite.invited ? invite.invited.companyName : invite.companyName,
  });
  $('invite-lead').hidden = false;
  $('invite-steps').hidden = false;
}

function showStep(step) {
  for (const item of $('invite-steps').querySelectorAll('li')) {
    if (item.dataset.step === step) item.setAttribute('aria-current', 'step');
    else item.removeAttribute('aria-current');
  }
}

async function start() {
  const mount = $('invite-app');
  if (!root || !mount) return;
  const props = JSON.parse($('invite-form-props').textContent);
  const countryCurrency = JSON.parse(root.dataset.countryCurrency || '{}');
  const path = `_public/instance-invites/${root.dataset.inviteHash}`;
  const answer = await api('GET', path);
  $('invite-loading').hidden = true;
  const next = firstStep(answer, T, { root: root.dataset.rootUrl, accept: root.dataset.acceptUrl });
  if (next.leave) return leave(next.leave);
  if (next.stay !== undefined) return stay(next.stay);

  const onDecline = async () => {
    clearAlerts();
    const { ok, data } = await api('PUT', `${path}/deny-invite`);
    if (ok) {
      leave({ type: 'success', message: data.message, url: data.redirect || root.dataset.rootUrl });
      return true;
    }
    showAlert('danger', data.message);
    return false;
  };
  const onSend = async (body) => {
    const result = await api('PUT', `${path}/accept-invite`, body);
    if (result.ok) leave({ type: 'success', message: result.data.message, url: result.data.redirect });
    return result;
  };
  fillHeader(next.invite);
  createRoot(mount).render(
    createElement(Invitation, {
      invite: next.invite,
      props,
      countryCurrency,
      onStep: showStep,
      onDecline,
      onSend,
      alerts,
    }),
  );
}

start();
