package projections

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sort"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/eventstore"
	"github.com/finledger/finledger/ledger"
)

// Audit actions.
const (
	actionCreate = "create"
	actionUpdate = "update"
	actionDelete = "delete"
)

// change is one field's value before and after an action, as the audit log shows it.
// Values are written as events are (ledger.EncodePayload): an amount keeps the scale it
// was recorded with, 1264.80 and not 1264.8, as the before values read from the rows do.
type change struct {
	Before any `json:"before"`
	After  any `json:"after"`
}

// auditEntry is what an event contributes to the audit log.
type auditEntry struct {
	workspace uuid.UUID
	entity    string
	entityID  uuid.UUID
	action    string
	changes   map[string]change
	// fromRow, when set, reads the before values of these fields (API name to column)
	// from the transactions read model, before the event's own statements change it.
	fromRow map[string]string
	after   json.RawMessage
	// written, when set, is the changes already written as JSON (createdChanges).
	written []byte
}

// transactionColumns maps the fields of a transaction to the columns holding them.
var transactionColumns = map[string]string{
	"amount": "amount", "currency": "currency", "destinationAmount": "destination_amount", "date": "date",
	"concept": "concept", "description": "description", "walletId": "wallet_id", "toWalletId": "to_wallet_id",
	"categoryId": "category_id", "tagId": "tag_id", "referenceNumber": "reference_number",
	"attachmentUrl": "attachment_url", "type": "type", "cleared": "cleared",
}

// transactionChangeColumns are the fields a transaction's correction may set, with
// those a deletion's entry leaves out: a split transaction's parts, told by its
// creation's and corrections' entries.
var transactionChangeColumns = func() map[string]string {
	cols := maps.Clone(transactionColumns)
	cols["splits"] = "splits"
	return cols
}()

// importLinkColumns are the fields a statement row's link to a transaction sets.
var importLinkColumns = map[string]string{"importId": "import_id", "externalId": "external_id"}

// auditWorkspaceOf returns the workspace whose audit log an event's stream writes to:
// a workspace stream's own, or the personal workspace of a user stream's user.
func auditWorkspaceOf(e eventstore.RecordedEvent) (uuid.UUID, error) {
	if id, ok := domain.WorkspaceOfStream(e.StreamID); ok {
		return id, nil
	}
	user, err := userOf(e)
	if err != nil {
		return uuid.Nil, err
	}
	return domain.PersonalWorkspaceID(user), nil
}

// auditOf describes the audit entry of an event: every event is a create, update or
// delete of something a person would look for, and a type named in no case gives
// domain.ErrUnknownEvent.
func auditOf(e eventstore.RecordedEvent, data any) (auditEntry, error) {
	ws, err := auditWorkspaceOf(e)
	if err != nil {
		return auditEntry{}, err
	}
	switch d := data.(type) {
	case *domain.UserRegistered:
		return auditEntry{workspace: d.PersonalWorkspaceID, entity: "user", entityID: d.UserID, action: actionCreate,
			changes: created(map[string]any{"email": d.Email, "name": d.Name})}, nil
	case *domain.UserIdentityChanged:
		return auditEntry{workspace: domain.PersonalWorkspaceID(d.UserID), entity: "user", entityID: d.UserID, action: actionUpdate,
			changes: created(map[string]any{"email": d.Email, "name": d.Name})}, nil
	case *domain.UserProfileUpdated:
		changes, err := diff(d.Before, d.After)
		return auditEntry{workspace: domain.PersonalWorkspaceID(d.UserID), entity: "user", entityID: d.UserID, action: actionUpdate, changes: changes}, err
	case *domain.UserDeleted:
		return auditEntry{workspace: domain.PersonalWorkspaceID(d.UserID), entity: "user", entityID: d.UserID, action: actionDelete}, nil
	case *domain.WorkspaceCreated:
		return auditEntry{workspace: ws, entity: "workspace", entityID: d.WorkspaceID, action: actionCreate,
			changes: created(map[string]any{"name": d.Name, "type": d.Kind, "currency": d.Currency, "language": d.Language})}, nil
	case *domain.WorkspaceLanguageChanged:
		return auditEntry{workspace: ws, entity: "workspace", entityID: ws, action: actionUpdate,
			changes: map[string]change{"language": {d.Before, d.After}}}, nil
	case *domain.WorkspaceDeleted:
		return auditEntry{workspace: ws, entity: "workspace", entityID: d.WorkspaceID, action: actionDelete}, nil
	case *domain.WalletCreated:
		changes, err := diff(nil, d.WalletFields)
		return auditEntry{workspace: ws, entity: "wallet", entityID: d.WalletID, action: actionCreate, changes: changes}, err
	case *domain.WalletUpdated:
		changes, err := diff(d.Before, d.After)
		return auditEntry{workspace: ws, entity: "wallet", entityID: d.WalletID, action: actionUpdate, changes: changes}, err
	case *domain.WalletReconciled:
		// What the statement said, what the ledger held, and how many transactions it
		// marked (their list is in the event).
		return auditEntry{workspace: ws, entity: "wallet", entityID: d.WalletID, action: actionUpdate,
			changes: created(map[string]any{"reconciledThrough": d.Date, "statementBalance": domain.ExactString(d.StatementBalance),
				"ledgerBalance": domain.ExactString(d.LedgerBalance), "reconciledTransactions": len(d.TransactionIDs)})}, nil
	case *domain.WalletArchived:
		return auditEntry{workspace: ws, entity: "wallet", entityID: d.WalletID, action: actionDelete}, nil
	case *domain.CategoryCreated:
		changes, err := diff(nil, d.CategoryFields)
		return auditEntry{workspace: ws, entity: "category", entityID: d.CategoryID, action: actionCreate, changes: changes}, err
	case *domain.CategoryUpdated:
		changes, err := diff(d.Before, d.After)
		return auditEntry{workspace: ws, entity: "category", entityID: d.CategoryID, action: actionUpdate, changes: changes}, err
	case *domain.CategoryArchived:
		return auditEntry{workspace: ws, entity: "category", entityID: d.CategoryID, action: actionDelete}, nil
	case *domain.TagCreated:
		return auditEntry{workspace: ws, entity: "tag", entityID: d.TagID, action: actionCreate,
			changes: created(map[string]any{"name": d.Name, "color": d.Color})}, nil
	case *domain.TagUpdated:
		changes, err := diff(d.Before, d.After)
		return auditEntry{workspace: ws, entity: "tag", entityID: d.TagID, action: actionUpdate, changes: changes}, err
	case *domain.TagArchived:
		return auditEntry{workspace: ws, entity: "tag", entityID: d.TagID, action: actionDelete}, nil
	case *domain.TransactionCreated:
		fields := *d
		fields.Postings, fields.Effects = nil, nil
		written, err := createdChanges(&fields, "transactionId", "postings")
		return auditEntry{workspace: ws, entity: "transaction", entityID: d.TransactionID, action: actionCreate, written: written}, err
	case *domain.TransactionUpdated:
		after, err := ledger.EncodePayload(d.Changes)
		if err != nil {
			return auditEntry{}, err
		}
		var set map[string]json.RawMessage
		if err := json.Unmarshal(after, &set); err != nil {
			return auditEntry{}, err
		}
		cols := map[string]string{}
		for k := range set {
			cols[k] = transactionChangeColumns[k]
		}
		return auditEntry{workspace: ws, entity: "transaction", entityID: d.TransactionID, action: actionUpdate,
			fromRow: cols, after: json.RawMessage(after)}, nil
	case *domain.TransactionDeleted:
		return auditEntry{workspace: ws, entity: "transaction", entityID: d.TransactionID, action: actionDelete,
			fromRow: transactionColumns, after: json.RawMessage(`{}`)}, nil
	case *domain.TransactionMatched:
		after, err := json.Marshal(map[string]any{"importId": d.ImportID, "externalId": d.ExternalID})
		return auditEntry{workspace: ws, entity: "transaction", entityID: d.TransactionID, action: actionUpdate,
			fromRow: importLinkColumns, after: json.RawMessage(after)}, err
	case *domain.TransactionUnmatched:
		return auditEntry{workspace: ws, entity: "transaction", entityID: d.TransactionID, action: actionUpdate,
			fromRow: importLinkColumns, after: json.RawMessage(`{"importId":null,"externalId":null}`)}, nil
	case *domain.RuleCreated:
		return auditEntry{workspace: ws, entity: "rule", entityID: d.RuleID, action: actionCreate,
			changes: created(map[string]any{"name": d.Rule.Name, "position": d.Rule.Position, "conditions": d.Rule.Conditions, "actions": d.Rule.Actions})}, nil
	case *domain.RuleUpdated:
		changes, err := diff(d.Before, d.After)
		return auditEntry{workspace: ws, entity: "rule", entityID: d.RuleID, action: actionUpdate, changes: changes}, err
	case *domain.RuleDeleted:
		return auditEntry{workspace: ws, entity: "rule", entityID: d.RuleID, action: actionDelete}, nil
	case *domain.ProposalCreated:
		return auditEntry{workspace: ws, entity: "proposal", entityID: d.ProposalID, action: actionCreate,
			changes: created(map[string]any{"keyId": d.KeyID, "route": d.Route, "path": d.Path, "summary": d.Summary,
				"expiresAt": d.ExpiresAt})}, nil
	case *domain.ProposalApproved:
		return auditEntry{workspace: ws, entity: "proposal", entityID: d.ProposalID, action: actionUpdate,
			changes: map[string]change{"status": {domain.StatusPending, domain.StatusApproved}}}, nil
	case *domain.ProposalRejected:
		return auditEntry{workspace: ws, entity: "proposal", entityID: d.ProposalID, action: actionUpdate,
			changes: map[string]change{"status": {domain.StatusPending, domain.StatusRejected}}}, nil
	case *domain.ProposalSettled:
		changes := map[string]change{"resultStatus": {nil, d.Status}}
		if d.ErrorCode != "" {
			changes["status"] = change{domain.StatusApproved, domain.StatusFailed}
			changes["errorCode"] = change{nil, d.ErrorCode}
		}
		return auditEntry{workspace: ws, entity: "proposal", entityID: d.ProposalID, action: actionUpdate, changes: changes}, nil
	case *domain.AttachmentAdded:
		return auditEntry{workspace: ws, entity: "attachment", entityID: d.AttachmentID, action: actionCreate,
			changes: created(map[string]any{"transactionId": d.TransactionID, "sha256": d.SHA256, "size": d.Size,
				"contentType": d.ContentType, "fileName": nullIfEmpty(d.FileName)})}, nil
	case *domain.AttachmentRemoved:
		return auditEntry{workspace: ws, entity: "attachment", entityID: d.AttachmentID, action: actionDelete,
			changes: map[string]change{"transactionId": {d.TransactionID, nil}}}, nil
	case *domain.ImportCommitted:
		return auditEntry{workspace: ws, entity: "import", entityID: d.ImportID, action: actionCreate,
			changes: created(map[string]any{"walletId": d.WalletID, "format": d.Format, "status": "committed",
				"created": d.Created, "merged": d.Merged, "skipped": d.Skipped})}, nil
	case *domain.ImportUndone:
		return auditEntry{workspace: ws, entity: "import", entityID: d.ImportID, action: actionUpdate,
			changes: map[string]change{"status": {"committed", "undone"}, "deleted": {nil, d.Deleted}, "unmerged": {nil, d.Unmerged}}}, nil
	case *domain.MemberAdded:
		return auditEntry{workspace: ws, entity: "member", entityID: d.UserID, action: actionCreate,
			changes: created(map[string]any{"role": d.Role})}, nil
	case *domain.MemberInvited:
		return auditEntry{workspace: ws, entity: "invitation", entityID: domain.InvitationID(d.Email), action: actionCreate,
			changes: created(map[string]any{"email": d.Email, "role": d.Role})}, nil
	case *domain.InvitationCancelled:
		return auditEntry{workspace: ws, entity: "invitation", entityID: domain.InvitationID(d.Email), action: actionDelete,
			changes: map[string]change{"email": {d.Email, nil}, "role": {d.Role, nil}}}, nil
	case *domain.MemberRoleChanged:
		return auditEntry{workspace: ws, entity: "member", entityID: d.UserID, action: actionUpdate,
			changes: map[string]change{"role": {d.Before, d.After}}}, nil
	case *domain.MemberRemoved:
		return auditEntry{workspace: ws, entity: "member", entityID: d.UserID, action: actionDelete,
			changes: map[string]change{"role": {d.Role, nil}}}, nil
	case *domain.APIKeyCreated:
		// The hash stays out of the log, like the secret it stands for.
		return auditEntry{workspace: ws, entity: "api_key", entityID: d.KeyID, action: actionCreate,
			changes: created(map[string]any{"name": d.Name, "scopes": d.Scopes, "prefix": d.Prefix, "expiresAt": d.ExpiresAt})}, nil
	case *domain.APIKeyRevoked:
		entry := auditEntry{workspace: ws, entity: "api_key", entityID: d.KeyID, action: actionDelete}
		if d.Reason != "" {
			entry.changes = map[string]change{"reason": {nil, d.Reason}}
		}
		return entry, nil
	case *domain.WhatsAppLinked:
		// Neither the phone number nor fingerprints go to the log.
		return auditEntry{workspace: ws, entity: "whatsapp_link", entityID: d.LinkID,
			action: actionCreate, changes: map[string]change{"workspaceId": {nil, d.WorkspaceID}}}, nil
	case *domain.WhatsAppUnlinked:
		return auditEntry{workspace: ws, entity: "whatsapp_link", entityID: d.LinkID, action: actionDelete}, nil
	case *domain.WhatsAppSuspended:
		return auditEntry{workspace: ws, entity: "whatsapp_link", entityID: d.LinkID, action: actionUpdate,
			changes: map[string]change{"status": {domain.LinkActive, domain.LinkSuspended}, "reason": {nil, d.Reason}}}, nil
	case *domain.WhatsAppFingerprintRecorded:
		return auditEntry{workspace: ws, entity: "whatsapp_link", entityID: d.LinkID, action: actionUpdate,
			changes: map[string]change{"fingerprint": {nil, "recorded"}}}, nil
	case *domain.WhatsAppWorkspaceChanged:
		return auditEntry{workspace: ws, entity: "whatsapp_link", entityID: d.LinkID, action: actionUpdate,
			changes: map[string]change{"workspaceId": {nil, d.WorkspaceID}}}, nil
	case *domain.RecurringPaid:
		return auditEntry{workspace: ws, entity: "recurring", entityID: d.RecurringID, action: actionUpdate,
			changes: map[string]change{"nextPayment": {d.DueDate, d.NextPayment}, "lastPayment": {nil, domain.LaterDate(d.PaidOn, d.DueDate)}}}, nil
	case *domain.RecurringSkipped:
		return auditEntry{workspace: ws, entity: "recurring", entityID: d.RecurringID, action: actionUpdate,
			changes: map[string]change{"nextPayment": {d.FirstDue, d.NextPayment},
				"lastSkip": {nil, map[string]any{"cycles": d.Cycles, "firstDue": d.FirstDue, "lastDue": d.LastDue}}}}, nil
	}
	return moneyAudit(ws, data)
}

// moneyAudit describes the audit entries of budgets, goals, debts, recurring payments,
// webhooks and import profiles.
func moneyAudit(ws uuid.UUID, data any) (auditEntry, error) {
	entry := func(entity string, id uuid.UUID, action string, before, after any) (auditEntry, error) {
		changes, err := diff(before, after)
		return auditEntry{workspace: ws, entity: entity, entityID: id, action: action, changes: changes}, err
	}
	switch d := data.(type) {
	case *domain.BudgetCreated:
		return entry("budget", d.BudgetID, actionCreate, nil, d.BudgetFields)
	case *domain.BudgetUpdated:
		return entry("budget", d.BudgetID, actionUpdate, d.Before, d.After)
	case *domain.BudgetDeleted:
		return entry("budget", d.BudgetID, actionDelete, nil, nil)
	case *domain.BudgetThresholdReached:
		// The log's actions are create, update and delete (spec 2.9): an alert updates
		// the budget, which has now alerted for the period, by the actor whose
		// transaction took it there.
		changes := created(map[string]any{"periodStart": d.PeriodStart, "periodEnd": d.PeriodEnd, "spent": d.Spent,
			"percentage": d.Percentage, "alertThreshold": d.Budget.AlertThreshold, "transactionId": d.TransactionID})
		changes["alertReached"] = change{false, true}
		return auditEntry{workspace: ws, entity: "budget", entityID: d.BudgetID, action: actionUpdate, changes: changes}, nil
	case *domain.GoalCreated:
		return entry("goal", d.GoalID, actionCreate, nil, d.GoalFields)
	case *domain.GoalUpdated:
		return entry("goal", d.GoalID, actionUpdate, d.Before, d.After)
	case *domain.GoalDeleted:
		return entry("goal", d.GoalID, actionDelete, nil, nil)
	case *domain.DebtCreated:
		return entry("debt", d.DebtID, actionCreate, nil, d.DebtFields)
	case *domain.DebtUpdated:
		return entry("debt", d.DebtID, actionUpdate, d.Before, d.After)
	case *domain.DebtDeleted:
		return entry("debt", d.DebtID, actionDelete, nil, nil)
	case *domain.RecurringCreated:
		return entry("recurring", d.RecurringID, actionCreate, nil, d.RecurringFields)
	case *domain.RecurringUpdated:
		return entry("recurring", d.RecurringID, actionUpdate, d.Before, d.After)
	case *domain.RecurringDeleted:
		return entry("recurring", d.RecurringID, actionDelete, nil, nil)
	case *domain.WebhookCreated:
		// The sealed secret stays out of the log.
		return entry("webhook", d.WebhookID, actionCreate, nil, d.WebhookFields)
	case *domain.WebhookUpdated:
		return entry("webhook", d.WebhookID, actionUpdate, d.Before, d.After)
	case *domain.WebhookDeleted:
		return entry("webhook", d.WebhookID, actionDelete, nil, nil)
	case *domain.WebhookSecretRotated:
		// Neither secret goes to the log: only that it changed.
		return auditEntry{workspace: ws, entity: "webhook", entityID: d.WebhookID, action: actionUpdate,
			changes: map[string]change{"secret": {"(previous)", "(rotated)"}}}, nil
	case *domain.ImportProfileSaved:
		if d.Before == nil {
			return entry("import_profile", d.ProfileID, actionCreate, nil, d.ImportProfileFields)
		}
		return entry("import_profile", d.ProfileID, actionUpdate, *d.Before, d.ImportProfileFields)
	case *domain.ImportProfileDeleted:
		return entry("import_profile", d.ProfileID, actionDelete, nil, nil)
	case *domain.ExchangeRatesSet:
		changes := map[string]change{}
		for _, r := range d.Rates {
			changes[r.Base+"/"+r.Quote] = change{nil, r.Rate.String()}
		}
		return auditEntry{workspace: ws, entity: "exchange_rates", entityID: uuid.NewSHA1(uuid.NameSpaceOID, []byte(d.Date.String())),
			action: actionUpdate, changes: changes}, nil
	}
	return auditEntry{}, fmt.Errorf("projections: no audit entry for %T: %w", data, domain.ErrUnknownEvent)
}

// created lists the values of a new record.
func created(values map[string]any) map[string]change {
	out := map[string]change{}
	for k, v := range values {
		if v != nil && v != "" && v != (domain.Date{}) && !(reflect.ValueOf(v).Kind() == reflect.Pointer && reflect.ValueOf(v).IsNil()) {
			out[k] = change{nil, v}
		}
	}
	return out
}

// diff lists the fields whose JSON differs between two versions of a record; a nil
// before is a new record. Values stay raw JSON: nothing is parsed beyond the field names.
func diff(before, after any) (map[string]change, error) {
	b, err := rawFields(before)
	if err != nil {
		return nil, err
	}
	a, err := rawFields(after)
	if err != nil {
		return nil, err
	}
	out := make(map[string]change, len(a))
	for k, v := range a {
		if w, ok := b[k]; !ok || !bytes.Equal(v, w) {
			out[k] = change{rawOrNil(b[k]), rawOrNil(v)}
		}
	}
	for k, w := range b {
		if _, ok := a[k]; !ok {
			out[k] = change{rawOrNil(w), nil}
		}
	}
	for k, c := range out {
		if c.Before == nil && c.After == nil {
			delete(out, k)
		}
	}
	return out, nil
}

// createdChanges writes the changes of a new record straight from the record's JSON:
// each field that is not null nor named in skip, from null. It writes what
// marshalChanges writes of diff(nil, record) less the fields skipped, without the maps
// of both: every new transaction of a replay passes here.
func createdChanges(record any, skip ...string) ([]byte, error) {
	data, err := ledger.EncodePayload(record)
	if err != nil {
		return nil, fmt.Errorf("projections: audit: %w", err)
	}
	if len(data) < 2 || data[0] != '{' {
		return nil, fmt.Errorf("projections: audit: not an object: %.40s", data)
	}
	type member struct{ name, value []byte } // name without its quotes
	members := make([]member, 0, 24)
	size := 2
	for i := 1; i < len(data) && data[i] != '}'; {
		end := skipValue(data, i)
		if end >= len(data) || data[end] != ':' {
			return nil, fmt.Errorf("projections: audit: malformed object: %.40s", data)
		}
		name := data[i+1 : end-1]
		if !plainName(name) {
			// Written again by encoding/json, as marshalChanges does, it could differ.
			changes, err := diff(nil, record)
			if err != nil {
				return nil, err
			}
			for _, k := range skip {
				delete(changes, k)
			}
			return marshalChanges(changes)
		}
		start := end + 1
		end = skipValue(data, start)
		if value := data[start:end]; string(value) != "null" && !slices.Contains(skip, string(name)) {
			members = append(members, member{name, value})
			size += len(name) + len(value) + len(`"":{"before":null,"after":},`)
		}
		if end < len(data) && data[end] == ',' {
			end++
		}
		i = end
	}
	slices.SortFunc(members, func(a, b member) int { return bytes.Compare(a.name, b.name) })
	out := make([]byte, 0, size)
	out = append(out, '{')
	for i, m := range members {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, '"')
		out = append(out, m.name...)
		out = append(out, `":{"before":null,"after":`...)
		out = append(out, m.value...)
		out = append(out, '}')
	}
	return append(out, '}'), nil
}

// plainName reports whether json.Marshal writes a member's name as it stands between
// its quotes: printable ASCII, nothing it escapes.
func plainName(name []byte) bool {
	for _, c := range name {
		if c < 0x20 || c >= 0x7f || c == '\\' || c == '"' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}

// rawFields splits a record's JSON into its fields.
func rawFields(v any) (map[string]json.RawMessage, error) {
	if v == nil {
		return nil, nil
	}
	data, err := ledger.EncodePayload(v)
	if err != nil {
		return nil, fmt.Errorf("projections: audit: %w", err)
	}
	m, err := splitObject(data)
	if err != nil {
		return nil, fmt.Errorf("projections: audit: %w", err)
	}
	return m, nil
}

// splitObject splits the JSON of an object, as json.Marshal writes it (valid, without
// spaces), into its members. It only finds where each member ends, where
// json.Unmarshal would check and copy every byte: the audit entry of every event of a
// replay passes here.
func splitObject(data []byte) (map[string]json.RawMessage, error) {
	if len(data) < 2 || data[0] != '{' {
		return nil, fmt.Errorf("not an object: %.40s", data)
	}
	m := make(map[string]json.RawMessage, 24)
	for i := 1; i < len(data) && data[i] != '}'; {
		end := skipValue(data, i)
		var key string
		if raw := data[i+1 : end-1]; bytes.IndexByte(raw, '\\') < 0 {
			key = string(raw)
		} else if err := json.Unmarshal(data[i:end], &key); err != nil {
			return nil, err
		}
		if end >= len(data) || data[end] != ':' {
			return nil, fmt.Errorf("malformed object: %.40s", data)
		}
		start := end + 1
		end = skipValue(data, start)
		m[key] = data[start:end:end]
		if end < len(data) && data[end] == ',' {
			end++
		}
		i = end
	}
	return m, nil
}

// skipValue returns where the JSON value that starts at i ends.
func skipValue(data []byte, i int) int {
	depth := 0
	for ; i < len(data); i++ {
		switch data[i] {
		case '"':
			for i++; i < len(data) && data[i] != '"'; i++ {
				if data[i] == '\\' {
					i++
				}
			}
			if depth == 0 {
				return i + 1
			}
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return i
			}
			depth--
			if depth == 0 {
				return i + 1
			}
		case ',', ':':
			if depth == 0 {
				return i
			}
		}
	}
	return i
}

// marshalChanges writes the changes of an audit entry. Their values are mostly raw JSON
// already, which json.Marshal would check and copy again.
func marshalChanges(changes map[string]change) ([]byte, error) {
	keys := make([]string, 0, len(changes))
	for k := range changes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]byte, 0, 64*len(keys)+2)
	out = append(out, '{')
	for i, k := range keys {
		if i > 0 {
			out = append(out, ',')
		}
		var err error
		if out, err = appendJSON(out, k); err != nil {
			return nil, err
		}
		out = append(out, `:{"before":`...)
		if out, err = appendJSON(out, changes[k].Before); err != nil {
			return nil, err
		}
		out = append(out, `,"after":`...)
		if out, err = appendJSON(out, changes[k].After); err != nil {
			return nil, err
		}
		out = append(out, '}')
	}
	return append(out, '}'), nil
}

// appendJSON appends v as JSON: raw JSON as it is, nil as null.
func appendJSON(out []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case nil:
		return append(out, "null"...), nil
	case json.RawMessage:
		return append(out, v...), nil
	}
	b, err := ledger.EncodePayload(v)
	if err != nil {
		return nil, fmt.Errorf("projections: audit changes: %w", err)
	}
	return append(out, b...), nil
}

// rawOrNil is a field's value for the log: absent and null are both nil.
func rawOrNil(v json.RawMessage) any {
	if v == nil || string(v) == "null" {
		return nil
	}
	return v
}

// auditFromRowSQL writes audit entries whose before values come from their
// transactions' current rows: queued ahead of the events' own updates, it sees the rows
// as they were. Each of $1 to $12 holds one element per entry (fromRowAudits); $13 and
// $14 are the fields read, by their API names and columns. Amounts become strings, like
// every amount in the log, so that no reader parses them through floating point.
const auditFromRowSQL = `INSERT INTO audit_log (workspace_id, event_id, version, entity, entity_id, action, actor_type,
		actor_id, user_agent, request_id, occurred_at, changes)
	SELECT e.workspace_id, e.event_id, e.version, e.entity, e.entity_id, e.action, e.actor_type, e.actor_id, e.user_agent,
		e.request_id, e.occurred_at,
		coalesce((SELECT jsonb_object_agg(f.api, jsonb_build_object(
				'before', CASE WHEN jsonb_typeof(to_jsonb(t) -> f.col) = 'number' THEN to_jsonb((to_jsonb(t) ->> f.col)) ELSE to_jsonb(t) -> f.col END,
				'after', e.after -> f.api))
			FROM unnest($13::text[], $14::text[]) AS f(api, col)), '{}')
	FROM unnest($1::uuid[], $2::uuid[], $3::bigint[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[],
			$10::text[], $11::timestamptz[], $12::jsonb[])
		AS e(workspace_id, event_id, version, entity, entity_id, action, actor_type, actor_id, user_agent, request_id, occurred_at, after)
	JOIN transactions t ON t.workspace_id = e.workspace_id AND t.id = e.entity_id::uuid`

// fromRowAudits are audit entries that read the same fields of their transactions' rows
// (auditFromRowSQL), gathered a column at a time.
type fromRowAudits struct {
	workspaces, events                                 []uuid.UUID
	versions                                           []int64
	entities, entityIDs, actions, actorTypes, actorIDs []string
	userAgents, requestIDs                             []*string
	occurred                                           []time.Time
	afters                                             []string
}

// add gathers the audit entry of event e.
func (a *fromRowAudits) add(entry auditEntry, e eventstore.RecordedEvent, meta ledger.Metadata) {
	a.workspaces, a.events = append(a.workspaces, entry.workspace), append(a.events, e.ID)
	a.versions = append(a.versions, e.Version)
	a.entities, a.entityIDs = append(a.entities, entry.entity), append(a.entityIDs, entry.entityID.String())
	a.actions, a.actorTypes, a.actorIDs = append(a.actions, entry.action), append(a.actorTypes, meta.ActorType), append(a.actorIDs, meta.ActorID)
	a.userAgents, a.requestIDs = append(a.userAgents, nilIfEmpty(meta.UserAgent)), append(a.requestIDs, nilIfEmpty(meta.RequestID))
	a.occurred, a.afters = append(a.occurred, e.RecordedAt), append(a.afters, string(entry.after))
}

// queue queues the entries gathered, which read the given fields (API name to column),
// and forgets them.
func (a *fromRowAudits) queue(b *pgx.Batch, fields map[string]string) {
	if len(a.events) == 0 {
		return
	}
	apis := slices.Sorted(maps.Keys(fields))
	cols := make([]string, len(apis))
	for i, api := range apis {
		cols[i] = fields[api]
	}
	b.Queue(auditFromRowSQL, a.workspaces, a.events, a.versions, a.entities, a.entityIDs, a.actions, a.actorTypes, a.actorIDs,
		a.userAgents, a.requestIDs, a.occurred, a.afters, apis, cols)
	*a = fromRowAudits{}
}

// auditInsert writes audit entries whose changes the event alone tells.
var auditInsert = newRowInsert("audit_log", []string{"workspace_id uuid", "event_id uuid", "version bigint", "entity text",
	"entity_id text", "action text", "actor_type text", "actor_id text", "user_agent text", "request_id text",
	"occurred_at timestamptz", "changes jsonb"}, "")

// queueAudit queues the audit entry of an event.
func queueAudit(b *pgx.Batch, p *pending, e eventstore.RecordedEvent, meta ledger.Metadata, data any) error {
	entry, err := auditOf(e, data)
	if err != nil {
		return err
	}
	if entry.fromRow != nil {
		if _, _, _, link := linkOf(data); link {
			// Written with the link's own statements (gatheredLinks).
			p.links.audits.add(entry, e, meta)
			return nil
		}
		if gathersDeletion(data) {
			p.deletions.audits.add(entry, e, meta) // with the deletion's (gatheredDeletions)
			return nil
		}
		var one fromRowAudits
		one.add(entry, e, meta)
		one.queue(b, entry.fromRow)
		return nil
	}
	args := []any{entry.workspace, e.ID, e.Version, entry.entity, entry.entityID.String(), entry.action,
		meta.ActorType, meta.ActorID, nilIfEmpty(meta.UserAgent), nilIfEmpty(meta.RequestID), e.RecordedAt}
	changes := entry.written
	if changes == nil {
		if entry.changes == nil {
			entry.changes = map[string]change{}
		}
		if changes, err = marshalChanges(entry.changes); err != nil {
			return err
		}
	}
	p.audit.add(append(args, changes)...)
	return nil
}

func nilIfEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
