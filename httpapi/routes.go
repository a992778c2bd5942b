package httpapi

import (
	"net/http"

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

	{"GET", "/api/audit", scopeTeamManage, "List audit entries, newest first", http.StatusOK, listAudit},

	{"POST", "/api/realtime/token", sessionOnly, "Get a realtime stream token (not available yet)", http.StatusOK, notBuiltYet},
	{"POST", "/api/push/subscribe", sessionOnly, "Store a Web Push subscription (not available yet)", http.StatusOK, notBuiltYet},
	{"POST", "/api/push/unsubscribe", sessionOnly, "Remove a Web Push subscription (not available yet)", http.StatusOK, notBuiltYet},

	{"GET", "/api/wallets", scopeWalletsRead, "List active wallets with balances", http.StatusOK, listRecords("wallets", queries.Wallets)},
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

	{"GET", "/api/transactions", scopeTransactionsRead, "List transactions, filtered and paginated", http.StatusOK, listTransactions},
	{"POST", "/api/transactions", scopeTransactionsWrite, "Create a transaction", http.StatusCreated, createTransaction},
	{"POST", "/api/transactions/bulk", scopeTransactionsWrite, "Delete or recategorize several transactions", http.StatusOK, bulkTransactions},
	{"GET", "/api/transactions/{id}", scopeTransactionsRead, "Get a transaction", http.StatusOK, getRecord("transaction", "TRANSACTION_NOT_FOUND", queries.TransactionByID)},
	{"PATCH", "/api/transactions/{id}", scopeTransactionsWrite, "Correct a transaction", http.StatusOK, updateTransaction},
	{"DELETE", "/api/transactions/{id}", scopeTransactionsWrite, "Delete a transaction (soft delete, balances reverted)", http.StatusOK, deleteTransaction},
}
