// Exchange rates: a page to see those in force, enter one and import the ECB's, and
// the notice of a conversion a page's totals lack.
import * as api from './api.js';
import { t, money, day, today } from './i18n.js';
import { h, field, form, fieldError, toast, table, empty, section } from './ui.js';

// rateNotice names each conversion with no rate in force, with the last one known,
// and links to the rates page.
export function rateNotice(missing) {
  if (!missing || !missing.length) return '';
  return h('div', { class: 'card notice', role: 'status', 'data-testid': 'rate-notice' },
    h('ul', {}, missing.map((m) => h('li', {}, `${m.from} → ${m.to}: ${t('no exchange rate in force')}.`,
      m.lastKnown ? ` ${t('Last known')}: ${m.lastKnown.rate} (${day(m.lastKnown.date)}).` : ''))),
    h('a', { href: '/app/rates', 'data-link': true }, t('See and set exchange rates')));
}

// monthStats are a month's income and expenses per currency (if not all the
// workspace's) and, where every rate is in force, in the workspace's currency.
export function monthStats(s, incomeLabel, expensesLabel) {
  const stat = (label, amount, currency, cls, id) => h('div', { class: 'stat', 'data-testid': id },
    h('span', {}, label), h('strong', { class: cls }, money(amount, currency)));
  const single = s.byCurrency.every((c) => c.currency === s.currency);
  return [single ? [] : s.byCurrency.flatMap((c) => [stat(`${t('Income')} · ${c.currency}`, c.income, c.currency, 'in', 'income-' + c.currency),
    stat(`${t('Expense')} · ${c.currency}`, c.expenses, c.currency, 'out', 'expenses-' + c.currency)]),
  s.totalIncome === null ? [] : [stat(incomeLabel, s.totalIncome, s.currency, 'in', 'income-total'),
    stat(expensesLabel, s.totalExpenses, s.currency, 'out', 'expenses-total')]].flat();
}

// sources name where a rate comes from.
const sources = { manual: 'Entered by hand', ecb: 'ECB', 'ecb-snapshot': 'ECB, shipped history' };

async function ratesPage(main) {
  const draw = async () => {
    const r = await api.get('/api/exchange-rates');
    const done = async () => { toast(t('Saved.')); await draw(); };
    // The fields are named by the API's paths, so that its errors land on them.
    const enter = form([
      field({ name: 'rates[0].base', label: t('From'), required: true, maxlength: 3 }),
      field({ name: 'rates[0].quote', label: t('To'), required: true, maxlength: 3 }),
      field({ name: 'rates[0].rate', label: t('Rate'), required: true, inputmode: 'decimal' }),
      field({ name: 'date', label: t('Date'), type: 'date', value: today() }),
    ], t('Save'), async (v) => {
      // Up to 15 digits, a JSON number spells the rate exactly as typed.
      const rate = (v['rates[0].rate'] || '').trim();
      if (!/^\d+(\.\d+)?$/.test(rate) || rate.length > 16) throw fieldError('rates[0].rate', t('a decimal with a point, such as 17.25'));
      await api.put('/api/exchange-rates', { date: v.date, rates: [{ base: v['rates[0].base'] || '', quote: v['rates[0].quote'] || '', rate: Number(rate) }] });
      await done();
    }, { 'aria-label': t('Enter a rate') });
    main.replaceChildren(h('h1', {}, t('Exchange rates')), rateNotice(r.missing),
      h('section', { class: 'card', 'aria-labelledby': 'h-force' }, h('h2', { id: 'h-force' }, `${t('In force on')} ${day(r.date)}`),
        r.rates.length ? table([
          [t('From'), (x) => x.base], [t('To'), (x) => x.quote], [t('Rate'), (x) => String(x.rate)],
          [t('Date'), (x) => day(x.date)], [t('Source'), (x) => t(sources[x.source] || x.source)]], r.rates, t('Exchange rates')) : empty(),
        form([], t('Import the ECB\'s rates'), async () => { await api.post('/api/exchange-rates/ecb'); await done(); }, { 'aria-label': t('ECB') })),
      section(t('Enter a rate'), enter));
  };
  await draw();
  return draw;
}

export const pages = { '/app/rates': { title: 'Exchange rates', render: ratesPage } };
