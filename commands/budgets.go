package commands

import (
	"github.com/google/uuid"
	"github.com/shopspring/decimal"
)

// CreateBudget adds a budget.
type CreateBudget struct {
	BudgetID uuid.UUID
	BudgetFields
}

// Decide checks the budget's category, tag and bounds.
func (c CreateBudget) Decide(w *Workspace) ([]NewEvent, error) {
	if err := c.check(w); err != nil {
		return nil, err
	}
	return []NewEvent{{TypeBudgetCreated, &BudgetCreated{BudgetID: c.BudgetID, BudgetFields: c.BudgetFields}}}, nil
}

func (c CreateBudget) check(w *Workspace) error {
	if problem := CheckAmount(c.Amount, false); problem != "" {
		return InvalidField("amount", "%s", problem)
	}
	if c.AlertThreshold.LessThan(decimal.NewFromInt(1)) || c.AlertThreshold.GreaterThan(decimal.NewFromInt(100)) {
		return InvalidField("alertThreshold", "must be from 1 to 100")
	}
	if c.EndDate < c.StartDate {
		return InvalidField("endDate", "must not be before startDate")
	}
	if _, err := w.liveCategory(c.CategoryID); err != nil {
		return err
	}
	if c.TagID != nil {
		if _, err := w.liveTag(*c.TagID); err != nil {
			return err
		}
	}
	return nil
}

// UpdateBudget changes some of a budget's fields.
type UpdateBudget struct {
	BudgetID       uuid.UUID
	Name           Nullable[string]
	CategoryID     Nullable[uuid.UUID]
	Amount         Nullable[decimal.Decimal]
	Currency       Nullable[string]
	Period         Nullable[string]
	StartDate      Nullable[string]
	EndDate        Nullable[string]
	AlertThreshold Nullable[decimal.Decimal]
	TagID          Nullable[uuid.UUID]
}

// Decide applies the changes and checks the result like a new budget.
func (c UpdateBudget) Decide(w *Workspace) ([]NewEvent, error) {
	b, ok := w.Budgets[c.BudgetID]
	if !ok || b.Deleted {
		return nil, NotFound("BUDGET_NOT_FOUND", "budget %s not found", c.BudgetID)
	}
	after := b.BudgetFields
	setValue(&after.Name, c.Name)
	setValue(&after.CategoryID, c.CategoryID)
	setValue(&after.Amount, c.Amount)
	setValue(&after.Currency, c.Currency)
	setValue(&after.Period, c.Period)
	setValue(&after.StartDate, c.StartDate)
	setValue(&after.EndDate, c.EndDate)
	setValue(&after.AlertThreshold, c.AlertThreshold)
	setPtr(&after.TagID, c.TagID)
	if err := (CreateBudget{BudgetFields: after}).check(w); err != nil {
		return nil, err
	}
	return []NewEvent{{TypeBudgetUpdated, &BudgetUpdated{BudgetID: c.BudgetID, Before: b.BudgetFields, After: after}}}, nil
}

// DeleteBudget removes a budget.
type DeleteBudget struct {
	BudgetID uuid.UUID
}

// Decide removes a live budget.
func (c DeleteBudget) Decide(w *Workspace) ([]NewEvent, error) {
	if b, ok := w.Budgets[c.BudgetID]; !ok || b.Deleted {
		return nil, NotFound("BUDGET_NOT_FOUND", "budget %s not found", c.BudgetID)
	}
	return []NewEvent{{TypeBudgetDeleted, &BudgetDeleted{BudgetID: c.BudgetID}}}, nil
}
