// The app's frame: sign-in, the workspace switcher, navigation between pages, the
// theme, and live updates from the workspace's realtime stream.
import * as api from './api.js';
import { t, term, setLanguage } from './i18n.js';
import { h, toast, dialog, keeping, setLimits } from './ui.js';
import { pages as corePages } from './pages.js';
import { pages as morePages } from './more.js';
import { pages as recordPages } from './records.js';
import { pages as ratePages } from './rates.js';

const pages = { ...corePages, ...morePages, ...recordPages, ...ratePages,
  // Pages opened rarely are fetched when opened, not on every cold load (docs/webapp.md).
  '/app/import': { title: 'Import', render: (...a) => import('./import.js').then((m) => m.render(...a)) },
  '/app/audit': { title: 'Audit log', render: (...a) => import('./audit.js').then((m) => m.render(...a)) } };
const nav = [
  ['/app/', 'Overview'], ['/app/transactions', 'Transactions'], ['/app/wallets', 'Wallets'], ['/app/budgets', 'Budgets'],
  ['/app/goals', 'Goals'], ['/app/debts', 'Debts'], ['/app/recurring', 'Recurring'], ['/app/import', 'Import'], ['/app/reports', 'Reports'], ['/app/rates', 'Exchange rates'],
  ['/app/categories', 'Categories'], ['/app/tags', 'Tags'], ['/app/team', 'Team'], ['/app/api-keys', 'API keys'], ['/app/proposals', 'Proposals'], ['/app/webhooks', 'Webhooks'],
  ['/app/audit', 'Audit log'], ['/app/profile', 'Profile'],
];

const state = { me: null, workspace: null, workspaces: [], refresh: null, closeLive: null };
const main = document.getElementById('main');

function applyTheme(theme) {
  const dark = theme === 'dark' || (theme !== 'light' && matchMedia('(prefers-color-scheme: dark)').matches);
  document.documentElement.dataset.theme = dark ? 'dark' : 'light';
}

async function signInPage() {
  document.querySelector('.top').hidden = true;
  const params = new URLSearchParams(location.search);
  // The page to return to (the server checks it).
  const next = params.get('next') || '/app/';
  let providers = { dev: false, oidc: false };
  try { providers = await (await fetch('/auth/providers')).json(); } catch { /* shown below */ }
  const box = h('section', { class: 'signin card' }, h('h1', {}, 'Finledger'));
  if (params.get('error')) box.append(h('p', { class: 'form-error', role: 'alert', 'data-reason': params.get('error') }, term(params.get('error'))));
  if (providers.oidc) box.append(h('a', { class: 'button primary', href: '/auth/login?next=' + encodeURIComponent(next) }, t('Sign in with your identity provider')));
  if (providers.dev) {
    box.append(h('form', { method: 'post', action: '/auth/dev' }, h('input', { type: 'hidden', name: 'next', value: next }),
      h('button', { type: 'submit', class: providers.oidc ? '' : 'primary' }, t('Sign in as the development user'))));
  }
  if (!providers.dev && !providers.oidc) box.append(h('p', {}, t('No way to sign in is configured on this server.')));
  main.replaceChildren(box);
  document.title = t('Sign in') + ' · Finledger';
}

async function loadSession() {
  const [me, workspaces, limits] = await Promise.all([api.get('/api/me'), api.get('/api/workspaces'), api.get('/api/limits')]);
  setLimits(limits);
  state.me = me.user;
  setLanguage(state.me.language || navigator.language);
  applyTheme(state.me.theme);
  state.workspaces = workspaces.workspaces;
  let ws = state.workspaces.find((w) => w.id === api.currentWorkspace());
  if (!ws) ws = state.workspaces.find((w) => w.id === state.me.personalWorkspaceId) || state.workspaces[0];
  state.workspace = ws;
  api.setWorkspace(ws.id);
}

function drawFrame() {
  const top = document.querySelector('.top');
  top.hidden = false;
  document.querySelector('.skip').textContent = t('Skip to content');
  const select = document.getElementById('workspace');
  select.previousElementSibling.textContent = t('Workspace');
  select.replaceChildren(...state.workspaces.map((w) =>
    h('option', { value: w.id, selected: w.id === state.workspace.id }, w.type === 'personal' ? t('Personal') : w.name)));
  select.onchange = () => {
    state.workspace = state.workspaces.find((w) => w.id === select.value);
    api.setWorkspace(state.workspace.id);
    startLive();
    route();
  };
  const menu = document.getElementById('menu');
  menu.textContent = t('Menu');
  const list = h('ul', {}, nav.map(([href, label]) => h('li', {}, h('a', { href, 'data-link': true }, t(label)))),
    h('li', {}, h('button', { type: 'button', class: 'ghost', onclick: signOut }, t('Sign out'))));
  const status = h('span', { class: 'live', id: 'live', title: t('Offline') }, t('Offline'));
  document.getElementById('nav').replaceChildren(list, status);
  menu.onclick = () => {
    const open = menu.getAttribute('aria-expanded') !== 'true';
    menu.setAttribute('aria-expanded', String(open));
    top.classList.toggle('open', open);
  };
}

async function signOut() {
  // A token still being asked for would be refused once signed out.
  if (state.closeLive) await state.closeLive();
  await api.signOut();
  location.href = '/app/signin';
}

// signInHere is the sign-in page, to come back here after.
const signInHere = () => '/app/signin?next=' + encodeURIComponent(location.pathname + location.search);

let refreshTimer = 0;
function startLive() {
  if (state.closeLive) state.closeLive();
  state.closeLive = api.live((name, data) => {
    if (name === 'proposal.created' && data?.data && location.pathname !== '/app/proposals') {
      toast(t('An API key asks for your approval') + ': ' + data.data.summary, { label: t('Review'), run: () => go('/app/proposals') }, 20);
    }
    // A burst of events (a bulk change) redraws once.
    clearTimeout(refreshTimer);
    refreshTimer = setTimeout(() => { if (state.refresh) keeping(state.refresh); }, 150);
  }, (up) => {
    const el = document.getElementById('live');
    if (!el) return;
    el.textContent = up ? t('Live') : t('Offline');
    el.dataset.up = String(up);
  });
}

let routed = 0;
async function route() {
  const path = location.pathname.replace(/\/+$/, '') || '/app';
  if (path === '/app/signin') return signInPage();
  const key = path === '/app' ? '/app/' : path;
  // /app/wallets/{id} is pages['/app/wallets/:id'].
  const [, kind, id] = key.match(/^(\/app\/\w+)\/([0-9a-f-]{36})$/) || [];
  const page = pages[key] || (id && pages[kind + '/:id']);
  for (const a of document.querySelectorAll('#nav a')) {
    if (a.getAttribute('href') === key) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  document.querySelector('.top').classList.remove('open');
  document.getElementById('menu').setAttribute('aria-expanded', 'false');
  if (!page) {
    main.replaceChildren(h('h1', {}, '404'));
    return;
  }
  document.title = t(page.title) + ' · Finledger';
  const ctx = { ...state, go, reloadSession, closeLive: () => state.closeLive?.(), id };
  state.refresh = null;
  // Each page draws into a view of its own, shown once drawn unless the person has moved
  // on: a redraw of the page left behind, still under way, draws into its own view, no
  // longer shown, never over this one.
  const view = h('div'), at = ++routed;
  try {
    const refresh = await page.render(view, ctx);
    if (at !== routed) return;
    main.replaceChildren(view);
    state.refresh = refresh;
  } catch (err) {
    if (at === routed && err.status !== 401) main.replaceChildren(h('h1', {}, t(page.title)), h('p', { class: 'form-error', role: 'alert' }, err.message));
  }
}

// go moves to a page of the app without reloading it.
function go(href) {
  history.pushState(null, '', href);
  const drawn = route();
  main.focus();
  return drawn;
}

// reloadSession reads the profile and workspaces again (after a change to either).
async function reloadSession() {
  await loadSession();
  drawFrame();
  startLive();
}

document.addEventListener('click', (e) => {
  const a = e.target.closest('a[data-link]');
  if (!a || e.ctrlKey || e.metaKey || e.shiftKey || a.target) return;
  e.preventDefault();
  go(a.getAttribute('href'));
});
window.addEventListener('popstate', route);
// A page left open in the back-forward cache would keep its stream, and a browser opens
// only six connections to a server over HTTP/1.1: close it on the way out.
window.addEventListener('pagehide', () => { if (state.closeLive) state.closeLive(); });
window.addEventListener('pageshow', (e) => { if (e.persisted && state.workspace) startLive(); });
window.addEventListener('finledger:signed-out', () => { if (location.pathname !== '/app/signin') location.href = signInHere(); });
window.addEventListener('unhandledrejection', (e) => {
  if (e.reason && e.reason.status === 401) return;
  toast((e.reason && e.reason.message) || t('Something went wrong.'));
});

async function boot() {
  if (location.pathname.startsWith('/app/signin') || !api.signedIn()) {
    if (location.pathname !== '/app/signin') history.replaceState(null, '', signInHere());
    return signInPage();
  }
  try {
    await loadSession();
  } catch (err) {
    if (err.status === 401) return;
    main.replaceChildren(h('p', { class: 'form-error', role: 'alert' }, err.message));
    return;
  }
  drawFrame();
  // The page's own reads go first; the stream's token can wait for them.
  await route();
  startLive();
}

// shortcuts are the keys that work outside fields: [key, what it does, action].
const shortcuts = [
  ['n', 'New transaction', () => reach('/app/', 'form.record [name=amount]')],
  ['/', 'Search transactions', () => reach('/app/transactions', '[name=search]')],
  ['j', 'Next page', () => pageTo(-1)], ['k', 'Previous page', () => pageTo(0)],
  ['?', 'Keyboard shortcuts', () => dialog(t('Keyboard shortcuts'), h('dl', { class: 'keys' },
    shortcuts.flatMap(([key, what]) => [h('dt', {}, h('kbd', {}, key)), h('dd', {}, t(what))])))],
];

// reach focuses a field of a page, going to the page first when elsewhere.
async function reach(href, selector) {
  if (!main.querySelector(selector)) await go(href);
  const el = main.querySelector(selector);
  if (!el) return;
  el.closest('details')?.setAttribute('open', '');
  el.focus();
}

// pageTo presses the pager's last button (next) or first (previous).
function pageTo(at) {
  const b = [...main.querySelectorAll('.pager button')].at(at);
  if (b && !b.disabled) b.click();
}

document.addEventListener('keydown', (e) => {
  if (e.ctrlKey || e.metaKey || e.altKey || e.target.matches('input,select,textarea,[contenteditable]')
    || document.querySelector('dialog[open]') || !state.workspace) return;
  const found = shortcuts.find(([key]) => key === e.key);
  if (!found) return;
  e.preventDefault();
  found[2]();
});

boot();
