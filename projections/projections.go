// Package projections owns the read models: the SQL that turns each event into rows,
// applied inline in the append transaction and, by Rebuild and Verify, replayed from the
// whole log.
package projections

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/eventstore"
	"github.com/finledger/finledger/ledger"
)

// Tables are the read-model tables, in the order they are cleared and compared.
var Tables = append([]string{"users", "workspaces", "workspace_members", "workspace_invitations", "wallets", "categories", "tags",
	"transactions", "api_keys", "audit_log", "daily_totals", "monthly_totals", "transaction_counts", "transaction_month_counts", "budgets", "goals",
	"goal_funding", "debts", "recurring_payments", "exchange_rates", "whatsapp_links", "webhooks", "rules", "import_profiles",
	"attachments", "proposals"}, historyTables...)

// projected narrows tables that also hold rows no event made, on both sides of a
// verification: the reference exchange rates come from a feed, and replay leaves them
// alone; the histories of workspaces written before they were kept start later than a
// replay's (startedHistory).
var projected = func() map[string]string {
	narrowed := map[string]string{"exchange_rates": "workspace_id <> '00000000-0000-0000-0000-000000000000'"}
	for _, t := range historyTables {
		narrowed[t] = startedHistory
	}
	return narrowed
}()

// Project starts the projection of one command's write (ledger.Projector). Its
// statements use the events' stream versions, never their global positions, so that
// they can travel in the same round trip as the append that assigns the positions.
func Project() ledger.Projection {
	p := newPending()
	p.totals.deferLinks = true
	return &write{p}
}

// write is the projection of one command's write. The new transactions' and audit
// entries' rows of a part go with the part; the totals, the counts and the wallets'
// balances gather across the parts and are written once, with the last (Flush), as a
// write in one part writes them.
type write struct{ p *pending }

// Queue adds to b the statements that apply events to the read models. decoded, when
// not nil, holds each event's payload already parsed (as domain.DecodeEvent returns
// it), which spares parsing it again.
func (w *write) Queue(b *pgx.Batch, events []eventstore.RecordedEvent, decoded []domain.Event) error {
	for i, e := range events {
		var data domain.Event
		if decoded != nil {
			data = decoded[i]
		} else {
			var err error
			if data, err = domain.DecodeEvent(e.Type, e.Data); err != nil {
				return err
			}
		}
		if err := queue(b, w.p, e, data); err != nil {
			return err
		}
	}
	w.p.deletions.flush(b)
	w.p.transactions.flush(b)
	w.p.audit.flush(b)
	w.p.links.flush(b)
	return nil
}

// Flush queues what the parts gathered.
func (w *write) Flush(b *pgx.Batch) { w.p.flush(b) }

// Copying has the new transactions and audit entries the write gathers from now on,
// when several are flushed at once, left to COPY (ledger.CopyingProjection).
func (w *write) Copying() { w.p.copying() }

// Sending returns what sends b with the rows left to copy since it was last called, as
// a replay applies its batches.
func (w *write) Sending(b *pgx.Batch) func(ctx context.Context, tx pgx.Tx) error {
	copies := w.p.takeCopies()
	return func(ctx context.Context, tx pgx.Tx) error { return apply(ctx, tx, b, copies) }
}

// userOf returns the user a user-stream event belongs to.
func userOf(e eventstore.RecordedEvent) (uuid.UUID, error) {
	id, err := uuid.Parse(strings.TrimPrefix(e.StreamID, "user-"))
	if err != nil || !strings.HasPrefix(e.StreamID, "user-") {
		return uuid.Nil, fmt.Errorf("projections: %s in stream %s outside a user's stream", e.Type, e.StreamID)
	}
	return id, nil
}

// queueChannelTransaction remembers, on the link that recorded it, a transaction made
// through the chat channel: its "last transaction".
func queueChannelTransaction(b *pgx.Batch, ws uuid.UUID, e eventstore.RecordedEvent, meta ledger.Metadata, d *domain.TransactionCreated) {
	if meta.ActorType != ledger.ActorChannel {
		return
	}
	b.Queue(`UPDATE whatsapp_links SET last_transaction_id = $2, last_transaction_ws = $3, last_transaction_at = $4
		WHERE link_id = $1::text::uuid`, meta.ActorID, d.TransactionID, ws, e.RecordedAt)
}

// workspaceOf returns the workspace a workspace-stream event belongs to.
func workspaceOf(e eventstore.RecordedEvent) (uuid.UUID, error) {
	id, ok := domain.WorkspaceOfStream(e.StreamID)
	if !ok {
		return uuid.Nil, fmt.Errorf("projections: %s in stream %s outside a workspace", e.Type, e.StreamID)
	}
	return id, nil
}

// queue queues what an event, data decoded, does to the read models. Its metadata is
// parsed once, however many transactions an import's part creates: their audit entries
// and the chat channel's last transaction read it.
func queue(b *pgx.Batch, p *pending, e eventstore.RecordedEvent, data any) error {
	var meta ledger.Metadata
	if err := json.Unmarshal(e.Metadata, &meta); err != nil {
		return fmt.Errorf("projections: metadata of %s@%d: %w", e.StreamID, e.Version, err)
	}
	if imported, ok := data.(*domain.TransactionsImported); ok {
		// Each transaction of an import's part is projected as its own creation, at the
		// part's version: one row, and one audit entry named by its creation's id there.
		for created := range domain.Parts(imported) {
			part := e
			part.ID = domain.PartID(e.ID, created.(*domain.TransactionCreated).TransactionID)
			if err := queueOne(b, p, part, meta, created); err != nil {
				return err
			}
		}
		return nil
	}
	return queueOne(b, p, e, meta, data)
}

// queueOne queues what one event, or one creation of an import's part, does to the read
// models; meta is the event's metadata.
func queueOne(b *pgx.Batch, p *pending, e eventstore.RecordedEvent, meta ledger.Metadata, data any) error {
	if !gathersDeletion(data) {
		p.deletions.flush(b) // before whatever reads or changes their rows or totals
	}
	id, _, _, link := linkOf(data)
	if !link || p.links.named[id] {
		p.links.flush(b) // before whatever reads or changes their rows, or a link's second
	}
	switch d := data.(type) {
	case *domain.WalletUpdated, *domain.WalletArchived:
		p.postings.flush(b) // they write the wallet's row after the postings before them
	case *domain.WalletReconciled:
		// It writes the wallet's row after the postings before it, changes the rows of
		// transactions, its own adjustment's among them, and keeps their totals.
		p.postings.flush(b)
		p.transactions.flush(b)
		p.totals.flush(b)
	case *domain.TransactionUpdated, *domain.TransactionDeleted:
		// They read and change the transaction's row, and take it out of the totals and
		// counts that must hold it.
		p.transactions.flush(b)
		p.totals.flush(b)
	case *domain.TransactionMatched:
		// A link reads and changes its transaction's row, and keeps the totals it is in
		// (queueLinked): that row, if it is gathered still, must be written first, but no
		// other new row, nor the counts, which nothing here reads; the sums too, unless
		// the totals it keeps are kept when they are written (deferLinks). A statement's
		// commit links hundreds of recorded transactions among its new ones, and every
		// table written at each link rewrote the same rows hundreds of times in one
		// transaction.
		p.flushTransaction(b, d.TransactionID)
		if !p.totals.deferLinks {
			p.totals.flushSums(b)
		}
	case *domain.TransactionUnmatched:
		p.flushTransaction(b, d.TransactionID)
		if !p.totals.deferLinks {
			p.totals.flushSums(b)
		}
	}
	// The audit entry goes first: some read the record as it was before this event.
	if err := queueAudit(b, p, e, meta, data); err != nil {
		return err
	}
	at := e.RecordedAt
	switch d := data.(type) {
	case *domain.UserProfileUpdated:
		p := d.After
		b.Queue(`UPDATE users SET first_name = $2, last_name = $3, currency = $4, language = $5, theme = $6,
				notifications_enabled = $7, has_completed_onboarding = $8, updated_at = $9 WHERE id = $1`,
			d.UserID, p.FirstName, p.LastName, p.Currency, p.Language, p.Theme, p.NotificationsEnabled, p.HasCompletedOnboarding, at)
		return nil
	case *domain.UserDeleted:
		b.Queue(`UPDATE users SET deleted_at = $2, updated_at = $2 WHERE id = $1`, d.UserID, at)
		// A closed account's keys stop working in every workspace where it made them.
		b.Queue(`UPDATE api_keys SET revoked_at = coalesce(revoked_at, $2) WHERE created_by = $1`, d.UserID, at)
		return nil
	case *domain.WhatsAppLinked:
		user, err := userOf(e)
		if err != nil {
			return err
		}
		// A phone links one user: linking it here unlinks it elsewhere.
		b.Queue(`DELETE FROM whatsapp_links WHERE phone_key = $1 AND user_id <> $2`, d.PhoneKey, user)
		b.Queue(`INSERT INTO whatsapp_links (user_id, link_id, phone_key, phone_masked, workspace_id, fingerprint, status, linked_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, nullif($6, ''), 'active', $7, $7)
			ON CONFLICT (user_id) DO UPDATE SET link_id = excluded.link_id, phone_key = excluded.phone_key,
				phone_masked = excluded.phone_masked, workspace_id = excluded.workspace_id, fingerprint = excluded.fingerprint,
				status = 'active', linked_at = excluded.linked_at, updated_at = excluded.updated_at,
				last_transaction_id = NULL, last_transaction_ws = NULL, last_transaction_at = NULL`,
			user, d.LinkID, d.PhoneKey, d.PhoneMasked, d.WorkspaceID, d.Fingerprint, at)
		return nil
	case *domain.WhatsAppUnlinked:
		b.Queue(`DELETE FROM whatsapp_links WHERE link_id = $1`, d.LinkID)
		return nil
	case *domain.WhatsAppSuspended:
		b.Queue(`UPDATE whatsapp_links SET status = 'suspended', updated_at = $2 WHERE link_id = $1`, d.LinkID, at)
		return nil
	case *domain.WhatsAppFingerprintRecorded:
		b.Queue(`UPDATE whatsapp_links SET fingerprint = $2, updated_at = $3 WHERE link_id = $1`, d.LinkID, d.Fingerprint, at)
		return nil
	case *domain.WhatsAppWorkspaceChanged:
		b.Queue(`UPDATE whatsapp_links SET workspace_id = $2, updated_at = $3 WHERE link_id = $1`, d.LinkID, d.WorkspaceID, at)
		return nil
	case *domain.UserRegistered:
		b.Queue(`INSERT INTO users (id, subject, email, name, personal_workspace_id, created_at, updated_at)
			VALUES ($1, $2, $3, nullif($4, ''), $5, $6, $6)`, d.UserID, d.Subject, d.Email, d.Name, d.PersonalWorkspaceID, at)
		return nil
	case *domain.UserIdentityChanged:
		b.Queue(`UPDATE users SET email = $2, name = nullif($3, ''), updated_at = $4 WHERE id = $1`, d.UserID, d.Email, d.Name, at)
		return nil
	}
	ws, err := workspaceOf(e)
	if err != nil {
		return err
	}
	switch d := data.(type) {
	case *domain.WorkspaceCreated:
		b.Queue(`INSERT INTO workspaces (id, kind, name, currency, owner_id, created_at, updated_at, language) VALUES ($1, $2, $3, $4, $5, $6, $6, $7)`,
			ws, d.Kind, d.Name, d.Currency, d.OwnerID, at, d.Language)
		b.Queue(`INSERT INTO workspace_members (workspace_id, user_id, role, joined_at) VALUES ($1, $2, $3, $4)`,
			ws, d.OwnerID, domain.RoleOwner, at)
	case *domain.WorkspaceDeleted:
		b.Queue(`UPDATE workspaces SET deleted_at = $2, updated_at = $2 WHERE id = $1`, ws, at)
	case *domain.WorkspaceLanguageChanged:
		b.Queue(`UPDATE workspaces SET language = $2, updated_at = $3 WHERE id = $1`, ws, d.After, at)
	case *domain.MemberAdded:
		b.Queue(`INSERT INTO workspace_members (workspace_id, user_id, role, joined_at) VALUES ($1, $2, $3, $4)`, ws, d.UserID, d.Role, at)
		if d.Email != "" {
			b.Queue(`DELETE FROM workspace_invitations WHERE workspace_id = $1 AND email = $2`, ws, d.Email)
		}
	case *domain.MemberInvited:
		b.Queue(`INSERT INTO workspace_invitations (workspace_id, email, role, invited_by, invited_at) VALUES ($1, $2, $3, $4, $5)`,
			ws, d.Email, d.Role, d.InvitedBy, at)
	case *domain.InvitationCancelled:
		b.Queue(`DELETE FROM workspace_invitations WHERE workspace_id = $1 AND email = $2`, ws, d.Email)
	case *domain.MemberRoleChanged:
		b.Queue(`UPDATE workspace_members SET role = $3 WHERE workspace_id = $1 AND user_id = $2`, ws, d.UserID, d.After)
	case *domain.MemberRemoved:
		b.Queue(`DELETE FROM workspace_members WHERE workspace_id = $1 AND user_id = $2`, ws, d.UserID)
		// A key ends with the membership it was made in; removals recorded before their
		// revocations were appended with them end the keys here alone (migration 0024).
		b.Queue(`UPDATE api_keys SET revoked_at = $3 WHERE workspace_id = $1 AND created_by = $2 AND revoked_at IS NULL`, ws, d.UserID, at)
	case *domain.APIKeyCreated:
		b.Queue(`INSERT INTO api_keys (workspace_id, id, name, description, scopes, prefix, hash, created_by, created_at, expires_at, role,
				writes)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, nullif($11, ''), coalesce(nullif($12, ''), 'apply'))`,
			ws, d.KeyID, d.Name, d.Description, d.Scopes, d.Prefix, d.Hash, d.CreatedBy, at, d.ExpiresAt, d.Role, d.Writes)
	case *domain.ProposalCreated:
		b.Queue(`INSERT INTO proposals (workspace_id, id, key_id, route, path, body, summary, created_at, expires_at, created_version)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
			ws, d.ProposalID, d.KeyID, d.Route, d.Path, d.Body, d.Summary, at, d.ExpiresAt, e.Version)
	case *domain.ProposalApproved:
		b.Queue(`UPDATE proposals SET status = 'approved', decided_at = $3, decided_by = $4 WHERE workspace_id = $1 AND id = $2`,
			ws, d.ProposalID, at, d.ApprovedBy)
	case *domain.ProposalRejected:
		b.Queue(`UPDATE proposals SET status = 'rejected', decided_at = $3, decided_by = $4 WHERE workspace_id = $1 AND id = $2`,
			ws, d.ProposalID, at, d.RejectedBy)
	case *domain.ProposalSettled:
		b.Queue(`UPDATE proposals SET status = CASE WHEN $4 < 400 THEN 'approved' ELSE 'failed' END, settled_at = $3,
				result_status = $4, error_code = nullif($5, ''), error_message = nullif($6, '')
			WHERE workspace_id = $1 AND id = $2`, ws, d.ProposalID, at, d.Status, d.ErrorCode, d.Message)
	case *domain.APIKeyRevoked:
		b.Queue(`UPDATE api_keys SET revoked_at = coalesce(revoked_at, $3) WHERE workspace_id = $1 AND id = $2`, ws, d.KeyID, at)
	case *domain.WebhookCreated:
		f := d.WebhookFields
		b.Queue(`INSERT INTO webhooks (workspace_id, id, name, url, events, active, sealed_secret, created_by, created_version,
				created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10)`,
			ws, d.WebhookID, f.Name, f.URL, f.Events, f.Active, d.SealedSecret, d.CreatedBy, e.Version, at)
	case *domain.WebhookUpdated:
		f := d.After
		b.Queue(`UPDATE webhooks SET name = $3, url = $4, events = $5, active = $6, updated_at = $7 WHERE workspace_id = $1 AND id = $2`,
			ws, d.WebhookID, f.Name, f.URL, f.Events, f.Active, at)
	case *domain.WebhookDeleted:
		b.Queue(`UPDATE webhooks SET deleted_at = $3, updated_at = $3 WHERE workspace_id = $1 AND id = $2`, ws, d.WebhookID, at)
	case *domain.WebhookSecretRotated:
		b.Queue(`UPDATE webhooks SET sealed_secret = $3, updated_at = $4 WHERE workspace_id = $1 AND id = $2`, ws, d.WebhookID, d.SealedSecret, at)
	case *domain.ImportProfileSaved:
		mapping, err := json.Marshal(d.Mapping)
		if err != nil {
			return fmt.Errorf("projections: import profile %s: %w", d.ProfileID, err)
		}
		b.Queue(`INSERT INTO import_profiles (workspace_id, id, name, wallet_id, mapping, created_at, updated_at, created_version)
			VALUES ($1, $2, $3, $4, $5, $6, $6, $7)
			ON CONFLICT (workspace_id, id) DO UPDATE SET name = $3, wallet_id = $4, mapping = $5, updated_at = $6`,
			ws, d.ProfileID, d.Name, d.WalletID, mapping, at, e.Version)
	case *domain.ImportProfileDeleted:
		b.Queue(`DELETE FROM import_profiles WHERE workspace_id = $1 AND id = $2`, ws, d.ProfileID)
	case *domain.WalletCreated:
		f := d.WalletFields
		b.Queue(`INSERT INTO wallets (workspace_id, id, name, description, type, currency, card_color, initial_balance,
				balance, clabe, provider, is_default, created_at, updated_at, created_version)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8, $9, $10, $11, $12, $12, $13)`,
			ws, d.WalletID, f.Name, f.Description, f.Type, f.Currency, f.CardColor, f.InitialBalance,
			f.Clabe, f.Provider, f.IsDefault, at, e.Version)
		queueVersion(b, "wallets", ws, d.WalletID, e.Version)
	case *domain.WalletUpdated:
		f := d.After
		b.Queue(`UPDATE wallets SET name = $3, description = $4, type = $5, currency = $6, card_color = $7,
				balance = balance + ($8 - initial_balance), initial_balance = $8, clabe = $9, provider = $10,
				is_default = $11, updated_at = $12
			WHERE workspace_id = $1 AND id = $2`,
			ws, d.WalletID, f.Name, f.Description, f.Type, f.Currency, f.CardColor, f.InitialBalance,
			f.Clabe, f.Provider, f.IsDefault, at)
		queueVersion(b, "wallets", ws, d.WalletID, e.Version)
	case *domain.WalletArchived:
		b.Queue(`UPDATE wallets SET archived = true, is_default = false, updated_at = $3 WHERE workspace_id = $1 AND id = $2`,
			ws, d.WalletID, at)
		queueVersion(b, "wallets", ws, d.WalletID, e.Version)
	case *domain.WalletReconciled:
		queueReconciled(b, ws, d, at, e.Version)
	case *domain.CategoryCreated:
		f := d.CategoryFields
		b.Queue(`INSERT INTO categories (workspace_id, id, name, icon, description, color, is_default, tag_id,
				created_at, updated_at, created_version)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9, $10)`,
			ws, d.CategoryID, f.Name, f.Icon, f.Description, f.Color, f.IsDefault, f.TagID, at, e.Version)
		queueVersion(b, "categories", ws, d.CategoryID, e.Version)
	case *domain.CategoryUpdated:
		f := d.After
		b.Queue(`UPDATE categories SET name = $3, icon = $4, description = $5, color = $6, is_default = $7, tag_id = $8,
				updated_at = $9
			WHERE workspace_id = $1 AND id = $2`,
			ws, d.CategoryID, f.Name, f.Icon, f.Description, f.Color, f.IsDefault, f.TagID, at)
		queueVersion(b, "categories", ws, d.CategoryID, e.Version)
	case *domain.CategoryArchived:
		b.Queue(`UPDATE categories SET archived = true, updated_at = $3 WHERE workspace_id = $1 AND id = $2`,
			ws, d.CategoryID, at)
		queueVersion(b, "categories", ws, d.CategoryID, e.Version)
	case *domain.TagCreated:
		b.Queue(`INSERT INTO tags (workspace_id, id, name, color, created_at, updated_at, created_version)
			VALUES ($1, $2, $3, $4, $5, $5, $6)`, ws, d.TagID, d.Name, d.Color, at, e.Version)
	case *domain.TagUpdated:
		b.Queue(`UPDATE tags SET name = $3, color = $4, updated_at = $5 WHERE workspace_id = $1 AND id = $2`,
			ws, d.TagID, d.After.Name, d.After.Color, at)
	case *domain.TagArchived:
		b.Queue(`UPDATE tags SET active = false, updated_at = $3 WHERE workspace_id = $1 AND id = $2`, ws, d.TagID, at)
	case *domain.TransactionCreated:
		splits, err := splitsJSON(d.Splits)
		if err != nil {
			return err
		}
		p.gatherTransaction(d.TransactionID)
		p.transactions.add(ws, d.TransactionID, d.Type, d.Amount, d.Currency, d.DestinationAmount, d.Date, d.Concept,
			d.Description, d.WalletID, d.ToWalletID, d.CategoryID, d.GoalID, d.DebtID, d.RecurringID, d.TagID, d.ReferenceNumber,
			d.AttachmentURL, d.Cleared, at, at, e.Version, d.ImportID, nullIfEmpty(d.ExternalID), splits)
		p.postings.add(ws, d.Postings, at, e.Version)
		p.totals.add(ws, d, e.Version)
		if err := queueEffects(b, ws, e, d.Effects); err != nil {
			return err
		}
		queueChannelTransaction(b, ws, e, meta, d)
	case *domain.TransactionUpdated:
		c := d.Changes
		splits, err := splitsJSON(c.Splits.Value)
		if err != nil {
			return err
		}
		queueTotalsRemoved(b, ws, d.TransactionID)
		queueReplaced(b, ws, d.TransactionID, e.Version)
		b.Queue(`UPDATE transactions SET
				amount = CASE WHEN $3 THEN $4 ELSE amount END,
				currency = CASE WHEN $5 THEN $6 ELSE currency END,
				destination_amount = CASE WHEN $7 THEN $8 ELSE destination_amount END,
				date = CASE WHEN $9 THEN $10::date ELSE date END,
				concept = CASE WHEN $11 THEN $12 ELSE concept END,
				description = CASE WHEN $13 THEN $14 ELSE description END,
				wallet_id = CASE WHEN $15 THEN $16 ELSE wallet_id END,
				to_wallet_id = CASE WHEN $17 THEN $18 ELSE to_wallet_id END,
				category_id = CASE WHEN $19 THEN $20 ELSE category_id END,
				tag_id = CASE WHEN $21 THEN $22 ELSE tag_id END,
				reference_number = CASE WHEN $23 THEN $24 ELSE reference_number END,
				attachment_url = CASE WHEN $25 THEN $26 ELSE attachment_url END,
				cleared = CASE WHEN $29 THEN $30 ELSE cleared END,
				splits = CASE WHEN $31 THEN $32::jsonb ELSE splits END,
				updated_at = $27, changed_version = $28
			WHERE workspace_id = $1 AND id = $2`,
			ws, d.TransactionID,
			c.Amount.Set, c.Amount.Ptr(), c.Currency.Set, c.Currency.Ptr(),
			c.DestinationAmount.Set, c.DestinationAmount.Ptr(), c.Date.Set, c.Date.Ptr(),
			c.Concept.Set, c.Concept.Ptr(), c.Description.Set, c.Description.Ptr(),
			c.WalletID.Set, c.WalletID.Ptr(), c.ToWalletID.Set, c.ToWalletID.Ptr(),
			c.CategoryID.Set, c.CategoryID.Ptr(), c.TagID.Set, c.TagID.Ptr(),
			c.ReferenceNumber.Set, c.ReferenceNumber.Ptr(), c.AttachmentURL.Set, c.AttachmentURL.Ptr(), at, e.Version, c.Cleared.Set, c.Cleared.Value,
			c.Splits.Set, splits)
		p.postings.add(ws, d.Postings, at, e.Version)
		queueTotalsAdded(b, ws, d.TransactionID)
		queueTotalsKept(b, ws, d.TransactionID, e.Version)
		return queueEffects(b, ws, e, d.Effects)
	case *domain.TransactionDeleted:
		p.postings.add(ws, d.Postings, at, e.Version)
		if gathersDeletion(d) {
			p.deletions.add(ws, d.TransactionID, at, e.Version)
			return nil
		}
		queueTotalsRemoved(b, ws, d.TransactionID)
		queueReplaced(b, ws, d.TransactionID, e.Version)
		b.Queue(`UPDATE transactions SET deleted_at = $3, updated_at = $3, changed_version = $4 WHERE workspace_id = $1 AND id = $2`,
			ws, d.TransactionID, at, e.Version)
		queueTotalsKept(b, ws, d.TransactionID, e.Version)
		return queueEffects(b, ws, e, d.Effects)
	case *domain.TransactionMatched, *domain.TransactionUnmatched:
		id, importID, externalID, _ := linkOf(d)
		queueLinked(b, p, ws, id, importID, externalID, at, e.Version)
	case *domain.AttachmentAdded:
		b.Queue(`INSERT INTO attachments (workspace_id, id, transaction_id, sha256, size, content_type, file_name, created_at, created_version)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`, ws, d.AttachmentID, d.TransactionID, d.SHA256, d.Size, d.ContentType,
			nullIfEmpty(d.FileName), at, e.Version)
	case *domain.AttachmentRemoved:
		b.Queue(`UPDATE attachments SET removed_at = $3 WHERE workspace_id = $1 AND id = $2`, ws, d.AttachmentID, at)
	case *domain.RuleCreated:
		b.Queue(`INSERT INTO rules (workspace_id, id, name, position, conditions, actions, created_at, updated_at, created_version)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $7, $8)`, ws, d.RuleID, d.Rule.Name, d.Rule.Position, d.Rule.Conditions, d.Rule.Actions, at, e.Version)
	case *domain.RuleUpdated:
		b.Queue(`UPDATE rules SET name = $3, position = $4, conditions = $5, actions = $6, updated_at = $7
			WHERE workspace_id = $1 AND id = $2`, ws, d.RuleID, d.After.Name, d.After.Position, d.After.Conditions, d.After.Actions, at)
	case *domain.RuleDeleted:
		b.Queue(`DELETE FROM rules WHERE workspace_id = $1 AND id = $2`, ws, d.RuleID)
	case *domain.ImportCommitted:
		b.Queue(`UPDATE imports SET status = 'committed', committed_at = $3, created = $4, merged = $5, skipped = $6
			WHERE workspace_id = $1 AND id = $2`, ws, d.ImportID, at, d.Created, d.Merged, d.Skipped)
	case *domain.ImportUndone:
		b.Queue(`UPDATE imports SET status = 'undone', undone_at = $3 WHERE workspace_id = $1 AND id = $2`, ws, d.ImportID, at)
	default:
		return queueMoney(b, ws, e, data)
	}
	return nil
}

// queueLinked records on a transaction's row the statement row linked to it, or none;
// its row before the change goes to its history, and the totals it is in are kept at
// its version. With deferLinks the link is gathered (gatheredLinks) and its totals kept
// when the sums are next written; otherwise it is written now.
func queueLinked(b *pgx.Batch, p *pending, ws, transactionID uuid.UUID, importID *uuid.UUID, externalID *string, at time.Time, version int64) {
	p.links.add(ws, transactionID, importID, externalID, at, version)
	if p.totals.deferLinks {
		p.totals.links = append(p.totals.links, keptLink{ws, transactionID, version})
		return
	}
	p.links.flush(b)
	queueTotalsKept(b, ws, transactionID, version)
}

// linkOf returns the transaction a link to a statement row (or its removal) names, and
// the row's import and external id (nil for a removal); link is false for any other
// event.
func linkOf(data any) (transactionID uuid.UUID, importID *uuid.UUID, externalID *string, link bool) {
	switch d := data.(type) {
	case *domain.TransactionMatched:
		return d.TransactionID, &d.ImportID, &d.ExternalID, true
	case *domain.TransactionUnmatched:
		return d.TransactionID, nil, nil, true
	}
	return uuid.Nil, nil, nil, false
}

// gatheredLinks are links of transactions to statement rows, and their removals, made
// one after the other: a statement's commit makes one per merged row, thousands, and
// its undo as many. Their audit entries, their rows kept in the history and their
// changes are written in three statements, not three each. Each link reads and changes
// its own transaction's row alone, so links of different transactions go together;
// queue writes those gathered before any other event, and before a link of a
// transaction already gathered.
type gatheredLinks struct {
	audits          fromRowAudits
	workspaces, ids []uuid.UUID
	importIDs       []*uuid.UUID
	externalIDs     []*string
	at              []time.Time
	versions        []int64
	named           map[uuid.UUID]bool
}

// linksSQL records the statement rows ($3, $4) linked to transactions $2 of workspaces
// $1, at times $5 and versions $6, one element per link.
const linksSQL = `UPDATE transactions t SET import_id = l.import_id, external_id = l.external_id, updated_at = l.at,
		changed_version = l.version
	FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $5::timestamptz[], $6::bigint[])
		AS l(workspace_id, id, import_id, external_id, at, version)
	WHERE t.workspace_id = l.workspace_id AND t.id = l.id`

// add gathers a link (its audit entry is gathered by queueAudit).
func (l *gatheredLinks) add(ws, transactionID uuid.UUID, importID *uuid.UUID, externalID *string, at time.Time, version int64) {
	if l.named == nil {
		l.named = map[uuid.UUID]bool{}
	}
	l.named[transactionID] = true
	l.workspaces, l.ids = append(l.workspaces, ws), append(l.ids, transactionID)
	l.importIDs, l.externalIDs = append(l.importIDs, importID), append(l.externalIDs, externalID)
	l.at, l.versions = append(l.at, at), append(l.versions, version)
}

// flush queues the links gathered, each transaction's audit entry and kept row read
// before its change, and forgets them.
func (l *gatheredLinks) flush(b *pgx.Batch) {
	if len(l.ids) == 0 {
		return
	}
	l.audits.queue(b, importLinkColumns)
	b.Queue(replacedSQL, l.workspaces, l.ids, l.versions)
	b.Queue(linksSQL, l.workspaces, l.ids, l.importIDs, l.externalIDs, l.at, l.versions)
	*l = gatheredLinks{}
}

// splitsJSON is a split transaction's parts as its row holds them, as its event states
// them (amounts with their scale); nil, stored as NULL, when it is not split.
func splitsJSON(parts []domain.SplitPart) (*string, error) {
	if len(parts) == 0 {
		return nil, nil
	}
	b, err := json.Marshal(parts)
	if err != nil {
		return nil, fmt.Errorf("projections: split parts: %w", err)
	}
	s := string(b)
	return &s, nil
}

// nullIfEmpty stores an empty text as NULL.
func nullIfEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// queueReconciled marks the transactions a reconciliation lists, each row kept first in
// the transactions' history as a correction's is, and records the statement on the
// wallet's row and in its history.
func queueReconciled(b *pgx.Batch, ws uuid.UUID, d *domain.WalletReconciled, at time.Time, version int64) {
	if len(d.TransactionIDs) > 0 {
		b.Queue(`INSERT INTO transaction_versions SELECT $3::bigint, t.* FROM transactions t
			WHERE t.workspace_id = $1 AND t.id = ANY($2)`, ws, d.TransactionIDs, version)
		b.Queue(`UPDATE transactions SET reconciled = true, updated_at = $3, changed_version = $4
			WHERE workspace_id = $1 AND id = ANY($2)`, ws, d.TransactionIDs, at, version)
		queueTotalsKeptOfMany(b, ws, d.TransactionIDs, version)
	}
	b.Queue(`UPDATE wallets SET reconciled_through = $3, reconciled_balance = $4, updated_at = $5
		WHERE workspace_id = $1 AND id = $2`, ws, d.WalletID, d.Date, d.StatementBalance, at)
	queueVersion(b, "wallets", ws, d.WalletID, version)
}

// walletPostings gathers the balance changes of the events one Queue call projects, so
// that each wallet's row is updated once per call, and a replay updates a wallet once a
// batch of the log rather than once per transaction. PostgreSQL keeps every version of a
// row that its own running transaction updated, and walks them all on each further
// update, so a replay of a wallet's hundred thousand transactions in one transaction took
// time in the square of their number. The same statement keeps, in the wallet's history,
// the balance each of those events left.
type walletPostings struct {
	order    []walletKey
	byWallet map[walletKey]*walletPosting
}

type walletKey struct{ workspaceID, walletID uuid.UUID }

// walletPosting is each move of a wallet's balance by event: its version, its time, and
// what it moved the balance by (the running sums are summed when written, so that
// gathering allocates nothing per event).
type walletPosting struct {
	versions []int64
	times    []time.Time
	moves    []decimal.Decimal
}

func (p *walletPostings) add(ws uuid.UUID, postings []domain.Posting, at time.Time, version int64) {
	for _, posting := range postings {
		k := walletKey{ws, posting.WalletID}
		if p.byWallet == nil {
			p.byWallet = map[walletKey]*walletPosting{}
		}
		w, ok := p.byWallet[k]
		if !ok {
			w = &walletPosting{}
			p.byWallet[k] = w
			p.order = append(p.order, k)
		}
		if n := len(w.versions); n > 0 && w.versions[n-1] == version {
			w.moves[n-1] = w.moves[n-1].Add(posting.Amount)
			continue
		}
		w.versions, w.times, w.moves = append(w.versions, version), append(w.times, at), append(w.moves, posting.Amount)
	}
}

// postingsSQL moves a wallet's balance and keeps the state each event left in its
// history: the balance then is the new balance less what the events after it moved,
// written with no trailing zeros, so that a replay, which moves a wallet by the sum of
// many more events at once, writes the same.
const postingsSQL = `WITH w AS (
		UPDATE wallets SET balance = balance + $3, updated_at = $4 WHERE workspace_id = $1 AND id = $2 RETURNING *)
	INSERT INTO wallet_versions SELECT m.version, w.workspace_id, w.id, w.name, w.description, w.type, w.currency,
		w.card_color, w.initial_balance, trim_scale(w.balance - ($3 - m.moved)), w.clabe, w.provider, w.is_default, w.archived,
		w.created_at, m.at, w.created_version, w.reconciled_through, w.reconciled_balance
	FROM w, unnest($5::bigint[], $6::timestamptz[], $7::numeric[]) AS m(version, at, moved)`

// flush queues the gathered moves, a wallet's in one statement, and forgets them.
func (p *walletPostings) flush(b *pgx.Batch) {
	for _, k := range p.order {
		w := p.byWallet[k]
		var amount decimal.Decimal
		moved := make([]decimal.Decimal, len(w.moves))
		for i, m := range w.moves {
			amount = amount.Add(m)
			moved[i] = amount
		}
		b.Queue(postingsSQL, k.workspaceID, k.walletID, amount, w.times[len(w.times)-1], w.versions, w.times, moved)
	}
	p.order, p.byWallet = p.order[:0], nil
}
