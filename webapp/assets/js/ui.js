// Small pieces every page draws with: elements, forms with their errors, notices with
// undo, progress bars and dialogs.
import { t, term, say, money, numberLocale } from './i18n.js';

// h builds an element: h('a', {href: '/x'}, 'text', child...). Attributes starting with
// "on" are listeners; false or null attributes are left out; style is an object set
// through the CSSOM, which the page's CSP allows where a style attribute is refused.
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === false || v === null || v === undefined) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.className = v;
    else if (k === 'style') Object.assign(el.style, v);
    else if (k === 'value') el.value = v;
    else el.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

let fieldSeq = 0;

// limits are the API's field limits (GET /api/limits), read once after sign-in.
let limits = { amount: { maxIntegerDigits: 15, maxDecimalPlaces: 4 }, lengths: {} };
export function setLimits(served) { limits = served; }

// field is a labelled input. spec: {name, label, type, value, options: [[value, text]],
// required, step, min, max, placeholder, inputmode, maxlength or limit: the API's
// length of the field, such as 'wallet.name'}.
export function field(spec) {
  const id = 'f' + (++fieldSeq);
  let input;
  if (spec.type === 'select') {
    input = h('select', { id, name: spec.name, required: spec.required },
      (spec.options || []).map(([v, text]) => h('option', { value: v, selected: String(v) === String(spec.value ?? '') }, text)));
  } else if (spec.type === 'checkbox') {
    input = h('input', { id, name: spec.name, type: 'checkbox', checked: !!spec.value });
  } else {
    input = h('input', {
      id, name: spec.name, type: spec.type || 'text', value: spec.value ?? '', required: spec.required,
      step: spec.step, min: spec.min, max: spec.max, placeholder: spec.placeholder, inputmode: spec.inputmode,
      autocomplete: spec.autocomplete || 'off', maxlength: spec.maxlength || limits.lengths[spec.limit],
    });
  }
  const error = h('span', { class: 'field-error', id: id + '-error' });
  input.setAttribute('aria-describedby', id + '-error');
  return h('div', { class: 'field' + (spec.type === 'checkbox' ? ' check' : ''), 'data-field': spec.name },
    h('label', { for: id }, spec.label), input, error);
}

// amounts are the forms' money inputs: {currency(), zero: 0 allowed}.
const amounts = new WeakMap();

// amountField is a money input read by readAmount; beside it, the amount as it will be
// recorded. opts: {currency: (input) => code, zero}.
export function amountField(name, label, value, opts) {
  const box = field({ name, label, inputmode: 'decimal', required: true,
    value: value == null ? '' : new Intl.NumberFormat(numberLocale(), { useGrouping: false, maximumFractionDigits: 20 }).format(String(value)) });
  const input = box.querySelector('input');
  const shown = h('output', { class: 'preview', for: input.id, 'aria-live': 'polite' });
  amounts.set(input, { ...opts, show: () => {
    const r = input.value.trim() ? readAmount(input.value, opts.currency(input), opts.zero) : {};
    shown.textContent = r.value ? money(r.value, opts.currency(input)) : '';
  } });
  box.lastChild.before(shown);
  return box;
}

// formCurrency is the currency typed in the currency box of an amount's own form.
export const formCurrency = (input) => input.form.elements.currency.value.toUpperCase();

function places(currency) {
  let digits = 2;
  try { digits = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits; } catch { /* 2 */ }
  return Math.min(digits, limits.amount.maxDecimalPlaces);
}

// readAmount reads an amount as a person writes it in their locale (docs/webapp.md, "Amounts
// typed in"): {value} is its exact decimal text, {error} says what is wrong, with the
// readings the text may have meant when it is written another way. Spaces group too.
export function readAmount(text, currency, zero) {
  const [dec, other] = new Intl.NumberFormat(numberLocale()).format(1.5).includes(',') ? [',', '.'] : ['.', ','];
  let s = String(text).trim().replace(/\s+/g, ' ');
  const negative = /^[-−]/.test(s);
  s = s.replace(/^[-−] ?/, '');
  // read takes d as the decimal sign; strict demands groups of three digits.
  const read = (d, strict) => {
    const [int, frac = '', more] = s.split(d);
    if (more !== undefined || (s.includes(d) && !/^\d+$/.test(frac)) || (strict && !/^\d{1,3}([ .,]\d{3})*$|^\d+$/.test(int))) return null;
    return int.replace(/\D/g, '').replace(/^0+(?=\d)/, '') + (frac ? '.' + frac : '');
  };
  const value = /^\d[\d .,]*$/.test(s) ? read(dec, true) : null;
  if (value === null) {
    const readings = /^\d[\d .,]*$/.test(s) ? [...new Set([read(other, true), !s.includes(dec) && read(dec, false)])].filter(Boolean) : [];
    return { error: readings.length ? `${t('Did you mean')} ${readings.map((v) => money(v, currency)).join(` ${t('or')} `)}?`
      : `${t('Write an amount such as')} ${new Intl.NumberFormat(numberLocale(), { minimumFractionDigits: 2 }).format(1250.5)}` };
  }
  const [int, frac = ''] = value.split('.');
  if (negative) return { error: say('cannot be negative') };
  if (int.length > limits.amount.maxIntegerDigits) return { error: say(`must have at most ${limits.amount.maxIntegerDigits} digits before the decimal sign`) };
  if (frac.length > places(currency)) return { error: say(`must have at most ${places(currency)} decimal places`) };
  if (!zero && !/[1-9]/.test(value)) return { error: say('must be greater than 0') };
  return { value };
}

// values reads a form's fields; empty and hidden ones are left out, amounts become exact
// JSON numbers (or the form's field errors are thrown).
export function values(form) {
  const out = {};
  const wrong = [];
  for (const el of form.elements) {
    if (!el.name || el.closest('[hidden]')) continue;
    const amount = amounts.get(el);
    if (el.type === 'checkbox') out[el.name] = el.checked;
    else if (el.value === '') continue;
    else if (!amount) out[el.name] = el.value;
    else {
      const r = readAmount(el.value, amount.currency(el), amount.zero);
      if (r.error) wrong.push({ field: el.name, message: r.error });
      else out[el.name] = JSON.rawJSON(r.value);
    }
  }
  if (wrong.length) throw fieldError(wrong[0].field, wrong[0].message, wrong);
  return out;
}

// fieldWords name the fields a form has no box for.
const fieldWords = { amount: 'Amount', destinationAmount: 'Amount received', walletId: 'Wallet', destinationWalletId: 'To wallet',
  toWalletId: 'To wallet', categoryId: 'Category', description: 'Description', concept: 'Description', date: 'Date', name: 'Name',
  currency: 'Currency', balance: 'Initial balance', targetAmount: 'Target', totalAmount: 'Total', startDate: 'Start', endDate: 'End' };

// showErrors puts an error on the form, in the person's language: each field's message
// beside its box, the fields without one named above the form, or the error itself.
export function showErrors(form, err) {
  for (const el of form.querySelectorAll('.field-error')) el.textContent = '';
  for (const el of form.querySelectorAll('[aria-invalid]')) el.removeAttribute('aria-invalid');
  const top = form.querySelector('.form-error');
  if (!err) { if (top) top.textContent = ''; return; }
  const fields = Array.isArray(err.details) ? err.details : [];
  const above = [];
  for (const f of fields) {
    const box = form.querySelector(`[data-field="${CSS.escape(f.field)}"]`);
    if (!box || box.hidden) { above.push(`${t(fieldWords[f.field] || f.field)}: ${say(f.message)}`); continue; }
    box.querySelector('.field-error').textContent = say(f.message);
    box.querySelector('input,select').setAttribute('aria-invalid', 'true');
  }
  if (top) top.textContent = fields.length ? above.join(' · ') : term(err.code) !== err.code ? term(err.code) : say(err.message || 'Something went wrong.');
}

// form builds a form whose submit calls onSubmit(values, form); an API error is shown
// on the form, and the button is disabled while the call runs.
export function form(fields, submitLabel, onSubmit, attrs = {}) {
  const button = h('button', { type: 'submit', class: 'primary' }, submitLabel);
  const f = h('form', { class: 'form', novalidate: true, ...attrs },
    h('p', { class: 'form-error', role: 'alert' }), ...fields, h('div', { class: 'actions' }, button));
  const show = () => { for (const el of f.elements) amounts.get(el)?.show(); };
  f.addEventListener('input', show);
  f.addEventListener('change', show);
  f.addEventListener('submit', async (e) => {
    e.preventDefault();
    if (button.disabled) return; // one submission at a time: the first is still on its way
    showErrors(f, null);
    button.disabled = true;
    try {
      await onSubmit(values(f), f);
      delete f.dataset.touched;
    } catch (err) {
      showErrors(f, err);
    } finally {
      button.disabled = false;
    }
  });
  return f;
}

// fieldError marks one field of a form as wrong before anything is sent.
export function fieldError(fieldName, message, details = [{ field: fieldName, message }]) {
  const err = new Error(message);
  err.details = details;
  return err;
}

// keeping redraws the page keeping what is typed: each form touched or focused (found
// again by its label, or its row's data-key) replaces its new twin, focus and caret kept;
// a row being corrected is kept with the focus anywhere in it (its receipts). A page
// left meanwhile is left alone.
export async function keeping(draw) {
  const main = document.getElementById('main').firstElementChild;
  const active = document.activeElement;
  const forms = [...main.querySelectorAll('form')];
  const keyOf = (f, all) => f.getAttribute('aria-label') || all.indexOf(f);
  const kept = forms.filter((f) => 'touched' in f.dataset || (f.closest('[data-key]') || f).contains(active))
    .map((f) => [f.closest('[data-key]') || f, keyOf(f, forms)]);
  await draw();
  if (!main.isConnected) return;
  const now = [...main.querySelectorAll('form')];
  for (const [old, key] of kept) {
    const twin = old.dataset.key ? main.querySelector(`[data-key="${CSS.escape(old.dataset.key)}"]`) : now.find((f) => keyOf(f, now) === key);
    if (twin && twin !== old) twin.replaceWith(old);
  }
  if (active !== document.activeElement && main.contains(active)) {
    const { selectionStart: a, selectionEnd: b } = active;
    active.focus({ preventScroll: true });
    if (typeof a === 'number') active.setSelectionRange(a, b);
  }
}
document.addEventListener('input', (e) => { if (e.target.form) e.target.form.dataset.touched = ''; });

// sheet loads the style sheet of a module fetched on demand, once, and resolves when it
// is loaded.
export function sheet(href) {
  if (document.querySelector(`link[href="${href}"]`)) return null;
  return new Promise((done) => document.head.append(h('link', { rel: 'stylesheet', href, onload: done, onerror: done })));
}

// toast shows a notice for a few seconds, dismissible, with an action (undo) when given.
// It replaces the one before of its kind (notice, action): two at most are shown.
export function toast(message, action, seconds = 6) {
  const box = document.getElementById('toasts');
  for (const old of [...box.children]) if (!old.dataset.action === !action) old.remove();
  const el = h('div', { class: 'toast', 'data-action': action && 'yes' }, h('span', {}, message),
    action ? h('button', { type: 'button', onclick: () => { el.remove(); action.run(); } }, action.label) : null,
    h('button', { type: 'button', 'aria-label': t('Close'), onclick: () => el.remove() }, '×'));
  box.append(el);
  setTimeout(() => el.remove(), seconds * 1000);
}

// progress is a bar of a share from 0 to 100; warn marks it past its alert threshold,
// over past 100.
export function progress(percent, label, warn) {
  const p = Math.max(0, Number(percent) || 0);
  const state = p >= 100 ? 'over' : warn ? 'warn' : 'ok';
  return h('div', { class: 'bar ' + state, role: 'progressbar', 'aria-valuemin': '0', 'aria-valuemax': '100',
    'aria-valuenow': String(Math.round(Math.min(p, 100))), 'aria-label': label, 'data-state': state },
  h('span', { style: { width: `${Math.min(p, 100)}%` } }));
}

// amountCell formats an amount for a table: expenses negative, income positive.
export function signed(tx) {
  const out = ['expense', 'goal_deposit'].includes(tx.type);
  return h('span', { class: 'amount ' + (out ? 'out' : tx.type === 'transfer' ? 'move' : 'in') },
    (out ? '−' : tx.type === 'transfer' ? '' : '+') + money(tx.amount, tx.currency));
}

// dialog shows content in a modal dialog; it returns a function that closes it.
// onClose, when given, runs however it closes (a button, Escape).
export function dialog(title, content, onClose) {
  const close = () => { d.close(); d.remove(); if (onClose) onClose(); };
  const d = h('dialog', { class: 'dialog', 'aria-label': title },
    h('div', { class: 'dialog-head' }, h('h2', {}, title), h('button', { type: 'button', class: 'ghost', onclick: close }, t('Close'))),
    content);
  d.addEventListener('close', () => { d.remove(); if (onClose) onClose(); });
  document.body.append(d);
  d.showModal();
  return close;
}

// confirmed asks before something that cannot be undone (revoking a key, removing a
// member, deleting): it resolves true only when the person chose the action.
export function confirmed(title, message, actionLabel) {
  return new Promise((resolve) => {
    const answer = (yes) => { resolve(yes); close(); };
    const close = dialog(title, h('div', {}, h('p', {}, message), h('div', { class: 'actions' },
      h('button', { type: 'button', onclick: () => answer(false) }, t('Cancel')),
      h('button', { type: 'button', class: 'danger', 'data-confirm': true, onclick: () => answer(true) }, actionLabel))),
    () => resolve(false));
  });
}

// can reports whether the person's role in the workspace holds a scope (its record
// lists them): the app offers only what the role may do.
export const can = (ws, scope) => ((ws && ws.scopes) || []).some((s) => s === '*' || s === scope);

// editor opens a record's fields in a dialog; save sends them, then the page is drawn
// again.
export function editor(name, fields, save, redraw) {
  const close = dialog(`${t('Edit')} ${name}`, form(fields, t('Save'), async (v) => {
    await save(v);
    close();
    toast(t('Saved.'));
    await redraw();
  }));
}

// asked is what a record's action does: it asks first when ask (what follows) is given,
// runs, and draws the page again, or shows the refusal.
export const asked = (label, name, redraw, run, ask) => async () => {
  if (ask && !(await confirmed(`${label}: ${name}`, ask, label))) return;
  try { await run(); await redraw(); } catch (err) { toast(err.message); }
};

// act is the button of such an action, named with the record's name.
export const act = (label, name, redraw, run, ask) => h('button', { type: 'button', class: ask ? 'ghost danger' : 'ghost',
  'aria-label': `${label} ${name}`, onclick: asked(label, name, redraw, run, ask) }, label);

// buttons are a record's actions, [label, run, danger], each named with the record's
// name so that a screen reader tells "Edit Food" from "Edit Rent".
export function buttons(name, list) {
  return h('div', { class: 'row-actions' }, list.map(([label, run, danger]) =>
    h('button', { type: 'button', class: danger ? 'ghost danger' : 'ghost', 'aria-label': `${label} ${name}`, onclick: run }, label)));
}

// pager turns the pages of a listing ({page, total}: the API's pagination, 25 a page):
// go(n) draws page n.
export function pager({ page, total }, go) {
  const pages = Math.max(1, Math.ceil(total / 25));
  const turn = (to, label) => h('button', { type: 'button', disabled: to < 1 || to > pages, onclick: () => go(to) }, t(label));
  return h('nav', { class: 'pager', 'aria-label': t('Page') }, turn(page - 1, 'Previous'),
    h('span', {}, `${t('Page')} ${page} ${t('of')} ${pages} · ${total}`), turn(page + 1, 'Next'));
}

// section is a titled card, most often holding a form.
export const section = (title, ...content) => {
  const id = 'h-' + title.toLowerCase().replace(/\W+/g, '-');
  return h('section', { class: 'card narrow', 'aria-labelledby': id }, h('h2', { id }, title), ...content);
};

// empty is the text of a list with nothing in it.
export function empty() { return h('p', { class: 'empty' }, t('Nothing here yet.')); }

// table draws rows: columns are [header, cell(row), class] (class optional: 'nowrap'
// for dates and figures that read whole). On a phone each row becomes a card, its cells
// labelled by their headers. data-key lets a row being edited outlive a redraw (keeping).
export function table(columns, rows, caption) {
  return h('div', { class: 'table-wrap' }, h('table', {},
    caption ? h('caption', { class: 'sr' }, caption) : null,
    h('thead', {}, h('tr', {}, columns.map(([head]) => h('th', { scope: 'col' }, head)))),
    h('tbody', {}, rows.map((row) => h('tr', { 'data-key': row.id }, columns.map(([head, cell, cls]) => h('td', { 'data-label': head || null, class: cls || null }, cell(row))))))));
}
