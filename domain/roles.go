package domain

// Workspace kinds.
const (
	WorkspacePersonal = "personal" // every user's own, created at first sign-in
	WorkspaceTeam     = "team"
)
