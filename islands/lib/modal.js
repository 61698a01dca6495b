// What every modal dialog needs from the page: a portal host of its own in <body>, the rest of
// the page inert and unscrollable while it is open, and the focus back where it was afterwards.
import { useEffect, useState } from 'react';

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
