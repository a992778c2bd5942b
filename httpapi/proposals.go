package httpapi

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/ledger"
	"github.com/finledger/finledger/queries"
)

// A key whose writes are held for approval (domain.KeyWritesPropose) sends its writes as
// anyone does, through REST or the MCP server. Each write route that takes proposals
// (route.Proposable) records, instead of the write, a proposal: the write's own decision
// is run against the state now (a write that would be refused is refused at once, and
// one that would not tells what it would do), and the request is kept to run again when
// a person approves it. The answer is 202 {proposal}. Such a key may send no other write.

// errNotProposable refuses a write a key whose writes are proposals cannot propose.
func errNotProposable(rt *route) error {
	return errorf(http.StatusForbidden, "FORBIDDEN", fmt.Sprintf("this API key's writes are held for approval, and %s %s cannot be proposed",
		rt.Method, rt.Pattern))
}

// proposed is the command that records c, a write of a route that takes proposals, as a
// proposal, answered with the proposal.
func (s *Server) proposed(r *http.Request, rt *route, p *principal, b *body, c command) (command, error) {
	if c.Decide == nil || c.Bind != nil || c.Open != nil || c.DecideUser != nil {
		return c, errNotProposable(rt)
	}
	keyID, err := uuid.Parse(p.Metadata.ActorID)
	if err != nil {
		return c, fmt.Errorf("httpapi: a proposing key's id: %w", err)
	}
	var text string
	if len(b.fields) > 0 {
		raw, err := json.Marshal(b.fields)
		if err != nil {
			return c, fmt.Errorf("httpapi: a proposal's body: %w", err)
		}
		text = string(raw)
	}
	now := s.now()
	cmd := domain.Propose{ProposalID: newID(), KeyID: keyID, Route: rt.Method + " " + rt.Pattern, Path: r.URL.RequestURI(),
		Body: text, Now: now, Write: c.Decide}
	return command{Decide: cmd.Decide, Answer: queries.Record("proposal", queries.ProposalByID(p.Workspace.ID, cmd.ProposalID, now))}, nil
}

func listProposals(s *Server, w http.ResponseWriter, r *http.Request) {
	q := &query{values: r.URL.Query()}
	status := q.values.Get("status")
	if status != "" && !strings.Contains(" "+strings.Join(domain.ProposalStatuses, " ")+" ", " "+status+" ") {
		q.fail("status", "must be one of "+strings.Join(domain.ProposalStatuses, ", "))
	}
	if err := q.err(); err != nil {
		writeError(w, r, err)
		return
	}
	list, err := queries.Proposals(r.Context(), s.pool, activeWorkspace(r), status, s.now())
	if err != nil {
		writeError(w, r, err)
		return
	}
	respond(w, r, map[string]any{"proposals": list})
}

func getProposal(s *Server, w http.ResponseWriter, r *http.Request) {
	getRecord("proposal", "PROPOSAL_NOT_FOUND", func(workspaceID, id uuid.UUID) queries.Lookup[queries.Proposal] {
		return queries.ProposalByID(workspaceID, id, s.now())
	})(s, w, r)
}

func rejectProposal(s *Server, w http.ResponseWriter, r *http.Request) {
	id, b, ok := readRequest(w, r, true)
	if !ok {
		return
	}
	p := principalFrom(r.Context())
	cmd := domain.RejectProposal{ProposalID: id, By: p.User.ID, Now: s.now()}
	s.run(w, r, b, command{Decide: cmd.Decide, Answer: queries.Record("proposal", queries.ProposalByID(p.Workspace.ID, id, cmd.Now))})
}

// approveProposal approves a proposal and runs its request as the person approving it
// (their role must allow the route), decided against the state now, under the
// proposal's own idempotency key: an approval cut short and sent again, or two at once
// on two instances, runs it once. The answer is the proposal, settled, and the
// request's own answer (result).
func approveProposal(s *Server, w http.ResponseWriter, r *http.Request) {
	id, b, ok := readRequest(w, r, true)
	if !ok {
		return
	}
	if err := b.finish(); err != nil {
		writeError(w, r, err)
		return
	}
	ctx, p, now := r.Context(), principalFrom(r.Context()), s.now()
	proposal, err := queries.ProposalByID(p.Workspace.ID, id, now).Get(ctx, s.pool)
	if err != nil {
		writeError(w, r, notFoundAs(err, "PROPOSAL_NOT_FOUND", "proposal not found"))
		return
	}
	rt, ok := s.routeByName[proposal.Route]
	if !ok || !rt.Proposable {
		writeError(w, r, fmt.Errorf("httpapi: proposal %s names no route that takes proposals: %s", id, proposal.Route))
		return
	}
	if err := p.authorize(rt.Scope); err != nil {
		writeError(w, r, err)
		return
	}
	approve := domain.ApproveProposal{ProposalID: id, By: p.User.ID, Now: now}
	if _, err := s.ledger.Execute(ctx, ledger.Call{WorkspaceID: p.Workspace.ID, Metadata: p.Metadata, Decide: approve.Decide}); err != nil {
		writeError(w, r, err)
		return
	}
	result := s.runProposal(r, rt, p, proposal)
	settle := domain.SettleProposal{ProposalID: id, Status: result.Code}
	var answer json.RawMessage = result.Body.Bytes()
	if result.Code >= http.StatusBadRequest {
		var refused struct {
			Error struct{ Code, Message string } `json:"error"`
		}
		if err := json.Unmarshal(answer, &refused); err != nil {
			writeError(w, r, fmt.Errorf("httpapi: proposal %s's refusal: %w", id, err))
			return
		}
		settle.ErrorCode, settle.Message = refused.Error.Code, refused.Error.Message
	}
	if _, err := s.ledger.Execute(ctx, ledger.Call{WorkspaceID: p.Workspace.ID, Metadata: p.Metadata, Decide: settle.Decide}); err != nil {
		writeError(w, r, err)
		return
	}
	settled, err := queries.ProposalByID(p.Workspace.ID, id, now).Get(ctx, s.pool)
	if err != nil {
		writeError(w, r, err)
		return
	}
	respond(w, r, map[string]any{"proposal": settled, "result": answer})
}

// runProposal runs a proposal's request through its route as p, the person approving
// it, with the proposal's own idempotency key: the same for whoever approves it.
func (s *Server) runProposal(r *http.Request, rt route, p *principal, proposal queries.Proposal) *httptest.ResponseRecorder {
	var body io.Reader = http.NoBody
	if proposal.Body != nil {
		body = strings.NewReader(*proposal.Body)
	}
	req := httptest.NewRequestWithContext(r.Context(), rt.Method, proposal.Path, body)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", "proposal-"+proposal.ID.String())
	as := *p
	as.Credential = "proposal:" + proposal.ID.String()
	mux := chi.NewRouter()
	mux.Method(rt.Method, rt.Pattern, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { s.serveAs(rt, &as, w, r) }))
	answer := httptest.NewRecorder()
	mux.ServeHTTP(answer, req)
	return answer
}
