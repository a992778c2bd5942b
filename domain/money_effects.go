package domain

import (
	"sort"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
)

// goalAndDebtEffects is the one rule for what a transaction does to goals and debts: a
// deposit adds its amount to the goal and to its wallet's share of it, a withdrawal
// takes them away, an expense that names a debt lowers what is still owed.
func (t *Transaction) goalAndDebtEffects() Effects {
	var e Effects
	if t.GoalID != nil {
		switch t.Type {
		case TxGoalDeposit:
			e.Goals = []GoalPosting{{*t.GoalID, t.WalletID, t.Amount}}
		case TxGoalWithdrawal:
			e.Goals = []GoalPosting{{*t.GoalID, t.WalletID, t.Amount.Neg()}}
		}
	}
	if t.DebtID != nil && t.Type == TxExpense {
		e.Debts = []DebtPosting{{*t.DebtID, t.Amount.Neg()}}
	}
	return e
}

// createdEffects are the effects a new transaction carries.
func (t *Transaction) createdEffects() *Effects { return netEffects(t.goalAndDebtEffects()) }

// correctedEffects are the effects a correction of t carries: its old effect reverted
// and its new one applied, like the postings of the correction.
func (t *Transaction) correctedEffects(c TransactionChanges) *Effects {
	next := *t
	next.applyChanges(c)
	return netEffects(t.goalAndDebtEffects().negated(), next.goalAndDebtEffects())
}

// deletedEffects are the effects a deletion of t carries: its effect reverted.
func (t *Transaction) deletedEffects() *Effects { return netEffects(t.goalAndDebtEffects().negated()) }

func (e Effects) negated() Effects {
	out := Effects{Goals: make([]GoalPosting, len(e.Goals)), Debts: make([]DebtPosting, len(e.Debts))}
	for i, p := range e.Goals {
		out.Goals[i] = GoalPosting{p.GoalID, p.WalletID, p.Amount.Neg()}
	}
	for i, p := range e.Debts {
		out.Debts[i] = DebtPosting{p.DebtID, p.Amount.Neg()}
	}
	return out
}

// netEffects sums effects per goal and wallet and per debt, ordered by id like
// netPostings. Unlike a wallet, a goal or debt whose change nets to zero stays listed:
// the read models mark what a correction touches as updated (updated_at), as they did
// when they derived the effects themselves, so that history replays to the same rows.
func netEffects(parts ...Effects) *Effects {
	type share struct{ goal, wallet uuid.UUID }
	goals := map[share]decimal.Decimal{}
	debts := map[uuid.UUID]decimal.Decimal{}
	for _, part := range parts {
		for _, p := range part.Goals {
			k := share{p.GoalID, p.WalletID}
			goals[k] = goals[k].Add(p.Amount)
		}
		for _, p := range part.Debts {
			debts[p.DebtID] = debts[p.DebtID].Add(p.Amount)
		}
	}
	out := &Effects{}
	for k, amount := range goals {
		out.Goals = append(out.Goals, GoalPosting{k.goal, k.wallet, amount})
	}
	for id, amount := range debts {
		out.Debts = append(out.Debts, DebtPosting{id, amount})
	}
	sort.Slice(out.Goals, func(i, j int) bool {
		a, b := out.Goals[i], out.Goals[j]
		if a.GoalID != b.GoalID {
			return a.GoalID.String() < b.GoalID.String()
		}
		return a.WalletID.String() < b.WalletID.String()
	})
	sort.Slice(out.Debts, func(i, j int) bool { return out.Debts[i].DebtID.String() < out.Debts[j].DebtID.String() })
	return out
}

// The effects methods below return the effects a transaction event carries or, for one
// stored before effects travelled in events, the effects its decision carries today.
// Those depend on the transaction as it stood before the event (before): the state
// knows it, and so does an Upcaster for readers that keep no state. A nil before stands
// for a transaction that names neither a goal nor a debt.

func (e *TransactionCreated) effects() *Effects {
	if e.Effects != nil {
		return e.Effects
	}
	return transactionOf(e).createdEffects()
}

func (e *TransactionUpdated) effects(before *Transaction) *Effects {
	if e.Effects != nil {
		return e.Effects
	}
	if before == nil {
		return &Effects{}
	}
	return before.correctedEffects(e.Changes)
}

func (e *TransactionDeleted) effects(before *Transaction) *Effects {
	if e.Effects != nil {
		return e.Effects
	}
	if before == nil {
		return &Effects{}
	}
	return before.deletedEffects()
}

// Upcaster brings decoded events to the shape they have today, giving every
// transaction event the effects it carries today, and every API key's creation the role
// its creator held then. For that it follows the transactions that name a goal or a
// debt (a correction changes neither the type, nor the goal, nor the debt) and every
// workspace's members, so it must see every event of the log, each stream in version
// order.
type Upcaster struct {
	transactions map[streamTransaction]*Transaction
	roles        map[streamMember]string
}

type streamTransaction struct {
	stream string
	id     uuid.UUID
}

type streamMember struct {
	stream string
	user   uuid.UUID
}

// NewUpcaster returns an Upcaster that has seen no event yet.
func NewUpcaster() *Upcaster {
	return &Upcaster{transactions: map[streamTransaction]*Transaction{}, roles: map[streamMember]string{}}
}

// Upcast gives data, an event of stream streamID as DecodeEvent returns it, today's
// shape, in place.
func (u *Upcaster) Upcast(streamID string, data Event) {
	switch d := data.(type) {
	case *TransactionsImported:
		for created := range Parts(d) {
			u.Upcast(streamID, created)
		}
	case *TransactionCreated:
		d.Effects = d.effects()
		if t := transactionOf(d); t.GoalID != nil || t.DebtID != nil {
			u.transactions[streamTransaction{streamID, d.TransactionID}] = t
		}
	case *TransactionUpdated:
		t := u.transactions[streamTransaction{streamID, d.TransactionID}]
		d.Effects = d.effects(t)
		if t != nil {
			t.applyChanges(d.Changes)
		}
	case *TransactionDeleted:
		key := streamTransaction{streamID, d.TransactionID}
		d.Effects = d.effects(u.transactions[key])
		delete(u.transactions, key)
	case *WorkspaceCreated:
		u.roles[streamMember{streamID, d.OwnerID}] = RoleOwner
	case *MemberAdded:
		u.roles[streamMember{streamID, d.UserID}] = d.Role
	case *MemberRoleChanged:
		u.roles[streamMember{streamID, d.UserID}] = d.After
	case *MemberRemoved:
		delete(u.roles, streamMember{streamID, d.UserID})
	case *APIKeyCreated:
		if d.Role == "" {
			d.Role = u.roles[streamMember{streamID, d.CreatedBy}]
		}
	}
}
