package httpapi

import (
	"net/http"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/ledger"
	"github.com/finledger/finledger/queries"
)

// agentUndoSince is the moment from which an API key's work is undone.
var agentUndoSince = timestampField{Name: "since"}

// undoAgentWork reverses, in one command, what an API key did since a moment, and
// answers what it reversed and what it skipped (domain.UndoAgentWork).
func undoAgentWork(s *Server, w http.ResponseWriter, r *http.Request) {
	keyID, err := pathID(r, "keyId")
	if err != nil {
		writeError(w, r, err)
		return
	}
	_, b, ok := readRequest(w, r, false)
	if !ok {
		return
	}
	since := agentUndoSince.read(b)
	if since.Valid && since.Value.After(s.now()) {
		b.fail("since", "is in the future")
	}
	p := principalFrom(r.Context())
	cmd := domain.UndoAgentWork{KeyID: keyID, ActorID: p.User.ID, ActorRole: p.Workspace.Role}
	var undo domain.AgentUndo
	s.run(w, r, b, command{Bind: ledger.BindAgentUndo(&cmd, since.Value, &undo), Answer: queries.Value(&undo)})
}
