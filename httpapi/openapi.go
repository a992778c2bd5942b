package httpapi

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/queries"
	"github.com/finledger/finledger/webapp"
)

// APIVersion is the version of the API the OpenAPI document describes.
const APIVersion = "1.0.0"

type obj = map[string]any

// Query parameters shared by several operations.
func queryParam(name string, schema obj, description string) obj {
	p := obj{"name": name, "in": "query", "schema": schema}
	if description != "" {
		p["description"] = description
	}
	return p
}

func integer(minimum, maximum, def int) obj {
	return obj{"type": "integer", "minimum": minimum, "maximum": maximum, "default": def}
}

var (
	pageParam            = queryParam("page", integer(1, 1_000_000, 1), "page number, from 1")
	pageSizeParam        = queryParam("pageSize", integer(1, maxPageSize, defaultPageSize), "entries per page")
	fromDateParam        = queryParam("from", dateIn(""), "first day, YYYY-MM-DD")
	toDateParam          = queryParam("to", dateIn(""), "last day, YYYY-MM-DD; not before from")
	walletIDParam        = queryParam("walletId", uuidRef(), "only this wallet's")
	categoryIDParm       = queryParam("categoryId", uuidRef(), "only this category's")
	allowReconciledParam = queryParam("allowReconciled", merge(boolean(), obj{"default": false}),
		"change a transaction reconciled with a bank statement anyway (it keeps its mark); without it such a change is "+
			"refused with 409 TRANSACTION_RECONCILED, marking it cleared alone excepted")
	asOfParam = queryParam("asOf", dateTimeIn(),
		"answer as the workspace's history stood at this instant (RFC 3339), not in the future: its stream up to the "+
			"event recorded last at or before it; business days are those of that instant")
)

func str(extra obj) obj  { return merge(obj{"type": "string"}, extra) }
func nstr(extra obj) obj { return merge(obj{"type": []string{"string", "null"}}, extra) }
func uuidRef() obj       { return obj{"type": "string", "format": "uuid"} }
func nuuid() obj         { return obj{"type": []string{"string", "null"}, "format": "uuid"} }
func num(extra obj) obj  { return merge(obj{"type": "number"}, extra) }
func boolean() obj       { return obj{"type": "boolean"} }
func ref(name string) obj {
	return obj{"$ref": "#/components/schemas/" + name}
}
func object(props obj, required ...string) obj {
	o := obj{"type": "object", "properties": props}
	if len(required) > 0 {
		o["required"] = required
	}
	return o
}

// splitPartSchema is one part of a split transaction (domain/splits.go).
func splitPartSchema() obj {
	return record(obj{"amount": num(money), "currency": str(nil), "categoryId": nuuid(), "tagId": nuuid(), "concept": nstr(nil)})
}

// record is an object of an answer: the server always sends every one of its fields,
// those without a value as null.
func record(props obj) obj {
	return object(props, slices.Sorted(maps.Keys(props))...)
}

// input is a request body object: unknown fields are refused, so it is closed.
func input(props obj, required ...string) obj {
	o := object(props, required...)
	o["additionalProperties"] = false
	return o
}

// paginationSchema is the pagination object of listings.
func paginationSchema() obj {
	return record(obj{"limit": obj{"type": "integer"}, "offset": obj{"type": "integer"}, "total": obj{"type": "integer"}})
}

func wrap(name, schema string) obj { return object(obj{name: ref(schema)}, name) }
func list(name, schema string) obj {
	return object(obj{name: obj{"type": "array", "items": ref(schema)}}, name)
}
func merge(a, b obj) obj {
	for k, v := range b {
		a[k] = v
	}
	return a
}

// without returns a copy of o less some keys.
func without(o obj, keys ...string) obj {
	out := clone(o)
	for _, k := range keys {
		delete(out, k)
	}
	return out
}

var (
	colorRule = obj{"pattern": "^#[0-9a-fA-F]{6}$"}
	money     = obj{"description": "exact decimal, at most 4 decimal places"}
)

func positive() obj { return num(merge(obj{"exclusiveMinimum": 0}, money)) }
func dateTime() obj { return str(obj{"format": "date-time"}) }

// Dates and date-times the API takes in: the ledger's calendar bounds them (body.go),
// said in the schema's description, ahead of which comes note when there is one.
func dateIn(note string) obj  { return str(obj{"format": "date", "description": withCalendar(note)}) }
func ndateIn(note string) obj { return nstr(obj{"format": "date", "description": withCalendar(note)}) }
func dateTimeIn() obj {
	return str(obj{"format": "date-time", "description": calendarBounds + " (UTC)"})
}
func ndateTimeIn() obj {
	return nstr(obj{"format": "date-time", "description": calendarBounds + " (UTC)"})
}
func withCalendar(note string) string {
	if note == "" {
		return calendarBounds
	}
	return note + "; " + calendarBounds
}

// recordKindSchema names the kinds of record the change feed carries.
func recordKindSchema() obj { return str(obj{"enum": queries.RecordKinds()}) }

// anyRecord is a record of any kind the change feed carries, or null.
func anyRecord(description string) obj {
	kinds := []obj{}
	for _, k := range []string{"Wallet", "Category", "Transaction", "BudgetRecord", "Goal", "Debt"} {
		kinds = append(kinds, ref(k))
	}
	return obj{"anyOf": append(kinds, obj{"type": "null"}), "description": description}
}

// Field sets shared by a record, its create body and its update body: the schemas of
// the fields the bodies declare (fields.go), which the records' schemas start from.
func walletFields() obj    { return propsOf(walletRules) }
func categoryFields() obj  { return propsOf(categoryRules) }
func profileFields() obj   { return propsOf(profileRules) }
func budgetFields() obj    { return propsOf(budgetRules) }
func goalFields() obj      { return propsOf(goalRules) }
func debtFields() obj      { return propsOf(debtRules) }
func recurringFields() obj { return propsOf(recurringRules) }

// requestSchemas are the request bodies, each the schema of its declaration
// (bodyRules). They live in components/requestBodies, not among the schemas:
// generators such as openapi-typescript make a field with a default required in a
// shared schema, which is right for answers and wrong for requests.
func requestSchemas() obj {
	out := obj{}
	for name, rule := range bodyRules {
		out[name] = rule.schema()
	}
	return out
}

func schemas() obj {
	stamps := obj{"createdAt": dateTime(), "updatedAt": dateTime()}
	date := str(obj{"format": "date"})
	ndate := nstr(obj{"format": "date"})
	withTransactions := func(name, schema string) obj {
		return object(obj{name: ref(schema), "transactions": obj{"type": "array", "items": ref("Transaction")}}, name, "transactions")
	}
	currencyTotal := record(obj{"currency": str(nil), "income": num(money), "expenses": num(money), "net": num(money)})
	totals := obj{"type": "array", "items": currencyTotal}
	rate := record(obj{"base": str(nil), "quote": str(nil), "rate": num(obj{"description": "1 base = rate quote"}), "date": date,
		"source": str(obj{"description": "manual, the ECB's feed (ecb), or the ECB's history shipped with the service (ecb-snapshot)"})})
	converted := obj{"anyOf": []obj{currencyTotal, {"type": "null"}},
		"description": "the totals in the workspace currency at today's rates; null when a currency has no rate in force (see missingRates)"}
	missingRates := obj{"type": "array", "description": "each conversion into the workspace currency with no rate in force (none, or only one older than 7 days: stale); " +
		"set one with PUT /api/exchange-rates or POST /api/exchange-rates/ecb",
		"items": record(obj{"from": str(nil), "to": str(nil), "lastKnown": obj{"anyOf": []obj{rate, {"type": "null"}},
			"description": "the latest rate known however old, dated by its oldest part (directly, inverted or across the euro); null when there never was one"}})}
	nmoney := obj{"type": []string{"number", "null"}, "description": "null when a currency has no rate in force (see missingRates)"}
	transaction := obj{
		"id": uuidRef(), "type": str(obj{"enum": enum(domain.TransactionTypes...)}), "amount": num(money), "currency": str(nil),
		"destinationAmount": obj{"type": []string{"number", "null"}}, "date": date,
		"concept": nstr(nil), "description": str(nil), "walletId": uuidRef(), "toWalletId": nuuid(),
		"destinationWalletId": nuuid(), "categoryId": nuuid(), "goalId": nuuid(), "debtId": nuuid(), "tagId": nuuid(),
		"referenceNumber": nstr(nil), "attachmentUrl": nstr(nil), "cleared": boolean(), "createdAt": dateTime(), "updatedAt": dateTime(),
		"importId": nuuid(), "externalId": nstr(obj{"description": "the id of the statement row the transaction was imported " +
			"from or linked to, as the bank gave it or, when it gave none, made from the row's content"}),
		"reconciled": merge(boolean(), obj{"description": "counted by a reconciliation with the wallet's statement: changes are " +
			"refused (409 TRANSACTION_RECONCILED) unless sent with allowReconciled"}),
		"splits": obj{"type": "array", "description": "the parts of a split income or expense, in order, adding up exactly to " +
			"the amount; empty when it is not split", "items": splitPartSchema()},
	}
	matchingParts := obj{"type": "array", "items": obj{"type": "integer", "minimum": 0}, "description": "in a listing or a " +
		"report filtered by categoryId: the positions (from 0) of the parts of a split transaction of that category; absent elsewhere"}
	errorBody := func(details obj) obj {
		return object(obj{"error": object(obj{
			"code":      str(obj{"description": "stable, machine-readable"}),
			"message":   str(obj{"description": "for people; may change"}),
			"details":   details,
			"requestId": str(obj{"description": "the X-Request-Id of the answer"}),
		}, "code", "message", "requestId")}, "error")
	}
	return obj{
		"Budget": record(merge(merge(budgetFields(), stamps), obj{"id": uuidRef(), "active": boolean(), "periodStart": date, "periodEnd": date,
			"spent": num(money), "remaining": num(money), "percentage": num(nil), "alertReached": boolean(),
			"period": str(obj{"enum": domain.Periods}), "currency": str(nil), "alertThreshold": num(nil)})),
		"BudgetRecord": record(merge(merge(budgetFields(), stamps), obj{"id": uuidRef(),
			"period": str(obj{"enum": domain.Periods}), "currency": str(nil), "alertThreshold": num(nil)})),
		"BudgetResponse": wrap("budget", "Budget"),
		"BudgetList":     list("budgets", "Budget"),
		"Goal": record(merge(merge(goalFields(), stamps), obj{"id": uuidRef(), "savedAmount": num(money), "currency": str(nil),
			"progress": num(obj{"description": "percent of the target, two decimals"}), "completed": boolean()})),
		"GoalResponse":       wrap("goal", "Goal"),
		"GoalList":           list("goals", "Goal"),
		"GoalMovementResult": withTransactions("goal", "Goal"),
		"Debt": record(merge(merge(debtFields(), stamps), obj{"id": uuidRef(), "paidAmount": num(money), "currency": str(nil),
			"pendingBalance": num(money)})),
		"DebtResponse":      wrap("debt", "Debt"),
		"DebtList":          list("debts", "Debt"),
		"DebtPaymentResult": withTransactions("debt", "Debt"),
		"Recurring": record(merge(merge(recurringFields(), stamps), obj{"id": uuidRef(), "lastPayment": ndate, "active": boolean(),
			"lastSkip": obj{"anyOf": []obj{record(obj{"cycles": obj{"type": "integer", "minimum": 1}, "firstDue": date, "lastDue": date}),
				{"type": "null"}}, "description": fmt.Sprintf("the latest run of cycles left unpaid, from firstDue to lastDue: an item owing "+
				"more than %d due cycles skips the oldest and pays the latest %[1]d; null when it never skipped any", domain.MaxOwedCycles)}})),
		"RecurringResponse":  wrap("recurring", "Recurring"),
		"RecurringList":      list("recurrent", "Recurring"),
		"RecurringPayResult": withTransactions("recurring", "Recurring"),
		"ReportLine": object(merge(clone(transaction), obj{"walletName": str(nil), "categoryName": nstr(nil), "matchingParts": matchingParts}),
			append(slices.Sorted(maps.Keys(transaction)), "categoryName", "walletName")...),
		"Report": object(obj{"report": record(obj{"workspace": str(nil), "from": date, "to": date,
			"totals":    totals,
			"converted": converted, "missingRates": missingRates,
			"byCategory":   obj{"type": "array", "items": record(obj{"categoryId": nuuid(), "name": str(nil), "currency": str(nil), "income": num(money), "expenses": num(money)})},
			"transactions": obj{"type": "array", "items": ref("ReportLine")}})},
			"report"),
		"AgentContext": record(obj{"workspace": ref("Workspace"),
			"currency": record(obj{"workspace": str(nil), "wallets": obj{"type": "array", "items": str(nil)}}),
			"wallets":  obj{"type": "array", "items": ref("Wallet")}, "categories": obj{"type": "array", "items": ref("Category")},
			"goals": obj{"type": "array", "items": ref("Goal")}, "budgets": obj{"type": "array", "items": ref("Budget")},
			"recentStats": record(obj{"from": date, "to": date, "days": obj{"type": "integer"}, "count": obj{"type": "integer"}, "totals": totals}),
			"generatedAt": dateTime()}),
		"LinkCode": record(obj{"code": str(obj{"pattern": "^[A-Z2-9]{8}$"}), "expiresAt": dateTime()}),
		"LinkStatus": object(obj{"linked": boolean(), "phone": str(obj{"description": "masked; present when linked"}),
			"status":      str(obj{"enum": []string{"active", "suspended"}, "description": "present when linked"}),
			"workspaceId": uuidRef(), "workspaceName": str(obj{"description": "present while the link's workspace exists"}),
			"linkedAt": dateTime(), "lastTransactionAt": nstr(obj{"format": "date-time"})}, "linked"),
		"LinkResult": object(obj{"linked": boolean(), "workspaceName": str(nil),
			"alreadyLinked": obj{"type": "boolean", "description": "present, true, when the same code came again from the same number"}},
			"linked", "workspaceName"),
		"ChannelTransactionResult": object(obj{"transaction": ref("Transaction"), "resolved": object(obj{"workspaceName": str(nil),
			"walletName": str(nil), "categoryName": nstr(nil),
			"budgetWarning": str(obj{"description": "present when the expense leaves a budget of its category exceeded, in the period holding the expense's date"})},
			"workspaceName", "walletName", "categoryName")},
			"transaction", "resolved"),
		"UndoResult": object(obj{"ok": boolean(), "transaction": ref("Transaction"), "wallet": ref("Wallet")}, "ok", "transaction", "wallet"),
		"ChannelWorkspaces": object(obj{"workspaces": obj{"type": "array", "items": record(obj{"id": uuidRef(), "name": str(nil),
			"type": str(obj{"enum": []string{"personal", "team"}}), "role": str(obj{"enum": roleNames}), "currency": str(nil),
			"active": obj{"type": "boolean", "description": "the channel's workspace"}})}}, "workspaces"),
		"MonthlySummary": record(obj{"month": str(obj{"pattern": "^[0-9]{4}-[0-9]{2}$"}), "currency": str(nil), "totalIncome": nmoney,
			"totalExpenses": nmoney, "byCurrency": totals, "missingRates": missingRates, "topCategories": obj{"type": "array", "maxItems": 3, "items": record(obj{"categoryId": uuidRef(),
				"name": str(nil), "currency": str(nil), "total": num(money)})},
			"comparison": record(obj{"previousIncome": nmoney, "previousExpenses": nmoney,
				"percentageChange": obj{"type": []string{"number", "null"}, "description": "change of expenses in percent, two decimals; null without expenses the month before, or without a rate for a currency"}})}),
		"ReportSummary": record(obj{"from": date, "to": date, "currency": str(obj{"description": "the workspace's: the charts' one scale"}),
			"totals": totals, "converted": converted, "missingRates": missingRates,
			"expenses": record(obj{"currency": str(nil),
				"bars": obj{"type": "array", "maxItems": queries.ChartBars, "description": "largest first; with more categories, the last is Other, holding the smallest",
					"items": record(obj{"categoryId": nuuid(), "name": str(nil), "amount": num(money),
						"holds": obj{"type": "array", "description": "Other's categories; empty for a category",
							"items": record(obj{"categoryId": nuuid(), "name": str(nil), "amount": num(money), "holds": obj{"type": "array", "maxItems": 0}})}})},
				"unconverted": obj{"type": "array", "description": "expenses with no rate to currency, per currency: not drawn",
					"items": record(obj{"currency": str(nil), "amount": num(money)})}}),
			"months": record(obj{"currency": str(nil),
				"months": obj{"type": "array", "minItems": queries.SeriesMonths, "maxItems": queries.SeriesMonths, "description": "oldest first, the last the month of to",
					"items": record(obj{"month": str(obj{"pattern": "^[0-9]{4}-[0-9]{2}$"}), "income": num(money), "expenses": num(money)})},
				"unconverted": totals})}),
		"SpendingSummary": record(obj{"period": str(obj{"enum": append(slices.Clone(summaryPeriods), "custom")}), "from": date, "to": date,
			"type":   str(obj{"enum": enum(domain.TxExpense, domain.TxIncome)}),
			"totals": obj{"type": "array", "items": record(obj{"currency": str(nil), "total": str(obj{"description": "two decimals"})})}}),
		"ExchangeRates": record(obj{"date": date, "rates": obj{"type": "array", "items": rate},
			"missing": merge(clone(missingRates), obj{"description": "the conversions of the workspace's wallets' currencies into its own with no rate in force"})}),
		"PushSubscription": record(obj{"id": uuidRef(), "endpoint": str(obj{"format": "uri"}),
			"expirationTime": obj{"type": []string{"integer", "null"}, "description": "milliseconds since 1970-01-01 (UTC)"},
			"userAgent":      nstr(obj{"description": "the User-Agent of the last subscribe, to tell devices apart"}),
			"createdAt":      dateTime(), "updatedAt": dateTime()}),
		"PushSubscriptionResponse": wrap("subscription", "PushSubscription"),
		"PushSubscriptionList":     list("subscriptions", "PushSubscription"),
		"PushUnsubscribeResult":    object(obj{"removed": obj{"type": "boolean", "description": "whether the subscription existed"}}, "removed"),
		"Error":                    errorBody(ref("ErrorDetails")),
		"ValidationError": errorBody(obj{"description": "with VALIDATION_ERROR, one entry per bad field; other codes may carry an object",
			"anyOf": []obj{{"type": "array", "items": ref("FieldError")}, ref("ErrorDetails")}}),
		"ErrorDetails": object(obj{
			"reason": str(obj{"description": "why a credential was refused: WHATSAPP_IDENTITY_INVALID's reasons (spec 7); " +
				"the realtime stream's member_removed, role_changed, account_deleted or workspace_deleted"}),
			"suggestions":       obj{"type": "array", "items": str(nil), "description": "up to 5 names close to the one not found"},
			"available":         obj{"type": "array", "items": str(nil), "description": "WORKSPACE_NOT_FOUND: the names there are"},
			"candidates":        obj{"type": "array", "items": str(nil), "description": "CONFLICT: the names that matched"},
			"missing":           obj{"type": "array", "items": uuidRef(), "description": "TRANSACTION_NOT_FOUND of a bulk operation: the ids not found"},
			"reconciled":        obj{"type": "array", "items": uuidRef(), "description": "TRANSACTION_RECONCILED of a bulk operation: the reconciled ids"},
			"split":             obj{"type": "array", "items": uuidRef(), "description": "TRANSACTION_SPLIT of a bulk recategorisation: the split ids"},
			"retryAfterSeconds": obj{"type": "integer", "description": "as Retry-After"},
			"limit":             obj{"type": "integer", "description": "TOO_MANY_STREAMS, TOO_MANY_BULK_READS: the limit reached"},
			"columns":           obj{"type": "array", "items": str(nil), "description": "IMPORT_MAPPING_REQUIRED: the file's columns"},
			"samples": obj{"type": "array", "items": obj{"type": "array", "items": str(nil)},
				"description": "IMPORT_MAPPING_REQUIRED: the file's first rows"},
			"dates":          obj{"type": "array", "items": str(nil), "description": "IMPORT_DATE_ORDER_REQUIRED: dates as the file writes them"},
			"missingColumns": obj{"type": "array", "items": str(nil), "description": "IMPORT_MAPPING_REQUIRED: what no column says plainly (date, amount)"},
			"delimiter":      str(obj{"description": "IMPORT_MAPPING_REQUIRED: the delimiter found"}),
			"accounts":       obj{"type": "array", "items": str(nil), "description": "IMPORT_ACCOUNT_REQUIRED: the accounts the file holds"},
			"format":         str(obj{"description": "IMPORT_FILE_INVALID: the format the file was read as"}),
			"line":           obj{"type": "integer", "description": "IMPORT_FILE_INVALID: the line of the fault, 0 when it names an element"},
			"element":        str(obj{"description": "IMPORT_FILE_INVALID: the XML element of the fault, as a path"}),
			"externalIds":    obj{"type": "array", "items": str(nil), "description": "IMPORT_ROWS_ALREADY_IMPORTED: some of the rows' external ids"},
		}),
		"FieldError": record(obj{"field": str(obj{"description": "the field's name or path: name, keys.auth, rates[0].rate"}), "message": str(nil)}),
		"Wallet": record(merge(walletFields(), obj{
			"id": uuidRef(), "balance": num(money), "initialBalance": num(money), "archived": boolean(), "type": str(obj{"enum": domain.WalletTypes}),
			"currency": str(nil), "cardColor": str(colorRule), "isDefault": boolean(), "createdAt": dateTime(), "updatedAt": dateTime(),
			"reconciledThrough": nstr(obj{"format": "date", "description": "the date of the last statement the wallet was reconciled with; null before any"}),
			"reconciledBalance": obj{"type": []string{"number", "null"}, "description": "that statement's balance, exact; null before any"},
		})),
		"WalletResponse": wrap("wallet", "Wallet"),
		"Reconciliation": record(obj{"walletId": uuidRef(), "date": date,
			"statementBalance": str(obj{"description": "the statement's balance, exact decimal as text with its scale"}),
			"ledgerBalance": str(obj{"description": "the wallet's initial balance plus its live transactions dated on or before date " +
				"(the adjustment included), exact decimal as text"}),
			"difference": str(obj{"description": "statementBalance minus ledgerBalance, exact decimal as text"}),
			"reconciled": obj{"type": "integer", "minimum": 0, "description": "how many transactions this reconciliation marked reconciled"},
			"adjustment": obj{"anyOf": []obj{ref("Transaction"), {"type": "null"}}, "description": "the transaction booked for the difference (adjust), or null"}}),
		"ReconciliationResponse": wrap("reconciliation", "Reconciliation"),
		"WalletList":             list("wallets", "Wallet"),
		"Category": record(merge(categoryFields(), obj{
			"id": uuidRef(), "archived": boolean(), "icon": str(nil), "color": str(colorRule), "isDefault": boolean(),
			"createdAt": dateTime(), "updatedAt": dateTime(),
		})),
		"CategoryResponse": wrap("category", "Category"),
		"CategoryList":     list("categories", "Category"),
		"Tag": record(obj{"id": uuidRef(), "name": str(nil), "color": str(colorRule), "active": boolean(),
			"createdAt": dateTime(), "updatedAt": dateTime()}),
		"TagResponse": wrap("tag", "Tag"),
		"TagList":     list("tags", "Tag"),
		"Transaction": object(merge(clone(transaction), obj{"runningBalance": num(obj{"description": "exact decimal; in a listing " +
			"filtered by walletId: the wallet's balance after this transaction, counting every live transaction of the wallet dated before " +
			"it, or on its date and recorded before it, whatever else the filter leaves out; absent elsewhere"}),
			"matchingParts": matchingParts}), slices.Sorted(maps.Keys(transaction))...),
		"TransactionResponse": wrap("transaction", "Transaction"),
		"Attachment": record(obj{"id": uuidRef(), "transactionId": uuidRef(),
			"sha256":      str(obj{"pattern": "^[0-9a-f]{64}$", "description": "the file's SHA-256, hexadecimal: its content's name, which the history's event carries"}),
			"size":        obj{"type": "integer", "description": "bytes"},
			"contentType": str(obj{"enum": attachmentTypes()}), "fileName": nstr(nil), "createdAt": dateTime()}),
		"AttachmentResponse": wrap("attachment", "Attachment"),
		"AttachmentList":     list("attachments", "Attachment"),
		"Import":             importSchema(),
		"ImportResponse":     wrap("import", "Import"),
		"ImportList":         object(obj{"imports": obj{"type": "array", "items": ref("Import")}, "pagination": paginationSchema()}, "imports", "pagination"),
		"ImportRow":          importRowSchema(),
		// suggestedRule, when the category was changed: the rule that would have set it, to create with POST /api/rules.
		"ImportRowResponse": object(obj{"row": ref("ImportRow"), "suggestedRule": ref("RuleSuggestion")}, "row"),
		"Rule":              ruleSchema(),
		"RuleResponse":      wrap("rule", "Rule"),
		"RuleList":          list("rules", "Rule"),
		"RuleSuggestion": record(obj{"name": str(nil), "conditions": obj{"type": "array", "items": ruleConditionSchema()},
			"actions": ruleActionsSchema(), "transactions": obj{"type": "integer"}}),
		"RuleSuggestionList": list("suggestions", "RuleSuggestion"),
		"RuleApplyResult": record(obj{"dryRun": boolean(), "more": boolean(), "applied": obj{"type": "integer"},
			"changes": obj{"type": "array", "items": object(obj{"transactionId": uuidRef(), "ruleId": uuidRef(), "categoryId": uuidRef(),
				"tagId": uuidRef(), "concept": str(nil), "splits": obj{"type": "array", "items": splitPartSchema()}}, "transactionId", "ruleId")}}),
		"TransactionList": object(obj{
			"transactions": obj{"type": "array", "items": ref("Transaction")},
			"pagination":   paginationSchema(),
		}, "transactions", "pagination"),
		"BulkResult": record(obj{"ok": boolean(), "operation": str(obj{"enum": []string{domain.BulkDelete, domain.BulkRecategorize}}),
			"affected": obj{"type": "integer"}}),
		"OK": object(obj{"ok": obj{"type": "boolean", "const": true}}, "ok"),
		"ImportProfile": record(obj{"id": uuidRef(), "name": str(nil),
			"walletId": nuuid(), "mapping": importMappingSchema(), "createdAt": dateTime(), "updatedAt": dateTime()}),
		"ImportProfileResponse": wrap("profile", "ImportProfile"),
		"ImportProfileList":     list("profiles", "ImportProfile"),
		"User": record(merge(profileFields(), obj{"currency": nstr(nil), "id": uuidRef(), "email": str(nil), "name": nstr(nil),
			"personalWorkspaceId": uuidRef(), "createdAt": dateTime()})),
		"UserResponse": wrap("user", "User"),
		"Workspace": record(obj{"id": uuidRef(), "name": str(nil), "type": str(obj{"enum": []string{"personal", "team"}}),
			"currency": str(nil), "language": str(obj{"maxLength": maxLanguage}), "role": str(obj{"enum": roleNames}), "createdAt": dateTime(),
			"scopes": obj{"type": "array", "items": str(obj{"enum": domain.Scopes}),
				"description": "the scopes the caller's role holds in the workspace (\"*\": every scope); an API key may hold fewer"}}),
		"WorkspaceResponse": wrap("workspace", "Workspace"),
		"WorkspaceList":     list("workspaces", "Workspace"),
		"MeResponse":        object(obj{"user": ref("User"), "workspace": ref("Workspace")}, "user", "workspace"),
		"APIKey": record(obj{"id": uuidRef(), "name": str(nil), "description": nstr(nil), "scopes": obj{"type": "array", "items": str(nil)},
			"prefix": str(obj{"description": "the first characters of the key"}), "createdBy": uuidRef(),
			"createdAt": dateTime(), "lastUsedAt": nstr(obj{"format": "date-time"}),
			"expiresAt": nstr(obj{"format": "date-time"}), "revokedAt": nstr(obj{"format": "date-time"}),
			"writes": str(obj{"enum": domain.KeyWrites, "description": "propose: its writes are held for a person's approval"})}),
		"Proposal": record(obj{"id": uuidRef(), "keyId": uuidRef(),
			"route":   str(obj{"description": "the REST route of the write, such as POST /api/transactions"}),
			"path":    str(obj{"description": "the request's path and query"}),
			"body":    nstr(obj{"description": "the request's JSON body, as text; null for none"}),
			"summary": str(obj{"description": "what the write would do, as decided when it was sent, for a person"}),
			"status":  str(obj{"enum": domain.ProposalStatuses}), "createdAt": dateTime(), "expiresAt": dateTime(),
			"decidedAt": nstr(obj{"format": "date-time"}), "decidedBy": nuuid(), "settledAt": nstr(obj{"format": "date-time"}),
			"resultStatus": obj{"type": []string{"integer", "null"}, "description": "the HTTP status the approved request answered"},
			"errorCode":    nstr(nil), "errorMessage": nstr(nil)}),
		"ProposalResponse": wrap("proposal", "Proposal"),
		"ProposalList":     list("proposals", "Proposal"),
		"ProposalApproval": object(obj{"proposal": ref("Proposal"), "result": obj{"anyOf": proposalResults(),
			"description": "the approved request's own answer: its record, or its error"}}, "proposal", "result"),
		"APIKeyCreated": object(obj{"apiKey": ref("APIKey"), "plaintext": str(obj{"description": "the key itself, shown this once: " +
			"fl_live_ + 43 base62 characters + 6 characters of checksum; absent from an answer replayed for an Idempotency-Key"})}, "apiKey"),
		"APIKeyResponse": wrap("apiKey", "APIKey"),
		"APIKeyList":     list("apiKeys", "APIKey"),
		"AgentUndo": object(obj{
			"reversed": obj{"type": "array", "items": object(obj{"kind": str(obj{"enum": []string{"transaction", "budget"}}), "id": uuidRef(),
				"action": str(obj{"enum": []string{domain.UndoDeleted, domain.UndoRestored}})}, "kind", "id", "action")},
			"skipped": obj{"type": "array", "items": object(obj{"kind": str(obj{"description": "transaction, budget, or the first word of another record's event type"}),
				"id": uuidRef(), "reason": str(obj{"description": "CHANGED_SINCE, NOT_REVERSIBLE, UNCHANGED, UNDONE_ALREADY, or the code of the command's refusal"}),
				"message": str(nil)}, "kind", "id", "reason", "message")}}, "reversed", "skipped"),
		"Member": record(obj{"userId": nuuid(), "invitationId": nuuid(), "email": str(nil), "name": nstr(nil), "role": str(obj{"enum": roleNames}),
			"status": str(obj{"enum": []string{"active", "invited"}}), "joinedAt": dateTime()}),
		"MemberResponse": wrap("member", "Member"),
		"MemberList":     list("members", "Member"),
		"AuditEntry": record(obj{"id": uuidRef(), "entity": str(nil), "entityId": str(nil), "action": str(obj{"enum": auditActions}),
			"actorType": str(nil), "actorId": str(nil), "userAgent": nstr(nil), "requestId": nstr(nil),
			"occurredAt": dateTime(), "changes": obj{"type": "object", "description": "each changed field's values before and after",
				"additionalProperties": obj{"type": "object", "properties": obj{"before": obj{}, "after": obj{}}}}}),
		"ChainVerification": object(obj{
			"intact":   obj{"type": "boolean", "description": "every stored event's hash is the one recomputed from its predecessor's and its canonical text"},
			"checked":  obj{"type": "integer", "description": "events checked"},
			"brokenAt": obj{"type": []string{"integer", "null"}, "description": "the first version where the chain breaks; null when intact"},
			"head": object(obj{
				"version": obj{"type": "integer", "description": "the last event whose hash holds; 0 for a workspace without events"},
				"hash":    str(obj{"pattern": "^[0-9a-f]{64}$", "description": "its SHA-256, hexadecimal"}),
			}, "version", "hash"),
			"former": object(obj{
				"version": obj{"type": "integer", "description": "the version asked for with formerAt"},
				"hash": str(obj{"pattern": "^[0-9a-f]{64}$", "description": "the chain's hash there under the canonical text that held secrets, " +
					"recomputed from the events stored now; a head kept from before secrets were left out holds when it is this"}),
			}, "version", "hash"),
		}, "intact", "checked", "brokenAt", "head"),
		"ChangePage": record(obj{
			"changes": obj{"type": "array", "items": ref("Change")},
			"cursor":  str(obj{"pattern": "^[0-9]+$", "description": "where the next page starts; the version of the history the page brings a copy to"}),
			"more":    obj{"type": "boolean", "description": "the history goes on past cursor: ask again with it"},
		}),
		"Change": record(obj{
			"kind":    recordKindSchema(),
			"id":      uuidRef(),
			"version": obj{"type": "integer", "description": "the version of the history that last changed the record, up to the page's cursor"},
			"deleted": obj{"type": "boolean", "description": "the record is deleted; record is null"},
			"record":  anyRecord("the record as its own operations show it, at the page's cursor"),
		}),
		"ChangeDiff": record(obj{
			"from":        ref("HistoryCut"),
			"to":          ref("HistoryCut"),
			"differences": obj{"type": "array", "items": ref("RecordDifference")},
			"cursor":      nstr(obj{"pattern": "^[0-9]+$", "description": "where the next page starts; null on the last"}),
			"more":        obj{"type": "boolean"},
		}),
		"HistoryCut": record(obj{
			"at":      dateTime(),
			"version": obj{"type": "integer", "description": "the version of the workspace's history that stood then: its event recorded last at or before at"},
		}),
		"RecordDifference": record(obj{
			"kind":   recordKindSchema(),
			"id":     uuidRef(),
			"before": anyRecord("the record at from; null where it did not exist or was deleted"),
			"after":  anyRecord("the record at to; null where it did not exist or was deleted"),
		}),
		"AuditList": object(obj{
			"entries":    obj{"type": "array", "items": ref("AuditEntry")},
			"pagination": paginationSchema(),
		}, "entries", "pagination"),
	}
}

func clone(o obj) obj {
	out := obj{}
	for k, v := range o {
		out[k] = v
	}
	return out
}

var pathParam = regexp.MustCompile(`\{([a-zA-Z]+)\}`)

var roleNames = domain.Roles

// Security requirements: each alternative names one credential, so that a generated
// client never sends two at once (the chat channel's identity must go alone).
var (
	// browser is the web app's credential: its session cookie and, with it, the CSRF token.
	browser      = obj{"browserSession": []string{}, "csrfToken": []string{}}
	bearerOrKey  = []obj{{"bearer": []string{}}, {"apiKey": []string{}}, browser}
	sessionOnlyS = []obj{{"bearer": []string{}}, browser}
	channelS     = []obj{{"channelIdentity": []string{}}}
	incomingS    = []obj{{"bearer": []string{}}, {"apiKey": []string{}}, {"apiKeyQuery": []string{}}, browser}
	realtimeS    = []obj{{"realtimeToken": []string{}}}
)

// errorResponse refers to one of the shared error answers.
// proposalResults are the answers an approved proposal's request may give: those of the
// routes that take proposals, and an error.
func proposalResults() []obj {
	seen := map[string]bool{}
	var out []obj
	for _, rt := range routes {
		if rt.Proposable && !seen[rt.Response] {
			seen[rt.Response] = true
			out = append(out, ref(rt.Response))
		}
	}
	return append(out, ref("Error"), ref("ValidationError"))
}

func errorResponse(status int) obj {
	return obj{"$ref": "#/components/responses/" + errorResponseNames[status]}
}

var errorResponseNames = map[int]string{
	400: "BadRequest", 401: "Unauthorized", 403: "Forbidden", 404: "NotFound", 405: "MethodNotAllowed", 409: "Conflict",
	413: "PayloadTooLarge", 415: "UnsupportedMediaType", 422: "Unprocessable", 429: "TooManyRequests", 500: "InternalError", 502: "BadGateway", 503: "ServiceUnavailable",
}

// errorResponses are the shared error answers: every one carries X-Request-Id, 429
// and 503 also Retry-After.
func errorResponses() obj {
	out := obj{}
	for status, name := range errorResponseNames {
		schema := "Error"
		if status == 400 || status == 422 {
			schema = "ValidationError"
		}
		headers := obj{"X-Request-Id": obj{"$ref": "#/components/headers/X-Request-Id"}}
		switch status {
		case 429:
			headers["Retry-After"] = merge(clone(retryAfterHeader), obj{"required": true})
		case 503:
			headers["Retry-After"] = merge(clone(retryAfterHeader), obj{"description": "seconds to wait; sent with SERVICE_UNAVAILABLE " +
				"(the database or the storage of files cannot be reached, or the workspace takes too many writes at once) and BILLING_UNAVAILABLE, not with the *_NOT_CONFIGURED codes"})
		}
		out[name] = obj{"description": errorDescriptions[status], "headers": headers,
			"content": obj{"application/json": obj{"schema": ref(schema)}}}
	}
	return out
}

// requestIDParam is the client's own request id, echoed in X-Request-Id.
var requestIDParam = obj{"$ref": "#/components/parameters/X-Request-Id"}

var retryAfterHeader = obj{"description": "seconds to wait before retrying", "schema": obj{"type": "integer", "minimum": 1}}

var errorDescriptions = map[int]string{
	400: "The request is malformed or fails validation (VALIDATION_ERROR lists each bad field in details)",
	401: "Credentials missing, invalid, revoked or expired",
	403: "The caller lacks the scope or role, or the credential may not call this operation",
	404: "No such record in the active workspace",
	405: "The path exists, but not with the method used",
	409: "The request conflicts with the records' state",
	413: "The request body exceeds 1 MiB (PAYLOAD_TOO_LARGE); a statement's file 64 MiB (IMPORT_FILE_TOO_LARGE), a receipt's 20 MiB (ATTACHMENT_TOO_LARGE)",
	415: "The file is none of the kinds the operation takes, as its content tells (ATTACHMENT_TYPE_UNSUPPORTED)",
	422: "Well-formed but cannot be carried out",
	429: "Too many requests for this person, or failed authentications from this address or with this key prefix (RATE_LIMITED; the ECB import: once every 10 minutes, across instances), or too many long answers open at once: bulk reads of this person (TOO_MANY_BULK_READS), realtime streams (TOO_MANY_STREAMS)",
	500: "Internal error; the cause is logged, never shown: quote the request id",
	502: "The European Central Bank's feed failed; nothing was done (ECB_UNAVAILABLE)",
	503: "The service cannot serve the request now (its database is unreachable or busy, a feature is not configured, or the payment provider could not cancel the account's subscriptions: BILLING_UNAVAILABLE, nothing deleted)",
}

func openAPIDocument() obj {
	paths := obj{}
	for _, rt := range routes {
		if rt.Scope == toolScopes {
			// The MCP server speaks its own protocol, which lists its tools itself.
			continue
		}
		key := rt.Method + " " + rt.Pattern
		op := obj{
			"summary":     rt.Summary,
			"operationId": operationID(rt),
			"tags":        []string{tagOf(rt.Pattern)},
			"security":    bearerOrKey,
			"x-scope":     rt.Scope,
		}
		switch {
		case rt.Scope == channelOnly:
			op["security"] = channelS
			op["x-channel-scope"] = rt.Channel.Scope
			op["description"] = "Called by the chat channel only, with its identity alone (spec 5.4)."
		case rt.Scope == sessionOnly:
			op["security"] = sessionOnlyS
			op["description"] = "Needs a browser session: a session token in Authorization: Bearer, or the web app's session cookie. API keys get 403."
		case rt.Scope == realtimeTokenOnly:
			op["security"] = realtimeS
		case key == "POST "+incomingPath:
			op["security"] = incomingS
		}
		if rt.Channel != nil && rt.Scope != channelOnly {
			op["x-channel-scope"] = rt.Channel.Scope
			op["description"] = "The chat channel may call this operation too, with its identity (X-Channel-Identity) alone and " +
				"no other credential; it then needs the scope given in x-channel-scope of the user's role in the link's workspace."
		}
		if rt.Bulk {
			op["description"] = fmt.Sprintf("A bulk read: a person has at most %d on their way at once, whatever credentials they use "+
				"(429 TOO_MANY_BULK_READS, with Retry-After), and a client that stops reading for %s is cut off.",
				defaultBulkReadsPerUser, defaultWriteDeadline)
		}
		var params []obj
		for _, m := range pathParam.FindAllStringSubmatch(rt.Pattern, -1) {
			schema := uuidRef()
			if m[1] == "index" {
				schema = obj{"type": "integer", "minimum": 0}
			}
			params = append(params, obj{"name": m[1], "in": "path", "required": true, "schema": schema, "description": pathParamDescriptions[m[1]]})
		}
		if rt.Description != "" {
			op["description"] = rt.Description
		}
		params = append(params, rt.Query...)
		params = append(params, requestIDParam)
		if rt.Scope != channelOnly && rt.Scope != realtimeTokenOnly {
			params = append(params, obj{"name": "X-Workspace-Id", "in": "header", "schema": uuidRef(),
				"description": "workspace to act in; default: the caller's personal workspace (an API key's own)"})
		}
		write := rt.Method != http.MethodGet
		if write {
			p := obj{"name": "Idempotency-Key", "in": "header", "required": rt.Replay == replayKeyRequired,
				"schema": obj{"type": "string", "minLength": 1, "maxLength": maxIdempotencyKey, "pattern": "^[ -~]+$"}}
			if rt.Replay == replayNever {
				p["description"] = "accepted; this operation does not replay answers: " + rt.NotReplayedBecause
			} else {
				p["description"] = "a retry with the same key and body gets the first answer back, with Idempotent-Replayed, instead of a second effect"
			}
			params = append(params, p)
		}
		if len(params) > 0 {
			op["parameters"] = params
		}
		if rt.Request != "" {
			op["requestBody"] = obj{"$ref": "#/components/requestBodies/" + rt.Request}
		}
		headers := obj{"X-Request-Id": obj{"$ref": "#/components/headers/X-Request-Id"}}
		if write && rt.Replay != replayNever {
			headers["Idempotent-Replayed"] = obj{"$ref": "#/components/headers/Idempotent-Replayed"}
		}
		content := obj{"application/json": obj{"schema": ref(rt.Response)}}
		answer := "success"
		switch key {
		case "GET /api/reports":
			answer = "the report: JSON by default, a CSV or PDF file by format"
			content["text/csv"] = obj{"schema": str(obj{"description": "with format=csv: one line per transaction"})}
			content["application/pdf"] = obj{"schema": str(obj{"contentMediaType": "application/pdf", "description": "with format=pdf"})}
			headers["Content-Disposition"] = obj{"description": "with format csv or pdf: attachment; filename=\"finledger-FROM-TO.csv\" (or .pdf)",
				"schema": str(nil)}
		case "GET /api/audit/export":
			content = obj{rt.Media: obj{"schema": str(obj{"description": "one JSON object a line, in version order: " +
				"{\"event\": the event's canonical text, \"hash\": its SHA-256 over the previous line's hash (32 zero bytes before the first) " +
				"and the event's UTF-8 bytes, hexadecimal}"})}}
			headers["Content-Disposition"] = obj{"description": "attachment; filename=\"finledger-WORKSPACE.jsonl\"", "schema": str(nil)}
		case "GET /api/export":
			content = obj{rt.Media: obj{"schema": str(obj{"contentMediaType": "application/zip", "description": "wallets.csv, " +
				"categories.csv, tags.csv, transactions.csv, budgets.csv, goals.csv, debts.csv, recurring-payments.csv, members.csv, " +
				"attachments.csv (the files of the transactions, each with its SHA-256; the files themselves through their download) (RFC 4180, " +
				"UTF-8, a header row of the fields as the API names them, text people typed that a spreadsheet could run as a formula quoted behind a ') and " +
				"finledger.json ({format: \"" + queries.ExportFormat + "\", exportedAt, workspace, and a list per CSV}); amounts keep their " +
				"scale; archived wallets, categories and tags are in, with their flag; deleted records are not"})}}
			headers["Content-Disposition"] = obj{"description": "attachment; filename=\"finledger-YYYY-MM-DD.zip\"", "schema": str(nil)}
		case "GET " + realtimePath:
			content = obj{rt.Media: obj{"schema": str(nil)}}
			headers["Cache-Control"] = obj{"description": "no-cache", "schema": str(nil)}
			headers["X-Accel-Buffering"] = obj{"description": "no: proxies must not buffer the stream", "schema": str(nil)}
			answer = "the stream"
		case "POST /api/imports":
			op["requestBody"] = obj{"$ref": "#/components/requestBodies/StatementFile"}
		case "POST /api/transactions/{id}/attachments":
			op["requestBody"] = obj{"$ref": "#/components/requestBodies/AttachmentFile"}
		case "GET /api/transactions/{id}/attachments/{attachmentId}":
			content = obj{}
			for _, t := range attachmentTypes() {
				content[t] = obj{"schema": str(obj{"format": "binary"})}
			}
			headers["Content-Disposition"] = obj{"description": "attachment; filename=\"NAME\": always a download, never shown inline", "schema": str(nil)}
			headers["Content-Security-Policy"] = obj{"description": "default-src 'none'; sandbox", "schema": str(nil)}
			headers["X-Content-Type-Options"] = obj{"description": "nosniff", "schema": str(nil)}
			answer = "the file, as it was attached"
		case "GET /api/agent/context":
			headers["Cache-Control"] = obj{"description": "private, max-age=300: meant to be read once per conversation", "schema": str(nil)}
		}
		responses := obj{strconv.Itoa(rt.Status): obj{"description": answer, "headers": headers, "content": content}}
		if rt.Proposable {
			responses["202"] = obj{"description": "from an API key whose writes are held for approval: the proposal, nothing else changed",
				"content": obj{"application/json": obj{"schema": ref("ProposalResponse")}}}
		}
		statuses := []int{400, 401, 403, 404, 405, 409, 422, 429, 500, 503}
		if write {
			statuses = append(statuses, 413)
		}
		switch key {
		case "POST /api/exchange-rates/ecb":
			statuses = append(statuses, 502)
		case "POST /api/transactions/{id}/attachments":
			statuses = append(statuses, 415)
		}
		for _, status := range statuses {
			responses[strconv.Itoa(status)] = errorResponse(status)
		}
		op["responses"] = responses
		item, _ := paths[rt.Pattern].(obj)
		if item == nil {
			item = obj{}
			paths[rt.Pattern] = item
		}
		item[strings.ToLower(rt.Method)] = op
	}
	requestBodies := obj{"StatementFile": statementUpload(), "AttachmentFile": attachmentUpload()}
	for name, schema := range requestSchemas() {
		_, required := schema.(obj)["required"]
		requestBodies[name] = obj{"required": required, "content": obj{"application/json": obj{"schema": schema}}}
	}
	for _, rt := range routes {
		if rt.Request != "" {
			requestBodies[rt.Request].(obj)["description"] = "The body of: " + rt.Summary
		}
	}
	return obj{
		"openapi": "3.1.0",
		"info": obj{"title": "Finledger API", "version": APIVersion,
			"description": "Personal and team finances: an event-sourced ledger with read models.\n\n" + scopesDescription(),
			"license":     obj{"name": "Proprietary", "identifier": "LicenseRef-Proprietary"}},
		"servers": []obj{{"url": "{baseUrl}", "description": "the service's origin",
			"variables": obj{"baseUrl": obj{"default": "http://localhost:8080", "description": "scheme, host and port, without a trailing slash"}}}},
		"paths":    paths,
		"webhooks": webhooksDoc(),
		"tags":     tags,
		"components": obj{
			"schemas":       merge(merge(schemas(), eventSchemas()), limitsSchemas()),
			"requestBodies": requestBodies,
			"parameters": obj{"X-Request-Id": obj{"name": "X-Request-Id", "in": "header", "schema": str(obj{"maxLength": 128}),
				"description": "the client's id for the request, echoed in the answer's X-Request-Id when it is 1 to 128 of A-Z a-z 0-9 . _ : -"}},
			"responses": errorResponses(),
			"headers": obj{
				"X-Request-Id": obj{"required": true, "schema": str(obj{"pattern": "^[A-Za-z0-9._:-]{1,128}$"}),
					"description": "the request's id: the client's own X-Request-Id when it is 1 to 128 of A-Z a-z 0-9 . _ : -, else a generated one"},
				"Idempotent-Replayed": obj{"schema": obj{"type": "string", "enum": []string{"true"}},
					"description": "true when the answer is the stored one of an earlier request with the same Idempotency-Key"},
			},
			"securitySchemes": obj{
				"bearer": obj{"type": "http", "scheme": "bearer", "description": "a session JWT from the identity provider, or an API key (fl_live_...)"},
				"apiKey": obj{"type": "apiKey", "in": "header", "name": "x-api-key", "description": "an API key (fl_live_...)"},
				"apiKeyQuery": obj{"type": "apiKey", "in": "query", "name": "key",
					"description": "an API key in the URL, for the incoming webhook only (systems that cannot set headers)"},
				"channelIdentity": obj{"type": "apiKey", "in": "header", "name": channelHeader,
					"description": "the chat channel's signed identity (spec 5.4); it goes alone: with Authorization or x-api-key " +
						"the answer is 401 WHATSAPP_IDENTITY_INVALID (mixed_credentials). Besides its own operations, the channel " +
						"may call those with x-channel-scope."},
				"browserSession": obj{"type": "apiKey", "in": "cookie", "name": webapp.SessionCookie,
					"description": "the web app's session, set by its sign-in (/auth/dev in development, /auth/login with OpenID " +
						"Connect); it counts as a session, and only with csrfToken"},
				"csrfToken": obj{"type": "apiKey", "in": "header", "name": webapp.CSRFHeader,
					"description": "the session's CSRF token, which the sign-in puts in the readable cookie " + webapp.CSRFCookie +
						"; a request with the session cookie and without it, or with another value, gets 403"},
				"realtimeToken": obj{"type": "apiKey", "in": "query", "name": "token",
					"description": "a 5-minute token from POST /api/realtime/token, for the realtime stream only"},
			},
		},
	}
}

var pathParamDescriptions = map[string]string{
	"id": "the record's id", "workspaceId": "the team workspace's id", "userId": "the member's user id",
	"deliveryId": "the delivery's id", "index": "the row's index in the statement, from 0", "invitationId": "the invitation's id (a member listing's invitationId)",
	"attachmentId": "the attachment's id", "keyId": "the API key's id",
}

// tags group the operations by the path's first segment.
var tags = []obj{
	{"name": "me", "description": "The caller's profile and account"},
	{"name": "api-keys", "description": "API keys of the workspace (browser sessions only)"},
	{"name": "workspaces", "description": "Team workspaces and their members"},
	{"name": "wallets", "description": "Wallets and their balances"},
	{"name": "categories", "description": "Categories of income and expenses"},
	{"name": "tags", "description": "Tags"},
	{"name": "transactions", "description": "Income, expenses, transfers and goal movements"},
	{"name": "budgets", "description": "Budgets with the current period's spending"},
	{"name": "goals", "description": "Savings goals"},
	{"name": "debts", "description": "Debts and their payments"},
	{"name": "recurrent", "description": "Recurring payments"},
	{"name": "reports", "description": "Reports and summaries"},
	{"name": "agent", "description": "Context for AI agents"},
	{"name": "agents", "description": "What AI agents did with API keys, undone"},
	{"name": "exchange-rates", "description": "Exchange rates"},
	{"name": "import-profiles", "description": "Saved column mappings of bank CSVs, to import them again"},
	{"name": "imports", "description": "Bank statements brought in: a preview of their rows, committed as one step and undone as one"},
	{"name": "rules", "description": "What a statement's rows are: ordered conditions and what they set"},
	{"name": "audit", "description": "The audit log"},
	{"name": "changes", "description": "The change feed for clients that sync"},
	{"name": "proposals", "description": "Writes of API keys held for a person's approval"},
	{"name": "export", "description": "Every record of the workspace as one download"},
	{"name": "limits", "description": "The limits of the fields people type"},
	{"name": "webhooks", "description": "Outbound webhooks and the incoming webhook"},
	{"name": "whatsapp", "description": "The chat channel and its link to an account"},
	{"name": "realtime", "description": "The realtime event stream"},
	{"name": "push", "description": "Web Push subscriptions"},
}

// tagOf is the tag of a path: its first segment after /api/, with /api/me/whatsapp
// among the chat channel's and /api/workspace among the workspaces'.
func tagOf(pattern string) string {
	switch {
	case pattern == "/api/me/whatsapp":
		return "whatsapp"
	case pattern == "/api/workspace":
		return "workspaces"
	}
	first, _, _ := strings.Cut(strings.TrimPrefix(pattern, "/api/"), "/")
	return first
}

func operationID(rt route) string {
	name := strings.ToLower(rt.Method)
	for _, part := range strings.Split(strings.TrimPrefix(rt.Pattern, "/api/"), "/") {
		if m := pathParam.FindStringSubmatch(part); m != nil {
			name += "By" + strings.ToUpper(m[1][:1]) + m[1][1:]
			continue
		}
		name += strings.ToUpper(part[:1]) + part[1:]
	}
	return name
}

var (
	openAPIOnce sync.Once
	openAPIJSON []byte
)

// OpenAPIDocument returns the OpenAPI document GET /api/openapi.json serves.
func OpenAPIDocument() []byte {
	openAPIOnce.Do(func() {
		data, err := json.Marshal(openAPIDocument())
		if err != nil {
			panic(err)
		}
		openAPIJSON = data
	})
	return openAPIJSON
}

func serveOpenAPI(w http.ResponseWriter, _ *http.Request) {
	writeRaw(w, http.StatusOK, OpenAPIDocument())
}
