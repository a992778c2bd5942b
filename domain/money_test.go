package domain

import (
	"testing"

	"github.com/shopspring/decimal"
)

// ExactString writes what PostgreSQL's numeric writes of the same number.
func TestExactString(t *testing.T) {
	for in, want := range map[string]string{"1.10": "1.10", "100.00": "100.00", "0.50": "0.50", "1e3": "1000", "-0.000": "0.000",
		"12.5e-3": "0.0125", "7": "7"} {
		if got := ExactString(dec(in)); got != want {
			t.Errorf("ExactString(%s) = %s, want %s", in, got, want)
		}
	}
	if got := ExactString(decimal.Decimal{}); got != "0" {
		t.Errorf("the zero decimal: %s", got)
	}
}
