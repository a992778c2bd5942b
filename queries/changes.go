package queries

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// The change feed and the differences between two moments: the records a range of a
// workspace's stream touched, read from the histories the projections keep (migration
// 0019), each with its state at the range's end, or its deletion.

// Record kinds the feed carries.
const (
	KindWallet      = "wallet"
	KindCategory    = "category"
	KindTransaction = "transaction"
	KindBudget      = "budget"
	KindGoal        = "goal"
	KindDebt        = "debt"
)

// recordKind is a kind of record whose states the read models keep.
type recordKind struct {
	// touched selects (version, id) of the states of workspace $1's records that stood
	// from a version in ($2, $3].
	touched string
	// read returns the records among ids that exist and are not deleted, as the read
	// models hold them (at a cut, within AsOf), keyed by id.
	read func(ctx context.Context, db DB, ws uuid.UUID, ids []uuid.UUID) (map[uuid.UUID]any, error)
}

// stateVersion is the version from which a transaction's row stood.
const stateVersion = `coalesce(changed_version, created_version)`

func keptStates(history string) string {
	return `SELECT version, id FROM ` + history + ` WHERE workspace_id = $1 AND version > $2 AND version <= $3`
}

var recordKinds = map[string]recordKind{
	KindWallet: {keptStates("wallet_versions"), readRecords(`SELECT `+walletColumns+` FROM wallets WHERE workspace_id = $1 AND id = ANY($2)`,
		scanWallet, func(w Wallet) uuid.UUID { return w.ID })},
	KindCategory: {keptStates("category_versions"), readRecords(`SELECT `+categoryColumns+` FROM categories WHERE workspace_id = $1 AND id = ANY($2)`,
		scanCategory, func(c Category) uuid.UUID { return c.ID })},
	KindTransaction: {`SELECT ` + stateVersion + `, id FROM transactions
			WHERE workspace_id = $1 AND ` + stateVersion + ` > $2 AND ` + stateVersion + ` <= $3
		UNION ALL
		SELECT ` + stateVersion + `, id FROM transaction_versions
			WHERE workspace_id = $1 AND ` + stateVersion + ` > $2 AND ` + stateVersion + ` <= $3`,
		readRecords(`SELECT `+transactionColumns+` FROM transactions WHERE workspace_id = $1 AND id = ANY($2) AND deleted_at IS NULL`,
			func(row pgx.CollectableRow) (Transaction, error) { return scanTransaction(row) }, func(t Transaction) uuid.UUID { return t.ID })},
	// A budget's spending moves with expenses that do not change the budget: the feed
	// carries its own fields, and GET /api/budgets its spending.
	KindBudget: {keptStates("budget_versions"), readRecords(`SELECT `+budgetColumns+` FROM budgets WHERE workspace_id = $1 AND id = ANY($2) AND NOT deleted`,
		scanBudgetRecord, func(b BudgetRecord) uuid.UUID { return b.ID })},
	KindGoal: {keptStates("goal_versions"), readRecords(goalSelect+` WHERE workspace_id = $1 AND id = ANY($2) AND NOT deleted`,
		scanGoal, func(g Goal) uuid.UUID { return g.ID })},
	KindDebt: {keptStates("debt_versions"), readRecords(debtSelect+` WHERE workspace_id = $1 AND id = ANY($2) AND NOT deleted`,
		scanDebt, func(d Debt) uuid.UUID { return d.ID })},
}

// RecordKinds lists the kinds of record the feed carries, in a fixed order.
func RecordKinds() []string {
	kinds := make([]string, 0, len(recordKinds))
	for k := range recordKinds {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	return kinds
}

func readRecords[T any](sql string, scan func(pgx.CollectableRow) (T, error), id func(T) uuid.UUID) func(context.Context, DB, uuid.UUID, []uuid.UUID) (map[uuid.UUID]any, error) {
	return func(ctx context.Context, db DB, ws uuid.UUID, ids []uuid.UUID) (map[uuid.UUID]any, error) {
		rows, err := db.Query(ctx, sql, ws, ids)
		if err != nil {
			return nil, fmt.Errorf("queries: records by id: %w", err)
		}
		list, err := all(rows, scan, "records by id")
		if err != nil {
			return nil, err
		}
		out := make(map[uuid.UUID]any, len(list))
		for _, r := range list {
			out[id(r)] = r
		}
		return out, nil
	}
}

// RecordRef names a record.
type RecordRef struct {
	Kind string    `json:"kind"`
	ID   uuid.UUID `json:"id"`
}

// touch is a record a range touched, and the version of its last state in the range.
type touch struct {
	RecordRef
	version int64
}

// touchedSQL unites the touched selections of kinds, each row (version, kind, id).
func touchedSQL(kinds []string) string {
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = `SELECT t.version, '` + k + `' AS kind, t.id FROM (` + recordKinds[k].touched + `) AS t(version, id)`
	}
	return strings.Join(parts, "\nUNION ALL\n")
}

// Change is a record a page of the feed touched: its state at the page's version, or
// its deletion.
type Change struct {
	RecordRef
	// Version is the version of the record's last change up to the page's.
	Version int64 `json:"version"`
	Deleted bool  `json:"deleted"`
	// Record is the record as the API shows it; null when deleted.
	Record any `json:"record"`
}

// ChangePage is a page of the change feed.
type ChangePage struct {
	Changes []Change `json:"changes"`
	// Cursor is the version of the stream the page brings a copy to: the next page
	// starts after it.
	Cursor int64 `json:"cursor"`
	// More says the stream has gone on past Cursor.
	More bool `json:"more"`
}

// Changes returns the records of the given kinds that the workspace's stream touched
// after version after: the first limit changes in stream order, and every other change
// of the last one's version, so that the page ends at a version, each record with its
// state there.
func Changes(ctx context.Context, pool *pgxpool.Pool, ws uuid.UUID, kinds []string, after int64, limit int) (ChangePage, error) {
	head, err := StreamHead(ctx, pool, ws)
	if err != nil {
		return ChangePage{}, err
	}
	page := ChangePage{Changes: []Change{}, Cursor: head}
	if after >= head {
		page.Cursor = after
		return page, nil
	}
	union := touchedSQL(kinds)
	err = pool.QueryRow(ctx, `SELECT version FROM (`+union+`) u ORDER BY version OFFSET $4 LIMIT 1`, ws, after, head, limit-1).Scan(&page.Cursor)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		page.Cursor = head
	case err != nil:
		return page, fmt.Errorf("queries: change feed: %w", err)
	}
	page.More = page.Cursor < head
	touched, err := touchedBetween(ctx, pool, union, ws, after, page.Cursor)
	if err != nil {
		return page, err
	}
	err = AsOf(ctx, pool, page.Cursor, func(db DB) error {
		states, err := readStates(ctx, db, ws, touched)
		if err != nil {
			return err
		}
		for _, t := range touched {
			r, ok := states[t.RecordRef]
			page.Changes = append(page.Changes, Change{RecordRef: t.RecordRef, Version: t.version, Deleted: !ok, Record: r})
		}
		return nil
	})
	return page, err
}

// touchedBetween lists the records union touched in (after, upTo], each once, in the
// order of their last change.
func touchedBetween(ctx context.Context, db DB, union string, ws uuid.UUID, after, upTo int64) ([]touch, error) {
	rows, err := db.Query(ctx, `SELECT kind, id, max(version) FROM (`+union+`) u GROUP BY kind, id ORDER BY 3, 1, 2`, ws, after, upTo)
	if err != nil {
		return nil, fmt.Errorf("queries: touched records: %w", err)
	}
	return all(rows, func(row pgx.CollectableRow) (t touch, err error) {
		return t, row.Scan(&t.Kind, &t.ID, &t.version)
	}, "touched records")
}

// readStates reads the records named, kind by kind, as db shows them; a record
// missing from the answer is deleted.
func readStates(ctx context.Context, db DB, ws uuid.UUID, refs []touch) (map[RecordRef]any, error) {
	byKind := map[string][]uuid.UUID{}
	for _, r := range refs {
		byKind[r.Kind] = append(byKind[r.Kind], r.ID)
	}
	out := map[RecordRef]any{}
	for kind, ids := range byKind {
		records, err := recordKinds[kind].read(ctx, db, ws, ids)
		if err != nil {
			return nil, err
		}
		for id, r := range records {
			out[RecordRef{kind, id}] = r
		}
	}
	return out, nil
}

// Difference is a record whose state differs between two cuts: before and after are
// its states there, null where it did not exist or was deleted.
type Difference struct {
	RecordRef
	Before any `json:"before"`
	After  any `json:"after"`
}

// Differences returns the records of the given kinds whose state at version to differs
// from that at version from, in (kind, id) order: of the first limit records after the
// record after (the zero RecordRef to start) that the versions between touched, those
// that differ. next is the last record looked at when more follow, nil at the end.
func Differences(ctx context.Context, pool *pgxpool.Pool, ws uuid.UUID, kinds []string, from, to int64, after RecordRef, limit int) (diffs []Difference, next *RecordRef, err error) {
	out := []Difference{}
	for {
		rows, err := pool.Query(ctx, `SELECT DISTINCT kind, id FROM (`+touchedSQL(kinds)+`) u
			WHERE (kind, id) > ($4, $5) ORDER BY 1, 2 LIMIT $6`, ws, from, to, after.Kind, after.ID, limit+1)
		if err != nil {
			return nil, nil, fmt.Errorf("queries: differences: %w", err)
		}
		refs, err := all(rows, func(row pgx.CollectableRow) (t touch, err error) { return t, row.Scan(&t.Kind, &t.ID) }, "differences")
		if err != nil {
			return nil, nil, err
		}
		more := len(refs) > limit
		if more {
			refs = refs[:limit]
		}
		states := [2]map[RecordRef]any{}
		for i, v := range []int64{from, to} {
			err := AsOf(ctx, pool, v, func(db DB) (err error) {
				states[i], err = readStates(ctx, db, ws, refs)
				return err
			})
			if err != nil {
				return nil, nil, err
			}
		}
		for _, r := range refs {
			before, after := states[0][r.RecordRef], states[1][r.RecordRef]
			if same, err := sameJSON(before, after); err != nil {
				return nil, nil, err
			} else if !same {
				out = append(out, Difference{r.RecordRef, before, after})
			}
		}
		if !more {
			return out, nil, nil
		}
		after = refs[len(refs)-1].RecordRef
		// A page of records that changed and came back holds no differences: go on to
		// the next, so that a page is empty only at the end.
		if len(out) > 0 {
			return out, &after, nil
		}
	}
}

// sameJSON reports whether two records show the same.
func sameJSON(a, b any) (bool, error) {
	x, err := json.Marshal(a)
	if err != nil {
		return false, fmt.Errorf("queries: compare states: %w", err)
	}
	y, err := json.Marshal(b)
	if err != nil {
		return false, fmt.Errorf("queries: compare states: %w", err)
	}
	return string(x) == string(y), nil
}
