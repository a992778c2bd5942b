package domain

import (
	"fmt"
	"sort"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
)

// Amount limits: four decimal places hold every ISO 4217 currency's minor unit exactly,
// and fifteen integer digits keep sums of many amounts far inside numeric's range.
const (
	MaxAmountScale         = 4
	MaxAmountIntegerDigits = 15
)

// CheckAmount returns why d is not an acceptable amount, or "" when it is. Positive
// demands d > 0; otherwise d >= 0 is enough.
func CheckAmount(d decimal.Decimal, positive bool) string {
	switch {
	case positive && !d.IsPositive():
		return "must be greater than 0"
	case d.IsNegative():
		return "must be greater than or equal to 0"
	}
	return checkAmountDigits(d)
}

func checkAmountDigits(d decimal.Decimal) string {
	if !d.Equal(d.Truncate(MaxAmountScale)) {
		return fmt.Sprintf("must have at most %d decimal places", MaxAmountScale)
	}
	if d.Abs().GreaterThanOrEqual(decimal.New(1, MaxAmountIntegerDigits)) {
		return fmt.Sprintf("must be less than 10^%d", MaxAmountIntegerDigits)
	}
	return ""
}

// netPostings sums movements per wallet, drops wallets that net to zero and orders the
// rest by wallet id so that the same change always yields the same event.
func netPostings(parts ...[]Posting) []Posting {
	sums := map[uuid.UUID]decimal.Decimal{}
	for _, ps := range parts {
		for _, p := range ps {
			sums[p.WalletID] = sums[p.WalletID].Add(p.Amount)
		}
	}
	out := make([]Posting, 0, len(sums))
	for id, amount := range sums {
		if !amount.IsZero() {
			out = append(out, Posting{WalletID: id, Amount: amount})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].WalletID.String() < out[j].WalletID.String() })
	return out
}

// ExactString writes a decimal with its scale, as events hold it: 1.10 is "1.10", where
// String writes "1.1". A decimal with a positive exponent is an integer and is written
// without one, as PostgreSQL's numeric writes it.
func ExactString(d decimal.Decimal) string {
	return d.StringFixed(max(0, -d.Exponent()))
}
