// The proposals page: the writes of API keys held for approval, each pending one approved
// (the write runs then, as the person approving it) or rejected, and the decided ones
// below with their outcome. A module of its own, fetched when the page is opened: a page
// opened rarely does not weigh on every cold load (docs/webapp.md, page weight).
import * as api from './api.js';
import { t, term, say, learn, moment } from './i18n.js';
import { h, toast, table, empty } from './ui.js';

learn({
  'Pending': 'Pendiente', 'Approved': 'Aprobada', 'Rejected': 'Rechazada', 'Failed': 'Fallida',
  'Expired': 'Vencida', 'Approve': 'Aprobar', 'Reject': 'Rechazar', 'Decided': 'Decididas', 'Proposal': 'Propuesta',
  'Writes of API keys that propose wait here for a person to approve or reject them.':
    'Las escrituras de las claves de API que proponen esperan aquí a que una persona las apruebe o las rechace.',
}, {
  PROPOSAL_DECIDED: ['That proposal was decided already.', 'Esa propuesta ya se decidió.'],
  PROPOSAL_EXPIRED: ['That proposal expired: nobody decided it within a week.', 'Esa propuesta venció: nadie la decidió en una semana.'],
  PROPOSAL_NOT_FOUND: ['That proposal does not exist any more.', 'Esa propuesta ya no existe.'],
});

const statusWords = { pending: 'Pending', approved: 'Approved', rejected: 'Rejected', failed: 'Failed', expired: 'Expired' };
const statusWord = (s) => t(statusWords[s] || s);
// failure says why a proposal failed or a decision was refused, in the person's language.
const failure = (code, message) => term(code) !== code ? term(code) : say(message || 'Something went wrong.');

export async function render(main) {
  const decide = async (p, how, button) => {
    button.disabled = true;
    try {
      const res = await api.post(`/api/proposals/${p.id}/${how}`);
      const done = res.proposal;
      toast(done.status === 'failed' ? `${t('Failed')}: ${failure(done.errorCode, done.errorMessage)}` : t('Done.'));
    } catch (err) {
      toast(failure(err.code, err.message));
    }
    await draw();
  };
  const button = (p, how, label) => h('button', { type: 'button', class: how === 'reject' ? 'danger' : null,
    'aria-label': `${label} ${p.summary}`, onclick: (e) => decide(p, how, e.currentTarget) }, label);
  const draw = async () => {
    const { proposals } = await api.get('/api/proposals');
    const pending = proposals.filter((p) => p.status === 'pending');
    const decided = proposals.filter((p) => p.status !== 'pending');
    main.replaceChildren(h('h1', {}, t('Proposals')),
      h('p', {}, t('Writes of API keys that propose wait here for a person to approve or reject them.')),
      pending.length ? table([
        [t('Proposal'), (p) => p.summary],
        [t('When'), (p) => moment(p.createdAt), 'nowrap'],
        [t('Expires'), (p) => moment(p.expiresAt), 'nowrap'],
        ['', (p) => h('div', { class: 'actions' }, button(p, 'approve', t('Approve')), button(p, 'reject', t('Reject')))],
      ], pending, t('Pending')) : empty(),
      decided.length ? h('section', { 'aria-labelledby': 'h-decided' }, h('h2', { id: 'h-decided' }, t('Decided')), table([
        [t('Proposal'), (p) => p.summary],
        [t('Status'), (p) => p.status === 'failed' ? `${statusWord(p.status)}: ${failure(p.errorCode, p.errorMessage)}` : statusWord(p.status)],
        [t('When'), (p) => moment(p.decidedAt || p.settledAt || p.expiresAt), 'nowrap'],
      ], decided, t('Decided'))) : '');
  };
  await draw();
  return draw;
}
