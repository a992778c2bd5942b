package domain

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
)

// Rules say what a transaction is from what its statement says: ordered, each with
// conditions that must all hold and actions. The first live rule whose conditions hold
// is the one that applies, in a statement's preview and when rules are applied to
// transactions already recorded.

// The rule event types.
const (
	TypeRuleCreated = "rule.created.v1"
	TypeRuleUpdated = "rule.updated.v1"
	TypeRuleDeleted = "rule.deleted.v1"
)

// The fields a rule's condition reads, and how it compares.
const (
	RuleFieldPayee   = "payee"   // a statement row's payee; a recorded transaction's concept
	RuleFieldConcept = "concept" // the proposed or recorded concept
	RuleFieldMemo    = "memo"    // a statement row's memo; a recorded transaction's description
	RuleFieldAmount  = "amount"  // the amount, money in or out alike
	RuleFieldWallet  = "wallet"
	RuleFieldType    = "type"

	RuleOpContains   = "contains"
	RuleOpEquals     = "equals"
	RuleOpStartsWith = "starts_with"
	RuleOpMatches    = "matches" // a regular expression (RE2: linear in the text, no backtracking)
	RuleOpBetween    = "between" // amounts from Value to ValueTo, both included
)

// RuleFields and RuleOps list the fields and comparisons of conditions.
var (
	RuleFields = []string{RuleFieldPayee, RuleFieldConcept, RuleFieldMemo, RuleFieldAmount, RuleFieldWallet, RuleFieldType}
	RuleOps    = []string{RuleOpContains, RuleOpEquals, RuleOpStartsWith, RuleOpMatches, RuleOpBetween}
)

// Rule limits.
const (
	MaxRules          = 500
	MaxRuleConditions = 10
	MaxRulePattern    = 200
)

// RuleCondition is one condition of a rule.
type RuleCondition struct {
	Field   string `json:"field"`
	Op      string `json:"op"`
	Value   string `json:"value"`
	ValueTo string `json:"valueTo,omitempty"`
}

// RuleActions are what a rule sets; nil leaves a field as it was. Skip leaves a
// statement's row out of its import.
type RuleActions struct {
	CategoryID *uuid.UUID       `json:"categoryId,omitempty"`
	TagID      *uuid.UUID       `json:"tagId,omitempty"`
	Concept    *string          `json:"concept,omitempty"`
	Type       *TransactionType `json:"type,omitempty"`
	ToWalletID *uuid.UUID       `json:"toWalletId,omitempty"`
	Skip       bool             `json:"skip,omitempty"`
	// Splits split an income or expense in parts by percent (RuleSplit), in place of one
	// category.
	Splits []RuleSplit `json:"splits,omitempty"`
}

// RuleSplit is one part a rule splits an income or expense in: its percent of the
// amount, and the part's category, tag and concept. A rule's parts add up to 100
// percent; SplitByPercent makes them amounts.
type RuleSplit struct {
	Percent    decimal.Decimal `json:"percent"`
	CategoryID *uuid.UUID      `json:"categoryId,omitempty"`
	TagID      *uuid.UUID      `json:"tagId,omitempty"`
	Concept    *string         `json:"concept,omitempty"`
}

// MarshalJSON writes the percent as a JSON number of its exact digits, as the API
// writes numbers, in answers and events alike.
func (s RuleSplit) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Percent    json.Number `json:"percent"`
		CategoryID *uuid.UUID  `json:"categoryId,omitempty"`
		TagID      *uuid.UUID  `json:"tagId,omitempty"`
		Concept    *string     `json:"concept,omitempty"`
	}{json.Number(ExactString(s.Percent)), s.CategoryID, s.TagID, s.Concept})
}

// SplitByPercent shares amount among a rule's parts, in currency: each part its percent
// of the amount cut to the currency's minor unit (or the amount's own scale, if finer),
// the last part what the others leave, so that they add up exactly to the amount. It
// returns nil when a part would come to nothing (a cent split in three).
func SplitByPercent(amount decimal.Decimal, currency string, splits []RuleSplit) []SplitPart {
	scale := max(MinorUnit(currency), -amount.Exponent())
	parts := make([]SplitPart, len(splits))
	left := amount
	for i, s := range splits {
		share := left
		if i < len(splits)-1 {
			share = amount.Mul(s.Percent).Div(hundred).Truncate(scale)
		}
		if !share.IsPositive() {
			return nil
		}
		left = left.Sub(share)
		parts[i] = SplitPart{Amount: share, Currency: currency, CategoryID: s.CategoryID, TagID: s.TagID, Concept: s.Concept}
	}
	return parts
}

// RuleDefinition is a rule's editable fields.
type RuleDefinition struct {
	Name       string          `json:"name"`
	Position   int             `json:"position"`
	Conditions []RuleCondition `json:"conditions"`
	Actions    RuleActions     `json:"actions"`
}

// Rule is a rule as the write side sees it.
type Rule struct {
	RuleDefinition
	Deleted bool
}

// RuleCreated: a rule was added.
type RuleCreated struct {
	RuleID uuid.UUID      `json:"ruleId"`
	Rule   RuleDefinition `json:"rule"`
}

// EventType names RuleCreated in history.
func (RuleCreated) EventType() string { return TypeRuleCreated }

func (RuleCreated) sealed() {}

// RuleUpdated: a rule changed.
type RuleUpdated struct {
	RuleID uuid.UUID      `json:"ruleId"`
	Before RuleDefinition `json:"before"`
	After  RuleDefinition `json:"after"`
}

// EventType names RuleUpdated in history.
func (RuleUpdated) EventType() string { return TypeRuleUpdated }

func (RuleUpdated) sealed() {}

// RuleDeleted: a rule was removed.
type RuleDeleted struct {
	RuleID uuid.UUID `json:"ruleId"`
}

// EventType names RuleDeleted in history.
func (RuleDeleted) EventType() string { return TypeRuleDeleted }

func (RuleDeleted) sealed() {}

// CreateRule adds a rule; one without a position goes after the others.
//
// Errors: VALIDATION_ERROR (a condition or action that cannot hold); CATEGORY_NOT_FOUND,
// TAG_NOT_FOUND, WALLET_NOT_FOUND; CONFLICT (past MaxRules).
type CreateRule struct {
	RuleID uuid.UUID
	Rule   RuleDefinition
}

// Decide checks the rule against the workspace and returns its event.
func (c CreateRule) Decide(w *Workspace) ([]Event, error) {
	if err := w.checkRule(&c.Rule); err != nil {
		return nil, err
	}
	live := w.liveRules()
	if len(live) >= MaxRules {
		return nil, Conflict("CONFLICT", "a workspace holds at most %d rules", MaxRules)
	}
	if c.Rule.Position <= 0 {
		c.Rule.Position = 1
		if len(live) > 0 {
			c.Rule.Position = w.Rules[live[len(live)-1]].Position + 1
		}
	}
	return append(w.makeRoom(c.Rule.Position, c.RuleID), &RuleCreated{RuleID: c.RuleID, Rule: c.Rule}), nil
}

// makeRoom moves the live rules from position on, but self, one place down when one
// of them holds it, so that positions stay an order without ties.
func (w *Workspace) makeRoom(position int, self uuid.UUID) []Event {
	var moves []Event
	next := position
	for _, id := range w.liveRules() {
		r := w.Rules[id]
		if id == self || r.Position < position {
			continue
		}
		if r.Position > next {
			break
		}
		after := r.RuleDefinition
		after.Position = next + 1
		next = after.Position
		moves = append(moves, &RuleUpdated{RuleID: id, Before: r.RuleDefinition, After: after})
	}
	return moves
}

// UpdateRule changes a rule: the fields given replace the rule's, its conditions and
// its actions each as a whole.
//
// Errors: RULE_NOT_FOUND, and CreateRule's.
type UpdateRule struct {
	RuleID     uuid.UUID
	Name       *string
	Position   *int
	Conditions []RuleCondition // nil keeps them
	Actions    *RuleActions
}

// Decide checks the changed rule and returns the change, or nothing when the rule
// already is so.
func (c UpdateRule) Decide(w *Workspace) ([]Event, error) {
	old, ok := w.Rules[c.RuleID]
	if !ok || old.Deleted {
		return nil, NotFound("RULE_NOT_FOUND", "rule %s not found", c.RuleID)
	}
	after := old.RuleDefinition
	if c.Name != nil {
		after.Name = *c.Name
	}
	if c.Position != nil {
		after.Position = *c.Position
	}
	if c.Conditions != nil {
		after.Conditions = c.Conditions
	}
	if c.Actions != nil {
		after.Actions = *c.Actions
	}
	if err := w.checkRule(&after); err != nil {
		return nil, err
	}
	if ruleEqual(old.RuleDefinition, after) {
		return nil, nil
	}
	var moves []Event
	if after.Position != old.Position {
		moves = w.makeRoom(after.Position, c.RuleID)
	}
	return append(moves, &RuleUpdated{RuleID: c.RuleID, Before: old.RuleDefinition, After: after}), nil
}

// DeleteRule removes a rule.
type DeleteRule struct {
	RuleID uuid.UUID
}

// Decide removes a live rule.
func (c DeleteRule) Decide(w *Workspace) ([]Event, error) {
	if r, ok := w.Rules[c.RuleID]; !ok || r.Deleted {
		return nil, NotFound("RULE_NOT_FOUND", "rule %s not found", c.RuleID)
	}
	return []Event{&RuleDeleted{RuleID: c.RuleID}}, nil
}

// checkRule refuses a rule that cannot hold or names what does not exist.
func (w *Workspace) checkRule(r *RuleDefinition) error {
	var errs []FieldError
	fail := func(field, format string, args ...any) {
		errs = append(errs, FieldError{Field: field, Message: fmt.Sprintf(format, args...)})
	}
	switch n := len(r.Conditions); {
	case n == 0:
		fail("conditions", "must hold at least one condition")
	case n > MaxRuleConditions:
		fail("conditions", "must hold at most %d conditions", MaxRuleConditions)
	}
	for i, c := range r.Conditions {
		if problem := c.check(); problem != "" {
			fail(fmt.Sprintf("conditions[%d]", i), "%s", problem)
		}
	}
	a := r.Actions
	if reflect.ValueOf(a).IsZero() {
		fail("actions", "must set something: a category, a tag, a concept, a type, a transfer, parts or skip")
	}
	if a.Splits != nil {
		checkRuleSplits(a, fail)
	}
	if a.Type != nil && *a.Type != TxIncome && *a.Type != TxExpense && *a.Type != TxTransfer {
		fail("actions.type", "must be income, expense or transfer")
	}
	if (a.ToWalletID != nil) != (a.Type != nil && *a.Type == TxTransfer) {
		fail("actions.toWalletId", "goes with the type transfer, and it with it")
	}
	if len(errs) > 0 {
		return Invalid(errs...)
	}
	if a.CategoryID != nil {
		if c, ok := w.Categories[*a.CategoryID]; !ok || c.Archived {
			return NotFound("CATEGORY_NOT_FOUND", "category %s not found", *a.CategoryID)
		}
	}
	if a.TagID != nil {
		if _, err := w.liveTag(*a.TagID); err != nil {
			return err
		}
	}
	if a.ToWalletID != nil {
		if wallet, ok := w.Wallets[*a.ToWalletID]; !ok || wallet.Archived {
			return NotFound("WALLET_NOT_FOUND", "wallet %s not found", *a.ToWalletID)
		}
	}
	for i, s := range a.Splits {
		if s.CategoryID != nil {
			if _, err := w.liveCategory(*s.CategoryID); err != nil {
				return NotFound("CATEGORY_NOT_FOUND", "category %s of part %d not found", *s.CategoryID, i)
			}
		}
		if s.TagID != nil {
			if _, err := w.liveTag(*s.TagID); err != nil {
				return NotFound("TAG_NOT_FOUND", "tag %s of part %d not found", *s.TagID, i)
			}
		}
	}
	return nil
}

// checkRuleSplits checks a rule's parts: two at least, each a positive percent of at
// most two decimals, adding up to 100, and no category of the whole, transfer or skip
// beside them.
func checkRuleSplits(a RuleActions, fail func(field, format string, args ...any)) {
	switch {
	case len(a.Splits) < 2 || len(a.Splits) > MaxSplitParts:
		fail("actions.splits", "must hold 2 to %d parts", MaxSplitParts)
		return
	case a.CategoryID != nil:
		fail("actions.categoryId", "is left out beside splits: each part has its own category")
	case a.Skip || a.Type != nil && *a.Type == TxTransfer:
		fail("actions.splits", "split an income or an expense: not with a transfer or skip")
	}
	sum := decimal.Zero
	for i, s := range a.Splits {
		if !s.Percent.IsPositive() || !s.Percent.Equal(s.Percent.Truncate(2)) || s.Percent.GreaterThan(hundred) {
			fail(fmt.Sprintf("actions.splits[%d].percent", i), "must be more than 0 and at most 100, with two decimals at most")
		}
		sum = sum.Add(s.Percent)
	}
	if !sum.Equal(hundred) {
		fail("actions.splits", "the parts' percents add up to %s, not 100", sum)
	}
}

// check says why a condition cannot hold, "" when it can.
func (c RuleCondition) check() string {
	text := []string{RuleOpContains, RuleOpEquals, RuleOpStartsWith, RuleOpMatches}
	switch c.Field {
	case RuleFieldPayee, RuleFieldConcept, RuleFieldMemo:
		if !slices.Contains(text, c.Op) {
			return fmt.Sprintf("a %s compares by %s", c.Field, strings.Join(text, ", "))
		}
		if c.Value == "" || len([]rune(c.Value)) > MaxRulePattern {
			return fmt.Sprintf("value must be 1 to %d characters long", MaxRulePattern)
		}
		if c.Op == RuleOpMatches {
			if _, err := regexp.Compile("(?i)" + c.Value); err != nil {
				return "value is not a regular expression: " + err.Error()
			}
		}
	case RuleFieldAmount:
		from, err := decimal.NewFromString(c.Value)
		if err != nil || from.IsNegative() {
			return "value must be an amount, not negative"
		}
		switch c.Op {
		case RuleOpEquals:
		case RuleOpBetween:
			to, err := decimal.NewFromString(c.ValueTo)
			if err != nil || to.LessThan(from) {
				return "valueTo must be an amount not below value"
			}
		default:
			return "an amount compares by equals or between"
		}
	case RuleFieldWallet:
		if _, err := uuid.Parse(c.Value); err != nil || c.Op != RuleOpEquals {
			return "a wallet compares by equals, with a wallet's id"
		}
	case RuleFieldType:
		if c.Op != RuleOpEquals || !slices.Contains([]string{string(TxIncome), string(TxExpense), string(TxTransfer)}, c.Value) {
			return "a type compares by equals, with income, expense or transfer"
		}
	default:
		return fmt.Sprintf("field must be one of %s", strings.Join(RuleFields, ", "))
	}
	return ""
}

// RuleSubject is what rules read of a statement row or a recorded transaction.
type RuleSubject struct {
	Payee, Concept, Memo string
	Amount               decimal.Decimal // money in or out alike
	WalletID             uuid.UUID
	Type                 TransactionType
}

// Matches reports whether every condition of the rule holds for s. Text compares
// ignoring accents and case.
func (r RuleDefinition) Matches(s RuleSubject) bool {
	return compile(r).matches(s)
}

// compiled is a rule with the regular expressions of its conditions compiled.
type compiled struct {
	def RuleDefinition
	res []*regexp.Regexp // by condition; nil for those that are no expression
}

func compile(r RuleDefinition) compiled {
	c := compiled{def: r, res: make([]*regexp.Regexp, len(r.Conditions))}
	for i, cond := range r.Conditions {
		if cond.Op == RuleOpMatches {
			c.res[i], _ = regexp.Compile("(?i)" + cond.Value) // checked when the rule was saved
		}
	}
	return c
}

func (r compiled) matches(s RuleSubject) bool {
	for i, c := range r.def.Conditions {
		if !c.holds(s, r.res[i]) {
			return false
		}
	}
	return len(r.def.Conditions) > 0
}

func (c RuleCondition) holds(s RuleSubject, re *regexp.Regexp) bool {
	switch c.Field {
	case RuleFieldPayee:
		return c.holdsText(s.Payee, re)
	case RuleFieldConcept:
		return c.holdsText(s.Concept, re)
	case RuleFieldMemo:
		return c.holdsText(s.Memo, re)
	case RuleFieldAmount:
		from, err := decimal.NewFromString(c.Value)
		if err != nil {
			return false
		}
		amount := s.Amount.Abs()
		if c.Op == RuleOpEquals {
			return amount.Equal(from)
		}
		to, err := decimal.NewFromString(c.ValueTo)
		return err == nil && !amount.LessThan(from) && !amount.GreaterThan(to)
	case RuleFieldWallet:
		return c.Value == s.WalletID.String()
	case RuleFieldType:
		return c.Value == string(s.Type)
	}
	return false
}

func (c RuleCondition) holdsText(text string, re *regexp.Regexp) bool {
	if c.Op == RuleOpMatches {
		return re != nil && re.MatchString(text)
	}
	t, v := FoldName(text), FoldName(c.Value)
	switch c.Op {
	case RuleOpContains:
		return strings.Contains(t, v)
	case RuleOpEquals:
		return t == v
	case RuleOpStartsWith:
		return strings.HasPrefix(t, v)
	}
	return false
}

// RuleBook is a workspace's live rules in the order they apply, their expressions
// compiled once.
type RuleBook struct {
	rules []bookRule
}

type bookRule struct {
	id uuid.UUID
	compiled
}

// NewRuleBook orders live rules by position, then id.
func NewRuleBook(rules map[uuid.UUID]RuleDefinition) *RuleBook {
	b := &RuleBook{}
	for id, r := range rules {
		b.rules = append(b.rules, bookRule{id, compile(r)})
	}
	slices.SortFunc(b.rules, func(x, y bookRule) int { return ruleOrder(x.id, x.def, y.id, y.def) })
	return b
}

// First is the first rule that matches s, and its id; nil when none does.
func (b *RuleBook) First(s RuleSubject) (uuid.UUID, *RuleDefinition) {
	return b.first(s, nil)
}

// first is First among the rules of only, or all when only is empty.
func (b *RuleBook) first(s RuleSubject, only []uuid.UUID) (uuid.UUID, *RuleDefinition) {
	for i := range b.rules {
		if (len(only) == 0 || slices.Contains(only, b.rules[i].id)) && b.rules[i].matches(s) {
			return b.rules[i].id, &b.rules[i].def
		}
	}
	return uuid.Nil, nil
}

// RuleTarget is a recorded transaction rules may change: what they read of it, and what
// they may set (its category, tag and concept; the type, a transfer and skip are for
// statements' rows only). A split transaction keeps its parts' categories.
type RuleTarget struct {
	TransactionID uuid.UUID
	Subject       RuleSubject
	CategoryID    *uuid.UUID
	TagID         *uuid.UUID
	Concept       *string
	// Split: the transaction's categories are its parts', which rules leave alone.
	Split bool
	// Currency is the transaction's, which a rule's parts are in.
	Currency string
}

// RuleChange is what a rule changes of a recorded transaction: the fields set are those
// it changes.
type RuleChange struct {
	TransactionID uuid.UUID  `json:"transactionId"`
	RuleID        uuid.UUID  `json:"ruleId"`
	CategoryID    *uuid.UUID `json:"categoryId,omitempty"`
	TagID         *uuid.UUID `json:"tagId,omitempty"`
	Concept       *string    `json:"concept,omitempty"`
	// Splits are the parts the rule splits the transaction in.
	Splits []SplitPart `json:"splits,omitempty"`
}

// Changes lists what the first matching rule of only (every rule when empty) changes of
// each target; targets it leaves as they are are left out.
func (b *RuleBook) Changes(targets []RuleTarget, only []uuid.UUID) []RuleChange {
	out := []RuleChange{}
	for _, t := range targets {
		id, rule := b.first(t.Subject, only)
		if rule == nil {
			continue
		}
		c, a := RuleChange{TransactionID: t.TransactionID, RuleID: id}, rule.Actions
		if a.CategoryID != nil && !t.Split && (t.CategoryID == nil || *t.CategoryID != *a.CategoryID) {
			c.CategoryID = a.CategoryID
		}
		if a.TagID != nil && (t.TagID == nil || *t.TagID != *a.TagID) {
			c.TagID = a.TagID
		}
		if a.Concept != nil && (t.Concept == nil || *t.Concept != *a.Concept) {
			c.Concept = a.Concept
		}
		if a.Splits != nil && !t.Split && (t.Subject.Type == TxIncome || t.Subject.Type == TxExpense) {
			c.Splits = SplitByPercent(t.Subject.Amount, t.Currency, a.Splits)
		}
		if c.CategoryID != nil || c.TagID != nil || c.Concept != nil || c.Splits != nil {
			out = append(out, c)
		}
	}
	return out
}

// ApplyRules makes the changes rules propose to recorded transactions, all or none.
type ApplyRules struct {
	Changes []RuleChange
}

// Decide corrects each transaction as its change says.
func (c ApplyRules) Decide(w *Workspace) ([]Event, error) {
	ids := make([]uuid.UUID, len(c.Changes))
	for i, ch := range c.Changes {
		ids[i] = ch.TransactionID
	}
	if unmet := w.unmetOf(ids); unmet != nil {
		return nil, unmet
	}
	var events []Event
	for _, ch := range c.Changes {
		u := UpdateTransaction{TransactionID: ch.TransactionID}
		if ch.CategoryID != nil {
			u.CategoryID = Of(*ch.CategoryID)
		}
		if ch.TagID != nil {
			u.TagID = Of(*ch.TagID)
		}
		if ch.Concept != nil {
			u.Concept = Of(*ch.Concept)
		}
		if ch.Splits != nil {
			u.Splits = Of(ch.Splits)
		}
		more, err := u.Decide(w)
		if err != nil {
			return nil, err
		}
		events = append(events, more...)
	}
	return events, nil
}

// liveRules lists the live rules' ids in the order they apply.
func (w *Workspace) liveRules() []uuid.UUID {
	var ids []uuid.UUID
	for id, r := range w.Rules {
		if !r.Deleted {
			ids = append(ids, id)
		}
	}
	slices.SortFunc(ids, func(a, b uuid.UUID) int { return ruleOrder(a, w.Rules[a].RuleDefinition, b, w.Rules[b].RuleDefinition) })
	return ids
}

// ruleOrder is the order rules apply in: by position, then id.
func ruleOrder(a uuid.UUID, ra RuleDefinition, b uuid.UUID, rb RuleDefinition) int {
	if ra.Position != rb.Position {
		return ra.Position - rb.Position
	}
	return strings.Compare(a.String(), b.String())
}

func ruleEqual(a, b RuleDefinition) bool {
	return a.Name == b.Name && a.Position == b.Position && slices.Equal(a.Conditions, b.Conditions) && actionsEqual(a.Actions, b.Actions)
}

func actionsEqual(a, b RuleActions) bool {
	same := func(x, y *uuid.UUID) bool { return (x == nil) == (y == nil) && (x == nil || *x == *y) }
	sameText := func(x, y *string) bool { return (x == nil) == (y == nil) && (x == nil || *x == *y) }
	sameType := func(x, y *TransactionType) bool { return (x == nil) == (y == nil) && (x == nil || *x == *y) }
	return same(a.CategoryID, b.CategoryID) && same(a.TagID, b.TagID) && same(a.ToWalletID, b.ToWalletID) &&
		sameText(a.Concept, b.Concept) && sameType(a.Type, b.Type) && a.Skip == b.Skip &&
		slices.EqualFunc(a.Splits, b.Splits, func(x, y RuleSplit) bool {
			return x.Percent.Equal(y.Percent) && same(x.CategoryID, y.CategoryID) && same(x.TagID, y.TagID) && sameText(x.Concept, y.Concept)
		})
}

// Rule suggestions: a concept must carry one category this often, and in this share of
// its transactions in percent, for a rule to be suggested; at most so many are.
const (
	ruleSuggestionMin   = 3
	ruleSuggestionShare = 80
	maxRuleSuggestions  = 20
)

// ConceptCategory is how many live incomes and expenses of one concept carry one
// category.
type ConceptCategory struct {
	Concept    string
	CategoryID uuid.UUID
	Count      int
}

// RuleSuggestion is a rule proposed from history, to create as it is.
type RuleSuggestion struct {
	Name         string          `json:"name"`
	Conditions   []RuleCondition `json:"conditions"`
	Actions      RuleActions     `json:"actions"`
	Transactions int             `json:"transactions"`
}

// PayeeRule is the rule giving a payee a category, as seen on so many transactions.
func PayeeRule(payee string, categoryID uuid.UUID, transactions int) RuleSuggestion {
	return RuleSuggestion{Name: payee, Transactions: transactions, Actions: RuleActions{CategoryID: &categoryID},
		Conditions: []RuleCondition{{Field: RuleFieldPayee, Op: RuleOpEquals, Value: payee}}}
}

// Suggest proposes a rule for each concept (accents and case aside) that carries one
// category at least ruleSuggestionMin times and in ruleSuggestionShare percent of its
// transactions, when no rule of the book matches it yet: those seen most first.
func (b *RuleBook) Suggest(counts []ConceptCategory) []RuleSuggestion {
	type payee struct {
		name       string
		total      int
		byCategory map[uuid.UUID]int
	}
	payees := map[string]*payee{}
	var order []string
	for _, c := range counts {
		key := FoldName(c.Concept)
		p := payees[key]
		if p == nil {
			p = &payee{name: c.Concept, byCategory: map[uuid.UUID]int{}}
			payees[key] = p
			order = append(order, key)
		}
		p.total += c.Count
		p.byCategory[c.CategoryID] += c.Count
	}
	out := []RuleSuggestion{}
	for _, key := range order {
		p := payees[key]
		for category, n := range p.byCategory {
			if n < ruleSuggestionMin || n*100 < p.total*ruleSuggestionShare {
				continue
			}
			if _, rule := b.First(RuleSubject{Payee: p.name, Concept: p.name}); rule != nil {
				continue
			}
			out = append(out, PayeeRule(p.name, category, n))
		}
	}
	slices.SortStableFunc(out, func(a, b RuleSuggestion) int { return b.Transactions - a.Transactions })
	return out[:min(len(out), maxRuleSuggestions)]
}
