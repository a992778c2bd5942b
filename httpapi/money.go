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

func budgetInput(b *body, create bool) domain.UpdateBudget {
	in := domain.UpdateBudget{
		Name: b.read(recordName), CategoryID: b.id("categoryId"), Amount: b.amount("amount", false),
		Currency: currency(b, "currency"), Period: b.read(budgetPeriod), StartDate: b.date("startDate"),
		EndDate: b.date("endDate"), AlertThreshold: b.number("alertThreshold"), TagID: b.id("tagId"),
	}
	if create {
		b.required("name", in.Name.Valid)
		b.required("categoryId", in.CategoryID.Valid)
		b.required("amount", in.Amount.Valid)
		b.required("startDate", in.StartDate.Valid)
		b.required("endDate", in.EndDate.Valid)
	} else {
		b.notNull("name", "categoryId", "amount", "currency", "period", "startDate", "endDate", "alertThreshold")
	}
	return in
}

func createBudget(s *Server, w http.ResponseWriter, r *http.Request) {
	_, b, ok := readRequest(w, r, false)
	if !ok {
		return
	}
	in := budgetInput(b, true)
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
	cmd := budgetInput(b, false)
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

func goalInput(b *body, create bool) domain.UpdateGoal {
	in := domain.UpdateGoal{Name: b.read(recordName), TargetAmount: b.amount("targetAmount", true),
		Currency: currency(b, "currency"), Deadline: b.date("deadline")}
	if create {
		b.required("name", in.Name.Valid)
		b.required("targetAmount", in.TargetAmount.Valid)
	} else {
		b.notNull("name", "targetAmount", "currency")
	}
	return in
}

func createGoal(s *Server, w http.ResponseWriter, r *http.Request) {
	_, b, ok := readRequest(w, r, false)
	if !ok {
		return
	}
	in := goalInput(b, true)
	cmd := domain.CreateGoal{GoalID: newID(), Name: in.Name.Value, TargetAmount: in.TargetAmount.Value, Currency: in.Currency.Ptr(),
		Deadline: in.Deadline.Ptr()}
	s.run(w, r, b, command{Decide: cmd.Decide, Answer: queries.Record("goal", queries.GoalByID(activeWorkspace(r), cmd.GoalID))})
}

func updateGoal(s *Server, w http.ResponseWriter, r *http.Request) {
	id, b, ok := readRequest(w, r, true)
	if !ok {
		return
	}
	cmd := goalInput(b, false)
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
func goalMovement(kind string) handler {
	return func(s *Server, w http.ResponseWriter, r *http.Request) {
		id, b, ok := readRequest(w, r, true)
		if !ok {
			return
		}
		amount := b.amount("amount", true)
		wallet := b.id("walletId")
		note := b.read(movementNote)
		date := b.date("date")
		b.required("amount", amount.Valid)
		if kind == domain.TxGoalDeposit {
			b.required("walletId", wallet.Valid)
		}
		cmd := domain.GoalMovement{GoalID: id, Type: kind, Amount: amount.Value, WalletID: wallet.Ptr(), Note: note.Ptr(),
			Date: date.Value, Today: s.today(), NewID: newID}
		s.run(w, r, b, command{Decide: cmd.Decide, Answer: queries.RecordWithTransactions("goal", queries.GoalByID(activeWorkspace(r), id), activeWorkspace(r))})
	}
}

// --- debts ---

func debtInput(b *body, create bool) domain.UpdateDebt {
	in := domain.UpdateDebt{Name: b.read(recordName), Creditor: b.read(debtCreditor), TotalAmount: b.amount("totalAmount", true),
		PendingBalance: b.amount("pendingBalance", false), Currency: currency(b, "currency"), DueDate: b.date("dueDate")}
	if create {
		b.required("name", in.Name.Valid)
		b.required("totalAmount", in.TotalAmount.Valid)
	} else {
		b.notNull("name", "totalAmount", "pendingBalance", "currency")
	}
	return in
}

func createDebt(s *Server, w http.ResponseWriter, r *http.Request) {
	_, b, ok := readRequest(w, r, false)
	if !ok {
		return
	}
	in := debtInput(b, true)
	cmd := domain.CreateDebt{DebtID: newID(), Name: in.Name.Value, Creditor: in.Creditor.Ptr(), TotalAmount: in.TotalAmount.Value,
		PendingBalance: in.PendingBalance.Ptr(), Currency: in.Currency.Ptr(), DueDate: in.DueDate.Ptr()}
	s.run(w, r, b, command{Decide: cmd.Decide, Answer: queries.Record("debt", queries.DebtByID(activeWorkspace(r), cmd.DebtID))})
}

func updateDebt(s *Server, w http.ResponseWriter, r *http.Request) {
	id, b, ok := readRequest(w, r, true)
	if !ok {
		return
	}
	cmd := debtInput(b, false)
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
	amount := b.amount("amount", true)
	wallet := b.id("walletId")
	date := b.date("date")
	note := b.read(movementNote)
	b.required("amount", amount.Valid)
	cmd := domain.PayDebt{DebtID: id, TransactionID: newID(), Amount: amount.Value, WalletID: wallet.Ptr(),
		Date: date.Value, Today: s.today(), Note: note.Ptr()}
	s.run(w, r, b, command{Decide: cmd.Decide, Answer: queries.RecordWithTransactions("debt", queries.DebtByID(activeWorkspace(r), id), activeWorkspace(r))})
}

// --- recurring payments ---

func recurringInput(b *body, create bool) domain.UpdateRecurring {
	in := domain.UpdateRecurring{Name: b.read(recordName), Amount: b.amount("amount", true), Kind: b.read(recurringKind),
		Periodicity: b.read(recurringPeriodicity), NextPayment: b.date("nextPayment"), Active: b.boolean("active"),
		WalletID: b.id("walletId"), CategoryID: b.id("categoryId")}
	if create {
		b.required("name", in.Name.Valid)
		b.required("amount", in.Amount.Valid)
		b.required("kind", in.Kind.Valid)
		b.required("periodicity", in.Periodicity.Valid)
		b.required("nextPayment", in.NextPayment.Valid)
	} else {
		b.notNull("name", "amount", "kind", "periodicity", "nextPayment", "active")
	}
	return in
}

func createRecurring(s *Server, w http.ResponseWriter, r *http.Request) {
	_, b, ok := readRequest(w, r, false)
	if !ok {
		return
	}
	in := recurringInput(b, true)
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
	cmd := recurringInput(b, false)
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
	date := b.date("date")
	var paidOn domain.Date
	if date.Valid && !b.failed("date") {
		paidOn, _ = domain.ParseDate(date.Value)
	}
	cmd := domain.PayRecurring{RecurringID: id, TransactionID: newID(), PaidOn: paidOn, Today: s.today()}
	s.run(w, r, b, command{Decide: cmd.Decide, Answer: queries.RecordWithTransactions("recurring", queries.RecurringByID(activeWorkspace(r), id), activeWorkspace(r))})
}
