// Pure helpers of exact currency conversion: the seller's allocate form, and the bidder's
// confirmation in the advert's currency. No DOM here, so node:test can check them (islands/tests/market-bid.test.mjs).

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

/**
 * `amount` in another currency expressed in the advert's, at a rate given as text (what 1 of
 * the advert's currency is worth there), rounded down exactly as the server books a bid.
 */
export function convertBack(amount, rate) {
  const [whole, fraction = ''] = String(rate).trim().split('.');
  const scale = 10n ** BigInt(fraction.length);
  const numerator = BigInt(whole || '0') * scale + BigInt(fraction || '0');
  if (numerator <= 0n) return null;
  return Number((BigInt(Math.trunc(Number(amount) || 0)) * scale) / numerator);
}
