// The pages people use most: the overview with the quick form, transactions, wallets,
// budgets and categories. Each page's render draws it and returns the function that
// draws it again when the workspace changes elsewhere.
import * as api from './api.js';
import { t, term, money, day, today, monthName } from './i18n.js';
import { h, field, amountField, form, toast, progress, signed, table, empty, dialog, keeping, confirmed, can, buttons, formCurrency, editor, asked, pager, section } from './ui.js';
import { totals } from './sums.js';
import { rateNotice, monthStats } from './rates.js';

// lookups are the workspace's wallets and categories, read once per drawing.
async function lookups() {
  const [w, c] = await Promise.all([api.get('/api/wallets'), api.get('/api/categories')]);
  return { wallets: w.wallets, categories: c.categories };
}

const byId = (list) => Object.fromEntries(list.map((x) => [x.id, x]));

// remover asks before archiving or deleting a record, then does it and redraws.
const remover = (label, name, path, message, redraw) => asked(label, name, redraw, () => api.del(path), message);

const archived = () => t('It leaves the lists; what already uses it keeps it.');

// split runs with splits.js, fetched when a split is first edited or drawn.
const split = (run) => import('./splits.js').then(run).catch((err) => toast(err.message));

// splitter is the Split action below a category, pressed at once for a split's parts.
function splitter(category, categories, currency, parts = []) {
  const open = (list, pressed) => split((m) => m.split(box, category, categories, currency, list, pressed));
  const box = h('div', { class: 'split' }, h('button', { type: 'button', class: 'ghost', onclick: () => open([], true) }, t('Split')));
  if (parts.length) open(parts);
  return box;
}

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
  const currencyOf = (name) => (wallets.find((w) => w.id === f.querySelector(`[name=${name}]`).value) || {}).currency;
  const splitBox = splitter(category, categories, () => currencyOf('walletId'));
  // A transfer between currencies says what the destination receives, in its currency.
  const received = amountField('destinationAmount', t('Amount received'), null, { currency: () => currencyOf('destinationWalletId') });
  let key = crypto.randomUUID();
  const f = form([
    typeField,
    amountField('amount', t('Amount'), null, { currency: () => currencyOf('walletId') }),
    field({ name: 'walletId', label: t('Wallet'), type: 'select', options: walletOptions, value: defaultWallet }),
    category, splitBox, toWallet, received,
    field({ name: 'description', label: t('Description'), limit: 'transaction.description' }),
    field({ name: 'date', label: t('Date'), type: 'date', value: today() }),
  ], t('Record'), async (v, el) => {
    const body = { type: v.type, amount: v.amount, walletId: v.walletId, description: v.description, date: v.date };
    if (v.type === 'transfer') Object.assign(body, { destinationWalletId: v.destinationWalletId, destinationAmount: v.destinationAmount });
    else if (el.parts) body.splits = el.parts(v);
    else body.categoryId = v.categoryId;
    await api.post('/api/transactions', body, { 'Idempotency-Key': key });
    key = crypto.randomUUID();
    el.unsplit?.();
    for (const name of ['amount', 'destinationAmount', 'description']) el.querySelector(`[name=${name}]`).value = '';
    el.dispatchEvent(new Event('input'));
    // The next one is typed at once: the redraw keeps the form and its focus.
    el.querySelector('[name=amount]').focus();
    toast(t('Recorded.'));
    keeping(onDone);
  }, { class: 'form record', 'aria-label': t('Record') });
  const sync = () => {
    const transfer = typeField.querySelector('select').value === 'transfer';
    toWallet.hidden = !transfer;
    category.hidden = transfer || !!f.parts;
    splitBox.hidden = transfer;
    received.hidden = !transfer || currencyOf('walletId') === currencyOf('destinationWalletId');
  };
  f.addEventListener('change', sync);
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

// walletCards are the wallets; act, when given, draws each one's actions.
function walletCards(wallets, act) {
  if (!wallets.length) return empty();
  return h('ul', { class: 'cards' }, wallets.map((w) => h('li', { class: 'card wallet', 'data-wallet': w.name },
    h('span', { class: 'chip', style: { background: /^#[0-9a-f]{6}$/i.test(w.cardColor || '') ? w.cardColor : '#0f6e56' } }),
    h('h3', {}, h('a', { href: '/app/wallets/' + w.id, 'data-link': true }, w.name), w.isDefault ? h('small', {}, ' · ' + t('Default')) : null),
    h('p', { class: 'balance', 'data-testid': 'balance' }, money(w.balance, w.currency)), act && act(w))));
}

// budgetBars are the budgets with their spending; act, when given, draws each one's
// actions.
function budgetBars(budgets, categories, act) {
  if (!budgets.length) return empty();
  const cats = byId(categories);
  return h('ul', { class: 'budgets' }, budgets.map((b) => h('li', { class: 'budget', 'data-budget': b.name },
    h('div', { class: 'row' }, h('strong', {}, b.name), h('span', {}, (cats[b.categoryId] || {}).name || '')),
    progress(b.percentage, `${b.name}: ${Math.round(b.percentage)}%`, b.percentage >= b.alertThreshold),
    h('p', { class: 'muted' }, `${money(b.spent, b.currency)} ${t('spent of')} ${money(b.amount, b.currency)} · `,
      String(b.remaining).startsWith('-') ? h('strong', { class: 'out' }, `${t('Over by')} ${money(String(b.remaining).slice(1), b.currency)}`)
        : `${money(b.remaining, b.currency)} ${t('remaining')}`),
    act && act(b))));
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
        can(ctx.workspace, 'transactions:write') ? h('section', { class: 'card', 'aria-labelledby': 'h-record' },
          h('h2', { id: 'h-record' }, t('Record')), recordOrSetup(look, draw)) : null,
        h('section', { class: 'card', 'aria-labelledby': 'h-month' }, h('h2', { id: 'h-month' }, monthName(month)),
          h('div', { class: 'totals' }, monthStats(summary, t('Income this month'), t('Expenses this month'))),
          rateNotice(summary.missingRates),
          h('h3', {}, t('Transactions')),
          recent.transactions.length ? h('ul', { class: 'recent' }, recent.transactions.map((tx) => h('li', {},
            h('span', {}, tx.description || tx.concept || (cats[tx.categoryId] || {}).name || term(tx.type)),
            h('span', { class: 'muted' }, (wallets[tx.walletId] || {}).name || ''), signed(tx)))) : empty())),
      h('section', { 'aria-labelledby': 'h-wallets' }, h('h2', { id: 'h-wallets' }, t('Wallets')), walletCards(look.wallets),
        await walletTotals(look.wallets, ctx.workspace)),
      h('section', { 'aria-labelledby': 'h-budgets' }, h('h2', { id: 'h-budgets' }, t('Budgets')), budgetBars(budgets.budgets, look.categories)));
  };
  await draw();
  return draw;
}

const walletTypes = () => ['cash', 'card', 'bank_account', 'digital_wallet'].map((k) => [k, term(k)]);

async function walletsPage(main, ctx) {
  const edit = (w) => editor(w.name, [
    field({ name: 'name', label: t('Name'), value: w.name, required: true, limit: 'wallet.name' }),
    field({ name: 'type', label: t('Type'), type: 'select', value: w.type, options: walletTypes() }),
    field({ name: 'currency', label: t('Currency'), value: w.currency, maxlength: 3 }),
    field({ name: 'cardColor', label: t('Colour'), type: 'color', value: w.cardColor }),
    amountField('balance', t('Initial balance'), w.initialBalance, { zero: true, currency: formCurrency }),
    field({ name: 'isDefault', label: t('Default'), type: 'checkbox', value: w.isDefault }),
  ], (v) => api.patch('/api/wallets/' + w.id, { ...v, currency: (v.currency || '').toUpperCase() }), draw);
  const act = can(ctx.workspace, 'wallets:write') && ((w) => buttons(w.name, [[t('Edit'), () => edit(w)],
    [t('Archive'), remover(t('Archive'), w.name, '/api/wallets/' + w.id, archived(), draw), true]]));
  async function draw() {
    const { wallets } = await api.get('/api/wallets');
    const create = form([
      field({ name: 'name', label: t('Name'), required: true, limit: 'wallet.name' }),
      field({ name: 'type', label: t('Type'), type: 'select', value: 'cash', options: walletTypes() }),
      field({ name: 'currency', label: t('Currency'), value: ctx.workspace.currency, maxlength: 3 }),
      amountField('balance', t('Initial balance'), 0, { zero: true, currency: formCurrency }),
    ], t('Create'), async (v) => {
      await api.post('/api/wallets', { name: v.name, type: v.type, currency: (v.currency || '').toUpperCase(), balance: v.balance, isDefault: wallets.length === 0 });
      toast(t('Saved.'));
      await draw();
    }, { 'aria-label': t('New wallet') });
    main.replaceChildren(h('h1', {}, t('Wallets')), walletCards(wallets, act), await walletTotals(wallets, ctx.workspace),
      act ? section(t('New wallet'), create) : null);
  }
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

async function transactionsPage(main, ctx) {
  const write = can(ctx.workspace, 'transactions:write');
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

  // ticked are the rows the person selected on this page: a redraw keeps them.
  let ticked = new Set();
  // opened is the row being corrected: a redraw that does not keep it (nothing typed in
  // it, the focus elsewhere) opens it again.
  let opened = null;
  async function drawList(p = page) {
    if (p !== page) {
      ticked = new Set();
      opened = null;
    }
    page = p;
    const res = first || await api.get(listingPath(page));
    first = null;
    const cats = byId(look.categories);
    const wallets = byId(look.wallets);
    const rows = res.transactions.filter((tx) => !pendingDeletes.has(tx.id));
    const turn = pager({ page, total: res.pagination.total }, drawList);
    const named = (tx) => `${tx.description || ''} ${day(tx.date)} ${money(tx.amount, tx.currency)}`;
    list.replaceChildren(write && rows.length ? bulkBar() : '', rows.length ? table([
      write && ['', (tx) => h('input', { type: 'checkbox', 'data-select': tx.id, checked: ticked.has(tx.id), 'aria-label': `${t('Select')} ${named(tx)}` })],
      [t('Date'), (tx) => day(tx.date), 'nowrap'],
      [t('Description'), (tx) => tx.description || tx.concept || '—'],
      [t('Category'), (tx) => {
        if (!tx.splits?.length) return (cats[tx.categoryId] || {}).name || term(tx.type);
        const slot = h('span');
        return split((m) => slot.replaceWith(m.parts(tx, cats))) && slot;
      }],
      [t('Wallet'), (tx) => (wallets[tx.walletId] || {}).name || ''],
      [t('Amount'), (tx) => signed(tx)],
      write && ['', (tx) => h('div', { class: 'row-actions' },
        h('button', { type: 'button', class: 'ghost', 'aria-label': `${t('Edit')} ${tx.description || ''}`, onclick: (e) => editRow(e.target.closest('tr'), tx) }, t('Edit')),
        h('button', { type: 'button', class: 'ghost danger', 'aria-label': `${t('Delete')} ${tx.description || ''}`, onclick: () => remove(tx) }, t('Delete')))],
    ].filter(Boolean), rows, t('Transactions')) : nothingFound(), turn);
    list.dispatchEvent(new Event('change'));
    const again = rows.find((tx) => tx.id === opened);
    if (again) editRow(list.querySelector(`tr[data-key="${again.id}"]`), again, false);
  }

  // nothingFound is the empty list's text, which says what a search matched nothing of.
  function nothingFound() {
    const search = new URLSearchParams(location.search).get('search');
    return search ? h('p', { class: 'empty' }, `${t('No transaction matches')} “${search}”.`) : empty();
  }

  // bulkBar acts on the rows ticked on this page: recategorize them, or delete them
  // once the person confirms.
  function bulkBar() {
    const picked = () => [...list.querySelectorAll('[data-select]:checked')].map((box) => box.dataset.select);
    const category = field({ name: 'bulkCategory', label: t('Category'), type: 'select', options: look.categories.map((c) => [c.id, c.name]) });
    const run = async (body) => {
      await api.post('/api/transactions/bulk', { ids: picked(), ...body });
      toast(t('Done.'));
      ticked = new Set();
      await drawList();
    };
    const all = h('input', { type: 'checkbox', id: 'select-all', onchange: () => {
      for (const box of list.querySelectorAll('[data-select]')) box.checked = all.checked;
    } });
    const count = h('span', { 'aria-live': 'polite' });
    const move = h('button', { type: 'button', onclick: () => run({ operation: 'recategorize', categoryId: category.querySelector('select').value }) }, t('Recategorize'));
    const del = h('button', { type: 'button', class: 'danger', onclick: async () => {
      if (await confirmed(t('Delete selected'), `${picked().length} · ${t('This cannot be undone.')}`, t('Delete'))) await run({ operation: 'delete' });
    } }, t('Delete selected'));
    list.onchange = () => {
      ticked = new Set(picked());
      const n = ticked.size;
      count.textContent = `${n} ${t('selected')}`;
      move.disabled = del.disabled = !n;
    };
    return h('div', { class: 'bulk', role: 'group', 'aria-label': t('Selected transactions') },
      h('div', { class: 'field check' }, all, h('label', { for: 'select-all' }, t('Select all on this page'))), count, category, move, del);
  }

  // editRow corrects a row in place, its receipts below (a module fetched then).
  function editRow(tr, tx, focus = true) {
    opened = tx.id;
    const cell = h('td', { colspan: String(tr.children.length) });
    const currency = () => tx.currency;
    const category = tx.type === 'transfer' ? null : field({ name: 'categoryId', label: t('Category'), type: 'select', value: tx.categoryId,
      options: look.categories.map((c) => [c.id, c.name]) });
    const edit = form([
      amountField('amount', t('Amount'), tx.amount, { currency }),
      field({ name: 'description', label: t('Description'), value: tx.description || '', limit: 'transaction.description' }),
      category, category && splitter(category, look.categories, currency, tx.splits),
      field({ name: 'date', label: t('Date'), type: 'date', value: tx.date.slice(0, 10) }),
    ].filter(Boolean), t('Save'), async (v) => {
      const body = { amount: v.amount, description: v.description || '', date: v.date };
      // The parts are sent whole; null makes one category again.
      if (edit.parts) body.splits = edit.parts(v);
      else if (v.categoryId) Object.assign(body, { categoryId: v.categoryId }, tx.splits?.length && { splits: null });
      await api.patch('/api/transactions/' + tx.id, body);
      toast(t('Saved.'));
      opened = null;
      await drawList();
    }, { class: 'form inline', 'aria-label': t('Correct') });
    edit.querySelector('.actions').append(h('button', { type: 'button', onclick: () => { opened = null; drawList(); } }, t('Cancel')));
    const slot = h('div');
    cell.append(edit, slot);
    tr.replaceChildren(cell);
    if (focus) edit.querySelector('input').focus();
    import('./receipts.js').then((m) => slot.replaceWith(m.receipts(tx)), (err) => toast(err.message));
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
    write ? h('details', { class: 'card' }, h('summary', {}, t('Record')), recordOrSetup(look, () => drawList(1))) : '',
    filters, list);
  await drawList();
  return async () => { look = await lookups(); await drawList(); };
}

// budgetFields are a budget's fields, filled with b's values when editing.
function budgetFields(categories, currency, b = {}) {
  const month = today().slice(0, 7);
  return [
    field({ name: 'name', label: t('Name'), value: b.name, required: true, limit: 'budget.name' }),
    field({ name: 'categoryId', label: t('Category'), type: 'select', value: b.categoryId, options: categories.map((c) => [c.id, c.name]) }),
    amountField('amount', t('Amount'), b.amount, { zero: true, currency: () => b.currency || currency }),
    field({ name: 'period', label: t('Period'), type: 'select', value: b.period || 'monthly',
      options: ['weekly', 'biweekly', 'semi_monthly', 'monthly', 'quarterly', 'yearly'].map((p) => [p, term(p)]) }),
    field({ name: 'startDate', label: t('Start'), type: 'date', value: b.startDate || month + '-01' }),
    field({ name: 'endDate', label: t('End'), type: 'date', value: b.endDate || (Number(month.slice(0, 4)) + 1) + month.slice(4) + '-01' }),
    field({ name: 'alertThreshold', label: t('Alert at') + ' (%)', type: 'number', value: String(b.alertThreshold ?? 80), min: 1, max: 100 }),
  ];
}

// budgetBody is what the API takes of a budget's form.
const budgetBody = (v) => ({ ...v, alertThreshold: Number(v.alertThreshold) });

async function budgetsPage(main, ctx) {
  async function draw() {
    const [{ budgets }, look] = await Promise.all([api.get('/api/budgets'), lookups()]);
    const act = can(ctx.workspace, 'budgets:write') && ((b) => buttons(b.name, [
      [t('Edit'), () => editor(b.name, budgetFields(look.categories, ctx.workspace.currency, b), (v) => api.patch('/api/budgets/' + b.id, budgetBody(v)), draw)],
      [t('Delete'), remover(t('Delete'), b.name, '/api/budgets/' + b.id, t('This cannot be undone.'), draw), true]]));
    const create = form(budgetFields(look.categories, ctx.workspace.currency), t('Create'), async (v) => {
      await api.post('/api/budgets', budgetBody(v));
      toast(t('Saved.'));
      await draw();
    }, { 'aria-label': t('New budget') });
    main.replaceChildren(h('h1', {}, t('Budgets')), budgetBars(budgets, look.categories, act), act ? section(t('New budget'), create) : null);
  }
  await draw();
  return draw;
}

async function categoriesPage(main, ctx) {
  async function draw() {
    const [{ categories }, { tags }] = await Promise.all([api.get('/api/categories'), api.get('/api/tags')]);
    const write = can(ctx.workspace, 'categories:write');
    const edit = (c) => editor(c.name, [
      field({ name: 'name', label: t('Name'), value: c.name, required: true, limit: 'category.name' }),
      field({ name: 'color', label: t('Colour'), type: 'color', value: c.color }),
      field({ name: 'description', label: t('Description'), value: c.description || '', maxlength: 255 }),
      field({ name: 'tagId', label: t('Tag'), type: 'select', value: c.tagId || '', options: [['', t('None')], ...tags.map((g) => [g.id, g.name])] }),
    ], (v) => api.patch('/api/categories/' + c.id, { ...v, description: v.description || null, tagId: v.tagId || null }), draw);
    const create = form([field({ name: 'name', label: t('Name'), required: true, limit: 'category.name' })], t('Create'), async (v) => {
      await api.post('/api/categories', { name: v.name });
      toast(t('Saved.'));
      await draw();
    }, { 'aria-label': t('New category') });
    main.replaceChildren(h('h1', {}, t('Categories')),
      categories.length ? h('ul', { class: 'chips' }, categories.map((c) => h('li', { 'data-category': c.name }, c.name,
        write ? buttons(c.name, [[t('Edit'), () => edit(c)],
          [t('Archive'), remover(t('Archive'), c.name, '/api/categories/' + c.id, archived(), draw), true]]) : null))) : empty(),
      write ? section(t('New category'), create) : null);
  }
  await draw();
  return draw;
}

// tagsPage lists the workspace's tags; a role with tags:write makes, renames and
// archives them.
async function tagsPage(main, ctx) {
  const fields = (g = {}) => [field({ name: 'name', label: t('Name'), value: g.name, required: true, maxlength: 50 }),
    field({ name: 'color', label: t('Colour'), type: 'color', value: g.color || '#6b7280' })];
  async function draw() {
    const { tags } = await api.get('/api/tags');
    const write = can(ctx.workspace, 'tags:write');
    const create = form(fields(), t('Create'), async (v) => {
      await api.post('/api/tags', v);
      toast(t('Saved.'));
      await draw();
    }, { 'aria-label': t('New tag') });
    main.replaceChildren(h('h1', {}, t('Tags')),
      tags.length ? h('ul', { class: 'chips' }, tags.map((g) => h('li', { 'data-tag': g.name },
        h('span', { class: 'dot', style: { background: g.color } }), g.name,
        write ? buttons(g.name, [[t('Edit'), () => editor(g.name, fields(g), (v) => api.patch('/api/tags/' + g.id, v), draw)],
          [t('Delete'), remover(t('Delete'), g.name, '/api/tags/' + g.id, archived(), draw), true]]) : null))) : empty(),
      write ? section(t('New tag'), create) : null);
  }
  await draw();
  return draw;
}

export const pages = {
  '/app/': { title: 'Overview', render: overview },
  '/app/wallets': { title: 'Wallets', render: walletsPage },
  '/app/transactions': { title: 'Transactions', render: transactionsPage },
  '/app/budgets': { title: 'Budgets', render: budgetsPage },
  '/app/categories': { title: 'Categories', render: categoriesPage },
  '/app/tags': { title: 'Tags', render: tagsPage },
};
