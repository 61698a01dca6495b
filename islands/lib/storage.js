// localStorage that never throws: storage may be disabled (private mode, policy) or full, and a
// page must work on without it.

export function readStorage(key) {
  try {
    return globalThis.localStorage?.getItem(key) ?? null;
  } catch {
    return null;
  }
}

export function writeStorage(key, value) {
  try {
    globalThis.localStorage?.setItem(key, value);
  } catch {
    // disabled or full: what was to be remembered is asked for again next time
  }
}

/** A stored JSON list of records (objects); [] when missing or unreadable. */
export function readRecords(key) {
  try {
    const parsed = JSON.parse(readStorage(key) || '[]');
    return Array.isArray(parsed) ? parsed.filter((r) => r && typeof r === 'object') : [];
  } catch {
    return [];
  }
}

export function writeRecords(key, records) {
  writeStorage(key, JSON.stringify(records));
}
