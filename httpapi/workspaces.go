package httpapi

import (
	"errors"
	"net/http"
	"strings"

	"github.com/google/uuid"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/queries"
)

func listWorkspaces(s *Server, w http.ResponseWriter, r *http.Request) {
	p := principalFrom(r.Context())
	if p.isKey() {
		respond(w, r, map[string]any{"workspaces": []queries.Workspace{p.Workspace}})
		return
	}
	list, err := queries.Workspaces(r.Context(), s.pool, p.User.ID)
	if err != nil {
		writeError(w, r, err)
		return
	}
	respond(w, r, map[string]any{"workspaces": list})
}

func createWorkspace(s *Server, w http.ResponseWriter, r *http.Request) {
	_, b, ok := readRequest(w, r, false)
	if !ok {
		return
	}
	name := recordName.read(b)
	money := workspaceCurrency.read(b)
	language := workspaceLanguage.read(b)
	p := principalFrom(r.Context())
	if !language.Valid && p.User.Language != nil {
		language.Value = *p.User.Language
	}
	created := domain.CreateWorkspace{WorkspaceID: newID(), Name: name.Value, Currency: money.Value,
		OwnerID: p.User.ID, Language: language.Value}.Opened()
	s.run(w, r, b, command{Open: created,
		Answer: queries.Record("workspace", queries.MemberWorkspace(p.User.ID, created.WorkspaceID))})
}

func deleteWorkspace(s *Server, w http.ResponseWriter, r *http.Request) {
	_, b, ok := readRequest(w, r, false)
	if !ok {
		return
	}
	cmd := domain.DeleteWorkspace{ActorID: principalFrom(r.Context()).User.ID}
	s.run(w, r, b, command{Decide: cmd.Decide, Answer: queries.Value(map[string]bool{"ok": true})})
}

func addMember(s *Server, w http.ResponseWriter, r *http.Request) {
	_, b, ok := readRequest(w, r, false)
	if !ok {
		return
	}
	email := memberEmail.read(b)
	role := memberRole.read(b)
	if email.Valid && !strings.Contains(email.Value, "@") {
		b.fail("email", "must be an email address")
	}
	if err := b.finish(); err != nil {
		writeError(w, r, err)
		return
	}
	p := principalFrom(r.Context())
	userID, err := queries.UserIDByEmail(r.Context(), s.pool, email.Value)
	switch {
	case errors.Is(err, queries.ErrNotFound):
		cmd := domain.InviteMember{Email: email.Value, Role: role.Value, InvitedBy: p.User.ID, ActorRole: p.Workspace.Role}
		s.run(w, r, b, command{Decide: cmd.Decide,
			Answer: queries.Record("member", queries.InvitationByEmail(p.Workspace.ID, email.Value))})
	case err != nil:
		writeError(w, r, err)
	default:
		cmd := domain.AddMember{UserID: userID, Role: role.Value, ActorRole: p.Workspace.Role}
		s.run(w, r, b, command{Decide: cmd.Decide, Answer: queries.Record("member", queries.MemberByID(activeWorkspace(r), userID))})
	}
}

// memberPath reads the path's member or invitation id (param) and the body.
func memberPath(w http.ResponseWriter, r *http.Request, param string) (uuid.UUID, *body, bool) {
	id, err := pathID(r, param)
	if err != nil {
		writeError(w, r, err)
		return uuid.Nil, nil, false
	}
	_, b, ok := readRequest(w, r, false)
	return id, b, ok
}

func updateMember(s *Server, w http.ResponseWriter, r *http.Request) {
	id, b, ok := memberPath(w, r, "userId")
	if !ok {
		return
	}
	role := memberRole.read(b)
	cmd := domain.ChangeMemberRole{UserID: id, Role: role.Value, ActorRole: principalFrom(r.Context()).Workspace.Role}
	s.run(w, r, b, command{Decide: cmd.Decide, Answer: queries.Record("member", queries.MemberByID(activeWorkspace(r), id))})
}

func removeMember(s *Server, w http.ResponseWriter, r *http.Request) {
	id, b, ok := memberPath(w, r, "userId")
	if !ok {
		return
	}
	cmd := domain.RemoveMember{UserID: id, ActorRole: principalFrom(r.Context()).Workspace.Role}
	s.run(w, r, b, command{Decide: cmd.Decide, Answer: queries.Value(map[string]bool{"ok": true})})
}

func cancelInvitation(s *Server, w http.ResponseWriter, r *http.Request) {
	id, b, ok := memberPath(w, r, "invitationId")
	if !ok {
		return
	}
	cmd := domain.CancelInvitation{InvitationID: id, ActorRole: principalFrom(r.Context()).Workspace.Role}
	s.run(w, r, b, command{Decide: cmd.Decide, Answer: queries.Value(map[string]bool{"ok": true})})
}
