// The import page: a bank's file read into a preview (its columns mapped by the person
// where its header does not name them), its rows reviewed, a probable duplicate beside the
// transaction it matches, committed as one, and the history of imports with undo. A
// module of its own, fetched when the page is opened (docs/webapp.md, page weight), with
// its own words and styles.
import * as api from './api.js';
import { t, term, say, money, day, moment, learn } from './i18n.js';
import { h, field, form, toast, table, empty, confirmed, pager, sheet } from './ui.js';
import { units, text } from './sums.js';

learn({
  'Upload a statement': 'Subir un estado de cuenta', 'Statement file': 'Archivo del estado de cuenta',
  'Preview': 'Vista previa', 'Import history': 'Historial de importaciones',
  'CSV, OFX, QFX, QIF, CAMT or MT940 from your bank; or drop the file on this page. Nothing is recorded until you commit.':
    'CSV, OFX, QFX, QIF, CAMT o MT940 de tu banco; o suelta el archivo en esta página. Nada se registra hasta que confirmes.',
  'Choose a file.': 'Elige un archivo.', 'Reading…': 'Leyendo…',
  'Which column holds what?': '¿Qué columna tiene qué?',
  'The file does not say plainly which of its columns hold the date and the amount: choose them. The preview follows each choice.':
    'El archivo no dice claramente qué columnas tienen la fecha y el monto: elígelas. La vista previa sigue cada elección.',
  'Column': 'Columna', 'Ignore': 'Ignorar', 'Value date': 'Fecha valor', 'Debit': 'Cargo', 'Credit': 'Abono', 'Payee': 'Beneficiario',
  'Memo': 'Nota', 'Reference': 'Referencia', 'Date order': 'Orden de la fecha', 'Decimal separator': 'Separador decimal',
  'From the file': 'Según el archivo', 'Day/month/year': 'Día/mes/año', 'Month/day/year': 'Mes/día/año',
  'Point (1,250.50)': 'Punto (1,250.50)', 'Comma (1.250,50)': 'Coma (1.250,50)',
  'Save as profile for this wallet': 'Guardar como perfil de esta cartera',
  'Choose the columns of the date and of the amount (or debit and credit).': 'Elige las columnas de la fecha y del monto (o cargo y abono).',
  'Still needed': 'Falta', 'The dates read both as day/month and as month/day. Which is it?': 'Las fechas se leen como día/mes y como mes/día. ¿Cuál es?',
  'The file holds several accounts. Which one?': 'El archivo tiene varias cuentas. ¿Cuál?', 'Account': 'Cuenta',
  'Rows': 'Filas', 'New': 'Nuevos', 'Duplicates': 'Duplicados', 'Probable': 'Probables', 'Money in': 'Entra',
  'Money out': 'Sale', 'Balance now': 'Saldo ahora', 'Balance after': 'Saldo después', 'Statement balance': 'Saldo del estado de cuenta',
  'Difference': 'Diferencia', 'Show': 'Mostrar', 'Verdict': 'Veredicto', 'Decision': 'Decisión', 'Rows shown': 'Filas mostradas',
  'In the file': 'En el archivo', 'Already recorded': 'Ya registrado', 'Merge': 'Fusionar', 'Import as new': 'Importar como nuevo',
  'Skip': 'Omitir', 'Always do this': 'Hacer esto siempre', 'Rule created': 'Regla creada', 'Commit': 'Confirmar',
  'to import': 'por importar', 'to merge': 'por fusionar', 'Imported': 'Importado', 'merged': 'fusionados', 'skipped': 'omitidos',
  'created': 'creados', 'File': 'Archivo', 'Format': 'Formato', 'Created': 'Creados', 'Merged': 'Fusionados', 'Open': 'Abrir',
  'Every transaction it created is deleted and every merge undone; the file can be imported again.':
    'Se eliminan los movimientos que creó y se deshacen sus fusiones; el archivo se puede importar de nuevo.',
  'Import undone.': 'Importación deshecha.', 'line': 'línea', 'This import was committed elsewhere.': 'Esta importación se confirmó en otro lado.',
  // why a row is what it is (the preview's reasons)
  'this row is already in the wallet': 'esta fila ya está en la cartera',
  'the same row is row # of this file': 'la misma fila es la fila # de este archivo',
  'nothing in the wallet is like it': 'nada en la cartera se le parece', 'same amount, # days apart': 'mismo monto, a # días',
  'same amount, # days apart, alike payee': 'mismo monto, a # días, beneficiario parecido',
  'same amount and date, alike payee': 'mismo monto y fecha, beneficiario parecido',
  'same amount and date; the transaction names no payee': 'mismo monto y fecha; el movimiento no nombra beneficiario',
  'chosen by hand': 'elegido a mano',
}, {
  preview: ['In review', 'En revisión'], committed: ['Imported', 'Importado'], undone: ['Undone', 'Deshecho'],
  new: ['New', 'Nuevo'], duplicate: ['Duplicate', 'Duplicado'], probable: ['Probable duplicate', 'Posible duplicado'],
  import: ['Import', 'Importar'], skip: ['Skip', 'Omitir'], merge: ['Merge', 'Fusionar'],
  date: ['Date', 'Fecha'], amount: ['Amount', 'Monto'],
  IMPORT_FORMAT_UNKNOWN: ['This is not a statement file Finledger reads: CSV, OFX, QFX, QIF, CAMT or MT940.', 'Este no es un estado de cuenta que Finledger lea: CSV, OFX, QFX, QIF, CAMT o MT940.'],
  IMPORT_FILE_INVALID: ['The file is damaged or not as its format says.', 'El archivo está dañado o no es como dice su formato.'],
  IMPORT_FILE_TOO_LARGE: ['The file is too large: split it.', 'El archivo es demasiado grande: divídelo.'],
  IMPORT_ENCODING_INVALID: ['The file\'s characters cannot be read.', 'No se pueden leer los caracteres del archivo.'],
  IMPORT_CURRENCY_MISMATCH: ['The file is in another currency than the wallet.', 'El archivo está en otra moneda que la cartera.'],
  IMPORT_TOO_MANY_ROWS: ['The file holds too many rows: split it.', 'El archivo tiene demasiadas filas: divídelo.'],
  IMPORT_MAPPING_REQUIRED: ['Choose which columns hold the date and the amount.', 'Elige qué columnas tienen la fecha y el monto.'],
  IMPORT_DATE_ORDER_REQUIRED: ['The dates read both as day/month and as month/day: choose the date order.', 'Las fechas se leen como día/mes y como mes/día: elige el orden de la fecha.'],
  IMPORT_ACCOUNT_REQUIRED: ['The file holds several accounts: choose one.', 'El archivo tiene varias cuentas: elige una.'],
  IMPORT_ALREADY_COMMITTED: ['This import is already committed.', 'Esta importación ya está confirmada.'],
  IMPORT_ALREADY_UNDONE: ['This import is already undone.', 'Esta importación ya está deshecha.'],
  IMPORT_ROWS_ALREADY_IMPORTED: ['Some rows were imported since this preview: upload the file again.', 'Algunas filas se importaron desde esta vista previa: sube el archivo de nuevo.'],
  IMPORT_NOT_IN_PREVIEW: ['This import is no longer in review.', 'Esta importación ya no está en revisión.'],
  IMPORT_NOT_FOUND: ['That import does not exist any more.', 'Esa importación ya no existe.'],
  IMPORT_ROW_DUPLICATE: ['The row is a duplicate: it cannot be imported.', 'La fila es un duplicado: no se puede importar.'],
  IMPORT_ROW_NO_MATCH: ['The row matches no transaction to merge with.', 'La fila no coincide con ningún movimiento para fusionar.'],
  IMPORT_MERGE_REFUSED: ['That transaction cannot be merged with this row.', 'Ese movimiento no se puede fusionar con esta fila.'],
  IMPORT_PROFILE_NOT_FOUND: ['That import profile does not exist any more.', 'Ese perfil de importación ya no existe.'],
});

// pageRows is how many rows of a preview are drawn at once: a statement of thousands of
// rows is reviewed a page at a time, never drawn whole.
const pageRows = 100;

// roles are what a CSV's column may hold: the mapping's field and its name.
const roles = [['', 'Ignore'], ['date', 'Date'], ['valueDate', 'Value date'], ['amount', 'Amount'], ['debit', 'Debit'],
  ['credit', 'Credit'], ['payee', 'Payee'], ['memo', 'Memo'], ['externalId', 'Reference'], ['currency', 'Currency'],
  ['description', 'Description']];

// shows are the filters of a preview's rows: [key, label, holds(row)].
const shows = [['all', 'All', () => true], ['new', 'New', (r) => r.match.verdict === 'new'],
  ['duplicate', 'Duplicates', (r) => r.match.verdict === 'duplicate'], ['probable', 'Probable', (r) => r.match.verdict === 'probable'],
  ['skip', 'Skipped', (r) => r.decision === 'skip']];

// refusal says what an API refusal means, in the person's language.
function refusal(err) {
  const words = term(err.code) !== err.code ? term(err.code) : say(err.message || 'Something went wrong.');
  const line = err.details && err.details.line;
  return line ? `${words} (${t('line')} ${line})` : words;
}

// summarize counts a preview's rows and where the wallet's balance would stand, as the
// API's summary does, in exact ten-thousandths: a changed decision updates it at once.
function summarize(imp) {
  const s = { rows: imp.rows.length, new: 0, duplicate: 0, probable: 0, import: 0, skip: 0, merge: 0 };
  let into = 0n, out = 0n, after = units(imp.summary.walletBalance);
  for (const r of imp.rows) {
    s[r.match.verdict]++;
    s[r.decision]++;
    if (r.decision !== 'import') continue;
    const n = units(r.amount);
    after += n;
    if (n < 0n) out -= n; else into += n;
  }
  const close = imp.statement && imp.statement.closingBalance;
  return { ...s, moneyIn: text(into, 4, 4), moneyOut: text(out, 4, 4), walletBalance: imp.summary.walletBalance,
    balanceAfter: text(after, 4, 4), difference: close == null ? null : text(units(close) - after, 4, 4) };
}

// signedAmount is a statement row's amount: money out negative.
function signedAmount(amount, currency) {
  const out = String(amount).startsWith('-');
  return h('span', { class: 'amount ' + (out ? 'out' : 'in') }, (out ? '−' : '+') + money(String(amount).replace('-', ''), currency));
}

export async function render(main, ctx) {
  await sheet('/app/import.css');
  const [{ wallets }, { categories }] = await Promise.all([api.get('/api/wallets'), api.get('/api/categories')]);
  const walletOf = (id) => wallets.find((w) => w.id === id) || { name: '—', currency: 'MXN' };
  // session is what is under way: the file sent, how it is read, and its preview.
  // committing is the import this page is committing, whose own live update is not news.
  const session = { file: null, walletId: '', mapping: null, dateOrder: '', account: '', saveProfile: false, imp: null,
    show: 'all', page: 1, busy: 0, matched: new Map(), offers: new Map(), committing: null };
  const stage = h('div', { class: 'import-stage' });
  const history = h('section', { class: 'card', 'aria-labelledby': 'h-import-history' });
  let historyPage = 1;

  // send uploads the file as it is to be read, and returns its preview.
  async function send() {
    const body = new FormData();
    body.append('file', session.file, session.file.name);
    if (session.mapping) body.append('mapping', JSON.stringify(session.mapping));
    const q = new URLSearchParams({ walletId: session.walletId });
    if (session.dateOrder) q.set('dateOrder', session.dateOrder);
    if (session.account) q.set('account', session.account);
    const before = session.imp;
    const imp = (await api.post('/api/imports?' + q, body)).import;
    // The preview this one replaces (the same file read another way) is discarded.
    if (before && before.status === 'preview' && before.id !== imp.id) api.del(`/api/imports/${before.id}`).catch(() => {});
    return imp;
  }

  // start reads a file picked or dropped into the chosen wallet.
  async function start(file, walletId) {
    Object.assign(session, { file, walletId, mapping: null, dateOrder: '', account: '', saveProfile: false, imp: null, show: 'all', page: 1 });
    stage.replaceChildren(h('p', { class: 'muted', role: 'status' }, t('Reading…')));
    try {
      review(await send(), stage);
    } catch (err) {
      refused(err);
    }
  }

  // refused shows what the file needs before it can be previewed, or why it cannot be.
  function refused(err) {
    if (err.code === 'IMPORT_MAPPING_REQUIRED') return mapColumns(err.details || {});
    if (err.code === 'IMPORT_DATE_ORDER_REQUIRED' || err.code === 'IMPORT_ACCOUNT_REQUIRED') return ask(err);
    stage.replaceChildren(h('p', { class: 'form-error', role: 'alert', 'data-code': err.code }, refusal(err)));
  }

  // ask asks the one thing a file leaves open (its dates' order, which of its accounts),
  // and sends it again with the answer.
  function ask(err) {
    const dates = err.code === 'IMPORT_DATE_ORDER_REQUIRED';
    const options = dates ? [['', '—'], ['DMY', t('Day/month/year')], ['MDY', t('Month/day/year')]]
      : [['', '—'], ...((err.details && err.details.accounts) || []).map((a) => [a, a])];
    const choice = field({ name: dates ? 'dateOrder' : 'account', label: dates ? t('Date order') : t('Account'), type: 'select', options });
    choice.querySelector('select').addEventListener('change', async (e) => {
      session[dates ? 'dateOrder' : 'account'] = e.target.value;
      if (!e.target.value) return;
      try { review(await send(), stage); } catch (again) { refused(again); }
    });
    const samples = dates && err.details && err.details.dates;
    stage.replaceChildren(h('section', { class: 'card', 'aria-label': t('Preview') },
      h('p', {}, dates ? t('The dates read both as day/month and as month/day. Which is it?') : t('The file holds several accounts. Which one?')),
      samples ? h('p', { class: 'muted' }, samples.join(' · ')) : null, choice));
  }

  // mapColumns shows the file's sample rows with a choice above each column; each
  // change sends the file again with the mapping and shows its preview below.
  function mapColumns(details) {
    const columns = details.columns || [];
    const m = { date: 0, valueDate: 0, amount: 0, debit: 0, credit: 0, payee: 0, memo: 0, externalId: 0, currency: 0, description: 0,
      dateOrder: '', decimalSeparator: '' };
    const status = h('p', { class: 'muted', role: 'status', 'aria-live': 'polite' }, t('Choose the columns of the date and of the amount (or debit and credit).'));
    const preview = h('div', { class: 'mapped' });
    const selects = columns.map((name, i) => h('select', { 'aria-label': `${t('Column')} ${i + 1}: ${name}`, 'data-column': i + 1,
      onchange: (e) => {
        for (const other of selects) if (other !== e.target && other.value === e.target.value) other.value = '';
        soon();
      } }, roles.map(([role, label]) => h('option', { value: role }, t(label)))));
    const option = (name, label, list) => {
      const box = field({ name, label, type: 'select', options: list });
      box.querySelector('select').addEventListener('change', soon);
      return box;
    };
    const order = option('dateOrder', t('Date order'), [['', t('From the file')], ['DMY', t('Day/month/year')], ['MDY', t('Month/day/year')]]);
    const decimal = option('decimalSeparator', t('Decimal separator'), [['', t('From the file')], ['.', t('Point (1,250.50)')], [',', t('Comma (1.250,50)')]]);
    const keep = field({ name: 'saveProfile', label: t('Save as profile for this wallet'), type: 'checkbox' });
    keep.querySelector('input').addEventListener('change', (e) => { session.saveProfile = e.target.checked; });
    let timer = 0, sent = 0;
    function soon() {
      clearTimeout(timer);
      timer = setTimeout(read, 350);
    }
    // read sends the file with the mapping as chosen now; an older answer arriving
    // after a newer one is dropped.
    async function read() {
      for (const k of Object.keys(m)) if (typeof m[k] === 'number') m[k] = 0;
      selects.forEach((s, i) => { if (s.value) m[s.value] = i + 1; });
      m.dateOrder = order.querySelector('select').value;
      m.decimalSeparator = decimal.querySelector('select').value;
      if (!m.date || !(m.amount || m.debit || m.credit)) {
        status.textContent = t('Choose the columns of the date and of the amount (or debit and credit).');
        preview.replaceChildren();
        return;
      }
      session.mapping = Object.fromEntries(Object.entries(m).filter(([, v]) => v));
      const at = ++sent;
      status.textContent = t('Reading…');
      try {
        const imp = await send();
        if (at !== sent) return;
        status.textContent = '';
        review(imp, preview);
      } catch (err) {
        if (at !== sent) return;
        const missing = err.code === 'IMPORT_MAPPING_REQUIRED' && err.details && err.details.missingColumns;
        status.textContent = missing ? `${t('Still needed')}: ${missing.map(term).join(', ')}` : refusal(err);
        preview.replaceChildren();
      }
    }
    const samples = details.samples || [];
    stage.replaceChildren(h('section', { class: 'card mapping', 'aria-labelledby': 'h-mapping' },
      h('h2', { id: 'h-mapping' }, t('Which column holds what?')),
      h('p', {}, t('The file does not say plainly which of its columns hold the date and the amount: choose them. The preview follows each choice.')),
      h('div', { class: 'scroll', tabindex: '0', role: 'region', 'aria-label': t('Which column holds what?') },
        h('table', {}, h('thead', {}, h('tr', {}, columns.map((name, i) => h('th', { scope: 'col' }, h('span', { class: 'column' }, name), selects[i])))),
          h('tbody', {}, samples.map((row) => h('tr', {}, columns.map((_, i) => h('td', {}, row[i] ?? ''))))))),
      h('div', { class: 'form inline' }, order, decimal, keep), status), preview);
    selects[0]?.focus();
  }

  // review shows a preview: its summary, its rows a page at a time under a filter, and
  // the commit.
  function review(imp, into) {
    session.imp = imp;
    session.page = 1;
    session.offers.clear();
    const wallet = walletOf(imp.walletId);
    const summary = h('div', { class: 'totals', 'data-testid': 'import-summary' });
    const list = h('div', { class: 'import-rows' });
    const commit = h('button', { type: 'button', class: 'primary', 'data-testid': 'commit', onclick: () => commitImport(commit) });
    const chips = h('div', { class: 'row-actions', role: 'group', 'aria-label': t('Show') });
    const drawSummary = () => {
      const s = summarize(imp);
      const stat = (label, value, cls, id) => h('div', { class: 'stat ' + (cls || ''), 'data-testid': id }, h('span', {}, label), h('strong', {}, value));
      summary.replaceChildren(stat(t('Rows'), String(s.rows)), stat(t('New'), String(s.new)), stat(t('Duplicates'), String(s.duplicate)),
        stat(t('Probable'), String(s.probable)), stat(t('Money in'), money(s.moneyIn, wallet.currency), 'in'),
        stat(t('Money out'), money(s.moneyOut, wallet.currency), 'out'), stat(t('Balance now'), money(s.walletBalance, wallet.currency)),
        stat(t('Balance after'), money(s.balanceAfter, wallet.currency), '', 'balance-after'),
        ...(s.difference == null ? [] : [stat(`${t('Statement balance')} ${imp.statement.date ? day(imp.statement.date) : ''}`.trim(),
          money(imp.statement.closingBalance, wallet.currency)),
        stat(t('Difference'), money(s.difference, wallet.currency), units(s.difference) === 0n ? '' : 'differs', 'difference')]));
      commit.textContent = `${t('Commit')}: ${s.import} ${t('to import')}, ${s.merge} ${t('to merge')}`;
      commit.disabled = session.busy > 0 || imp.status !== 'preview';
    };
    const drawChips = () => chips.replaceChildren(...shows.map(([key, label, holds]) => h('button', { type: 'button',
      'aria-pressed': String(session.show === key), onclick: () => { session.show = key; session.page = 1; drawChips(); drawRows(); } },
    `${t(label)} (${imp.rows.filter(holds).length})`)));
    const drawRows = async () => {
      const holds = shows.find(([key]) => key === session.show)[2];
      const rows = imp.rows.filter(holds);
      const pages = Math.max(1, Math.ceil(rows.length / pageRows));
      session.page = Math.min(session.page, pages);
      const shown = rows.slice((session.page - 1) * pageRows, session.page * pageRows);
      // The matched transactions of the page's probable rows, read once each.
      const wanted = [...new Set(shown.filter((r) => r.match.verdict === 'probable' && r.match.transactionId)
        .map((r) => r.match.transactionId).filter((id) => !session.matched.has(id)))];
      await Promise.all(wanted.map((id) => api.get('/api/transactions/' + id)
        .then((res) => session.matched.set(id, res.transaction), () => session.matched.set(id, null))));
      const focused = document.activeElement && list.contains(document.activeElement) && document.activeElement.dataset.focus;
      const turn = (to, label) => h('button', { type: 'button', disabled: to < 1 || to > pages, onclick: () => { session.page = to; drawRows(); } }, t(label));
      list.replaceChildren(shown.length ? rowsTable(shown) : empty(), pages > 1 ? h('nav', { class: 'pager', 'aria-label': t('Rows shown') },
        turn(session.page - 1, 'Previous'), h('span', {}, `${t('Page')} ${session.page} ${t('of')} ${pages} · ${rows.length}`),
        turn(session.page + 1, 'Next')) : '');
      if (focused) list.querySelector(`[data-focus="${CSS.escape(focused)}"]`)?.focus();
    };
    // change sends a row's change; the commit waits for it.
    const change = async (r, body, undo) => {
      session.busy++;
      drawSummary();
      try {
        const res = await api.patch(`/api/imports/${imp.id}/rows/${r.index}`, body);
        Object.assign(r, res.row);
        if (res.suggestedRule) session.offers.set(r.index, res.suggestedRule);
        else if ('categoryId' in body) session.offers.delete(r.index);
      } catch (err) {
        undo && undo();
        toast(refusal(err));
      } finally {
        session.busy--;
        drawSummary();
        drawChips();
        drawRows();
      }
    };
    const rowsTable = (rows) => h('div', { class: 'table-wrap' }, h('table', {}, h('caption', { class: 'sr' }, t('Preview')),
      h('thead', {}, h('tr', {}, [t('Date'), t('Payee'), t('Amount'), t('Category'), t('Verdict'), t('Decision')].map((x) => h('th', { scope: 'col' }, x)))),
      h('tbody', {}, rows.flatMap((r) => rowLines(r)))));
    const rowLines = (r) => {
      const name = r.payee || r.memo || day(r.date);
      const category = h('select', { 'aria-label': `${t('Category')}: ${name}`, 'data-focus': 'category-' + r.index },
        h('option', { value: '' }, t('None')), categories.map((c) => h('option', { value: c.id, selected: c.id === r.categoryId }, c.name)));
      const categoryCell = h('td', { 'data-label': t('Category') }, h('div', { class: 'category' }, category, alwaysButton(r)));
      category.addEventListener('change', async () => {
        const before = r.categoryId;
        await change(r, { categoryId: category.value || null }, () => { category.value = before || ''; });
      });
      const decisions = ['import', 'skip', ...(r.match.transactionId || r.decision === 'merge' ? ['merge'] : [])];
      const decision = h('select', { 'aria-label': `${t('Decision')}: ${name}`, 'data-focus': 'decision-' + r.index,
        onchange: (e) => change(r, { decision: e.target.value }) },
      decisions.map((d) => h('option', { value: d, selected: d === r.decision }, term(d))));
      const lines = [h('tr', { 'data-row': r.index, 'data-verdict': r.match.verdict },
        h('td', { 'data-label': t('Date'), class: 'nowrap' }, day(r.date)),
        h('td', { 'data-label': t('Payee') }, r.payee || '—', r.memo && r.memo !== r.payee ? h('small', { class: 'muted memo' }, r.memo) : null),
        h('td', { 'data-label': t('Amount') }, signedAmount(r.amount, r.currency)),
        categoryCell,
        h('td', { 'data-label': t('Verdict') }, h('span', { class: 'badge', 'data-state': r.match.verdict }, term(r.match.verdict)),
          r.match.verdict === 'duplicate' ? h('small', { class: 'muted reason' }, say(r.match.reason)) : null),
        h('td', { 'data-label': t('Decision') }, decision))];
      if (r.match.verdict === 'probable') lines.push(h('tr', { class: 'compare-row' }, h('td', { colspan: '6' }, compare(r, name))));
      return lines;
    };
    // compare shows a probable duplicate beside the transaction it matches, with why,
    // and the three ways to settle it.
    const compare = (r, name) => {
      const tx = session.matched.get(r.match.transactionId);
      const wallet = walletOf(imp.walletId);
      const facts = (pairs) => h('dl', {}, pairs.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]));
      const choose = (label, decision) => h('button', { type: 'button', 'aria-pressed': String(r.decision === decision), 'data-focus': decision + '-' + r.index,
        'aria-label': `${label}: ${name}`, onclick: () => change(r, { decision }) }, label);
      return h('div', { class: 'compare', 'data-compare': r.index },
        h('div', {}, h('strong', {}, t('In the file')), facts([[t('Date'), day(r.date)], [t('Payee'), r.payee || '—'],
          [t('Amount'), signedAmount(r.amount, r.currency)], ...(r.memo ? [[t('Memo'), r.memo]] : [])])),
        h('div', { 'data-matched': r.match.transactionId }, h('strong', {}, t('Already recorded')), tx ? facts([[t('Date'), day(tx.date)],
          [t('Description'), tx.description || tx.concept || '—'], [t('Amount'), signedAmount((tx.type === 'expense' ? '-' : '') + tx.amount, tx.currency || wallet.currency)],
          [t('Category'), (categories.find((c) => c.id === tx.categoryId) || {}).name || '—']]) : h('p', { class: 'muted' }, '—')),
        h('p', { class: 'reason' }, say(r.match.reason)),
        h('div', { class: 'row-actions' }, choose(t('Merge'), 'merge'), choose(t('Import as new'), 'import'), choose(t('Skip'), 'skip')));
    };
    // alwaysButton makes the rule a corrected category suggested (offered, by row).
    const alwaysButton = (r) => {
      const rule = session.offers.get(r.index);
      if (!rule) return null;
      const body = { name: rule.name, conditions: rule.conditions.map(({ field: f, op, value, valueTo }) => ({ field: f, op, value, ...(valueTo ? { valueTo } : {}) })),
        actions: Object.fromEntries(Object.entries(rule.actions || {}).filter(([, v]) => v !== null && v !== false && v !== '')) };
      const button = h('button', { type: 'button', class: 'ghost', 'data-testid': 'always', 'data-focus': 'always-' + r.index,
        'aria-label': `${t('Always do this')}: ${rule.name}`, onclick: async () => {
          button.disabled = true;
          try {
            await api.post('/api/rules', body);
            session.offers.delete(r.index);
            toast(`${t('Rule created')}: ${rule.name}`);
            drawRows();
          } catch (err) {
            button.disabled = false;
            toast(refusal(err));
          }
        } }, t('Always do this'));
      return button;
    };
    async function commitImport(button) {
      if (session.busy) return;
      button.disabled = true;
      session.committing = imp.id;
      try {
        const { import: done } = await api.post(`/api/imports/${imp.id}/commit`);
        if (session.saveProfile && session.mapping) {
          await api.post('/api/import-profiles', { name: `${wallet.name} · ${session.file.name}`.slice(0, 100), walletId: imp.walletId, mapping: session.mapping })
            .catch((err) => toast(refusal(err)));
        }
        toast(`${t('Imported')}: ${done.created} ${t('created')}, ${done.merged} ${t('merged')}, ${done.skipped} ${t('skipped')}.`);
        Object.assign(session, { imp: null, mapping: null, saveProfile: false });
        stage.replaceChildren();
        await drawHistory();
        history.querySelector('h2').focus();
      } catch (err) {
        button.disabled = false;
        toast(refusal(err));
      } finally {
        session.committing = null;
      }
    }
    into.replaceChildren(h('section', { class: 'card review', 'aria-labelledby': 'h-review' },
      h('h2', { id: 'h-review' }, `${t('Preview')}: ${imp.fileName || imp.format.toUpperCase()} → ${wallet.name}`),
      summary, chips, list, h('div', { class: 'actions' }, commit)));
    drawSummary();
    drawChips();
    return drawRows();
  }

  // drawHistory lists the workspace's imports, newest first: undo for one committed,
  // open for one still in review.
  async function drawHistory() {
    const res = await api.get(`/api/imports?pageSize=25&page=${historyPage}`);
    const count = (n) => (n == null ? '—' : String(n));
    const named = (x) => x.fileName || `${x.format.toUpperCase()} ${moment(x.createdAt)}`;
    const undo = async (x) => {
      if (!(await confirmed(`${t('Undo')}: ${named(x)}`, t('Every transaction it created is deleted and every merge undone; the file can be imported again.'), t('Undo')))) return;
      try {
        await api.post(`/api/imports/${x.id}/undo`);
        toast(t('Import undone.'));
        await drawHistory();
      } catch (err) { toast(refusal(err)); }
    };
    const open = async (x) => {
      try {
        Object.assign(session, { file: null, walletId: x.walletId, mapping: null, saveProfile: false });
        await review((await api.get('/api/imports/' + x.id)).import, stage);
        stage.querySelector('h2').focus();
      } catch (err) { toast(refusal(err)); }
    };
    history.replaceChildren(h('h2', { id: 'h-import-history', tabindex: '-1' }, t('Import history')), res.imports.length ? table([
      [t('Date'), (x) => moment(x.createdAt), 'nowrap'], [t('File'), (x) => x.fileName || '—'], [t('Format'), (x) => x.format.toUpperCase()],
      [t('Wallet'), (x) => walletOf(x.walletId).name], [t('Status'), (x) => h('span', { class: 'badge', 'data-state': x.status }, term(x.status))],
      [t('Created'), (x) => count(x.created)], [t('Merged'), (x) => count(x.merged)], [t('Skipped'), (x) => count(x.skipped)],
      ['', (x) => x.status === 'committed' ? h('button', { type: 'button', class: 'ghost danger', 'aria-label': `${t('Undo')} ${named(x)}`, onclick: () => undo(x) }, t('Undo'))
        : x.status === 'preview' ? h('button', { type: 'button', class: 'ghost', 'aria-label': `${t('Open')} ${named(x)}`, onclick: () => open(x) }, t('Open')) : ''],
    ], res.imports, t('Import history')) : empty(),
    res.pagination.total > 25 ? pager({ page: historyPage, total: res.pagination.total }, (to) => { historyPage = to; drawHistory(); }) : '');
    // A preview under review here, committed elsewhere meanwhile, is done with.
    if (session.imp && session.imp.id !== session.committing && res.imports.some((x) => x.id === session.imp.id && x.status !== 'preview')) {
      session.imp = null;
      stage.replaceChildren(h('p', { role: 'status' }, t('This import was committed elsewhere.')));
    }
  }

  const upload = form([
    field({ name: 'walletId', label: t('Wallet'), type: 'select', required: true,
      options: wallets.map((w) => [w.id, `${w.name} (${w.currency})`]), value: (wallets.find((w) => w.isDefault) || wallets[0] || {}).id }),
    field({ name: 'file', label: t('Statement file'), type: 'file', required: true }),
  ], t('Preview'), async (v, f) => {
    const file = f.elements.file.files[0];
    if (!file) throw Object.assign(new Error(t('Choose a file.')), { details: [{ field: 'file', message: t('Choose a file.') }] });
    await start(file, v.walletId);
  }, { 'aria-label': t('Upload a statement') });
  upload.elements.file.setAttribute('accept', '.csv,.txt,.ofx,.qfx,.qif,.xml,.053,.052,.054,.sta,.mt940');
  // A file dropped anywhere on the page is picked, and read into the chosen wallet.
  main.addEventListener('dragover', (e) => { e.preventDefault(); main.classList.add('dropping'); });
  main.addEventListener('dragleave', (e) => { if (!main.contains(e.relatedTarget)) main.classList.remove('dropping'); });
  main.addEventListener('drop', (e) => {
    e.preventDefault();
    main.classList.remove('dropping');
    const file = e.dataTransfer && e.dataTransfer.files[0];
    if (!file) return;
    upload.elements.file.files = e.dataTransfer.files;
    start(file, upload.elements.walletId.value);
  });
  main.replaceChildren(h('h1', {}, t('Import')),
    h('section', { class: 'card narrow drop', 'aria-labelledby': 'h-upload' }, h('h2', { id: 'h-upload' }, t('Upload a statement')),
      h('p', { class: 'muted' }, t('CSV, OFX, QFX, QIF, CAMT or MT940 from your bank; or drop the file on this page. Nothing is recorded until you commit.')),
      wallets.length ? upload : empty()),
    stage, history);
  await drawHistory();
  // A live update (an import committed or undone elsewhere) lists the history again;
  // the preview under review stays as it is.
  return drawHistory;
}
