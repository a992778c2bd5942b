package imports

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/queries"
	"github.com/finledger/finledger/statement"
)

// decimalOf is an amount as the database takes it.
func decimalOf(a *queries.Amount) *decimal.Decimal {
	if a == nil {
		return nil
	}
	d := decimal.Decimal(*a)
	return &d
}

// Save stores a new preview: its header and rows, in one transaction.
func Save(ctx context.Context, db Pool, workspaceID uuid.UUID, imp *Import, createdBy string) error {
	tx, err := db.Begin(ctx)
	if err != nil {
		return fmt.Errorf("imports: save preview: %w", err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // a rollback after commit does nothing
	var opening, closing *decimal.Decimal
	var date domain.Date
	if s := imp.Statement; s != nil {
		opening, closing, date = decimalOf(s.OpeningBalance), decimalOf(s.ClosingBalance), s.Date
	}
	if _, err := tx.Exec(ctx, `INSERT INTO imports (workspace_id, id, wallet_id, format, file_name, file_sha256,
			opening_balance, closing_balance, statement_date, row_count, created_by, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
		workspaceID, imp.ID, imp.WalletID, imp.Format, imp.FileName, imp.FileSHA256, opening, closing, date,
		len(imp.Rows), createdBy, imp.CreatedAt); err != nil {
		return fmt.Errorf("imports: save preview: %w", err)
	}
	_, err = tx.CopyFrom(ctx, pgx.Identifier{"import_rows"}, rowColumns, pgx.CopyFromSlice(len(imp.Rows), func(i int) ([]any, error) {
		r := imp.Rows[i]
		splits, err := r.splitsJSON()
		return []any{workspaceID, imp.ID, int32(r.Index), r.Date, r.ValueDate, r.amount(), r.Currency, r.Payee, r.Memo,
			r.ExternalID, r.ExternalIDGiven, r.Counterparty, string(r.Type), r.Concept, r.CategoryID, r.TagID, r.ToWalletID,
			r.RuleID, r.Match.Verdict, r.Match.Reason, r.Match.TransactionID, r.Decision, splits}, err
	}))
	if err != nil {
		return fmt.Errorf("imports: save preview rows: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("imports: save preview: %w", err)
	}
	return nil
}

var rowColumns = []string{"workspace_id", "import_id", "index", "date", "value_date", "amount", "currency", "payee", "memo",
	"external_id", "external_id_given", "counterparty", "type", "concept", "category_id", "tag_id", "to_wallet_id",
	"rule_id", "verdict", "reason", "match_id", "decision", "splits"}

// parts are the row's parts as a command takes them, nil when it is not split.
func (r Row) parts() []domain.SplitPart {
	if len(r.Splits) == 0 {
		return nil
	}
	parts := make([]domain.SplitPart, len(r.Splits))
	for i, p := range r.Splits {
		parts[i] = p.Part()
	}
	return parts
}

// splitsJSON is the row's parts as its row holds them: as the commit's events will
// state them, amounts with their scale; nil (NULL) when it is not split.
func (r Row) splitsJSON() ([]byte, error) {
	if len(r.Splits) == 0 {
		return nil, nil
	}
	b, err := json.Marshal(r.parts())
	if err != nil {
		return nil, fmt.Errorf("imports: a row's parts: %w", err)
	}
	return b, nil
}

const importColumns = `id, wallet_id, status, format, file_name, file_sha256, opening_balance, closing_balance, statement_date,
	row_count, created_at, committed_at, undone_at, created, merged, skipped, transaction_names`

func scanImport(row pgx.Row) (*Import, error) {
	var imp Import
	var opening, closing *decimal.Decimal
	var date domain.Date
	err := row.Scan(&imp.ID, &imp.WalletID, &imp.Status, &imp.Format, &imp.FileName, &imp.FileSHA256, &opening, &closing, &date,
		&imp.RowCount, &imp.CreatedAt, &imp.CommittedAt, &imp.UndoneAt, &imp.Created, &imp.Merged, &imp.Skipped, &imp.names)
	if opening != nil || closing != nil {
		imp.Statement = &Statement{OpeningBalance: queries.AmountPtr(opening), ClosingBalance: queries.AmountPtr(closing), Date: date}
	}
	return &imp, err
}

// Get reads an import of the workspace, with its rows and summary when withRows is set:
// IMPORT_NOT_FOUND when there is none.
func Get(ctx context.Context, db DB, workspaceID, id uuid.UUID, withRows bool) (*Import, error) {
	imp, err := scanImport(db.QueryRow(ctx, `SELECT `+importColumns+` FROM imports WHERE workspace_id = $1 AND id = $2`, workspaceID, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, domain.NotFound("IMPORT_NOT_FOUND", "import %s not found", id)
	}
	if err != nil {
		return nil, fmt.Errorf("imports: read import: %w", err)
	}
	if !withRows {
		return imp, nil
	}
	if imp.Rows, err = readRows(ctx, db, workspaceID, id); err != nil {
		return nil, err
	}
	if imp.Status != StatusPreview {
		for i := range imp.Rows {
			imp.Rows[i].TransactionID = imp.Rows[i].committedAs(id, imp.names)
		}
		return imp, nil
	}
	var balance decimal.Decimal
	if err := db.QueryRow(ctx, `SELECT balance FROM wallets WHERE workspace_id = $1 AND id = $2`, workspaceID, imp.WalletID).
		Scan(&balance); err != nil {
		return nil, fmt.Errorf("imports: read wallet balance: %w", err)
	}
	imp.Summarize(balance)
	return imp, nil
}

// readRows reads an import's rows, in their order.
func readRows(ctx context.Context, db DB, workspaceID, id uuid.UUID) ([]Row, error) {
	var out []Row
	err := eachRow(ctx, db, workspaceID, id, func(r Row) error {
		out = append(out, r)
		return nil
	})
	return out, err
}

// eachRow gives f an import's rows one at a time, in their order, so that a reader that
// keeps less than the whole row does not hold every row at once.
func eachRow(ctx context.Context, db DB, workspaceID, id uuid.UUID, f func(Row) error) error {
	rows, err := db.Query(ctx, `SELECT `+rowSelect+` FROM import_rows WHERE workspace_id = $1 AND import_id = $2 ORDER BY index`, workspaceID, id)
	if err != nil {
		return fmt.Errorf("imports: read import rows: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		r, err := scanRow(rows)
		if err != nil {
			return fmt.Errorf("imports: read import rows: %w", err)
		}
		if err := f(r); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("imports: read import rows: %w", err)
	}
	return nil
}

// List reads a page of the workspace's imports, newest first, without their rows, and
// how many there are.
func List(ctx context.Context, db DB, workspaceID uuid.UUID, limit, offset int) ([]*Import, int, error) {
	var total int
	if err := db.QueryRow(ctx, `SELECT count(*) FROM imports WHERE workspace_id = $1`, workspaceID).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("imports: count imports: %w", err)
	}
	rows, err := db.Query(ctx, `SELECT `+importColumns+` FROM imports WHERE workspace_id = $1
		ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3`, workspaceID, limit, offset)
	if err != nil {
		return nil, 0, fmt.Errorf("imports: list imports: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (*Import, error) { return scanImport(row) })
	if err != nil {
		return nil, 0, fmt.Errorf("imports: list imports: %w", err)
	}
	if list == nil {
		list = []*Import{}
	}
	return list, total, nil
}

const rowSelect = `index, date, value_date, amount, currency, payee, memo, external_id, external_id_given, counterparty,
	type, concept, category_id, tag_id, to_wallet_id, rule_id, verdict, reason, match_id, decision, transaction_id, splits`

func scanRow(row pgx.CollectableRow) (Row, error) {
	var r Row
	var index int32
	var amount decimal.Decimal
	var splits []byte
	err := row.Scan(&index, &r.Date, &r.ValueDate, &amount, &r.Currency, &r.Payee, &r.Memo, &r.ExternalID, &r.ExternalIDGiven,
		&r.Counterparty, &r.Type, &r.Concept, &r.CategoryID, &r.TagID, &r.ToWalletID, &r.RuleID, &r.Match.Verdict, &r.Match.Reason,
		&r.Match.TransactionID, &r.Decision, &r.TransactionID, &splits)
	if err != nil {
		return r, err
	}
	r.Index, r.Amount = int(index), queries.Amount(amount)
	r.Splits, err = queries.ReadSplitParts(splits)
	return r, err
}

// Summarize counts the preview's rows, and sets where the wallet's balance, now
// balance, would stand after the commit.
func (imp *Import) Summarize(balance decimal.Decimal) {
	s := Summary{Rows: len(imp.Rows), WalletBalance: queries.Amount(balance)}
	in, out, after := decimal.Zero, decimal.Zero, balance
	for _, r := range imp.Rows {
		switch r.Match.Verdict {
		case VerdictNew:
			s.New++
		case VerdictDuplicate:
			s.Duplicate++
		case VerdictProbable:
			s.Probable++
		}
		switch r.Decision {
		case domain.ImportDecisionImport:
			s.Import++
			after = after.Add(r.amount())
			if r.amount().IsNegative() {
				out = out.Sub(r.amount())
			} else {
				in = in.Add(r.amount())
			}
		case domain.ImportDecisionSkip:
			s.Skip++
		case domain.ImportDecisionMerge:
			s.Merge++
		}
	}
	s.MoneyIn, s.MoneyOut, s.BalanceAfter = queries.Amount(in), queries.Amount(out), queries.Amount(after)
	if imp.Statement != nil && imp.Statement.ClosingBalance != nil {
		d := queries.Amount(decimal.Decimal(*imp.Statement.ClosingBalance).Sub(after))
		s.Difference = &d
	}
	imp.Summary = &s
}

// RowChange is a change of a preview row's decision or proposal; nil fields keep theirs.
type RowChange struct {
	Decision   *string
	Type       *domain.TransactionType
	Concept    domain.Nullable[string]
	CategoryID domain.Nullable[uuid.UUID]
	TagID      domain.Nullable[uuid.UUID]
	// ToWalletID is the wallet a transfer goes to, with Type transfer.
	ToWalletID *uuid.UUID
	// MergeWith names the transaction a merge links the row to, instead of its match.
	MergeWith *uuid.UUID
}

// ChangeRow changes a row of a preview and returns it. The preview's lock makes a
// change wait for a commit under way, and then find the import committed.
func ChangeRow(ctx context.Context, db Pool, workspaceID, id uuid.UUID, index int, c RowChange) (Row, error) {
	tx, err := db.Begin(ctx)
	if err != nil {
		return Row{}, fmt.Errorf("imports: change row: %w", err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // a rollback after commit does nothing
	var status string
	var walletID uuid.UUID
	err = tx.QueryRow(ctx, `SELECT status, wallet_id FROM imports WHERE workspace_id = $1 AND id = $2 FOR UPDATE`, workspaceID, id).
		Scan(&status, &walletID)
	if errors.Is(err, pgx.ErrNoRows) {
		return Row{}, domain.NotFound("IMPORT_NOT_FOUND", "import %s not found", id)
	}
	if err != nil {
		return Row{}, fmt.Errorf("imports: change row: %w", err)
	}
	if status != StatusPreview {
		return Row{}, domain.Conflict("IMPORT_NOT_IN_PREVIEW", "import %s is %s: its rows no longer change", id, status)
	}
	rows, err := tx.Query(ctx, `SELECT `+rowSelect+` FROM import_rows WHERE workspace_id = $1 AND import_id = $2 AND index = $3`,
		workspaceID, id, index)
	if err != nil {
		return Row{}, fmt.Errorf("imports: change row: %w", err)
	}
	r, err := pgx.CollectExactlyOneRow(rows, scanRow)
	if errors.Is(err, pgx.ErrNoRows) {
		return Row{}, domain.NotFound("IMPORT_ROW_NOT_FOUND", "import %s has no row %d", id, index)
	}
	if err != nil {
		return Row{}, fmt.Errorf("imports: change row: %w", err)
	}
	if err := r.change(ctx, tx, workspaceID, walletID, c); err != nil {
		return Row{}, err
	}
	splits, err := r.splitsJSON()
	if err != nil {
		return Row{}, err
	}
	if _, err := tx.Exec(ctx, `UPDATE import_rows SET decision = $4, type = $5, concept = $6, category_id = $7, tag_id = $8,
			match_id = $9, verdict = $10, reason = $11, to_wallet_id = $12, splits = $13
		WHERE workspace_id = $1 AND import_id = $2 AND index = $3`,
		workspaceID, id, index, r.Decision, string(r.Type), r.Concept, r.CategoryID, r.TagID, r.Match.TransactionID,
		r.Match.Verdict, r.Match.Reason, r.ToWalletID, splits); err != nil {
		return Row{}, fmt.Errorf("imports: change row: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return Row{}, fmt.Errorf("imports: change row: %w", err)
	}
	return r, nil
}

// change applies c to the row, checking it against the workspace's read models.
func (r *Row) change(ctx context.Context, tx pgx.Tx, workspaceID, walletID uuid.UUID, c RowChange) error {
	if c.MergeWith != nil {
		var concept string
		err := tx.QueryRow(ctx, `SELECT coalesce(concept, description, '') FROM transactions
			WHERE workspace_id = $1 AND id = $2 AND wallet_id = $3 AND deleted_at IS NULL AND external_id IS NULL`,
			workspaceID, *c.MergeWith, walletID).Scan(&concept)
		if errors.Is(err, pgx.ErrNoRows) {
			return domain.NotFound("TRANSACTION_NOT_FOUND",
				"transaction %s is not a live transaction of the wallet without a statement row of its own", *c.MergeWith)
		}
		if err != nil {
			return fmt.Errorf("imports: read transaction to merge: %w", err)
		}
		id := *c.MergeWith
		r.Match = Match{Verdict: VerdictProbable, Reason: "chosen by hand", TransactionID: &id}
		merge := domain.ImportDecisionMerge
		c.Decision = &merge
	}
	if c.Decision != nil {
		switch *c.Decision {
		case domain.ImportDecisionMerge:
			if r.Match.TransactionID == nil || r.Match.Verdict == VerdictDuplicate {
				return domain.Conflict("IMPORT_ROW_NO_MATCH", "row %d matches no transaction to merge with: name one with transactionId", r.Index)
			}
		case domain.ImportDecisionImport:
			if r.Match.Verdict == VerdictDuplicate {
				return domain.Conflict("IMPORT_ROW_DUPLICATE", "row %d is a duplicate: %s", r.Index, r.Match.Reason)
			}
		}
		r.Decision = *c.Decision
	}
	if c.Type != nil || c.ToWalletID != nil {
		typ := r.Type
		if c.Type != nil {
			typ = *c.Type
		}
		switch {
		case typ != domain.TxTransfer && c.ToWalletID != nil:
			return domain.InvalidField("toWalletId", "goes with the type transfer")
		case typ == domain.TxTransfer && (c.ToWalletID == nil || !r.amount().IsNegative()):
			return domain.InvalidField("toWalletId", "is required for a transfer, which only money out of the wallet can be")
		case typ == domain.TxTransfer:
			var live bool
			err := tx.QueryRow(ctx, `SELECT NOT archived AND id <> $3 FROM wallets WHERE workspace_id = $1 AND id = $2`,
				workspaceID, *c.ToWalletID, walletID).Scan(&live)
			if errors.Is(err, pgx.ErrNoRows) || err == nil && !live {
				return domain.NotFound("WALLET_NOT_FOUND", "wallet %s is not another live wallet of the workspace", *c.ToWalletID)
			}
			if err != nil {
				return fmt.Errorf("imports: read wallet: %w", err)
			}
		}
		r.Type, r.ToWalletID = typ, c.ToWalletID
		if typ == domain.TxTransfer {
			r.Splits = []queries.SplitPart{} // a transfer is not split
		}
	}
	if c.Concept.Set {
		r.Concept = c.Concept.Ptr()
	}
	if c.CategoryID.Set {
		if id := c.CategoryID.Ptr(); id != nil {
			var live bool
			err := tx.QueryRow(ctx, `SELECT NOT archived FROM categories WHERE workspace_id = $1 AND id = $2`, workspaceID, *id).Scan(&live)
			if errors.Is(err, pgx.ErrNoRows) || err == nil && !live {
				return domain.NotFound("CATEGORY_NOT_FOUND", "category %s not found", *id)
			}
			if err != nil {
				return fmt.Errorf("imports: read category: %w", err)
			}
		}
		// One category chosen for the row takes the place of its parts'.
		r.CategoryID, r.Splits = c.CategoryID.Ptr(), []queries.SplitPart{}
	}
	if c.TagID.Set {
		if id := c.TagID.Ptr(); id != nil {
			var live bool
			err := tx.QueryRow(ctx, `SELECT active FROM tags WHERE workspace_id = $1 AND id = $2`, workspaceID, *id).Scan(&live)
			if errors.Is(err, pgx.ErrNoRows) || err == nil && !live {
				return domain.NotFound("TAG_NOT_FOUND", "tag %s not found", *id)
			}
			if err != nil {
				return fmt.Errorf("imports: read tag: %w", err)
			}
		}
		r.TagID = c.TagID.Ptr()
	}
	return nil
}

// Discard forgets a preview and its rows: IMPORT_NOT_FOUND when there is none,
// IMPORT_NOT_IN_PREVIEW once committed (its undo takes it back instead). The preview's
// lock makes a discard wait for a commit under way, and then find it committed.
func Discard(ctx context.Context, db Pool, workspaceID, id uuid.UUID) error {
	tx, err := db.Begin(ctx)
	if err != nil {
		return fmt.Errorf("imports: discard: %w", err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // a rollback after commit does nothing
	var status string
	err = tx.QueryRow(ctx, `SELECT status FROM imports WHERE workspace_id = $1 AND id = $2 FOR UPDATE`, workspaceID, id).Scan(&status)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return domain.NotFound("IMPORT_NOT_FOUND", "import %s not found", id)
	case err != nil:
		return fmt.Errorf("imports: discard: %w", err)
	case status != StatusPreview:
		return domain.Conflict("IMPORT_NOT_IN_PREVIEW", "import %s is %s: undo it instead", id, status)
	}
	if _, err := tx.Exec(ctx, `DELETE FROM import_rows WHERE workspace_id = $1 AND import_id = $2`, workspaceID, id); err != nil {
		return fmt.Errorf("imports: discard: %w", err)
	}
	if _, err := tx.Exec(ctx, `DELETE FROM imports WHERE workspace_id = $1 AND id = $2`, workspaceID, id); err != nil {
		return fmt.Errorf("imports: discard: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("imports: discard: %w", err)
	}
	return nil
}

// Commit is the command that commits a preview, without its rows, and what reads them
// into it: the commit reads them in its own transaction, once it holds the import's
// lock (ledger.BindImportCommit), so that it commits them as they are then, whatever
// changed since the preview.
func Commit(ctx context.Context, db DB, workspaceID, id uuid.UUID) (*domain.CommitImport, func(context.Context, pgx.Tx) error, error) {
	imp, err := Get(ctx, db, workspaceID, id, false)
	if err != nil {
		return nil, nil, err
	}
	c := &domain.CommitImport{ImportID: id, WalletID: imp.WalletID, Format: imp.Format, Rows: make([]domain.ImportedRow, 0, imp.RowCount)}
	return c, func(ctx context.Context, tx pgx.Tx) error { return commitRows(ctx, tx, workspaceID, c) }, nil
}

// How a commit names the transactions it creates from its rows: the imports' column
// transaction_names (migration 0044).
const (
	namedByHash = 1 // a name-based UUID of the import and the row: commits before 0044
	namedByTime = 2 // the import's time, then that name (CreatedTransaction)
)

// CreatedTransaction is the id of the transaction that the commit of import makes of its
// row at index: named by the import and the row, so that the commit records which
// transaction each row became in its events alone, and the import's rows and undo find
// it again from the row. It is a UUIDv8 whose first 48 bits are the import's, its time
// when its id is a UUIDv7 (as the API makes them), and whose other bits are the
// name-based UUID of the import and the row (namedByHash): the transactions of one import
// lie together in the indexes that hold their ids, next to those made at the same time.
func CreatedTransaction(importID uuid.UUID, index int) uuid.UUID {
	id := hashNamed(importID, index)
	copy(id[:6], importID[:6])
	id[6] = id[6]&0x0f | 0x80 // version 8: a layout of our own; the variant is the hash's
	return id
}

// hashNamed is the name-based UUID of an import's row: its transaction's id in a commit
// before migration 0044.
func hashNamed(importID uuid.UUID, index int) uuid.UUID {
	return uuid.NewSHA1(importID, binary.BigEndian.AppendUint32(nil, uint32(index)))
}

// committedAs is the transaction the commit of import made of the row, or linked it to,
// the created ones named as names says; nil for a row it skipped. A row of an import
// committed before the ids were named by the row keeps the id recorded on it.
func (r Row) committedAs(importID uuid.UUID, names int) *uuid.UUID {
	switch {
	case r.TransactionID != nil:
		return r.TransactionID
	case r.Decision == domain.ImportDecisionImport && names == namedByHash:
		id := hashNamed(importID, r.Index)
		return &id
	case r.Decision == domain.ImportDecisionImport:
		id := CreatedTransaction(importID, r.Index)
		return &id
	case r.Decision == domain.ImportDecisionMerge:
		return r.Match.TransactionID
	}
	return nil
}

// commitRows reads a preview's rows into c, one at a time (a row keeps less than what
// the preview shows of it): those to import, each with the transaction id the row names
// (CreatedTransaction), and those to merge; those skipped are counted. It records on the
// import how the ids are named, in the commit's transaction.
func commitRows(ctx context.Context, db DB, workspaceID uuid.UUID, c *domain.CommitImport) error {
	c.Rows, c.Skipped = c.Rows[:0], 0
	if _, err := db.Exec(ctx, `UPDATE imports SET transaction_names = $3 WHERE workspace_id = $1 AND id = $2`,
		workspaceID, c.ImportID, namedByTime); err != nil {
		return fmt.Errorf("imports: name the transactions of import %s: %w", c.ImportID, err)
	}
	return eachRow(ctx, db, workspaceID, c.ImportID, func(r Row) error {
		row := domain.ImportedRow{Index: r.Index, Decision: r.Decision, ExternalID: r.ExternalID, Type: r.Type,
			Amount: r.amount().Abs(), Date: r.Date, Concept: r.Concept, CategoryID: r.CategoryID, TagID: r.TagID, ToWalletID: r.ToWalletID,
			Splits: r.parts()}
		if r.Memo != "" && (r.Concept == nil || *r.Concept != r.Memo) {
			memo := r.Memo
			row.Description = &memo
		}
		switch r.Decision {
		case domain.ImportDecisionSkip:
			c.Skipped++
			return nil
		case domain.ImportDecisionMerge:
			row.TransactionID = *r.Match.TransactionID
		default:
			row.TransactionID = CreatedTransaction(c.ImportID, r.Index)
		}
		c.Rows = append(c.Rows, row)
		return nil
	})
}

// Undo is the undo of a committed import: the transactions it created and those it
// linked to, as its rows name them (committedAs).
func Undo(ctx context.Context, db DB, workspaceID, id uuid.UUID) (*domain.UndoImport, error) {
	imp, err := Get(ctx, db, workspaceID, id, false)
	if err != nil {
		return nil, err
	}
	c := &domain.UndoImport{ImportID: id}
	if imp.Status == StatusPreview {
		return c, nil // the domain refuses it: no committed import
	}
	err = eachRow(ctx, db, workspaceID, id, func(r Row) error {
		tx := r.committedAs(id, imp.names)
		switch {
		case tx == nil:
		case r.Decision == domain.ImportDecisionMerge:
			c.Merged = append(c.Merged, *tx)
		default:
			c.Created = append(c.Created, *tx)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// Upload is a statement file sent to be previewed.
type Upload struct {
	WalletID uuid.UUID
	// File is read once, as it comes.
	File     io.Reader
	FileName *string
	Options  statement.Options
	// Account names the account to import of a file of several.
	Account string
	// CreatedBy names who uploaded it, as the ledger's metadata names actors.
	CreatedBy string
}

// Preview reads an uploaded statement into a preview of the wallet's import, saves it,
// and returns it with its rows and summary. Nothing is recorded in the ledger.
func Preview(ctx context.Context, db Pool, workspaceID uuid.UUID, u Upload, id uuid.UUID, now time.Time) (*Import, error) {
	wallet, err := LiveWallet(ctx, db, workspaceID, u.WalletID)
	if err != nil {
		return nil, err
	}
	file, err := Read(u.File, u.Options, u.Account, wallet.Currency)
	if err != nil {
		return nil, err
	}
	if err := Propose(ctx, db, workspaceID, wallet, file.Rows); err != nil {
		return nil, err
	}
	imp := &Import{ID: id, WalletID: wallet.ID, Status: StatusPreview, Format: string(file.Format), FileName: u.FileName,
		FileSHA256: file.SHA256, Statement: file.Statement, RowCount: len(file.Rows), CreatedAt: now, Rows: file.Rows}
	if err := Save(ctx, db, workspaceID, imp, u.CreatedBy); err != nil {
		return nil, err
	}
	imp.Summarize(wallet.Balance)
	return imp, nil
}

// PreviewRetention is how long a preview never committed is kept.
const PreviewRetention = 7 * 24 * time.Hour

// PurgePreviews forgets the previews made before cutoff and never committed, their rows
// with them, and returns how many. A committed import keeps its rows: its undo reads
// them.
func PurgePreviews(ctx context.Context, db DB, cutoff time.Time) (int64, error) {
	var n int64
	err := db.QueryRow(ctx, `WITH gone AS (
			DELETE FROM imports WHERE status = 'preview' AND created_at < $1 RETURNING workspace_id, id),
		rows AS (DELETE FROM import_rows r USING gone WHERE r.workspace_id = gone.workspace_id AND r.import_id = gone.id)
		SELECT count(*) FROM gone`, cutoff).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("imports: purge previews: %w", err)
	}
	return n, nil
}
