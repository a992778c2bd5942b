package domain

import (
	"bytes"
	"encoding/json"
)

// Nullable is a field of a partial update: absent (leave as is), null (clear) or a value.
// With the `omitzero` tag option an absent field is left out of the JSON it marshals to.
type Nullable[T any] struct {
	Set   bool // present in the update
	Valid bool // present and not null
	Value T
}

// Of returns a Nullable set to v.
func Of[T any](v T) Nullable[T] { return Nullable[T]{Set: true, Valid: true, Value: v} }

// Null returns a Nullable that clears the field.
func Null[T any]() Nullable[T] { return Nullable[T]{Set: true} }

// IsZero reports an absent field, for `omitzero`.
func (n Nullable[T]) IsZero() bool { return !n.Set }

// Ptr returns the value as a pointer, nil when null or absent.
func (n Nullable[T]) Ptr() *T {
	if !n.Valid {
		return nil
	}
	v := n.Value
	return &v
}

// MarshalJSON writes null or the value.
func (n Nullable[T]) MarshalJSON() ([]byte, error) {
	if !n.Valid {
		return []byte("null"), nil
	}
	return json.Marshal(n.Value)
}

// UnmarshalJSON marks the field present, and null when the JSON is null.
func (n *Nullable[T]) UnmarshalJSON(data []byte) error {
	n.Set = true
	if bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
		n.Valid = false
		var zero T
		n.Value = zero
		return nil
	}
	n.Valid = true
	return json.Unmarshal(data, &n.Value)
}

// valueOr returns *p, or fallback when p is nil: a field a command was not given.
func valueOr[T any](p *T, fallback T) T {
	if p == nil {
		return fallback
	}
	return *p
}

// stringOr returns s, or fallback when s is empty: a text field a command was not given.
func stringOr[S ~string](s, fallback S) S {
	if s == "" {
		return fallback
	}
	return s
}
