// The audit log: who changed what, each change before and after. A module of its own,
// fetched when the page is opened: a page opened rarely does not weigh on every cold
// load (docs/webapp.md, page weight).
import * as api from './api.js';
import { t, term, money, day, moment } from './i18n.js';
import { h, table, empty, pager } from './ui.js';

// The audit log's fields, and the words of those not named by their own ("walletId": "Wallet").
const auditFields = ('amount destinationAmount initialBalance targetAmount totalAmount spent currency date startDate endDate deadline '
  + 'dueDate nextPayment lastPayment description concept name type kind walletId toWalletId categoryId role email creditor '
  + 'period periodicity alertThreshold isDefault active url events scopes prefix expiresAt status cardColor language theme').split(' ');
const fieldWords = { destinationAmount: 'Amount received', targetAmount: 'Target', totalAmount: 'Total', startDate: 'Start',
  endDate: 'End', dueDate: 'Deadline', kind: 'Type', periodicity: 'Frequency', alertThreshold: 'Alert at', isDefault: 'Default',
  url: 'URL', expiresAt: 'Expires', cardColor: 'Colour' };
const fieldLabel = (k) => t(fieldWords[k] || (k[0].toUpperCase() + k.slice(1).replace(/Id$/, '').replace(/[A-Z]/g, (c) => ' ' + c.toLowerCase())));

// auditLine says what an entry did ("Created transaction 'Market'") and each change.
function auditLine(e, names, currency) {
  const c = e.changes || {};
  const cur = (c.currency && (c.currency.after || c.currency.before)) || currency;
  const shown = (k, v) => {
    if (v === null || v === undefined) return '—';
    if (/^amount|Amount$|Balance$|^spent/.test(k)) return money(v, cur);
    if (/[dD]ate$|^deadline|Payment$/.test(k)) return day(String(v));
    if (k === 'expiresAt') return moment(v);
    if (k.endsWith('Id')) return names[v] || String(v).slice(0, 8);
    if (typeof v === 'boolean') return v ? '✓' : '—';
    if (Array.isArray(v) || k === 'prefix') return h('code', {}, [v].flat().join(', '));
    return /^(type|kind|period|periodicity|role|status)$/.test(k) ? term(v) : String(v);
  };
  const named = ['name', 'description', 'concept', 'email'].map((k) => c[k] && (c[k].after || c[k].before)).find(Boolean);
  return [h('strong', {}, `${term(e.action)} ${term(e.entity)}`, named ? ` ‘${named}’` : ''),
    h('ul', { class: 'changes' }, auditFields.filter((k) => c[k]).map((k) => h('li', {}, `${fieldLabel(k)}: `,
      ...(e.action === 'create' ? [shown(k, c[k].after)] : [shown(k, c[k].before), ' → ', shown(k, c[k].after)]))))];
}

export async function render(main, ctx) {
  let page = 1;
  const [{ wallets }, { categories }] = await Promise.all([api.get('/api/wallets'), api.get('/api/categories')]);
  const names = Object.fromEntries([...wallets, ...categories].map((x) => [x.id, x.name]));
  const draw = async () => {
    const res = await api.get(`/api/audit?page=${page}&pageSize=25`);
    const entries = res.entries;
    main.replaceChildren(h('h1', {}, t('Audit log')),
      entries.length ? table([
        [t('When'), (e) => moment(e.occurredAt), 'nowrap'],
        [t('Action'), (e) => h('div', { class: 'audit' }, auditLine(e, names, ctx.workspace.currency))],
        [t('Actor'), (e) => term(e.actorType)],
      ], entries, t('Audit log')) : empty(),
      pager({ page, total: res.pagination.total }, (to) => { page = to; draw(); }));
  };
  await draw();
  return draw;
}
