package commands

// RoleOwner is the role of a workspace's creator.
const RoleOwner = "owner"

// WorkspacePersonal is the kind of the workspace every user gets.
const WorkspacePersonal = "personal"
