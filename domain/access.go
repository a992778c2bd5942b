package domain

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

// KeyScopes returns the scopes an API key holds for good: those of its own list that
// its creator's role granted when it was made, so that no later change of role widens
// it. An owner's or admin's `*` stays `*`, every scope to come included; another role's
// stands for that role's scopes. A key whose list its role granted nothing of holds an
// empty list, never nil.
func KeyScopes(scopes []string, roleWhenMade string) []string {
	granted := RoleScopes(roleWhenMade)
	if Grants(granted, ScopeAll) {
		return scopes
	}
	held := []string{}
	for _, s := range granted {
		if Grants(scopes, s) {
			held = append(held, s)
		}
	}
	return held
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
