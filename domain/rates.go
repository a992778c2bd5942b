package domain

import (
	"fmt"

	"github.com/shopspring/decimal"
)

// Rate limits: a derived rate keeps twelve decimals (internal/fx), so a rate needs no
// more, and none of the currencies in use is worth 10^15 of another.
const (
	rateScale         = 12
	rateIntegerDigits = 15
)

// checkRate returns why d is not an acceptable exchange rate, or "" when it is: greater
// than 0, below 10^15, with at most twelve decimal places.
func checkRate(d decimal.Decimal) string {
	switch {
	case !d.IsPositive():
		return "must be greater than 0"
	case !d.Equal(d.Truncate(rateScale)):
		return fmt.Sprintf("must have at most %d decimal places", rateScale)
	case d.GreaterThanOrEqual(decimal.New(1, rateIntegerDigits)):
		return fmt.Sprintf("must be less than 10^%d", rateIntegerDigits)
	}
	return ""
}

// SetExchangeRates records a workspace's own rates for a day.
type SetExchangeRates struct {
	Date  Date
	Rates []ExchangeRate
}

// Decide checks every rate: two different currencies and a rate checkRate accepts.
func (c SetExchangeRates) Decide(*Workspace) ([]Event, error) {
	var fields []FieldError
	for i, r := range c.Rates {
		if r.Base == r.Quote {
			fields = append(fields, FieldError{fmt.Sprintf("rates[%d].quote", i), "must differ from base"})
		}
		if problem := checkRate(r.Rate); problem != "" {
			fields = append(fields, FieldError{fmt.Sprintf("rates[%d].rate", i), problem})
		}
	}
	if len(fields) > 0 {
		return nil, Invalid(fields...)
	}
	return []Event{&ExchangeRatesSet{Date: c.Date, Rates: c.Rates}}, nil
}
