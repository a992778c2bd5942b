package domain

import (
	"github.com/google/uuid"
	"github.com/shopspring/decimal"
)

// DefaultAlertThreshold is the percentage of a budget spent at which it alerts, when
// its creator names none.
var DefaultAlertThreshold = decimal.NewFromInt(80)

// MaxAlertThresholdScale is the decimal places an alert threshold, a percentage from 1
// to 100, may have: the spending it is compared with is a percentage of two decimals
// (Percent), so a third would never change when a budget alerts.
const MaxAlertThresholdScale = 2

// CreateBudget adds a budget.
//
// Defaults: Currency nil is the workspace's currency; Period nil is monthly;
// AlertThreshold nil is DefaultAlertThreshold (80).
//
// Errors: VALIDATION_ERROR, CATEGORY_NOT_FOUND, TAG_NOT_FOUND.
type CreateBudget struct {
	BudgetID       uuid.UUID
	Name           string
	CategoryID     uuid.UUID
	Amount         decimal.Decimal
	Currency       *string
	Period         *string
	StartDate      Date
	EndDate        Date
	AlertThreshold *decimal.Decimal
	TagID          *uuid.UUID
}

// Decide fills the defaults and checks the budget's category, tag and bounds.
func (c CreateBudget) Decide(w *Workspace) ([]Event, error) {
	fields := BudgetFields{Name: c.Name, CategoryID: c.CategoryID, Amount: c.Amount, Currency: valueOr(c.Currency, w.Currency),
		Period: valueOr(c.Period, PeriodMonthly), StartDate: c.StartDate, EndDate: c.EndDate,
		AlertThreshold: valueOr(c.AlertThreshold, DefaultAlertThreshold), TagID: c.TagID}
	if err := checkBudget(w, fields, true); err != nil {
		return nil, err
	}
	return []Event{&BudgetCreated{BudgetID: c.BudgetID, BudgetFields: fields}}, nil
}

// checkBudget checks a budget's fields against the workspace. newThreshold says the
// alert threshold is the command's own: one stored before its decimal places were
// bounded stands as it is.
func checkBudget(w *Workspace, c BudgetFields, newThreshold bool) error {
	if problem := CheckAmount(c.Amount, false); problem != "" {
		return InvalidField("amount", "%s", problem)
	}
	if c.AlertThreshold.LessThan(decimal.NewFromInt(1)) || c.AlertThreshold.GreaterThan(hundred) {
		return InvalidField("alertThreshold", "must be from 1 to 100")
	}
	if newThreshold && !c.AlertThreshold.Equal(c.AlertThreshold.Truncate(MaxAlertThresholdScale)) {
		return InvalidField("alertThreshold", "must have at most %d decimal places", MaxAlertThresholdScale)
	}
	if c.EndDate.Before(c.StartDate) {
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
//
// Errors: BUDGET_NOT_FOUND, and those of CreateBudget.
type UpdateBudget struct {
	BudgetID       uuid.UUID
	Name           Nullable[string]
	CategoryID     Nullable[uuid.UUID]
	Amount         Nullable[decimal.Decimal]
	Currency       Nullable[string]
	Period         Nullable[string]
	StartDate      Nullable[Date]
	EndDate        Nullable[Date]
	AlertThreshold Nullable[decimal.Decimal]
	TagID          Nullable[uuid.UUID]
}

// Decide applies the changes and checks the result like a new budget.
func (c UpdateBudget) Decide(w *Workspace) ([]Event, error) {
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
	if err := checkBudget(w, after, c.AlertThreshold.Set); err != nil {
		return nil, err
	}
	return []Event{&BudgetUpdated{BudgetID: c.BudgetID, Before: b.BudgetFields, After: after}}, nil
}

// DeleteBudget removes a budget.
//
// Errors: BUDGET_NOT_FOUND.
type DeleteBudget struct {
	BudgetID uuid.UUID
}

// Decide removes a live budget.
func (c DeleteBudget) Decide(w *Workspace) ([]Event, error) {
	if b, ok := w.Budgets[c.BudgetID]; !ok || b.Deleted {
		return nil, NotFound("BUDGET_NOT_FOUND", "budget %s not found", c.BudgetID)
	}
	return []Event{&BudgetDeleted{BudgetID: c.BudgetID}}, nil
}
