package httpapi

import (
	"net/http"

	"github.com/finledger/finledger/domain"
)

// The lengths in characters of the names and texts people type in the web app's forms.
// Each is declared once: the handler reads its field with it, the OpenAPI document
// states it, and GET /api/limits serves it, so that a form's box never allows what the
// API refuses.
const (
	maxWalletName   = 50
	maxCategoryName = 100
	maxTagName      = 50
	maxRecordName   = 100 // budgets, goals, debts, recurring payments, webhooks, teams, import profiles
	maxCreditor     = 100
	maxAPIKeyName   = 80
	maxPersonName   = 100
	maxLanguage     = 10 // a language tag such as es-MX, of a profile or a workspace
)

// fieldLengths names the lengths for clients, as "record.field".
var fieldLengths = map[string]int{
	"wallet.name": maxWalletName, "category.name": maxCategoryName, "tag.name": maxTagName,
	"budget.name": maxRecordName, "goal.name": maxRecordName, "debt.name": maxRecordName, "debt.creditor": maxCreditor,
	"recurring.name": maxRecordName, "webhook.name": maxRecordName, "workspace.name": maxRecordName,
	"apiKey.name": maxAPIKeyName, "me.firstName": maxPersonName, "importProfile.name": maxRecordName,
	"transaction.concept": transactionConcept.Max, "transaction.description": transactionDescription.Max,
}

// limits answers GET /api/limits: the field lengths and the digits an amount may have
// (domain.CheckAmount's).
func limits(s *Server, w http.ResponseWriter, r *http.Request) {
	respond(w, r, map[string]any{
		"amount":  map[string]int{"maxIntegerDigits": domain.MaxAmountIntegerDigits, "maxDecimalPlaces": domain.MaxAmountScale},
		"lengths": fieldLengths,
	})
}

// limitsSchemas describe GET /api/limits's answer, a property for each served length.
func limitsSchemas() obj {
	count := obj{"type": "integer", "minimum": 1}
	lengths := obj{}
	for key := range fieldLengths {
		lengths[key] = count
	}
	return obj{"Limits": record(obj{
		"amount":  record(obj{"maxIntegerDigits": count, "maxDecimalPlaces": count}),
		"lengths": merge(record(lengths), obj{"description": "the most characters a field takes, keyed record.field"}),
	})}
}
