// The rest of the app: goals, debts, recurring payments, reports, the team, API keys,
// webhooks, the audit log and the profile.
import * as api from './api.js';
import { t, term, money, day, moment, today, monthName, setLanguage } from './i18n.js';
import { h, field, amountField, form, decimal, fieldError, toast, progress, table, empty, dialog } from './ui.js';
import { rateNotice, monthStats } from './rates.js';

const walletOptions = (wallets) => wallets.map((w) => [w.id, `${w.name} (${w.currency})`]);

function positive(v, name = 'amount') {
  const amount = decimal(v[name] || '');
  if (amount === null || amount <= 0) throw fieldError(name, 'a positive amount with at most two decimals');
  return amount;
}

// section is a titled card holding a form.
const section = (title, content) => {
  const id = 'h-' + title.toLowerCase().replace(/\W+/g, '-');
  return h('section', { class: 'card narrow', 'aria-labelledby': id }, h('h2', { id }, title), content);
};

async function goalsPage(main, ctx) {
  const draw = async () => {
    const [{ goals }, { wallets }] = await Promise.all([api.get('/api/goals'), api.get('/api/wallets')]);
    const move = (g, kind) => {
      const close = dialog(`${t(kind === 'deposit' ? 'Deposit' : 'Withdraw')}: ${g.name}`, form([
        amountField('amount', t('Amount')),
        field({ name: 'walletId', label: t('Wallet'), type: 'select', options: walletOptions(wallets) }),
      ], t(kind === 'deposit' ? 'Deposit' : 'Withdraw'), async (v) => {
        await api.post(`/api/goals/${g.id}/${kind}`, { amount: positive(v), walletId: v.walletId, date: today() });
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
        h('div', { class: 'row-actions' },
          h('button', { type: 'button', onclick: () => move(g, 'deposit') }, t('Deposit')),
          h('button', { type: 'button', onclick: () => move(g, 'withdraw') }, t('Withdraw')))))) : empty(),
      section(t('New goal'), form([
        field({ name: 'name', label: t('Name'), required: true, maxlength: 100 }),
        amountField('targetAmount', t('Target')),
        field({ name: 'currency', label: t('Currency'), value: ctx.workspace.currency, maxlength: 3 }),
        field({ name: 'deadline', label: t('Deadline'), type: 'date' }),
      ], t('Create'), async (v) => {
        await api.post('/api/goals', { name: v.name, targetAmount: positive(v, 'targetAmount'), currency: v.currency, deadline: v.deadline || null });
        toast(t('Saved.'));
        await draw();
      })));
  };
  await draw();
  return draw;
}

async function debtsPage(main, ctx) {
  const draw = async () => {
    const [{ debts }, { wallets }] = await Promise.all([api.get('/api/debts'), api.get('/api/wallets')]);
    const pay = (d) => {
      const close = dialog(`${t('Pay')}: ${d.name}`, form([
        amountField('amount', t('Amount')),
        field({ name: 'walletId', label: t('Wallet'), type: 'select', options: walletOptions(wallets) }),
      ], t('Pay'), async (v) => {
        await api.post(`/api/debts/${d.id}/payments`, { amount: positive(v), walletId: v.walletId, date: today() });
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
        ['', (d) => h('button', { type: 'button', onclick: () => pay(d), 'aria-label': `${t('Pay')} ${d.name}` }, t('Pay'))],
      ], debts, t('Debts')) : empty(),
      section(t('New debt'), form([
        field({ name: 'name', label: t('Name'), required: true, maxlength: 100 }),
        field({ name: 'creditor', label: t('Creditor'), maxlength: 100 }),
        amountField('totalAmount', t('Total')),
        field({ name: 'currency', label: t('Currency'), value: ctx.workspace.currency, maxlength: 3 }),
        field({ name: 'dueDate', label: t('Deadline'), type: 'date' }),
      ], t('Create'), async (v) => {
        await api.post('/api/debts', { name: v.name, creditor: v.creditor || null, totalAmount: positive(v, 'totalAmount'),
          currency: v.currency, dueDate: v.dueDate || null });
        toast(t('Saved.'));
        await draw();
      })));
  };
  await draw();
  return draw;
}

async function recurringPage(main) {
  const draw = async () => {
    const [{ recurrent }, { wallets }, { categories }] = await Promise.all([api.get('/api/recurrent'), api.get('/api/wallets'),
      api.get('/api/categories')]);
    const names = Object.fromEntries(wallets.map((w) => [w.id, w]));
    main.replaceChildren(h('h1', {}, t('Recurring')),
      recurrent.length ? table([
        [t('Name'), (r) => r.name],
        [t('Amount'), (r) => money(r.amount, (names[r.walletId] || {}).currency || 'MXN')],
        [t('Frequency'), (r) => term(r.periodicity)],
        [t('Next payment'), (r) => day(r.nextPayment)],
        // Cycles owed beyond the 12 paid late are skipped (README, "At most 12 cycles").
        [t('Skipped'), (r) => (r.lastSkip ? `${r.lastSkip.cycles} (${day(r.lastSkip.firstDue)} – ${day(r.lastSkip.lastDue)})` : '')],
        ['', (r) => h('button', { type: 'button', 'aria-label': `${t('Pay now')} ${r.name}`, onclick: async () => {
          await api.post(`/api/recurrent/${r.id}/pay`, { date: today() });
          toast(t('Saved.'));
          await draw();
        } }, t('Pay now'))],
      ], recurrent, t('Recurring')) : empty(),
      section(t('Create'), form([
        field({ name: 'name', label: t('Name'), required: true, maxlength: 100 }),
        amountField('amount', t('Amount')),
        field({ name: 'kind', label: t('Type'), type: 'select', value: 'expense', options: [['expense', t('Expense')], ['income', t('Income')]] }),
        field({ name: 'periodicity', label: t('Frequency'), type: 'select', value: 'monthly',
          options: ['weekly', 'biweekly', 'semi_monthly', 'monthly', 'quarterly', 'yearly'].map((p) => [p, term(p)]) }),
        field({ name: 'walletId', label: t('Wallet'), type: 'select', options: walletOptions(wallets) }),
        field({ name: 'categoryId', label: t('Category'), type: 'select', options: categories.map((c) => [c.id, c.name]) }),
        field({ name: 'nextPayment', label: t('Next payment'), type: 'date', value: today() }),
      ], t('Create'), async (v) => {
        await api.post('/api/recurrent', { ...v, amount: positive(v) });
        toast(t('Saved.'));
        await draw();
      })));
  };
  await draw();
  return draw;
}

// chart draws the month's expenses by category as horizontal bars (an SVG, so it needs
// no library), largest first.
function chart(categories) {
  if (!categories.length) return empty();
  const max = Math.max(...categories.map((c) => Number(c.total)));
  const row = 28;
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('viewBox', `0 0 600 ${categories.length * row}`);
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', t('Expenses by category') + ': ' + categories.map((c) => `${c.name} ${money(c.total, c.currency)}`).join(', '));
  svg.setAttribute('class', 'chart');
  categories.forEach((c, i) => {
    const add = (tag, attrs, text) => {
      const el = document.createElementNS('http://www.w3.org/2000/svg', tag);
      for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
      if (text) el.textContent = text;
      svg.append(el);
    };
    const width = max > 0 ? (Number(c.total) / max) * 300 : 0;
    add('text', { x: 0, y: i * row + 18, class: 'label' }, c.name);
    add('rect', { x: 160, y: i * row + 6, width: Math.max(width, 1), height: 16, rx: 3, class: 'fill' });
    add('text', { x: 170 + width, y: i * row + 18, class: 'value' }, money(c.total, c.currency));
  });
  return svg;
}

async function reportsPage(main) {
  const month = new URLSearchParams(location.search).get('month') || today().slice(0, 7);
  const s = await api.get('/api/reports/monthly-summary?month=' + month);
  const change = s.comparison.percentageChange;
  const first = month + '-01';
  const last = new Date(Date.UTC(Number(month.slice(0, 4)), Number(month.slice(5, 7)), 0)).toISOString().slice(0, 10);
  const picker = form([field({ name: 'month', label: t('Month'), type: 'month', value: month })], t('Apply'), async (v) => {
    history.replaceState(null, '', '/app/reports?month=' + v.month);
    await reportsPage(main);
  }, { class: 'form filters' });
  const download = (format) => api.download(`/api/reports?from=${first}&to=${last}&format=${format}`, `finledger-${month}.${format}`)
    .catch((err) => toast(err.message));
  main.replaceChildren(h('h1', {}, t('Reports')), picker, rateNotice(s.missingRates),
    h('section', { class: 'card', 'aria-labelledby': 'h-summary' }, h('h2', { id: 'h-summary' }, monthName(month)),
      h('div', { class: 'totals' }, monthStats(s, t('Income'), t('Expenses this month')),
        h('div', { class: 'stat' }, h('span', {}, t('Change against the month before')),
          h('strong', { 'data-testid': 'change' }, change === null ? '—' : `${change > 0 ? '+' : ''}${change}%`))),
      h('h3', {}, t('Expenses by category')), chart(s.topCategories)),
    h('div', { class: 'row-actions' },
      h('button', { type: 'button', onclick: () => download('csv') }, t('Download CSV')),
      h('button', { type: 'button', onclick: () => download('pdf') }, t('Download PDF'))));
  return () => reportsPage(main);
}

async function teamPage(main, ctx) {
  const ws = ctx.workspace;
  const teamForm = section(t('New team'), form([
    field({ name: 'name', label: t('Name'), required: true, maxlength: 100 }),
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
  const draw = async () => {
    const { members } = await api.get(`/api/workspaces/${ws.id}/members`);
    const roles = ['owner', 'admin', 'collaborator', 'reader'];
    main.replaceChildren(h('h1', {}, `${t('Team')}: ${ws.name}`),
      table([
        [t('Name'), (m) => m.name || m.email],
        [t('Email'), (m) => m.email],
        [t('Role'), (m) => m.userId ? h('select', { 'aria-label': `${t('Role')} ${m.email}`, onchange: async (e) => {
          await api.patch(`/api/workspaces/${ws.id}/members/${m.userId}`, { role: e.target.value }).catch((err) => toast(err.message));
          await draw();
        } }, roles.map((r) => h('option', { value: r, selected: r === m.role }, term(r)))) : term(m.role)],
        [t('Status'), (m) => term(m.status)],
        ['', (m) => m.userId ? h('button', { type: 'button', class: 'ghost danger', 'aria-label': `${t('Remove')} ${m.email}`, onclick: async () => {
          await api.del(`/api/workspaces/${ws.id}/members/${m.userId}`).catch((err) => toast(err.message));
          await draw();
        } }, t('Remove')) : ''],
      ], members, t('Members')),
      section(t('Invite'), form([
        field({ name: 'email', label: t('Email'), type: 'email', required: true }),
        field({ name: 'role', label: t('Role'), type: 'select', value: 'collaborator', options: roles.map((r) => [r, term(r)]) }),
      ], t('Invite'), async (v) => {
        await api.post(`/api/workspaces/${ws.id}/members`, v);
        toast(t('Saved.'));
        await draw();
      })), teamForm);
  };
  await draw();
  return draw;
}

const allScopes = ['transactions:read', 'transactions:write', 'wallets:read', 'wallets:write', 'categories:read', 'categories:write',
  'budgets:read', 'budgets:write', 'goals:read', 'goals:write', 'debts:read', 'debts:write', 'recurrent:read', 'recurrent:write',
  'tags:read', 'tags:write', 'reports:read', 'profile:read', 'profile:write', 'webhooks:read', 'webhooks:write', 'agent:context', 'team:manage'];

// copyable shows a secret once with a button that copies it.
function copyable(label, secret) {
  const out = h('output', { class: 'secret', 'data-testid': 'secret' }, secret);
  return h('div', { class: 'card once', role: 'alert' }, h('p', {}, label), out,
    h('button', { type: 'button', class: 'primary', onclick: async () => {
      try { await navigator.clipboard.writeText(secret); toast(t('Copied.')); } catch {
        getSelection().selectAllChildren(out);
      }
    } }, t('Copy')));
}

async function apiKeysPage(main) {
  let shown = null;
  const draw = async () => {
    const { apiKeys } = await api.get('/api/api-keys');
    main.replaceChildren(h('h1', {}, t('API keys')), shown,
      apiKeys.length ? table([
        [t('Name'), (k) => k.name],
        [t('Prefix'), (k) => h('code', {}, k.prefix)],
        [t('Scopes'), (k) => k.scopes.join(', ')],
        [t('Expires'), (k) => k.revokedAt ? t('Revoke') + ' · ' + moment(k.revokedAt) : k.expiresAt ? moment(k.expiresAt) : '—'],
        ['', (k) => k.revokedAt ? '' : h('button', { type: 'button', class: 'ghost danger', 'aria-label': `${t('Revoke')} ${k.name}`, onclick: async () => {
          await api.del('/api/api-keys/' + k.id);
          shown = null;
          await draw();
        } }, t('Revoke'))],
      ], apiKeys, t('API keys')) : empty(),
      section(t('Create'), form([
        field({ name: 'name', label: t('Name'), required: true, maxlength: 80 }),
        h('fieldset', { class: 'scopes' }, h('legend', {}, t('Scopes')),
          allScopes.map((s) => field({ name: 'scope:' + s, label: s, type: 'checkbox', value: s.endsWith(':read') }))),
      ], t('Create'), async (v) => {
        const scopes = allScopes.filter((s) => v['scope:' + s]);
        const res = await api.post('/api/api-keys', { name: v.name, scopes });
        shown = copyable(t('This key is shown once. Copy it now.'), res.plaintext);
        await draw();
      })));
  };
  await draw();
  return null;
}

async function webhooksPage(main) {
  let shown = null;
  const draw = async () => {
    const { webhooks } = await api.get('/api/webhooks/outbound');
    const deliveries = async (hook) => {
      const { deliveries: list } = await api.get(`/api/webhooks/outbound/${hook.id}/deliveries`);
      const close = dialog(`${t('Deliveries')}: ${hook.name}`, list.length ? table([
        [t('When'), (d) => moment(d.createdAt)],
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
    main.replaceChildren(h('h1', {}, t('Webhooks')), shown,
      webhooks.length ? table([
        [t('Name'), (w) => w.name],
        [t('URL'), (w) => h('code', {}, w.url)],
        [t('Events'), (w) => w.events.join(', ')],
        [t('Active'), (w) => (w.active ? '✓' : '—')],
        ['', (w) => h('div', { class: 'row-actions' },
          h('button', { type: 'button', onclick: () => deliveries(w) }, t('Deliveries')),
          h('button', { type: 'button', onclick: async () => { await api.post(`/api/webhooks/outbound/${w.id}/test`); toast(t('Saved.')); } }, t('Test')),
          h('button', { type: 'button', class: 'ghost danger', 'aria-label': `${t('Delete')} ${w.name}`, onclick: async () => {
            await api.del('/api/webhooks/outbound/' + w.id);
            await draw();
          } }, t('Delete')))],
      ], webhooks, t('Webhooks')) : empty(),
      section(t('Create'), form([
        field({ name: 'name', label: t('Name'), required: true, maxlength: 100 }),
        field({ name: 'url', label: t('URL'), type: 'url', required: true, placeholder: 'https://' }),
        field({ name: 'events', label: t('Events'), value: '*' }),
      ], t('Create'), async (v) => {
        const res = await api.post('/api/webhooks/outbound', { name: v.name, url: v.url,
          events: (v.events || '*').split(',').map((e) => e.trim()).filter(Boolean) });
        shown = copyable(t('Secret'), res.secret);
        await draw();
      })));
  };
  await draw();
  return draw;
}

async function auditPage(main) {
  let page = 1;
  const draw = async () => {
    const res = await api.get(`/api/audit?page=${page}&pageSize=25`);
    const entries = res.entries;
    const pages = Math.max(1, Math.ceil(res.pagination.total / 25));
    main.replaceChildren(h('h1', {}, t('Audit log')),
      entries.length ? table([
        [t('When'), (e) => moment(e.occurredAt)],
        [t('Action'), (e) => e.action],
        [t('Entity'), (e) => e.entity],
        [t('Actor'), (e) => e.actorType],
      ], entries, t('Audit log')) : empty(),
      h('nav', { class: 'pager', 'aria-label': t('Page') },
        h('button', { type: 'button', disabled: page <= 1, onclick: () => { page--; draw(); } }, t('Previous')),
        h('span', {}, `${t('Page')} ${page} ${t('of')} ${pages}`),
        h('button', { type: 'button', disabled: page >= pages, onclick: () => { page++; draw(); } }, t('Next'))));
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
      } }, t('Unlink')) : null);
  };
  drawLink(link);
  main.replaceChildren(h('h1', {}, t('Profile')),
    section(t('Profile'), form([
      field({ name: 'firstName', label: t('Name'), value: me.firstName || '', maxlength: 100 }),
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
    h('p', {}, h('a', { href: '/api/docs' }, 'API reference')));
  return null;
}

export const pages = {
  '/app/goals': { title: 'Goals', render: goalsPage },
  '/app/debts': { title: 'Debts', render: debtsPage },
  '/app/recurring': { title: 'Recurring', render: recurringPage },
  '/app/reports': { title: 'Reports', render: reportsPage },
  '/app/team': { title: 'Team', render: teamPage },
  '/app/api-keys': { title: 'API keys', render: apiKeysPage },
  '/app/webhooks': { title: 'Webhooks', render: webhooksPage },
  '/app/audit': { title: 'Audit log', render: auditPage },
  '/app/profile': { title: 'Profile', render: profilePage },
};
