package webhooks

import (
	"encoding/json"
	"reflect"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/queries"
)

// publicPayloads gives every public event name the type of its data, with what the
// event tells: the OpenAPI document describes each from here.
var publicPayloads = map[string]struct {
	data    payload
	summary string
}{
	domain.HookTransactionCreated:     {TransactionCreatedPayload{}, "A transaction was recorded"},
	domain.HookTransactionUpdated:     {TransactionUpdatedPayload{}, "A transaction was changed"},
	domain.HookTransactionDeleted:     {TransactionDeletedPayload{}, "A transaction was deleted"},
	domain.HookWalletCreated:          {WalletCreatedPayload{}, "A wallet was added"},
	domain.HookWalletUpdated:          {WalletUpdatedPayload{}, "A wallet was changed or archived"},
	domain.HookCategoryCreated:        {CategoryCreatedPayload{}, "A category was added"},
	domain.HookBudgetCreated:          {BudgetCreatedPayload{}, "A budget was added"},
	domain.HookBudgetThresholdReached: {BudgetThresholdReachedPayload{}, "A transaction took a budget's period to its alert threshold"},
	domain.HookGoalDeposit:            {TransactionCreatedPayload{}, "A goal deposit was recorded (also told as transaction.created)"},
	domain.HookGoalWithdrawal:         {TransactionCreatedPayload{}, "A goal withdrawal was recorded (also told as transaction.created)"},
	domain.HookDebtPayment:            {TransactionCreatedPayload{}, "A debt payment was recorded (also told as transaction.created)"},
	domain.HookRecurringPaid:          {RecurringPaidPayload{}, "A cycle of a recurring payment was paid"},
	domain.HookRecurringSkipped:       {RecurringSkippedPayload{}, "Cycles of a recurring payment were left unpaid"},
	domain.HookImportCommitted:        {ImportCommittedPayload{}, "A statement import was committed: its transactions follow as transaction.created"},
	domain.HookImportUndone:           {ImportUndonePayload{}, "A statement import was undone: its transactions' deletions follow as transaction.deleted"},
	domain.HookProposalCreated:        {ProposalCreatedPayload{}, "An API key's write is held for a person's approval"},
	domain.HookProposalRejected:       {ProposalRejectedPayload{}, "A person rejected a proposal: nothing was written"},
	domain.HookProposalSettled:        {ProposalSettledPayload{}, "An approved proposal ran: it took effect (its events follow as themselves) or failed"},
	domain.HookTest:                   {TestPayload{}, "A test delivery, sent on request"},
}

// EventDoc is a public event as the OpenAPI document describes it.
type EventDoc struct {
	Name    string
	Summary string
	Version int            // of its data's shape
	Body    map[string]any // the JSON Schema of the body of its deliveries
}

// EventDocs describes every public event, in the order of domain.HookEvents. The
// schemas are made from the Go types of the body and the data, their fields and json
// tags (a field's doc tag is its description), so they cannot drift from what is sent.
func EventDocs() []EventDoc {
	out := make([]EventDoc, 0, len(domain.HookEvents))
	for _, name := range domain.HookEvents {
		p := publicPayloads[name]
		body := schemaOf(reflect.TypeFor[envelope]())
		props := body["properties"].(map[string]any)
		props["type"] = withDoc(map[string]any{"type": "string", "const": name}, props["type"])
		props["dataVersion"] = withDoc(map[string]any{"type": "integer", "const": p.data.version()}, props["dataVersion"])
		props["data"] = schemaOf(reflect.TypeOf(p.data))
		out = append(out, EventDoc{Name: name, Summary: p.summary, Version: p.data.version(), Body: body})
	}
	return out
}

// withDoc is s with the description of the schema it replaces.
func withDoc(s map[string]any, replaced any) map[string]any {
	if doc, ok := replaced.(map[string]any)["description"]; ok {
		s["description"] = doc
	}
	return s
}

// changed is Change's: the type of the value it sets.
type changed interface{ valueType() reflect.Type }

func (Change[T]) valueType() reflect.Type { return reflect.TypeFor[T]() }

// decimalPattern is what a Decimal's digits match.
const decimalPattern = `^-?[0-9]+(\.[0-9]+)?$`

// schemaOf is the JSON Schema of what encoding/json writes of a value of type t.
func schemaOf(t reflect.Type) map[string]any {
	switch {
	case t == reflect.TypeFor[uuid.UUID]():
		return map[string]any{"type": "string", "format": "uuid"}
	case t == reflect.TypeFor[Decimal]():
		return map[string]any{"type": "string", "pattern": decimalPattern, "description": "a decimal number, its digits as recorded"}
	case t == reflect.TypeFor[domain.Date]():
		return map[string]any{"type": "string", "format": "date"}
	case t == reflect.TypeFor[queries.Amount]():
		return map[string]any{"type": "number"}
	case t == reflect.TypeFor[time.Time]():
		return map[string]any{"type": "string", "format": "date-time"}
	case t == reflect.TypeFor[json.RawMessage]():
		return map[string]any{}
	case t.Implements(reflect.TypeFor[changed]()):
		return nullable(schemaOf(reflect.Zero(t).Interface().(changed).valueType()))
	}
	switch t.Kind() {
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int32, reflect.Int64:
		return map[string]any{"type": "integer"}
	case reflect.Pointer:
		return nullable(schemaOf(t.Elem()))
	case reflect.Slice:
		return map[string]any{"type": "array", "items": schemaOf(t.Elem())}
	case reflect.Struct:
		props, required := map[string]any{}, []string{}
		addFields(t, props, &required)
		s := map[string]any{"type": "object", "properties": props}
		if len(required) > 0 {
			s["required"] = required
		}
		return s
	}
	panic("webhooks: no JSON Schema for " + t.String())
}

// addFields adds the JSON fields of struct t to props, and the names of those always
// sent to required; an embedded struct's fields are t's, as encoding/json writes them.
func addFields(t reflect.Type, props map[string]any, required *[]string) {
	for f := range t.Fields() {
		tag := f.Tag.Get("json")
		if tag == "-" || !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			addFields(f.Type, props, required)
			continue
		}
		if name == "" {
			name = f.Name
		}
		omitted := strings.Contains(","+opts+",", ",omitempty,") || strings.Contains(","+opts+",", ",omitzero,")
		s := schemaOf(f.Type)
		if omitted && f.Type.Kind() == reflect.Pointer {
			s = schemaOf(f.Type.Elem()) // absent rather than null
		}
		if doc := f.Tag.Get("doc"); doc != "" {
			s["description"] = doc
		}
		props[name] = s
		if !omitted {
			*required = append(*required, name)
		}
	}
}

// nullable is s allowing null too.
func nullable(s map[string]any) map[string]any {
	if typ, ok := s["type"].(string); ok {
		s["type"] = []string{typ, "null"}
		return s
	}
	return map[string]any{"anyOf": []any{s, map[string]any{"type": "null"}}}
}
