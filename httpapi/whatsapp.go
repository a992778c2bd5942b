package httpapi

import (
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
	"github.com/finledger/finledger/eventstore"
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
// call replaces the user's earlier unused codes, so a retry is harmless; the code is
// a secret shown once and is not kept for idempotent replays.
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
	err := pgx.BeginFunc(r.Context(), s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(r.Context(), `DELETE FROM whatsapp_link_codes WHERE user_id = $1 AND used_at IS NULL`, p.User.ID); err != nil {
			return err
		}
		_, err := tx.Exec(r.Context(), `INSERT INTO whatsapp_link_codes (code_hash, user_id, workspace_id, created_at, expires_at)
			VALUES ($1, $2, $3, $4, $5)`, channel.CodeKey(code), p.User.ID, p.Workspace.ID, now, expires)
		return err
	})
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
		Status: http.StatusOK, Render: renderValue(map[string]bool{"ok": true})})
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
	var userID, workspaceID uuid.UUID
	var expires time.Time
	var usedBy []byte
	err = s.pool.QueryRow(ctx, `SELECT user_id, workspace_id, expires_at, used_by FROM whatsapp_link_codes WHERE code_hash = $1`,
		channel.CodeKey(code.Value)).Scan(&userID, &workspaceID, &expires, &usedBy)
	switch {
	case errors.Is(err, pgx.ErrNoRows) || (usedBy != nil && hex.EncodeToString(usedBy) != hex.EncodeToString(phoneKey)):
		writeError(w, r, s.linkFailure(ctx, phoneKey, now, errCodeInvalid))
		return
	case err != nil:
		writeError(w, r, err)
		return
	case usedBy != nil:
		s.answerLinked(w, r, workspaceID, true)
		return
	case !expires.After(now):
		writeError(w, r, s.linkFailure(ctx, phoneKey, now, errCodeExpired))
		return
	}
	user, err := queries.UserByID(userID).Get(ctx, s.pool)
	if err != nil {
		writeError(w, r, err)
		return
	}
	id := p.Channel.Identity
	link := commands.LinkPhone{LinkID: newID(), PhoneKey: phoneKey, PhoneMasked: channel.MaskPhone(id.Phone), WorkspaceID: workspaceID,
		Fingerprint: id.IdentityKeyHash}
	meta := p.Metadata
	meta.ActorID, meta.UserID = link.LinkID.String(), userID
	if _, _, err := s.ledger.Execute(ctx, commands.Call{WorkspaceID: user.PersonalWorkspaceID, Metadata: meta, UserID: userID,
		DecideUser: link.DecideUser, Respond: commands.NoResponse}); err != nil {
		writeError(w, r, err)
		return
	}
	if _, err := s.pool.Exec(ctx, `UPDATE whatsapp_link_codes SET used_at = $2, used_by = $3 WHERE code_hash = $1 AND used_at IS NULL;`,
		channel.CodeKey(code.Value), now, phoneKey); err != nil {
		writeError(w, r, err)
		return
	}
	if _, err := s.pool.Exec(ctx, `DELETE FROM whatsapp_link_failures WHERE phone_key = $1`, phoneKey); err != nil {
		writeError(w, r, err)
		return
	}
	s.answerLinked(w, r, workspaceID, false)
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

// linkFailure counts a wrong code from a number; the fifth locks the number out.
func (s *Server) linkFailure(ctx context.Context, phoneKey []byte, now time.Time, answer error) error {
	var failures int
	err := s.pool.QueryRow(ctx, `INSERT INTO whatsapp_link_failures AS f (phone_key, failures, updated_at) VALUES ($1, 1, $2)
		ON CONFLICT (phone_key) DO UPDATE SET
			failures = CASE WHEN f.locked_until IS NOT NULL AND f.locked_until <= $2 THEN 1 ELSE f.failures + 1 END,
			locked_until = CASE WHEN f.locked_until IS NOT NULL AND f.locked_until <= $2 THEN NULL ELSE f.locked_until END,
			updated_at = $2
		RETURNING failures`, phoneKey, now).Scan(&failures)
	if err != nil {
		return fmt.Errorf("httpapi: count link failure: %w", err)
	}
	if failures >= linkFailuresBeforeLock {
		if _, err := s.pool.Exec(ctx, `UPDATE whatsapp_link_failures SET locked_until = $2, failures = 0 WHERE phone_key = $1`,
			phoneKey, now.Add(linkLockDuration)); err != nil {
			return fmt.Errorf("httpapi: lock link attempts: %w", err)
		}
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
	record := renderRecord("transaction", queries.TransactionByID, cmd.TransactionID)
	s.run(w, r, b, command{Decide: cmd.Decide, Status: http.StatusCreated,
		Render: func(ctx context.Context, b *pgx.Batch, events []eventstore.RecordedEvent) func(queries.DB) (any, error) {
			transaction := record(ctx, b, events)
			return func(db queries.DB) (any, error) {
				v, err := transaction(db)
				if err != nil {
					return nil, err
				}
				answer := v.(map[string]any)
				if category != nil && cmd.Type == commands.TxExpense {
					warning, err := s.budgetWarning(ctx, db, p.Workspace.ID, category.ID, wallet.Currency)
					if err != nil {
						return nil, err
					}
					if warning != "" {
						resolved["budgetWarning"] = warning
					}
				}
				answer["resolved"] = resolved
				return answer, nil
			}
		}})
}

// budgetWarning says which of a category's budgets in force the spending now exceeds.
func (s *Server) budgetWarning(ctx context.Context, db queries.DB, ws, category uuid.UUID, currency string) (string, error) {
	budgets, err := queries.Budgets(ctx, db, ws, s.today())
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
		Render: func(ctx context.Context, b *pgx.Batch, _ []eventstore.RecordedEvent) func(queries.DB) (any, error) {
			wallet := queries.WalletByID(principalFrom(ctx).Workspace.ID, t.WalletID).Queue(b)
			return func(queries.DB) (any, error) {
				w, err := wallet()
				return map[string]any{"ok": true, "transaction": t, "wallet": w}, err
			}
		}})
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
	s.run(w, r, b, command{Decide: cmd.Decide, Status: http.StatusOK, Render: renderRecord("transaction", queries.TransactionByID, id)})
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
		Render: renderValue(map[string]any{"workspace": target})})
}
