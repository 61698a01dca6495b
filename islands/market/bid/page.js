// The public bid page (spec 02, market-bid): loading, then the form of the link's action
// (bid, allocate, change-status), then the result in a green or red box. The forms are React
// components (components.js, seller-forms.js) rendered into the server-drawn action card; the
// vehicle card, the history and every text stay the server's. Two entries start it: main.js for
// a bidder's link, seller.js (with the seller's forms) for an allocate or change-status link;
// React is one chunk shared by every public page.
import { createElement } from 'react';
import { createRoot } from 'react-dom/client';
import { keepScrollersFocusable } from '../../lib/scrollers.js';
import { api, h, requestKey, t } from '../public/core.js';
import { fillHistory, fillPrices, setEndsAt, updateAdvertCard } from './advert.js';
import { alertBox } from './form-parts.js';

let formCount = 0;

/**
 * What a new, untouched form keeps: no typed bid yet, a new request key, no answer yet; `form`
 * numbers it, so that React draws a new form after a success (and keeps the one being typed in).
 */
const freshForm = () => ({ bid: null, key: requestKey(), answered: false, form: (formCount += 1) });

/** The form texts the server draws in the page's templates (translated, with the bidder's names). */
export function templateTexts(doc = document) {
  const inside = (id, selector, index = 0) =>
    doc.getElementById(id)?.content.querySelectorAll(selector)[index]?.textContent.trim() ?? '';
  return {
    bidAs: inside('bid-form', '.bid-as'),
    bidLabel: inside('bid-form', 'label'),
    placeBid: inside('bid-form', 'button'),
    heads: {
      currency: inside('bid-currency-table', 'thead th'),
      exchangeRate: inside('bid-currency-table', 'thead th', 1),
    },
  };
}

/**
 * Draws the page in `root`. `Parts` is the React component of the action card's form part:
 * BidderParts for a bidder's link, SellerParts for a seller's.
 */
export function startBidPage(root, Parts) {
  keepScrollersFocusable();
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
  // Title, prices and the result box stay the server's; React draws the form part after them.
  const slot = h('div', { className: 'bid-form-root' });
  card.append(slot);
  const formRoot = createRoot(slot);
  const texts = templateTexts();
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
    // A bid placed but outbid at once by another bidder's maximum is a warning, not a success.
    const kind = !answer.ok ? 'danger' : answer.data.leading === false ? 'warning' : 'success';
    showResult(kind, answer.data.message || t.loadFailed);
    // After any definite answer the data may have moved on (a higher bid, a new status).
    if (answer.status !== 0) await load(false);
    return answer.ok;
  };

  function render(data, currencies) {
    page.lastData = data;
    seen = `${data.status}/${data.bidCount}`;
    if (setEndsAt(advert, data.endsAt)) advert.querySelector('[data-ends-moved]')?.removeAttribute('hidden');
    updateAdvertCard(advert, data);
    fillPrices(card, data);
    formRoot.render(createElement(Parts, { action, data, currencies, page, texts }));
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

  // The live end of bidding (soft close) and new bids, from one small call: every 15 s, every
  // 3 s in the last five minutes; not while the page is hidden. A change reloads the data.
  let seen = null;
  async function poll() {
    const ends = new Date(advert.querySelector('[data-local-time]')?.dateTime || 0).getTime();
    const close = ends - Date.now() < 300_000;
    if (!document.hidden && page.lastData?.status === 'published') {
      const answer = await api('GET', `_public/market-advert/state/${page.hashes}`);
      if (answer.ok) {
        const moved = setEndsAt(advert, answer.data.endsAt);
        const now = `${answer.data.status}/${answer.data.bidCount}`;
        if (moved) {
          updateAdvertCard(advert, null);
          advert.querySelector('[data-ends-moved]')?.removeAttribute('hidden');
        }
        if (seen !== null && now !== seen) await load(false);
        seen = now;
      }
    }
    setTimeout(poll, close ? 3_000 : 15_000);
  }

  root.setAttribute('aria-busy', 'true');
  load(true).then(() => setTimeout(poll, 3_000));
}
