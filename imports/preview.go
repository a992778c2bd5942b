package imports

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/queries"
)

// DB is what the preview reads and writes through: a pool, a connection or a
// transaction, as the queries read.
type DB = queries.DB

// Pool is what writes a preview in a transaction of its own: a pool.
type Pool interface {
	DB
	Begin(ctx context.Context) (pgx.Tx, error)
}

// probableDays is how far apart a statement row's date and a recorded transaction's
// may be for the two to be probably the same.
const probableDays = 3

// The import statuses.
const (
	StatusPreview   = "preview"
	StatusCommitted = "committed"
	StatusUndone    = "undone"
)

// Import is an import as its preview and history show it.
type Import struct {
	ID          uuid.UUID  `json:"id"`
	WalletID    uuid.UUID  `json:"walletId"`
	Status      string     `json:"status"`
	Format      string     `json:"format"`
	FileName    *string    `json:"fileName"`
	FileSHA256  string     `json:"fileSha256"`
	Statement   *Statement `json:"statement"`
	RowCount    int        `json:"rowCount"`
	CreatedAt   time.Time  `json:"createdAt"`
	CommittedAt *time.Time `json:"committedAt"`
	UndoneAt    *time.Time `json:"undoneAt"`
	Created     *int       `json:"created"`
	Merged      *int       `json:"merged"`
	Skipped     *int       `json:"skipped"`
	Summary     *Summary   `json:"summary,omitempty"`
	Rows        []Row      `json:"rows,omitempty"`
	// names is how its commit named the transactions it created (namedByHash, namedByTime).
	names int
}

// Summary counts a preview's rows and says where the wallet's balance would stand.
type Summary struct {
	Rows      int `json:"rows"`
	New       int `json:"new"`
	Duplicate int `json:"duplicate"`
	Probable  int `json:"probable"`
	Import    int `json:"import"`
	Skip      int `json:"skip"`
	Merge     int `json:"merge"`
	// MoneyIn and MoneyOut add up the rows to import.
	MoneyIn  queries.Amount `json:"moneyIn"`
	MoneyOut queries.Amount `json:"moneyOut"`
	// WalletBalance is the wallet's balance now, BalanceAfter once the rows to import
	// are, and Difference the statement's closing balance less BalanceAfter.
	WalletBalance queries.Amount  `json:"walletBalance"`
	BalanceAfter  queries.Amount  `json:"balanceAfter"`
	Difference    *queries.Amount `json:"difference"`
}

// Wallet is what a preview needs of the wallet it imports into.
type Wallet struct {
	ID       uuid.UUID
	Currency string
	Balance  decimal.Decimal
}

// LiveWallet reads a live wallet of the workspace: WALLET_NOT_FOUND otherwise.
func LiveWallet(ctx context.Context, db DB, workspaceID, walletID uuid.UUID) (Wallet, error) {
	w := Wallet{ID: walletID}
	err := db.QueryRow(ctx, `SELECT currency, balance FROM wallets WHERE workspace_id = $1 AND id = $2 AND NOT archived`,
		workspaceID, walletID).Scan(&w.Currency, &w.Balance)
	if errors.Is(err, pgx.ErrNoRows) {
		return w, domain.NotFound("WALLET_NOT_FOUND", "wallet %s not found", walletID)
	}
	if err != nil {
		return w, fmt.Errorf("imports: read wallet: %w", err)
	}
	return w, nil
}

// Propose fills each row's proposal, verdict and decision, against what the wallet
// holds: a row whose external id is in the wallet, or earlier in the file, is a
// duplicate; one like a transaction recorded by hand (same amount and direction, dates
// at most probableDays apart, payees alike) is probable, each such transaction named by
// one row at most; any other is new.
func Propose(ctx context.Context, db Pool, workspaceID uuid.UUID, wallet Wallet, rows []Row) error {
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i] = r.ExternalID
	}
	held, err := heldExternalIDs(ctx, db, workspaceID, wallet.ID, ids)
	if err != nil {
		return err
	}
	transfers, err := walletAccounts(ctx, db, workspaceID, wallet.ID)
	if err != nil {
		return err
	}
	rules, err := queries.RuleBook(ctx, db, workspaceID)
	if err != nil {
		return err
	}
	named, err := namedRecords(ctx, db, workspaceID, wallet.ID)
	if err != nil {
		return err
	}
	inFile := map[string]int{}
	skipped := map[int]bool{}
	var open []int // rows left to compare with transactions recorded by hand
	for i := range rows {
		r := &rows[i]
		r.Proposal = proposal(*r, transfers)
		named.propose(r)
		skipped[i] = r.applyRule(rules, wallet.ID)
		switch id, inWallet := held[r.ExternalID]; {
		case inWallet:
			r.Match = Match{Verdict: VerdictDuplicate, Reason: "this row is already in the wallet", TransactionID: &id}
		case inFile[r.ExternalID] > 0:
			r.Match = Match{Verdict: VerdictDuplicate, Reason: fmt.Sprintf("the same row is row %d of this file", inFile[r.ExternalID]-1)}
		default:
			r.Match = Match{Verdict: VerdictNew, Reason: "nothing in the wallet is like it"}
			open = append(open, i)
		}
		if _, ok := inFile[r.ExternalID]; !ok {
			inFile[r.ExternalID] = i + 1
		}
	}
	if err := matchProbable(ctx, db, workspaceID, wallet.ID, rows, open); err != nil {
		return err
	}
	for i := range rows {
		rows[i].Decision = defaultDecision(rows[i].Match.Verdict)
		if skipped[i] {
			rows[i].Decision = domain.ImportDecisionSkip
		}
	}
	return nil
}

// applyRule sets the row's proposal as the first rule that matches it says, and
// reports whether that rule leaves the row out.
func (r *Row) applyRule(rules *domain.RuleBook, walletID uuid.UUID) bool {
	subject := domain.RuleSubject{Payee: r.Payee, Memo: r.Memo, Amount: r.amount().Abs(), WalletID: walletID, Type: r.Type}
	if r.Concept != nil {
		subject.Concept = *r.Concept
	}
	id, rule := rules.First(subject)
	if rule == nil {
		return false
	}
	a := rule.Actions
	r.RuleID = &id
	if a.CategoryID != nil && len(r.Splits) == 0 {
		r.CategoryID = a.CategoryID
	}
	if a.TagID != nil {
		r.TagID = a.TagID
	}
	if a.Concept != nil {
		r.Concept = a.Concept
	}
	if a.Type != nil && (*a.Type != domain.TxTransfer || r.amount().IsNegative()) {
		r.Type, r.ToWalletID = *a.Type, a.ToWalletID
		if r.Type == domain.TxTransfer {
			r.Splits = []queries.SplitPart{}
		}
	}
	if a.Splits != nil && len(r.Splits) == 0 && (r.Type == domain.TxIncome || r.Type == domain.TxExpense) {
		if parts := domain.SplitByPercent(r.amount().Abs(), r.Currency, a.Splits); parts != nil {
			r.Splits, r.CategoryID = queries.SplitPartsOf(parts), nil
		}
	}
	return a.Skip
}

func defaultDecision(verdict string) string {
	switch verdict {
	case VerdictDuplicate:
		return domain.ImportDecisionSkip
	case VerdictProbable:
		return domain.ImportDecisionMerge
	}
	return domain.ImportDecisionImport
}

// proposal is the transaction a row becomes: money out an expense, or a transfer when
// its counterparty's account is another wallet's; money in income.
func proposal(r Row, accounts map[string]uuid.UUID) Proposal {
	p := Proposal{Type: domain.TxIncome, Splits: []queries.SplitPart{}}
	if r.amount().IsNegative() {
		p.Type = domain.TxExpense
		if to, ok := accounts[accountKey(r.Counterparty)]; ok && r.Counterparty != "" {
			p.Type, p.ToWalletID = domain.TxTransfer, &to
		}
	}
	concept := strings.TrimSpace(r.Payee)
	if concept == "" {
		concept = strings.TrimSpace(r.Memo)
	}
	if concept != "" {
		concept = domain.ConceptText.Clean(concept)
		p.Concept = &concept
	}
	return p
}

// named are the workspace's live categories and other wallets by folded name, which a
// file's own category (QIF's L line: "Food:Dining", or "[Savings]" for a transfer) names.
type named struct {
	categories, wallets map[string]uuid.UUID
}

func namedRecords(ctx context.Context, db DB, workspaceID, walletID uuid.UUID) (named, error) {
	n := named{categories: map[string]uuid.UUID{}, wallets: map[string]uuid.UUID{}}
	rows, err := db.Query(ctx, `SELECT 'category', id, name FROM categories WHERE workspace_id = $1 AND NOT archived
		UNION ALL SELECT 'wallet', id, name FROM wallets WHERE workspace_id = $1 AND id <> $2 AND NOT archived`, workspaceID, walletID)
	if err != nil {
		return n, fmt.Errorf("imports: read names: %w", err)
	}
	var kind, name string
	var id uuid.UUID
	_, err = pgx.ForEachRow(rows, []any{&kind, &id, &name}, func() error {
		if kind == "category" {
			n.categories[domain.FoldName(name)] = id
		} else {
			n.wallets[domain.FoldName(name)] = id
		}
		return nil
	})
	if err != nil {
		return n, fmt.Errorf("imports: read names: %w", err)
	}
	return n, nil
}

// propose sets the row's category, or its transfer, from the category its file names:
// the whole name, else its first part ("Food" of "Food:Dining"); a wallet's name in
// brackets is a transfer to it of money out. An income or expense the file splits in
// parts (QIF's S, $ and E lines) is proposed split, each part's category found as the
// row's is (none when the file names a wallet or a category the workspace lacks) and
// its memo its concept, provided every part goes the row's way (no refund among the
// parts of a purchase): else it is proposed whole.
func (n named) propose(r *Row) {
	name := strings.TrimSpace(r.category)
	if inner, ok := strings.CutPrefix(name, "["); ok {
		if to, ok := n.wallets[domain.FoldName(strings.TrimSuffix(inner, "]"))]; ok && r.amount().IsNegative() {
			r.Type, r.ToWalletID = domain.TxTransfer, &to
		}
		return
	}
	r.CategoryID = n.category(name)
	if len(r.splits) < 2 || r.Type == domain.TxTransfer {
		return
	}
	parts := make([]queries.SplitPart, 0, len(r.splits))
	for _, split := range r.splits {
		amount := split.Amount
		if r.amount().IsNegative() {
			amount = amount.Neg()
		}
		if !amount.IsPositive() {
			return
		}
		part := queries.SplitPart{Amount: queries.Amount(amount), Currency: r.Currency, CategoryID: n.category(split.Category)}
		if memo := domain.ConceptText.Clean(split.Memo); memo != "" {
			part.Concept = &memo
		}
		parts = append(parts, part)
	}
	r.Splits, r.CategoryID = parts, nil
}

// category is the live category a file's category name names, nil for none: the whole
// name, else its first part ("Food" of "Food:Dining").
func (n named) category(name string) *uuid.UUID {
	name = strings.TrimSpace(name)
	for _, candidate := range []string{name, strings.SplitN(name, ":", 2)[0]} {
		if id, ok := n.categories[domain.FoldName(candidate)]; ok && candidate != "" {
			return &id
		}
	}
	return nil
}

// accountKey is an account number as wallets and statements compare it: its letters
// and digits, upper case.
func accountKey(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return unicode.ToUpper(r)
		}
		return -1
	}, s)
}

// heldExternalIDs maps each of ids the wallet holds on a live transaction to it.
func heldExternalIDs(ctx context.Context, db DB, workspaceID, walletID uuid.UUID, ids []string) (map[string]uuid.UUID, error) {
	rows, err := db.Query(ctx, `SELECT external_id, id FROM transactions
		WHERE workspace_id = $1 AND wallet_id = $2 AND deleted_at IS NULL AND external_id = ANY($3)`, workspaceID, walletID, ids)
	if err != nil {
		return nil, fmt.Errorf("imports: read the wallet's external ids: %w", err)
	}
	held := map[string]uuid.UUID{}
	var id string
	var tx uuid.UUID
	_, err = pgx.ForEachRow(rows, []any{&id, &tx}, func() error { held[id] = tx; return nil })
	if err != nil {
		return nil, fmt.Errorf("imports: read the wallet's external ids: %w", err)
	}
	return held, nil
}

// walletAccounts maps the account numbers (CLABE) of the workspace's other live wallets
// to them.
func walletAccounts(ctx context.Context, db DB, workspaceID, walletID uuid.UUID) (map[string]uuid.UUID, error) {
	rows, err := db.Query(ctx, `SELECT id, clabe FROM wallets
		WHERE workspace_id = $1 AND id <> $2 AND NOT archived AND clabe IS NOT NULL`, workspaceID, walletID)
	if err != nil {
		return nil, fmt.Errorf("imports: read wallets: %w", err)
	}
	out := map[string]uuid.UUID{}
	var id uuid.UUID
	var clabe string
	_, err = pgx.ForEachRow(rows, []any{&id, &clabe}, func() error { out[accountKey(clabe)] = id; return nil })
	if err != nil {
		return nil, fmt.Errorf("imports: read wallets: %w", err)
	}
	return out, nil
}

// candidate is a transaction recorded by hand that may be a statement row.
type candidate struct {
	row     int
	id      uuid.UUID
	date    domain.Date
	concept string
}

// matchProbable gives the rows of open a probable verdict when a live transaction of
// the wallet with no statement row, of the same amount and direction, lies at most
// probableDays from them and its concept is like their payee; each transaction goes to
// one row, the closest in payee and then in date.
func matchProbable(ctx context.Context, db Pool, workspaceID, walletID uuid.UUID, rows []Row, open []int) error {
	if len(open) == 0 {
		return nil
	}
	index, dates, amounts, types := make([]int32, len(open)), make([]domain.Date, len(open)), make([]decimal.Decimal, len(open)), make([]string, len(open))
	for i, n := range open {
		r := rows[n]
		index[i], dates[i], amounts[i] = int32(n), r.Date, r.amount().Abs()
		types[i] = string(domain.TxIncome)
		if r.amount().IsNegative() {
			types[i] = string(domain.TxExpense)
		}
	}
	// Each row's candidates are read by a lookup of the amounts' index, the entries of its
	// amount and days alone (migration 0039). Given a statement of many rows, PostgreSQL
	// would rather plan a parallel merge join through every transaction of their
	// amounts, and compile it (JIT): 0.85 s against 0.29 s for 97,849 rows at a million
	// transactions (BENCHMARKS.md, 2026-12-01). Both are off for this query alone.
	var cands []candidate
	err := pgx.BeginFunc(ctx, db, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT set_config('max_parallel_workers_per_gather', '0', true), set_config('jit', 'off', true)`); err != nil {
			return err
		}
		found, err := tx.Query(ctx, `SELECT r.i, t.id, t.date, coalesce(t.concept, t.description, '')
			FROM unnest($3::int[], $4::date[], $5::numeric[], $6::text[]) r(i, d, a, typ)
			JOIN transactions t ON t.workspace_id = $1 AND t.wallet_id = $2 AND t.deleted_at IS NULL AND t.external_id IS NULL
				AND t.amount = r.a AND t.date BETWEEN r.d - $7::int AND r.d + $7::int
				AND (t.type = r.typ OR (r.typ = 'expense' AND t.type = 'transfer'))`,
			workspaceID, walletID, index, dates, amounts, types, probableDays)
		if err != nil {
			return err
		}
		var c candidate
		var i int32
		_, err = pgx.ForEachRow(found, []any{&i, &c.id, &c.date, &c.concept}, func() error {
			c.row = int(i)
			cands = append(cands, c)
			return nil
		})
		return err
	})
	if err != nil {
		return fmt.Errorf("imports: find probable duplicates: %w", err)
	}
	// The best pairs first: payees alike, then dates close; each row and each
	// transaction is taken once.
	type pair struct {
		candidate
		alike bool
		days  int
	}
	pairs := make([]pair, 0, len(cands))
	for _, c := range cands {
		r := rows[c.row]
		alike := payeesAlike(r.Payee+" "+r.Memo, c.concept)
		if !alike && strings.TrimSpace(c.concept) != "" {
			continue // another payee: a different purchase of the same amount
		}
		pairs = append(pairs, pair{c, alike, max(r.Date.Sub(c.date), c.date.Sub(r.Date))})
	}
	slices.SortStableFunc(pairs, func(a, b pair) int {
		switch {
		case a.alike != b.alike:
			if a.alike {
				return -1
			}
			return 1
		case a.days != b.days:
			return a.days - b.days
		}
		return a.row - b.row
	})
	taken := map[uuid.UUID]bool{}
	for _, p := range pairs {
		r := &rows[p.row]
		if r.Match.Verdict == VerdictProbable || taken[p.id] {
			continue
		}
		taken[p.id] = true
		id := p.id
		reason := fmt.Sprintf("same amount, %d days apart", p.days)
		switch {
		case p.days == 0 && p.alike:
			reason = "same amount and date, alike payee"
		case p.days == 0:
			reason = "same amount and date; the transaction names no payee"
		case p.alike:
			reason += ", alike payee"
		}
		r.Match = Match{Verdict: VerdictProbable, Reason: reason, TransactionID: &id}
	}
	return nil
}

// payeesAlike tells whether a statement's payee text and a transaction's concept name
// the same payee: one holds the other, or they share a word of four letters or more.
func payeesAlike(statement, concept string) bool {
	a, b := words(statement), words(concept)
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	sa, sb := strings.Join(a, " "), strings.Join(b, " ")
	if strings.Contains(sa, sb) || strings.Contains(sb, sa) {
		return true
	}
	for _, w := range a {
		if len([]rune(w)) >= 4 && slices.Contains(b, w) {
			return true
		}
	}
	return false
}

// words are the words of s, folded for comparison.
func words(s string) []string {
	return strings.FieldsFunc(domain.FoldName(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}
