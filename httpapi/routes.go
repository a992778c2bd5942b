package httpapi

import (
	"net/http"
	"slices"
	"strings"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/queries"
)

// The scopes the routes need (spec 5.3). domain.Scopes accepts more on an API key:
// those no route needs are reserved (reservedScopes).
const (
	scopeTransactionsRead  = "transactions:read"
	scopeTransactionsWrite = "transactions:write"
	scopeWalletsRead       = "wallets:read"
	scopeWalletsWrite      = "wallets:write"
	scopeCategoriesRead    = "categories:read"
	scopeCategoriesWrite   = "categories:write"
	scopeTagsRead          = "tags:read"
	scopeTagsWrite         = "tags:write"
	scopeBudgetsRead       = "budgets:read"
	scopeBudgetsWrite      = "budgets:write"
	scopeGoalsRead         = "goals:read"
	scopeGoalsWrite        = "goals:write"
	scopeDebtsRead         = "debts:read"
	scopeDebtsWrite        = "debts:write"
	scopeRecurrentRead     = "recurrent:read"
	scopeRecurrentWrite    = "recurrent:write"
	scopeReportsRead       = "reports:read"
	scopeAgentContext      = "agent:context"
	scopeWebhooksRead      = "webhooks:read"
	scopeWebhooksWrite     = "webhooks:write"
	scopeProfileRead       = "profile:read"
	scopeProfileWrite      = "profile:write"
	scopeTeamManage        = "team:manage"
)

// routeScopes are the scopes the routes need, in the order of domain.Scopes.
func routeScopes() []string {
	var used []string
	for _, s := range domain.Scopes {
		if slices.ContainsFunc(routes, func(rt route) bool {
			return rt.Scope == s || (rt.Channel != nil && rt.Channel.Scope == s)
		}) {
			used = append(used, s)
		}
	}
	return used
}

// reservedScopes are the scopes an API key may carry (domain.Scopes) that no route
// needs: accepted, so that keys made for them keep working when their operations come,
// and opening nothing until then.
func reservedScopes() []string {
	used := routeScopes()
	var reserved []string
	for _, s := range domain.Scopes {
		if s != domain.ScopeAll && !slices.Contains(used, s) {
			reserved = append(reserved, s)
		}
	}
	return reserved
}

// scopesDescription is the OpenAPI document's section on scopes.
func scopesDescription() string {
	return "Scopes: every operation names the scope it needs in x-scope (\"" + sessionOnly + "\": a browser session only; \"" +
		channelOnly + "\": the chat channel only; \"" + realtimeTokenOnly + "\": the stream's own token). " +
		"The scopes operations need: " + strings.Join(routeScopes(), ", ") + "; \"*\" grants every scope. " +
		"Reserved, accepted on an API key but needed by no operation yet: " + strings.Join(reservedScopes(), ", ") + "."
}

// toolScopes marks the MCP server, which takes an API key alone and whose tools each
// need the scope of the route they run (tools).
const toolScopes = "each tool's"

// realtimeTokenOnly marks the realtime stream, whose credential is a token of its own
// (POST /api/realtime/token) rather than those the route table's guard checks.
const realtimeTokenOnly = "realtime token"

// route is one operation of the API, declared once: the router, the guard (credentials,
// scopes, the chat channel's allow-list), the write runner (status, Idempotency-Key)
// and the OpenAPI document all read it.
type route struct {
	Method  string
	Pattern string
	// Scope is the scope the caller needs, or sessionOnly, channelOnly or
	// realtimeTokenOnly.
	Scope   string
	Summary string
	// Description says what the summary leaves out, when anything.
	Description string
	// Status is the status of a successful answer.
	Status int
	// Request names the JSON body in components/requestBodies (requestSchemas); "" for
	// none.
	Request string
	// Response names the schema of a JSON answer; Media is the media type of an answer
	// that is not JSON, described in openAPIDocument.
	Response string
	Media    string
	// Query are the route's own parameters: its query parameters, and a header of its own.
	Query []obj
	// Replay is what a write does with an Idempotency-Key; NotReplayedBecause says why a
	// write that never replays does not.
	Replay             replay
	NotReplayedBecause string
	// Channel lets the chat channel call the route too (spec 4.B).
	Channel *channelAccess
	// Bulk makes the answer a bulk read (readInBulk).
	Bulk bool
	// Proposable lets a key whose writes are held for approval (domain.KeyWritesPropose)
	// send the write: it is recorded as a proposal (202) instead. Such a key may send no
	// other write.
	Proposable bool
	Handler    handler
}

// replay is what a write does with an Idempotency-Key header.
type replay int

const (
	_ replay = iota
	// replayStored stores the answer with the events: a retry with the same key and
	// body gets it back, with Idempotent-Replayed, instead of a second effect.
	replayStored
	// replayKeyRequired is replayStored, and a request without the key is refused
	// (400 IDEMPOTENCY_KEY_REQUIRED).
	replayKeyRequired
	// replayNever accepts the key and never replays: repeating the request is harmless
	// or is the point.
	replayNever
)

// channelAccess lets the chat channel call a route with its identity alone; it then
// needs Scope of the user's role in the link's workspace ("" for none).
type channelAccess struct{ Scope string }

// routes is every operation of the API but the documents about it (the OpenAPI
// document and its reference).
var routes = []route{
	{Method: "GET", Pattern: "/api/me", Scope: scopeProfileRead, Status: http.StatusOK, Response: "MeResponse",
		Summary: "Current user and active workspace",
		Handler: getMe},
	{Method: "PATCH", Pattern: "/api/me", Scope: scopeProfileWrite, Status: http.StatusOK, Request: "ProfileUpdate", Response: "UserResponse", Replay: replayStored,
		Summary: "Update the profile",
		Handler: updateMe},
	{Method: "GET", Pattern: "/api/limits", Scope: scopeProfileRead, Status: http.StatusOK, Response: "Limits",
		Summary: "The limits of the fields people type: lengths in characters, an amount's digits",
		Handler: limits},
	{Method: "DELETE", Pattern: "/api/me", Scope: sessionOnly, Status: http.StatusOK, Response: "OK", Replay: replayStored,
		Summary: "Delete the account: cancels subscriptions, revokes API keys, deletes the personal workspace",
		Handler: deleteMe},
	{Method: "GET", Pattern: "/api/api-keys", Scope: sessionOnly, Status: http.StatusOK, Response: "APIKeyList",
		Summary: "List the workspace's API keys (prefix only)",
		Handler: listRecords("apiKeys", queries.APIKeys)},
	{Method: "POST", Pattern: "/api/api-keys", Scope: sessionOnly, Status: http.StatusOK, Request: "APIKeyCreate", Response: "APIKeyCreated", Replay: replayStored,
		Summary: "Create an API key; the answer holds its secret once",
		Handler: createAPIKey},
	{Method: "DELETE", Pattern: "/api/api-keys/{id}", Scope: sessionOnly, Status: http.StatusOK, Response: "APIKeyResponse", Replay: replayStored,
		Summary: "Revoke an API key",
		Handler: revokeAPIKey},
	{Method: "GET", Pattern: "/api/proposals", Scope: scopeTransactionsRead, Status: http.StatusOK, Response: "ProposalList",
		Query:   []obj{queryParam("status", str(obj{"enum": domain.ProposalStatuses}), "only the proposals of this status")},
		Summary: "List the writes of API keys held for approval, newest first (at most 500)",
		Handler: listProposals},
	{Method: "GET", Pattern: "/api/proposals/{id}", Scope: scopeTransactionsRead, Status: http.StatusOK, Response: "ProposalResponse",
		Summary: "Get a proposal",
		Handler: getProposal},
	{Method: "POST", Pattern: "/api/proposals/{id}/approve", Scope: sessionOnly, Status: http.StatusOK, Response: "ProposalApproval",
		Replay: replayNever, NotReplayedBecause: "the proposal's request runs under the proposal's own key: approved twice, it runs once",
		Summary: "Approve a proposal: its request runs now, as yours, and may fail if things changed since",
		Handler: approveProposal},
	{Method: "POST", Pattern: "/api/proposals/{id}/reject", Scope: sessionOnly, Status: http.StatusOK, Response: "ProposalResponse", Replay: replayStored,
		Summary: "Reject a proposal",
		Handler: rejectProposal},
	{Method: "POST", Pattern: "/api/agents/{keyId}/undo", Scope: sessionOnly, Status: http.StatusOK, Request: "AgentUndoRequest", Response: "AgentUndo", Replay: replayStored,
		Summary: "Undo what an API key did since a moment, in one append: what it created is deleted, what it corrected put back",
		Description: "Skipped, and listed with a reason: a record someone else changed after the key (CHANGED_SINCE), one that no longer " +
			"exists (TRANSACTION_NOT_FOUND, BUDGET_NOT_FOUND), a reconciled transaction (TRANSACTION_RECONCILED), one whose reversal a rule " +
			"refuses (CONFLICT: a goal deposit withdrawn since), one that holds again what it held before (UNCHANGED), and what is not " +
			"undone (NOT_REVERSIBLE: the key's deletions, its corrections of budgets, what an import recorded, records of other kinds). " +
			"The key's creator, an owner or an admin may; a revoked key's work too. An undo again reverses nothing new.",
		Handler: undoAgentWork},
	{Method: "GET", Pattern: "/api/workspaces", Scope: scopeProfileRead, Status: http.StatusOK, Response: "WorkspaceList",
		Summary: "List the caller's workspaces",
		Handler: listWorkspaces},
	{Method: "POST", Pattern: "/api/workspaces", Scope: sessionOnly, Status: http.StatusOK, Request: "WorkspaceCreate", Response: "WorkspaceResponse", Replay: replayStored,
		Summary: "Create a team workspace",
		Handler: createWorkspace},
	{Method: "DELETE", Pattern: "/api/workspace", Scope: sessionOnly, Status: http.StatusOK, Response: "OK", Replay: replayStored,
		Summary: "Delete the active team workspace (owners only)",
		Handler: deleteWorkspace},
	{Method: "GET", Pattern: "/api/workspaces/{workspaceId}/members", Scope: scopeTeamManage, Status: http.StatusOK, Response: "MemberList",
		Summary: "List members and invitations",
		Handler: listRecords("members", queries.Members)},
	{Method: "POST", Pattern: "/api/workspaces/{workspaceId}/members", Scope: scopeTeamManage, Status: http.StatusOK, Request: "MemberAdd", Response: "MemberResponse", Replay: replayStored,
		Summary: "Add a member by email, or invite them",
		Handler: addMember},
	{Method: "PATCH", Pattern: "/api/workspaces/{workspaceId}/members/{userId}", Scope: scopeTeamManage, Status: http.StatusOK, Request: "MemberUpdate", Response: "MemberResponse", Replay: replayStored,
		Summary: "Change a member's role",
		Handler: updateMember},
	{Method: "DELETE", Pattern: "/api/workspaces/{workspaceId}/members/{userId}", Scope: scopeTeamManage, Status: http.StatusOK, Response: "OK", Replay: replayStored,
		Summary: "Remove a member",
		Handler: removeMember},
	{Method: "DELETE", Pattern: "/api/workspaces/{workspaceId}/invitations/{invitationId}", Scope: scopeTeamManage, Status: http.StatusOK, Response: "OK", Replay: replayStored,
		Summary: "Withdraw an invitation nobody has taken up yet",
		Handler: cancelInvitation},
	{Method: "GET", Pattern: "/api/budgets", Scope: scopeBudgetsRead, Status: http.StatusOK, Response: "BudgetList", Query: []obj{asOfParam}, Channel: &channelAccess{Scope: scopeBudgetsRead},
		Summary: "List budgets with the current period's spending",
		Handler: listBudgets},
	{Method: "POST", Pattern: "/api/budgets", Proposable: true, Scope: scopeBudgetsWrite, Status: http.StatusOK, Request: "BudgetCreate", Response: "BudgetResponse", Replay: replayStored,
		Summary: "Create a budget",
		Handler: createBudget},
	{Method: "GET", Pattern: "/api/budgets/{id}", Scope: scopeBudgetsRead, Status: http.StatusOK, Response: "BudgetResponse",
		Summary: "Get a budget with its current period's spending",
		Handler: getBudget},
	{Method: "PATCH", Pattern: "/api/budgets/{id}", Scope: scopeBudgetsWrite, Status: http.StatusOK, Request: "BudgetUpdate", Response: "BudgetResponse", Replay: replayStored,
		Summary: "Update a budget",
		Handler: updateBudget},
	{Method: "DELETE", Pattern: "/api/budgets/{id}", Scope: scopeBudgetsWrite, Status: http.StatusOK, Response: "OK", Replay: replayStored,
		Summary: "Delete a budget",
		Handler: deleteBudget},
	{Method: "GET", Pattern: "/api/goals", Scope: scopeGoalsRead, Status: http.StatusOK, Response: "GoalList", Query: []obj{asOfParam}, Channel: &channelAccess{Scope: scopeGoalsRead},
		Summary: "List savings goals with their progress",
		Handler: listRecordsAsOf("goals", queries.Goals)},
	{Method: "POST", Pattern: "/api/goals", Scope: scopeGoalsWrite, Status: http.StatusOK, Request: "GoalCreate", Response: "GoalResponse", Replay: replayStored,
		Summary: "Create a savings goal",
		Handler: createGoal},
	{Method: "GET", Pattern: "/api/goals/{id}", Scope: scopeGoalsRead, Status: http.StatusOK, Response: "GoalResponse",
		Summary: "Get a savings goal",
		Handler: getRecord("goal", "GOAL_NOT_FOUND", queries.GoalByID)},
	{Method: "PATCH", Pattern: "/api/goals/{id}", Scope: scopeGoalsWrite, Status: http.StatusOK, Request: "GoalUpdate", Response: "GoalResponse", Replay: replayStored,
		Summary: "Update a savings goal",
		Handler: updateGoal},
	{Method: "DELETE", Pattern: "/api/goals/{id}", Scope: scopeGoalsWrite, Status: http.StatusOK, Response: "OK", Replay: replayStored,
		Summary: "Delete an empty savings goal",
		Handler: deleteGoal},
	{Method: "POST", Pattern: "/api/goals/{id}/deposit", Proposable: true, Scope: scopeGoalsWrite, Status: http.StatusOK, Request: "GoalDeposit", Response: "GoalMovementResult", Replay: replayStored, Channel: &channelAccess{Scope: scopeGoalsWrite},
		Summary: "Move money from a wallet into a goal",
		Handler: goalMovement(domain.TxGoalDeposit)},
	{Method: "POST", Pattern: "/api/goals/{id}/withdraw", Proposable: true, Scope: scopeGoalsWrite, Status: http.StatusOK, Request: "GoalWithdrawal", Response: "GoalMovementResult", Replay: replayStored, Channel: &channelAccess{Scope: scopeGoalsWrite},
		Summary: "Move money from a goal back to wallets",
		Handler: goalMovement(domain.TxGoalWithdrawal)},
	{Method: "GET", Pattern: "/api/debts", Scope: scopeDebtsRead, Status: http.StatusOK, Response: "DebtList", Query: []obj{asOfParam}, Channel: &channelAccess{Scope: scopeDebtsRead},
		Summary: "List debts with pending balances",
		Handler: listRecordsAsOf("debts", queries.Debts)},
	{Method: "POST", Pattern: "/api/debts", Scope: scopeDebtsWrite, Status: http.StatusOK, Request: "DebtCreate", Response: "DebtResponse", Replay: replayStored,
		Summary: "Register a debt",
		Handler: createDebt},
	{Method: "GET", Pattern: "/api/debts/{id}", Scope: scopeDebtsRead, Status: http.StatusOK, Response: "DebtResponse",
		Summary: "Get a debt",
		Handler: getRecord("debt", "DEBT_NOT_FOUND", queries.DebtByID)},
	{Method: "PATCH", Pattern: "/api/debts/{id}", Scope: scopeDebtsWrite, Status: http.StatusOK, Request: "DebtUpdate", Response: "DebtResponse", Replay: replayStored,
		Summary: "Update a debt",
		Handler: updateDebt},
	{Method: "DELETE", Pattern: "/api/debts/{id}", Scope: scopeDebtsWrite, Status: http.StatusOK, Response: "OK", Replay: replayStored,
		Summary: "Delete a debt",
		Handler: deleteDebt},
	{Method: "POST", Pattern: "/api/debts/{id}/payments", Proposable: true, Scope: scopeDebtsWrite, Status: http.StatusOK, Request: "DebtPayment", Response: "DebtPaymentResult", Replay: replayStored, Channel: &channelAccess{Scope: scopeDebtsWrite},
		Summary: "Pay a debt: an expense that lowers its pending balance",
		Handler: payDebt},
	{Method: "GET", Pattern: "/api/recurrent", Scope: scopeRecurrentRead, Status: http.StatusOK, Response: "RecurringList", Channel: &channelAccess{Scope: scopeRecurrentRead},
		Summary: "List recurring payments, soonest first",
		Handler: listRecords("recurrent", queries.RecurringPayments)},
	{Method: "POST", Pattern: "/api/recurrent", Scope: scopeRecurrentWrite, Status: http.StatusOK, Request: "RecurringCreate", Response: "RecurringResponse", Replay: replayStored,
		Summary: "Create a recurring payment",
		Handler: createRecurring},
	{Method: "GET", Pattern: "/api/recurrent/{id}", Scope: scopeRecurrentRead, Status: http.StatusOK, Response: "RecurringResponse",
		Summary: "Get a recurring payment",
		Handler: getRecord("recurring", "RECURRING_NOT_FOUND", queries.RecurringByID)},
	{Method: "PATCH", Pattern: "/api/recurrent/{id}", Scope: scopeRecurrentWrite, Status: http.StatusOK, Request: "RecurringUpdate", Response: "RecurringResponse", Replay: replayStored,
		Summary: "Update a recurring payment",
		Handler: updateRecurring},
	{Method: "DELETE", Pattern: "/api/recurrent/{id}", Scope: scopeRecurrentWrite, Status: http.StatusOK, Response: "OK", Replay: replayStored,
		Summary: "Delete a recurring payment",
		Handler: deleteRecurring},
	{Method: "POST", Pattern: "/api/recurrent/{id}/pay", Proposable: true, Scope: scopeRecurrentWrite, Status: http.StatusOK, Request: "RecurringPay", Response: "RecurringPayResult", Replay: replayStored, Channel: &channelAccess{Scope: scopeRecurrentWrite},
		Summary: "Pay the current cycle and advance the next payment",
		Handler: payRecurring},
	{Method: "GET", Pattern: "/api/reports", Scope: scopeReportsRead, Status: http.StatusOK, Response: "Report", Query: []obj{
		queryParam("from", dateIn(""), "first day, YYYY-MM-DD; default: the first of the current month"),
		queryParam("to", dateIn(""), "last day, YYYY-MM-DD; default: today; not before from"),
		walletIDParam, categoryIDParm,
		queryParam("format", str(obj{"enum": reportFormats, "default": "json"}), "json, or a csv or pdf file"), asOfParam}, Bulk: true,
		Summary: "A report of a date range as JSON, CSV or PDF",
		Handler: report},
	{Method: "GET", Pattern: "/api/reports/monthly-summary", Scope: scopeReportsRead, Status: http.StatusOK, Response: "MonthlySummary", Query: []obj{
		queryParam("month", str(obj{"pattern": "^[0-9]{4}-(0[1-9]|1[0-2])$", "description": monthBounds}), "YYYY-MM; default: the current month"), asOfParam}, Channel: &channelAccess{Scope: scopeReportsRead},
		Summary: "Month summary: income, expenses, top categories, change against the month before",
		Handler: monthlySummary},
	{Method: "GET", Pattern: "/api/reports/summary", Scope: scopeReportsRead, Status: http.StatusOK, Response: "ReportSummary", Query: []obj{
		queryParam("from", dateIn(""), "first day, YYYY-MM-DD; default: the first of the current month"),
		queryParam("to", dateIn(""), "last day, YYYY-MM-DD; default: today; not before from"), asOfParam},
		Summary: "A date range's totals per currency, expenses by category on one chart, and income and expenses of the twelve months ending with it",
		Handler: reportSummary},
	{Method: "GET", Pattern: "/api/reports/spending-summary", Scope: scopeReportsRead, Status: http.StatusOK, Response: "SpendingSummary", Query: []obj{
		queryParam("period", str(obj{"enum": summaryPeriods, "default": "this_week"}), "a named period; not with from and to"),
		queryParam("from", dateIn(""), "with to, instead of period: first day, YYYY-MM-DD"),
		queryParam("to", dateIn(""), "with from: last day, at most 366 days after from"),
		queryParam("category", str(obj{"minLength": 1}), "a category's id, or its name (accents and case ignored)"),
		queryParam("type", str(obj{"enum": enum(domain.TxExpense, domain.TxIncome), "default": domain.TxExpense}), "whether to sum spending or income"), asOfParam}, Channel: &channelAccess{Scope: scopeReportsRead},
		Summary: "Total per currency over a period",
		Handler: spendingSummary},
	{Method: "GET", Pattern: "/api/agent/context", Scope: scopeAgentContext, Status: http.StatusOK, Response: "AgentContext",
		Summary: "Everything an agent needs at the start of a conversation",
		Handler: agentContext},
	{Method: "GET", Pattern: "/api/exchange-rates", Scope: scopeWalletsRead, Status: http.StatusOK, Response: "ExchangeRates", Query: []obj{
		queryParam("date", dateIn(""), "the day, YYYY-MM-DD; default: today in America/Mexico_City")},
		Summary: "Exchange rates in force on a day (default today)",
		Handler: listExchangeRates},
	{Method: "PUT", Pattern: "/api/exchange-rates", Scope: scopeWalletsWrite, Status: http.StatusOK, Request: "ExchangeRatesSet", Response: "ExchangeRates", Replay: replayStored,
		Summary: "Set the workspace's own exchange rates for a day",
		Handler: setExchangeRates},
	{Method: "POST", Pattern: "/api/exchange-rates/ecb", Scope: scopeWalletsWrite, Status: http.StatusOK, Response: "ExchangeRates", Replay: replayNever, NotReplayedBecause: "each call fetches the day's rates again, at most once every 10 minutes",
		Summary: "Fetch the ECB's daily reference rates (at most once every 10 minutes)",
		Handler: importECBRates},
	{Method: "GET", Pattern: "/api/audit", Scope: scopeTeamManage, Status: http.StatusOK, Response: "AuditList", Query: []obj{pageParam, pageSizeParam,
		queryParam("entity", str(obj{"maxLength": 64}), "only entries of this entity (wallet, transaction, ...)"),
		queryParam("action", str(obj{"enum": auditActions}), "only entries of this action"),
		queryParam("from", dateTimeIn(), "entries at or after this instant (RFC 3339)"),
		queryParam("to", dateTimeIn(), "entries at or before this instant; not before from")},
		Summary: "List audit entries, newest first",
		Handler: listAudit},
	{Method: "GET", Pattern: "/api/audit/verify", Scope: scopeTeamManage, Status: http.StatusOK, Response: "ChainVerification", Query: []obj{
		queryParam("formerAt", obj{"type": "integer", "minimum": 1}, "a version of the history: the answer's former gives the hash the chain had there "+
			"before its canonical text left secrets out, to compare with a head kept from before then")},
		Summary: "Recompute the workspace's hash chain of events and return its head",
		Handler: verifyAudit},
	{Method: "GET", Pattern: "/api/changes", Scope: scopeTransactionsRead, Status: http.StatusOK, Response: "ChangePage", Query: []obj{
		queryParam("cursor", str(obj{"pattern": "^[0-9]+$"}), "the cursor the previous page gave; left out, the feed starts at the workspace's beginning; beyond the end of the history, 400"),
		queryParam("limit", integer(1, maxChanges, defaultChanges), "changes per page; a page ends at a version of the history, so it may hold more")}, Bulk: true,
		Summary: "The records the workspace's history touched after a cursor, each with its state or its deletion",
		Handler: listChanges},
	{Method: "GET", Pattern: "/api/changes/diff", Scope: scopeTransactionsRead, Status: http.StatusOK, Response: "ChangeDiff", Query: []obj{
		queryParam("from", dateTimeIn(), "the earlier moment (RFC 3339); required"),
		queryParam("to", dateTimeIn(), "the later moment; default: now; not before from"),
		queryParam("cursor", str(obj{"pattern": "^[0-9]+$"}), "the cursor the previous page gave"),
		queryParam("limit", integer(1, maxChanges, defaultChanges), "changes looked at per page; a page may show fewer differences, or none, and still have more after it")}, Bulk: true,
		Summary: "The records whose state differs between two moments, with their states then",
		Handler: diffChanges},
	{Method: "GET", Pattern: "/api/audit/export", Scope: scopeTeamManage, Status: http.StatusOK, Media: "application/x-ndjson", Bulk: true,
		Summary: "The workspace's history as JSON lines, each event with its chain hash",
		Handler: exportAudit},
	{Method: "GET", Pattern: "/api/export", Scope: scopeTeamManage, Status: http.StatusOK, Media: "application/zip", Bulk: true,
		Summary: "The workspace's records as a zip: a CSV per resource and finledger.json, everything in one object",
		Handler: exportWorkspace},
	{Method: "GET", Pattern: "/api/webhooks/outbound", Scope: scopeWebhooksRead, Status: http.StatusOK, Response: "WebhookList",
		Summary: "List outbound webhooks (never their secrets; URLs masked unless the caller may change webhooks)",
		Handler: listWebhooks},
	{Method: "POST", Pattern: "/api/webhooks/outbound", Scope: scopeWebhooksWrite, Status: http.StatusOK, Request: "WebhookCreate", Response: "WebhookCreated", Replay: replayStored,
		Summary: "Subscribe a URL to workspace events; the answer holds the signing secret once",
		Handler: createWebhook},
	{Method: "GET", Pattern: "/api/webhooks/outbound/{id}", Scope: scopeWebhooksRead, Status: http.StatusOK, Response: "WebhookResponse",
		Summary: "Get an outbound webhook",
		Handler: getWebhook},
	{Method: "PATCH", Pattern: "/api/webhooks/outbound/{id}", Scope: scopeWebhooksWrite, Status: http.StatusOK, Request: "WebhookUpdate", Response: "WebhookResponse", Replay: replayStored,
		Summary: "Change an outbound webhook's name, URL, events or active flag",
		Handler: updateWebhook},
	{Method: "DELETE", Pattern: "/api/webhooks/outbound/{id}", Scope: scopeWebhooksWrite, Status: http.StatusOK, Response: "OK", Replay: replayStored,
		Summary: "Delete an outbound webhook",
		Handler: deleteWebhook},
	{Method: "POST", Pattern: "/api/webhooks/outbound/{id}/rotate-secret", Scope: scopeWebhooksWrite, Status: http.StatusOK, Response: "WebhookCreated", Replay: replayStored,
		Summary: "Replace the signing secret; the answer holds the new one once",
		Handler: rotateWebhookSecret},
	{Method: "POST", Pattern: "/api/webhooks/outbound/{id}/test", Scope: scopeWebhooksWrite, Status: http.StatusOK, Response: "DeliveryResponse", Replay: replayNever, NotReplayedBecause: "each call sends a new test delivery: repeating it is the point",
		Summary: "Send a webhook.test delivery",
		Handler: testWebhook},
	{Method: "GET", Pattern: "/api/webhooks/outbound/{id}/deliveries", Scope: scopeWebhooksRead, Status: http.StatusOK, Response: "DeliveryList", Query: []obj{pageParam, pageSizeParam,
		queryParam("status", str(obj{"enum": deliveryStatuses}), "only deliveries in this state")},
		Summary: "List a webhook's deliveries with every attempt, newest first",
		Handler: listDeliveries},
	{Method: "POST", Pattern: "/api/webhooks/outbound/{id}/deliveries/{deliveryId}/redeliver", Scope: scopeWebhooksWrite, Status: http.StatusOK, Response: "DeliveryResponse", Replay: replayNever, NotReplayedBecause: "each call sends the delivery again: repeating it is the point",
		Summary: "Send a delivery again, keeping its id",
		Handler: redeliverWebhook},
	{Method: "POST", Pattern: incomingPath, Scope: scopeTransactionsWrite, Status: http.StatusOK, Request: "IncomingTransaction", Response: "TransactionResponse", Replay: replayStored,
		Summary: "Record a transaction sent by an external system; the key may come as ?key=",
		Handler: incomingTransaction},
	{Method: "POST", Pattern: "/api/me/whatsapp", Scope: sessionOnly, Status: http.StatusOK, Response: "LinkCode", Replay: replayNever, NotReplayedBecause: "each call issues a new link code",
		Summary: "Get a one-time code (10 minutes) to link a phone to the chat channel",
		Handler: issueLinkCode},
	{Method: "GET", Pattern: "/api/me/whatsapp", Scope: sessionOnly, Status: http.StatusOK, Response: "LinkStatus",
		Summary: "See the chat-channel link (phone masked)",
		Handler: getLink},
	{Method: "DELETE", Pattern: "/api/me/whatsapp", Scope: sessionOnly, Status: http.StatusOK, Response: "OK", Replay: replayStored,
		Summary: "Unlink the phone",
		Handler: unlink},
	{Method: "POST", Pattern: "/api/whatsapp/link", Scope: channelOnly, Status: http.StatusOK, Request: "LinkRequest", Response: "LinkResult", Replay: replayNever, NotReplayedBecause: "a code links once; the same code again from the same number answers alreadyLinked", Channel: &channelAccess{},
		Summary: "linkWhatsapp: turn a code into a link",
		Handler: linkPhone},
	{Method: "POST", Pattern: "/api/whatsapp/transactions", Scope: channelOnly, Status: http.StatusCreated, Request: "ChannelTransactionCreate", Response: "ChannelTransactionResult", Replay: replayStored, Channel: &channelAccess{Scope: scopeTransactionsWrite},
		Summary: "createTransactionByName: record an expense or income by wallet and category names",
		Handler: createTransactionByName},
	{Method: "POST", Pattern: "/api/whatsapp/last-transaction/undo", Scope: channelOnly, Status: http.StatusOK, Response: "UndoResult", Replay: replayStored, Channel: &channelAccess{Scope: scopeTransactionsWrite},
		Summary: "undoLastTransaction: delete the last transaction recorded through the channel",
		Handler: undoLastTransaction},
	{Method: "PATCH", Pattern: "/api/whatsapp/last-transaction", Scope: channelOnly, Status: http.StatusOK, Request: "ChannelTransactionUpdate", Response: "TransactionResponse", Replay: replayStored, Channel: &channelAccess{Scope: scopeTransactionsWrite},
		Summary: "updateLastTransaction: correct the last transaction recorded through the channel",
		Handler: updateLastTransaction},
	{Method: "GET", Pattern: "/api/whatsapp/workspaces", Scope: channelOnly, Status: http.StatusOK, Response: "ChannelWorkspaces", Channel: &channelAccess{},
		Summary: "listMyWorkspaces",
		Handler: listChannelWorkspaces},
	{Method: "PUT", Pattern: "/api/whatsapp/workspace", Scope: channelOnly, Status: http.StatusOK, Request: "ChannelWorkspaceSet", Response: "WorkspaceResponse", Replay: replayStored, Channel: &channelAccess{},
		Summary: "setWhatsappWorkspace: change the channel's workspace by name",
		Handler: setChannelWorkspace},
	{Method: "POST", Pattern: "/api/realtime/token", Scope: sessionOnly, Status: http.StatusOK, Response: "RealtimeToken", Replay: replayNever, NotReplayedBecause: "each call issues a new token",
		Summary: "Get a 5-minute token to open the workspace's realtime event stream (GET /api/realtime/events?token=)",
		Handler: realtimeToken},
	{Method: "POST", Pattern: "/api/push/subscribe", Scope: sessionOnly, Status: http.StatusOK, Request: "PushSubscribe", Response: "PushSubscriptionResponse", Replay: replayNever, NotReplayedBecause: "the same endpoint again replaces its keys",
		Summary: "Store the browser's Web Push subscription; the same endpoint again replaces its keys",
		Handler: subscribePush},
	{Method: "POST", Pattern: "/api/push/unsubscribe", Scope: sessionOnly, Status: http.StatusOK, Request: "PushUnsubscribe", Response: "PushUnsubscribeResult", Replay: replayNever, NotReplayedBecause: "removing a subscription twice is harmless",
		Summary: "Remove one of the caller's Web Push subscriptions by endpoint",
		Handler: unsubscribePush},
	{Method: "GET", Pattern: "/api/push/subscriptions", Scope: sessionOnly, Status: http.StatusOK, Response: "PushSubscriptionList",
		Summary: "List the caller's Web Push subscriptions",
		Handler: listPushSubscriptions},
	{Method: "GET", Pattern: "/api/push/vapid-public-key", Scope: sessionOnly, Status: http.StatusOK, Response: "PushPublicKey",
		Summary: "The VAPID public key to subscribe browsers with",
		Handler: pushPublicKey},
	{Method: "GET", Pattern: "/api/wallets", Scope: scopeWalletsRead, Status: http.StatusOK, Response: "WalletList", Query: []obj{asOfParam}, Channel: &channelAccess{Scope: scopeWalletsRead},
		Summary: "List active wallets with balances",
		Handler: listRecordsAsOf("wallets", queries.Wallets)},
	{Method: "POST", Pattern: "/api/wallets", Scope: scopeWalletsWrite, Status: http.StatusOK, Request: "WalletCreate", Response: "WalletResponse", Replay: replayStored,
		Summary: "Create a wallet",
		Handler: createWallet},
	{Method: "GET", Pattern: "/api/wallets/{id}", Scope: scopeWalletsRead, Status: http.StatusOK, Response: "WalletResponse",
		Summary: "Get a wallet",
		Handler: getRecord("wallet", "WALLET_NOT_FOUND", queries.WalletByID)},
	{Method: "PATCH", Pattern: "/api/wallets/{id}", Scope: scopeWalletsWrite, Status: http.StatusOK, Request: "WalletUpdate", Response: "WalletResponse", Replay: replayStored,
		Summary: "Update a wallet",
		Handler: updateWallet},
	{Method: "DELETE", Pattern: "/api/wallets/{id}", Scope: scopeWalletsWrite, Status: http.StatusOK, Response: "WalletResponse", Replay: replayStored,
		Summary: "Archive a wallet",
		Handler: archiveWallet},
	{Method: "POST", Pattern: "/api/wallets/{id}/reconcile", Scope: scopeTransactionsWrite, Status: http.StatusOK, Request: "WalletReconcile", Response: "ReconciliationResponse", Replay: replayStored,
		Summary: "Reconcile a wallet with its bank statement",
		Description: "Compares the statement's balance on date with the ledger's (the wallet's initial balance and its live transactions " +
			"dated on or before date, transfers and goal movements included) and marks those transactions reconciled: from then on they " +
			"refuse changes (409 TRANSACTION_RECONCILED) unless the request sends allowReconciled. With adjust, a difference is booked " +
			"first as one cleared transaction of that date, income or expense, concept \"" + domain.AdjustmentConcept + "\".",
		Handler: reconcileWallet},
	{Method: "GET", Pattern: "/api/categories", Scope: scopeCategoriesRead, Status: http.StatusOK, Response: "CategoryList", Channel: &channelAccess{Scope: scopeCategoriesRead},
		Summary: "List active categories",
		Handler: listRecords("categories", queries.Categories)},
	{Method: "POST", Pattern: "/api/categories", Proposable: true, Scope: scopeCategoriesWrite, Status: http.StatusOK, Request: "CategoryCreate", Response: "CategoryResponse", Replay: replayStored, Channel: &channelAccess{Scope: scopeCategoriesWrite},
		Summary: "Create a category",
		Handler: createCategory},
	{Method: "GET", Pattern: "/api/categories/{id}", Scope: scopeCategoriesRead, Status: http.StatusOK, Response: "CategoryResponse",
		Summary: "Get a category",
		Handler: getRecord("category", "CATEGORY_NOT_FOUND", queries.CategoryByID)},
	{Method: "PATCH", Pattern: "/api/categories/{id}", Scope: scopeCategoriesWrite, Status: http.StatusOK, Request: "CategoryUpdate", Response: "CategoryResponse", Replay: replayStored,
		Summary: "Update a category",
		Handler: updateCategory},
	{Method: "DELETE", Pattern: "/api/categories/{id}", Scope: scopeCategoriesWrite, Status: http.StatusOK, Response: "CategoryResponse", Replay: replayStored,
		Summary: "Archive a category",
		Handler: archiveCategory},
	{Method: "GET", Pattern: "/api/tags", Scope: scopeTagsRead, Status: http.StatusOK, Response: "TagList", Channel: &channelAccess{Scope: scopeTagsRead},
		Summary: "List active tags",
		Handler: listRecords("tags", queries.Tags)},
	{Method: "POST", Pattern: "/api/tags", Scope: scopeTagsWrite, Status: http.StatusOK, Request: "TagCreate", Response: "TagResponse", Replay: replayStored, Channel: &channelAccess{Scope: scopeTagsWrite},
		Summary: "Create a tag",
		Handler: createTag},
	{Method: "PATCH", Pattern: "/api/tags/{id}", Scope: scopeTagsWrite, Status: http.StatusOK, Request: "TagUpdate", Response: "TagResponse", Replay: replayStored,
		Summary: "Rename or recolour a tag",
		Handler: updateTag},
	{Method: "DELETE", Pattern: "/api/tags/{id}", Scope: scopeTagsWrite, Status: http.StatusOK, Response: "TagResponse", Replay: replayStored,
		Summary: "Archive a tag: it leaves the listing, what carries it keeps it",
		Handler: archiveTag},
	{Method: "GET", Pattern: "/api/import-profiles", Scope: scopeCategoriesRead, Status: http.StatusOK, Response: "ImportProfileList",
		Query:   []obj{queryParam("walletId", uuidRef(), "only the profiles for this wallet")},
		Summary: "List the saved CSV import profiles, oldest first",
		Handler: listImportProfiles},
	{Method: "POST", Pattern: "/api/import-profiles", Scope: scopeCategoriesWrite, Status: http.StatusCreated, Request: "ImportProfileSave", Response: "ImportProfileResponse", Replay: replayStored,
		Summary: "Save a CSV import profile: which column of a bank's CSV holds what",
		Handler: createImportProfile},
	{Method: "GET", Pattern: "/api/import-profiles/{id}", Scope: scopeCategoriesRead, Status: http.StatusOK, Response: "ImportProfileResponse",
		Summary: "Get a CSV import profile",
		Handler: getRecord("profile", "IMPORT_PROFILE_NOT_FOUND", queries.ImportProfileByID)},
	{Method: "PUT", Pattern: "/api/import-profiles/{id}", Scope: scopeCategoriesWrite, Status: http.StatusOK, Request: "ImportProfileSave", Response: "ImportProfileResponse", Replay: replayStored,
		Summary: "Replace a CSV import profile",
		Handler: replaceImportProfile},
	{Method: "DELETE", Pattern: "/api/import-profiles/{id}", Scope: scopeCategoriesWrite, Status: http.StatusOK, Response: "OK", Replay: replayStored,
		Summary: "Delete a CSV import profile",
		Handler: deleteImportProfile},
	{Method: "GET", Pattern: "/api/transactions", Scope: scopeTransactionsRead, Status: http.StatusOK, Response: "TransactionList", Query: []obj{pageParam, pageSizeParam,
		queryParam("type", str(obj{"enum": enum(domain.TransactionTypes...)}), "only transactions of this type"),
		walletIDParam, categoryIDParm, queryParam("goalId", uuidRef(), "only this goal's movements"),
		fromDateParam, toDateParam,
		queryParam("search", str(obj{"maxLength": maxSearch}), "text searched in concepts and descriptions"),
		queryParam("q", str(obj{"maxLength": maxQuickSearch}), "quick search: alias of search that returns at most 10 results")}, Channel: &channelAccess{Scope: scopeTransactionsRead},
		Summary: "List transactions, filtered and paginated",
		Handler: listTransactions},
	{Method: "POST", Pattern: "/api/transactions", Proposable: true, Scope: scopeTransactionsWrite, Status: http.StatusCreated, Request: "TransactionCreate", Response: "TransactionResponse", Replay: replayStored,
		Summary: "Create a transaction",
		Handler: createTransaction},
	{Method: "POST", Pattern: "/api/transactions/bulk", Scope: scopeTransactionsWrite, Status: http.StatusOK, Request: "TransactionBulk", Response: "BulkResult", Replay: replayStored,
		Summary: "Delete or recategorize several transactions",
		Handler: bulkTransactions},
	{Method: "GET", Pattern: "/api/transactions/{id}/attachments", Scope: scopeTransactionsRead, Status: http.StatusOK, Response: "AttachmentList",
		Summary: "List a transaction's files (receipts, invoices), in the order they were attached",
		Handler: listAttachments},
	{Method: "POST", Pattern: "/api/transactions/{id}/attachments", Scope: scopeTransactionsWrite, Status: http.StatusCreated, Response: "AttachmentResponse",
		Query:  []obj{queryParam("fileName", str(obj{"maxLength": 255}), "with the file as the body: its name")},
		Replay: replayStored,
		Summary: "Attach a file to a transaction: a JPEG, PNG, WebP, HEIC or PDF file (told by its content) of up to 20 MiB, as the body or " +
			"the multipart field file",
		Description: "The file is stored by its SHA-256, which the event that attaches it carries, so the history's chain covers it. " +
			"A file of another kind is 415 ATTACHMENT_TYPE_UNSUPPORTED, a larger one 413 ATTACHMENT_TOO_LARGE, an empty one 400.",
		Handler: attachFile},
	{Method: "GET", Pattern: "/api/transactions/{id}/attachments/{attachmentId}", Scope: scopeTransactionsRead, Status: http.StatusOK, Media: "application/octet-stream",
		Summary: "Download a transaction's file, always as a download (Content-Disposition: attachment)",
		Handler: downloadAttachment},
	{Method: "DELETE", Pattern: "/api/transactions/{id}/attachments/{attachmentId}", Scope: scopeTransactionsWrite, Status: http.StatusOK, Response: "OK",
		Replay:  replayStored,
		Summary: "Take a file off its transaction",
		Handler: detachFile},
	{Method: "GET", Pattern: "/api/transactions/{id}", Scope: scopeTransactionsRead, Status: http.StatusOK, Response: "TransactionResponse",
		Summary: "Get a transaction",
		Handler: getRecord("transaction", "TRANSACTION_NOT_FOUND", queries.TransactionByID)},
	{Method: "PATCH", Pattern: "/api/transactions/{id}", Proposable: true, Scope: scopeTransactionsWrite, Status: http.StatusOK, Request: "TransactionUpdate", Response: "TransactionResponse", Replay: replayKeyRequired, Channel: &channelAccess{Scope: scopeTransactionsWrite},
		Query:   []obj{allowReconciledParam},
		Summary: "Correct a transaction",
		Handler: updateTransaction},
	{Method: "DELETE", Pattern: "/api/transactions/{id}", Proposable: true, Scope: scopeTransactionsWrite, Status: http.StatusOK, Response: "OK", Replay: replayKeyRequired, Channel: &channelAccess{Scope: scopeTransactionsWrite},
		Query:   []obj{allowReconciledParam},
		Summary: "Delete a transaction (soft delete, balances reverted)",
		Handler: deleteTransaction},
	{Method: "POST", Pattern: "/api/imports", Scope: scopeTransactionsWrite, Status: http.StatusCreated, Response: "ImportResponse",
		Query: []obj{
			queryParam("walletId", obj{"type": "string", "format": "uuid"}, "the wallet to import into (required)"),
			queryParam("account", str(obj{"maxLength": 100}), "of a file of several accounts, the one to import"),
			queryParam("dateOrder", str(obj{"enum": []string{"DMY", "MDY", "dmy", "mdy"}}), "the order of day and month, for a CSV or QIF file whose dates read both ways"),
			queryParam("mapping", str(obj{"maxLength": 4096}), "a CSV's columns, as the JSON of an import profile's mapping"),
			queryParam("profile", obj{"type": "string", "format": "uuid"}, "a saved import profile whose mapping reads a CSV")},
		Replay: replayNever, NotReplayedBecause: "a preview records nothing: another upload makes another preview, which the commit of the first marks as duplicates",
		Summary:     "Read a bank statement into a preview of its rows (CSV, OFX, QFX, QIF, CAMT, MT940)",
		Description: importDescription,
		Handler:     createImport},
	{Method: "GET", Pattern: "/api/imports", Scope: scopeTransactionsRead, Status: http.StatusOK, Response: "ImportList", Query: []obj{pageParam, pageSizeParam},
		Summary: "List the workspace's imports, newest first, without their rows",
		Handler: listImports},
	{Method: "GET", Pattern: "/api/imports/{id}", Scope: scopeTransactionsRead, Status: http.StatusOK, Response: "ImportResponse",
		Summary: "An import with its rows; a preview's summary says where the wallet's balance would stand",
		Handler: getImport},
	{Method: "DELETE", Pattern: "/api/imports/{id}", Scope: scopeTransactionsWrite, Status: http.StatusOK, Response: "OK",
		Replay: replayNever, NotReplayedBecause: "a preview discarded is gone: discarding it again is 404 IMPORT_NOT_FOUND",
		Summary: "Discard a preview never committed, with its rows (a committed import is undone instead)",
		Handler: discardImport},
	{Method: "PATCH", Pattern: "/api/imports/{id}/rows/{index}", Scope: scopeTransactionsWrite, Status: http.StatusOK, Request: "ImportRowUpdate", Response: "ImportRowResponse",
		Replay: replayNever, NotReplayedBecause: "setting a row's decision again leaves it as it was set",
		Summary: "Change a preview row's decision (import, skip, merge) or its proposed transaction",
		Handler: changeImportRow},
	{Method: "POST", Pattern: "/api/imports/{id}/commit", Scope: scopeTransactionsWrite, Status: http.StatusOK, Response: "ImportResponse", Replay: replayStored,
		Summary: "Commit a preview: its rows to import become transactions and its merges links, in one append",
		Handler: commitImport},
	{Method: "POST", Pattern: "/api/imports/{id}/undo", Scope: scopeTransactionsWrite, Status: http.StatusOK, Response: "ImportResponse", Replay: replayStored,
		Summary: "Undo a committed import: the transactions it created are deleted and its merges unlinked, in one append",
		Handler: undoImport},
	{Method: "GET", Pattern: "/api/rules", Scope: scopeCategoriesRead, Status: http.StatusOK, Response: "RuleList",
		Summary: "List the rules that say what a statement's rows are, in the order they apply",
		Handler: listRules},
	{Method: "POST", Pattern: "/api/rules", Scope: scopeCategoriesWrite, Status: http.StatusCreated, Request: "RuleCreate", Response: "RuleResponse", Replay: replayStored,
		Summary:     "Create a rule: conditions that must all hold, and what it sets",
		Description: ruleDescription,
		Handler:     createRule},
	{Method: "PATCH", Pattern: "/api/rules/{id}", Scope: scopeCategoriesWrite, Status: http.StatusOK, Request: "RuleUpdate", Response: "RuleResponse", Replay: replayStored,
		Summary: "Change a rule: the fields sent replace its own, its conditions and its actions each as a whole",
		Handler: updateRule},
	{Method: "DELETE", Pattern: "/api/rules/{id}", Scope: scopeCategoriesWrite, Status: http.StatusOK, Response: "OK", Replay: replayStored,
		Summary: "Delete a rule",
		Handler: deleteRule},
	{Method: "POST", Pattern: "/api/rules/apply", Scope: scopeTransactionsWrite, Status: http.StatusOK, Request: "RuleApply", Response: "RuleApplyResult", Replay: replayStored,
		Summary: "Apply the rules to recorded transactions: a dry run lists what would change; otherwise it changes it in one command",
		Description: "Of each live income or expense not reconciled (the newest 10,000 the filters leave; more says there were more), the first " +
			"rule that matches sets its category, tag and concept; a rule's type, transfer and skip are for statements' rows only.",
		Handler: applyRules},
	{Method: "GET", Pattern: "/api/rules/suggestions", Scope: scopeCategoriesRead, Status: http.StatusOK, Response: "RuleSuggestionList",
		Summary: "Rules proposed from history: a concept seen at least 3 times, 80% of them with one category, that no rule covers",
		Handler: suggestRules},
	{Method: "GET", Pattern: realtimePath, Scope: realtimeTokenOnly, Status: http.StatusOK, Media: "text/event-stream", Query: []obj{
		{"name": "Last-Event-ID", "in": "header", "schema": obj{"type": "integer", "minimum": 0}, "description": "resume after this event"},
		{"name": "lastEventId", "in": "query", "schema": obj{"type": "integer", "minimum": 0}, "description": "the same, for clients that cannot set headers"}},
		Summary:     "Server-Sent Events of the workspace's events; each event's id is its version in the workspace's stream",
		Description: realtimeStreamDescription,
		Handler:     (*Server).realtimeEvents},
	{Method: "POST", Pattern: mcpPath, Scope: toolScopes, Status: http.StatusOK, Media: "application/json",
		Replay: replayNever, NotReplayedBecause: "a tool call is a request to the route it runs, replayed as that route replays",
		Summary: "The MCP server (streamable HTTP, stateless): the tools an API key's scopes allow, each running a route of this table",
		Handler: (*Server).serveMCP},
}

// tool is a tool of the MCP server: a route run in-process for the caller, whose
// scope, description (its summary), arguments (its path and query parameters and its
// body's fields) and answer it takes.
type tool struct {
	Name string
	// Route is the route's method and pattern.
	Route string
	// Description adds to the route's summary what an agent needs.
	Description string
	// Args, when set, are the only query parameters and body fields the tool takes, each
	// required; Options, beside them, the route's others it takes, each optional.
	Args, Options []string
	// Confirm makes the tool destructive: it names the read of the record it would
	// change (its method and pattern, taking the same path parameters). A call must
	// say "confirm": true; without it, the answer is that record in an error, and
	// nothing is written.
	Confirm string
}

// asOfTool tells an agent how to read the past with a tool whose route takes asOf.
const asOfTool = "with asOf (an RFC 3339 instant, not in the future), as the history stood then"

// tools are the MCP server's tools: snake_case verbs, reads named list_, get_ or search_.
var tools = []tool{
	{Name: "list_transactions", Route: "GET /api/transactions"},
	{Name: "search_transactions", Route: "GET /api/transactions", Args: []string{"search"},
		Options:     []string{"type", "walletId", "categoryId", "from", "to", "page", "pageSize"},
		Description: "the transactions whose concept or description contains search (accents and case ignored), or whose amount it writes, newest first"},
	{Name: "list_changes", Route: "GET /api/changes",
		Description: "the change feed: start without cursor, then pass the cursor each page answers to read on from it"},
	{Name: "list_wallets", Route: "GET /api/wallets", Description: asOfTool},
	{Name: "list_budgets", Route: "GET /api/budgets", Description: asOfTool},
	{Name: "list_goals", Route: "GET /api/goals", Description: asOfTool},
	{Name: "list_debts", Route: "GET /api/debts", Description: asOfTool},
	{Name: "get_agent_context", Route: "GET /api/agent/context"},
	{Name: "get_monthly_summary", Route: "GET /api/reports/monthly-summary", Description: asOfTool},
	{Name: "get_report_summary", Route: "GET /api/reports/summary", Description: asOfTool},
	{Name: "create_transaction", Route: "POST /api/transactions",
		Description: "income, expense or transfer, with splits; amounts are exact decimals of at most 4 places"},
	{Name: "categorize_transaction", Route: "PATCH /api/transactions/{id}", Args: []string{"categoryId"},
		Description: "set the category of the transaction id (null: none)"},
	{Name: "create_budget", Route: "POST /api/budgets"},
	{Name: "deposit_to_goal", Route: "POST /api/goals/{id}/deposit", Description: "id is the goal's"},
	{Name: "withdraw_from_goal", Route: "POST /api/goals/{id}/withdraw", Description: "id is the goal's"},
	{Name: "pay_debt", Route: "POST /api/debts/{id}/payments", Description: "id is the debt's"},
	{Name: "pay_recurring_payment", Route: "POST /api/recurrent/{id}/pay", Description: "id is the recurring payment's"},
	{Name: "delete_transaction", Route: "DELETE /api/transactions/{id}", Confirm: "GET /api/transactions/{id}",
		Description: "id is the transaction's; a call without \"confirm\": true deletes nothing and answers the transaction it would delete"},
}
