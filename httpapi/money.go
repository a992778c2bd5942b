package httpapi

import (
	"context"
	"net/http"

	"github.com/google/uuid"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/ledger"
	"github.com/finledger/finledger/queries"
)

// today is the current business day.
func (s *Server) today() domain.Date { return domain.BusinessDay(s.now()) }

// --- budgets ---

// budgetInput reads a budget's fields (budgetRules).
func budgetInput(b *body) domain.UpdateBudget {
	return domain.UpdateBudget{
		Name: recordName.read(b), CategoryID: budgetCategory.read(b), Amount: budgetAmount.read(b),
		Currency: recordCurrency.read(b), Period: budgetPeriod.read(b), StartDate: budgetStart.read(b),
		EndDate: budgetEnd.read(b), AlertThreshold: budgetAlert.read(b), TagID: recordTag.read(b),
	}
}

func createBudget(s *Server, w http.ResponseWriter, r *http.Request) {
	_, b, ok := readRequest(w, r, false)
	if !ok {
		return
	}
	in := budgetInput(b)
	cmd := domain.CreateBudget{BudgetID: newID(), Name: in.Name.Value, CategoryID: in.CategoryID.Value, Amount: in.Amount.Value,
		Currency: in.Currency.Ptr(), Period: in.Period.Ptr(), StartDate: in.StartDate.Value, EndDate: in.EndDate.Value,
		AlertThreshold: in.AlertThreshold.Ptr(), TagID: in.TagID.Ptr()}
	s.run(w, r, b, command{Decide: cmd.Decide, Answer: s.budgetAnswer(r, cmd.BudgetID)})
}

func updateBudget(s *Server, w http.ResponseWriter, r *http.Request) {
	id, b, ok := readRequest(w, r, true)
	if !ok {
		return
	}
	cmd := budgetInput(b)
	cmd.BudgetID = id
	s.run(w, r, b, command{Decide: cmd.Decide, Answer: s.budgetAnswer(r, id)})
}

func deleteBudget(s *Server, w http.ResponseWriter, r *http.Request) {
	id, b, ok := readRequest(w, r, true)
	if !ok {
		return
	}
	cmd := domain.DeleteBudget{BudgetID: id}
	s.run(w, r, b, command{Decide: cmd.Decide, Answer: queries.Value(map[string]bool{"ok": true})})
}

// budgetAnswer reads the budget after the write: its spending needs the period
// arithmetic, so it is read on the write's connection rather than queued.
func (s *Server) budgetAnswer(r *http.Request, id uuid.UUID) ledger.Answer {
	workspaceID := activeWorkspace(r)
	return queries.Read(func(ctx context.Context, db queries.DB) (any, error) {
		budget, err := queries.BudgetByID(ctx, db, workspaceID, id, s.today())
		return map[string]any{"budget": budget}, err
	})
}

func listBudgets(s *Server, w http.ResponseWriter, r *http.Request) {
	q := &query{values: r.URL.Query()}
	at := s.asOf(q)
	if err := q.err(); err != nil {
		writeError(w, r, err)
		return
	}
	var list []queries.Budget
	err := s.readAt(r.Context(), activeWorkspace(r), at, func(db queries.DB, today domain.Date) (err error) {
		list, err = queries.Budgets(r.Context(), db, activeWorkspace(r), today)
		return err
	})
	if err != nil {
		writeError(w, r, err)
		return
	}
	respond(w, r, map[string]any{"budgets": list})
}

func getBudget(s *Server, w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "id")
	if err != nil {
		writeError(w, r, err)
		return
	}
	budget, err := queries.BudgetByID(r.Context(), s.pool, activeWorkspace(r), id, s.today())
	if err != nil {
		writeError(w, r, notFoundAs(err, "BUDGET_NOT_FOUND", "budget not found"))
		return
	}
	respond(w, r, map[string]any{"budget": budget})
}

// --- goals ---

// goalInput reads a goal's fields (goalRules).
func goalInput(b *body) domain.UpdateGoal {
	return domain.UpdateGoal{Name: recordName.read(b), TargetAmount: goalTarget.read(b),
		Currency: recordCurrency.read(b), Deadline: goalDeadline.read(b)}
}

func createGoal(s *Server, w http.ResponseWriter, r *http.Request) {
	_, b, ok := readRequest(w, r, false)
	if !ok {
		return
	}
	in := goalInput(b)
	cmd := domain.CreateGoal{GoalID: newID(), Name: in.Name.Value, TargetAmount: in.TargetAmount.Value, Currency: in.Currency.Ptr(),
		Deadline: in.Deadline.Ptr()}
	s.run(w, r, b, command{Decide: cmd.Decide, Answer: queries.Record("goal", queries.GoalByID(activeWorkspace(r), cmd.GoalID))})
}

func updateGoal(s *Server, w http.ResponseWriter, r *http.Request) {
	id, b, ok := readRequest(w, r, true)
	if !ok {
		return
	}
	cmd := goalInput(b)
	cmd.GoalID = id
	s.run(w, r, b, command{Decide: cmd.Decide, Answer: queries.Record("goal", queries.GoalByID(activeWorkspace(r), id))})
}

func deleteGoal(s *Server, w http.ResponseWriter, r *http.Request) {
	id, b, ok := readRequest(w, r, true)
	if !ok {
		return
	}
	cmd := domain.DeleteGoal{GoalID: id}
	s.run(w, r, b, command{Decide: cmd.Decide, Answer: queries.Value(map[string]bool{"ok": true})})
}

// goalMovement handles POST /api/goals/{id}/deposit and /withdraw (spec 4.A).
func goalMovement(kind domain.TransactionType) handler {
	return func(s *Server, w http.ResponseWriter, r *http.Request) {
		id, b, ok := readRequest(w, r, true)
		if !ok {
			return
		}
		amount := movementAmount.read(b)
		wallet := depositWallet.read(b)
		note := movementNote.read(b)
		date := movementDate.read(b)
		cmd := domain.GoalMovement{GoalID: id, Type: kind, Amount: amount.Value, WalletID: wallet.Ptr(), Note: note.Ptr(),
			Date: date.Value, Today: s.today(), NewID: newID}
		s.run(w, r, b, command{Decide: cmd.Decide, Answer: queries.RecordWithTransactions("goal", queries.GoalByID(activeWorkspace(r), id), activeWorkspace(r))})
	}
}

// --- debts ---

// debtInput reads a debt's fields (debtRules).
func debtInput(b *body) domain.UpdateDebt {
	return domain.UpdateDebt{Name: recordName.read(b), Creditor: debtCreditor.read(b), TotalAmount: debtTotal.read(b),
		PendingBalance: debtPending.read(b), Currency: recordCurrency.read(b), DueDate: debtDue.read(b)}
}

func createDebt(s *Server, w http.ResponseWriter, r *http.Request) {
	_, b, ok := readRequest(w, r, false)
	if !ok {
		return
	}
	in := debtInput(b)
	cmd := domain.CreateDebt{DebtID: newID(), Name: in.Name.Value, Creditor: in.Creditor.Ptr(), TotalAmount: in.TotalAmount.Value,
		PendingBalance: in.PendingBalance.Ptr(), Currency: in.Currency.Ptr(), DueDate: in.DueDate.Ptr()}
	s.run(w, r, b, command{Decide: cmd.Decide, Answer: queries.Record("debt", queries.DebtByID(activeWorkspace(r), cmd.DebtID))})
}

func updateDebt(s *Server, w http.ResponseWriter, r *http.Request) {
	id, b, ok := readRequest(w, r, true)
	if !ok {
		return
	}
	cmd := debtInput(b)
	cmd.DebtID = id
	s.run(w, r, b, command{Decide: cmd.Decide, Answer: queries.Record("debt", queries.DebtByID(activeWorkspace(r), id))})
}

func deleteDebt(s *Server, w http.ResponseWriter, r *http.Request) {
	id, b, ok := readRequest(w, r, true)
	if !ok {
		return
	}
	cmd := domain.DeleteDebt{DebtID: id}
	s.run(w, r, b, command{Decide: cmd.Decide, Answer: queries.Value(map[string]bool{"ok": true})})
}

func payDebt(s *Server, w http.ResponseWriter, r *http.Request) {
	id, b, ok := readRequest(w, r, true)
	if !ok {
		return
	}
	amount := movementAmount.read(b)
	wallet := paymentWallet.read(b)
	date := paymentDate.read(b)
	note := movementNote.read(b)
	cmd := domain.PayDebt{DebtID: id, TransactionID: newID(), Amount: amount.Value, WalletID: wallet.Ptr(),
		Date: date.Value, Today: s.today(), Note: note.Ptr()}
	s.run(w, r, b, command{Decide: cmd.Decide, Answer: queries.RecordWithTransactions("debt", queries.DebtByID(activeWorkspace(r), id), activeWorkspace(r))})
}

// --- recurring payments ---

// recurringInput reads a recurring payment's fields (recurringRules).
func recurringInput(b *body) domain.UpdateRecurring {
	return domain.UpdateRecurring{Name: recordName.read(b), Amount: recurringAmount.read(b), Kind: typed[domain.RecurringKind](recurringKind.read(b)),
		Periodicity: recurringPeriodicity.read(b), NextPayment: recurringNext.read(b), Active: recurringActive.read(b),
		WalletID: recurringWallet.read(b), CategoryID: recurringCategory.read(b)}
}

func createRecurring(s *Server, w http.ResponseWriter, r *http.Request) {
	_, b, ok := readRequest(w, r, false)
	if !ok {
		return
	}
	in := recurringInput(b)
	cmd := domain.CreateRecurring{RecurringID: newID(), Name: in.Name.Value, Amount: in.Amount.Value, Kind: in.Kind.Value,
		Periodicity: in.Periodicity.Value, NextPayment: in.NextPayment.Value, Active: in.Active.Ptr(), WalletID: in.WalletID.Ptr(),
		CategoryID: in.CategoryID.Ptr(), Today: s.today()}
	s.run(w, r, b, command{Decide: cmd.Decide, Answer: queries.Record("recurring", queries.RecurringByID(activeWorkspace(r), cmd.RecurringID))})
}

func updateRecurring(s *Server, w http.ResponseWriter, r *http.Request) {
	id, b, ok := readRequest(w, r, true)
	if !ok {
		return
	}
	cmd := recurringInput(b)
	cmd.RecurringID, cmd.Today = id, s.today()
	s.run(w, r, b, command{Decide: cmd.Decide, Answer: queries.Record("recurring", queries.RecurringByID(activeWorkspace(r), id))})
}

func deleteRecurring(s *Server, w http.ResponseWriter, r *http.Request) {
	id, b, ok := readRequest(w, r, true)
	if !ok {
		return
	}
	cmd := domain.DeleteRecurring{RecurringID: id}
	s.run(w, r, b, command{Decide: cmd.Decide, Answer: queries.Value(map[string]bool{"ok": true})})
}

func payRecurring(s *Server, w http.ResponseWriter, r *http.Request) {
	id, b, ok := readRequest(w, r, true)
	if !ok {
		return
	}
	date := movementDate.read(b)
	var paidOn domain.Date
	if date.Valid && !b.failed("date") {
		paidOn = date.Value
	}
	cmd := domain.PayRecurring{RecurringID: id, TransactionID: newID(), PaidOn: paidOn, Today: s.today()}
	s.run(w, r, b, command{Decide: cmd.Decide, Answer: queries.RecordWithTransactions("recurring", queries.RecurringByID(activeWorkspace(r), id), activeWorkspace(r))})
}
