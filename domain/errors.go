package domain

import (
	"errors"
	"fmt"
	"strings"
)

// Kind classifies a domain error; the HTTP layer maps each kind to one status.
type Kind int

// The kinds of domain error.
const (
	KindValidation    Kind = iota + 1 // the request breaks a rule: 400
	KindNotFound                      // a referenced record does not exist: 404
	KindConflict                      // the request clashes with the current state: 409
	KindUnprocessable                 // well-formed but cannot be carried out: 422
	KindForbidden                     // the caller may not do this: 403
)

// FieldError names one bad field of a request.
type FieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// Error is a domain error with a stable code.
type Error struct {
	Kind    Kind
	Code    string
	Message string
	Fields  []FieldError
	Details any
}

func (e *Error) Error() string {
	if len(e.Fields) == 0 {
		return e.Code + ": " + e.Message
	}
	parts := make([]string, len(e.Fields))
	for i, f := range e.Fields {
		parts[i] = f.Field + " " + f.Message
	}
	return e.Code + ": " + e.Message + " (" + strings.Join(parts, "; ") + ")"
}

// Invalid returns a validation error for the given fields.
func Invalid(fields ...FieldError) *Error {
	return &Error{Kind: KindValidation, Code: "VALIDATION_ERROR", Message: "the request is not valid", Fields: fields}
}

// InvalidField returns a validation error for one field.
func InvalidField(field, format string, args ...any) *Error {
	return Invalid(FieldError{Field: field, Message: fmt.Sprintf(format, args...)})
}

// NotFound returns a not-found error with a resource-specific code such as WALLET_NOT_FOUND.
func NotFound(code, format string, args ...any) *Error {
	return &Error{Kind: KindNotFound, Code: code, Message: fmt.Sprintf(format, args...)}
}

// Conflict returns a conflict error.
func Conflict(code, format string, args ...any) *Error {
	return &Error{Kind: KindConflict, Code: code, Message: fmt.Sprintf(format, args...)}
}

// Unprocessable returns an error for a request well formed that cannot be carried out.
func Unprocessable(code, format string, args ...any) *Error {
	return &Error{Kind: KindUnprocessable, Code: code, Message: fmt.Sprintf(format, args...)}
}

// Forbidden returns an error for an action the caller's role does not allow.
func Forbidden(format string, args ...any) *Error {
	return &Error{Kind: KindForbidden, Code: "FORBIDDEN", Message: fmt.Sprintf(format, args...)}
}

// AsError extracts a domain error from err.
func AsError(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}
