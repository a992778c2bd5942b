package httpapi

import (
	"regexp"

	"github.com/finledger/finledger/domain"
)

// textField is the rule of a string field of a request body, declared once: the
// handler reads the field with it (body.read) and the request schema states it
// (schema), so that the document never allows what the API refuses, nor the reverse.
// Lengths are in characters and come from limits.go where GET /api/limits serves them.
type textField struct {
	Name string
	// Text is the length rule, and whether the text may hold line breaks; a text a
	// person writes is trimmed of spaces and invisible characters (domain.Text).
	domain.Text
	// Raw reads the value as sent, untrimmed: codes, colours, URLs of machines.
	Raw bool
	// Enum, when set, are the values the field takes, as sent.
	Enum []string
	// Pattern, when set, is what the value must match, said to clients as PatternRule.
	Pattern     *regexp.Regexp
	PatternRule string
	// Nullable documents that null clears the field.
	Nullable bool
	// Doc is what else the schema says: description, default, format.
	Doc obj
}

// schema is the field's schema in a request body.
func (f textField) schema() obj {
	o := str(nil)
	if f.Nullable {
		o = nstr(nil)
	}
	if f.Min > 0 {
		o["minLength"] = f.Min
	}
	if f.Max > 0 {
		o["maxLength"] = f.Max
	}
	if f.Pattern != nil {
		o["pattern"] = f.Pattern.String()
	}
	if f.Enum != nil {
		o["enum"] = f.Enum
	}
	return merge(o, clone(f.Doc))
}

// optional is the field with no minimum length: the same field where a body may leave
// it empty.
func (f textField) optional() textField {
	f.Min = 0
	return f
}

// The string fields of the request bodies, by body. Fields that several bodies share
// are declared once, with the first body that has them.
var (
	colorField = func(name, def string) textField {
		return textField{Name: name, Text: domain.Text{Max: 7}, Raw: true, Pattern: hexColor, PatternRule: "#RRGGBB", Doc: obj{"default": def}}
	}
	recordName = textField{Name: "name", Text: domain.Text{Min: 1, Max: maxRecordName}}

	walletType        = textField{Name: "type", Enum: domain.WalletTypes, Doc: obj{"default": domain.DefaultWalletType}}
	walletName        = textField{Name: "name", Text: domain.Text{Min: 1, Max: maxWalletName}}
	walletDescription = textField{Name: "description", Text: domain.Text{Max: 255, Multiline: true}, Nullable: true}
	walletCardColor   = colorField("cardColor", domain.DefaultCardColor)
	walletClabe       = textField{Name: "clabe", Text: domain.Text{Max: 40}, Nullable: true}
	walletProvider    = textField{Name: "provider", Text: domain.Text{Max: 70}, Nullable: true}

	tagName  = textField{Name: "name", Text: domain.Text{Min: 1, Max: maxTagName}}
	tagColor = colorField("color", domain.DefaultTagColor)

	categoryName        = textField{Name: "name", Text: domain.Text{Min: 1, Max: maxCategoryName}}
	categoryIcon        = textField{Name: "icon", Text: domain.Text{Min: 1, Max: 50}, Doc: obj{"default": domain.DefaultCategoryIcon}}
	categoryDescription = textField{Name: "description", Text: domain.Text{Max: 255, Multiline: true}, Nullable: true}
	categoryColor       = colorField("color", domain.DefaultCategoryColor)

	transactionConcept     = textField{Name: "concept", Text: domain.Text{Max: 255}, Nullable: true}
	transactionDescription = textField{Name: "description", Text: domain.Text{Max: 2000, Multiline: true}, Nullable: true}
	transactionReference   = textField{Name: "referenceNumber", Text: domain.Text{Max: 100}, Nullable: true}
	transactionAttachment  = textField{Name: "attachmentUrl", Text: domain.Text{Min: 1, Max: 2048}, Nullable: true, Doc: obj{"format": "uri"}}

	transactionType = textField{Name: "type", Enum: enum(domain.TransactionTypes...)}
	bulkOperation   = textField{Name: "operation", Enum: []string{domain.BulkDelete, domain.BulkRecategorize}}

	profileTheme     = textField{Name: "theme", Enum: domain.Themes}
	profileFirstName = textField{Name: "firstName", Text: domain.Text{Max: maxPersonName}, Nullable: true}
	profileLastName  = textField{Name: "lastName", Text: domain.Text{Max: maxPersonName}, Nullable: true}
	profileLanguage  = textField{Name: "language", Text: domain.Text{Max: maxLanguage}, Nullable: true}

	budgetPeriod         = textField{Name: "period", Enum: domain.Periods, Doc: obj{"default": domain.PeriodMonthly}}
	recurringKind        = textField{Name: "kind", Enum: enum(domain.RecurringKinds...)}
	recurringPeriodicity = textField{Name: "periodicity", Enum: domain.Periods}

	debtCreditor = textField{Name: "creditor", Text: domain.Text{Max: maxCreditor}, Nullable: true}
	movementNote = textField{Name: "note", Text: domain.Text{Max: 500, Multiline: true}, Nullable: true}

	workspaceLanguage = textField{Name: "language", Text: domain.Text{Max: maxLanguage},
		Doc: obj{"description": "the language of the text the service writes into records; default: the creator's profile language"}}
	memberRole  = textField{Name: "role", Enum: domain.Roles}
	memberEmail = textField{Name: "email", Text: domain.Text{Min: 3, Max: 320}, Doc: obj{"format": "email"}}

	apiKeyName        = textField{Name: "name", Text: domain.Text{Min: 1, Max: maxAPIKeyName}}
	apiKeyDescription = transactionDescription

	linkCode             = textField{Name: "code", Text: domain.Text{Min: 1, Max: 32}, Raw: true}
	channelWalletName    = textField{Name: "walletName", Text: domain.Text{Min: 1, Max: maxWalletName}}
	channelCategoryName  = textField{Name: "categoryName", Text: domain.Text{Min: 1, Max: maxCategoryName}}
	channelWorkspaceName = textField{Name: "name", Text: domain.Text{Min: 1, Max: maxRecordName}}
	channelConcept       = transactionConcept
	channelType          = textField{Name: "type", Enum: enum(domain.TxExpense, domain.TxIncome)}
	incomingType         = textField{Name: "type", Enum: enum(domain.TxIncome, domain.TxExpense, domain.TxTransfer), Doc: obj{"default": domain.TxExpense}}
	incomingConcept      = textField{Name: "concept", Text: domain.Text{Min: 1, Max: transactionConcept.Max}}
	incomingDescription  = textField{Name: "description", Text: transactionDescription.Text}
	pushEndpointField    = textField{Name: "endpoint", Text: domain.Text{Min: 1, Max: maxPushEndpoint}, Raw: true, Doc: obj{"format": "uri"}}
	webhookURLField      = textField{Name: "url", Text: domain.Text{Min: 1, Max: maxWebhookURL}, Doc: obj{"format": "uri"}}
)

// read reads a string field by its rule.
func (b *body) read(f textField) domain.Nullable[string] {
	var v domain.Nullable[string]
	switch {
	case f.Enum != nil:
		v = b.enum(f.Name, f.Enum)
	case f.Raw:
		v = b.str(f.Name, f.Min, f.Max)
	default:
		v = b.text(f.Name, f.Text)
	}
	if f.Pattern != nil {
		b.pattern(f.Name, v, f.Pattern, f.PatternRule)
	}
	return v
}
