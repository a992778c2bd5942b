package commands

import "fmt"

// SetExchangeRates records a workspace's own rates for a day.
type SetExchangeRates struct {
	Date  string
	Rates []ExchangeRate
}

// Decide checks every rate: two different currencies and a positive, exact rate.
func (c SetExchangeRates) Decide(*Workspace) ([]NewEvent, error) {
	var fields []FieldError
	for i, r := range c.Rates {
		if r.Base == r.Quote {
			fields = append(fields, FieldError{fmt.Sprintf("rates[%d].quote", i), "must differ from base"})
		}
		if !r.Rate.IsPositive() {
			fields = append(fields, FieldError{fmt.Sprintf("rates[%d].rate", i), "must be greater than 0"})
		}
	}
	if len(fields) > 0 {
		return nil, Invalid(fields...)
	}
	return []NewEvent{{TypeExchangeRatesSet, &ExchangeRatesSet{Date: c.Date, Rates: c.Rates}}}, nil
}
