package httpapi

import (
	"net/http"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/queries"
)

// Scopes named by the routes (spec 5.3).
const (
	scopeTransactionsRead  = "transactions:read"
	scopeTransactionsWrite = "transactions:write"
	scopeWalletsRead       = "wallets:read"
	scopeWalletsWrite      = "wallets:write"
	scopeCategoriesRead    = "categories:read"
	scopeCategoriesWrite   = "categories:write"
	scopeTagsRead          = "tags:read"
	scopeTagsWrite         = "tags:write"
	scopeProfileRead       = "profile:read"
	scopeProfileWrite      = "profile:write"
	scopeTeamManage        = "team:manage"
)

// routes is every authenticated operation of the API.
var routes = []route{
	{"GET", "/api/me", scopeProfileRead, "Current user and active workspace", http.StatusOK, getMe},
	{"PATCH", "/api/me", scopeProfileWrite, "Update the profile", http.StatusOK, updateMe},
	{"GET", "/api/limits", scopeProfileRead, "The limits of the fields people type: lengths in characters, an amount's digits", http.StatusOK, limits},
	{"DELETE", "/api/me", sessionOnly, "Delete the account: cancels subscriptions, revokes API keys, deletes the personal workspace", http.StatusOK, deleteMe},

	{"GET", "/api/api-keys", sessionOnly, "List the workspace's API keys (prefix only)", http.StatusOK, listRecords("apiKeys", queries.APIKeys)},
	{"POST", "/api/api-keys", sessionOnly, "Create an API key; the answer holds its secret once", http.StatusOK, createAPIKey},
	{"DELETE", "/api/api-keys/{id}", sessionOnly, "Revoke an API key", http.StatusOK, revokeAPIKey},

	{"GET", "/api/workspaces", scopeProfileRead, "List the caller's workspaces", http.StatusOK, listWorkspaces},
	{"POST", "/api/workspaces", sessionOnly, "Create a team workspace", http.StatusOK, createWorkspace},
	{"DELETE", "/api/workspace", sessionOnly, "Delete the active team workspace (owners only)", http.StatusOK, deleteWorkspace},
	{"GET", "/api/workspaces/{workspaceId}/members", scopeTeamManage, "List members and invitations", http.StatusOK, listRecords("members", queries.Members)},
	{"POST", "/api/workspaces/{workspaceId}/members", scopeTeamManage, "Add a member by email, or invite them", http.StatusOK, addMember},
	{"PATCH", "/api/workspaces/{workspaceId}/members/{userId}", scopeTeamManage, "Change a member's role", http.StatusOK, updateMember},
	{"DELETE", "/api/workspaces/{workspaceId}/members/{userId}", scopeTeamManage, "Remove a member", http.StatusOK, removeMember},
	{"DELETE", "/api/workspaces/{workspaceId}/invitations/{invitationId}", scopeTeamManage, "Withdraw an invitation nobody has taken up yet", http.StatusOK, cancelInvitation},

	{"GET", "/api/budgets", "budgets:read", "List budgets with the current period's spending", http.StatusOK, listBudgets},
	{"POST", "/api/budgets", "budgets:write", "Create a budget", http.StatusOK, createBudget},
	{"GET", "/api/budgets/{id}", "budgets:read", "Get a budget with its current period's spending", http.StatusOK, getBudget},
	{"PATCH", "/api/budgets/{id}", "budgets:write", "Update a budget", http.StatusOK, updateBudget},
	{"DELETE", "/api/budgets/{id}", "budgets:write", "Delete a budget", http.StatusOK, deleteBudget},

	{"GET", "/api/goals", "goals:read", "List savings goals with their progress", http.StatusOK, listRecordsAsOf("goals", queries.Goals)},
	{"POST", "/api/goals", "goals:write", "Create a savings goal", http.StatusOK, createGoal},
	{"GET", "/api/goals/{id}", "goals:read", "Get a savings goal", http.StatusOK, getRecord("goal", "GOAL_NOT_FOUND", queries.GoalByID)},
	{"PATCH", "/api/goals/{id}", "goals:write", "Update a savings goal", http.StatusOK, updateGoal},
	{"DELETE", "/api/goals/{id}", "goals:write", "Delete an empty savings goal", http.StatusOK, deleteGoal},
	{"POST", "/api/goals/{id}/deposit", "goals:write", "Move money from a wallet into a goal", http.StatusOK, goalMovement(domain.TxGoalDeposit)},
	{"POST", "/api/goals/{id}/withdraw", "goals:write", "Move money from a goal back to wallets", http.StatusOK, goalMovement(domain.TxGoalWithdrawal)},

	{"GET", "/api/debts", "debts:read", "List debts with pending balances", http.StatusOK, listRecordsAsOf("debts", queries.Debts)},
	{"POST", "/api/debts", "debts:write", "Register a debt", http.StatusOK, createDebt},
	{"GET", "/api/debts/{id}", "debts:read", "Get a debt", http.StatusOK, getRecord("debt", "DEBT_NOT_FOUND", queries.DebtByID)},
	{"PATCH", "/api/debts/{id}", "debts:write", "Update a debt", http.StatusOK, updateDebt},
	{"DELETE", "/api/debts/{id}", "debts:write", "Delete a debt", http.StatusOK, deleteDebt},
	{"POST", "/api/debts/{id}/payments", "debts:write", "Pay a debt: an expense that lowers its pending balance", http.StatusOK, payDebt},

	{"GET", "/api/recurrent", "recurrent:read", "List recurring payments, soonest first", http.StatusOK, listRecords("recurrent", queries.RecurringPayments)},
	{"POST", "/api/recurrent", "recurrent:write", "Create a recurring payment", http.StatusOK, createRecurring},
	{"GET", "/api/recurrent/{id}", "recurrent:read", "Get a recurring payment", http.StatusOK, getRecord("recurring", "RECURRING_NOT_FOUND", queries.RecurringByID)},
	{"PATCH", "/api/recurrent/{id}", "recurrent:write", "Update a recurring payment", http.StatusOK, updateRecurring},
	{"DELETE", "/api/recurrent/{id}", "recurrent:write", "Delete a recurring payment", http.StatusOK, deleteRecurring},
	{"POST", "/api/recurrent/{id}/pay", "recurrent:write", "Pay the current cycle and advance the next payment", http.StatusOK, payRecurring},

	{"GET", "/api/reports", "reports:read", "A report of a date range as JSON, CSV or PDF", http.StatusOK, report},
	{"GET", "/api/reports/monthly-summary", "reports:read", "Month summary: income, expenses, top categories, change against the month before", http.StatusOK, monthlySummary},
	{"GET", "/api/reports/summary", "reports:read", "A date range's totals per currency, expenses by category on one chart, and income and expenses of the twelve months ending with it", http.StatusOK, reportSummary},
	{"GET", "/api/reports/spending-summary", "reports:read", "Total per currency over a period", http.StatusOK, spendingSummary},

	{"GET", "/api/agent/context", "agent:context", "Everything an agent needs at the start of a conversation", http.StatusOK, agentContext},

	{"GET", "/api/exchange-rates", "wallets:read", "Exchange rates in force on a day (default today)", http.StatusOK, listExchangeRates},
	{"PUT", "/api/exchange-rates", "wallets:write", "Set the workspace's own exchange rates for a day", http.StatusOK, setExchangeRates},
	{"POST", "/api/exchange-rates/ecb", "wallets:write", "Fetch the ECB's daily reference rates (at most once every 10 minutes)", http.StatusOK, importECBRates},

	{"GET", "/api/audit", scopeTeamManage, "List audit entries, newest first", http.StatusOK, listAudit},
	{"GET", "/api/audit/verify", scopeTeamManage, "Recompute the workspace's hash chain of events and return its head", http.StatusOK, verifyAudit},
	{"GET", "/api/changes", scopeTransactionsRead, "The records the workspace's history touched after a cursor, each with its state or its deletion", http.StatusOK, listChanges},
	{"GET", "/api/changes/diff", scopeTransactionsRead, "The records whose state differs between two moments, with their states then", http.StatusOK, diffChanges},
	{"GET", "/api/audit/export", scopeTeamManage, "The workspace's history as JSON lines, each event with its chain hash", http.StatusOK, exportAudit},
	{"GET", "/api/export", scopeTeamManage, "The workspace's records as a zip: a CSV per resource and finledger.json, everything in one object", http.StatusOK, exportWorkspace},

	{"GET", "/api/webhooks/outbound", "webhooks:read", "List outbound webhooks (never their secrets; URLs masked unless the caller may change webhooks)", http.StatusOK, listWebhooks},
	{"POST", "/api/webhooks/outbound", "webhooks:write", "Subscribe a URL to workspace events; the answer holds the signing secret once", http.StatusOK, createWebhook},
	{"GET", "/api/webhooks/outbound/{id}", "webhooks:read", "Get an outbound webhook", http.StatusOK, getWebhook},
	{"PATCH", "/api/webhooks/outbound/{id}", "webhooks:write", "Change an outbound webhook's name, URL, events or active flag", http.StatusOK, updateWebhook},
	{"DELETE", "/api/webhooks/outbound/{id}", "webhooks:write", "Delete an outbound webhook", http.StatusOK, deleteWebhook},
	{"POST", "/api/webhooks/outbound/{id}/rotate-secret", "webhooks:write", "Replace the signing secret; the answer holds the new one once", http.StatusOK, rotateWebhookSecret},
	{"POST", "/api/webhooks/outbound/{id}/test", "webhooks:write", "Send a webhook.test delivery", http.StatusOK, testWebhook},
	{"GET", "/api/webhooks/outbound/{id}/deliveries", "webhooks:read", "List a webhook's deliveries with every attempt, newest first", http.StatusOK, listDeliveries},
	{"POST", "/api/webhooks/outbound/{id}/deliveries/{deliveryId}/redeliver", "webhooks:write", "Send a delivery again, keeping its id", http.StatusOK, redeliverWebhook},
	{"POST", incomingPath, scopeTransactionsWrite, "Record a transaction sent by an external system; the key may come as ?key=", http.StatusOK, incomingTransaction},

	{"POST", "/api/me/whatsapp", sessionOnly, "Get a one-time code (10 minutes) to link a phone to the chat channel", http.StatusOK, issueLinkCode},
	{"GET", "/api/me/whatsapp", sessionOnly, "See the chat-channel link (phone masked)", http.StatusOK, getLink},
	{"DELETE", "/api/me/whatsapp", sessionOnly, "Unlink the phone", http.StatusOK, unlink},

	{"POST", "/api/whatsapp/link", channelOnly, "linkWhatsapp: turn a code into a link", http.StatusOK, linkPhone},
	{"POST", "/api/whatsapp/transactions", channelOnly, "createTransactionByName: record an expense or income by wallet and category names", http.StatusCreated, createTransactionByName},
	{"POST", "/api/whatsapp/last-transaction/undo", channelOnly, "undoLastTransaction: delete the last transaction recorded through the channel", http.StatusOK, undoLastTransaction},
	{"PATCH", "/api/whatsapp/last-transaction", channelOnly, "updateLastTransaction: correct the last transaction recorded through the channel", http.StatusOK, updateLastTransaction},
	{"GET", "/api/whatsapp/workspaces", channelOnly, "listMyWorkspaces", http.StatusOK, listChannelWorkspaces},
	{"PUT", "/api/whatsapp/workspace", channelOnly, "setWhatsappWorkspace: change the channel's workspace by name", http.StatusOK, setChannelWorkspace},

	{"POST", "/api/realtime/token", sessionOnly, "Get a 5-minute token to open the workspace's realtime event stream (GET /api/realtime/events?token=)", http.StatusOK, realtimeToken},
	{"POST", "/api/push/subscribe", sessionOnly, "Store the browser's Web Push subscription; the same endpoint again replaces its keys", http.StatusOK, subscribePush},
	{"POST", "/api/push/unsubscribe", sessionOnly, "Remove one of the caller's Web Push subscriptions by endpoint", http.StatusOK, unsubscribePush},
	{"GET", "/api/push/subscriptions", sessionOnly, "List the caller's Web Push subscriptions", http.StatusOK, listPushSubscriptions},
	{"GET", "/api/push/vapid-public-key", sessionOnly, "The VAPID public key to subscribe browsers with", http.StatusOK, pushPublicKey},

	{"GET", "/api/wallets", scopeWalletsRead, "List active wallets with balances", http.StatusOK, listRecordsAsOf("wallets", queries.Wallets)},
	{"POST", "/api/wallets", scopeWalletsWrite, "Create a wallet", http.StatusOK, createWallet},
	{"GET", "/api/wallets/{id}", scopeWalletsRead, "Get a wallet", http.StatusOK, getRecord("wallet", "WALLET_NOT_FOUND", queries.WalletByID)},
	{"PATCH", "/api/wallets/{id}", scopeWalletsWrite, "Update a wallet", http.StatusOK, updateWallet},
	{"DELETE", "/api/wallets/{id}", scopeWalletsWrite, "Archive a wallet", http.StatusOK, archiveWallet},

	{"GET", "/api/categories", scopeCategoriesRead, "List active categories", http.StatusOK, listRecords("categories", queries.Categories)},
	{"POST", "/api/categories", scopeCategoriesWrite, "Create a category", http.StatusOK, createCategory},
	{"GET", "/api/categories/{id}", scopeCategoriesRead, "Get a category", http.StatusOK, getRecord("category", "CATEGORY_NOT_FOUND", queries.CategoryByID)},
	{"PATCH", "/api/categories/{id}", scopeCategoriesWrite, "Update a category", http.StatusOK, updateCategory},
	{"DELETE", "/api/categories/{id}", scopeCategoriesWrite, "Archive a category", http.StatusOK, archiveCategory},

	{"GET", "/api/tags", scopeTagsRead, "List active tags", http.StatusOK, listRecords("tags", queries.Tags)},
	{"POST", "/api/tags", scopeTagsWrite, "Create a tag", http.StatusOK, createTag},
	{"PATCH", "/api/tags/{id}", scopeTagsWrite, "Rename or recolour a tag", http.StatusOK, updateTag},
	{"DELETE", "/api/tags/{id}", scopeTagsWrite, "Archive a tag: it leaves the listing, what carries it keeps it", http.StatusOK, archiveTag},

	{"GET", "/api/transactions", scopeTransactionsRead, "List transactions, filtered and paginated", http.StatusOK, listTransactions},
	{"POST", "/api/transactions", scopeTransactionsWrite, "Create a transaction", http.StatusCreated, createTransaction},
	{"POST", "/api/transactions/bulk", scopeTransactionsWrite, "Delete or recategorize several transactions", http.StatusOK, bulkTransactions},
	{"GET", "/api/transactions/{id}", scopeTransactionsRead, "Get a transaction", http.StatusOK, getRecord("transaction", "TRANSACTION_NOT_FOUND", queries.TransactionByID)},
	{"PATCH", "/api/transactions/{id}", scopeTransactionsWrite, "Correct a transaction", http.StatusOK, updateTransaction},
	{"DELETE", "/api/transactions/{id}", scopeTransactionsWrite, "Delete a transaction (soft delete, balances reverted)", http.StatusOK, deleteTransaction},
}
