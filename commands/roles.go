package commands

// Workspace roles.
const (
	RoleOwner        = "owner"
	RoleAdmin        = "admin"
	RoleCollaborator = "collaborator"
	RoleReader       = "reader"
)

// Workspace kinds.
const (
	WorkspacePersonal = "personal"
	WorkspaceTeam     = "team"
)
