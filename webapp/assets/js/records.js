// A wallet's page (its transactions, the balance after each, cleared marks) and the
// export of the workspace's records.
import * as api from './api.js';
import { t, money, day } from './i18n.js';
import { h, table, empty, signed, toast, pager } from './ui.js';

async function walletPage(main, ctx) {
  let page = 1;
  const draw = async () => {
    const [{ wallet: w }, res] = await Promise.all([api.get('/api/wallets/' + ctx.id),
      api.get(`/api/transactions?walletId=${ctx.id}&pageSize=25&page=${page}`)]);
    // A transfer out is money out, one in is money in, in the wallet's currency.
    const own = (tx) => tx.type !== 'transfer' ? tx : tx.walletId === w.id ? { ...tx, type: 'expense' }
      : { ...tx, type: 'income', amount: tx.destinationAmount ?? tx.amount, currency: w.currency };
    const mark = (tx) => (e) => api.patch('/api/transactions/' + tx.id, { cleared: e.target.checked })
      .catch((err) => { e.target.checked = !e.target.checked; toast(err.message); });
    main.replaceChildren(h('h1', {}, w.name), h('p', {}, t('Balance') + ': ' + money(w.balance, w.currency)),
      res.transactions.length ? table([
        [t('Date'), (tx) => day(tx.date)],
        [t('Description'), (tx) => tx.description || '—'],
        [t('Amount'), (tx) => signed(own(tx))],
        [t('Balance'), (tx) => h('span', { 'data-running': tx.id }, money(tx.runningBalance, w.currency))],
        [t('Cleared'), (tx) => h('input', { type: 'checkbox', checked: tx.cleared, 'data-cleared': tx.id,
          'aria-label': `${t('Cleared')}: ${tx.description || day(tx.date)}`, onchange: mark(tx) })],
      ], res.transactions, w.name) : empty(),
      pager({ page, total: res.pagination.total }, (to) => { page = to; draw(); }));
  };
  await draw();
  return draw;
}

// exportSection offers owners and admins (the API's team:manage) a zip of every record.
export const exportSection = (ctx) => !['owner', 'admin'].includes(ctx.workspace.role) ? ''
  : h('section', { class: 'card narrow', 'aria-label': t('Export all data') },
    h('button', { type: 'button', onclick: () => api.download('/api/export', 'finledger.zip').catch((e) => toast(e.message)) }, t('Export all data')));

export const pages = { '/app/wallets/:id': { title: 'Wallet', render: walletPage } };
