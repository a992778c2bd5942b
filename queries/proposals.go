package queries

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/finledger/finledger/domain"
)

// Proposal is a write of an API key held for a person's approval (domain/proposals.go).
type Proposal struct {
	ID    uuid.UUID `json:"id"`
	KeyID uuid.UUID `json:"keyId"`
	// Route, Path and Body are the request a person's approval runs.
	Route   string  `json:"route"`
	Path    string  `json:"path"`
	Body    *string `json:"body"` // JSON, nil for none
	Summary string  `json:"summary"`
	// Status is pending, approved, rejected, failed or expired, at the moment read.
	Status    string     `json:"status"`
	CreatedAt time.Time  `json:"createdAt"`
	ExpiresAt time.Time  `json:"expiresAt"`
	DecidedAt *time.Time `json:"decidedAt"`
	DecidedBy *uuid.UUID `json:"decidedBy"`
	SettledAt *time.Time `json:"settledAt"`
	// ResultStatus is the HTTP status the approved request answered; ErrorCode and
	// ErrorMessage say why it failed.
	ResultStatus *int    `json:"resultStatus"`
	ErrorCode    *string `json:"errorCode"`
	ErrorMessage *string `json:"errorMessage"`
}

const proposalSelect = `SELECT id, key_id, route, path, body, summary, status, created_at, expires_at, decided_at, decided_by,
	settled_at, result_status, error_code, error_message FROM proposals`

// scanProposal reads a proposal, its status as it stands at now.
func scanProposal(now time.Time) func(pgx.CollectableRow) (Proposal, error) {
	return func(row pgx.CollectableRow) (Proposal, error) {
		var p Proposal
		var body string
		err := row.Scan(&p.ID, &p.KeyID, &p.Route, &p.Path, &body, &p.Summary, &p.Status, &p.CreatedAt, &p.ExpiresAt, &p.DecidedAt,
			&p.DecidedBy, &p.SettledAt, &p.ResultStatus, &p.ErrorCode, &p.ErrorMessage)
		if body != "" {
			p.Body = &body
		}
		if p.Status == domain.StatusPending && !now.Before(p.ExpiresAt) {
			p.Status = domain.StatusExpired
		}
		return p, err
	}
}

// ProposalByID looks a proposal of the workspace up, its status at now.
func ProposalByID(workspaceID, id uuid.UUID, now time.Time) Lookup[Proposal] {
	return Lookup[Proposal]{"proposal", proposalSelect + ` WHERE workspace_id = $1 AND id = $2`, []any{workspaceID, id}, scanProposal(now)}
}

// Proposals lists the workspace's proposals, newest first, of one status when status
// is not "", their statuses at now.
func Proposals(ctx context.Context, db DB, workspaceID uuid.UUID, status string, now time.Time) ([]Proposal, error) {
	rows, err := db.Query(ctx, proposalSelect+` WHERE workspace_id = $1
			AND ($2 = '' OR status = CASE WHEN $2 = 'expired' THEN 'pending' ELSE $2 END)
			AND ($2 NOT IN ('pending', 'expired') OR (expires_at > $3) = ($2 = 'pending'))
		ORDER BY created_at DESC, id DESC LIMIT 500`, workspaceID, status, now)
	if err != nil {
		return nil, fmt.Errorf("queries: proposals: %w", err)
	}
	return all(rows, scanProposal(now), "proposals")
}
