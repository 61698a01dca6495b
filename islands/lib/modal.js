// What every modal dialog needs from the page: its turn (one dialog at a time), a portal host of
// its own in <body>, the rest of the page inert and unscrollable while it is open, and the focus
// back where it was afterwards.
import { useEffect, useState, useSyncExternalStore } from 'react';

// The page's dialogs that want to open, in the order they asked (spec 01 section 4: modal
// messages are shown one at a time in a queue; the ranking summary joins the same queue). Only
// the first may show; the next gets its turn when the first lets go.
let waiting = [];
const listeners = new Set();

function notify() {
  for (const fn of listeners) fn();
}

function listen(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

/** Ask for a turn; returns the function that gives it back (or leaves the queue). */
export function requestTurn(token) {
  if (!waiting.includes(token)) {
    waiting = [...waiting, token];
    notify();
  }
  return () => {
    if (!waiting.includes(token)) return;
    waiting = waiting.filter((t) => t !== token);
    notify();
  };
}

/** The token whose dialog may show now, or undefined. */
export function currentTurn() {
  return waiting[0];
}

/**
 * True while `wanted` and it is this component's turn to show its dialog: a component that
 * wants to show one waits until the dialogs that asked before it are closed.
 */
export function useModalTurn(wanted) {
  const [token] = useState(() => Symbol('dialog'));
  useEffect(() => (wanted ? requestTurn(token) : undefined), [wanted, token]);
  const head = useSyncExternalStore(listen, currentTurn, currentTurn);
  return wanted && head === token;
}

/** Make everything except `host` inert while the dialog is open; returns the undo function. */
function isolate(host) {
  const changed = [];
  for (const el of document.body.children) {
    if (el !== host && !el.inert) {
      el.inert = true;
      changed.push(el);
    }
  }
  document.body.classList.add('modal-open');
  return () => {
    for (const el of changed) el.inert = false;
    document.body.classList.remove('modal-open');
  };
}

/**
 * The element to portal a dialog into. While `open` it is in <body> and the page behind is
 * isolated; `onOpen` runs once it is in place (to move the focus into the dialog). On closing,
 * the focus returns to the element that had it when the dialog opened.
 */
export function useModalHost(open, onOpen) {
  const [host] = useState(() => document.createElement('div'));
  useEffect(() => {
    if (!open) return undefined;
    const returnTo = document.activeElement;
    host.className = 'modal-host';
    document.body.append(host);
    const undo = isolate(host);
    onOpen?.();
    return () => {
      undo();
      host.remove();
      if (returnTo instanceof HTMLElement && returnTo.isConnected) returnTo.focus();
    };
  }, [open, host]);
  return host;
}
