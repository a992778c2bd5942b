// Split transactions: an income or an expense shared among parts, each with its amount,
// category, tag and concept (domain/splits.go). The parts are edited where a category is
// chosen (the quick form, a row being corrected) and shown under a split row of the
// list. A module of its own, fetched the first time a split is edited or drawn
// (docs/webapp.md, page weight), with its own words and styles. What is left to assign
// is reckoned in exact ten-thousandths (sums.js), never in floating point.
import * as api from './api.js';
import { t, learn, money } from './i18n.js';
import { h, field, amountField, readAmount, sheet } from './ui.js';
import { units, text } from './sums.js';

learn({
  'Unsplit': 'Una sola categoría', 'Parts': 'Partes', 'Part': 'Parte', 'Add part': 'Agregar parte',
  'Remove part': 'Quitar parte', 'Concept': 'Concepto', 'Left to assign': 'Por asignar',
  'Matches the filter': 'Coincide con el filtro',
  'the parts add up to # #, # less than the amount #': 'las partes suman # #, # menos que el monto #',
  'the parts add up to # #, # more than the amount #': 'las partes suman # #, # más que el monto #',
  'a split needs at least two parts; a transaction of one category takes categoryId':
    'una división necesita al menos dos partes; un movimiento de una sola categoría no se divide',
}, {
  TRANSACTION_SPLIT: ['A split transaction is recategorized by correcting its parts.',
    'Un movimiento dividido se recategoriza corrigiendo sus partes.'],
});

// The module is ready once its styles are: an editor is never drawn without them.
await sheet('/app/splits.css');

// key is the name of a part's field as the API names it in its errors: splits[1].amount.
const key = (i, name) => `splits[${i}].${name}`;

// split turns the category of box's form into parts: the Split action's box holds them,
// the category's box is hidden while they stand for it, currency() is the amount's.
// parts prefills them (a split transaction being corrected); pressed says the person
// asked, which marks the form as typed in (a redraw keeps it). The form gets parts(v),
// the parts of its values as the API takes them, and unsplit(), which brings the one
// category back.
export async function split(box, category, categories, currency, parts, pressed) {
  if (box.dataset.field) return; // split already, or on its way
  box.dataset.field = 'splits';
  let tags = [];
  try { tags = (await api.get('/api/tags')).tags; } catch { tags = []; }
  const f = box.closest('form');
  const action = box.firstElementChild;
  const legend = 'h-parts-' + Math.random().toString(36).slice(2);
  const error = h('span', { class: 'field-error', id: legend + '-error' });
  const left = h('output', { class: 'remainder', id: legend + '-left', 'aria-live': 'polite' });
  const list = h('div', { class: 'parts-list' });
  const add = h('button', { type: 'button', onclick: () => { list.append(part({ categoryId: '' })); renumber(); focusPart(list.lastElementChild); } }, t('Add part'));
  const editor = h('div', { class: 'parts-editor', role: 'group', 'aria-labelledby': legend, 'aria-describedby': `${legend}-error ${legend}-left` },
    h('p', { id: legend, class: 'parts-title' }, t('Parts')), error, list, left,
    h('div', { class: 'actions' }, add, h('button', { type: 'button', class: 'ghost', onclick: () => unsplit(true) }, t('Unsplit'))));

  function part(p) {
    const el = h('fieldset', { class: 'part' }, h('legend', {}),
      amountField('amount', t('Amount'), p.amount, { currency }),
      field({ name: 'categoryId', label: t('Category'), type: 'select', value: p.categoryId ?? '',
        options: [...categories.map((c) => [c.id, c.name]), ['', t('Uncategorized')]] }),
      field({ name: 'tagId', label: t('Tag'), type: 'select', value: p.tagId ?? '', options: [['', t('None')], ...tags.map((g) => [g.id, g.name])] }),
      field({ name: 'concept', label: t('Concept'), value: p.concept ?? '', limit: 'transaction.concept' }),
      h('button', { type: 'button', class: 'ghost danger', onclick: () => remove(el) }, t('Remove part')));
    return el;
  }

  // renumber names each part's fields by its place (the API's errors land beside them)
  // and keeps two parts at least.
  function renumber() {
    [...list.children].forEach((el, i) => {
      el.querySelector('legend').textContent = `${t('Part')} ${i + 1}`;
      for (const box of el.querySelectorAll('[data-field]')) box.dataset.field = key(i, box.dataset.field.replace(/^splits\[\d+\]\./, ''));
      for (const input of el.querySelectorAll('[name]')) input.name = key(i, input.name.replace(/^splits\[\d+\]\./, ''));
      const drop = el.querySelector('button.danger');
      drop.setAttribute('aria-label', `${t('Remove part')} ${i + 1}`);
      drop.disabled = list.children.length <= 2;
    });
    update();
  }

  const focusPart = (el) => el.querySelector('input').focus();

  function remove(el) {
    const next = el.nextElementSibling || el.previousElementSibling;
    el.remove();
    renumber();
    focusPart(next);
    f.dataset.touched = '';
  }

  // update says what is left to assign, or by how much the parts are over the amount.
  function update() {
    if (!editor.isConnected) return;
    const cur = currency();
    const read = (input) => units(readAmount(input.value, cur).value || '0');
    let rest = read(f.elements.amount);
    for (const input of list.querySelectorAll('[name$="].amount"]')) rest -= read(input);
    left.dataset.state = rest === 0n ? 'done' : 'open';
    left.textContent = `${t(rest < 0n ? 'Over by' : 'Left to assign')} ${money(text(rest < 0n ? -rest : rest, 4, 4), cur)}`;
  }

  function unsplit(asked) {
    editor.remove();
    delete box.dataset.field;
    delete f.parts;
    delete f.unsplit;
    category.hidden = action.hidden = false;
    f.dispatchEvent(new Event('change')); // the quick form hides the category again for a transfer
    if (asked) {
      f.dataset.touched = '';
      category.querySelector('select').focus();
    }
  }

  const first = category.querySelector('select').value;
  list.append(...(parts.length ? parts : [{ categoryId: first }, { categoryId: first }]).map(part));
  f.addEventListener('input', update);
  f.addEventListener('change', update);
  f.parts = (v) => [...list.children].map((_, i) => ({ amount: v[key(i, 'amount')], categoryId: v[key(i, 'categoryId')] || null,
    tagId: v[key(i, 'tagId')] || null, concept: v[key(i, 'concept')] || null }));
  f.unsplit = () => unsplit(false);
  category.hidden = action.hidden = true;
  box.append(editor);
  renumber();
  f.dispatchEvent(new Event('change')); // the parts' amounts shown as they will be recorded, and what is left
  if (pressed) {
    f.dataset.touched = '';
    focusPart(list.firstElementChild);
  }
}

// unfolded are the split rows whose parts the person opened: a redraw keeps them open.
const unfolded = new Set();

// parts is a split transaction's category cell in the list: "Split · 3", unfolding to
// each part's category, concept and amount; the parts of the category the list is
// filtered by (matchingParts) are unfolded and marked.
export function parts(tx, cats) {
  const matching = new Set(tx.matchingParts || []);
  return h('details', { class: 'parts', 'data-split': tx.id, open: matching.size > 0 || unfolded.has(tx.id),
    ontoggle: (e) => { if (e.target.open) unfolded.add(tx.id); else unfolded.delete(tx.id); } },
  h('summary', {}, `${t('Split')} · ${tx.splits.length}`),
  h('ul', {}, tx.splits.map((p, i) => {
    const line = [(cats[p.categoryId] || {}).name || t('Uncategorized'), p.concept, money(p.amount, p.currency)].filter(Boolean).join(' · ');
    return h('li', { 'data-part': i }, matching.has(i) ? h('mark', {}, h('span', { class: 'sr' }, t('Matches the filter') + ': '), line) : line);
  })));
}
