package commands

// Workspace roles.
const (
	RoleOwner        = "owner"
	RoleAdmin        = "admin"
	RoleCollaborator = "collaborator"
	RoleReader       = "reader"
)

// Roles lists the roles, most powerful first.
var Roles = []string{RoleOwner, RoleAdmin, RoleCollaborator, RoleReader}

// ScopeAll grants every scope, current and future.
const ScopeAll = "*"

// Scopes lists every scope an API key may carry (spec 5.3).
var Scopes = []string{
	ScopeAll,
	"transactions:read", "transactions:write", "wallets:read", "wallets:write",
	"categories:read", "categories:write", "budgets:read", "budgets:write",
	"goals:read", "goals:write", "recurrent:read", "recurrent:write",
	"reports:read", "profile:read", "profile:write", "agent:context",
	"debts:read", "debts:write", "team:manage", "sharing:read", "sharing:manage",
	"groups:read", "groups:manage", "comments:read", "comments:write",
	"tags:read", "tags:write", "invoices:read", "invoices:write",
	"customers:read", "customers:write", "webhooks:read", "webhooks:write", "uploads:write",
}

// roleScopes is what each role may do in a workspace. Owners and admins hold every
// scope; what sets owners apart (deleting the workspace, managing owners) is checked by
// role, not by scope. Collaborators record and organise money but do not manage the
// team, its sharing, tags or webhooks; readers only read.
var roleScopes = map[string][]string{
	RoleOwner: {ScopeAll},
	RoleAdmin: {ScopeAll},
	RoleCollaborator: {
		"transactions:read", "transactions:write", "wallets:read", "wallets:write",
		"categories:read", "categories:write", "budgets:read", "budgets:write",
		"goals:read", "goals:write", "recurrent:read", "recurrent:write",
		"reports:read", "profile:read", "profile:write", "agent:context",
		"debts:read", "debts:write", "sharing:read", "groups:read",
		"comments:read", "comments:write", "tags:read", "invoices:read", "invoices:write",
		"customers:read", "customers:write", "webhooks:read", "uploads:write",
	},
	RoleReader: {
		"transactions:read", "wallets:read", "categories:read", "budgets:read", "goals:read",
		"recurrent:read", "reports:read", "profile:read", "profile:write", "agent:context",
		"debts:read", "sharing:read", "groups:read", "comments:read", "tags:read",
		"invoices:read", "customers:read", "webhooks:read",
	},
}

// RoleScopes returns the scopes a role holds; an unknown role holds none.
func RoleScopes(role string) []string { return roleScopes[role] }

// KnownScope reports whether s is a scope name.
func KnownScope(s string) bool {
	for _, known := range Scopes {
		if s == known {
			return true
		}
	}
	return false
}

// Grants reports whether the granted scopes allow the needed one.
func Grants(granted []string, needed string) bool {
	for _, g := range granted {
		if g == ScopeAll || g == needed {
			return true
		}
	}
	return false
}
