package httpapi

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/finledger/finledger/commands"
	"github.com/finledger/finledger/httpapi/channel"
	"github.com/finledger/finledger/queries"
)

// Link code rules (spec 4.B, 5.4 rule 9).
const (
	linkFailuresBeforeLock = 5
	linkLockDuration       = 15 * time.Minute
)

// --- settings, for the account owner's session ---

// issueLinkCode answers POST /api/me/whatsapp with a one-time code for 10 minutes. Each
// call replaces the user's unused code, so a retry is harmless; the code is a secret
// shown once and is not kept for idempotent replays. The replacement is one upsert on
// the user's live code, so calls at once, on any instances, leave one live code: the
// one of the call that committed last, as if they had come one after the other.
func issueLinkCode(s *Server, w http.ResponseWriter, r *http.Request) {
	p := principalFrom(r.Context())
	random := make([]byte, 8)
	if _, err := rand.Read(random); err != nil {
		writeError(w, r, err)
		return
	}
	code := channel.NewCode(random)
	now := s.now()
	expires := now.Add(commands.LinkCodeLifetime)
	_, err := s.pool.Exec(r.Context(), `INSERT INTO whatsapp_link_codes (code_hash, user_id, workspace_id, created_at, expires_at)
		VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (user_id) WHERE used_at IS NULL DO UPDATE SET code_hash = excluded.code_hash,
			workspace_id = excluded.workspace_id, created_at = excluded.created_at, expires_at = excluded.expires_at`,
		channel.CodeKey(code), p.User.ID, p.Workspace.ID, now, expires)
	if err != nil {
		writeError(w, r, fmt.Errorf("httpapi: issue link code: %w", err))
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"code": code, "expiresAt": expires.UTC()})
}

func getLink(s *Server, w http.ResponseWriter, r *http.Request) {
	p := principalFrom(r.Context())
	link, err := queries.LinkByUser(p.User.ID).Get(r.Context(), s.pool)
	if errors.Is(err, queries.ErrNotFound) {
		writeJSON(w, http.StatusOK, map[string]any{"linked": false})
		return
	}
	if err != nil {
		writeError(w, r, err)
		return
	}
	body := map[string]any{"linked": true, "phone": link.PhoneMasked, "status": link.Status, "linkedAt": link.LinkedAt,
		"workspaceId": link.WorkspaceID, "lastTransactionAt": link.LastTransactionAt}
	if link.Workspace != nil {
		body["workspaceName"] = link.Workspace.Name
	}
	writeJSON(w, http.StatusOK, body)
}

func unlink(s *Server, w http.ResponseWriter, r *http.Request) {
	_, b, ok := readRequest(w, r, false)
	if !ok {
		return
	}
	p := principalFrom(r.Context())
	s.run(w, r, b, command{WorkspaceID: p.User.PersonalWorkspaceID, UserID: p.User.ID, DecideUser: commands.UnlinkPhone{}.DecideUser,
		Status: http.StatusOK, Answer: queries.Value(map[string]bool{"ok": true})})
}

// --- the channel ---

var (
	errCodeInvalid = errorf(http.StatusBadRequest, "WHATSAPP_CODE_INVALID", "this link code is not valid: ask for a new one in Settings > WhatsApp")
	errCodeExpired = errorf(http.StatusBadRequest, "WHATSAPP_CODE_EXPIRED", "this link code has expired: ask for a new one in Settings > WhatsApp")
	errCodeLocked  = errorf(http.StatusBadRequest, "WHATSAPP_CODE_LOCKED", "too many wrong codes from this number: try again in 15 minutes")
)

// linkPhone answers POST /api/whatsapp/link {code}.
func linkPhone(s *Server, w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	p := principalFrom(ctx)
	b, err := readBody(w, r)
	if err != nil {
		writeError(w, r, err)
		return
	}
	code := b.str("code", 1, 32)
	b.required("code", code.Valid)
	if err := b.finish(); err != nil {
		writeError(w, r, err)
		return
	}
	phoneKey, now := p.Channel.PhoneKey, s.now()
	if err := s.take(ctx, linkLimiter, "link:"+hex.EncodeToString(phoneKey[:16])); err != nil {
		writeError(w, r, err)
		return
	}
	var lockedUntil *time.Time
	if err := s.pool.QueryRow(ctx, `SELECT locked_until FROM whatsapp_link_failures WHERE phone_key = $1`, phoneKey).Scan(&lockedUntil); err != nil && !errors.Is(err, pgx.ErrNoRows) {
		writeError(w, r, err)
		return
	}
	if lockedUntil != nil && lockedUntil.After(now) {
		writeError(w, r, errCodeLocked)
		return
	}
	key := channel.CodeKey(code.Value)
	found, err := readLinkCode(ctx, s.pool, key, false)
	if err == nil {
		err = found.refusal(phoneKey, now)
	}
	if err == nil {
		err = s.spendLinkCode(ctx, p, key, found, now)
	}
	switch {
	case err == nil:
		s.answerLinked(w, r, found.workspaceID, false)
	case errors.Is(err, errLinkedBefore):
		s.answerLinked(w, r, found.workspaceID, true)
	case errors.Is(err, errCodeInvalid) || errors.Is(err, errCodeExpired):
		writeError(w, r, s.linkFailure(ctx, phoneKey, now, err))
	default:
		writeError(w, r, err)
	}
}

// linkCode is a stored link code.
type linkCode struct {
	userID, workspaceID uuid.UUID
	expires             time.Time
	usedBy              []byte // the key of the phone that spent it; nil while unused
}

// errLinkedBefore refuses a code the same phone spent already: its answer is that the
// phone is linked.
var errLinkedBefore = errors.New("httpapi: this phone spent the link code already")

// readLinkCode reads the code stored under key, errCodeInvalid when there is none.
// forUpdate locks its row, waiting for a transaction that is spending it to end.
func readLinkCode(ctx context.Context, db queries.DB, key string, forUpdate bool) (linkCode, error) {
	q := `SELECT user_id, workspace_id, expires_at, used_by FROM whatsapp_link_codes WHERE code_hash = $1`
	if forUpdate {
		q += ` FOR UPDATE`
	}
	var c linkCode
	err := db.QueryRow(ctx, q, key).Scan(&c.userID, &c.workspaceID, &c.expires, &c.usedBy)
	if errors.Is(err, pgx.ErrNoRows) {
		return linkCode{}, errCodeInvalid
	}
	if err != nil {
		return linkCode{}, fmt.Errorf("httpapi: read link code: %w", err)
	}
	return c, nil
}

// refusal says why the phone cannot spend the code at now, nil when it can.
func (c linkCode) refusal(phoneKey []byte, now time.Time) error {
	switch {
	case c.usedBy == nil && c.expires.After(now):
		return nil
	case bytes.Equal(c.usedBy, phoneKey):
		return errLinkedBefore
	case c.usedBy != nil:
		return errCodeInvalid
	}
	return errCodeExpired
}

// spendLinkCode links the phone to the code's user, spending the code in the link's own
// transaction: the request that locks the code's row first spends it, and any other,
// on any instance, waits for it to commit and then reads the code spent.
func (s *Server) spendLinkCode(ctx context.Context, p *principal, key string, code linkCode, now time.Time) error {
	user, err := queries.UserByID(code.userID).Get(ctx, s.pool)
	if err != nil {
		return err
	}
	id, phoneKey := p.Channel.Identity, p.Channel.PhoneKey
	link := commands.LinkPhone{LinkID: newID(), PhoneKey: phoneKey, PhoneMasked: channel.MaskPhone(id.Phone), WorkspaceID: code.workspaceID,
		Fingerprint: id.IdentityKeyHash}
	meta := p.Metadata
	meta.ActorID, meta.UserID = link.LinkID.String(), code.userID
	claim := func(ctx context.Context, tx pgx.Tx) error {
		current, err := readLinkCode(ctx, tx, key, true)
		if err == nil {
			err = current.refusal(phoneKey, now)
		}
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE whatsapp_link_codes SET used_at = $2, used_by = $3 WHERE code_hash = $1`, key, now, phoneKey); err != nil {
			return fmt.Errorf("httpapi: spend link code: %w", err)
		}
		// A link clears the phone's failures, unless a failure counted since the check
		// above locked the phone. Writing the phone's row also locks it, so two links of
		// one phone (with two users' codes) commit one after the other, and the later
		// one's projection finds the earlier link to take the phone from.
		tag, err := tx.Exec(ctx, `INSERT INTO whatsapp_link_failures AS f (phone_key, failures, updated_at) VALUES ($1, 0, $2)
			ON CONFLICT (phone_key) DO UPDATE SET failures = 0, locked_until = NULL, updated_at = $2
			WHERE f.locked_until IS NULL OR f.locked_until <= $2`, phoneKey, now)
		if err != nil {
			return fmt.Errorf("httpapi: clear link failures: %w", err)
		}
		if tag.RowsAffected() == 0 {
			return errCodeLocked
		}
		return nil
	}
	_, err = s.ledger.Execute(ctx, commands.Call{WorkspaceID: user.PersonalWorkspaceID, Metadata: meta, UserID: code.userID,
		DecideUser: link.DecideUser, Claim: claim})
	return err
}

func (s *Server) answerLinked(w http.ResponseWriter, r *http.Request, workspaceID uuid.UUID, already bool) {
	var name string
	if err := s.pool.QueryRow(r.Context(), `SELECT name FROM workspaces WHERE id = $1`, workspaceID).Scan(&name); err != nil {
		writeError(w, r, fmt.Errorf("httpapi: workspace name: %w", err))
		return
	}
	body := map[string]any{"linked": true, "workspaceName": name}
	if already {
		body["alreadyLinked"] = true
	}
	writeJSON(w, http.StatusOK, body)
}

// linkFailure counts a wrong code from a number; the fifth locks the number out. Count
// and lock are one statement on the number's row, so failures counted at once on
// several instances are each counted, and exactly one of them locks.
func (s *Server) linkFailure(ctx context.Context, phoneKey []byte, now time.Time, answer error) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO whatsapp_link_failures AS f (phone_key, failures, updated_at) VALUES ($1, 1, $2)
		ON CONFLICT (phone_key) DO UPDATE SET
			failures = CASE
				WHEN f.locked_until IS NOT NULL AND f.locked_until <= $2 THEN 1
				WHEN f.failures + 1 >= $3 THEN 0
				ELSE f.failures + 1 END,
			locked_until = CASE
				WHEN f.locked_until IS NOT NULL AND f.locked_until <= $2 THEN NULL
				WHEN f.failures + 1 >= $3 THEN $4
				ELSE f.locked_until END,
			updated_at = $2`, phoneKey, now, linkFailuresBeforeLock, now.Add(linkLockDuration))
	if err != nil {
		return fmt.Errorf("httpapi: count link failure: %w", err)
	}
	return answer
}

// --- names ---

// nameError is 404 for a name that matches nothing, with the closest names.
func nameError(code, what, name string, names []string) error {
	return &apiError{Status: http.StatusNotFound, Code: code, Message: fmt.Sprintf("no %s is named %q", what, name),
		Details: map[string]any{"suggestions": commands.Suggest(names, name, 5)}}
}

// walletNamed finds an active wallet by name ignoring accents and case; an empty name
// means the first active wallet.
func (s *Server) walletNamed(ctx context.Context, ws uuid.UUID, name string) (queries.Wallet, error) {
	list, err := queries.Wallets(ctx, s.pool, ws)
	if err != nil {
		return queries.Wallet{}, err
	}
	names := make([]string, len(list))
	for i, w := range list {
		if name == "" || commands.FoldName(w.Name) == commands.FoldName(name) {
			return w, nil
		}
		names[i] = w.Name
	}
	if name == "" {
		return queries.Wallet{}, &apiError{Status: http.StatusNotFound, Code: "WALLET_NOT_FOUND", Message: "the workspace has no wallet",
			Details: map[string]any{"suggestions": []string{}}}
	}
	return queries.Wallet{}, nameError("WALLET_NOT_FOUND", "wallet", name, names)
}

// categoryNamed finds an active category by name like walletNamed; with no name and no
// category at all, the transaction goes uncategorized.
func (s *Server) categoryNamed(ctx context.Context, ws uuid.UUID, name string) (*queries.Category, error) {
	list, err := queries.Categories(ctx, s.pool, ws)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(list))
	for i, c := range list {
		if name == "" || commands.FoldName(c.Name) == commands.FoldName(name) {
			return &c, nil
		}
		names[i] = c.Name
	}
	if name == "" {
		return nil, nil
	}
	return nil, nameError("CATEGORY_NOT_FOUND", "category", name, names)
}

// --- createTransactionByName ---

func createTransactionByName(s *Server, w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	_, b, ok := readRequest(w, r, false)
	if !ok {
		return
	}
	typ := b.enum("type", []string{commands.TxExpense, commands.TxIncome})
	amount := b.amount("amount", true)
	money := currency(b, "currency")
	concept := b.str("concept", 0, 255)
	walletName := b.str("walletName", 1, 50)
	categoryName := b.str("categoryName", 1, 100)
	date := b.date("date")
	b.required("type", typ.Valid)
	b.required("amount", amount.Valid)
	if err := b.finish(); err != nil {
		writeError(w, r, err)
		return
	}
	p := principalFrom(ctx)
	wallet, err := s.walletNamed(ctx, p.Workspace.ID, walletName.Value)
	if err != nil {
		writeError(w, r, err)
		return
	}
	category, err := s.categoryNamed(ctx, p.Workspace.ID, categoryName.Value)
	if err != nil {
		writeError(w, r, err)
		return
	}
	if money.Valid && money.Value != wallet.Currency {
		writeError(w, r, commands.InvalidField("currency", "wallet %s holds %s, not %s", wallet.Name, wallet.Currency, money.Value))
		return
	}
	cmd := commands.CreateTransaction{TransactionID: newID(), Type: typ.Value, Amount: amount.Value, WalletID: &wallet.ID,
		Date: orDefault(date, s.today().Format(time.DateOnly)), Concept: concept.Ptr()}
	resolved := map[string]any{"workspaceName": p.Workspace.Name, "walletName": wallet.Name, "categoryName": nil}
	if category != nil {
		cmd.CategoryID = &category.ID
		resolved["categoryName"] = category.Name
	}
	s.run(w, r, b, command{Decide: cmd.Decide, Status: http.StatusCreated,
		Answer: queries.Then(queries.TransactionByID(p.Workspace.ID, cmd.TransactionID),
			func(ctx context.Context, db queries.DB, t queries.Transaction) (any, error) {
				if cmd.Type == commands.TxExpense && category != nil {
					warning, err := budgetWarning(ctx, db, p.Workspace.ID, category.ID, wallet.Currency, cmd.Date)
					if err != nil {
						return nil, err
					}
					if warning != "" {
						resolved["budgetWarning"] = warning
					}
				}
				return map[string]any{"transaction": t, "resolved": resolved}, nil
			})})
}

// budgetWarning tells of the category's budgets the expense leaves exceeded (spec 4.B:
// "present when the expense exceeds the category budget", on every such expense, not
// only the one that reaches the alert threshold), each in its period holding the
// expense's date. It reads the budgets after the write, in its transaction.
func budgetWarning(ctx context.Context, db queries.DB, ws, category uuid.UUID, currency, date string) (string, error) {
	day, err := commands.ParseDate(date)
	if err != nil {
		return "", err
	}
	budgets, err := queries.Budgets(ctx, db, ws, day)
	if err != nil {
		return "", err
	}
	var over []string
	for _, b := range budgets {
		spent, limit := decimal.Decimal(b.Spent), decimal.Decimal(b.Amount)
		if b.Active && b.CategoryID == category && b.Currency == currency && spent.GreaterThan(limit) {
			over = append(over, fmt.Sprintf("budget %s exceeded: %s of %s %s spent from %s to %s", b.Name, spent.StringFixed(2), limit.StringFixed(2),
				b.Currency, time.Time(b.PeriodStart).Format(time.DateOnly), time.Time(b.PeriodEnd).Format(time.DateOnly)))
		}
	}
	return strings.Join(over, "; "), nil
}

// --- the last transaction ---

var errNoLastTransaction = errorf(http.StatusNotFound, "TRANSACTION_NOT_FOUND",
	"no transaction recorded through the chat channel in this workspace in the last 24 hours")

// lastTransaction returns the channel's last transaction if it may still be changed.
func (s *Server) lastTransaction(ctx context.Context) (uuid.UUID, error) {
	p := principalFrom(ctx)
	link := p.Channel.Link
	if link.LastTransactionID == nil || *link.LastTransactionWS != p.Workspace.ID || s.now().Sub(*link.LastTransactionAt) > commands.ChannelWindow {
		return uuid.Nil, errNoLastTransaction
	}
	return *link.LastTransactionID, nil
}

func undoLastTransaction(s *Server, w http.ResponseWriter, r *http.Request) {
	_, b, ok := readRequest(w, r, false)
	if !ok {
		return
	}
	id, err := s.lastTransaction(r.Context())
	if err != nil {
		writeError(w, r, err)
		return
	}
	t, err := queries.TransactionByID(principalFrom(r.Context()).Workspace.ID, id).Get(r.Context(), s.pool)
	if err != nil {
		writeError(w, r, notFoundAs(err, "TRANSACTION_NOT_FOUND", "the last transaction was deleted already"))
		return
	}
	cmd := commands.DeleteTransaction{TransactionID: id}
	s.run(w, r, b, command{Decide: cmd.Decide, Status: http.StatusOK,
		Answer: queries.Then(queries.WalletByID(activeWorkspace(r), t.WalletID),
			func(_ context.Context, _ queries.DB, wallet queries.Wallet) (any, error) {
				return map[string]any{"ok": true, "transaction": t, "wallet": wallet}, nil
			})})
}

func updateLastTransaction(s *Server, w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	_, b, ok := readRequest(w, r, false)
	if !ok {
		return
	}
	amount := b.amount("amount", true)
	money := currency(b, "currency")
	concept := b.str("concept", 0, 255)
	walletName := b.str("walletName", 1, 50)
	categoryName := b.str("categoryName", 1, 100)
	date := b.date("date")
	b.notNull("amount", "currency", "walletName", "categoryName", "date")
	if money.Set && !amount.Set {
		b.fail("currency", "goes with amount only")
	}
	if err := b.finish(); err != nil {
		writeError(w, r, err)
		return
	}
	id, err := s.lastTransaction(ctx)
	if err != nil {
		writeError(w, r, err)
		return
	}
	p := principalFrom(ctx)
	cmd := commands.UpdateTransaction{TransactionID: id, Amount: amount, Concept: concept, Date: date}
	walletCurrency := ""
	if walletName.Valid {
		wallet, err := s.walletNamed(ctx, p.Workspace.ID, walletName.Value)
		if err != nil {
			writeError(w, r, err)
			return
		}
		cmd.WalletID, walletCurrency = commands.Of(wallet.ID), wallet.Currency
	}
	if categoryName.Valid {
		category, err := s.categoryNamed(ctx, p.Workspace.ID, categoryName.Value)
		if err != nil {
			writeError(w, r, err)
			return
		}
		cmd.CategoryID = commands.Of(category.ID)
	}
	if money.Valid {
		if walletCurrency == "" {
			t, err := queries.TransactionByID(p.Workspace.ID, id).Get(ctx, s.pool)
			if err != nil {
				writeError(w, r, notFoundAs(err, "TRANSACTION_NOT_FOUND", "the last transaction was deleted"))
				return
			}
			walletCurrency = t.Currency
		}
		if money.Value != walletCurrency {
			writeError(w, r, commands.InvalidField("currency", "the wallet holds %s: name a wallet in %s with walletName", walletCurrency, money.Value))
			return
		}
	}
	s.run(w, r, b, command{Decide: cmd.Decide, Status: http.StatusOK, Answer: queries.Record("transaction", queries.TransactionByID(activeWorkspace(r), id))})
}

// --- workspaces ---

func listChannelWorkspaces(s *Server, w http.ResponseWriter, r *http.Request) {
	p := principalFrom(r.Context())
	list, err := queries.Workspaces(r.Context(), s.pool, p.User.ID)
	if err != nil {
		writeError(w, r, err)
		return
	}
	out := make([]map[string]any, len(list))
	for i, ws := range list {
		out[i] = map[string]any{"id": ws.ID, "name": ws.Name, "type": ws.Type, "role": ws.Role, "currency": ws.Currency,
			"active": ws.ID == p.Channel.Link.WorkspaceID}
	}
	writeJSON(w, http.StatusOK, map[string]any{"workspaces": out})
}

// setChannelWorkspace answers PUT /api/whatsapp/workspace {name} (spec 4.B rule 8):
// the workspace named exactly (ignoring accents and case), else the only one whose
// name contains it.
func setChannelWorkspace(s *Server, w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	_, b, ok := readRequest(w, r, false)
	if !ok {
		return
	}
	name := b.str("name", 1, 100)
	b.required("name", name.Valid)
	if err := b.finish(); err != nil {
		writeError(w, r, err)
		return
	}
	p := principalFrom(ctx)
	list, err := queries.Workspaces(ctx, s.pool, p.User.ID)
	if err != nil {
		writeError(w, r, err)
		return
	}
	want := commands.FoldName(name.Value)
	var exact, containing []queries.Workspace
	var names []string
	for _, ws := range list {
		names = append(names, ws.Name)
		switch folded := commands.FoldName(ws.Name); {
		case folded == want:
			exact = append(exact, ws)
		case strings.Contains(folded, want):
			containing = append(containing, ws)
		}
	}
	matches := exact
	if len(matches) == 0 {
		matches = containing
	}
	switch len(matches) {
	case 0:
		writeError(w, r, &apiError{Status: http.StatusNotFound, Code: "WORKSPACE_NOT_FOUND",
			Message: fmt.Sprintf("no workspace is named %q", name.Value), Details: map[string]any{"available": names}})
		return
	case 1:
	default:
		candidates := make([]string, len(matches))
		for i, m := range matches {
			candidates[i] = m.Name
		}
		writeError(w, r, &apiError{Status: http.StatusConflict, Code: "CONFLICT",
			Message: fmt.Sprintf("%d workspaces match %q: say which", len(matches), name.Value), Details: map[string]any{"candidates": candidates}})
		return
	}
	target := matches[0]
	cmd := commands.ChangeLinkWorkspace{LinkID: p.Channel.Link.LinkID, WorkspaceID: target.ID}
	s.run(w, r, b, command{WorkspaceID: p.User.PersonalWorkspaceID, UserID: p.User.ID, DecideUser: cmd.DecideUser, Status: http.StatusOK,
		Answer: queries.Value(map[string]any{"workspace": target})})
}
