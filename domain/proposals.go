package domain

import (
	"cmp"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
)

// A proposal is a write an API key made while its writes are held for a person's
// approval (KeyWritesPropose): the command is decided when the key sends it, so that a
// proposal that could not be carried out is refused at once and one that could says
// what it would do (ProposalCreated.Summary), but only the proposal is recorded. A
// person approves it (the request then runs again as theirs, decided against the state
// of that moment, and may fail cleanly), or rejects it; after ProposalLifetime a
// proposal nobody decided has expired. The request a proposal holds is the HTTP
// request's route, path and body: approving runs the route as the REST API would.

// Writes of an API key.
const (
	KeyWritesApply   = "apply"   // its writes take effect (the default)
	KeyWritesPropose = "propose" // its writes are proposals a person approves
)

// KeyWrites are the values of an API key's writes.
var KeyWrites = []string{KeyWritesApply, KeyWritesPropose}

// ProposalLifetime is how long a proposal waits for a person: then it has expired.
const ProposalLifetime = 7 * 24 * time.Hour

// Statuses of a proposal.
const (
	StatusPending  = "pending"
	StatusApproved = "approved"
	StatusRejected = "rejected"
	StatusFailed   = "failed"
	StatusExpired  = "expired"
)

// ProposalStatuses lists them.
var ProposalStatuses = []string{StatusPending, StatusApproved, StatusRejected, StatusFailed, StatusExpired}

// Event types of proposals.
const (
	TypeProposalCreated  = "proposal.created.v1"
	TypeProposalApproved = "proposal.approved.v1"
	TypeProposalRejected = "proposal.rejected.v1"
	TypeProposalSettled  = "proposal.settled.v1"
)

// ProposalCreated records a key's write held for approval: the request to run, and
// what it would do as decided when it was sent.
type ProposalCreated struct {
	ProposalID uuid.UUID `json:"proposalId"`
	KeyID      uuid.UUID `json:"keyId"`
	// Route is the REST route ("POST /api/transactions"), Path the request's path and
	// query, Body its JSON body ("" for none).
	Route string `json:"route"`
	Path  string `json:"path"`
	Body  string `json:"body"`
	// Summary is what the write would do, for a person (Describe).
	Summary   string    `json:"summary"`
	ExpiresAt time.Time `json:"expiresAt"`
}

// EventType names ProposalCreated in history.
func (ProposalCreated) EventType() string { return TypeProposalCreated }

func (ProposalCreated) sealed() {}

// ProposalApproved records a person's approval; the request runs after it, and its
// outcome is settled (ProposalSettled).
type ProposalApproved struct {
	ProposalID uuid.UUID `json:"proposalId"`
	ApprovedBy uuid.UUID `json:"approvedBy"`
}

// EventType names ProposalApproved in history.
func (ProposalApproved) EventType() string { return TypeProposalApproved }

func (ProposalApproved) sealed() {}

// ProposalRejected records a person's rejection.
type ProposalRejected struct {
	ProposalID uuid.UUID `json:"proposalId"`
	RejectedBy uuid.UUID `json:"rejectedBy"`
}

// EventType names ProposalRejected in history.
func (ProposalRejected) EventType() string { return TypeProposalRejected }

func (ProposalRejected) sealed() {}

// ProposalSettled records how an approved proposal's request ended: its HTTP status,
// and the error's code and message when it failed.
type ProposalSettled struct {
	ProposalID uuid.UUID `json:"proposalId"`
	Status     int       `json:"status"`
	ErrorCode  string    `json:"errorCode,omitempty"`
	Message    string    `json:"message,omitempty"`
}

// EventType names ProposalSettled in history.
func (ProposalSettled) EventType() string { return TypeProposalSettled }

func (ProposalSettled) sealed() {}

// Proposal is a proposal as the write side sees it. Expires is when it expires, in
// Unix seconds (snapshots keep no time.Time).
type Proposal struct {
	Expires  int64
	Approved bool
	Rejected bool
	Settled  bool
}

// status is the proposal's status at now.
func (p *Proposal) status(now time.Time) string {
	switch {
	case p.Rejected:
		return StatusRejected
	case p.Approved:
		return StatusApproved
	case now.Unix() >= p.Expires:
		return StatusExpired
	}
	return StatusPending
}

// applyProposal folds a proposal's event.
func (w *Workspace) applyProposal(event Event) error {
	switch e := event.(type) {
	case *ProposalCreated:
		w.Proposals[e.ProposalID] = &Proposal{Expires: e.ExpiresAt.Unix()}
		return nil
	case *ProposalApproved:
		p, err := find(w.Proposals, e.ProposalID, "proposal")
		if err == nil {
			p.Approved = true
		}
		return err
	case *ProposalRejected:
		p, err := find(w.Proposals, e.ProposalID, "proposal")
		if err == nil {
			p.Rejected = true
		}
		return err
	case *ProposalSettled:
		p, err := find(w.Proposals, e.ProposalID, "proposal")
		if err == nil {
			p.Settled = true
		}
		return err
	}
	return fmt.Errorf("domain: workspace state cannot apply %T: %w", event, ErrUnknownEvent)
}

// Propose records a key's write as a proposal: Write is the write's own decision,
// run against the state now, so that a write that would be refused is refused at once,
// and its events tell the proposal's summary. Nothing of the write is recorded.
type Propose struct {
	ProposalID uuid.UUID
	KeyID      uuid.UUID
	Route      string
	Path       string
	Body       string
	Now        time.Time
	// Write is the write's own decision.
	Write func(*Workspace) ([]Event, error)
}

// Decide decides the write and returns the proposal instead.
func (c Propose) Decide(w *Workspace) ([]Event, error) {
	events, err := c.Write(w)
	if err != nil {
		return nil, err
	}
	if len(events) == 0 {
		return nil, Unprocessable("PROPOSAL_CHANGES_NOTHING", "the write would change nothing: there is nothing to propose")
	}
	return []Event{&ProposalCreated{ProposalID: c.ProposalID, KeyID: c.KeyID, Route: c.Route, Path: c.Path, Body: c.Body,
		Summary: w.Describe(events), ExpiresAt: c.Now.Add(ProposalLifetime).Truncate(time.Second)}}, nil
}

// ApproveProposal approves a pending proposal. An approved proposal whose request has
// not settled yet is approved again without a new event: its request runs once (the
// caller runs it under the proposal's own idempotency key), so that an approval cut
// short, or two at once on two instances, ends as one.
//
// Errors: PROPOSAL_NOT_FOUND, PROPOSAL_DECIDED (rejected, or approved and settled),
// PROPOSAL_EXPIRED.
type ApproveProposal struct {
	ProposalID uuid.UUID
	By         uuid.UUID
	Now        time.Time
}

// Decide returns the approval.
func (c ApproveProposal) Decide(w *Workspace) ([]Event, error) {
	p, err := w.proposal(c.ProposalID)
	if err != nil {
		return nil, err
	}
	switch p.status(c.Now) {
	case StatusPending:
		return []Event{&ProposalApproved{ProposalID: c.ProposalID, ApprovedBy: c.By}}, nil
	case StatusApproved:
		if !p.Settled {
			return nil, nil
		}
	case StatusExpired:
		return nil, Conflict("PROPOSAL_EXPIRED", "proposal %s expired unapproved: the agent may propose it again", c.ProposalID)
	}
	return nil, Conflict("PROPOSAL_DECIDED", "proposal %s is %s already", c.ProposalID, p.status(c.Now))
}

// RejectProposal rejects a pending proposal.
//
// Errors: PROPOSAL_NOT_FOUND, PROPOSAL_DECIDED, PROPOSAL_EXPIRED.
type RejectProposal struct {
	ProposalID uuid.UUID
	By         uuid.UUID
	Now        time.Time
}

// Decide returns the rejection.
func (c RejectProposal) Decide(w *Workspace) ([]Event, error) {
	p, err := w.proposal(c.ProposalID)
	if err != nil {
		return nil, err
	}
	switch status := p.status(c.Now); status {
	case StatusPending:
		return []Event{&ProposalRejected{ProposalID: c.ProposalID, RejectedBy: c.By}}, nil
	case StatusExpired:
		return nil, Conflict("PROPOSAL_EXPIRED", "proposal %s expired: there is nothing to reject", c.ProposalID)
	default:
		return nil, Conflict("PROPOSAL_DECIDED", "proposal %s is %s already", c.ProposalID, status)
	}
}

// SettleProposal records the outcome of an approved proposal's request, once.
type SettleProposal struct {
	ProposalID uuid.UUID
	Status     int
	ErrorCode  string
	Message    string
}

// Decide returns the settlement, or nothing when it is settled already.
func (c SettleProposal) Decide(w *Workspace) ([]Event, error) {
	p, err := w.proposal(c.ProposalID)
	if err != nil {
		return nil, err
	}
	if !p.Approved {
		return nil, fmt.Errorf("domain: proposal %s settled unapproved", c.ProposalID)
	}
	if p.Settled {
		return nil, nil
	}
	return []Event{&ProposalSettled{ProposalID: c.ProposalID, Status: c.Status, ErrorCode: c.ErrorCode, Message: c.Message}}, nil
}

func (w *Workspace) proposal(id uuid.UUID) (*Proposal, error) {
	p, ok := w.Proposals[id]
	if !ok {
		return nil, NotFound("PROPOSAL_NOT_FOUND", "proposal %s not found", id)
	}
	return p, nil
}

// Describe tells a person what events would do, one clause each: "expense 250.00 MXN,
// Groceries, from Cash". Names are the workspace's now.
func (w *Workspace) Describe(events []Event) string {
	var parts []string
	for _, stored := range events {
		for e := range Parts(stored) {
			parts = append(parts, w.describe(e))
		}
	}
	return strings.Join(parts, "; ")
}

func (w *Workspace) describe(e Event) string {
	switch e := e.(type) {
	case *TransactionCreated:
		s := fmt.Sprintf("%s %s %s", e.Type, ExactString(e.Amount), e.Currency)
		if e.Concept != nil {
			s += fmt.Sprintf(", %q", *e.Concept)
		}
		if name := w.categoryName(e.CategoryID); name != "" {
			s += ", " + name
		}
		for _, p := range e.Splits {
			s += fmt.Sprintf(", %s %s", ExactString(p.Amount), cmp.Or(w.categoryName(p.CategoryID), "uncategorized"))
		}
		if wallet, ok := w.Wallets[e.WalletID]; ok {
			s += ", from " + wallet.Name
		}
		if to := w.walletOf(e.ToWalletID); to != nil {
			s += " to " + to.Name
		}
		return s + ", on " + e.Date.String()
	case *TransactionUpdated:
		return fmt.Sprintf("correct transaction %s", e.TransactionID)
	case *TransactionDeleted:
		return fmt.Sprintf("delete transaction %s", e.TransactionID)
	case *BudgetCreated:
		return fmt.Sprintf("budget %q, %s %s %s for %s", e.Name, ExactString(e.Amount), e.Currency, e.Period,
			cmp.Or(w.categoryName(&e.CategoryID), e.CategoryID.String()))
	}
	return e.EventType()
}

func (w *Workspace) categoryName(id *uuid.UUID) string {
	if id == nil {
		return ""
	}
	if c, ok := w.Categories[*id]; ok {
		return c.Name
	}
	return ""
}
