package httpapi

import "github.com/finledger/finledger/domain"

// enum lists the names of a typed enumeration (domain.TransactionTypes, ...) as the
// strings a field's rule and schema take.
func enum[S ~string](values ...S) []string {
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = string(v)
	}
	return out
}

// typed is a field read as text as the typed name it is (domain.RecurringKind, ...); the
// field's Enum has checked it.
func typed[S ~string](n domain.Nullable[string]) domain.Nullable[S] {
	return domain.Nullable[S]{Set: n.Set, Valid: n.Valid, Value: S(n.Value)}
}
