package httpapi

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/finledger/finledger/commands"
)

// APIVersion is the version of the API the OpenAPI document describes.
const APIVersion = "1.0.0"

type obj = map[string]any

// operationDoc adds to a route what the OpenAPI document needs beyond the route table.
type operationDoc struct {
	Request  string   // component schema of the JSON body; "" for none
	Response string   // component schema of the success body
	Query    []string // query parameters, each "name:type"
	// KeyRequired documents a mandatory Idempotency-Key; the HTTP tests check that such
	// routes refuse requests without one.
	KeyRequired bool
	// Media lists other formats of the success answer.
	Media []string
}

// operationDocs is keyed by "METHOD pattern"; a test checks that every route has one.
var operationDocs = map[string]operationDoc{
	"GET /api/me":                                           {Response: "MeResponse"},
	"GET /api/wallets":                                      {Response: "WalletList"},
	"POST /api/wallets":                                     {Request: "WalletCreate", Response: "WalletResponse"},
	"GET /api/wallets/{id}":                                 {Response: "WalletResponse"},
	"PATCH /api/wallets/{id}":                               {Request: "WalletUpdate", Response: "WalletResponse"},
	"DELETE /api/wallets/{id}":                              {Response: "WalletResponse"},
	"GET /api/categories":                                   {Response: "CategoryList"},
	"POST /api/categories":                                  {Request: "CategoryCreate", Response: "CategoryResponse"},
	"GET /api/categories/{id}":                              {Response: "CategoryResponse"},
	"PATCH /api/categories/{id}":                            {Request: "CategoryUpdate", Response: "CategoryResponse"},
	"DELETE /api/categories/{id}":                           {Response: "CategoryResponse"},
	"GET /api/tags":                                         {Response: "TagList"},
	"POST /api/tags":                                        {Request: "TagCreate", Response: "TagResponse"},
	"POST /api/transactions":                                {Request: "TransactionCreate", Response: "TransactionResponse"},
	"POST /api/transactions/bulk":                           {Request: "TransactionBulk", Response: "BulkResult"},
	"GET /api/transactions/{id}":                            {Response: "TransactionResponse"},
	"PATCH /api/transactions/{id}":                          {Request: "TransactionUpdate", Response: "TransactionResponse", KeyRequired: true},
	"DELETE /api/transactions/{id}":                         {Response: "OK", KeyRequired: true},
	"PATCH /api/me":                                         {Request: "ProfileUpdate", Response: "UserResponse"},
	"DELETE /api/me":                                        {Response: "OK"},
	"GET /api/api-keys":                                     {Response: "APIKeyList"},
	"POST /api/api-keys":                                    {Request: "APIKeyCreate", Response: "APIKeyCreated"},
	"DELETE /api/api-keys/{id}":                             {Response: "APIKeyResponse"},
	"GET /api/workspaces":                                   {Response: "WorkspaceList"},
	"POST /api/workspaces":                                  {Request: "WorkspaceCreate", Response: "WorkspaceResponse"},
	"DELETE /api/workspace":                                 {Response: "OK"},
	"GET /api/workspaces/{workspaceId}/members":             {Response: "MemberList"},
	"POST /api/workspaces/{workspaceId}/members":            {Request: "MemberAdd", Response: "MemberResponse"},
	"PATCH /api/workspaces/{workspaceId}/members/{userId}":  {Request: "MemberUpdate", Response: "MemberResponse"},
	"DELETE /api/workspaces/{workspaceId}/members/{userId}": {Response: "OK"},
	"GET /api/budgets":                                      {Response: "BudgetList"},
	"POST /api/budgets":                                     {Request: "BudgetCreate", Response: "BudgetResponse"},
	"GET /api/budgets/{id}":                                 {Response: "BudgetResponse"},
	"PATCH /api/budgets/{id}":                               {Request: "BudgetUpdate", Response: "BudgetResponse"},
	"DELETE /api/budgets/{id}":                              {Response: "OK"},
	"GET /api/goals":                                        {Response: "GoalList"},
	"POST /api/goals":                                       {Request: "GoalCreate", Response: "GoalResponse"},
	"GET /api/goals/{id}":                                   {Response: "GoalResponse"},
	"PATCH /api/goals/{id}":                                 {Request: "GoalUpdate", Response: "GoalResponse"},
	"DELETE /api/goals/{id}":                                {Response: "OK"},
	"POST /api/goals/{id}/deposit":                          {Request: "GoalMovement", Response: "GoalMovementResult"},
	"POST /api/goals/{id}/withdraw":                         {Request: "GoalMovement", Response: "GoalMovementResult"},
	"GET /api/debts":                                        {Response: "DebtList"},
	"POST /api/debts":                                       {Request: "DebtCreate", Response: "DebtResponse"},
	"GET /api/debts/{id}":                                   {Response: "DebtResponse"},
	"PATCH /api/debts/{id}":                                 {Request: "DebtUpdate", Response: "DebtResponse"},
	"DELETE /api/debts/{id}":                                {Response: "OK"},
	"POST /api/debts/{id}/payments":                         {Request: "DebtPayment", Response: "DebtPaymentResult"},
	"GET /api/recurrent":                                    {Response: "RecurringList"},
	"POST /api/recurrent":                                   {Request: "RecurringCreate", Response: "RecurringResponse"},
	"GET /api/recurrent/{id}":                               {Response: "RecurringResponse"},
	"PATCH /api/recurrent/{id}":                             {Request: "RecurringUpdate", Response: "RecurringResponse"},
	"DELETE /api/recurrent/{id}":                            {Response: "OK"},
	"POST /api/recurrent/{id}/pay":                          {Request: "RecurringPay", Response: "RecurringPayResult"},
	"GET /api/exchange-rates":                               {Response: "ExchangeRates", Query: []string{"date:date"}},
	"POST /api/me/whatsapp":                                 {Response: "LinkCode"},
	"GET /api/me/whatsapp":                                  {Response: "LinkStatus"},
	"DELETE /api/me/whatsapp":                               {Response: "OK"},
	"POST /api/whatsapp/link":                               {Request: "LinkRequest", Response: "LinkResult"},
	"POST /api/whatsapp/transactions":                       {Request: "ChannelTransactionCreate", Response: "ChannelTransactionResult"},
	"POST /api/whatsapp/last-transaction/undo":              {Response: "UndoResult"},
	"PATCH /api/whatsapp/last-transaction":                  {Request: "ChannelTransactionUpdate", Response: "TransactionResponse"},
	"GET /api/whatsapp/workspaces":                          {Response: "ChannelWorkspaces"},
	"PUT /api/whatsapp/workspace":                           {Request: "ChannelWorkspaceSet", Response: "WorkspaceResponse"},
	"GET /api/agent/context":                                {Response: "AgentContext"},
	"GET /api/reports":                                      {Response: "Report", Query: []string{"from:date", "to:date", "walletId:uuid", "categoryId:uuid", "format:string"}},
	"GET /api/reports/monthly-summary":                      {Response: "MonthlySummary", Query: []string{"month:string"}},
	"GET /api/reports/spending-summary": {Response: "SpendingSummary", Query: []string{"period:string", "from:date", "to:date",
		"category:string", "type:string"}},
	"PUT /api/exchange-rates": {Request: "ExchangeRatesSet", Response: "ExchangeRates"},
	"GET /api/audit": {Response: "AuditList", Query: []string{"page:integer", "pageSize:integer", "entity:string", "action:string",
		"from:date-time", "to:date-time"}},
	"POST /api/realtime/token":   {Response: "RealtimeToken"},
	"POST /api/push/subscribe":   {Request: "PushSubscribe", Response: "PushSubscriptionResponse"},
	"POST /api/push/unsubscribe": {Request: "PushUnsubscribe", Response: "PushUnsubscribeResult"},

	"GET /api/push/subscriptions": {Response: "PushSubscriptionList"},
	"GET /api/transactions": {Response: "TransactionList", Query: []string{
		"page:integer", "pageSize:integer", "type:string", "walletId:uuid", "categoryId:uuid", "goalId:uuid",
		"from:date", "to:date", "search:string", "q:string"}},
}

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

// paginationSchema is the pagination object of listings.
func paginationSchema() obj {
	return object(obj{"limit": obj{"type": "integer"}, "offset": obj{"type": "integer"}, "total": obj{"type": "integer"}}, "limit", "offset", "total")
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

var (
	colorRule = obj{"pattern": "^#[0-9a-fA-F]{6}$"}
	money     = obj{"description": "exact decimal, at most 4 decimal places"}
)

func schemas() obj {
	walletFields := obj{
		"name": str(obj{"minLength": 1, "maxLength": 50}), "description": nstr(obj{"maxLength": 255}),
		"type":     str(obj{"enum": []string{"cash", "card", "bank_account", "digital_wallet"}, "default": "cash"}),
		"currency": str(obj{"pattern": "^[A-Za-z]{3}$", "default": "MXN"}), "cardColor": str(merge(obj{"default": "#111827"}, colorRule)),
		"balance": num(merge(obj{"minimum": 0, "default": 0, "description": "initial balance; changing it moves the current balance by the difference"}, money)),
		"clabe":   nstr(obj{"maxLength": 40}), "provider": nstr(obj{"maxLength": 70}), "isDefault": boolean(),
	}
	categoryFields := obj{
		"name": str(obj{"minLength": 1, "maxLength": 100}), "icon": str(obj{"minLength": 1, "maxLength": 50, "default": "tag"}),
		"description": nstr(obj{"maxLength": 255}), "color": str(merge(obj{"default": "#6366f1"}, colorRule)),
		"isDefault": boolean(), "tagId": nuuid(),
	}
	transactionFields := obj{
		"amount": num(merge(obj{"exclusiveMinimum": 0}, money)), "date": str(obj{"format": "date", "description": "default: today in America/Mexico_City"}),
		"concept": nstr(obj{"maxLength": 255}), "description": nstr(obj{"maxLength": 2000}),
		"categoryId": nuuid(), "walletId": obj{"type": []string{"string", "null"}, "format": "uuid", "description": "default: the default-flagged wallet"},
		"toWalletId": nuuid(), "destinationWalletId": obj{"type": []string{"string", "null"}, "format": "uuid", "description": "alias of toWalletId"},
		"destinationAmount": obj{"type": []string{"number", "null"}, "exclusiveMinimum": 0, "description": "amount credited to the destination of a transfer between currencies"},
		"tagId":             nuuid(), "referenceNumber": nstr(obj{"maxLength": 100}), "attachmentUrl": nstr(obj{"format": "uri"}),
	}
	profileFields := obj{
		"firstName": nstr(obj{"maxLength": 100}), "lastName": nstr(obj{"maxLength": 100}), "currency": nstr(nil),
		"language": nstr(obj{"maxLength": 10}), "theme": str(obj{"enum": commands.Themes}),
		"notificationsEnabled": boolean(), "hasCompletedOnboarding": boolean(),
	}
	createTx := merge(obj{
		"type":   str(obj{"enum": []string{"income", "expense", "transfer", "goal_deposit", "goal_withdrawal"}}),
		"goalId": nuuid(), "debtId": nuuid(),
	}, clone(transactionFields))
	date := str(obj{"format": "date"})
	ndate := nstr(obj{"format": "date"})
	stamps := obj{"createdAt": str(obj{"format": "date-time"}), "updatedAt": str(obj{"format": "date-time"})}
	budgetFields := obj{"name": str(obj{"minLength": 1, "maxLength": 100}), "categoryId": uuidRef(), "amount": num(merge(obj{"minimum": 0}, money)),
		"currency": str(obj{"description": "default: the workspace's"}), "period": str(obj{"enum": commands.Periods, "default": "monthly"}),
		"startDate": date, "endDate": date, "alertThreshold": num(obj{"minimum": 1, "maximum": 100, "default": 80}), "tagId": nuuid()}
	goalFields := obj{"name": str(obj{"minLength": 1, "maxLength": 100}), "targetAmount": num(merge(obj{"exclusiveMinimum": 0}, money)),
		"currency": str(nil), "deadline": ndate}
	debtFields := obj{"name": str(obj{"minLength": 1, "maxLength": 100}), "creditor": nstr(obj{"maxLength": 100}),
		"totalAmount": num(merge(obj{"exclusiveMinimum": 0}, money)), "pendingBalance": num(merge(obj{"minimum": 0, "description": "default: totalAmount"}, money)),
		"currency": str(nil), "dueDate": ndate}
	recurringFields := obj{"name": str(obj{"minLength": 1, "maxLength": 100}), "amount": num(merge(obj{"exclusiveMinimum": 0}, money)),
		"kind": str(obj{"enum": commands.RecurringKinds}), "periodicity": str(obj{"enum": commands.Periods}), "nextPayment": date,
		"active": boolean(), "walletId": nuuid(), "categoryId": nuuid()}
	withTransactions := func(name, schema string) obj {
		return object(obj{name: ref(schema), "transactions": obj{"type": "array", "items": ref("Transaction")}}, name, "transactions")
	}
	return obj{
		"Budget": object(merge(merge(clone(budgetFields), stamps), obj{"id": uuidRef(), "active": boolean(), "periodStart": date, "periodEnd": date,
			"spent": num(money), "remaining": num(money), "percentage": num(nil), "alertReached": boolean()})),
		"BudgetCreate":   object(budgetFields, "name", "categoryId", "amount", "startDate", "endDate"),
		"BudgetUpdate":   object(budgetFields),
		"BudgetResponse": wrap("budget", "Budget"),
		"BudgetList":     list("budgets", "Budget"),
		"Goal": object(merge(merge(clone(goalFields), stamps), obj{"id": uuidRef(), "savedAmount": num(money),
			"progress": num(obj{"description": "percent of the target, two decimals"}), "completed": boolean()})),
		"GoalCreate":   object(goalFields, "name", "targetAmount"),
		"GoalUpdate":   object(goalFields),
		"GoalResponse": wrap("goal", "Goal"),
		"GoalList":     list("goals", "Goal"),
		"GoalMovement": object(obj{"amount": num(merge(obj{"exclusiveMinimum": 0}, money)), "walletId": nuuid(),
			"note": nstr(obj{"maxLength": 500}), "date": date}, "amount"),
		"GoalMovementResult": withTransactions("goal", "Goal"),
		"Debt":               object(merge(merge(clone(debtFields), stamps), obj{"id": uuidRef(), "paidAmount": num(money)})),
		"DebtCreate":         object(debtFields, "name", "totalAmount"),
		"DebtUpdate":         object(debtFields),
		"DebtResponse":       wrap("debt", "Debt"),
		"DebtList":           list("debts", "Debt"),
		"DebtPayment": object(obj{"amount": num(merge(obj{"exclusiveMinimum": 0}, money)), "walletId": nuuid(),
			"date": date, "note": nstr(obj{"maxLength": 500})}, "amount"),
		"DebtPaymentResult":  withTransactions("debt", "Debt"),
		"Recurring":          object(merge(merge(clone(recurringFields), stamps), obj{"id": uuidRef(), "lastPayment": ndate})),
		"RecurringCreate":    object(recurringFields, "name", "amount", "kind", "periodicity", "nextPayment"),
		"RecurringUpdate":    object(recurringFields),
		"RecurringResponse":  wrap("recurring", "Recurring"),
		"RecurringList":      list("recurrent", "Recurring"),
		"RecurringPay":       object(obj{"date": date}),
		"RecurringPayResult": withTransactions("recurring", "Recurring"),
		"Report": object(obj{"report": object(obj{"workspace": str(nil), "from": date, "to": date,
			"totals":       obj{"type": "array", "items": object(obj{"currency": str(nil), "income": num(money), "expenses": num(money), "net": num(money)})},
			"byCategory":   obj{"type": "array", "items": object(obj{"categoryId": nuuid(), "name": str(nil), "currency": str(nil), "income": num(money), "expenses": num(money)})},
			"transactions": obj{"type": "array", "items": ref("Transaction")}})},
			"report"),
		"AgentContext": object(obj{"workspace": ref("Workspace"),
			"currency": object(obj{"workspace": str(nil), "wallets": obj{"type": "array", "items": str(nil)}}),
			"wallets":  obj{"type": "array", "items": ref("Wallet")}, "categories": obj{"type": "array", "items": ref("Category")},
			"goals": obj{"type": "array", "items": ref("Goal")}, "budgets": obj{"type": "array", "items": ref("Budget")},
			"recentStats": object(obj{"from": date, "to": date, "days": obj{"type": "integer"}, "count": obj{"type": "integer"},
				"totals": obj{"type": "array", "items": object(obj{"currency": str(nil), "income": num(money), "expenses": num(money), "net": num(money)})}}),
			"generatedAt": str(obj{"format": "date-time"})}),
		"LinkCode": object(obj{"code": str(obj{"pattern": "^[A-Z2-9]{8}$"}), "expiresAt": str(obj{"format": "date-time"})}, "code", "expiresAt"),
		"LinkStatus": object(obj{"linked": boolean(), "phone": str(obj{"description": "masked"}), "status": str(obj{"enum": []string{"active", "suspended"}}),
			"workspaceId": uuidRef(), "workspaceName": str(nil), "linkedAt": str(obj{"format": "date-time"}), "lastTransactionAt": nstr(obj{"format": "date-time"})}, "linked"),
		"LinkRequest": object(obj{"code": str(obj{"minLength": 1, "maxLength": 32})}, "code"),
		"LinkResult":  object(obj{"linked": boolean(), "workspaceName": str(nil), "alreadyLinked": boolean()}, "linked", "workspaceName"),
		"ChannelTransactionCreate": object(obj{"type": str(obj{"enum": []string{"expense", "income"}}), "amount": num(merge(obj{"exclusiveMinimum": 0}, money)),
			"currency": str(obj{"description": "must be the wallet's"}), "concept": str(obj{"maxLength": 255}), "walletName": str(nil),
			"categoryName": str(nil), "date": date}, "type", "amount"),
		"ChannelTransactionResult": object(obj{"transaction": ref("Transaction"), "resolved": object(obj{"workspaceName": str(nil),
			"walletName": str(nil), "categoryName": nstr(nil), "budgetWarning": str(obj{"description": "present when the expense leaves a budget of its category exceeded, in the period holding the expense's date"})})},
			"transaction", "resolved"),
		"UndoResult": object(obj{"ok": boolean(), "transaction": ref("Transaction"), "wallet": ref("Wallet")}, "ok", "transaction", "wallet"),
		"ChannelTransactionUpdate": object(obj{"amount": num(merge(obj{"exclusiveMinimum": 0}, money)), "currency": str(obj{"description": "only with amount"}),
			"concept": str(obj{"maxLength": 255}), "walletName": str(nil), "categoryName": str(nil), "date": date}),
		"ChannelWorkspaces": object(obj{"workspaces": obj{"type": "array", "items": object(obj{"id": uuidRef(), "name": str(nil),
			"type": str(nil), "role": str(nil), "currency": str(nil), "active": boolean()})}}, "workspaces"),
		"ChannelWorkspaceSet": object(obj{"name": str(obj{"minLength": 1, "maxLength": 100})}, "name"),
		"MonthlySummary": object(obj{"month": str(obj{"pattern": "^[0-9]{4}-[0-9]{2}$"}), "currency": str(nil), "totalIncome": num(money),
			"totalExpenses": num(money), "topCategories": obj{"type": "array", "maxItems": 3, "items": object(obj{"categoryId": uuidRef(),
				"name": str(nil), "currency": str(nil), "total": num(money)})},
			"comparison": object(obj{"previousIncome": num(money), "previousExpenses": num(money),
				"percentageChange": obj{"type": []string{"number", "null"}, "description": "change of expenses in percent, two decimals; null without expenses the month before"}})}),
		"SpendingSummary": object(obj{"period": str(nil), "from": date, "to": date, "type": str(obj{"enum": []string{"expense", "income"}}),
			"totals": obj{"type": "array", "items": object(obj{"currency": str(nil), "total": str(obj{"description": "two decimals"})})}}),
		"ExchangeRates": object(obj{"date": date, "rates": obj{"type": "array", "items": object(obj{"base": str(nil), "quote": str(nil),
			"rate": num(obj{"description": "1 base = rate quote"}), "date": date, "source": str(obj{"description": "manual, or the feed (ecb)"})})}}),
		"ExchangeRatesSet": object(obj{"date": date, "rates": obj{"type": "array", "maxItems": 200, "items": object(obj{
			"base": str(obj{"pattern": "^[A-Za-z]{3}$"}), "quote": str(obj{"pattern": "^[A-Za-z]{3}$"}), "rate": num(obj{"exclusiveMinimum": 0})},
			"base", "quote", "rate")}}, "rates"),
		"PushSubscription": object(obj{"id": uuidRef(), "endpoint": str(obj{"format": "uri"}),
			"expirationTime": obj{"type": []string{"integer", "null"}, "description": "milliseconds since 1970-01-01 (UTC)"},
			"userAgent":      nstr(obj{"description": "the User-Agent of the last subscribe, to tell devices apart"}),
			"createdAt":      str(obj{"format": "date-time"}), "updatedAt": str(obj{"format": "date-time"})},
			"id", "endpoint", "expirationTime", "createdAt", "updatedAt"),
		"PushSubscribe": object(obj{
			"endpoint": str(obj{"format": "uri", "maxLength": maxPushEndpoint, "description": "the push service's absolute https URL"}),
			"keys": object(obj{
				"p256dh": str(obj{"description": "base64url of the 65-byte uncompressed P-256 public key (first byte 0x04)"}),
				"auth":   str(obj{"description": "base64url of the 16-byte authentication secret"}),
			}, "p256dh", "auth"),
			"expirationTime": obj{"type": []string{"number", "null"}, "minimum": 0, "description": "milliseconds since 1970-01-01 (UTC)"},
		}, "endpoint", "keys"),
		"PushSubscriptionResponse": wrap("subscription", "PushSubscription"),
		"PushSubscriptionList":     list("subscriptions", "PushSubscription"),
		"PushUnsubscribe":          object(obj{"endpoint": str(obj{"format": "uri", "maxLength": maxPushEndpoint})}, "endpoint"),
		"PushUnsubscribeResult":    object(obj{"removed": obj{"type": "boolean", "description": "whether the subscription existed"}}, "removed"),
		"Error": object(obj{"error": object(obj{
			"code": str(nil), "message": str(nil), "details": obj{}, "requestId": str(nil),
		}, "code", "message")}, "error"),
		"FieldError": object(obj{"field": str(nil), "message": str(nil)}, "field", "message"),
		"Wallet": object(merge(clone(walletFields), obj{
			"id": uuidRef(), "balance": num(money), "initialBalance": num(money), "archived": boolean(),
			"createdAt": str(obj{"format": "date-time"}), "updatedAt": str(obj{"format": "date-time"}),
		})),
		"WalletCreate":   object(walletFields, "name"),
		"WalletUpdate":   object(walletFields),
		"WalletResponse": wrap("wallet", "Wallet"),
		"WalletList":     list("wallets", "Wallet"),
		"Category": object(merge(clone(categoryFields), obj{
			"id": uuidRef(), "archived": boolean(), "createdAt": str(obj{"format": "date-time"}), "updatedAt": str(obj{"format": "date-time"}),
		})),
		"CategoryCreate":   object(categoryFields, "name"),
		"CategoryUpdate":   object(categoryFields),
		"CategoryResponse": wrap("category", "Category"),
		"CategoryList":     list("categories", "Category"),
		"Tag": object(obj{"id": uuidRef(), "name": str(nil), "color": str(colorRule), "active": boolean(),
			"createdAt": str(obj{"format": "date-time"}), "updatedAt": str(obj{"format": "date-time"})}),
		"TagCreate":   object(obj{"name": str(obj{"minLength": 1, "maxLength": 50}), "color": str(colorRule)}, "name"),
		"TagResponse": wrap("tag", "Tag"),
		"TagList":     list("tags", "Tag"),
		"Transaction": object(obj{
			"id": uuidRef(), "type": str(nil), "amount": num(money), "currency": str(nil),
			"destinationAmount": obj{"type": []string{"number", "null"}}, "date": str(obj{"format": "date"}),
			"concept": nstr(nil), "description": str(nil), "walletId": uuidRef(), "toWalletId": nuuid(),
			"destinationWalletId": nuuid(), "categoryId": nuuid(), "goalId": nuuid(), "debtId": nuuid(), "tagId": nuuid(),
			"referenceNumber": nstr(nil), "attachmentUrl": nstr(nil),
			"createdAt": str(obj{"format": "date-time"}), "updatedAt": str(obj{"format": "date-time"}),
		}),
		"TransactionCreate":   object(createTx, "type", "amount"),
		"TransactionUpdate":   object(transactionFields),
		"TransactionResponse": wrap("transaction", "Transaction"),
		"TransactionList": object(obj{
			"transactions": obj{"type": "array", "items": ref("Transaction")},
			"pagination":   paginationSchema(),
		}, "transactions", "pagination"),
		"TransactionBulk": object(obj{
			"ids":       obj{"type": "array", "items": uuidRef(), "minItems": 1, "maxItems": maxBulkIDs},
			"operation": str(obj{"enum": []string{"delete", "recategorize"}}), "categoryId": uuidRef(),
		}, "ids", "operation"),
		"BulkResult": object(obj{"ok": boolean(), "operation": str(nil), "affected": obj{"type": "integer"}}),
		"OK":         object(obj{"ok": boolean()}, "ok"),
		"User": object(merge(clone(profileFields), obj{"id": uuidRef(), "email": str(nil), "name": nstr(nil),
			"personalWorkspaceId": uuidRef(), "createdAt": str(obj{"format": "date-time"})})),
		"ProfileUpdate": object(profileFields),
		"UserResponse":  wrap("user", "User"),
		"Workspace": object(obj{"id": uuidRef(), "name": str(nil), "type": str(obj{"enum": []string{"personal", "team"}}),
			"currency": str(nil), "role": str(obj{"enum": roleNames}), "createdAt": str(obj{"format": "date-time"})}),
		"WorkspaceCreate":   object(obj{"name": str(obj{"minLength": 1, "maxLength": 100}), "currency": str(obj{"default": "MXN"})}, "name"),
		"WorkspaceResponse": wrap("workspace", "Workspace"),
		"WorkspaceList":     list("workspaces", "Workspace"),
		"MeResponse":        object(obj{"user": ref("User"), "workspace": ref("Workspace")}, "user", "workspace"),
		"APIKey": object(obj{"id": uuidRef(), "name": str(nil), "description": nstr(nil), "scopes": obj{"type": "array", "items": str(nil)},
			"prefix": str(obj{"description": "the first characters of the key"}), "createdBy": uuidRef(),
			"createdAt": str(obj{"format": "date-time"}), "lastUsedAt": nstr(obj{"format": "date-time"}),
			"expiresAt": nstr(obj{"format": "date-time"}), "revokedAt": nstr(obj{"format": "date-time"})}),
		"APIKeyCreate": object(obj{"name": str(obj{"minLength": 1, "maxLength": 80}), "description": nstr(obj{"maxLength": 2000}),
			"scopes":    obj{"type": "array", "minItems": 1, "items": str(obj{"enum": commands.Scopes})},
			"expiresAt": nstr(obj{"format": "date-time"})}, "name", "scopes"),
		"APIKeyCreated":  object(obj{"apiKey": ref("APIKey"), "plaintext": str(obj{"description": "the key itself, shown this once: fl_live_ + 43 base62 characters + 6 characters of checksum"})}, "apiKey", "plaintext"),
		"APIKeyResponse": wrap("apiKey", "APIKey"),
		"APIKeyList":     list("apiKeys", "APIKey"),
		"Member": object(obj{"userId": nuuid(), "email": str(nil), "name": nstr(nil), "role": str(obj{"enum": roleNames}),
			"status": str(obj{"enum": []string{"active", "invited"}}), "joinedAt": str(obj{"format": "date-time"})}),
		"MemberAdd":      object(obj{"email": str(obj{"format": "email"}), "role": str(obj{"enum": roleNames})}, "email", "role"),
		"MemberUpdate":   object(obj{"role": str(obj{"enum": roleNames})}, "role"),
		"MemberResponse": wrap("member", "Member"),
		"MemberList":     list("members", "Member"),
		"AuditEntry": object(obj{"id": uuidRef(), "entity": str(nil), "entityId": str(nil), "action": str(obj{"enum": auditActions}),
			"actorType": str(nil), "actorId": str(nil), "userAgent": nstr(nil), "requestId": nstr(nil),
			"occurredAt": str(obj{"format": "date-time"}), "changes": obj{"type": "object", "description": "field: {before, after}"}}),
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

var roleNames = commands.Roles

var errorStatuses = []int{400, 401, 403, 404, 409, 422, 429, 500, 503}

func openAPIDocument() obj {
	paths := obj{}
	for _, rt := range routes {
		doc := operationDocs[rt.Method+" "+rt.Pattern]
		op := obj{
			"summary":     rt.Summary,
			"operationId": operationID(rt),
			"security":    []obj{{"bearer": []string{}}},
			"x-scope":     rt.Scope,
		}
		if scope, ok := channelRoutes[rt.Method+" "+rt.Pattern]; ok {
			op["x-channel-scope"] = scope
			op["security"] = []obj{{"bearer": []string{}}, {"channelIdentity": []string{}}}
		}
		if rt.Scope == channelOnly {
			op["security"] = []obj{{"channelIdentity": []string{}}}
		}
		var params []obj
		for _, m := range pathParam.FindAllStringSubmatch(rt.Pattern, -1) {
			params = append(params, obj{"name": m[1], "in": "path", "required": true, "schema": uuidRef()})
		}
		for _, q := range doc.Query {
			name, typ, _ := strings.Cut(q, ":")
			schema := obj{"type": typ}
			switch typ {
			case "uuid", "date", "date-time":
				schema = obj{"type": "string", "format": typ}
			}
			params = append(params, obj{"name": name, "in": "query", "schema": schema})
		}
		params = append(params, obj{"name": "X-Workspace-Id", "in": "header", "schema": uuidRef(),
			"description": "workspace to act in; default: the caller's personal workspace"})
		if rt.Method != http.MethodGet {
			params = append(params, obj{"name": "Idempotency-Key", "in": "header", "required": doc.KeyRequired,
				"schema": obj{"type": "string", "maxLength": maxIdempotencyKey}})
		}
		op["parameters"] = params
		if doc.Request != "" {
			op["requestBody"] = obj{"required": true, "content": obj{"application/json": obj{"schema": ref(doc.Request)}}}
		}
		content := obj{"application/json": obj{"schema": ref(doc.Response)}}
		for _, media := range doc.Media {
			content[media] = obj{"schema": obj{"type": "string", "format": "binary"}}
		}
		responses := obj{strconv.Itoa(rt.Success): obj{"description": "success", "content": content}}
		for _, status := range errorStatuses {
			responses[strconv.Itoa(status)] = obj{"description": http.StatusText(status), "content": obj{"application/json": obj{"schema": ref("Error")}}}
		}
		op["responses"] = responses
		item, _ := paths[rt.Pattern].(obj)
		if item == nil {
			item = obj{}
			paths[rt.Pattern] = item
		}
		item[strings.ToLower(rt.Method)] = op
	}
	paths[realtimePath] = realtimeStreamDoc()
	return obj{
		"openapi": "3.1.0",
		"info": obj{"title": "Finledger API", "version": APIVersion,
			"description": "Personal and team finances: an event-sourced ledger with read models."},
		"paths": paths,
		"components": obj{
			"schemas": merge(schemas(), eventSchemas()),
			"securitySchemes": obj{
				"bearer": obj{"type": "http", "scheme": "bearer", "description": "session JWT or API key (fl_live_...)"},
				"channelIdentity": obj{"type": "apiKey", "in": "header", "name": channelHeader,
					"description": "the chat channel's signed identity (spec 5.4)"},
			},
		},
	}
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

func serveOpenAPI(w http.ResponseWriter, _ *http.Request) {
	openAPIOnce.Do(func() {
		data, err := json.Marshal(openAPIDocument())
		if err != nil {
			panic(err)
		}
		openAPIJSON = data
	})
	writeRaw(w, http.StatusOK, openAPIJSON)
}
