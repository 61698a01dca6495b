// Viewed records of system messages (spec 01 sections 3, 4 and 9): localStorage
// `viewedSystemMessages` holds [{id, createdAt, viewedAt}], createdAt being the message's
// modifiedAt; a message whose modifiedAt differs from its record is unviewed again.

import { readRecords, writeRecords } from '../../lib/storage.js';

export const VIEWED_KEY = 'viewedSystemMessages';
export const POLL_MS = 5 * 60 * 1000;

export function readViewed() {
  return readRecords(VIEWED_KEY);
}

export function isViewed(message, records = readViewed()) {
  return records.some((r) => r.id === message.id && r.createdAt === message.modifiedAt);
}

/** Record `message` as viewed (replacing an older record of it); returns the new records. */
export function markViewed(message, now = new Date()) {
  const records = readViewed().filter((r) => r.id !== message.id);
  records.push({ id: message.id, createdAt: message.modifiedAt, viewedAt: now.toISOString() });
  writeRecords(VIEWED_KEY, records); // if storage fails, the server's record still holds it
  return records;
}

/** The alert type a message is shown as: the known types; rankingSummary as info; else danger. */
export function alertTypeOf(type) {
  if (type === 'rankingSummary') return 'info';
  return ['info', 'warning', 'success'].includes(type) ? type : 'danger';
}

/** A message's identity for one version: a changed modifiedAt is a new version. */
export function versionKey(message) {
  return `${message.id}@${message.modifiedAt}`;
}

/** Text of an HTML description (for its length). */
export function textLength(html) {
  return String(html || '')
    .replace(/<[^>]*>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim().length;
}

export const LONG_DESCRIPTION = 400;
