package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/finledger/finledger/attachments"
	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/ledger"
	"github.com/finledger/finledger/queries"
)

// apiError is an answer in the error envelope: {error:{code, message, details, requestId}}.
type apiError struct {
	Status     int
	Code       string
	Message    string
	Details    any
	RetryAfter int // seconds, sent as Retry-After when set
}

func (e *apiError) Error() string { return e.Code + ": " + e.Message }

func errorf(status int, code, message string) *apiError {
	return &apiError{Status: status, Code: code, Message: message}
}

var (
	errUnauthorized = errorf(http.StatusUnauthorized, "UNAUTHORIZED", "authentication is required: send Authorization: Bearer <token>")
	errNotFound     = errorf(http.StatusNotFound, "NOT_FOUND", "no such route")
	errMethod       = errorf(http.StatusMethodNotAllowed, "METHOD_NOT_ALLOWED", "this route does not accept that method")
	errTooLarge     = errorf(http.StatusRequestEntityTooLarge, "PAYLOAD_TOO_LARGE", "the request body exceeds 1 MiB")
	errInternal     = errorf(http.StatusInternalServerError, "INTERNAL_ERROR", "an internal error occurred; quote the request id when reporting it")
	errUnavailable  = &apiError{Status: http.StatusServiceUnavailable, Code: "SERVICE_UNAVAILABLE",
		Message:    "the service cannot reach its database for a moment; retry after Retry-After seconds (a write retried with the same Idempotency-Key takes effect once)",
		RetryAfter: unavailableRetryAfter}
	errFilesUnavailable = &apiError{Status: http.StatusServiceUnavailable, Code: "SERVICE_UNAVAILABLE",
		Message:    "the service cannot reach its storage of files for a moment; retry after Retry-After seconds (an upload retried with the same Idempotency-Key is attached once)",
		RetryAfter: unavailableRetryAfter}
	errContended = &apiError{Status: http.StatusServiceUnavailable, Code: "SERVICE_UNAVAILABLE",
		Message:    "the workspace is taking many writes at once and this one was not made; retry after Retry-After seconds",
		RetryAfter: 1}
)

// unavailableRetryAfter is the Retry-After of a 503 for an unreachable database: long
// enough for a restart or a failover to make progress, short enough to notice its end.
const unavailableRetryAfter = 5

var kindStatus = map[domain.Kind]int{
	domain.KindValidation:    http.StatusBadRequest,
	domain.KindNotFound:      http.StatusNotFound,
	domain.KindConflict:      http.StatusConflict,
	domain.KindUnprocessable: http.StatusUnprocessableEntity,
	domain.KindForbidden:     http.StatusForbidden,
}

// toAPIError maps any error to the envelope. This is the one place where domain errors
// become HTTP statuses; anything unknown is a 500 whose cause is logged, not shown.
func toAPIError(err error) *apiError {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae
	}
	if de, ok := domain.AsError(err); ok {
		status, known := kindStatus[de.Kind]
		if !known {
			return errInternal
		}
		out := &apiError{Status: status, Code: de.Code, Message: de.Message, Details: de.Details}
		if len(de.Fields) > 0 {
			out.Details = de.Fields
		}
		return out
	}
	if errors.Is(err, context.Canceled) {
		return errorf(499, "CLIENT_CLOSED_REQUEST", "the client closed the request")
	}
	// Before the database's check, which would take the storage's network errors for
	// its own.
	if errors.Is(err, attachments.ErrUnavailable) {
		return errFilesUnavailable
	}
	if databaseUnavailable(err) {
		return errUnavailable
	}
	if errors.Is(err, ledger.ErrContended) {
		return errContended
	}
	return errInternal
}

// Server errors that say the database cannot serve now, not that the request is wrong:
// the connection failed or broke (class 08), the server is shutting down, crashed or
// starting (57P01, 57P02, 57P03), has no connection slot left (53300), or no longer
// takes writes (25006, read_only_sql_transaction) because it was the primary of a
// replicated database and has been demoted to a standby: the pool connects to the new
// primary (target_session_attrs=read-write) once this connection is gone.
var unavailableStates = map[string]bool{"57P01": true, "57P02": true, "57P03": true, "53300": true, "25006": true}

// databaseUnavailable reports an error caused by the database being out of reach, which
// a retry after a while may cure: the pool could not connect (refused, timed out, server
// starting or full), the connection was lost before or during a statement, or the
// server ended the session. An error the server answered with for the statement itself
// (a constraint, bad data, a bad password) is not one.
func databaseUnavailable(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return strings.HasPrefix(pgErr.Code, "08") || unavailableStates[pgErr.Code]
	}
	var connect *pgconn.ConnectError
	var netErr net.Error
	return errors.As(err, &connect) || errors.As(err, &netErr) || pgconn.SafeToRetry(err) ||
		errors.Is(err, pgconn.ErrConnClosed) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		// A deadline passed waiting for a pool connection or for an answer: the
		// server is unreachable or too busy to answer in time.
		errors.Is(err, context.DeadlineExceeded)
}

// respond writes a route's answer with the status its declaration gives (route.Status),
// so that a route's status is written once: every handler's answer goes through it or
// through run, which writes the same status.
func respond(w http.ResponseWriter, r *http.Request, body any) {
	writeJSON(w, routeStatus(r), body)
}

// startAnswer writes the header of a route's streamed answer (its content type set
// before) with the route's status.
func startAnswer(w http.ResponseWriter, r *http.Request) {
	w.WriteHeader(routeStatus(r))
}

// routeStatus is the status of the request's route's answer; 200 outside the route
// table (the health checks, the home page), which have none declared.
func routeStatus(r *http.Request) int {
	if rt := routeFrom(r.Context()); rt != nil && rt.Status != 0 {
		return rt.Status
	}
	return http.StatusOK
}

func writeJSON(w http.ResponseWriter, status int, body any) {
	data, err := json.Marshal(body)
	if err != nil {
		status, data = http.StatusInternalServerError, []byte(`{"error":{"code":"INTERNAL_ERROR","message":"an internal error occurred"}}`)
	}
	writeRaw(w, status, data)
}

func writeRaw(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// writeError answers with the error envelope and logs server-side failures with their
// cause, which the client never sees.
func writeError(w http.ResponseWriter, r *http.Request, err error) {
	ae := toAPIError(err)
	reqID := requestID(r.Context())
	if rec := recordOf(r.Context()); rec != nil {
		rec.code = ae.Code
	}
	if ae.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(ae.RetryAfter))
	}
	if ae.Status >= 500 {
		slog.ErrorContext(r.Context(), "request failed", "requestId", reqID, "method", r.Method, "path", r.URL.Path, "err", err)
	}
	type body struct {
		Code      string `json:"code"`
		Message   string `json:"message"`
		Details   any    `json:"details,omitempty"`
		RequestID string `json:"requestId,omitempty"`
	}
	writeJSON(w, ae.Status, map[string]body{"error": {ae.Code, ae.Message, ae.Details, reqID}})
}

// notFoundAs turns queries.ErrNotFound into the resource's 404 code.
func notFoundAs(err error, code, message string) error {
	if errors.Is(err, queries.ErrNotFound) {
		return errorf(http.StatusNotFound, code, message)
	}
	return err
}
