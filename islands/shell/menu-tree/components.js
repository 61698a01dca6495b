// The menu tree island's components (issue 17), written with createElement so that node's test
// runner loads them as they are. They render exactly the markup templates/macros/nav.html and
// templates/layouts/shell.html print (no white space between tags), so hydrateRoot takes the
// server's first paint over without changing it. Once hydrated, the tree adds the ARIA
// navigation tree roles and the keyboard (arrow keys, Home/End, Escape): attributes only,
// nothing moves.
import {
  createElement as h,
  Fragment,
  useCallback,
  useEffect,
  useLayoutEffect,
  useRef,
  useState,
  useSyncExternalStore,
} from 'react';
import { groupId, initialFocus, keyAction, visibleEntries } from './tree.js';

const NO_COUNTS = { get: () => null, subscribe: () => () => {} };
const WIDE = { get: () => false, subscribe: () => () => {} };

function Separator({ item, enhanced }) {
  return h('li', {
    className: `nav-separator${item.mobileOnly ? ' mobile-only' : ''}`,
    role: enhanced ? 'none' : 'separator',
  });
}

function Logout({ item, tree }) {
  const { enhanced } = tree;
  return h(
    'form',
    {
      method: 'post',
      action: tree.logoutAction,
      className: 'nav-form',
      role: enhanced ? 'none' : undefined,
    },
    h('input', { type: 'hidden', name: 'csrf_token', value: tree.csrfToken }),
    h(
      'button',
      {
        type: 'submit',
        ...tree.itemProps(item.key),
      },
      item.title,
    ),
  );
}

function Entry({ item, level, tree }) {
  const { enhanced, active, expanded } = tree;
  const children = item.children?.length ? item.children : null;
  const open = children ? expanded.has(item.key) : false;
  const shown = tree.counts?.[item.key] ?? (Number.isInteger(item.count)
    ? { count: item.count, label: item.countLabel }
    : null);
  let className = 'nav-item';
  if (active.has(item.key)) className += ' active';
  if (item.mobileOnly) className += ' mobile-only';
  if (children) className += ' has-children';
  const body =
    item.key === 'logout'
      ? [h(Logout, { key: 'form', item, tree })]
      : [
          h(
            'a',
            {
              key: 'link',
              href: item.href,
              'aria-current': item.key === tree.current ? 'page' : undefined,
              'data-nav-leaf': children ? undefined : '',
              onClick: children ? undefined : tree.onLeaf,
              ...tree.itemProps(item.key),
              'aria-expanded': enhanced && children ? open : undefined,
              'aria-owns': enhanced && children ? groupId(item.key) : undefined,
            },
            h('span', { className: 'nav-title' }, item.title),
            shown
              ? h('span', { className: 'nav-count', 'aria-label': shown.label }, String(shown.count))
              : null,
          ),
          children
            ? h(
                'button',
                {
                  key: 'toggle',
                  type: 'button',
                  className: 'nav-expand',
                  'aria-expanded': open,
                  'aria-controls': groupId(item.key),
                  // In the tree the arrow keys open and close groups; the button stays for the mouse.
                  tabIndex: enhanced ? -1 : undefined,
                  'aria-hidden': enhanced ? true : undefined,
                  onClick: () => tree.toggle(item.key),
                },
                h('span', { className: 'visually-hidden' }, item.toggleLabel),
              )
            : null,
          children
            ? h(
                'div',
                {
                  key: 'group',
                  id: groupId(item.key),
                  className: open ? undefined : 'nav-collapsed-group',
                  role: enhanced ? 'group' : undefined,
                },
                h(List, { items: children, level: level + 1, tree }),
              )
            : null,
        ];
  return h(
    Fragment,
    null,
    item.separator ? h(Separator, { item, enhanced }) : null,
    h(
      'li',
      { className, 'data-menu-key': item.key, role: enhanced ? 'none' : undefined },
      ...body,
    ),
  );
}

function List({ items, level, tree, rootProps }) {
  return h(
    'ul',
    {
      className: `nav-list nav-level-${level}`,
      ...(rootProps || { role: tree.enhanced ? 'none' : undefined }),
    },
    items.map((item) => h(Entry, { key: item.key, item, level, tree })),
  );
}

/**
 * The main menu (or, on admin pages, the admin menu with its Back link and heading): the
 * content of <nav class="shell-nav">. Props are app/shell/menu_island.py's "main", plus
 * `counts` (a store of refreshed counts), `mobile` (a store: phone layout?), `onLeaf` and
 * `onEscape` (the shell's phone rules) and `enhance` (false: stay as the server drew it).
 */
export function MainMenu({
  label,
  items = [],
  active: activeKeys = [],
  current = null,
  admin = null,
  logoutAction,
  csrfToken,
  counts = NO_COUNTS,
  mobile = WIDE,
  onLeaf,
  onEscape,
  enhance = true,
}) {
  const [expanded, setExpanded] = useState(() => new Set(activeKeys));
  const [enhanced, setEnhanced] = useState(false);
  const shownCounts = useSyncExternalStore(counts.subscribe, counts.get, counts.get);
  const isMobile = useSyncExternalStore(mobile.subscribe, mobile.get, () => false);
  const rows = visibleEntries(items, expanded, isMobile);
  const [focusKey, setFocusKey] = useState(null);
  const elements = useRef(new Map());
  const pendingFocus = useRef(null);

  // After hydration: the tree's roles and roving tab stop (attributes only).
  useEffect(() => {
    if (enhance) setEnhanced(true);
  }, [enhance]);
  useLayoutEffect(() => {
    const key = pendingFocus.current;
    if (key === null) return;
    pendingFocus.current = null;
    elements.current.get(key)?.focus();
  });

  const tabStop = rows.some((row) => row.key === focusKey) ? focusKey : initialFocus(rows, current);
  const toggle = useCallback((key) => {
    setExpanded((old) => {
      const next = new Set(old);
      if (next.has(key)) next.delete(key);
      else next.add(key);
      return next;
    });
  }, []);

  const onKeyDown = (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const key = event.target?.closest?.('[data-menu-key]')?.dataset.menuKey;
    const action = keyAction(rows, key ?? tabStop, event.key);
    if (!action) return;
    if (action.escape) {
      onEscape?.(event);
      return; // the shell's own Escape (close the phone menu) runs too
    }
    event.preventDefault();
    event.stopPropagation();
    if (action.expand || action.collapse) {
      setExpanded((old) => {
        const next = new Set(old);
        if (action.expand) next.add(action.expand);
        if (action.collapse) next.delete(action.collapse);
        return next;
      });
    }
    if (action.focus) {
      setFocusKey(action.focus);
      pendingFocus.current = action.focus;
      elements.current.get(action.focus)?.focus();
    }
  };

  const tree = {
    enhanced,
    active: new Set(activeKeys),
    current,
    expanded,
    counts: shownCounts,
    logoutAction,
    csrfToken,
    toggle,
    onLeaf,
    itemProps: (key) =>
      enhanced
        ? {
            role: 'treeitem',
            tabIndex: key === tabStop ? 0 : -1,
            onFocus: () => setFocusKey(key),
            ref: (el) => {
              if (el) elements.current.set(key, el);
              else elements.current.delete(key);
            },
          }
        : {},
  };
  const rootProps = enhanced
    ? { role: 'tree', 'aria-label': label, onKeyDown, 'data-nav-root': '', 'data-react': 'menu-tree' }
    : { 'data-nav-root': '' };
  return h(
    Fragment,
    null,
    admin
      ? h('p', { className: 'nav-back' }, h('a', { href: admin.backHref }, `← ${admin.back}`))
      : null,
    admin
      ? h('p', { className: 'nav-heading' }, h('a', { href: admin.headingHref }, admin.heading))
      : null,
    h(List, { items, level: 1, tree, rootProps }),
  );
}

/** Where a key moves the focus in the user menu's list of `count` controls; null: not ours. */
export function userMenuMove(index, count, pressed) {
  if (count === 0) return null;
  if (pressed === 'ArrowDown') return (index + 1) % count;
  if (pressed === 'ArrowUp') return (index - 1 + count) % count;
  if (pressed === 'Home') return 0;
  if (pressed === 'End') return count - 1;
  return null;
}

/**
 * The user menu's entries: the content of <ul data-user-menu> in the header's <details>.
 * Up and Down walk its entries, Escape closes it and gives the focus back to its summary.
 */
export function UserMenu({ items = [], switchLabel = null, logoutLabel, logoutAction, csrfToken }) {
  const onKeyDown = (event) => {
    const list = event.currentTarget.closest('ul');
    const details = list?.closest('details');
    if (event.key === 'Escape' && details) {
      event.preventDefault();
      event.stopPropagation();
      details.open = false;
      details.querySelector('summary')?.focus();
      return;
    }
    const controls = [...list.querySelectorAll('a[href], button')];
    const next = userMenuMove(controls.indexOf(event.target), controls.length, event.key);
    if (next === null) return;
    event.preventDefault();
    controls[next].focus();
  };
  return h(
    Fragment,
    null,
    items.map((item) =>
      h(
        'li',
        { key: item.key, 'data-menu-key': item.key, onKeyDown },
        h('a', { href: item.href }, item.title),
      ),
    ),
    switchLabel
      ? h(
          'li',
          { onKeyDown },
          h(
            'button',
            { type: 'button', className: 'btn-link', 'data-reveal-top-selector': '' },
            switchLabel,
          ),
        )
      : null,
    h(
      'li',
      { onKeyDown },
      h(
        'form',
        { method: 'post', action: logoutAction },
        h('input', { type: 'hidden', name: 'csrf_token', value: csrfToken }),
        h('button', { type: 'submit', className: 'btn-link' }, logoutLabel),
      ),
    ),
  );
}
