// The public bid page (spec 02, market-bid): loading, then the form of the link's action
// (bid, allocate, change-status), then the result in a green or red box. No framework: a
// bidder's phone downloads one file of a few kilobytes. Texts come translated in the page.
// Two entries start it: main.js for a bidder's link, seller.js (with the seller's forms) for
// an allocate or change-status link.
import { amount, api, format, h, requestKey, t } from '../public/core.js';
import { fillHistory, fillPrices, updateAdvertCard } from './advert.js';
import { bidForm } from './bid-form.js';
import { alertBox } from './form-parts.js';

/** What a new, untouched form keeps: no typed bid yet, a new request key, no answer yet. */
const freshForm = () => ({ bid: null, key: requestKey(), answered: false });

/**
 * Draws the page in `root`. `sellerParts(action, data, currencies, page)` gives the seller's
 * part of the action card; only the seller's entry passes it.
 */
export function startBidPage(root, sellerParts) {
  const action = root.dataset.action;
  const link = root.dataset.link; // action/groupHash/advertHash/userHash
  const page = {
    action,
    link,
    hashes: link.split('/').slice(1).join('/'),
    kept: freshForm(),
    send: null,
  };
  // The server draws the cards; the script fills them once the link's data is in.
  const loading = root.querySelector('[data-bid-loading]');
  const advert = root.querySelector('.bid-advert');
  const card = root.querySelector('[data-bid-action]');
  const history = root.querySelector('[data-bid-history]');
  const result = card.querySelector('[data-bid-result]');
  const fixed = [...card.children]; // title, prices and the result box stay; the form is redrawn
  updateAdvertCard(advert, null);

  function showResult(kind, text) {
    const box = alertBox(kind, text);
    result.replaceChildren(box);
    box.focus(); // read out, and scrolled to when out of sight
  }

  /** A form's call: the result box shows the answer; a success reloads the page's data. */
  page.send = async (method, path, body) => {
    const answer = await api(method, path, body);
    page.kept.answered = answer.status !== 0;
    if (answer.ok) page.kept = freshForm();
    showResult(answer.ok ? 'success' : 'danger', answer.data.message || t.loadFailed);
    // After any definite answer the data may have moved on (a higher bid, a new status).
    if (answer.status !== 0) await load(false);
    return answer.ok;
  };

  function formParts(data, currencies) {
    if (action !== 'bid') return sellerParts(action, data, currencies, page);
    const parts = [];
    if (data.allocatedToYou) {
      const text = format(t.allocatedToYou, { amount: amount(data.allocatedSalesPrice), currency: data.currency });
      parts.push(alertBox('success', text, data.allocatedNotes ? h('span', { className: 'bid-notes' }, data.allocatedNotes) : null));
    } else if (data.leading && data.biddingOpen) {
      parts.push(h('p', { className: 'bid-leading' }, t.leading));
    }
    if (data.biddingOpen) parts.push(...bidForm(data, currencies, page));
    else if (!data.allocatedToYou) parts.push(alertBox('warning', data.closedMessage));
    return parts;
  }

  function render(data, currencies) {
    updateAdvertCard(advert, data);
    fillPrices(card, data);
    card.replaceChildren(...fixed, ...formParts(data, currencies));
    card.hidden = false;
    fillHistory(history, data, { anonymous: action === 'bid' });
  }

  async function load(first) {
    const calls = [api('GET', `_public/market-bid/${link}`)];
    if (action !== 'change-status') calls.push(api('GET', `_public/market-advert/currencies/${page.hashes}`));
    const [request, currencies] = await Promise.all(calls);
    const failed = [request, currencies].find((answer) => answer && !answer.ok);
    if (failed) {
      if (first) {
        const retry = h('button', { type: 'button', className: 'btn btn-secondary', onclick: () => location.reload() }, t.retry);
        loading.after(alertBox('danger', failed.data.message || t.loadFailed, [' ', retry]));
      } else {
        showResult('danger', failed.data.message || t.loadFailed);
      }
    } else {
      render(request.data, currencies?.data);
    }
    loading.setAttribute('aria-busy', 'false');
    loading.hidden = true;
    root.setAttribute('aria-busy', 'false');
  }

  // The time left ticks on while the page stays open.
  setInterval(() => updateAdvertCard(advert, null), 30_000);

  root.setAttribute('aria-busy', 'true');
  load(true);
}
