// Enhancers for the shell's header (plain server-rendered markup), spec 01 sections 2, 4 and 9.
// shell.js opens and closes the menu itself; the menu tree is a React island (shell/menu-tree/:
// groups, keyboard, counts, and on a phone closing a menu that covers over 90 % of the window
// after a leaf, by the rule below); this module adds:
// - [data-nav-toggle]: the desktop collapsed state is kept in the `nav` cookie for the server.
// - [data-logo]: five clicks in a burst reveal [data-top-selector]; so does
//   [data-reveal-top-selector]. The revealed state lasts for the browser tab (sessionStorage).
// - form[data-division-selector]: submits on change and remembers the value (localStorage).
// - form[data-search]: trims the phrase, ignores an empty one; a search button on phones.
// - <html data-sw-url>: the service worker and the new-version banner.
//
// The pure rules are exported for islands/tests/menu.test.mjs.

export const MOBILE_QUERY = '(max-width: 639.98px)';
/** Spec 01 section 9: the menu closes after a leaf when it covers more than this share. */
export const MENU_COVER_RATIO = 0.9;
/** Spec 01 section 9: this many logo clicks reveal the top selector. */
export const LOGO_CLICKS = 5;
/** Longest pause between two clicks of one burst. */
export const BURST_GAP_MS = 600;
/** Spec 01 section 9: register the service worker at the latest this long after start. */
export const SW_LATEST_MS = 30000;
export const NAV_COOKIE = 'nav';
export const DIVISION_KEY = 'selectedDivisionDropdownValue';
export const TOP_SELECTOR_KEY = 'topSelectorRevealed';
const YEAR_SECONDS = 365 * 24 * 60 * 60;

// --- the rules ---------------------------------------------------------------------------------

/** The Set-Cookie text that remembers the desktop menu state (deleted when expanded). */
export function navCookie(collapsed) {
  const lifetime = collapsed ? `max-age=${YEAR_SECONDS}` : 'max-age=0';
  return `${NAV_COOKIE}=${collapsed ? 'collapsed' : ''}; path=/; ${lifetime}; SameSite=Lax`;
}

/** Spec 01 section 4: on a phone, a leaf closes the menu when it covers over 90 % of the width. */
export function shouldCloseAfterLeaf({ mobile, menuWidth, windowWidth }) {
  return Boolean(mobile) && windowWidth > 0 && menuWidth > windowWidth * MENU_COVER_RATIO;
}

/** The phrase to search for, trimmed; null when there is nothing to search for. */
export function searchPhrase(raw) {
  const phrase = String(raw ?? '').trim();
  return phrase === '' ? null : phrase;
}

/**
 * Counts clicks in bursts: each click within `gap` ms of the previous one continues the burst.
 * click() answers 'reveal' on the `size`th click of a burst (which then starts over) and 'wait'
 * otherwise; when a burst ends short of `size`, onShortBurst(count) is called, so a single click
 * can still do what it normally does.
 */
export function createClickBurst({
  size = LOGO_CLICKS,
  gap = BURST_GAP_MS,
  onShortBurst = () => {},
  setTimer = (fn, ms) => setTimeout(fn, ms),
  clearTimer = (id) => clearTimeout(id),
} = {}) {
  let count = 0;
  let timer = null;
  const stop = () => {
    if (timer !== null) clearTimer(timer);
    timer = null;
  };
  return {
    click() {
      stop();
      count += 1;
      if (count >= size) {
        count = 0;
        return 'reveal';
      }
      timer = setTimer(() => {
        timer = null;
        const clicks = count;
        count = 0;
        onShortBurst(clicks);
      }, gap);
      return 'wait';
    },
    get count() {
      return count;
    },
  };
}

// --- small helpers -----------------------------------------------------------------------------

function storage(kind) {
  try {
    return globalThis[kind] ?? null;
  } catch {
    return null; // storage disabled by policy
  }
}

function store(kind, key, value) {
  try {
    if (value === null) storage(kind)?.removeItem(key);
    else storage(kind)?.setItem(key, value);
  } catch {
    // storage full or disabled: only the convenience is lost
  }
}

function read(kind, key) {
  try {
    return storage(kind)?.getItem(key) ?? null;
  } catch {
    return null;
  }
}

function isMobile(win) {
  return Boolean(win.matchMedia?.(MOBILE_QUERY).matches);
}

function plainClick(event) {
  return !(event.button > 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey);
}

function closest(event, selector) {
  const target = event.target;
  return target && typeof target.closest === 'function' ? target.closest(selector) : null;
}

// --- collapse on desktop (the menu tree island closes the phone menu after a leaf) ----------------

function enhanceNavState(doc, win) {
  const frame = doc.querySelector('.app');
  if (!frame) return;
  // shell.js toggles .nav-collapsed; watching the class keeps this independent of listener order.
  let collapsed = frame.classList.contains('nav-collapsed');
  const remember = () => {
    const now = frame.classList.contains('nav-collapsed');
    if (now === collapsed) return;
    collapsed = now;
    if (!isMobile(win)) doc.cookie = navCookie(now);
  };
  if (typeof win.MutationObserver === 'function') {
    new win.MutationObserver(remember).observe(frame, {
      attributes: true,
      attributeFilter: ['class'],
    });
  } else {
    doc.addEventListener('click', (event) => {
      if (closest(event, '[data-nav-toggle]')) remember();
    });
  }
}

// --- the top selector (ROLE_MANAGER_ADMIN) -----------------------------------------------------

/** Show or hide the instance and user selector; the choice lasts for the browser tab. */
export function setTopSelectorRevealed(revealed, { focus = false, doc = document } = {}) {
  const panel = doc.querySelector('[data-top-selector]');
  if (!panel) return;
  panel.hidden = !revealed;
  store('sessionStorage', TOP_SELECTOR_KEY, revealed ? '1' : null);
  if (revealed && focus) {
    const control = panel.querySelector('select, button, [href]');
    if (control) control.focus();
    else {
      panel.tabIndex = -1;
      panel.focus();
    }
  }
}

function enhanceTopSelector(doc, win) {
  const panel = doc.querySelector('[data-top-selector]');
  if (!panel) return;
  if (read('sessionStorage', TOP_SELECTOR_KEY) === '1') panel.hidden = false;

  let pendingHref = null;
  const burst = createClickBurst({
    onShortBurst: () => {
      const href = pendingHref;
      pendingHref = null;
      if (href) win.location.assign(href);
    },
  });
  doc.addEventListener('click', (event) => {
    const logo = closest(event, '[data-logo]');
    if (logo && panel.hidden && plainClick(event) && !event.defaultPrevented) {
      // Hold the way home until the burst is over; a single click still gets there.
      event.preventDefault();
      pendingHref = logo.getAttribute('href');
      if (burst.click() === 'reveal') {
        pendingHref = null;
        setTopSelectorRevealed(true, { doc });
      }
      return;
    }
    const reveal = closest(event, '[data-reveal-top-selector]');
    if (reveal) {
      reveal.closest('details')?.removeAttribute('open');
      setTopSelectorRevealed(true, { focus: true, doc });
    }
  });
}

// --- division selector -------------------------------------------------------------------------

function enhanceDivisionSelector(doc) {
  for (const form of doc.querySelectorAll('form[data-division-selector]')) {
    for (const button of form.querySelectorAll('[data-no-js-only]')) button.hidden = true;
    form.addEventListener('change', (event) => {
      const select = event.target;
      if (!select || select.tagName !== 'SELECT') return;
      store('localStorage', select.dataset.storageKey || DIVISION_KEY, select.value);
      if (typeof form.requestSubmit === 'function') form.requestSubmit();
      else form.submit();
    });
  }
}

// --- search ------------------------------------------------------------------------------------

function enhanceSearch(doc, win) {
  for (const form of doc.querySelectorAll('form[data-search]')) {
    const input = form.querySelector('input[type="search"], input[name="searchphrase"]');
    if (!input) continue;
    const submit = form.querySelector('button[type="submit"], button:not([type])');
    // Below 640px the field folds into its button (app.css, .search-collapsible; the server
    // draws the class already, so that nothing moves here).
    form.classList.add('search-collapsible');
    const expand = (open) => {
      form.classList.toggle('is-expanded', open);
      // Only on a phone does the button show and hide the field.
      if (!submit) return;
      if (isMobile(win)) submit.setAttribute('aria-expanded', String(open));
      else submit.removeAttribute('aria-expanded');
    };
    submit?.setAttribute('aria-controls', input.id);
    expand(false);
    win.matchMedia?.(MOBILE_QUERY).addEventListener?.('change', () => expand(false));

    form.addEventListener('submit', (event) => {
      if (isMobile(win) && !form.classList.contains('is-expanded')) {
        event.preventDefault();
        expand(true);
        input.focus();
        return;
      }
      const phrase = searchPhrase(input.value);
      if (phrase === null) {
        event.preventDefault();
        input.value = '';
        input.focus();
        return;
      }
      input.value = phrase;
    });
    form.addEventListener('keydown', (event) => {
      if (event.key !== 'Escape' || !form.classList.contains('is-expanded')) return;
      event.stopPropagation();
      expand(false);
      submit?.focus();
    });
    form.addEventListener('focusout', (event) => {
      if (!form.classList.contains('is-expanded') || form.contains(event.relatedTarget)) return;
      if (searchPhrase(input.value) === null) expand(false);
    });
  }
}

// --- new version and the service worker ---------------------------------------------------------

/** Unhide the new-version banner (shell.js calls this too, when there is no service worker). */
export function showNewVersionBanner(doc = document) {
  for (const banner of doc.querySelectorAll('[data-new-version-banner]')) banner.hidden = false;
}

/** Calls `fn` once the page is stable (loaded, then idle) or after SW_LATEST_MS, whichever first. */
function whenStable(win, fn) {
  let done = false;
  const once = () => {
    if (done) return;
    done = true;
    fn();
  };
  const idle = () =>
    typeof win.requestIdleCallback === 'function'
      ? win.requestIdleCallback(once, { timeout: 5000 })
      : win.setTimeout(once, 1000);
  if (win.document?.readyState === 'complete') idle();
  else win.addEventListener('load', idle, { once: true });
  win.setTimeout(once, SW_LATEST_MS);
}

/** Resolves when `worker` is installed (true) or is thrown away (false). */
function installed(worker) {
  return new Promise((resolve) => {
    const check = () => {
      if (worker.state === 'installed' || worker.state === 'activated') resolve(true);
      else if (worker.state === 'redundant') resolve(false);
      else return false;
      worker.removeEventListener('statechange', check);
      return true;
    };
    if (!check()) worker.addEventListener('statechange', check);
  });
}

function enhanceNewVersion(doc, win) {
  const swUrl = doc.documentElement?.dataset?.swUrl;
  const container = win.navigator?.serviceWorker;
  if (!swUrl) return; // development: shell.js shows the banner on cc:new-version
  if (!container) {
    console.info('Service workers are disabled or not supported by this browser');
    return;
  }

  let registered = null;
  let resolveRegistration;
  const registration = new Promise((resolve) => {
    resolveRegistration = resolve;
  });
  whenStable(win, () => {
    container
      .register(swUrl, { scope: '/' })
      .then((found) => {
        registered = found;
        resolveRegistration(found);
      })
      .catch((error) => {
        console.warn('The service worker could not be registered', error);
        resolveRegistration(null);
      });
  });

  let checking = false;
  // shell.js shows the banner at once on this event; with a service worker the banner waits
  // until the new version is installed, so this listener stops shell.js's. Listeners on the
  // event's own target run in the order they were added (capture or not), hence main.jsx calls
  // enhanceMenus() before enhanceShell().
  win.addEventListener(
    'cc:new-version',
    (event) => {
      event.stopImmediatePropagation();
      if (checking) return;
      checking = true;
      registration
        .then(async (found) => {
          if (!found) return showNewVersionBanner(doc);
          await found.update().catch(() => {});
          // Wait for a new worker to be installed. Without one (or if it fails) the bundles did
          // not change but the pages did, and a plain reload shows them: HTML is never cached.
          const incoming = found.installing || found.waiting;
          if (incoming) await installed(incoming);
          showNewVersionBanner(doc);
        })
        .finally(() => {
          checking = false;
        });
    },
    { capture: true },
  );

  let reloading = false;
  container.addEventListener('controllerchange', () => {
    if (reloading) win.location.reload();
  });
  doc.addEventListener(
    'click',
    (event) => {
      if (!closest(event, '[data-reload]')) return;
      const waiting = registered?.waiting;
      if (!waiting) return; // shell.js reloads the page
      event.preventDefault();
      event.stopPropagation();
      reloading = true;
      waiting.postMessage({ type: 'skipWaiting' });
      // If the worker does not take over quickly, reload anyway: HTML is never cached.
      win.setTimeout(() => win.location.reload(), 3000);
    },
    { capture: true },
  );
}

// --- start -------------------------------------------------------------------------------------

/** Wire the menus and the header; call once per page, before enhanceShell(). */
export function enhanceMenus(doc = document, win = window) {
  enhanceNavState(doc, win);
  enhanceTopSelector(doc, win);
  enhanceDivisionSelector(doc);
  enhanceSearch(doc, win);
  enhanceNewVersion(doc, win);
}
