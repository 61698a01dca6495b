// Pure helpers of the bid page: exact currency conversion, dates and the time left.
// No DOM here, so node:test can check them (islands/tests/market-bid.test.mjs).

/**
 * `amount` (whole units) times a decimal rate given as text ("1.024"), rounded up to a whole
 * unit, computed exactly (floating point would turn 185000 x 1.024 into 189440.00000000003).
 */
export function convertUp(amount, rate) {
  const [whole, fraction = ''] = String(rate).trim().split('.');
  const scale = 10n ** BigInt(fraction.length);
  const numerator = BigInt(whole || '0') * scale + BigInt(fraction || '0');
  if (numerator <= 0n) return null;
  const product = BigInt(Math.trunc(Number(amount) || 0)) * numerator;
  const result = product / scale + (product % scale > 0n ? 1n : 0n);
  return Number(result);
}

/**
 * The amount a sales price (in the advert's currency) comes to in each currency of the
 * currencies call. Spec 02 section 4: the same currency gives the bid itself; others give it
 * times the rate, rounded up. When the price is still the chosen bidder's own bid, the
 * bidder's currency shows exactly what they bid.
 */
export function amountsPerCurrency(price, rates, bidder) {
  return (rates || []).map((row) => {
    let value = convertUp(price, row.exchangeRate);
    if (bidder && row.currency === bidder.currency && price === bidder.advertAmount) {
      value = bidder.bid;
    }
    return { currency: row.currency, exchangeRate: row.exchangeRate, amount: value };
  });
}

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
