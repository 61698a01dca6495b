// The menu tree's pure rules (issue 17): which entries a keyboard can reach, where each key
// moves the focus, and the counts a refresh brings. No DOM, no React: tested in node.

/** The group element id of an entry, as templates/macros/nav.html writes it. */
export function groupId(key) {
  return `nav-${key.replaceAll('.', '-')}`;
}

/**
 * The entries a keyboard walks, in reading order: every entry of an expanded group, not the
 * phone-only entries on a wide screen. Each row: { key, parent, level, hasChildren }.
 */
export function visibleEntries(items, expanded, mobile, parent = null, level = 1) {
  const rows = [];
  for (const item of items) {
    if (item.mobileOnly && !mobile) continue;
    const hasChildren = Boolean(item.children?.length);
    rows.push({ key: item.key, parent, level, hasChildren });
    if (hasChildren && expanded.has(item.key)) {
      rows.push(...visibleEntries(item.children, expanded, mobile, item.key, level + 1));
    }
  }
  return rows;
}

/**
 * What a key does on the focused entry `key` (the ARIA navigation tree pattern):
 * { focus: key } moves the focus, { expand: key } or { collapse: key } opens or closes a
 * group (with { focus } when the focus moves too), { escape: true } leaves the tree
 * (on a phone the shell closes the menu); null: the key is not the tree's.
 */
export function keyAction(rows, key, pressed) {
  const index = rows.findIndex((row) => row.key === key);
  if (index < 0) return rows.length && ['ArrowDown', 'Home'].includes(pressed) ? { focus: rows[0].key } : null;
  const row = rows[index];
  switch (pressed) {
    case 'ArrowDown':
      return index + 1 < rows.length ? { focus: rows[index + 1].key } : { focus: key };
    case 'ArrowUp':
      return index > 0 ? { focus: rows[index - 1].key } : { focus: key };
    case 'Home':
      return { focus: rows[0].key };
    case 'End':
      return { focus: rows[rows.length - 1].key };
    case 'ArrowRight': {
      if (!row.hasChildren) return { focus: key };
      const next = rows[index + 1];
      if (next && next.parent === key) return { focus: next.key };
      return { expand: key, focus: key };
    }
    case 'ArrowLeft': {
      const next = rows[index + 1];
      if (row.hasChildren && next && next.parent === key) return { collapse: key, focus: key };
      return row.parent ? { focus: row.parent } : { focus: key };
    }
    case 'Escape':
      return row.parent ? { collapse: row.parent, focus: row.parent } : { escape: true };
    default:
      return null;
  }
}

/** The first entry a Tab reaches: the current page's, else the first visible one. */
export function initialFocus(rows, current) {
  if (current && rows.some((row) => row.key === current)) return current;
  return rows[0]?.key ?? null;
}

/**
 * The counts to show after a refresh: the call's answer ({ counts: { key: { count, label } } })
 * for the entries that carry a count. Anything unreadable keeps what is shown.
 */
export function mergeCounts(shown, answer) {
  const fresh = answer && typeof answer === 'object' ? answer.counts : null;
  if (!fresh || typeof fresh !== 'object') return shown;
  let changed = false;
  const next = { ...shown };
  for (const [key, value] of Object.entries(fresh)) {
    if (!value || !Number.isInteger(value.count) || typeof value.label !== 'string') continue;
    const old = shown[key];
    if (old && old.count === value.count && old.label === value.label) continue;
    next[key] = { count: value.count, label: value.label };
    changed = true;
  }
  return changed ? next : shown;
}

/** The counts the server drew, by entry key. */
export function initialCounts(items, found = {}) {
  for (const item of items) {
    if (Number.isInteger(item.count)) found[item.key] = { count: item.count, label: item.countLabel };
    if (item.children) initialCounts(item.children, found);
  }
  return found;
}
