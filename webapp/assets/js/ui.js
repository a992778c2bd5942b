// Small pieces every page draws with: elements, forms with their errors, notices with
// undo, progress bars and dialogs.
import { t, money } from './i18n.js';

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

// field is a labelled input. spec: {name, label, type, value, options: [[value, text]],
// required, step, min, max, placeholder, inputmode}.
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
      autocomplete: spec.autocomplete || 'off', maxlength: spec.maxlength,
    });
  }
  const error = h('span', { class: 'field-error', id: id + '-error' });
  input.setAttribute('aria-describedby', id + '-error');
  return h('div', { class: 'field' + (spec.type === 'checkbox' ? ' check' : ''), 'data-field': spec.name },
    h('label', { for: id }, spec.label), input, error);
}

// amountField is a money input: a decimal with at most two places, never a float.
export function amountField(name, label, value) {
  return field({ name, label, type: 'text', inputmode: 'decimal', value: value ?? '', required: true,
    placeholder: '0.00', autocomplete: 'off' });
}

// values reads a form's fields; empty ones are left out.
export function values(form) {
  const out = {};
  for (const el of form.elements) {
    if (!el.name) continue;
    if (el.type === 'checkbox') out[el.name] = el.checked;
    else if (el.value !== '') out[el.name] = el.value;
  }
  return out;
}

// decimal checks an amount typed by a person and returns it as the API's number.
export function decimal(text) {
  const s = String(text).trim().replace(/,/g, '');
  if (!/^\d{1,13}(\.\d{1,2})?$/.test(s)) return null;
  return Number(s);
}

// showErrors puts an API error on the form: each field's message beside it, the rest
// at the top.
export function showErrors(form, err) {
  for (const el of form.querySelectorAll('.field-error')) el.textContent = '';
  for (const el of form.querySelectorAll('[aria-invalid]')) el.removeAttribute('aria-invalid');
  const top = form.querySelector('.form-error');
  if (!err) { if (top) top.textContent = ''; return; }
  const fields = Array.isArray(err.details) ? err.details : [];
  let placed = 0;
  for (const f of fields) {
    const box = form.querySelector(`[data-field="${CSS.escape(f.field)}"]`);
    if (!box) continue;
    box.querySelector('.field-error').textContent = f.message;
    box.querySelector('input,select').setAttribute('aria-invalid', 'true');
    placed++;
  }
  if (top) top.textContent = placed === fields.length && placed > 0 ? '' : err.message || t('Something went wrong.');
}

// form builds a form whose submit calls onSubmit(values, form); an API error is shown
// on the form, and the button is disabled while the call runs.
export function form(fields, submitLabel, onSubmit, attrs = {}) {
  const button = h('button', { type: 'submit', class: 'primary' }, submitLabel);
  const f = h('form', { class: 'form', novalidate: true, ...attrs },
    h('p', { class: 'form-error', role: 'alert' }), ...fields, h('div', { class: 'actions' }, button));
  f.addEventListener('submit', async (e) => {
    e.preventDefault();
    showErrors(f, null);
    button.disabled = true;
    try {
      await onSubmit(values(f), f);
    } catch (err) {
      showErrors(f, err);
    } finally {
      button.disabled = false;
    }
  });
  return f;
}

// fieldError marks one field of a form as wrong before anything is sent.
export function fieldError(fieldName, message) {
  const err = new Error(message);
  err.details = [{ field: fieldName, message }];
  return err;
}

// toast shows a notice; with an action it offers a button (undo) for a few seconds.
export function toast(message, action, seconds = 6) {
  const box = document.getElementById('toasts');
  const el = h('div', { class: 'toast' }, h('span', {}, message));
  if (action) {
    el.append(h('button', { type: 'button', onclick: () => { el.remove(); action.run(); } }, action.label));
  }
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

// buttons are a record's actions, [label, run, danger], each named with the record's
// name so that a screen reader tells "Edit Food" from "Edit Rent".
export function buttons(name, list) {
  return h('div', { class: 'row-actions' }, list.map(([label, run, danger]) =>
    h('button', { type: 'button', class: danger ? 'ghost danger' : 'ghost', 'aria-label': `${label} ${name}`, onclick: run }, label)));
}

// empty is the text of a list with nothing in it.
export function empty() { return h('p', { class: 'empty' }, t('Nothing here yet.')); }

// table draws rows: columns are [header, cell(row)] pairs. On a phone each row becomes
// a card, its cells labelled by their headers.
export function table(columns, rows, caption) {
  return h('div', { class: 'table-wrap' }, h('table', {},
    caption ? h('caption', { class: 'sr' }, caption) : null,
    h('thead', {}, h('tr', {}, columns.map(([head]) => h('th', { scope: 'col' }, head)))),
    h('tbody', {}, rows.map((row) => h('tr', {}, columns.map(([head, cell]) => h('td', { 'data-label': head || null }, cell(row))))))));
}
