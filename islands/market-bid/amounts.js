// Pure helpers of the bid page: dates, the time left and typed amounts.
// No DOM here, so node:test can check them (islands/tests/market-bid.test.mjs).

const pad = (n) => String(n).padStart(2, '0');

/** y-MM-dd HH:mm in the browser's time zone (spec 02 section 9). */
export function dateTime(iso) {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
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
  const clean = String(text ?? '').replace(/[\s\u00a0]/g, '');
  if (!/^\d{1,12}$/.test(clean)) return null;
  return Number(clean);
}
