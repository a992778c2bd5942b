// The rest of the app: goals, debts, recurring payments, reports, the team, API keys,
// webhooks, the audit log and the profile.
import * as api from './api.js';
import { exportSection } from './records.js';
import { t, term, money, day, moment, today, monthName, period, setLanguage } from './i18n.js';
import { h, field, amountField, form, fieldError, toast, progress, table, empty, dialog, formCurrency, can, act, editor, section } from './ui.js';
import { rateNotice, monthStats } from './rates.js';

const walletOptions = (wallets) => wallets.map((w) => [w.id, `${w.name} (${w.currency})`]);

// edit is the Edit button of a record: its fields in the editor, saved with PATCH.
const edit = (name, fields, path, body, draw) => h('button', { type: 'button', class: 'ghost', 'aria-label': `${t('Edit')} ${name}`,
  onclick: () => editor(name, fields, (v) => api.patch(path, body(v)), draw) }, t('Edit'));

const gone = () => t('This cannot be undone.');

async function goalsPage(main, ctx) {
  const fields = (g) => [
    field({ name: 'name', label: t('Name'), required: true, limit: 'goal.name', value: g.name }),
    amountField('targetAmount', t('Target'), g.targetAmount, { currency: formCurrency }),
    field({ name: 'currency', label: t('Currency'), value: g.currency, maxlength: 3 }),
    field({ name: 'deadline', label: t('Deadline'), type: 'date', value: g.deadline }),
  ];
  const body = (v) => ({ name: v.name, targetAmount: v.targetAmount, currency: v.currency, deadline: v.deadline || null });
  const draw = async () => {
    const [{ goals }, { wallets }] = await Promise.all([api.get('/api/goals'), api.get('/api/wallets')]);
    const move = (g, kind) => {
      const close = dialog(`${t(kind === 'deposit' ? 'Deposit' : 'Withdraw')}: ${g.name}`, form([
        amountField('amount', t('Amount'), null, { currency: () => g.currency }),
        field({ name: 'walletId', label: t('Wallet'), type: 'select', options: walletOptions(wallets) }),
      ], t(kind === 'deposit' ? 'Deposit' : 'Withdraw'), async (v) => {
        await api.post(`/api/goals/${g.id}/${kind}`, { amount: v.amount, walletId: v.walletId, date: today() });
        close();
        toast(t('Saved.'));
        await draw();
      }));
    };
    main.replaceChildren(h('h1', {}, t('Goals')),
      goals.length ? h('ul', { class: 'cards' }, goals.map((g) => h('li', { class: 'card', 'data-goal': g.name },
        h('h3', {}, g.name),
        progress(g.progress, `${g.name}: ${Math.round(g.progress)}%`, false),
        h('p', { class: 'muted' }, `${money(g.savedAmount, g.currency)} / ${money(g.targetAmount, g.currency)}`,
          g.deadline ? ` · ${t('Deadline')} ${day(g.deadline)}` : ''),
        can(ctx.workspace, 'goals:write') && h('div', { class: 'row-actions' },
          h('button', { type: 'button', onclick: () => move(g, 'deposit') }, t('Deposit')),
          h('button', { type: 'button', onclick: () => move(g, 'withdraw') }, t('Withdraw')),
          edit(g.name, fields(g), '/api/goals/' + g.id, body, draw),
          act(t('Delete'), g.name, draw, () => api.del('/api/goals/' + g.id), gone()))))) : empty(),
      can(ctx.workspace, 'goals:write') && section(t('New goal'), form(fields({ currency: ctx.workspace.currency }), t('Create'), async (v) => {
        await api.post('/api/goals', body(v));
        toast(t('Saved.'));
        await draw();
      })));
  };
  await draw();
  return draw;
}

async function debtsPage(main, ctx) {
  const fields = (d) => [
    field({ name: 'name', label: t('Name'), required: true, limit: 'debt.name', value: d.name }),
    field({ name: 'creditor', label: t('Creditor'), limit: 'debt.creditor', value: d.creditor }),
    amountField('totalAmount', t('Total'), d.totalAmount, { currency: formCurrency }),
    field({ name: 'currency', label: t('Currency'), value: d.currency, maxlength: 3 }),
    field({ name: 'dueDate', label: t('Deadline'), type: 'date', value: d.dueDate }),
  ];
  const body = (v) => ({ name: v.name, creditor: v.creditor || null, totalAmount: v.totalAmount,
    currency: v.currency, dueDate: v.dueDate || null });
  const draw = async () => {
    const [{ debts }, { wallets }] = await Promise.all([api.get('/api/debts'), api.get('/api/wallets')]);
    const pay = (d) => {
      const close = dialog(`${t('Pay')}: ${d.name}`, form([
        amountField('amount', t('Amount'), null, { currency: () => d.currency }),
        field({ name: 'walletId', label: t('Wallet'), type: 'select', options: walletOptions(wallets) }),
      ], t('Pay'), async (v) => {
        await api.post(`/api/debts/${d.id}/payments`, { amount: v.amount, walletId: v.walletId, date: today() });
        close();
        toast(t('Saved.'));
        await draw();
      }));
    };
    main.replaceChildren(h('h1', {}, t('Debts')),
      debts.length ? table([
        [t('Name'), (d) => d.name],
        [t('Creditor'), (d) => d.creditor || '—'],
        [t('Paid'), (d) => progress(d.totalAmount > 0 ? (d.paidAmount / d.totalAmount) * 100 : 0, `${d.name}: ${t('Paid')}`, false)],
        [t('Pending'), (d) => money(d.pendingBalance, d.currency)],
        [t('Total'), (d) => money(d.totalAmount, d.currency)],
        ['', (d) => can(ctx.workspace, 'debts:write') && h('div', { class: 'row-actions' },
          h('button', { type: 'button', onclick: () => pay(d), 'aria-label': `${t('Pay')} ${d.name}` }, t('Pay')),
          edit(d.name, fields(d), '/api/debts/' + d.id, body, draw),
          act(t('Delete'), d.name, draw, () => api.del('/api/debts/' + d.id), gone()))],
      ], debts, t('Debts')) : empty(),
      can(ctx.workspace, 'debts:write') && section(t('New debt'), form(fields({ currency: ctx.workspace.currency }), t('Create'), async (v) => {
        await api.post('/api/debts', body(v));
        toast(t('Saved.'));
        await draw();
      })));
  };
  await draw();
  return draw;
}

async function recurringPage(main, ctx) {
  const draw = async () => {
    const [{ recurrent }, { wallets }, { categories }] = await Promise.all([api.get('/api/recurrent'), api.get('/api/wallets'),
      api.get('/api/categories')]);
    const names = Object.fromEntries(wallets.map((w) => [w.id, w]));
    const fields = (r) => [
      field({ name: 'name', label: t('Name'), required: true, limit: 'recurring.name', value: r.name }),
      amountField('amount', t('Amount'), r.amount, { currency: (el) => (names[el.form.elements.walletId.value] || {}).currency }),
      field({ name: 'kind', label: t('Type'), type: 'select', value: r.kind, options: [['expense', t('Expense')], ['income', t('Income')]] }),
      field({ name: 'periodicity', label: t('Frequency'), type: 'select', value: r.periodicity,
        options: ['weekly', 'biweekly', 'semi_monthly', 'monthly', 'quarterly', 'yearly'].map((p) => [p, term(p)]) }),
      field({ name: 'walletId', label: t('Wallet'), type: 'select', value: r.walletId, options: walletOptions(wallets) }),
      field({ name: 'categoryId', label: t('Category'), type: 'select', value: r.categoryId, options: categories.map((c) => [c.id, c.name]) }),
      field({ name: 'nextPayment', label: t('Next payment'), type: 'date', value: r.nextPayment }),
    ];
    const body = (v) => v;
    main.replaceChildren(h('h1', {}, t('Recurring')),
      recurrent.length ? table([
        [t('Name'), (r) => (r.active ? r.name : `${r.name} · ${t('Paused')}`)],
        [t('Amount'), (r) => money(r.amount, (names[r.walletId] || {}).currency || 'MXN')],
        [t('Frequency'), (r) => term(r.periodicity)],
        [t('Next payment'), (r) => day(r.nextPayment), 'nowrap'],
        // Cycles owed beyond the 12 paid late are skipped (docs/api.md, "At most 12 cycles").
        [t('Skipped'), (r) => (r.lastSkip ? `${r.lastSkip.cycles} (${day(r.lastSkip.firstDue)} – ${day(r.lastSkip.lastDue)})` : '')],
        ['', (r) => can(ctx.workspace, 'recurrent:write') && h('div', { class: 'row-actions' },
          r.active && act(t('Pay now'), r.name, draw, () => api.post(`/api/recurrent/${r.id}/pay`, { date: today() })),
          act(t(r.active ? 'Pause' : 'Resume'), r.name, draw, () => api.patch('/api/recurrent/' + r.id, { active: !r.active })),
          edit(r.name, fields(r), '/api/recurrent/' + r.id, body, draw),
          act(t('Delete'), r.name, draw, () => api.del('/api/recurrent/' + r.id), gone()))],
      ], recurrent, t('Recurring')) : empty(),
      can(ctx.workspace, 'recurrent:write') && section(t('Create'), form(fields({ kind: 'expense', periodicity: 'monthly', nextPayment: today() }), t('Create'), async (v) => {
        await api.post('/api/recurrent', body(v));
        toast(t('Saved.'));
        await draw();
      })));
  };
  await draw();
  return draw;
}

// bars draws rows on one scale, each [label, [[amount, class], ...], value], as HTML
// so that its text keeps the page's size at any width.
function bars(name, rows) {
  const max = Math.max(0, ...rows.flatMap(([, parts]) => parts.map(([a]) => Number(a)))); // drawing only
  return h('ul', { class: 'bars', 'aria-label': name }, rows.map(([label, parts, value]) => h('li', {},
    h('span', { class: 'label' }, label),
    h('span', { class: 'track' }, parts.filter(([a]) => Number(a) > 0).map(([a, cls]) => h('span', { class: 'bar ' + cls, style: { width: `${(Number(a) / max) * 100}%` } }))),
    h('span', { class: 'value' }, value))));
}

const catName = (b) => (b.categoryId ? b.name : t('Uncategorized'));

// unconverted lists what has no rate to the chart's currency: shown, never drawn.
const unconverted = (list, currency, amount) => (list || []).length
  ? h('p', { class: 'muted' }, `${t('Not drawn, no exchange rate to')} ${currency}: `, list.map((u) => amount(u)).join(' · ')) : null;

// expensesChart draws a report's expenses by category (GET /api/reports/summary).
function expensesChart(c, label) {
  const list = (c && c.bars) || [];
  return [list.length ? bars(label, list.map((b) => [b.holds.length ? `${t('Other')}: ${b.holds.map((x) => `${catName(x)} ${money(x.amount, c.currency)}`).join(', ')}` : catName(b),
    [[b.amount, 'out']], money(b.amount, c.currency)])) : empty(),
  c && unconverted(c.unconverted, c.currency, (u) => money(u.amount, u.currency))];
}

// monthsChart draws income and expenses by month.
function monthsChart(m, label) {
  if (!m || !m.months) return empty();
  return [bars(label, m.months.map((x) => [monthName(x.month), [[x.income, 'in'], [x.expenses, 'out']],
    h('span', {}, h('span', { class: 'in' }, '+' + money(x.income, m.currency)), ' ', h('span', { class: 'out' }, '−' + money(x.expenses, m.currency)))])),
  unconverted(m.unconverted, m.currency, (u) => `+${money(u.income, u.currency)} −${money(u.expenses, u.currency)}`)];
}

// iso is a date as YYYY-MM-DD; days and months beyond their ends roll over.
const iso = (y, m, d) => new Date(Date.UTC(y, m - 1, d)).toISOString().slice(0, 10);
// end is the last day of a month given as YYYY-MM.
const end = (ym) => iso(+ym.slice(0, 4), +ym.slice(5) + 1, 0);

async function reportsPage(main) {
  const [y, m] = today().split('-').map(Number);
  const presets = [['This month', iso(y, m, 1), iso(y, m + 1, 0)], ['Last month', iso(y, m - 1, 1), iso(y, m, 0)],
    ['Last three months', iso(y, m - 2, 1), iso(y, m + 1, 0)], ['This year', iso(y, 1, 1), iso(y, 12, 31)]];
  const q = new URLSearchParams(location.search);
  const from = q.get('from') || presets[0][1];
  const to = q.get('to') || presets[0][2];
  const s = await api.get(`/api/reports/summary?from=${from}&to=${to}`);
  const label = period(from, to);
  const go = (a, b) => {
    history.replaceState(null, '', `/app/reports?from=${a}&to=${b}`);
    return reportsPage(main);
  };
  const picker = form([field({ name: 'from', label: t('From'), type: 'date', value: from, required: true }),
    field({ name: 'to', label: t('To'), type: 'date', value: to, required: true })], t('Apply'), (v) => {
    if (!v.from || !v.to || v.to < v.from) throw fieldError('to', t('Not before the start date'));
    return go(v.from, v.to);
  }, { class: 'form filters', 'aria-label': t('Period') });
  const download = (format) => api.download(`/api/reports?from=${from}&to=${to}&format=${format}`, `finledger-${from}-${to}.${format}`)
    .catch((err) => toast(err.message));
  const months = (s.months && s.months.months) || [];
  main.replaceChildren(h('h1', {}, t('Reports')),
    h('div', { class: 'row-actions', role: 'group', 'aria-label': t('Period') }, presets.map(([name, a, b]) =>
      h('button', { type: 'button', 'aria-pressed': String(a === from && b === to), onclick: () => go(a, b) }, t(name)))),
    picker, rateNotice(s.missingRates),
    h('section', { class: 'card', 'aria-labelledby': 'h-summary' }, h('h2', { id: 'h-summary' }, label),
      h('div', { class: 'totals' }, monthStats({ currency: s.currency, byCurrency: s.totals, totalIncome: s.converted ? s.converted.income : null,
        totalExpenses: s.converted && s.converted.expenses }, `${t('Income')}, ${label}`, `${t('Expenses')}, ${label}`)),
      h('h3', {}, `${t('Expenses by category')}, ${label}`), expensesChart(s.expenses, t('Expenses by category'))),
    h('section', { class: 'card', 'aria-labelledby': 'h-months' },
      h('h2', { id: 'h-months' }, `${t('Income and expenses by month')}, ${months.length ? period(months[0].month + '-01', end(months[months.length - 1].month)) : label}`),
      monthsChart(s.months, t('Income and expenses by month'))),
    h('div', { class: 'row-actions' },
      h('button', { type: 'button', onclick: () => download('csv') }, t('Download CSV')),
      h('button', { type: 'button', onclick: () => download('pdf') }, t('Download PDF'))));
  return () => reportsPage(main);
}

async function teamPage(main, ctx) {
  const ws = ctx.workspace;
  const teamForm = section(t('New team'), form([
    field({ name: 'name', label: t('Name'), required: true, limit: 'workspace.name' }),
    field({ name: 'currency', label: t('Currency'), value: ws.currency, maxlength: 3 }),
  ], t('Create'), async (v) => {
    const res = await api.post('/api/workspaces', v);
    api.setWorkspace(res.workspace.id);
    await ctx.reloadSession();
    ctx.go('/app/team');
  }));
  if (ws.type === 'personal') {
    main.replaceChildren(h('h1', {}, t('Team')), h('p', {}, t('Personal')), teamForm);
    return null;
  }
  const base = `/api/workspaces/${ws.id}/`;
  const owner = ws.role === 'owner';
  // Out of the workspace (left, deleted): one's own workspace again, the stream closed
  // first (a token asked for meanwhile would be refused).
  const away = async () => { api.setWorkspace(''); await ctx.reloadSession(); ctx.go('/app/team'); };
  const leaving = (run) => async () => { await ctx.closeLive(); await run().catch(async (e) => { await ctx.reloadSession(); throw e; }); };
  const closing = h('div', { class: 'row-actions' },
    owner && act(t('Delete workspace'), ws.name, away, leaving(() => api.del('/api/workspace')),
      t('Everything in it is deleted for every member, and its API keys stop working.')),
    can(ws, 'team:manage') && act(t('Leave'), ws.name, away, leaving(() => api.del(base + 'members/' + ctx.me.id)),
      t('You lose access to it until someone invites you again.')));
  const draw = async () => {
    const { members } = can(ws, 'team:manage') ? await api.get(base + 'members') : { members: [] };
    const roles = ['owner', 'admin', 'collaborator', 'reader'].filter((r) => owner || r !== 'owner');
    // Owners' roles are changed only by owners, and never one's own here (Leave is).
    const mine = (m) => m.userId && m.userId !== ctx.me.id && (owner || m.role !== 'owner');
    main.replaceChildren(h('h1', {}, `${t('Team')}: ${ws.name}`),
      h('p', {}, `${t('Role')}: ${term(ws.role)}`),
      members.length ? table([
        [t('Name'), (m) => m.name || m.email],
        [t('Email'), (m) => m.email],
        [t('Role'), (m) => mine(m) ? h('select', { 'aria-label': `${t('Role')} ${m.email}`, onchange: async (e) => {
          await api.patch(base + 'members/' + m.userId, { role: e.target.value }).catch((err) => toast(err.message));
          await draw();
        } }, roles.map((r) => h('option', { value: r, selected: r === m.role }, term(r)))) : term(m.role)],
        [t('Status'), (m) => term(m.status)],
        ['', (m) => m.invitationId ? act(t('Cancel invitation'), m.email, draw, () => api.del(base + 'invitations/' + m.invitationId), t('The invitation stops working.'))
          : mine(m) && act(t('Remove'), m.email, draw, () => api.del(base + 'members/' + m.userId), t('They lose access to this workspace.'))],
      ], members, t('Members')) : null,
      can(ws, 'team:manage') && section(t('Invite'), form([
        field({ name: 'email', label: t('Email'), type: 'email', required: true }),
        field({ name: 'role', label: t('Role'), type: 'select', value: 'collaborator', options: roles.map((r) => [r, term(r)]) }),
      ], t('Invite'), async (v) => {
        await api.post(base + 'members', v);
        toast(t('Saved.'));
        await draw();
      })), closing, teamForm);
  };
  await draw();
  return draw;
}

// copyable shows a secret once with a button that copies it.
export function copyable(label, secret) {
  const out = h('output', { class: 'secret', 'data-testid': 'secret' }, secret);
  return h('div', { class: 'card once', role: 'alert' }, h('p', {}, label), out,
    h('button', { type: 'button', class: 'primary', onclick: async () => {
      try { await navigator.clipboard.writeText(secret); toast(t('Copied.')); } catch {
        getSelection().selectAllChildren(out);
      }
    } }, t('Copy')));
}


async function webhooksPage(main, ctx) {
  const fields = (w) => [
    field({ name: 'name', label: t('Name'), required: true, limit: 'webhook.name', value: w.name }),
    field({ name: 'url', label: t('URL'), type: 'url', required: true, placeholder: 'https://', value: w.url }),
    field({ name: 'events', label: t('Events'), value: (w.events || ['*']).join(', ') }),
  ];
  const body = (v) => ({ name: v.name, url: v.url, events: (v.events || '*').split(',').map((e) => e.trim()).filter(Boolean) });
  let shown = '';
  const draw = async () => {
    const { webhooks } = await api.get('/api/webhooks/outbound');
    const deliveries = async (hook) => {
      const { deliveries: list } = await api.get(`/api/webhooks/outbound/${hook.id}/deliveries`);
      const close = dialog(`${t('Deliveries')}: ${hook.name}`, list.length ? table([
        [t('When'), (d) => moment(d.createdAt), 'nowrap'],
        [t('Events'), (d) => d.event],
        [t('Status'), (d) => term(d.status)],
        [t('Attempts'), (d) => String(d.attempts)],
        ['', (d) => h('button', { type: 'button', onclick: async () => {
          await api.post(`/api/webhooks/outbound/${hook.id}/deliveries/${d.id}/redeliver`);
          close();
          toast(t('Saved.'));
        } }, t('Redeliver'))],
      ], list, t('Deliveries')) : empty());
    };
    // test sends a test delivery and says how it went, once the sender has tried it.
    const test = async (w) => {
      let { delivery: d } = await api.post(`/api/webhooks/outbound/${w.id}/test`);
      for (let i = 0; i < 20 && !d.attempts; i++) {
        await new Promise((r) => setTimeout(r, 500));
        // Not yet listed (a page of newer deliveries, or the listing behind): ask again.
        d = (await api.get(`/api/webhooks/outbound/${w.id}/deliveries`)).deliveries.find((x) => x.id === d.id) || d;
      }
      const code = d.history.map((a) => a.statusCode).pop();
      toast(`${t('Test sent')}: ${term(d.status)}${code ? ` (HTTP ${code})` : ''}`);
    };
    main.replaceChildren(h('h1', {}, t('Webhooks')), shown,
      webhooks.length ? table([
        [t('Name'), (w) => w.name],
        [t('URL'), (w) => h('code', {}, w.url)],
        [t('Events'), (w) => h('code', {}, w.events.join(', '))],
        [t('Active'), (w) => (w.active ? '✓' : '—')],
        ['', (w) => h('div', { class: 'row-actions' },
          h('button', { type: 'button', onclick: () => deliveries(w) }, t('Deliveries')),
          can(ctx.workspace, 'webhooks:write') && [
            h('button', { type: 'button', onclick: () => test(w) }, t('Test')),
            edit(w.name, [...fields(w), field({ name: 'active', label: t('Active'), type: 'checkbox', value: w.active })],
              '/api/webhooks/outbound/' + w.id, (v) => ({ ...body(v), active: v.active }), draw),
            act(t('Rotate secret'), w.name, draw, async () => {
              shown = copyable(t('Secret'), (await api.post(`/api/webhooks/outbound/${w.id}/rotate-secret`)).secret);
            }, t('The old secret stops working now; the new one is shown once.')),
            act(t('Delete'), w.name, draw, () => api.del('/api/webhooks/outbound/' + w.id), gone())])],
      ], webhooks, t('Webhooks')) : empty(),
      can(ctx.workspace, 'webhooks:write') && section(t('Create'), form(fields({}), t('Create'), async (v) => {
        const res = await api.post('/api/webhooks/outbound', body(v));
        shown = copyable(t('Secret'), res.secret);
        await draw();
      })));
  };
  await draw();
  return draw;
}

async function profilePage(main, ctx) {
  const me = ctx.me;
  const link = await api.get('/api/me/whatsapp');
  const linkBox = h('div', {});
  const drawLink = (status) => {
    linkBox.replaceChildren(
      status.linked ? h('p', {}, `${t('Linked phone')}: ${status.phone} · ${status.workspaceName || ''}`) : h('p', {}, t('Not linked.')),
      h('button', { type: 'button', onclick: async () => {
        const code = await api.post('/api/me/whatsapp');
        linkBox.append(h('p', { class: 'code' }, `${t('Code')}: `, h('strong', { 'data-testid': 'link-code' }, code.code), ` (${t('valid for 10 minutes')})`));
      } }, t('Get a link code')),
      status.linked ? h('button', { type: 'button', class: 'ghost danger', onclick: async () => {
        await api.del('/api/me/whatsapp');
        drawLink(await api.get('/api/me/whatsapp'));
      } }, t('Unlink')) : '');
  };
  drawLink(link);
  main.replaceChildren(h('h1', {}, t('Profile')),
    section(t('Profile'), form([
      field({ name: 'firstName', label: t('Name'), value: me.firstName || '', limit: 'me.firstName' }),
      field({ name: 'language', label: t('Language'), type: 'select', value: (me.language || 'en').startsWith('es') ? 'es-MX' : 'en',
        options: [['en', 'English'], ['es-MX', 'Español (México)']] }),
      field({ name: 'theme', label: t('Theme'), type: 'select', value: me.theme || 'system',
        options: [['system', t('System')], ['light', t('Light')], ['dark', t('Dark')]] }),
      field({ name: 'currency', label: t('Currency'), value: me.currency || 'MXN', maxlength: 3 }),
    ], t('Save'), async (v) => {
      await api.patch('/api/me', { firstName: v.firstName || null, language: v.language, theme: v.theme, currency: (v.currency || '').toUpperCase() || null });
      setLanguage(v.language);
      await ctx.reloadSession();
      ctx.go('/app/profile');
      toast(t('Saved.'));
    })),
    section(t('Chat channel'), linkBox),
    exportSection(ctx),
    h('p', {}, h('a', { href: '/api/docs' }, t('API reference'))));
  return null;
}

export const pages = {
  '/app/goals': { title: 'Goals', render: goalsPage },
  '/app/debts': { title: 'Debts', render: debtsPage },
  '/app/recurring': { title: 'Recurring', render: recurringPage },
  '/app/reports': { title: 'Reports', render: reportsPage },
  '/app/team': { title: 'Team', render: teamPage },
  '/app/api-keys': { title: 'API keys', render: (...a) => import('./keys.js').then((m) => m.render(...a)) },
  '/app/proposals': { title: 'Proposals', render: (...a) => import('./proposals.js').then((m) => m.render(...a)) },
  '/app/webhooks': { title: 'Webhooks', render: webhooksPage },
  '/app/profile': { title: 'Profile', render: profilePage },
};
