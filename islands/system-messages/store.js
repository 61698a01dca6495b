// Viewed records of system messages (spec 01 sections 3, 4 and 9): localStorage
// `viewedSystemMessages` holds [{id, createdAt, viewedAt}], createdAt being the message's
// modifiedAt; a message whose modifiedAt differs from its record is unviewed again.

export const VIEWED_KEY = 'viewedSystemMessages';
export const POLL_MS = 5 * 60 * 1000;

function storage() {
  try {
    return globalThis.localStorage ?? null;
  } catch {
    return null;
  }
}

export function readViewed() {
  try {
    const parsed = JSON.parse(storage()?.getItem(VIEWED_KEY) || '[]');
    return Array.isArray(parsed) ? parsed.filter((r) => r && typeof r === 'object') : [];
  } catch {
    return [];
  }
}

export function isViewed(message, records = readViewed()) {
  return records.some((r) => r.id === message.id && r.createdAt === message.modifiedAt);
}

/** Record `message` as viewed (replacing an older record of it); returns the new records. */
export function markViewed(message, now = new Date()) {
  const records = readViewed().filter((r) => r.id !== message.id);
  records.push({ id: message.id, createdAt: message.modifiedAt, viewedAt: now.toISOString() });
  try {
    storage()?.setItem(VIEWED_KEY, JSON.stringify(records));
  } catch {
    // storage full or disabled: the server's record still holds it
  }
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
