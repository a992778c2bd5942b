// The pages people use most: the overview with the quick form, transactions, wallets,
// budgets and categories. Each page's render draws it and returns the function that
// draws it again when the workspace changes elsewhere.
import * as api from './api.js';
import { t, term, money, day, today, monthName } from './i18n.js';
import { h, field, amountField, form, decimal, fieldError, toast, progress, signed, table, empty, dialog } from './ui.js';
import { totals } from './sums.js';
import { rateNotice, monthStats } from './rates.js';

// lookups are the workspace's wallets and categories, read once per drawing.
async function lookups() {
  const [w, c] = await Promise.all([api.get('/api/wallets'), api.get('/api/categories')]);
  return { wallets: w.wallets, categories: c.categories };
}

const byId = (list) => Object.fromEntries(list.map((x) => [x.id, x]));

// recordForm is the quick form to record an income, an expense or a transfer. Each
// submission carries an idempotency key, so a double click records once.
export function recordForm({ wallets, categories }, onDone) {
  const walletOptions = wallets.map((w) => [w.id, `${w.name} (${w.currency})`]);
  const defaultWallet = (wallets.find((w) => w.isDefault) || wallets[0] || {}).id;
  const typeField = field({ name: 'type', label: t('Type'), type: 'select', value: 'expense',
    options: [['expense', t('Expense')], ['income', t('Income')], ['transfer', t('Transfer')]] });
  const toWallet = field({ name: 'destinationWalletId', label: t('To wallet'), type: 'select', options: walletOptions });
  const category = field({ name: 'categoryId', label: t('Category'), type: 'select',
    options: categories.map((c) => [c.id, c.name]) });
  let key = crypto.randomUUID();
  const f = form([
    typeField,
    amountField('amount', t('Amount')),
    field({ name: 'walletId', label: t('Wallet'), type: 'select', options: walletOptions, value: defaultWallet }),
    category, toWallet,
    field({ name: 'description', label: t('Description'), maxlength: 255 }),
    field({ name: 'date', label: t('Date'), type: 'date', value: today() }),
  ], t('Record'), async (v, el) => {
    const amount = decimal(v.amount || '');
    if (amount === null || amount <= 0) throw fieldError('amount', 'a positive amount with at most two decimals');
    const body = { type: v.type, amount, walletId: v.walletId, description: v.description, date: v.date };
    if (v.type === 'transfer') body.destinationWalletId = v.destinationWalletId;
    else body.categoryId = v.categoryId;
    await api.post('/api/transactions', body, { 'Idempotency-Key': key });
    key = crypto.randomUUID();
    el.querySelector('[name=amount]').value = '';
    el.querySelector('[name=description]').value = '';
    toast(t('Recorded.'));
    onDone();
  }, { class: 'form record', 'aria-label': t('Record') });
  const sync = () => {
    const transfer = typeField.querySelector('select').value === 'transfer';
    toWallet.hidden = !transfer;
    category.hidden = transfer;
  };
  typeField.querySelector('select').addEventListener('change', sync);
  sync();
  return f;
}

// recordOrSetup is the quick form, or the links to what it needs first: a wallet and a
// category.
export function recordOrSetup(look, onDone) {
  if (look.wallets.length && look.categories.length) return recordForm(look, onDone);
  return h('ul', {},
    look.wallets.length ? null : h('li', {}, h('a', { href: '/app/wallets', 'data-link': true }, t('New wallet'))),
    look.categories.length ? null : h('li', {}, h('a', { href: '/app/categories', 'data-link': true }, t('New category'))));
}

// walletTotals shows the balance per currency and, where today's rates convert them,
// the workspace's total in its currency.
async function walletTotals(wallets, workspace) {
  let rates = [];
  try { rates = (await api.get('/api/exchange-rates')).rates; } catch { rates = []; }
  const sum = totals(wallets.map((w) => [w.balance, w.currency]), rates, workspace.currency);
  return h('div', { class: 'totals' },
    sum.perCurrency.map(([cur, amount]) => h('div', { class: 'stat' }, h('span', {}, t('Total') + ' ' + cur), h('strong', {}, money(amount, cur)))),
    sum.total === null ? null
      : h('div', { class: 'stat total', 'data-testid': 'workspace-total' }, h('span', {}, t('Workspace total')), h('strong', {}, money(sum.total, workspace.currency))));
}

function walletCards(wallets) {
  if (!wallets.length) return empty();
  return h('ul', { class: 'cards' }, wallets.map((w) => h('li', { class: 'card wallet', 'data-wallet': w.name },
    h('span', { class: 'chip', style: { background: /^#[0-9a-f]{6}$/i.test(w.cardColor || '') ? w.cardColor : '#0f6e56' } }),
    h('h3', {}, w.name, w.isDefault ? h('small', {}, ' · ' + t('Default')) : null),
    h('p', { class: 'balance', 'data-testid': 'balance' }, money(w.balance, w.currency)))));
}

function budgetBars(budgets, categories) {
  if (!budgets.length) return empty();
  const cats = byId(categories);
  return h('ul', { class: 'budgets' }, budgets.map((b) => h('li', { class: 'budget', 'data-budget': b.name },
    h('div', { class: 'row' }, h('strong', {}, b.name), h('span', {}, (cats[b.categoryId] || {}).name || '')),
    progress(b.percentage, `${b.name}: ${Math.round(b.percentage)}%`, b.percentage >= b.alertThreshold),
    h('p', { class: 'muted' }, `${money(b.spent, b.currency)} ${t('spent of')} ${money(b.amount, b.currency)} · ${money(b.remaining, b.currency)} ${t('remaining')}`))));
}

async function overview(main, ctx) {
  const draw = async () => {
    const month = today().slice(0, 7);
    const [look, budgets, summary, recent] = await Promise.all([lookups(), api.get('/api/budgets'),
      api.get('/api/reports/monthly-summary?month=' + month), api.get('/api/transactions?pageSize=5')]);
    const cats = byId(look.categories);
    const wallets = byId(look.wallets);
    main.replaceChildren(
      h('h1', {}, t('Overview')),
      h('div', { class: 'grid' },
        h('section', { class: 'card', 'aria-labelledby': 'h-record' }, h('h2', { id: 'h-record' }, t('Record')),
          recordOrSetup(look, draw)),
        h('section', { class: 'card', 'aria-labelledby': 'h-month' }, h('h2', { id: 'h-month' }, monthName(month)),
          h('div', { class: 'totals' }, monthStats(summary, t('Income this month'), t('Expenses this month'))),
          rateNotice(summary.missingRates),
          h('h3', {}, t('Transactions')),
          recent.transactions.length ? h('ul', { class: 'recent' }, recent.transactions.map((tx) => h('li', {},
            h('span', {}, tx.description || (cats[tx.categoryId] || {}).name || term(tx.type)),
            h('span', { class: 'muted' }, (wallets[tx.walletId] || {}).name || ''), signed(tx)))) : empty())),
      h('section', { 'aria-labelledby': 'h-wallets' }, h('h2', { id: 'h-wallets' }, t('Wallets')), walletCards(look.wallets),
        await walletTotals(look.wallets, ctx.workspace)),
      h('section', { 'aria-labelledby': 'h-budgets' }, h('h2', { id: 'h-budgets' }, t('Budgets')), budgetBars(budgets.budgets, look.categories)));
  };
  await draw();
  return draw;
}

async function walletsPage(main, ctx) {
  const draw = async () => {
    const { wallets } = await api.get('/api/wallets');
    const create = form([
      field({ name: 'name', label: t('Name'), required: true, maxlength: 100 }),
      field({ name: 'type', label: t('Type'), type: 'select', value: 'cash',
        options: ['cash', 'card', 'bank_account', 'digital_wallet'].map((k) => [k, term(k)]) }),
      field({ name: 'currency', label: t('Currency'), value: ctx.workspace.currency, maxlength: 3 }),
      field({ name: 'balance', label: t('Initial balance'), inputmode: 'decimal', value: '0' }),
    ], t('Create'), async (v) => {
      const balance = decimal(v.balance || '0');
      if (balance === null) throw fieldError('balance', 'an amount with at most two decimals');
      await api.post('/api/wallets', { name: v.name, type: v.type, currency: (v.currency || '').toUpperCase(), balance, isDefault: wallets.length === 0 });
      toast(t('Saved.'));
      await draw();
    }, { 'aria-label': t('New wallet') });
    main.replaceChildren(h('h1', {}, t('Wallets')), walletCards(wallets), await walletTotals(wallets, ctx.workspace),
      h('section', { class: 'card narrow', 'aria-labelledby': 'h-new' }, h('h2', { id: 'h-new' }, t('New wallet')), create));
  };
  await draw();
  return draw;
}

// pendingDeletes are deletions waiting out their undo time; leaving the page sends them.
const pendingDeletes = new Map();
window.addEventListener('pagehide', () => {
  for (const [id, run] of pendingDeletes) { pendingDeletes.delete(id); run(true); }
});

// listingPath is the API's listing for the page's query and a page number.
function listingPath(page) {
  const q = new URLSearchParams(location.search);
  q.set('page', String(page));
  q.set('pageSize', '25');
  return '/api/transactions?' + q;
}

async function transactionsPage(main) {
  const params = new URLSearchParams(location.search);
  let page = Number(params.get('page')) || 1;
  // The first page is asked for beside the wallets and categories, not after them.
  let [look, first] = await Promise.all([lookups(), api.get(listingPath(page))]);
  const filters = form([
    field({ name: 'type', label: t('Type'), type: 'select', value: params.get('type') || '',
      options: [['', t('All')], ['expense', t('Expense')], ['income', t('Income')], ['transfer', t('Transfer')]] }),
    field({ name: 'walletId', label: t('Wallet'), type: 'select', value: params.get('walletId') || '',
      options: [['', t('All')], ...look.wallets.map((w) => [w.id, w.name])] }),
    field({ name: 'categoryId', label: t('Category'), type: 'select', value: params.get('categoryId') || '',
      options: [['', t('All')], ...look.categories.map((c) => [c.id, c.name])] }),
    field({ name: 'from', label: t('From'), type: 'date', value: params.get('from') || '' }),
    field({ name: 'to', label: t('To'), type: 'date', value: params.get('to') || '' }),
    field({ name: 'search', label: t('Search'), type: 'search', value: params.get('search') || '', maxlength: 200 }),
  ], t('Apply'), async (v) => {
    const q = new URLSearchParams(v);
    history.replaceState(null, '', '/app/transactions' + (q.toString() ? '?' + q : ''));
    await drawList(1);
  }, { class: 'form filters', 'aria-label': t('Filters') });
  const list = h('div', { class: 'list' });

  async function drawList(p = page) {
    page = p;
    const res = first || await api.get(listingPath(page));
    first = null;
    const cats = byId(look.categories);
    const wallets = byId(look.wallets);
    const rows = res.transactions.filter((tx) => !pendingDeletes.has(tx.id));
    const pages = Math.max(1, Math.ceil(res.pagination.total / res.pagination.limit));
    const pager = h('nav', { class: 'pager', 'aria-label': t('Page') },
      h('button', { type: 'button', disabled: page <= 1, onclick: () => drawList(page - 1) }, t('Previous')),
      h('span', {}, `${t('Page')} ${page} ${t('of')} ${pages} · ${res.pagination.total}`),
      h('button', { type: 'button', disabled: page >= pages, onclick: () => drawList(page + 1) }, t('Next')));
    list.replaceChildren(rows.length ? table([
      [t('Date'), (tx) => day(tx.date)],
      [t('Description'), (tx) => tx.description || '—'],
      [t('Category'), (tx) => (cats[tx.categoryId] || {}).name || term(tx.type)],
      [t('Wallet'), (tx) => (wallets[tx.walletId] || {}).name || ''],
      [t('Amount'), (tx) => signed(tx)],
      ['', (tx) => h('div', { class: 'row-actions' },
        h('button', { type: 'button', class: 'ghost', 'aria-label': `${t('Edit')} ${tx.description || ''}`, onclick: (e) => editRow(e.target.closest('tr'), tx) }, t('Edit')),
        h('button', { type: 'button', class: 'ghost danger', 'aria-label': `${t('Delete')} ${tx.description || ''}`, onclick: () => remove(tx) }, t('Delete')))],
    ], rows, t('Transactions')) : empty(), pager);
  }

  function editRow(tr, tx) {
    const cell = h('td', { colspan: '6' });
    const edit = form([
      amountField('amount', t('Amount'), String(tx.amount)),
      field({ name: 'description', label: t('Description'), value: tx.description || '', maxlength: 255 }),
      tx.type === 'transfer' ? null : field({ name: 'categoryId', label: t('Category'), type: 'select', value: tx.categoryId,
        options: look.categories.map((c) => [c.id, c.name]) }),
      field({ name: 'date', label: t('Date'), type: 'date', value: tx.date.slice(0, 10) }),
    ].filter(Boolean), t('Save'), async (v) => {
      const amount = decimal(v.amount || '');
      if (amount === null || amount <= 0) throw fieldError('amount', 'a positive amount with at most two decimals');
      const body = { amount, description: v.description || '', date: v.date };
      if (v.categoryId) body.categoryId = v.categoryId;
      await api.patch('/api/transactions/' + tx.id, body);
      toast(t('Saved.'));
      await drawList();
    }, { class: 'form inline', 'aria-label': t('Correct') });
    edit.querySelector('.actions').append(h('button', { type: 'button', onclick: () => drawList() }, t('Cancel')));
    cell.append(edit);
    tr.replaceChildren(cell);
    edit.querySelector('input').focus();
  }

  function remove(tx) {
    // The row goes at once; the deletion is sent when the undo time is over.
    let timer = 0;
    const run = (leaving) => {
      clearTimeout(timer);
      pendingDeletes.delete(tx.id);
      if (leaving) {
        api.deleteOnLeave('/api/transactions/' + tx.id);
        return;
      }
      api.del('/api/transactions/' + tx.id).then(() => drawList()).catch((err) => { toast(err.message); drawList(); });
    };
    pendingDeletes.set(tx.id, run);
    timer = setTimeout(() => run(false), 5000);
    drawList();
    toast(t('Deleted.'), { label: t('Undo'), run: () => { clearTimeout(timer); pendingDeletes.delete(tx.id); drawList(); } }, 5);
  }

  main.replaceChildren(h('h1', {}, t('Transactions')),
    h('details', { class: 'card' }, h('summary', {}, t('Record')), recordOrSetup(look, () => drawList(1))),
    filters, list);
  await drawList();
  return async () => { look = await lookups(); await drawList(); };
}

async function budgetsPage(main) {
  const draw = async () => {
    const [{ budgets }, look] = await Promise.all([api.get('/api/budgets'), lookups()]);
    const month = today().slice(0, 7);
    const create = form([
      field({ name: 'name', label: t('Name'), required: true, maxlength: 100 }),
      field({ name: 'categoryId', label: t('Category'), type: 'select', options: look.categories.map((c) => [c.id, c.name]) }),
      amountField('amount', t('Amount')),
      field({ name: 'period', label: t('Period'), type: 'select', value: 'monthly',
        options: ['weekly', 'biweekly', 'semi_monthly', 'monthly', 'quarterly', 'yearly'].map((p) => [p, term(p)]) }),
      field({ name: 'startDate', label: t('Start'), type: 'date', value: month + '-01' }),
      field({ name: 'endDate', label: t('End'), type: 'date', value: (Number(month.slice(0, 4)) + 1) + month.slice(4) + '-01' }),
      field({ name: 'alertThreshold', label: t('Alert at') + ' (%)', type: 'number', value: '80', min: 1, max: 100 }),
    ], t('Create'), async (v) => {
      const amount = decimal(v.amount || '');
      if (amount === null) throw fieldError('amount', 'an amount with at most two decimals');
      await api.post('/api/budgets', { ...v, amount, alertThreshold: Number(v.alertThreshold) });
      toast(t('Saved.'));
      await draw();
    }, { 'aria-label': t('New budget') });
    main.replaceChildren(h('h1', {}, t('Budgets')), budgetBars(budgets, look.categories),
      h('section', { class: 'card narrow', 'aria-labelledby': 'h-new' }, h('h2', { id: 'h-new' }, t('New budget')), create));
  };
  await draw();
  return draw;
}

async function categoriesPage(main) {
  const draw = async () => {
    const { categories } = await api.get('/api/categories');
    const create = form([field({ name: 'name', label: t('Name'), required: true, maxlength: 100 })], t('Create'), async (v) => {
      await api.post('/api/categories', { name: v.name });
      toast(t('Saved.'));
      await draw();
    }, { 'aria-label': t('New category') });
    main.replaceChildren(h('h1', {}, t('Categories')),
      categories.length ? h('ul', { class: 'chips' }, categories.map((c) => h('li', {}, c.name,
        h('button', { type: 'button', class: 'ghost', 'aria-label': `${t('Edit')} ${c.name}`, onclick: () => rename(c) }, t('Edit'))))) : empty(),
      h('section', { class: 'card narrow', 'aria-labelledby': 'h-new' }, h('h2', { id: 'h-new' }, t('New category')), create));
  };
  const rename = (c) => {
    const close = dialog(t('Edit'), form([field({ name: 'name', label: t('Name'), value: c.name, required: true })], t('Save'), async (v) => {
      await api.patch('/api/categories/' + c.id, { name: v.name });
      close();
      await draw();
    }));
  };
  await draw();
  return draw;
}

export const pages = {
  '/app/': { title: 'Overview', render: overview },
  '/app/wallets': { title: 'Wallets', render: walletsPage },
  '/app/transactions': { title: 'Transactions', render: transactionsPage },
  '/app/budgets': { title: 'Budgets', render: budgetsPage },
  '/app/categories': { title: 'Categories', render: categoriesPage },
};
