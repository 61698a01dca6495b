// Pure helpers of the bid page: dates, the time left and typed amounts.
// No DOM here, so node:test can check them (islands/tests/market-bid.test.mjs).

/**
 * y-MM-dd HH:mm in the browser's time zone (spec 02 section 9): Swedish short date and time is
 * exactly that pattern, whatever language the page is in. `named`: followed by the zone, as
 * every public page names it (people in several countries read one advert): "(Oslo, CET)".
 */
export function dateTime(iso, named = false) {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const text = d.toLocaleString('sv-SE', { dateStyle: 'short', timeStyle: 'short' });
  return named ? `${text} (${zoneName(d)})` : text;
}

/** The browser's zone at `date` as people say it: its city and its abbreviation ("Oslo, CET"). */
export function zoneName(date, lang = globalThis.document?.documentElement?.lang || 'en-GB') {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  const short = new Intl.DateTimeFormat(lang, { timeZoneName: 'short' })
    .formatToParts(date)
    .find((part) => part.type === 'timeZoneName')?.value;
  const city = zone.includes('/') ? zone.split('/').pop().replaceAll('_', ' ') : '';
  return [city, short || zone].filter(Boolean).join(', ');
}

/** The time left until `iso` as {key, params} for the page texts, or {key: 'ended'}. */
export function timeLeft(iso, now = Date.now()) {
  const ms = new Date(iso).getTime() - now;
  if (!(ms > 0)) return { key: 'ended', params: {} };
  const minutes = Math.floor(ms / 60000);
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  if (days > 0) return { key: 'timeLeftDays', params: { days, hours } };
  if (hours > 0) return { key: 'timeLeftHours', params: { hours, minutes: minutes % 60 } };
  return { key: 'timeLeftMinutes', params: { minutes: Math.max(minutes, 1) } };
}

/** A typed amount as a whole number, or null: digits with optional spaces only. */
export function parseAmount(text) {
  const clean = String(text ?? '').replace(/\s/g, ''); // \s takes in no-break spaces too
  if (!/^\d{1,12}$/.test(clean)) return null;
  return Number(clean);
}
