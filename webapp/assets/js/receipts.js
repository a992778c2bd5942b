// The receipts of a transaction being corrected in place: its files listed with their
// kind and size (an image's thumbnail, a PDF's icon), each downloaded, viewed large or
// deleted with a moment to undo, and new ones picked, photographed or dropped. A module
// of its own, fetched when a row is opened (docs/webapp.md, page weight), with its own
// words and styles. A thumbnail's bytes are fetched with the session (an img's src
// cannot send its CSRF token) and shown through a blob: URL, revoked when the row closes.
import * as api from './api.js';
import { t, term, say, learn, numberLocale } from './i18n.js';
import { h, toast, dialog, sheet } from './ui.js';

learn({
  'Receipts': 'Comprobantes', 'No receipts yet.': 'Todavía no hay comprobantes.',
  'Drop a photo or a PDF of the receipt here.': 'Suelta aquí una foto o un PDF del comprobante.',
  'Choose a file': 'Elegir un archivo', 'Take a photo': 'Tomar una foto', 'View': 'Ver', 'Receipt': 'Comprobante',
  'Uploading': 'Subiendo', 'Attached.': 'Adjuntado.',
}, {
  ATTACHMENT_TYPE_UNSUPPORTED: ['This is not a file a receipt is taken as: a JPEG, PNG, WebP or HEIC photo, or a PDF.',
    'Este no es un archivo que se acepte como comprobante: una foto JPEG, PNG, WebP o HEIC, o un PDF.'],
  ATTACHMENT_TOO_LARGE: ['The file is larger than 20 MiB.', 'El archivo pesa más de 20 MiB.'],
  ATTACHMENT_LIMIT: ['A transaction holds up to 20 files.', 'Un movimiento tiene como máximo 20 archivos.'],
  ATTACHMENT_NOT_FOUND: ['That receipt does not exist any more.', 'Ese comprobante ya no existe.'],
  TRANSACTION_NOT_FOUND: ['That transaction does not exist any more.', 'Ese movimiento ya no existe.'],
});

// The module is ready once its styles are: an area is never drawn without them.
await sheet('/app/receipts.css');

// The kinds the API takes (as their content tells), and those a browser draws.
const accepted = 'image/jpeg,image/png,image/webp,image/heic,application/pdf';
const kinds = { 'image/jpeg': 'JPEG', 'image/png': 'PNG', 'image/webp': 'WebP', 'image/heic': 'HEIC', 'application/pdf': 'PDF' };
const drawable = ['image/jpeg', 'image/png', 'image/webp'];
const maxSize = 20 << 20;

// refusal says what an API refusal means, in the person's language.
const refusal = (err) => term(err.code) !== err.code ? term(err.code) : say(err.message || 'Something went wrong.');

// size is a file's size in a unit a person reads: bytes, kB or MB.
function size(bytes) {
  const [n, unit] = bytes < 1e3 ? [bytes, 'byte'] : bytes < 1e6 ? [bytes / 1e3, 'kilobyte'] : [bytes / 1e6, 'megabyte'];
  return new Intl.NumberFormat(numberLocale(), { style: 'unit', unit, unitDisplay: unit === 'byte' ? 'long' : 'short', maximumFractionDigits: 1 }).format(n);
}

// pending are deletions waiting out their undo time; leaving the page sends them.
const pending = new Map();
window.addEventListener('pagehide', () => { for (const send of [...pending.values()]) send(true); });

// drawn are the receipts areas with thumbnails; once an area has left the page (its row
// closed, redrawn without it, the page left), the blob: URLs of its thumbnails are
// revoked. A redraw that keeps the row puts it back at once, before the sweep.
const drawn = new Set();
let sweeping = 0;
const watcher = new MutationObserver(() => { clearTimeout(sweeping); sweeping = setTimeout(sweep, 500); });
function sweep() {
  for (const area of drawn) {
    if (area.el.isConnected) continue;
    drawn.delete(area);
    for (const url of area.pictures.values()) url.then(URL.revokeObjectURL, () => {});
  }
  if (!drawn.size) watcher.disconnect();
}

// everywhere draws (or lists again) every area of a transaction on the page: a row opened
// again by a redraw shows a deletion's undo, or its end, as the row that asked for it would.
const everywhere = (tx, what) => { for (const area of drawn) if (area.tx === tx && area.el.isConnected) area[what](); };

// receipts is the receipts area of transaction tx: drawn at once, filled once it is on
// the page (a twin a redraw throws away fetches nothing).
export function receipts(tx) {
  const base = `/api/transactions/${tx.id}/attachments`;
  const heading = 'h-receipts-' + tx.id;
  const error = h('p', { class: 'form-error', role: 'alert' });
  const status = h('p', { class: 'muted', role: 'status' });
  const list = h('div', {});
  const picker = (label, attrs) => h('label', { class: 'button' }, label,
    h('input', { type: 'file', class: 'sr', ...attrs, onchange: (e) => { const files = [...e.target.files]; e.target.value = ''; send(files); } }));
  const zone = h('div', { class: 'drop-zone' }, h('p', { class: 'muted' }, t('Drop a photo or a PDF of the receipt here.')),
    h('div', { class: 'actions' }, picker(t('Choose a file'), { accept: accepted, multiple: true }),
      picker(t('Take a photo'), { accept: 'image/*', capture: 'environment' })), status);
  const el = h('section', { class: 'receipts', 'aria-labelledby': heading, 'aria-busy': 'true' },
    h('h3', { id: heading, tabindex: '-1' }, t('Receipts')), error, list, zone);
  // pictures are the thumbnails' blob: URLs by attachment, fetched once each.
  const area = { tx: tx.id, el, pictures: new Map(), draw: () => draw(), load: () => load() };
  let found = [];

  zone.addEventListener('dragover', (e) => { e.preventDefault(); zone.classList.add('dropping'); });
  zone.addEventListener('dragleave', (e) => { if (!zone.contains(e.relatedTarget)) zone.classList.remove('dropping'); });
  zone.addEventListener('drop', (e) => {
    e.preventDefault();
    zone.classList.remove('dropping');
    if (e.dataTransfer && e.dataTransfer.files.length) send([...e.dataTransfer.files]);
  });

  const picture = (a) => {
    if (!area.pictures.has(a.id)) area.pictures.set(a.id, api.file(`${base}/${a.id}`).then((blob) => URL.createObjectURL(blob)));
    return area.pictures.get(a.id);
  };

  // view shows an image large; closing it (Escape, the button) returns the focus to its
  // thumbnail, or to the thumbnail's twin when a redraw opened the row again.
  async function view(a, name, opener) {
    const url = await picture(a);
    dialog(name, h('img', { class: 'viewer', src: url, alt: name }), () => {
      const back = opener.isConnected ? opener : document.querySelector(`[data-view="${CSS.escape(a.id)}"]`);
      if (back) back.focus();
    });
  }

  function item(a) {
    const name = a.fileName || t('Receipt');
    const path = `${base}/${a.id}`;
    let preview = h('span', { class: 'file-icon', 'aria-hidden': 'true' }, kinds[a.contentType] || '?');
    if (drawable.includes(a.contentType)) {
      const img = h('img', { alt: '' });
      picture(a).then((url) => { img.src = url; }, () => {});
      preview = h('button', { type: 'button', class: 'thumb', 'data-view': a.id, 'aria-label': `${t('View')} ${name}`,
        onclick: (e) => view(a, name, e.currentTarget).catch((err) => toast(refusal(err))) }, img);
    }
    return h('li', { class: 'receipt', 'data-attachment': a.id }, preview,
      h('div', { class: 'receipt-info' },
        h('a', { href: path, download: name, onclick: (e) => { e.preventDefault(); api.download(path, name).catch((err) => toast(refusal(err))); } }, name),
        h('span', { class: 'muted' }, `${kinds[a.contentType] || a.contentType} · ${size(a.size)}`)),
      h('button', { type: 'button', class: 'ghost danger', 'aria-label': `${t('Delete')} ${name}`, onclick: () => remove(a) }, t('Delete')));
  }

  function draw() {
    const shown = found.filter((a) => !pending.has(a.id));
    list.replaceChildren(shown.length ? h('ul', { class: 'receipt-list' }, shown.map(item)) : h('p', { class: 'empty' }, t('No receipts yet.')));
  }

  async function load() {
    if (!el.isConnected) return;
    try {
      found = (await api.get(base)).attachments;
      draw();
    } catch (err) {
      error.textContent = refusal(err);
    } finally {
      el.removeAttribute('aria-busy');
    }
  }

  // send uploads files one after the other; each refusal is said with the file's name.
  async function send(files) {
    const refused = [];
    error.textContent = '';
    el.setAttribute('aria-busy', 'true');
    for (const file of files) {
      status.textContent = `${t('Uploading')} ${file.name}…`;
      try {
        if (file.size > maxSize) throw new api.ApiError(413, { error: { code: 'ATTACHMENT_TOO_LARGE' } });
        const body = new FormData();
        body.append('file', file, file.name);
        await api.post(base, body);
        toast(t('Attached.'));
      } catch (err) {
        refused.push(`${file.name}: ${refusal(err)}`);
        error.dataset.code = err.code;
        error.textContent = refused.join(' · ');
      }
    }
    status.textContent = '';
    await load();
  }

  // remove takes a receipt off at once and sends the deletion when the undo time is
  // over, as a transaction's deletion is.
  function remove(a) {
    let timer = 0;
    const send = (leaving) => {
      clearTimeout(timer);
      pending.delete(a.id);
      if (leaving) return api.deleteOnLeave(`${base}/${a.id}`);
      api.del(`${base}/${a.id}`).catch((err) => toast(refusal(err))).finally(() => everywhere(tx.id, 'load'));
    };
    pending.set(a.id, send);
    timer = setTimeout(() => send(false), 5000);
    everywhere(tx.id, 'draw');
    el.querySelector('h3').focus();
    toast(t('Deleted.'), { label: t('Undo'), run: () => { clearTimeout(timer); pending.delete(a.id); everywhere(tx.id, 'draw'); } }, 5);
  }

  setTimeout(async () => {
    if (!el.isConnected) return;
    drawn.add(area);
    watcher.observe(document.getElementById('main'), { childList: true, subtree: true });
    await load();
  });
  return el;
}
