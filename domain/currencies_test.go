package domain

import (
	"slices"
	"testing"
)

func TestCurrencies(t *testing.T) {
	if !slices.IsSorted(currencies) || len(slices.Compact(slices.Clone(currencies))) != len(currencies) {
		t.Fatal("the currency list must be sorted and without repeats, for the binary search")
	}
	for _, code := range []string{DefaultCurrency, "USD", "EUR", "JPY", "VES", "MRU", "SLE", "ZWG", "XCG", "MXV", "CLF", "XAU"} {
		if !IsCurrency(code) {
			t.Errorf("%s refused", code)
		}
	}
	for _, code := range []string{"ZZZ", "XTS", "XXX", "XDR", "HRK", "VEF", "MRO", "usd", "US", "USDX", ""} {
		if IsCurrency(code) {
			t.Errorf("%s accepted", code)
		}
	}
}
