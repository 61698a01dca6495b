// The ranking summary's rules (spec 01 sections 4 and 9): shown once per division and season;
// localStorage `viewedTierSummaryMessages` holds [{divisionId, season, viewedAt}]. It runs only
// on item-manage pages or when the stored selected division (`selectedDivisionDropdownValue`)
// names a division, 1000 ms after the division (or the page) changed.

import { readRecords, readStorage, writeRecords } from '../../lib/storage.js';

export const VIEWED_KEY = 'viewedTierSummaryMessages';
export const DIVISION_KEY = 'selectedDivisionDropdownValue';
export const WAIT_MS = 1000;

export function readViewed() {
  return readRecords(VIEWED_KEY);
}

/** The season a summary is about: the current one, else the previous one. */
export function seasonOf(summary) {
  const data = summary?.seasonData || {};
  return data.current?.identifier || data.previous?.identifier || '';
}

export function isViewed(divisionId, season, records = readViewed()) {
  return records.some((r) => r.divisionId === divisionId && r.season === season);
}

/** Mark these divisions viewed for `season`. */
export function markViewed(divisionIds, season, now = new Date()) {
  const ids = new Set(divisionIds);
  const records = readViewed().filter((r) => !(ids.has(r.divisionId) && r.season === season));
  for (const divisionId of ids) {
    records.push({ divisionId, season, viewedAt: now.toISOString() });
  }
  writeRecords(VIEWED_KEY, records); // if storage fails, the summary may show again
  return records;
}

/** The division id a stored selector value names ('division-12' → 12), else null. */
export function divisionFromValue(value) {
  if (typeof value !== 'string' || !value.includes('division')) return null;
  const match = /division-(\d+)/.exec(value);
  return match ? Number(match[1]) : null;
}

export function storedDivisionValue() {
  return readStorage(DIVISION_KEY);
}

/** Which division the summary is about on this page, or null when it must not run. */
export function divisionToShow({ manageDivisionId = null, storedValue = storedDivisionValue() }) {
  if (manageDivisionId) return manageDivisionId;
  return divisionFromValue(storedValue);
}
