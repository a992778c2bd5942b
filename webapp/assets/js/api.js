// The app's only way to the server: the public API, authenticated by the session cookie
// and the CSRF token the sign-in left in a readable cookie.

export class ApiError extends Error {
  constructor(status, body) {
    const err = (body && body.error) || {};
    super(err.message || `HTTP ${status}`);
    this.status = status;
    this.code = err.code || 'HTTP_' + status;
    this.details = err.details || null;
  }
}

let workspaceId = localStorage.getItem('finledger.workspace') || '';

export function setWorkspace(id) {
  workspaceId = id || '';
  if (id) localStorage.setItem('finledger.workspace', id);
  else localStorage.removeItem('finledger.workspace');
}

export function currentWorkspace() { return workspaceId; }

function csrf() {
  const m = document.cookie.match(/(?:^|;\s*)finledger_csrf=([^;]+)/);
  return m ? decodeURIComponent(m[1]) : '';
}

export function signedIn() { return csrf() !== ''; }

function headers(extra) {
  const h = { 'X-CSRF-Token': csrf(), ...extra };
  if (workspaceId) h['X-Workspace-Id'] = workspaceId;
  return h;
}

// writeHeaders are a change's headers: each change carries an idempotency key, so that
// a retried request is carried out once. A caller that may retry passes its own key.
function writeHeaders(extra) {
  return headers({ 'Idempotency-Key': crypto.randomUUID(), ...extra });
}

// request sends one API call and returns its JSON; a 401 sends the person to sign in.
export async function request(method, path, body, extra = {}) {
  const init = { method, credentials: 'same-origin', headers: method === 'GET' ? headers(extra) : writeHeaders(extra) };
  if (body instanceof FormData) init.body = body; // a file's upload
  else if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const res = await fetch(path, init);
  const text = await res.text();
  let json = null;
  if (text) {
    try { json = JSON.parse(text); } catch { json = null; }
  }
  if (!res.ok) {
    const err = new ApiError(res.status, json);
    if (res.status === 401) window.dispatchEvent(new CustomEvent('finledger:signed-out'));
    throw err;
  }
  return json;
}

export const get = (path) => request('GET', path);
export const post = (path, body, extra) => request('POST', path, body === undefined ? {} : body, extra);
export const patch = (path, body) => request('PATCH', path, body);
export const put = (path, body) => request('PUT', path, body);
export const del = (path) => request('DELETE', path);

// deleteOnLeave sends a deletion that must outlive the page being closed.
export function deleteOnLeave(path) {
  fetch(path, { method: 'DELETE', keepalive: true, credentials: 'same-origin', headers: writeHeaders({}) });
}

// file fetches a file of the API (a report, a receipt) as a Blob: an element's src or
// href cannot send the session's CSRF token.
export async function file(path) {
  const res = await fetch(path, { credentials: 'same-origin', headers: headers({}) });
  if (!res.ok) {
    let json = null;
    try { json = await res.json(); } catch { json = null; }
    throw new ApiError(res.status, json);
  }
  return res.blob();
}

// download fetches a file of the API (a report) and hands it to the browser.
export async function download(path, filename) {
  const url = URL.createObjectURL(await file(path));
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

// signOut ends the session on the server.
export async function signOut() {
  await fetch('/auth/logout', { method: 'POST', credentials: 'same-origin', headers: { 'X-CSRF-Token': csrf() } });
}

// liveEvents are the public events the stream carries (commands.HookEvents, but for
// webhook.test, which goes to webhooks only), and its reset.
const liveEvents = ['transaction.created', 'transaction.updated', 'transaction.deleted', 'wallet.created', 'wallet.updated',
  'category.created', 'budget.created', 'budget.threshold_reached', 'goal.deposit', 'goal.withdrawal', 'debt.payment',
  'recurring.paid', 'recurring.skipped', 'import.committed', 'import.undone', 'proposal.created', 'proposal.rejected',
  'proposal.settled', 'reset'];

// live opens the workspace's realtime stream and calls onEvent(name, data) for each
// event; it reconnects with a fresh token when the stream ends. It returns a function
// that closes it, whose promise ends once a token asked for meanwhile has come.
export function live(onEvent, onState) {
  let source = null;
  let closed = false;
  let retry = 1000;
  let asking = Promise.resolve();
  async function open() {
    if (closed) return;
    try {
      const ask = post('/api/realtime/token');
      asking = ask.catch(() => {});
      const { token } = await ask;
      if (closed) return;
      source = new EventSource('/api/realtime/events?token=' + encodeURIComponent(token));
      source.onopen = () => { retry = 1000; onState && onState(true); };
      for (const name of liveEvents) {
        source.addEventListener(name, (e) => {
          let data = null;
          try { data = JSON.parse(e.data); } catch { data = null; }
          onEvent(name, data);
        });
      }
      source.addEventListener('revoked', () => { source.close(); onState && onState(false); });
      source.onerror = () => {
        source.close();
        onState && onState(false);
        setTimeout(open, retry);
        retry = Math.min(retry * 2, 30000);
      };
    } catch {
      onState && onState(false);
      setTimeout(open, retry);
      retry = Math.min(retry * 2, 30000);
    }
  }
  open();
  return () => { closed = true; if (source) source.close(); return asking; };
}
