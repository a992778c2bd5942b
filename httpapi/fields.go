package httpapi

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/finledger/finledger/domain"
)

// A request body is declared once, as a bodyRule: its fields, each by a rule of its
// kind (textField, amountField, numberField, dateField, timestampField, idField,
// boolField, currencyField, idsField, stringsField, objectField, objectsField), the
// fields it requires, and the fields it requires given another's value. The document's
// request schema is the declaration's (bodyRule.schema), and a body read for a route
// (readBody) is checked by its route's declaration when finished (body.finish): a
// required field missing or null, a field that takes no null sent as null, a condition
// unmet. The handler reads each field by its rule (f.read(b)),
// which checks its kind, length, range or number of entries, and passes what the
// client sent to a command; what no schema can say (a URL's host, a key's curve, two
// fields given together) stays in the handler.

// field is the rule of one field of a request body.
type field interface {
	key() string    // the field's name in the body
	nullable() bool // whether null is taken (it clears the field)
	schema() obj    // the field's schema in the request body
}

// textField is the rule of a string field of a request body, declared once: the
// handler reads the field with it (textField.read) and the request schema states it
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

func (f textField) key() string    { return f.Name }
func (f textField) nullable() bool { return f.Nullable }

// withDoc is the field saying more in the schema of one body (a description).
func (f textField) withDoc(doc obj) textField {
	f.Doc = merge(clone(f.Doc), doc)
	return f
}

// optional is the field with no minimum length: the same field where a body may leave
// it empty.
func (f textField) optional() textField {
	f.Min = 0
	return f
}

// amountField is an amount of money, read exactly and checked by the domain's amount
// rule (domain.CheckAmount): positive, or not negative.
type amountField struct {
	Name     string
	Positive bool
	Nullable bool
	Doc      obj
}

func (f amountField) key() string    { return f.Name }
func (f amountField) nullable() bool { return f.Nullable }

func (f amountField) read(b *body) domain.Nullable[decimal.Decimal] {
	return b.amount(f.Name, f.Positive)
}

func (f amountField) schema() obj {
	o := num(clone(money))
	if f.Positive {
		o["exclusiveMinimum"] = 0
	} else {
		o["minimum"] = 0
	}
	if f.Nullable {
		o["type"] = []string{"number", "null"}
	}
	return merge(o, clone(f.Doc))
}

// numberField is a number that is not money, within bounds: at least Min (greater
// than Min when Above) and, when Max is not zero, at most Max; a whole number when
// Integer.
type numberField struct {
	Name     string
	Min      float64
	Above    bool
	Max      float64
	Integer  bool
	Nullable bool
	// Decided leaves the bounds to the command, which checks them with the rest of
	// the request so that one answer lists every bad entry (exchange rates).
	Decided bool
	Doc     obj
}

func (f numberField) key() string    { return f.Name }
func (f numberField) nullable() bool { return f.Nullable }

func (f numberField) read(b *body) domain.Nullable[decimal.Decimal] {
	v := b.number(f.Name)
	if !v.Valid || b.failed(f.Name) || f.Decided {
		return v
	}
	if f.Integer && !v.Value.IsInteger() {
		b.fail(f.Name, "must be a whole number")
		return v
	}
	lo, hi := decimal.NewFromFloat(f.Min), decimal.NewFromFloat(f.Max)
	if f.Above && !v.Value.GreaterThan(lo) || !f.Above && v.Value.LessThan(lo) || f.Max != 0 && v.Value.GreaterThan(hi) {
		b.fail(f.Name, "%s", f.refusal())
	}
	return v
}

// readFloat reads the number as a float64, for a number that is not an amount and
// need not be exact (a timestamp in milliseconds): an extreme exponent such as
// 1e-999999999 stays cheap to read, and is 0.
func (f numberField) readFloat(b *body) domain.Nullable[float64] {
	var v float64
	set, valid := b.value(f.Name, &v, "a number")
	if !valid {
		return domain.Nullable[float64]{Set: set && !b.failed(f.Name)}
	}
	if f.Above && v <= f.Min || !f.Above && v < f.Min || f.Max != 0 && v > f.Max {
		b.fail(f.Name, "%s", f.refusal())
		return domain.Nullable[float64]{}
	}
	return domain.Of(v)
}

// refusal says the bounds to a client that sent a number outside them.
func (f numberField) refusal() string {
	switch {
	case f.Max != 0:
		return fmt.Sprintf("must be from %s to %s", bound(f.Min), bound(f.Max))
	case f.Above:
		return "must be greater than " + bound(f.Min)
	}
	return "must be at least " + bound(f.Min)
}

func (f numberField) schema() obj {
	o := num(nil)
	if f.Integer {
		o["type"] = "integer"
	}
	if f.Nullable {
		o["type"] = []string{o["type"].(string), "null"}
	}
	if f.Above {
		o["exclusiveMinimum"] = f.Min
	} else {
		o["minimum"] = f.Min
	}
	if f.Max != 0 {
		o["maximum"] = f.Max
	}
	return merge(o, clone(f.Doc))
}

// bound writes a bound as the document does: 100, not 1e+02.
func bound(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// dateField is a calendar date, YYYY-MM-DD, of the ledger's calendar; Note says what
// else the schema's description does (a default).
type dateField struct {
	Name     string
	Nullable bool
	Note     string
}

func (f dateField) key() string    { return f.Name }
func (f dateField) nullable() bool { return f.Nullable }

func (f dateField) read(b *body) domain.Nullable[domain.Date] { return b.date(f.Name) }

func (f dateField) schema() obj {
	if f.Nullable {
		return ndateIn(f.Note)
	}
	return dateIn(f.Note)
}

// todayNote is the default of a movement's date.
const todayNote = "default: today in America/Mexico_City"

// timestampField is an RFC 3339 date-time of the ledger's calendar.
type timestampField struct {
	Name     string
	Nullable bool
}

func (f timestampField) key() string    { return f.Name }
func (f timestampField) nullable() bool { return f.Nullable }

func (f timestampField) read(b *body) domain.Nullable[time.Time] { return b.timestamp(f.Name) }

func (f timestampField) schema() obj {
	if f.Nullable {
		return ndateTimeIn()
	}
	return dateTimeIn()
}

// idField is a record's id, a UUID.
type idField struct {
	Name     string
	Nullable bool
	Doc      obj
}

func (f idField) key() string    { return f.Name }
func (f idField) nullable() bool { return f.Nullable }

func (f idField) read(b *body) domain.Nullable[uuid.UUID] { return b.id(f.Name) }

func (f idField) schema() obj {
	o := uuidRef()
	if f.Nullable {
		o = nuuid()
	}
	return merge(o, clone(f.Doc))
}

// boolField is a boolean; Doc gives its default.
type boolField struct {
	Name string
	Doc  obj
}

func (f boolField) key() string    { return f.Name }
func (f boolField) nullable() bool { return false }

func (f boolField) read(b *body) domain.Nullable[bool] { return b.boolean(f.Name) }

func (f boolField) schema() obj { return merge(boolean(), clone(f.Doc)) }

// currencyField is an ISO 4217 code money may be kept in, read through currency.
type currencyField struct {
	Name     string
	Nullable bool
	Doc      obj
}

func (f currencyField) key() string    { return f.Name }
func (f currencyField) nullable() bool { return f.Nullable }

func (f currencyField) read(b *body) domain.Nullable[string] { return currency(b, f.Name) }

func (f currencyField) schema() obj {
	o := str(obj{"pattern": "^[A-Za-z]{3}$"})
	if f.Nullable {
		o["type"] = []string{"string", "null"}
	}
	return merge(o, clone(f.Doc))
}

// idsField is a list of 1 to Max different ids.
type idsField struct {
	Name string
	Max  int
}

func (f idsField) key() string    { return f.Name }
func (f idsField) nullable() bool { return false }

func (f idsField) read(b *body) []uuid.UUID { return b.ids(f.Name, f.Max) }

func (f idsField) schema() obj {
	return obj{"type": "array", "items": uuidRef(), "minItems": 1, "maxItems": f.Max}
}

// stringsField is a list of Min to Max strings, each one of Values. The schema states
// the values; the handler or the command refuses any other with words of its own.
type stringsField struct {
	Name     string
	Min, Max int
	Values   []string
	Doc      obj
}

func (f stringsField) key() string    { return f.Name }
func (f stringsField) nullable() bool { return false }

func (f stringsField) read(b *body) []string { return b.stringList(f.Name, f.Min, f.Max) }

func (f stringsField) schema() obj {
	return merge(obj{"type": "array", "items": str(obj{"enum": f.Values}), "minItems": f.Min, "maxItems": f.Max}, clone(f.Doc))
}

// objectField is a nested object, declared as a body of its own.
type objectField struct {
	Name string
	Body *bodyRule
}

func (f objectField) key() string    { return f.Name }
func (f objectField) nullable() bool { return false }

// read reads the object's fields with read, on a body checked by the object's
// declaration; it reports whether the field held an object.
func (f objectField) read(b *body, read func(*body)) bool { return b.object(f.Name, f.Body, read) }

func (f objectField) schema() obj { return f.Body.schema() }

// objectsField is a list of at most Max objects, each declared as Item.
type objectsField struct {
	Name string
	Max  int
	Item *bodyRule
	// Nullable documents that null clears the field.
	Nullable bool
	Doc      obj
}

func (f objectsField) key() string    { return f.Name }
func (f objectsField) nullable() bool { return f.Nullable }

func (f objectsField) schema() obj {
	o := obj{"type": "array", "maxItems": f.Max, "items": f.Item.schema()}
	if f.Nullable {
		o["type"] = []string{"array", "null"}
	}
	return merge(o, clone(f.Doc))
}

// readObjects reads each object of a list field by read, on a body of its own checked
// by the item's declaration; an object's errors are reported as "name[i].field". It
// returns what read made of the objects that had none.
func readObjects[T any](b *body, f objectsField, read func(*body) T) []T {
	var raw []json.RawMessage
	if _, valid := b.value(f.Name, &raw, "an array of objects"); !valid {
		return nil
	}
	if len(raw) > f.Max {
		b.fail(f.Name, "must hold at most %d entries", f.Max)
		return nil
	}
	var out []T
	for i, item := range raw {
		ib, err := parseBody(item)
		if err != nil {
			b.fail(fmt.Sprintf("%s[%d]", f.Name, i), "must be an object")
			continue
		}
		ib.rule = f.Item
		v := read(ib)
		if ib.finish() != nil {
			for _, e := range ib.errs {
				b.fail(fmt.Sprintf("%s[%d].%s", f.Name, i, e.Field), "%s", e.Message)
			}
			continue
		}
		out = append(out, v)
	}
	return out
}

// amountOrTextField is a positive amount given as a JSON number or as a string holding
// one ("12.50"), for systems that cannot send numbers.
type amountOrTextField struct{ Name string }

func (f amountOrTextField) key() string    { return f.Name }
func (f amountOrTextField) nullable() bool { return false }

func (f amountOrTextField) read(b *body) domain.Nullable[decimal.Decimal] {
	return b.amountOrText(f.Name)
}

func (f amountOrTextField) schema() obj {
	return obj{"oneOf": []obj{amountField{Positive: true}.schema(), str(obj{"minLength": 1, "description": "the amount as text, such as \"12.50\""})},
		"description": "a positive amount, as a number or a string"}
}

// balanceField is a balance as a statement states it: a signed amount, as a JSON number
// or as a string holding one ("-1234.56"), read exactly with its scale.
type balanceField struct {
	Name string
	Doc  obj
}

func (f balanceField) key() string    { return f.Name }
func (f balanceField) nullable() bool { return false }

func (f balanceField) read(b *body) domain.Nullable[decimal.Decimal] { return b.balance(f.Name) }

func (f balanceField) schema() obj {
	return merge(obj{"oneOf": []obj{num(clone(money)), str(obj{"pattern": signedDecimalText.String(),
		"description": "the amount as text, such as \"-1234.56\""})}}, clone(f.Doc))
}

// bodyRule is a request body declared once: its fields by their rules, those it
// requires, the fields it requires given another's value, and what else its schema
// says (a description).
type bodyRule struct {
	Fields   []field
	Required []string
	When     []requiredWhen
	Doc      obj
}

// requiredWhen requires one of Then, aliases of one field, when the field If holds
// one of In. The refusal names Field and says Message, where %s stands for If's value.
// The conditions of one body are on one field, with values apart: the schema chains
// them as if, then, else.
type requiredWhen struct {
	If      string
	In      []string
	Then    []string
	Field   string
	Message string
}

// propsOf is the schemas of fields, as the properties of an object schema.
func propsOf(fields []field) obj {
	props := obj{}
	for _, f := range fields {
		props[f.key()] = f.schema()
	}
	return props
}

// schema is the body's request schema: closed, with its required fields and its
// conditions.
func (d *bodyRule) schema() obj {
	o := input(propsOf(d.Fields), d.Required...)
	at := o
	for i, c := range d.When {
		if i > 0 {
			if c.If != d.When[0].If {
				panic("httpapi: the conditions of a body must be on one field")
			}
			next := obj{"type": "object"}
			at["else"], at = next, next
		}
		value := obj{"enum": c.In}
		if len(c.In) == 1 {
			value = obj{"const": c.In[0]}
		}
		at["if"] = object(obj{c.If: value}, c.If)
		var given []obj
		for _, name := range c.Then {
			given = append(given, object(obj{name: d.given(name)}, name))
		}
		if len(given) == 1 {
			at["then"] = given[0]
		} else {
			at["then"] = obj{"anyOf": given}
		}
	}
	return merge(o, clone(d.Doc))
}

// given is the schema of a field a condition requires: its own, less null and the
// words.
func (d *bodyRule) given(name string) obj {
	for _, f := range d.Fields {
		if f.key() != name {
			continue
		}
		s := without(f.schema(), "description", "default")
		if types, ok := s["type"].([]string); ok {
			s["type"] = types[0]
		}
		return s
	}
	panic("httpapi: a condition requires " + name + ", which its body does not declare")
}

// check reports what the declaration refuses of a body once its fields are read: a
// required field missing or null, null for a field that takes none, a condition unmet.
func (d *bodyRule) check(b *body) {
	for _, f := range d.Fields {
		name := f.key()
		raw, given := b.fields[name]
		null := given && string(raw) == "null"
		switch {
		case b.failed(name):
		case slices.Contains(d.Required, name) && (!given || null):
			b.fail(name, "is required")
		case null && !f.nullable():
			b.fail(name, "cannot be null")
		}
	}
	for _, c := range d.When {
		var v string
		if json.Unmarshal(b.fields[c.If], &v) != nil || !slices.Contains(c.In, v) {
			continue
		}
		if !slices.ContainsFunc(c.Then, func(name string) bool {
			raw, given := b.fields[name]
			return given && string(raw) != "null" || b.failed(name)
		}) && !b.failed(c.Field) {
			b.fail(c.Field, "%s", strings.ReplaceAll(c.Message, "%s", v))
		}
	}
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

	transactionConcept     = textField{Name: "concept", Text: domain.ConceptText, Nullable: true}
	transactionDescription = textField{Name: "description", Text: domain.DescriptionText, Nullable: true}
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
	apiKeyWrites      = textField{Name: "writes", Enum: domain.KeyWrites, Doc: obj{"default": domain.KeyWritesApply,
		"description": "propose: the key's writes are held as proposals a person approves or rejects (GET /api/proposals)"}}

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

// The other fields of the request bodies, by body, declared as the text fields are.
var (
	walletCurrency  = currencyField{Name: "currency", Doc: obj{"default": domain.DefaultCurrency}}
	walletBalance   = amountField{Name: "balance", Doc: obj{"default": 0, "description": "initial balance; changing it moves the current balance by the difference"}}
	walletIsDefault = boolField{Name: "isDefault", Doc: obj{"default": false}}

	categoryIsDefault = boolField{Name: "isDefault", Doc: obj{"default": false}}
	recordTag         = idField{Name: "tagId", Nullable: true}

	transactionAmount   = amountField{Name: "amount", Positive: true}
	transactionDate     = dateField{Name: "date", Note: todayNote}
	transactionCategory = idField{Name: "categoryId", Nullable: true}
	// transactionSplits are a split transaction's parts (domain/splits.go).
	splitAmount       = amountField{Name: "amount", Positive: true}
	splitCurrency     = currencyField{Name: "currency", Doc: obj{"description": "the transaction's, which is the default: a part in another is refused"}}
	transactionSplits = objectsField{Name: "splits", Max: domain.MaxSplitParts, Nullable: true, Item: &bodyRule{
		Fields:   []field{splitAmount, splitCurrency, transactionCategory, recordTag, transactionConcept},
		Required: []string{"amount"}},
		Doc: obj{"description": "an income's or an expense's amount shared among parts, each with its own category, tag and " +
			"concept, adding up exactly to the amount: at least two parts; the transaction then has no categoryId. In a " +
			"correction, the parts whole; null makes the transaction one category again"}}
	transactionWallet      = idField{Name: "walletId", Nullable: true, Doc: obj{"description": "default: the default-flagged wallet"}}
	transactionToWallet    = idField{Name: "toWalletId", Nullable: true}
	transactionDestination = idField{Name: "destinationWalletId", Nullable: true, Doc: obj{"description": "alias of toWalletId"}}
	transactionDestAmount  = amountField{Name: "destinationAmount", Positive: true, Nullable: true,
		Doc: obj{"description": "amount credited to the destination of a transfer between currencies (required then); within one currency absent or equal to amount"}}
	transactionCleared = boolField{Name: "cleared", Doc: obj{"default": false,
		"description": "seen on the wallet's statement; a mark that moves no money, and the one change a goal movement takes"}}
	transactionGoal = idField{Name: "goalId", Nullable: true, Doc: obj{"description": "required for goal_deposit and goal_withdrawal"}}
	transactionDebt = idField{Name: "debtId", Nullable: true}
	bulkIDs         = idsField{Name: "ids", Max: maxBulkIDs}
	bulkCategory    = idField{Name: "categoryId", Doc: obj{"description": "required for recategorize"}}
	bulkReconciled  = boolField{Name: "allowReconciled", Doc: obj{"default": false,
		"description": "change reconciled transactions too (they keep their mark); without it, a list holding one is refused " +
			"with 409 TRANSACTION_RECONCILED and nothing changes"}}

	reconcileBalance = balanceField{Name: "balance", Doc: obj{"description": "the statement's balance on date, exact, " +
		"at most 4 decimal places; may be negative"}}
	reconcileDate   = dateField{Name: "date", Note: "the statement's date: transactions dated on or before it are reconciled"}
	reconcileAdjust = boolField{Name: "adjust", Doc: obj{"default": false,
		"description": "book a difference between the statement and the ledger as one cleared adjustment transaction"}}

	profileCurrency      = currencyField{Name: "currency", Nullable: true}
	profileNotifications = boolField{Name: "notificationsEnabled"}
	profileOnboarded     = boolField{Name: "hasCompletedOnboarding"}

	recordCurrency = currencyField{Name: "currency", Doc: obj{"description": "default: the workspace's"}}
	budgetCategory = idField{Name: "categoryId"}
	budgetAmount   = amountField{Name: "amount"}
	budgetStart    = dateField{Name: "startDate"}
	budgetEnd      = dateField{Name: "endDate"}
	budgetAlert    = numberField{Name: "alertThreshold", Min: 1, Max: 100,
		Doc: obj{"default": 80, "description": "percent of the amount spent at which the budget alerts, at most 2 decimal places"}}

	goalTarget   = amountField{Name: "targetAmount", Positive: true}
	goalDeadline = dateField{Name: "deadline", Nullable: true}

	debtTotal   = amountField{Name: "totalAmount", Positive: true}
	debtPending = amountField{Name: "pendingBalance", Doc: obj{"description": "default: totalAmount"}}
	debtDue     = dateField{Name: "dueDate", Nullable: true}

	recurringAmount   = amountField{Name: "amount", Positive: true}
	recurringNext     = dateField{Name: "nextPayment"}
	recurringActive   = boolField{Name: "active", Doc: obj{"default": true}}
	recurringWallet   = idField{Name: "walletId", Nullable: true}
	recurringCategory = idField{Name: "categoryId", Nullable: true}

	movementAmount   = amountField{Name: "amount", Positive: true}
	movementDate     = dateField{Name: "date", Note: todayNote}
	depositWallet    = idField{Name: "walletId"}
	withdrawalWallet = idField{Name: "walletId", Nullable: true, Doc: obj{"description": "without it, the amount is split among the wallets that funded the goal"}}
	paymentWallet    = idField{Name: "walletId", Nullable: true, Doc: obj{"description": "default: the default-flagged wallet, else the oldest"}}
	paymentDate      = dateField{Name: "date"}

	ratesDate = dateField{Name: "date", Note: todayNote}
	rateBase  = currencyField{Name: "base"}
	rateQuote = currencyField{Name: "quote"}
	rateValue = numberField{Name: "rate", Above: true, Decided: true}
	ratesList = objectsField{Name: "rates", Max: 200, Item: &bodyRule{Fields: []field{rateBase, rateQuote, rateValue}, Required: []string{"base", "quote", "rate"}}}

	workspaceCurrency = currencyField{Name: "currency", Doc: obj{"default": domain.DefaultCurrency}}

	apiKeyScopes = stringsField{Name: "scopes", Min: 1, Max: len(domain.Scopes), Values: domain.Scopes,
		Doc: obj{"description": "the key holds those of these scopes that its creator's role grants as it is made (* of an owner or admin: " +
			"every scope), and of them, at each request, what that role grants then: a later promotion never widens it; " +
			"the reserved scopes (see the document's description) are accepted and open no operation yet"}}
	apiKeyExpiresAt = timestampField{Name: "expiresAt", Nullable: true}

	channelAmount         = amountField{Name: "amount", Positive: true}
	channelCurrency       = currencyField{Name: "currency", Doc: obj{"description": "must be the wallet's"}}
	channelCurrencyChange = currencyField{Name: "currency", Doc: obj{"description": "only with amount"}}
	channelDate           = dateField{Name: "date", Note: todayNote}
	channelDateChange     = dateField{Name: "date"}

	pushKeysP256dh = textField{Name: "p256dh", Text: domain.Text{Min: 1, Max: 100}, Raw: true,
		Doc: obj{"description": "base64url of the 65-byte uncompressed P-256 public key (first byte 0x04)"}}
	pushKeysAuth = textField{Name: "auth", Text: domain.Text{Min: 1, Max: 100}, Raw: true,
		Doc: obj{"description": "base64url of the 16-byte authentication secret"}}
	pushKeys       = objectField{Name: "keys", Body: &bodyRule{Fields: []field{pushKeysP256dh, pushKeysAuth}, Required: []string{"p256dh", "auth"}}}
	pushExpiration = numberField{Name: "expirationTime", Max: maxPushExpiration, Nullable: true,
		Doc: obj{"description": "milliseconds since 1970-01-01 (UTC)"}}

	webhookEvents = stringsField{Name: "events", Min: 1, Max: len(domain.HookEvents) + 1, Values: slices.Concat([]string{domain.HookAll}, domain.HookEvents),
		Doc: obj{"description": "event names; \"*\" is every event"}}
	webhookActive = boolField{Name: "active"}

	importProfileName   = textField{Name: "name", Text: domain.Text{Min: 1, Max: maxRecordName}}
	importProfileWallet = idField{Name: "walletId", Nullable: true, Doc: obj{"description": "the wallet the profile is for; null for any"}}
	// importMapping is a bank CSV's mapping (domain.ImportMapping): its columns' numbers
	// and the file's options, each field's limits as the domain's. The rules between
	// fields (an amount column or debit and credit columns, no column twice) are the
	// domain's (ImportMapping.Check), which the commands and importMappingOf apply.
	importMapping = objectField{Name: "mapping", Body: &bodyRule{
		Fields: append(importMappingColumns(), importMappingOptions...),
		// The date's column is the one every mapping names; the domain says so too.
		Required: []string{"date"},
		Doc: obj{"description": "which column of the CSV holds what, counted from 1 as a spreadsheet shows them (0: none), and how the " +
			"file is written (\"\": found from the file). A date column, and an amount column or debit and credit columns (either " +
			"or both), not both kinds; no column named twice"}}}
	importDelimiter        = regexp.MustCompile(`^[,;\t|]?$`)
	importDecimalSeparator = regexp.MustCompile(`^[.,]?$`)
	importMappingOptions   = []field{
		textField{Name: "dateOrder", Enum: domain.ImportDateOrders, Doc: obj{"description": "the order of day and month in dates written with numbers only"}},
		// Patterns, not enums, state the separators and delimiters: punctuation and a tab
		// in an enum are more than some clients' generators take (they name the values).
		textField{Name: "decimalSeparator", Text: domain.Text{Max: 1}, Raw: true, Pattern: importDecimalSeparator,
			PatternRule: `one of "", "." and ","`},
		textField{Name: "delimiter", Text: domain.Text{Max: 1}, Raw: true, Pattern: importDelimiter,
			PatternRule: `one of "", ",", ";", "\t" (a tab) and "|"`},
		textField{Name: "encoding", Enum: domain.ImportEncodings},
		textField{Name: "header", Enum: domain.ImportHeaders, Doc: obj{"description": "whether the first row names the columns"}},
	}

	incomingAmount   = amountOrTextField{Name: "amount"}
	incomingDate     = dateField{Name: "date"}
	incomingWallet   = idField{Name: "walletId"}
	incomingCategory = idField{Name: "categoryId"}
	incomingToWallet = idField{Name: "toWalletId", Doc: obj{"description": "the destination of a transfer"}}
)

// The fields a record's create and update bodies share.
var (
	walletRules = []field{walletName, walletDescription, walletType, walletCurrency, walletCardColor, walletBalance,
		walletClabe, walletProvider, walletIsDefault}
	categoryRules    = []field{categoryName, categoryIcon, categoryDescription, categoryColor, categoryIsDefault, recordTag}
	tagRules         = []field{tagName, tagColor}
	transactionRules = []field{transactionAmount, transactionDate, transactionConcept, transactionDescription, transactionCategory,
		transactionWallet, transactionToWallet, transactionDestination, transactionDestAmount, recordTag, transactionReference,
		transactionAttachment, transactionCleared, transactionSplits}
	profileRules = []field{profileFirstName, profileLastName, profileCurrency, profileLanguage, profileTheme,
		profileNotifications, profileOnboarded}
	budgetRules = []field{recordName, budgetCategory, budgetAmount, recordCurrency, budgetPeriod, budgetStart, budgetEnd,
		budgetAlert, recordTag}
	goalRules      = []field{recordName, goalTarget, recordCurrency, goalDeadline}
	debtRules      = []field{recordName, debtCreditor, debtTotal, debtPending, recordCurrency, debtDue}
	recurringRules = []field{recordName, recurringAmount, recurringKind, recurringPeriodicity, recurringNext, recurringActive,
		recurringWallet, recurringCategory}
)

// replaced returns fields with those of the same name as one of by replaced by it: the
// same field under another rule in one body.
func replaced(fields []field, by ...field) []field {
	out := slices.Clone(fields)
	for i, f := range out {
		for _, r := range by {
			if f.key() == r.key() {
				out[i] = r
			}
		}
	}
	return out
}

// bodyRules are the request bodies by their names in the document's
// components/requestBodies, which routes name (route.Request).
var bodyRules = map[string]*bodyRule{
	"WalletCreate":   {Fields: walletRules, Required: []string{"name"}},
	"WalletUpdate":   {Fields: walletRules},
	"CategoryCreate": {Fields: categoryRules, Required: []string{"name"}},
	"CategoryUpdate": {Fields: categoryRules},
	"TagCreate":      {Fields: tagRules, Required: []string{"name"}},
	"TagUpdate":      {Fields: tagRules},
	"TransactionCreate": {
		Fields:   append(slices.Clone(transactionRules), transactionType, transactionGoal, transactionDebt),
		Required: []string{"type", "amount"},
		// The rules that depend on the type (spec 2.3, shape B): a transfer names its
		// destination, a goal movement its goal; in the command's words.
		When: []requiredWhen{
			{If: "type", In: enum(domain.TxTransfer), Then: []string{"toWalletId", "destinationWalletId"},
				Field: "destinationWalletId", Message: "is required for a %s"},
			{If: "type", In: enum(domain.TxGoalDeposit, domain.TxGoalWithdrawal), Then: []string{"goalId"},
				Field: "goalId", Message: "is required for a %s"},
		},
		Doc: obj{"description": "Both body shapes of spec 2.3 are accepted. Shape B (amount, type income, expense or transfer, " +
			"walletId, destinationWalletId, categoryId, description, date) is a subset of this one. A transfer needs toWalletId or its " +
			"alias destinationWalletId; goal_deposit and goal_withdrawal need goalId (a deposit also a wallet); categoryId is optional."},
	},
	"TransactionUpdate": {Fields: replaced(transactionRules, dateField{Name: "date"}, idField{Name: "walletId"})},
	"TransactionBulk": {Fields: []field{bulkIDs, bulkOperation, bulkCategory, bulkReconciled}, Required: []string{"ids", "operation"},
		When: []requiredWhen{{If: "operation", In: []string{domain.BulkRecategorize}, Then: []string{"categoryId"}, Field: "categoryId", Message: "is required"}}},
	"RuleCreate":      {Fields: []field{ruleName, rulePosition, ruleConditions, ruleActions}, Required: []string{"name", "conditions", "actions"}},
	"RuleUpdate":      {Fields: []field{ruleName, rulePosition, ruleConditions, ruleActions}},
	"RuleApply":       {Fields: []field{ruleDryRun, ruleIDs, ruleWallet, ruleFrom, ruleTo}},
	"ImportRowUpdate": {Fields: []field{importDecision, importRowType, importToWallet, transactionConcept, transactionCategory, recordTag, importMergeWith}},
	"WalletReconcile": {Fields: []field{reconcileBalance, reconcileDate, reconcileAdjust}, Required: []string{"balance", "date"}},
	"ProfileUpdate":   {Fields: profileRules},
	"WorkspaceCreate": {Fields: []field{recordName, workspaceCurrency, workspaceLanguage}, Required: []string{"name"}},
	"MemberAdd":       {Fields: []field{memberEmail, memberRole}, Required: []string{"email", "role"}},
	"MemberUpdate":    {Fields: []field{memberRole}, Required: []string{"role"}},
	"APIKeyCreate": {Fields: []field{apiKeyName, apiKeyDescription, apiKeyScopes, apiKeyExpiresAt, apiKeyWrites},
		Required: []string{"name", "scopes"}},
	"AgentUndoRequest": {Fields: []field{agentUndoSince}, Required: []string{"since"}},
	"BudgetCreate":     {Fields: budgetRules, Required: []string{"name", "categoryId", "amount", "startDate", "endDate"}},
	"BudgetUpdate":     {Fields: budgetRules},
	"GoalCreate":       {Fields: goalRules, Required: []string{"name", "targetAmount"}},
	"GoalUpdate":       {Fields: goalRules},
	"GoalDeposit":      {Fields: []field{movementAmount, depositWallet, movementNote, movementDate}, Required: []string{"amount", "walletId"}},
	"GoalWithdrawal":   {Fields: []field{movementAmount, withdrawalWallet, movementNote, movementDate}, Required: []string{"amount"}},
	"DebtCreate":       {Fields: debtRules, Required: []string{"name", "totalAmount"}},
	"DebtUpdate":       {Fields: debtRules},
	"DebtPayment":      {Fields: []field{movementAmount, paymentWallet, paymentDate, movementNote}, Required: []string{"amount"}},
	"RecurringCreate":  {Fields: recurringRules, Required: []string{"name", "amount", "kind", "periodicity", "nextPayment"}},
	"RecurringUpdate":  {Fields: recurringRules},
	"RecurringPay":     {Fields: []field{movementDate}},
	"ExchangeRatesSet": {Fields: []field{ratesDate, ratesList}, Required: []string{"rates"}},
	"LinkRequest":      {Fields: []field{linkCode}, Required: []string{"code"}},
	"ChannelTransactionCreate": {Fields: []field{channelType, channelAmount, channelCurrency, channelConcept,
		channelWalletName.withDoc(obj{"description": "matched ignoring accents and case; default: the first active wallet"}),
		channelCategoryName.withDoc(obj{"description": "matched ignoring accents and case; default: the first active category"}),
		channelDate}, Required: []string{"type", "amount"}},
	"ChannelTransactionUpdate": {Fields: []field{channelAmount, channelCurrencyChange, channelConcept, channelWalletName,
		channelCategoryName, channelDateChange}},
	"ChannelWorkspaceSet": {Fields: []field{channelWorkspaceName}, Required: []string{"name"}},
	"PushSubscribe": {Fields: []field{pushEndpointField.withDoc(obj{"description": "the push service's absolute https URL"}), pushKeys, pushExpiration},
		Required: []string{"endpoint", "keys"}},
	"PushUnsubscribe": {Fields: []field{pushEndpointField}, Required: []string{"endpoint"}},
	"WebhookCreate": {Fields: []field{recordName, webhookURLField, stringsField{Name: webhookEvents.Name, Min: webhookEvents.Min, Max: webhookEvents.Max,
		Values: webhookEvents.Values, Doc: merge(clone(webhookEvents.Doc), obj{"default": []string{domain.HookAll}})}},
		Required: []string{"name", "url"}},
	"WebhookUpdate":     {Fields: []field{recordName, webhookURLField, webhookEvents, webhookActive}},
	"ImportProfileSave": {Fields: []field{importProfileName, importProfileWallet, importMapping}, Required: []string{"name", "mapping"}},
	"IncomingTransaction": {Fields: []field{incomingAmount, incomingConcept, incomingType, incomingDescription, incomingDate,
		incomingWallet, channelWalletName, incomingCategory, channelCategoryName, incomingToWallet},
		Required: []string{"amount", "concept"},
		When:     []requiredWhen{{If: "type", In: enum(domain.TxTransfer), Then: []string{"toWalletId"}, Field: "toWalletId", Message: "is required"}}},
}

// read reads the string field from the body by its rule.
func (f textField) read(b *body) domain.Nullable[string] {
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
