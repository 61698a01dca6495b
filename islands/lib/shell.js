// Enhancers for the server-rendered page frame (plain markup, no React):
// - .menu-toggle / [data-nav-toggle]: below 640px opens and closes the off-canvas menu
//   (.app.nav-open); on wider screens collapses and expands it (.app.nav-collapsed).
// - [data-reload]: reloads the page (the new-version banner's button).
// - [data-new-version-banner]: unhidden when the api client reports a new version.
// - [data-go-back]: the error page's link; see goBack().

import { MOBILE_QUERY, showNewVersionBanner } from './menu.js';

const TOGGLES = '.menu-toggle, [data-nav-toggle]';

function app() {
  return document.querySelector('.app');
}

function isMobile() {
  return window.matchMedia(MOBILE_QUERY).matches;
}

function setExpanded(expanded) {
  for (const toggle of document.querySelectorAll(TOGGLES)) {
    toggle.setAttribute('aria-expanded', String(expanded));
  }
}

function syncExpanded() {
  const frame = app();
  if (!frame) return;
  setExpanded(
    isMobile() ? frame.classList.contains('nav-open') : !frame.classList.contains('nav-collapsed'),
  );
}

function toggleNav() {
  const frame = app();
  if (!frame) return;
  if (!isMobile()) {
    setExpanded(!frame.classList.toggle('nav-collapsed'));
    return;
  }
  const open = frame.classList.toggle('nav-open');
  setExpanded(open);
  if (open) frame.querySelector('.shell-nav a[href], .shell-nav button')?.focus();
}

function closeMobileNav(returnFocus) {
  const frame = app();
  if (!frame || !frame.classList.contains('nav-open')) return;
  frame.classList.remove('nav-open');
  setExpanded(false);
  if (returnFocus) document.querySelector(TOGGLES)?.focus();
}

/**
 * Spec 01, error page: go back two entries in history (past the page that failed), or follow the
 * link's own href (the root) when the history is too short for that. A click that asks for a new
 * tab or window keeps the browser's behaviour.
 */
export function goBack(event, win = window) {
  if (event.defaultPrevented || event.button > 0) return;
  if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  if (win.history.length > 2) {
    event.preventDefault();
    win.history.go(-2);
  }
}

/** Wire the page frame's plain-markup controls; call once per page. */
export function enhanceShell() {
  document.addEventListener('click', (event) => {
    const target = event.target instanceof Element ? event.target : null;
    if (!target) return;
    if (target.closest(TOGGLES)) {
      event.preventDefault(); // a toggle may be <a href="#shell-nav"> for pages without JS
      toggleNav();
    } else if (target.closest('[data-go-back]')) {
      goBack(event);
    } else if (target.closest('[data-reload]')) {
      event.preventDefault();
      window.location.reload();
    } else if (!target.closest('.shell-nav')) {
      closeMobileNav(false);
    }
  });
  document.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') closeMobileNav(true);
  });
  window.matchMedia(MOBILE_QUERY).addEventListener('change', syncExpanded);
  window.addEventListener('cc:new-version', () => showNewVersionBanner());
  syncExpanded();
}
