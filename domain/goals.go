package domain

import (
	"sort"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
)

// CreateGoal adds a savings goal.
//
// Defaults: Currency nil is the workspace's currency.
//
// Errors: VALIDATION_ERROR.
type CreateGoal struct {
	GoalID       uuid.UUID
	Name         string
	TargetAmount decimal.Decimal
	Currency     *string
	Deadline     *Date
}

// Decide fills the default currency and checks the target.
func (c CreateGoal) Decide(w *Workspace) ([]Event, error) {
	fields := GoalFields{Name: c.Name, TargetAmount: c.TargetAmount, Currency: valueOr(c.Currency, w.Currency), Deadline: c.Deadline}
	if err := checkGoal(fields); err != nil {
		return nil, err
	}
	return []Event{&GoalCreated{GoalID: c.GoalID, GoalFields: fields}}, nil
}

// checkGoal checks a goal's fields.
func checkGoal(f GoalFields) error {
	if problem := CheckAmount(f.TargetAmount, true); problem != "" {
		return InvalidField("targetAmount", "%s", problem)
	}
	return nil
}

// UpdateGoal changes some of a goal's fields; nothing changed decides nothing.
//
// Errors: GOAL_NOT_FOUND, VALIDATION_ERROR, CONFLICT (a new currency for a goal that
// holds money).
type UpdateGoal struct {
	GoalID       uuid.UUID
	Name         Nullable[string]
	TargetAmount Nullable[decimal.Decimal]
	Currency     Nullable[string]
	Deadline     Nullable[Date]
}

// Decide keeps the currency of a goal that holds money.
func (c UpdateGoal) Decide(w *Workspace) ([]Event, error) {
	g, err := w.liveGoal(c.GoalID)
	if err != nil {
		return nil, err
	}
	after := g.GoalFields
	setValue(&after.Name, c.Name)
	setValue(&after.TargetAmount, c.TargetAmount)
	setValue(&after.Currency, c.Currency)
	setPtr(&after.Deadline, c.Deadline)
	if after.Currency != g.Currency && !g.Saved.IsZero() {
		return nil, Conflict("CONFLICT", "the goal holds %s %s: withdraw it before changing the currency", g.Saved, g.Currency)
	}
	if err := checkGoal(after); err != nil {
		return nil, err
	}
	if after.Name == g.Name && after.TargetAmount.Equal(g.TargetAmount) && after.Currency == g.Currency && eqPtr(after.Deadline, g.Deadline) {
		return nil, nil
	}
	return []Event{&GoalUpdated{GoalID: c.GoalID, Before: g.GoalFields, After: after}}, nil
}

// DeleteGoal removes a goal that holds nothing.
//
// Errors: GOAL_NOT_FOUND, CONFLICT (the goal holds money).
type DeleteGoal struct {
	GoalID uuid.UUID
}

// Decide refuses to delete money.
func (c DeleteGoal) Decide(w *Workspace) ([]Event, error) {
	g, err := w.liveGoal(c.GoalID)
	if err != nil {
		return nil, err
	}
	if !g.Saved.IsZero() {
		return nil, Conflict("CONFLICT", "the goal holds %s %s: withdraw it first", g.Saved, g.Currency)
	}
	return []Event{&GoalDeleted{GoalID: c.GoalID}}, nil
}

// GoalMovement is a deposit into or a withdrawal from a goal. A withdrawal without a
// wallet returns the money to the wallets that funded the goal, in proportion to what
// each still has in it.
//
// Defaults: Date empty is the business day of Today; WalletID nil, for a withdrawal,
// is the funding wallets' shares.
//
// Errors: GOAL_NOT_FOUND, WALLET_NOT_FOUND, VALIDATION_ERROR.
type GoalMovement struct {
	GoalID   uuid.UUID
	Type     TransactionType // TxGoalDeposit or TxGoalWithdrawal
	Amount   decimal.Decimal
	WalletID *uuid.UUID
	Date     Date
	// Today is the business day the movement was issued.
	Today Date
	Note  *string
	// NewID names each transaction the movement records.
	NewID func() uuid.UUID
}

// Decide returns one transaction, or one per funding wallet for a split withdrawal.
func (c GoalMovement) Decide(w *Workspace) ([]Event, error) {
	g, err := w.liveGoal(c.GoalID)
	if err != nil {
		return nil, err
	}
	if problem := CheckAmount(c.Amount, true); problem != "" {
		return nil, InvalidField("amount", "%s", problem)
	}
	date, err := dateOrToday(c.Date, c.Today)
	if err != nil {
		return nil, err
	}
	shares := map[uuid.UUID]decimal.Decimal{}
	switch {
	case c.Type == TxGoalWithdrawal && c.Amount.GreaterThan(g.Saved):
		return nil, InvalidField("amount", "is more than the %s %s saved in the goal", g.Saved, g.Currency)
	case c.WalletID != nil:
		shares[*c.WalletID] = c.Amount
	case c.Type == TxGoalDeposit:
		return nil, InvalidField("walletId", "is required for a deposit")
	default:
		if shares, err = w.splitWithdrawal(g, c.Amount); err != nil {
			return nil, err
		}
	}
	ids := make([]uuid.UUID, 0, len(shares))
	for id := range shares {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i].String() < ids[j].String() })
	concept := w.says("Deposit to ", "Depósito a ") + g.Name
	if c.Type == TxGoalWithdrawal {
		concept = w.says("Withdrawal from ", "Retiro de ") + g.Name
	}
	var events []Event
	for _, walletID := range ids {
		wallet, err := w.liveWallet(walletID)
		if err != nil {
			return nil, err
		}
		if wallet.Currency != g.Currency {
			return nil, InvalidField("walletId", "holds %s but the goal saves %s", wallet.Currency, g.Currency)
		}
		goalID := c.GoalID
		t := Transaction{Type: c.Type, Amount: shares[walletID], Currency: g.Currency, WalletID: walletID, GoalID: &goalID}
		events = append(events, &TransactionCreated{
			TransactionID: c.NewID(), Type: c.Type, Amount: t.Amount, Currency: t.Currency, Date: date,
			Concept: &concept, Description: c.Note, WalletID: walletID, GoalID: &goalID, Postings: netPostings(t.effect()),
			Effects: t.createdEffects(),
		})
	}
	return events, nil
}

// splitWithdrawal shares an amount among the live wallets that funded a goal, in
// proportion to what each still has in it. Shares are rounded down to the amount's
// unit (a cent, or finer when the amount is finer); the units left over go one by one
// to the largest funders, ties broken by wallet id, so the split is deterministic and
// adds up exactly.
func (w *Workspace) splitWithdrawal(g *Goal, amount decimal.Decimal) (map[uuid.UUID]decimal.Decimal, error) {
	type funder struct {
		id     uuid.UUID
		funded decimal.Decimal
	}
	var funders []funder
	total := decimal.Zero
	for id, f := range g.Funded {
		if wallet, ok := w.Wallets[id]; ok && !wallet.Archived && f.IsPositive() {
			funders = append(funders, funder{id, f})
			total = total.Add(f)
		}
	}
	if len(funders) == 0 || total.LessThan(amount) {
		return nil, InvalidField("walletId", "is required: the wallets that funded the goal cannot take this withdrawal")
	}
	sort.Slice(funders, func(i, j int) bool {
		if c := funders[i].funded.Cmp(funders[j].funded); c != 0 {
			return c > 0
		}
		return funders[i].id.String() < funders[j].id.String()
	})
	places := max(int32(2), -amount.Exponent())
	unit := decimal.New(1, -places)
	shares := map[uuid.UUID]decimal.Decimal{}
	left := amount
	for _, f := range funders {
		share := amount.Mul(f.funded).Div(total).Truncate(places)
		shares[f.id] = share
		left = left.Sub(share)
	}
	for left.IsPositive() {
		progress := false
		for _, f := range funders {
			if left.IsPositive() && unit.LessThanOrEqual(left) && shares[f.id].Add(unit).LessThanOrEqual(f.funded) {
				shares[f.id] = shares[f.id].Add(unit)
				left = left.Sub(unit)
				progress = true
			}
		}
		if !progress {
			// What is left is finer than the unit, or no funder has room for a whole
			// unit: continue in the finest unit amounts have.
			if finest := decimal.New(1, -MaxAmountScale); unit.GreaterThan(finest) {
				unit = finest
				continue
			}
			return nil, InvalidField("walletId", "is required: the withdrawal cannot be split exactly")
		}
	}
	for id, share := range shares {
		if share.IsZero() {
			delete(shares, id)
		}
	}
	return shares, nil
}

func (w *Workspace) liveGoal(id uuid.UUID) (*Goal, error) {
	g, ok := w.Goals[id]
	if !ok || g.Deleted {
		return nil, NotFound("GOAL_NOT_FOUND", "goal %s not found", id)
	}
	return g, nil
}
