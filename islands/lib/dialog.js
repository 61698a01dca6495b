// The one modal dialog of every island: a titled box over the page, portalled into <body>, the
// rest of the page inert, the focus inside while it is open and back where it was afterwards
// (lib/modal.js). Callers wait for their turn first (useModalTurn), so two never show at once.
// createElement, not JSX: the public pages' scripts and node's test runner load it as it is.
import { createElement as h, useId, useRef, useState } from 'react';
import { createPortal } from 'react-dom';
import { useModalHost, useModalTurn } from './modal.js';

/** A modal dialog: `title`, its content, and `actions` (buttons); Escape calls `onEscape`. */
export function Dialog({ title, onEscape, children, actions, className = '' }) {
  const ids = useId();
  const ref = useRef(null);
  const host = useModalHost(true, () => ref.current?.focus());
  const onKeyDown = (event) => {
    if (event.key === 'Escape') {
      event.preventDefault();
      onEscape();
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
          tabIndex: -1,
          onKeyDown,
        },
        h('h2', { id: `${ids}-title`, className: 'modal-title' }, title),
        children,
        h('div', { className: 'form-actions' }, actions),
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
