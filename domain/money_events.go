package domain

import (
	"github.com/google/uuid"
	"github.com/shopspring/decimal"
)

// Event types of the money features.
const (
	TypeBudgetCreated    = "budget.created.v1"
	TypeBudgetUpdated    = "budget.updated.v1"
	TypeBudgetDeleted    = "budget.deleted.v1"
	TypeGoalCreated      = "goal.created.v1"
	TypeGoalUpdated      = "goal.updated.v1"
	TypeGoalDeleted      = "goal.deleted.v1"
	TypeDebtCreated      = "debt.created.v1"
	TypeDebtUpdated      = "debt.updated.v1"
	TypeDebtDeleted      = "debt.deleted.v1"
	TypeRecurringCreated = "recurring.created.v1"
	TypeRecurringUpdated = "recurring.updated.v1"
	TypeRecurringDeleted = "recurring.deleted.v1"
	TypeRecurringPaid    = "recurring.paid.v1"
	TypeRecurringSkipped = "recurring.skipped.v1"
)

// BudgetFields are a budget's editable fields (spec 2.4).
type BudgetFields struct {
	Name           string          `json:"name"`
	CategoryID     uuid.UUID       `json:"categoryId"`
	Amount         decimal.Decimal `json:"amount"`
	Currency       string          `json:"currency"`
	Period         string          `json:"period"`
	StartDate      Date            `json:"startDate"`
	EndDate        Date            `json:"endDate"`
	AlertThreshold decimal.Decimal `json:"alertThreshold"`
	TagID          *uuid.UUID      `json:"tagId"`
}

// BudgetCreated adds a budget.
type BudgetCreated struct {
	BudgetID uuid.UUID `json:"budgetId"`
	BudgetFields
}

// EventType names BudgetCreated in history.
func (BudgetCreated) EventType() string { return TypeBudgetCreated }

func (BudgetCreated) sealed() {}

// BudgetUpdated replaces a budget's fields.
type BudgetUpdated struct {
	BudgetID uuid.UUID    `json:"budgetId"`
	Before   BudgetFields `json:"before"`
	After    BudgetFields `json:"after"`
}

// EventType names BudgetUpdated in history.
func (BudgetUpdated) EventType() string { return TypeBudgetUpdated }

func (BudgetUpdated) sealed() {}

// BudgetDeleted removes a budget.
type BudgetDeleted struct {
	BudgetID uuid.UUID `json:"budgetId"`
}

// EventType names BudgetDeleted in history.
func (BudgetDeleted) EventType() string { return TypeBudgetDeleted }

func (BudgetDeleted) sealed() {}

// TypeBudgetThresholdReached is decided by the command whose transaction takes a budget
// to its alert threshold, in the same append as the transaction's event.
const TypeBudgetThresholdReached = "budget.threshold_reached.v1"

// BudgetThresholdReached records that a command's transaction took a budget's spending
// in one of its periods (the one holding the transaction's date) to its alert
// threshold: once per budget and period, whatever happens to the spending afterwards.
// Budget is the budget as it stood, so that whatever tells of the alert (webhooks, push
// notifications, the chat channel) needs nothing but the event.
type BudgetThresholdReached struct {
	BudgetID      uuid.UUID `json:"budgetId"`
	TransactionID uuid.UUID `json:"transactionId"`
	PeriodStart   Date      `json:"periodStart"`
	PeriodEnd     Date      `json:"periodEnd"`
	// Spent is what the period's expenses add up to once the command's events apply;
	// Percentage is Spent in percent of the budget's amount (Percent).
	Spent      decimal.Decimal `json:"spent"`
	Percentage decimal.Decimal `json:"percentage"`
	Budget     BudgetFields    `json:"budget"`
}

// EventType names BudgetThresholdReached in history.
func (BudgetThresholdReached) EventType() string { return TypeBudgetThresholdReached }

func (BudgetThresholdReached) sealed() {}

// GoalFields are a savings goal's editable fields.
type GoalFields struct {
	Name         string          `json:"name"`
	TargetAmount decimal.Decimal `json:"targetAmount"`
	Currency     string          `json:"currency"`
	Deadline     *Date           `json:"deadline"`
}

// GoalCreated adds a savings goal; its saved amount starts at zero and moves with
// goal_deposit and goal_withdrawal transactions.
type GoalCreated struct {
	GoalID uuid.UUID `json:"goalId"`
	GoalFields
}

// EventType names GoalCreated in history.
func (GoalCreated) EventType() string { return TypeGoalCreated }

func (GoalCreated) sealed() {}

// GoalUpdated replaces a goal's fields.
type GoalUpdated struct {
	GoalID uuid.UUID  `json:"goalId"`
	Before GoalFields `json:"before"`
	After  GoalFields `json:"after"`
}

// EventType names GoalUpdated in history.
func (GoalUpdated) EventType() string { return TypeGoalUpdated }

func (GoalUpdated) sealed() {}

// GoalDeleted removes an empty goal.
type GoalDeleted struct {
	GoalID uuid.UUID `json:"goalId"`
}

// EventType names GoalDeleted in history.
func (GoalDeleted) EventType() string { return TypeGoalDeleted }

func (GoalDeleted) sealed() {}

// DebtFields are a debt's editable fields. PendingBalance is what is still owed:
// payments (expenses that name the debt) lower it.
type DebtFields struct {
	Name           string          `json:"name"`
	Creditor       *string         `json:"creditor"`
	TotalAmount    decimal.Decimal `json:"totalAmount"`
	PendingBalance decimal.Decimal `json:"pendingBalance"`
	Currency       string          `json:"currency"`
	DueDate        *Date           `json:"dueDate"`
}

// DebtCreated adds a debt.
type DebtCreated struct {
	DebtID uuid.UUID `json:"debtId"`
	DebtFields
}

// EventType names DebtCreated in history.
func (DebtCreated) EventType() string { return TypeDebtCreated }

func (DebtCreated) sealed() {}

// DebtUpdated replaces a debt's fields.
type DebtUpdated struct {
	DebtID uuid.UUID  `json:"debtId"`
	Before DebtFields `json:"before"`
	After  DebtFields `json:"after"`
}

// EventType names DebtUpdated in history.
func (DebtUpdated) EventType() string { return TypeDebtUpdated }

func (DebtUpdated) sealed() {}

// DebtDeleted removes a debt.
type DebtDeleted struct {
	DebtID uuid.UUID `json:"debtId"`
}

// EventType names DebtDeleted in history.
func (DebtDeleted) EventType() string { return TypeDebtDeleted }

func (DebtDeleted) sealed() {}

// GoalPosting is one change, caused by a transaction event, of a goal's saved amount
// and, by the same amount, of the share of the goal that came from WalletID.
type GoalPosting struct {
	GoalID   uuid.UUID       `json:"goalId"`
	WalletID uuid.UUID       `json:"walletId"`
	Amount   decimal.Decimal `json:"amount"`
}

// DebtPosting is one change, caused by a transaction event, of a debt's pending balance.
type DebtPosting struct {
	DebtID uuid.UUID       `json:"debtId"`
	Amount decimal.Decimal `json:"amount"`
}

// Effects are what a transaction event changes in goals and debts. Decide computes
// them, like Postings, so that the state and the read models apply them without
// re-deriving the rules. Events stored before effects travelled in them hold none
// (nil): the state's fold and Upcaster give them the effects decide carries today.
type Effects struct {
	Goals []GoalPosting `json:"goals,omitempty"`
	Debts []DebtPosting `json:"debts,omitempty"`
}

// RecurringFields are a recurring payment's editable fields.
type RecurringFields struct {
	Name        string          `json:"name"`
	Amount      decimal.Decimal `json:"amount"`
	Kind        RecurringKind   `json:"kind"`
	Periodicity string          `json:"periodicity"`
	// NextPayment is the due date of the oldest unpaid cycle; Anchor is the date the
	// cycles count from, so that a monthly item due on the 31st stays on month ends.
	NextPayment Date       `json:"nextPayment"`
	Anchor      Date       `json:"anchor"`
	Active      bool       `json:"active"`
	WalletID    *uuid.UUID `json:"walletId"`
	CategoryID  *uuid.UUID `json:"categoryId"`
}

// RecurringCreated adds a recurring payment.
type RecurringCreated struct {
	RecurringID uuid.UUID `json:"recurringId"`
	RecurringFields
}

// EventType names RecurringCreated in history.
func (RecurringCreated) EventType() string { return TypeRecurringCreated }

func (RecurringCreated) sealed() {}

// RecurringUpdated replaces a recurring payment's fields.
type RecurringUpdated struct {
	RecurringID uuid.UUID       `json:"recurringId"`
	Before      RecurringFields `json:"before"`
	After       RecurringFields `json:"after"`
}

// EventType names RecurringUpdated in history.
func (RecurringUpdated) EventType() string { return TypeRecurringUpdated }

func (RecurringUpdated) sealed() {}

// RecurringDeleted removes a recurring payment.
type RecurringDeleted struct {
	RecurringID uuid.UUID `json:"recurringId"`
}

// EventType names RecurringDeleted in history.
func (RecurringDeleted) EventType() string { return TypeRecurringDeleted }

func (RecurringDeleted) sealed() {}

// RecurringPaid records the payment of the cycle due on DueDate, with the transaction
// that moved the money, and moves the item to its next cycle.
type RecurringPaid struct {
	RecurringID   uuid.UUID `json:"recurringId"`
	DueDate       Date      `json:"dueDate"`
	PaidOn        Date      `json:"paidOn"`
	TransactionID uuid.UUID `json:"transactionId"`
	NextPayment   Date      `json:"nextPayment"`
	Automatic     bool      `json:"automatic"`
}

// EventType names RecurringPaid in history.
func (RecurringPaid) EventType() string { return TypeRecurringPaid }

func (RecurringPaid) sealed() {}

// RecurringSkipped records the cycles of a recurring payment left unpaid because it owed
// more than MaxOwedCycles: the Cycles cycles due from FirstDue to LastDue, both
// included. The item moves to NextPayment, the oldest cycle it still pays.
type RecurringSkipped struct {
	RecurringID uuid.UUID `json:"recurringId"`
	FirstDue    Date      `json:"firstDue"`
	LastDue     Date      `json:"lastDue"`
	Cycles      int       `json:"cycles"`
	NextPayment Date      `json:"nextPayment"`
}

// EventType names RecurringSkipped in history.
func (RecurringSkipped) EventType() string { return TypeRecurringSkipped }

func (RecurringSkipped) sealed() {}

// TypeExchangeRatesSet records rates a workspace sets for itself.
const TypeExchangeRatesSet = "exchange_rates.set.v1"

// ExchangeRate says 1 Base = Rate Quote.
type ExchangeRate struct {
	Base  string          `json:"base"`
	Quote string          `json:"quote"`
	Rate  decimal.Decimal `json:"rate"`
}

// ExchangeRatesSet records the workspace's own rates for a day; they win over the
// reference feed's.
type ExchangeRatesSet struct {
	Date  Date           `json:"date"`
	Rates []ExchangeRate `json:"rates"`
}

// EventType names ExchangeRatesSet in history.
func (ExchangeRatesSet) EventType() string { return TypeExchangeRatesSet }

func (ExchangeRatesSet) sealed() {}
