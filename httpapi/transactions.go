package httpapi

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/ledger"
	"github.com/finledger/finledger/queries"
)

// Listing limits (spec 4.A and 8).
const (
	defaultPageSize = 25
	maxPageSize     = 100
	maxSearch       = 200
	maxQuickSearch  = 100
	quickResults    = 10
	maxBulkIDs      = 500
)

// transactionInput reads the fields shared by the create and update bodies. The two
// documented body shapes differ: toWalletId and destinationWalletId are aliases, and a
// concept (short) and a description (long) are both kept.
func transactionInput(b *body) domain.UpdateTransaction {
	in := domain.UpdateTransaction{
		Amount:            transactionAmount.read(b),
		DestinationAmount: transactionDestAmount.read(b),
		Date:              transactionDate.read(b),
		Concept:           transactionConcept.read(b),
		Description:       transactionDescription.read(b),
		WalletID:          transactionWallet.read(b),
		CategoryID:        transactionCategory.read(b),
		TagID:             recordTag.read(b),
		ReferenceNumber:   transactionReference.read(b),
		AttachmentURL:     b.link(transactionAttachment),
		Cleared:           transactionCleared.read(b),
		Splits:            splitsOf(b),
	}
	in.ToWalletID = aliasOf(b, transactionToWallet.Name, transactionToWallet.read(b), transactionDestination.Name, transactionDestination.read(b))
	return in
}

// splitsOf reads the parts of a split transaction: absent, null, or the parts (none,
// when sent empty: refused as such).
func splitsOf(b *body) domain.Nullable[[]domain.SplitPart] {
	parts := readObjects(b, transactionSplits, func(p *body) domain.SplitPart {
		return domain.SplitPart{Amount: splitAmount.read(p).Value, Currency: splitCurrency.read(p).Value,
			CategoryID: transactionCategory.read(p).Ptr(), TagID: recordTag.read(p).Ptr(), Concept: transactionConcept.read(p).Ptr()}
	})
	switch raw, sent := b.fields[transactionSplits.Name]; {
	case !sent:
		return domain.Nullable[[]domain.SplitPart]{}
	case string(raw) == "null":
		return domain.Null[[]domain.SplitPart]()
	case parts == nil:
		parts = []domain.SplitPart{}
	}
	return domain.Of(parts)
}

func createTransaction(s *Server, w http.ResponseWriter, r *http.Request) {
	_, b, ok := readRequest(w, r, false)
	if !ok {
		return
	}
	typ := transactionType.read(b)
	in := transactionInput(b)
	goalID, debtID := transactionGoal.read(b), transactionDebt.read(b)
	cmd := domain.CreateTransaction{
		TransactionID: newID(), Type: domain.TransactionType(typ.Value), Amount: in.Amount.Value, DestinationAmount: in.DestinationAmount.Ptr(),
		Date: in.Date.Value, Today: s.today(), Concept: in.Concept.Ptr(), Description: in.Description.Ptr(), WalletID: in.WalletID.Ptr(),
		ToWalletID: in.ToWalletID.Ptr(), CategoryID: in.CategoryID.Ptr(), GoalID: goalID.Ptr(), DebtID: debtID.Ptr(),
		TagID: in.TagID.Ptr(), ReferenceNumber: in.ReferenceNumber.Ptr(), AttachmentURL: in.AttachmentURL.Ptr(),
		Cleared: orDefault(in.Cleared, false), Splits: in.Splits.Value,
	}
	s.run(w, r, b, command{Decide: cmd.Decide, Answer: queries.Record("transaction", queries.TransactionByID(activeWorkspace(r), cmd.TransactionID))})
}

// allowReconciled reads the query parameter by which a change of a reconciled
// transaction says it means it.
func allowReconciled(w http.ResponseWriter, r *http.Request) (allowed, ok bool) {
	q := &query{values: r.URL.Query()}
	allowed = q.boolean(allowReconciledParam["name"].(string))
	if err := q.err(); err != nil {
		writeError(w, r, err)
		return false, false
	}
	return allowed, true
}

func updateTransaction(s *Server, w http.ResponseWriter, r *http.Request) {
	id, b, ok := readRequest(w, r, true)
	if !ok {
		return
	}
	allowed, ok := allowReconciled(w, r)
	if !ok {
		return
	}
	cmd := transactionInput(b)
	cmd.TransactionID, cmd.AllowReconciled = id, allowed
	s.run(w, r, b, command{Decide: cmd.Decide, Answer: queries.Record("transaction", queries.TransactionByID(activeWorkspace(r), id))})
}

func deleteTransaction(s *Server, w http.ResponseWriter, r *http.Request) {
	id, b, ok := readRequest(w, r, true)
	if !ok {
		return
	}
	allowed, ok := allowReconciled(w, r)
	if !ok {
		return
	}
	cmd := domain.DeleteTransaction{TransactionID: id, AllowReconciled: allowed}
	s.run(w, r, b, command{Decide: cmd.Decide, Answer: queries.Value(map[string]bool{"ok": true})})
}

func bulkTransactions(s *Server, w http.ResponseWriter, r *http.Request) {
	_, b, ok := readRequest(w, r, false)
	if !ok {
		return
	}
	ids := bulkIDs.read(b)
	op := bulkOperation.read(b)
	category := bulkCategory.read(b)
	cmd := domain.BulkTransactions{IDs: ids, Operation: op.Value, CategoryID: category.Ptr(),
		AllowReconciled: orDefault(bulkReconciled.read(b), false)}
	s.run(w, r, b, command{Decide: cmd.Decide,
		Answer: queries.OfEvents(func(events []ledger.Appended) any {
			affected := 0
			for _, e := range events {
				// The budget alerts a recategorization may cause are not transactions.
				if e.Type != domain.TypeBudgetThresholdReached {
					affected++
				}
			}
			return map[string]any{"ok": true, "operation": op.Value, "affected": affected}
		})})
}

func listTransactions(s *Server, w http.ResponseWriter, r *http.Request) {
	f, err := transactionFilter(r.URL.Query())
	if err != nil {
		writeError(w, r, err)
		return
	}
	page, err := queries.Transactions(r.Context(), s.pool, activeWorkspace(r), f)
	if err != nil {
		writeError(w, r, err)
		return
	}
	respond(w, r, map[string]any{
		"transactions": page.Transactions,
		"pagination":   pagination(f.Limit, f.Offset, page.Total),
	})
}

// query validates query parameters field by field, like body does for JSON.
type query struct {
	values url.Values
	errs   []domain.FieldError
}

func (q *query) fail(name, message string) {
	q.errs = append(q.errs, domain.FieldError{Field: name, Message: message})
}

// err returns every parameter error found, or nil.
func (q *query) err() error {
	if len(q.errs) > 0 {
		return domain.Invalid(q.errs...)
	}
	return nil
}

func (q *query) integer(name string, min, max, fallback int) int {
	s := q.values.Get(name)
	if s == "" {
		return fallback
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < min || n > max {
		q.fail(name, "must be an integer from "+strconv.Itoa(min)+" to "+strconv.Itoa(max))
		return fallback
	}
	return n
}

// paging reads the page number and size of a listing.
func (q *query) paging() (page, size int) {
	return q.integer("page", 1, 1_000_000, 1), q.integer("pageSize", 1, maxPageSize, defaultPageSize)
}

// pagination is a listing's pagination object.
func pagination(limit, offset, total int) map[string]int {
	return map[string]int{"limit": limit, "offset": offset, "total": total}
}

// boolean reads a parameter that is true or false, false when absent.
func (q *query) boolean(name string) bool {
	switch q.values.Get(name) {
	case "", "false":
		return false
	case "true":
		return true
	}
	q.fail(name, "must be true or false")
	return false
}

func (q *query) id(name string) *uuid.UUID {
	s := q.values.Get(name)
	if s == "" {
		return nil
	}
	id, err := parseUUID(s)
	if err != nil {
		q.fail(name, "must be a UUID")
		return nil
	}
	return &id
}

func (q *query) date(name string) *domain.Date {
	s := q.values.Get(name)
	if s == "" {
		return nil
	}
	t, err := parseDate(s)
	if err != nil {
		q.fail(name, dateRule)
		return nil
	}
	d := domain.DateAt(t)
	return &d
}

// text reads a text parameter of at most max characters; refuseUnstorableQuery has
// refused any that is not UTF-8 or holds NUL.
func (q *query) text(name string, max int) string {
	s := q.values.Get(name)
	if utf8.RuneCountInString(s) > max {
		q.fail(name, "must be at most "+strconv.Itoa(max)+" characters long")
		return ""
	}
	return s
}

func transactionFilter(values url.Values) (queries.TransactionFilter, error) {
	q := &query{values: values}
	page, size := q.paging()
	f := queries.TransactionFilter{
		Type:       domain.TransactionType(values.Get("type")),
		WalletID:   q.id("walletId"),
		CategoryID: q.id("categoryId"),
		GoalID:     q.id("goalId"),
		From:       q.date("from"),
		To:         q.date("to"),
		Search:     q.text("search", maxSearch),
	}
	if f.Type != "" && !slices.Contains(domain.TransactionTypes, f.Type) {
		q.fail("type", "must be one of income, expense, transfer, goal_deposit, goal_withdrawal")
	}
	if f.From != nil && f.To != nil && f.To.Before(*f.From) {
		q.fail("to", "must not be before from")
	}
	if quick := q.text("q", maxQuickSearch); quick != "" {
		if f.Search != "" && f.Search != quick {
			q.fail("q", "conflicts with search; q is its alias")
		}
		f.Search = quick
		size = min(size, quickResults)
	}
	f.Limit, f.Offset = size, (page-1)*size
	return f, q.err()
}
