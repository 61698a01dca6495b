// The one modal dialog of every island (system messages, the ranking summary, the sign-in
// dialog, the widget editor, confirmations): a titled box over the page, portalled into <body>,
// the rest of the page inert, the focus inside while it is open and back where it was afterwards
// (lib/modal.js). Callers wait for their turn first (useModalTurn), so two never show at once;
// only the sign-in dialog does not wait, as nothing on the page works until it is answered.
// createElement, not JSX: the public pages' scripts and node's test runner load it as it is.
import { createElement as h, useId, useRef, useState } from 'react';
import { createPortal } from 'react-dom';
import { useModalHost, useModalTurn } from './modal.js';

const FOCUSABLE =
  'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), ' +
  'textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/** Tab and Shift+Tab go round inside `box`: from its last focusable element to its first. */
function keepFocusIn(box, event) {
  const items = Array.from(box.querySelectorAll(FOCUSABLE));
  if (!items.length) {
    event.preventDefault();
    return;
  }
  const first = items[0];
  const last = items[items.length - 1];
  const inside = box.contains(document.activeElement);
  if (event.shiftKey && (!inside || document.activeElement === first)) {
    event.preventDefault();
    last.focus();
  } else if (!event.shiftKey && (!inside || document.activeElement === last)) {
    event.preventDefault();
    first.focus();
  }
}

/**
 * A modal dialog: `title`, a `description` under it (read out with the title), its content,
 * and `actions` (buttons; a dialog whose buttons are in its own form leaves them out). Escape
 * calls `onEscape`; without one Escape is no way out. `onOpen` moves the focus in once the
 * dialog shows (to the box itself without one); `trapFocus` keeps Tab going round inside.
 */
export function Dialog({
  title,
  description,
  onEscape,
  onOpen,
  trapFocus = false,
  children,
  actions,
  className = '',
}) {
  const ids = useId();
  const ref = useRef(null);
  const host = useModalHost(true, () => (onOpen ? onOpen() : ref.current?.focus()));
  const onKeyDown = (event) => {
    if (event.key === 'Escape') {
      event.preventDefault();
      if (onEscape) onEscape();
      else event.stopPropagation();
    } else if (event.key === 'Tab' && trapFocus) {
      keepFocusIn(ref.current, event);
    }
  };
  return createPortal(
    h(
      'div',
      { className: 'modal-backdrop' },
      h(
        'div',
        {
          ref,
          className: `modal ${className}`.trim(),
          role: 'dialog',
          'aria-modal': 'true',
          'aria-labelledby': `${ids}-title`,
          'aria-describedby': description ? `${ids}-text` : undefined,
          tabIndex: -1,
          onKeyDown,
        },
        h('h2', { id: `${ids}-title`, className: 'modal-title' }, title),
        description ? h('p', { id: `${ids}-text` }, description) : null,
        children,
        actions === undefined ? null : h('div', { className: 'form-actions' }, actions),
      ),
    ),
    host,
  );
}

/**
 * A question to confirm before an action that binds: `ask({title, lines, confirm, cancel})`
 * returns a promise of true (confirmed) or false (cancelled, or Escape); `dialog` is the element
 * to render, null until the question has its turn in the page's dialog queue.
 */
export function useConfirm() {
  const [question, setQuestion] = useState(null);
  const myTurn = useModalTurn(question !== null);
  const ask = (next) => new Promise((resolve) => setQuestion({ ...next, resolve }));
  const answer = (yes) => {
    question?.resolve(yes);
    setQuestion(null);
  };
  const dialog = myTurn
    ? h(
        Dialog,
        {
          title: question.title,
          className: 'confirm-modal',
          onEscape: () => answer(false),
          actions: [
            h('button', { key: 'yes', type: 'button', className: 'btn btn-primary', onClick: () => answer(true) }, question.confirm),
            h('button', { key: 'no', type: 'button', className: 'btn btn-secondary', onClick: () => answer(false) }, question.cancel),
          ],
        },
        question.lines.map((line) => h('p', { key: line }, line)),
      )
    : null;
  return { dialog, ask };
}
