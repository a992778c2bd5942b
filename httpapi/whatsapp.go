package httpapi

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/httpapi/channel"
	"github.com/finledger/finledger/ledger"
	"github.com/finledger/finledger/queries"
)

// --- settings, for the account owner's session ---

// issueLinkCode answers POST /api/me/whatsapp with a one-time code (the rules are
// ledger.IssueLinkCode's). The code is a secret shown once and is not kept for
// idempotent replays.
func issueLinkCode(s *Server, w http.ResponseWriter, r *http.Request) {
	p := principalFrom(r.Context())
	code, expires, err := ledger.IssueLinkCode(r.Context(), s.pool, s.drawLinkCode, p.User.ID, p.Workspace.ID, s.now())
	if errors.Is(err, ledger.ErrNoFreeLinkCode) {
		err = &apiError{Status: http.StatusServiceUnavailable, Code: "SERVICE_UNAVAILABLE",
			Message: "no unused link code could be drawn; retry after Retry-After seconds", RetryAfter: 1}
	}
	if err != nil {
		writeError(w, r, err)
		return
	}
	respond(w, r, map[string]any{"code": code, "expiresAt": expires.UTC()})
}

// drawLinkCode draws a fresh link code from the server's randomness, with its key.
func (s *Server) drawLinkCode() (code, key string, err error) {
	random := make([]byte, 8)
	if _, err := io.ReadFull(s.channel.codes, random); err != nil {
		return "", "", fmt.Errorf("httpapi: link code: %w", err)
	}
	code = channel.NewCode(random)
	return code, channel.CodeKey(code), nil
}

func getLink(s *Server, w http.ResponseWriter, r *http.Request) {
	p := principalFrom(r.Context())
	link, err := queries.LinkByUser(p.User.ID).Get(r.Context(), s.pool)
	if errors.Is(err, queries.ErrNotFound) {
		respond(w, r, map[string]any{"linked": false})
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
	respond(w, r, body)
}

func unlink(s *Server, w http.ResponseWriter, r *http.Request) {
	_, b, ok := readRequest(w, r, false)
	if !ok {
		return
	}
	p := principalFrom(r.Context())
	s.run(w, r, b, command{WorkspaceID: p.User.PersonalWorkspaceID, UserID: p.User.ID, DecideUser: domain.UnlinkPhone{}.DecideUser, Answer: queries.Value(map[string]bool{"ok": true})})
}

// --- the channel ---

// linkPhone answers POST /api/whatsapp/link {code} (the rules are
// ledger.LinkPhoneByCode's).
func linkPhone(s *Server, w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	p := principalFrom(ctx)
	b, err := readBody(w, r)
	if err != nil {
		writeError(w, r, err)
		return
	}
	code := linkCode.read(b)
	if err := b.finish(); err != nil {
		writeError(w, r, err)
		return
	}
	id, phoneKey := p.Channel.Identity, p.Channel.PhoneKey
	if err := s.take(ctx, linkLimiter, "link:"+hex.EncodeToString(phoneKey[:16])); err != nil {
		writeError(w, r, err)
		return
	}
	linked, err := s.ledger.LinkPhoneByCode(ctx, ledger.LinkPhoneByCode{CodeKey: channel.CodeKey(code.Value), LinkID: newID(),
		PhoneKey: phoneKey, PhoneMasked: channel.MaskPhone(id.Phone), Fingerprint: id.IdentityKeyHash, Metadata: p.Metadata, Now: s.now()})
	if err != nil {
		writeError(w, r, err)
		return
	}
	s.answerLinked(w, r, linked.WorkspaceID, linked.AlreadyLinked)
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
	respond(w, r, body)
}

// --- createTransactionByName ---

func createTransactionByName(s *Server, w http.ResponseWriter, r *http.Request) {
	_, b, ok := readRequest(w, r, false)
	if !ok {
		return
	}
	typ := channelType.read(b)
	amount := channelAmount.read(b)
	money := channelCurrency.read(b)
	concept := channelConcept.read(b)
	walletName := channelWalletName.read(b)
	categoryName := channelCategoryName.read(b)
	date := channelDate.read(b)
	p := principalFrom(r.Context())
	cmd := domain.CreateTransactionByName{TransactionID: newID(), Type: domain.TransactionType(typ.Value), Amount: amount.Value, Currency: money.Ptr(),
		Concept: concept.Ptr(), WalletName: walletName.Value, CategoryName: categoryName.Value, Date: date.Value, Today: s.today()}
	s.run(w, r, b, command{Decide: cmd.Decide,
		Answer: queries.Then(queries.TransactionByID(p.Workspace.ID, cmd.TransactionID),
			func(ctx context.Context, db queries.DB, t queries.Transaction) (any, error) {
				resolved, err := resolvedNames(ctx, db, p.Workspace, t)
				if err != nil {
					return nil, err
				}
				return map[string]any{"transaction": t, "resolved": resolved}, nil
			})})
}

// resolvedNames tells the chat channel what its names stood for in the transaction it
// recorded, and warns when an expense left its category's budget exceeded.
func resolvedNames(ctx context.Context, db queries.DB, ws queries.Workspace, t queries.Transaction) (map[string]any, error) {
	wallet, err := queries.WalletByID(ws.ID, t.WalletID).Get(ctx, db)
	if err != nil {
		return nil, err
	}
	resolved := map[string]any{"workspaceName": ws.Name, "walletName": wallet.Name, "categoryName": nil}
	if t.CategoryID == nil {
		return resolved, nil
	}
	category, err := queries.CategoryByID(ws.ID, *t.CategoryID).Get(ctx, db)
	if err != nil {
		return nil, err
	}
	resolved["categoryName"] = category.Name
	if t.Type == domain.TxExpense {
		warning, err := budgetWarning(ctx, db, ws.ID, category.ID, t.Currency, t.Date)
		if err != nil {
			return nil, err
		}
		if warning != "" {
			resolved["budgetWarning"] = warning
		}
	}
	return resolved, nil
}

// budgetWarning tells of the category's budgets the expense leaves exceeded (spec 4.B:
// "present when the expense exceeds the category budget", on every such expense, not
// only the one that reaches the alert threshold), each in its period holding the
// expense's date. It reads the budgets after the write, in its transaction.
func budgetWarning(ctx context.Context, db queries.DB, ws, category uuid.UUID, currency string, day domain.Date) (string, error) {
	budgets, err := queries.Budgets(ctx, db, ws, day)
	if err != nil {
		return "", err
	}
	var over []string
	for _, b := range budgets {
		spent, limit := decimal.Decimal(b.Spent), decimal.Decimal(b.Amount)
		if b.Active && b.CategoryID == category && b.Currency == currency && spent.GreaterThan(limit) {
			over = append(over, fmt.Sprintf("budget %s exceeded: %s of %s %s spent from %s to %s", b.Name, spent.StringFixed(2), limit.StringFixed(2),
				b.Currency, b.PeriodStart, b.PeriodEnd))
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
	if link.LastTransactionID == nil || *link.LastTransactionWS != p.Workspace.ID || s.now().Sub(*link.LastTransactionAt) > domain.ChannelWindow {
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
	t, err := queries.TransactionByID(activeWorkspace(r), id).Get(r.Context(), s.pool)
	if err != nil {
		writeError(w, r, notFoundAs(err, "TRANSACTION_NOT_FOUND", "the last transaction was deleted already"))
		return
	}
	cmd := domain.DeleteTransaction{TransactionID: id}
	s.run(w, r, b, command{Decide: cmd.Decide,
		Answer: queries.Then(queries.WalletByID(activeWorkspace(r), t.WalletID),
			func(_ context.Context, _ queries.DB, wallet queries.Wallet) (any, error) {
				return map[string]any{"ok": true, "transaction": t, "wallet": wallet}, nil
			})})
}

func updateLastTransaction(s *Server, w http.ResponseWriter, r *http.Request) {
	_, b, ok := readRequest(w, r, false)
	if !ok {
		return
	}
	amount := channelAmount.read(b)
	money := channelCurrencyChange.read(b)
	concept := channelConcept.read(b)
	walletName := channelWalletName.read(b)
	categoryName := channelCategoryName.read(b)
	date := channelDateChange.read(b)
	if money.Set && !amount.Set {
		b.fail("currency", "goes with amount only")
	}
	if err := b.finish(); err != nil {
		writeError(w, r, err)
		return
	}
	id, err := s.lastTransaction(r.Context())
	if err != nil {
		writeError(w, r, err)
		return
	}
	cmd := domain.UpdateTransactionByName{TransactionID: id, Amount: amount, Currency: money, Concept: concept, Date: date,
		WalletName: walletName, CategoryName: categoryName}
	s.run(w, r, b, command{Decide: cmd.Decide, Answer: queries.Record("transaction", queries.TransactionByID(activeWorkspace(r), id))})
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
	respond(w, r, map[string]any{"workspaces": out})
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
	name := channelWorkspaceName.read(b)
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
	want := domain.FoldName(name.Value)
	var exact, containing []queries.Workspace
	var names []string
	for _, ws := range list {
		names = append(names, ws.Name)
		switch folded := domain.FoldName(ws.Name); {
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
	cmd := domain.ChangeLinkWorkspace{LinkID: p.Channel.Link.LinkID, WorkspaceID: target.ID}
	s.run(w, r, b, command{WorkspaceID: p.User.PersonalWorkspaceID, UserID: p.User.ID, DecideUser: cmd.DecideUser,
		Answer: queries.Value(map[string]any{"workspace": target})})
}
