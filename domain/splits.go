package domain

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
)

// A split transaction is one income or expense whose amount is shared among parts,
// each with its own amount, category, tag and concept: one supermarket receipt that is
// groceries, household and a gift. The rules:
//   - Only incomes and expenses are split, in at least two parts and at most
//     MaxSplitParts, each amount positive and the parts adding up exactly to the
//     transaction's amount (a difference is refused, naming it).
//   - A split transaction has no category of its own: each part has its own, or none.
//     Its tag, concept and description stay the transaction's; a part's tag and
//     concept are the part's.
//   - The parts are in the transaction's currency, which each carries; a part sent in
//     another is refused.
//   - A correction sends the parts whole (splits), or null to make the transaction one
//     category again; a correction of the amount or the wallet's currency that leaves
//     the parts as they were must send them again, unless they still add up.
//   - Everything that counts by category counts each part (CategoryShares): budgets and
//     their alerts, summaries, reports, the read models' totals.

// MaxSplitParts is how many parts a split transaction holds at most.
const MaxSplitParts = 50

// SplitPart is one part of a split transaction: its share of the amount, in the
// transaction's currency, and the category, tag and concept of that share.
type SplitPart struct {
	Amount     decimal.Decimal `json:"amount"`
	Currency   string          `json:"currency"`
	CategoryID *uuid.UUID      `json:"categoryId"`
	TagID      *uuid.UUID      `json:"tagId"`
	Concept    *string         `json:"concept"`
}

// splitPartJSON is a SplitPart as events hold it: the amount with its scale.
type splitPartJSON struct {
	Amount     json.RawMessage `json:"amount"`
	Currency   string          `json:"currency"`
	CategoryID *uuid.UUID      `json:"categoryId"`
	TagID      *uuid.UUID      `json:"tagId"`
	Concept    *string         `json:"concept"`
}

// MarshalJSON writes the part with its amount's scale (ExactString): a part of 12.50
// is stored as "12.50", as an event's other amounts are.
func (p SplitPart) MarshalJSON() ([]byte, error) {
	return json.Marshal(splitPartJSON{Amount: json.RawMessage(`"` + ExactString(p.Amount) + `"`), Currency: p.Currency,
		CategoryID: p.CategoryID, TagID: p.TagID, Concept: p.Concept})
}

// CategoryShare is what a transaction counts under one category: its parts' of that
// category, or the whole amount of a transaction not split. A nil category is the
// uncategorized.
type CategoryShare struct {
	CategoryID *uuid.UUID
	Amount     decimal.Decimal
}

// CategoryShares are the shares by which a transaction of amount, with its own category
// or split in parts, counts towards its categories: the whole amount under its category,
// or the parts of each category summed, in the order the categories first appear. The
// read models' SQL function finledger_category_lines (migration 0035) is the same rule.
func CategoryShares(category *uuid.UUID, amount decimal.Decimal, parts []SplitPart) []CategoryShare {
	if len(parts) == 0 {
		return []CategoryShare{{category, amount}}
	}
	shares := make([]CategoryShare, 0, len(parts))
	for _, p := range parts {
		i := slices.IndexFunc(shares, func(s CategoryShare) bool { return eqPtr(s.CategoryID, p.CategoryID) })
		if i < 0 {
			shares = append(shares, CategoryShare{p.CategoryID, p.Amount})
			continue
		}
		shares[i].Amount = shares[i].Amount.Add(p.Amount)
	}
	return shares
}

// checkSplits checks parts as the parts of t, which is checked already (its type, amount
// and currency): each part's currency is set to t's. It returns them as a transaction
// holds them. Categories and tags must be live.
func (w *Workspace) checkSplits(t *Transaction, parts []SplitPart) ([]SplitPart, error) {
	switch {
	case t.Type != TxIncome && t.Type != TxExpense:
		return nil, InvalidField("splits", "only an income or an expense is split, not a %s", t.Type)
	case len(parts) < 2:
		return nil, InvalidField("splits", "a split needs at least two parts; a transaction of one category takes categoryId")
	case len(parts) > MaxSplitParts:
		return nil, InvalidField("splits", "a split has at most %d parts", MaxSplitParts)
	case t.CategoryID != nil:
		return nil, InvalidField("categoryId", "is left out of a split transaction: each part has its own category")
	}
	out := make([]SplitPart, len(parts))
	sum := decimal.Zero
	for i, p := range parts {
		field := fmt.Sprintf("splits[%d]", i)
		if problem := CheckAmount(p.Amount, true); problem != "" {
			return nil, InvalidField(field+".amount", "%s", problem)
		}
		if p.Currency != "" && p.Currency != t.Currency {
			return nil, InvalidField(field+".currency", "is %s, but the transaction's wallet holds %s: every part is in the transaction's currency",
				p.Currency, t.Currency)
		}
		if p.CategoryID != nil {
			if _, err := w.liveCategory(*p.CategoryID); err != nil {
				return nil, NotFound("CATEGORY_NOT_FOUND", "category %s of part %d not found", *p.CategoryID, i)
			}
		}
		if p.TagID != nil {
			if _, err := w.liveTag(*p.TagID); err != nil {
				return nil, NotFound("TAG_NOT_FOUND", "tag %s of part %d not found", *p.TagID, i)
			}
		}
		p.Currency = t.Currency
		out[i] = p
		sum = sum.Add(p.Amount)
	}
	if !sum.Equal(t.Amount) {
		return nil, splitSumError(sum, t.Amount, t.Currency)
	}
	return out, nil
}

// splitSumError names by how much parts adding up to sum miss amount.
func splitSumError(sum, amount decimal.Decimal, currency string) *Error {
	diff := amount.Sub(sum)
	side := "less"
	if diff.IsNegative() {
		side = "more"
	}
	return InvalidField("splits", "the parts add up to %s %s, %s %s than the amount %s", ExactString(sum), currency,
		ExactString(diff.Abs()), side, ExactString(amount))
}

// correctedSplits decides the parts of a correction of old into next (changes applied,
// checked): the parts sent, checked; none when null was sent; the old parts kept when
// none were sent, provided they still add up and are in next's currency (restamped).
// It returns the parts' change for the event, unset when they stay as they were.
func (w *Workspace) correctedSplits(old, next *Transaction, sent Nullable[[]SplitPart]) (Nullable[[]SplitPart], error) {
	switch {
	case sent.Set && !sent.Valid:
		if len(old.Splits) == 0 {
			return Nullable[[]SplitPart]{}, nil
		}
		return Null[[]SplitPart](), nil
	case sent.Set:
		parts, err := w.checkSplits(next, sent.Value)
		if err != nil {
			return sent, err
		}
		return Of(parts), nil
	case len(old.Splits) == 0:
		return Nullable[[]SplitPart]{}, nil
	}
	if next.CategoryID != nil {
		return sent, InvalidField("categoryId", "is left out of a split transaction: send splits: null to give it one category")
	}
	sum := decimal.Zero
	for _, p := range old.Splits {
		sum = sum.Add(p.Amount)
	}
	if !sum.Equal(next.Amount) {
		return sent, splitSumError(sum, next.Amount, next.Currency)
	}
	if next.Currency == old.Currency {
		return Nullable[[]SplitPart]{}, nil
	}
	parts := make([]SplitPart, len(old.Splits))
	for i, p := range old.Splits {
		p.Currency = next.Currency
		parts[i] = p
	}
	return Of(parts), nil
}
