// The API keys page: the workspace's keys, a new one shown once, a key revoked, and what
// a key did undone since a moment. A module of its own, fetched when the page is opened:
// a page opened rarely does not weigh on every cold load (docs/webapp.md, page weight).
import * as api from './api.js';
import { t, moment } from './i18n.js';
import { h, field, form, fieldError, toast, table, empty, dialog, can, act, section } from './ui.js';
import { copyable } from './more.js';

const allScopes = ['transactions:read', 'transactions:write', 'wallets:read', 'wallets:write', 'categories:read', 'categories:write',
  'budgets:read', 'budgets:write', 'goals:read', 'goals:write', 'debts:read', 'debts:write', 'recurrent:read', 'recurrent:write',
  'tags:read', 'tags:write', 'reports:read', 'profile:read', 'profile:write', 'webhooks:read', 'webhooks:write', 'agent:context', 'team:manage'];

export async function render(main, ctx) {
  let shown = '';
  const mayManage = (k) => k.createdBy === ctx.me.id || can(ctx.workspace, 'team:manage');
  // undo reverses what a key did since a moment, and says what it reversed and left.
  const undo = (k) => {
    const close = dialog(`${t('Undo since…')}: ${k.name}`, form([
      field({ name: 'since', label: t('Since'), type: 'datetime-local', required: true }),
    ], t('Undo'), async (v) => {
      if (!v.since) throw fieldError('since', t('is required'));
      const res = await api.post(`/api/agents/${k.id}/undo`, { since: new Date(v.since).toISOString() });
      close();
      toast(`${t('Reversed')}: ${res.reversed.length} · ${t('Skipped')}: ${res.skipped.length}`);
      await draw();
    }));
  };
  const draw = async () => {
    const { apiKeys } = await api.get('/api/api-keys');
    main.replaceChildren(h('h1', {}, t('API keys')), shown,
      apiKeys.length ? table([
        [t('Name'), (k) => k.name],
        [t('Prefix'), (k) => h('code', {}, k.prefix)],
        [t('Scopes'), (k) => k.scopes.join(', ')],
        [t('Expires'), (k) => k.revokedAt ? t('Revoke') + ' · ' + moment(k.revokedAt) : k.expiresAt ? moment(k.expiresAt) : '—'],
        ['', (k) => !k.revokedAt && mayManage(k) && act(t('Revoke'), k.name, draw, () => {
          shown = '';
          return api.del('/api/api-keys/' + k.id);
        }, t('Whatever uses this key stops working at once.'))],
        ['', (k) => mayManage(k) && h('button', { type: 'button', 'aria-label': `${t('Undo since…')} ${k.name}`, onclick: () => undo(k) },
          t('Undo since…'))],
      ], apiKeys, t('API keys')) : empty(),
      section(t('Create'), form([
        field({ name: 'name', label: t('Name'), required: true, limit: 'apiKey.name' }),
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
