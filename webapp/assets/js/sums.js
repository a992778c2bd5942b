// Exact sums of money: amounts become whole numbers of ten-thousandths (BigInt), so no
// binary fraction ever enters a total. Rates are kept to eight decimal places.

const rateScale = 100000000n;

// units reads a decimal amount (a number as the API sent it, or a string) as BigInt at
// the given scale; it rounds half away from zero past the scale's places.
export function units(value, places = 4) {
  let s = typeof value === 'number' ? numberText(value) : String(value).trim();
  const negative = s.startsWith('-');
  if (negative) s = s.slice(1);
  const [whole, frac = ''] = s.split('.');
  const padded = (frac + '0'.repeat(places + 1)).slice(0, places + 1);
  let n = BigInt(whole || '0') * 10n ** BigInt(places) + BigInt(padded.slice(0, places) || '0');
  if (Number(padded[places]) >= 5) n += 1n;
  return negative ? -n : n;
}

// numberText spells a number the way the API's JSON did: the shortest text that reads
// back as the same number, without an exponent.
function numberText(n) {
  const s = String(n);
  if (!/e/i.test(s)) return s;
  return n.toFixed(20).replace(/\.?0+$/, '');
}

// text spells units at a scale as a decimal string with the given places.
export function text(n, places = 4, shown = 2) {
  const negative = n < 0n;
  if (negative) n = -n;
  const drop = 10n ** BigInt(places - shown);
  let q = n / drop;
  if ((n % drop) * 2n >= drop) q += 1n;
  const base = 10n ** BigInt(shown);
  const frac = String(q % base).padStart(shown, '0');
  return (negative ? '-' : '') + String(q / base) + (shown ? '.' + frac : '');
}

// totals sums [amount, currency] pairs per currency and, when every currency has a rate
// to the target, into one total in the target currency. Amounts in the result are
// decimal strings with two places.
export function totals(pairs, rates, target) {
  const per = new Map();
  for (const [amount, currency] of pairs) per.set(currency, (per.get(currency) || 0n) + units(amount));
  const perCurrency = [...per.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([c, n]) => [c, text(n)]);
  let total = 0n; // twelve places: an amount's four times a rate's eight
  let complete = per.size > 0;
  for (const [currency, n] of per) {
    const rate = currency === target ? rateScale : rateOf(rates, currency, target);
    if (rate === null) { complete = false; break; }
    total += n * rate;
  }
  return { perCurrency, total: complete ? text(total, 12) : null };
}

function rateOf(rates, from, to) {
  const direct = rates.find((r) => r.base === from && r.quote === to);
  if (direct) return units(direct.rate, 8);
  const inverse = rates.find((r) => r.base === to && r.quote === from);
  if (inverse) {
    const r = units(inverse.rate, 8);
    return r === 0n ? null : (rateScale * rateScale + r / 2n) / r;
  }
  // Across the euro, as the API converts.
  if (from === 'EUR' || to === 'EUR') return null;
  const a = rateOf(rates, from, 'EUR');
  const b = a === null ? null : rateOf(rates, 'EUR', to);
  return b === null ? null : (a * b + rateScale / 2n) / rateScale;
}
