package domain

import (
	"errors"
	"fmt"
	"slices"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
)

// Import is a committed statement import as the write side sees it: what its undo must
// find, and whether it happened.
type Import struct {
	WalletID uuid.UUID
	Created  int
	Merged   int
	Undone   bool
}

// Import row decisions: what the commit does with a row of the statement.
const (
	ImportDecisionImport = "import" // record it as a new transaction
	ImportDecisionSkip   = "skip"   // leave it out
	ImportDecisionMerge  = "merge"  // it is a transaction already recorded: link the two
)

// ImportDecisions lists the decisions a row may take.
var ImportDecisions = []string{ImportDecisionImport, ImportDecisionSkip, ImportDecisionMerge}

// ImportedRow is one row of a statement the commit records or links.
type ImportedRow struct {
	// Index is the row's place in the statement, from 0.
	Index int
	// TransactionID is the new transaction's id, or for a merge the recorded
	// transaction the row is linked to.
	TransactionID uuid.UUID
	Decision      string
	ExternalID    string
	// What a new transaction is; a merge leaves the recorded transaction as it is.
	Type        TransactionType
	Amount      decimal.Decimal
	Date        Date
	Concept     *string
	Description *string
	ToWalletID  *uuid.UUID
	CategoryID  *uuid.UUID
	TagID       *uuid.UUID
	// Splits are the parts of a row the file split (splits.go), nil for one not split.
	Splits []SplitPart
}

// ImportPart is the most transactions one TransactionsImported records.
const ImportPart = 1000

// CommitImport records a previewed statement in one wallet: each row to import as a
// transaction carrying the import's id and the row's external id, each merge as a link
// from the row to the transaction already recorded. All rows are taken, or none. Its
// events are the import's ImportCommitted, then its new transactions in parts of
// ImportPart (TransactionsImported), then its links, each in the order of the rows'
// dates, and of the statement within a day (byDate).
//
// Errors: IMPORT_ALREADY_COMMITTED; WALLET_NOT_FOUND; a row's own errors as
// CreateTransaction gives them, the field named by the row's index; TRANSACTION_NOT_FOUND
// or IMPORT_MERGE_REFUSED for a merge.
type CommitImport struct {
	ImportID uuid.UUID
	WalletID uuid.UUID
	Format   string
	Rows     []ImportedRow
	Skipped  int
	// AlreadyImported are the external ids of Rows the wallet already holds live, read
	// in the commit's own transaction (ledger.BindImportCommit).
	AlreadyImported []string
}

// Decide checks every row against the workspace and returns the import's events.
func (c CommitImport) Decide(w *Workspace) ([]Event, error) {
	if _, done := w.Imports[c.ImportID]; done {
		return nil, Conflict("IMPORT_ALREADY_COMMITTED", "import %s is already committed", c.ImportID)
	}
	if wallet, ok := w.Wallets[c.WalletID]; !ok || wallet.Archived {
		return nil, NotFound("WALLET_NOT_FOUND", "wallet %s not found", c.WalletID)
	}
	if n := len(c.AlreadyImported); n > 0 {
		e := Conflict("IMPORT_ROWS_ALREADY_IMPORTED", "%d rows of this statement are already in the wallet, imported since the preview: upload the file again for a new preview", n)
		e.Details = map[string]any{"externalIds": c.AlreadyImported[:min(n, 20)]}
		return nil, e
	}
	if err := w.meetAll(c.Rows, ImportDecisionMerge); err != nil {
		return nil, err
	}
	committed := &ImportCommitted{ImportID: c.ImportID, WalletID: c.WalletID, Format: c.Format, Skipped: c.Skipped}
	events := []Event{committed}
	var part *TransactionsImported
	var links []Event
	linked := map[uuid.UUID]bool{}
	// The events point at copies of the ids, not into c: a pointer into c would keep
	// c, and with it every row, as long as any event lives.
	importID, walletID := c.ImportID, c.WalletID
	order := byDate(c.Rows)
	for n, at := range order {
		row := c.Rows[at]
		i := row.Index
		switch row.Decision {
		case ImportDecisionImport:
			created, err := CreateTransaction{
				TransactionID: row.TransactionID, Type: row.Type, Amount: row.Amount, Date: row.Date, Today: row.Date,
				Concept: row.Concept, Description: row.Description, WalletID: &walletID, ToWalletID: row.ToWalletID,
				CategoryID: row.CategoryID, TagID: row.TagID, Cleared: true, Splits: row.Splits,
			}.Decide(w)
			if err != nil {
				return nil, rowError(i, err)
			}
			e := created[0].(*TransactionCreated)
			e.ImportID, e.ExternalID = &importID, row.ExternalID
			if part == nil || len(part.Transactions) == ImportPart {
				size := min(len(order)-n, ImportPart)
				part = &TransactionsImported{ImportID: importID, TransactionIDs: make([]uuid.UUID, 0, size),
					Transactions: make([]TransactionCreated, 0, size)}
				events = append(events, part)
			}
			part.TransactionIDs, part.Transactions = append(part.TransactionIDs, e.TransactionID), append(part.Transactions, *e)
			committed.Created++
		case ImportDecisionMerge:
			t, err := w.liveTransaction(row.TransactionID)
			if err != nil {
				return nil, rowError(i, err)
			}
			switch {
			case t.WalletID != c.WalletID && (t.ToWalletID == nil || *t.ToWalletID != c.WalletID):
				return nil, Conflict("IMPORT_MERGE_REFUSED", "row %d: transaction %s is not in this wallet", i, row.TransactionID)
			case t.ExternalID != "" || linked[row.TransactionID]:
				return nil, Conflict("IMPORT_MERGE_REFUSED", "row %d: transaction %s is already linked to a statement row", i, row.TransactionID)
			}
			linked[row.TransactionID] = true
			links = append(links, &TransactionMatched{TransactionID: row.TransactionID, ImportID: c.ImportID, ExternalID: row.ExternalID})
			committed.Merged++
		default:
			return nil, InvalidField(rowField(i, "decision"), "must be import or merge")
		}
	}
	return append(events, links...), nil
}

// byDate returns the places of rows in the order of their dates, and of the statement
// within a day. A part of an import then holds the transactions of a few days, whatever
// order the file lists them in: the read models' rows it writes (a day's totals, the
// listing's entries) lie together, and a day's or a month's total moves in one or two
// parts, not in nearly all of them.
func byDate(rows []ImportedRow) []int {
	order := make([]int, len(rows))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return rows[a].Date.Compare(rows[b].Date) })
	return order
}

// UndoImport takes a committed import back: every transaction it created that is still
// live is deleted, and every link it made to a recorded transaction is removed. Created
// and Merged name them all, as the import's rows name them.
//
// Errors: IMPORT_NOT_FOUND; IMPORT_ALREADY_UNDONE.
type UndoImport struct {
	ImportID uuid.UUID
	Created  []uuid.UUID
	Merged   []uuid.UUID
}

// Decide returns the deletions and unlinkings of the import, after its undo.
func (c UndoImport) Decide(w *Workspace) ([]Event, error) {
	imp, ok := w.Imports[c.ImportID]
	switch {
	case !ok:
		return nil, NotFound("IMPORT_NOT_FOUND", "no committed import %s", c.ImportID)
	case imp.Undone:
		return nil, Conflict("IMPORT_ALREADY_UNDONE", "import %s is already undone", c.ImportID)
	case len(c.Created) != imp.Created || len(c.Merged) != imp.Merged:
		return nil, fmt.Errorf("domain: undo of import %s names %d created and %d merged transactions, it made %d and %d",
			c.ImportID, len(c.Created), len(c.Merged), imp.Created, imp.Merged)
	}
	if unmet := w.unmetOf(append(slices.Clone(c.Created), c.Merged...)); unmet != nil {
		return nil, unmet
	}
	undone := &ImportUndone{ImportID: c.ImportID, WalletID: imp.WalletID}
	events := []Event{undone}
	importID := c.ImportID // a pointer into c would keep its lists as long as the events
	for _, id := range c.Created {
		t := w.Transactions[id]
		if t == nil || t.ImportID == nil || *t.ImportID != c.ImportID || t.Matched {
			return nil, fmt.Errorf("domain: transaction %s was not created by import %s", id, c.ImportID)
		}
		if t.Deleted {
			continue // deleted since, by hand
		}
		deleted, err := DeleteTransaction{TransactionID: id}.Decide(w)
		if err != nil {
			return nil, err
		}
		deleted[0].(*TransactionDeleted).ImportID = &importID
		events = append(events, deleted...)
		undone.Deleted++
	}
	for _, id := range c.Merged {
		t := w.Transactions[id]
		if t == nil || t.ImportID == nil || *t.ImportID != c.ImportID || !t.Matched {
			return nil, fmt.Errorf("domain: transaction %s was not linked by import %s", id, c.ImportID)
		}
		events = append(events, &TransactionUnmatched{TransactionID: id, ImportID: c.ImportID})
		undone.Unmerged++
	}
	return events, nil
}

// meetAll reports, at once, every transaction the rows of one decision name that the
// state has not met.
func (w *Workspace) meetAll(rows []ImportedRow, decision string) error {
	var ids []uuid.UUID
	for _, r := range rows {
		if r.Decision == decision {
			ids = append(ids, r.TransactionID)
		}
	}
	if unmet := w.unmetOf(ids); unmet != nil {
		return unmet
	}
	return nil
}

// unmetOf is the error naming those of ids the state has not met, nil when it has met
// them all.
func (w *Workspace) unmetOf(ids []uuid.UUID) *unmetTransactions {
	if !w.TransactionsPartial {
		return nil
	}
	var unmet []uuid.UUID
	for _, id := range ids {
		if _, ok := w.Transactions[id]; !ok {
			unmet = append(unmet, id)
		}
	}
	if len(unmet) == 0 {
		return nil
	}
	return &unmetTransactions{IDs: unmet}
}

// rowError names the statement row a transaction's error is about.
func rowError(index int, err error) error {
	var e *Error
	if !errors.As(err, &e) {
		return err
	}
	out := *e
	out.Message = fmt.Sprintf("row %d: %s", index, e.Message)
	out.Fields = make([]FieldError, len(e.Fields))
	for i, f := range e.Fields {
		out.Fields[i] = FieldError{Field: rowField(index, f.Field), Message: f.Message}
	}
	return &out
}

func rowField(index int, field string) string {
	return fmt.Sprintf("rows[%d].%s", index, field)
}
