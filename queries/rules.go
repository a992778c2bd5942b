package queries

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/finledger/finledger/domain"
)

// Rule is a rule record: what says what a statement's rows are.
type Rule struct {
	ID         uuid.UUID              `json:"id"`
	Name       string                 `json:"name"`
	Position   int                    `json:"position"`
	Conditions []domain.RuleCondition `json:"conditions"`
	Actions    domain.RuleActions     `json:"actions"`
	CreatedAt  time.Time              `json:"createdAt"`
	UpdatedAt  time.Time              `json:"updatedAt"`
}

const ruleColumns = `id, name, position, conditions, actions, created_at, updated_at`

func scanRule(row pgx.CollectableRow) (Rule, error) {
	var r Rule
	err := row.Scan(&r.ID, &r.Name, &r.Position, &r.Conditions, &r.Actions, &r.CreatedAt, &r.UpdatedAt)
	return r, err
}

// Rules lists the workspace's rules in the order they apply.
func Rules(ctx context.Context, db DB, workspaceID uuid.UUID) ([]Rule, error) {
	rows, err := db.Query(ctx, `SELECT `+ruleColumns+` FROM rules WHERE workspace_id = $1 ORDER BY position, id`, workspaceID)
	if err != nil {
		return nil, fmt.Errorf("queries: rules: %w", err)
	}
	return all(rows, scanRule, "rules")
}

// RuleByID looks a rule up.
func RuleByID(workspaceID, id uuid.UUID) Lookup[Rule] {
	return Lookup[Rule]{"rule", `SELECT ` + ruleColumns + ` FROM rules WHERE workspace_id = $1 AND id = $2`,
		[]any{workspaceID, id}, scanRule}
}

// RuleBook is the workspace's rules, ready to apply.
func RuleBook(ctx context.Context, db DB, workspaceID uuid.UUID) (*domain.RuleBook, error) {
	rules, err := Rules(ctx, db, workspaceID)
	if err != nil {
		return nil, err
	}
	defs := make(map[uuid.UUID]domain.RuleDefinition, len(rules))
	for _, r := range rules {
		defs[r.ID] = domain.RuleDefinition{Name: r.Name, Position: r.Position, Conditions: r.Conditions, Actions: r.Actions}
	}
	return domain.NewRuleBook(defs), nil
}

// RuleCandidates lists the newest live income and expenses of the workspace not
// reconciled, at most
// limit, in the wallet and dates given, and whether there are more.
func RuleCandidates(ctx context.Context, db DB, workspaceID uuid.UUID, walletID *uuid.UUID, from, to *domain.Date, limit int) ([]domain.RuleTarget, bool, error) {
	rows, err := db.Query(ctx, `SELECT id, type, amount, wallet_id, concept, coalesce(description, ''), category_id, tag_id,
			splits IS NOT NULL, currency
		FROM transactions WHERE workspace_id = $1 AND deleted_at IS NULL AND NOT reconciled AND type IN ('income', 'expense')
			AND ($2::uuid IS NULL OR wallet_id = $2) AND ($3::date IS NULL OR date >= $3) AND ($4::date IS NULL OR date <= $4)
		ORDER BY date DESC, created_version DESC, id DESC LIMIT $5`, workspaceID, walletID, from, to, limit+1)
	if err != nil {
		return nil, false, fmt.Errorf("queries: rule candidates: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (domain.RuleTarget, error) {
		var c domain.RuleTarget
		var concept *string
		err := row.Scan(&c.TransactionID, &c.Subject.Type, &c.Subject.Amount, &c.Subject.WalletID, &concept, &c.Subject.Memo, &c.CategoryID, &c.TagID, &c.Split, &c.Currency)
		if concept != nil {
			c.Subject.Payee, c.Subject.Concept, c.Concept = *concept, *concept, concept
		}
		return c, err
	})
	if err != nil {
		return nil, false, fmt.Errorf("queries: rule candidates: %w", err)
	}
	if len(out) > limit {
		return out[:limit], true, nil
	}
	return out, false, nil
}

// PayeeCategories counts the live income and expenses of the workspace by concept and
// category, those with both.
func PayeeCategories(ctx context.Context, db DB, workspaceID uuid.UUID) ([]domain.ConceptCategory, error) {
	rows, err := db.Query(ctx, `SELECT concept, category_id, count(*) FROM transactions
		WHERE workspace_id = $1 AND deleted_at IS NULL AND type IN ('income', 'expense') AND concept IS NOT NULL AND category_id IS NOT NULL
		GROUP BY 1, 2`, workspaceID)
	if err != nil {
		return nil, fmt.Errorf("queries: payee categories: %w", err)
	}
	return all(rows, func(row pgx.CollectableRow) (domain.ConceptCategory, error) {
		var p domain.ConceptCategory
		err := row.Scan(&p.Concept, &p.CategoryID, &p.Count)
		return p, err
	}, "payee categories")
}
