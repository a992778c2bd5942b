package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/finledger/finledger/ledger"
)

// A panic, or any error the API does not know, answers 500 in the envelope without
// saying what went wrong inside.
func TestInternalFailuresDoNotLeak(t *testing.T) {
	secret := "pq: relation \"users\" violates secret_table"
	for name, h := range map[string]http.HandlerFunc{
		"panic": func(http.ResponseWriter, *http.Request) { panic(secret) },
		"error": func(w http.ResponseWriter, r *http.Request) { writeError(w, r, errors.New(secret)) },
	} {
		t.Run(name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			(&Server{}).observe(recoverPanics(h)).ServeHTTP(rec, httptest.NewRequest("GET", "/api/x", nil))
			var body struct {
				Error struct{ Code, Message, RequestID string }
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
				t.Fatal(err)
			}
			if rec.Code != http.StatusInternalServerError || body.Error.Code != "INTERNAL_ERROR" || body.Error.RequestID == "" {
				t.Fatalf("%d %s", rec.Code, rec.Body)
			}
			if strings.Contains(rec.Body.String(), "secret_table") {
				t.Fatalf("internals leaked: %s", rec.Body)
			}
		})
	}
}

// An unreachable database is a 503 with Retry-After, whatever the connection did; an
// error the server gave for the statement itself stays a 500.
func TestDatabaseErrorsAnswer503(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	for _, c := range []struct {
		name   string
		err    error
		status int
	}{
		{"connection refused", fmt.Errorf("httpapi: authenticate: %w", refused), http.StatusServiceUnavailable},
		{"connection lost", fmt.Errorf("queries: wallets: %w", io.ErrUnexpectedEOF), http.StatusServiceUnavailable},
		{"connection failure", &pgconn.PgError{Code: "08006"}, http.StatusServiceUnavailable},
		{"admin shutdown", fmt.Errorf("commands: append: %w", &pgconn.PgError{Code: "57P01"}), http.StatusServiceUnavailable},
		{"crash shutdown", &pgconn.PgError{Code: "57P02"}, http.StatusServiceUnavailable},
		{"starting up", &pgconn.PgError{Code: "57P03"}, http.StatusServiceUnavailable},
		{"too many connections", &pgconn.PgError{Code: "53300"}, http.StatusServiceUnavailable},
		{"closed connection", fmt.Errorf("x: %w", pgconn.ErrConnClosed), http.StatusServiceUnavailable},
		{"pool acquire deadline", fmt.Errorf("x: %w", context.DeadlineExceeded), http.StatusServiceUnavailable},
		{"unique violation", &pgconn.PgError{Code: "23505"}, http.StatusInternalServerError},
		{"bad data", &pgconn.PgError{Code: "22P05"}, http.StatusInternalServerError},
		{"wrong password", &pgconn.PgError{Code: "28P01"}, http.StatusInternalServerError},
		{"a bug", errors.New("x: nil map"), http.StatusInternalServerError},
		{"client gone", fmt.Errorf("x: %w", context.Canceled), 499},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			(&Server{}).observe(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { writeError(w, r, c.err) })).
				ServeHTTP(rec, httptest.NewRequest("GET", "/api/wallets", nil))
			if rec.Code != c.status {
				t.Fatalf("%d %s", rec.Code, rec.Body)
			}
			if retry := rec.Header().Get("Retry-After"); (c.status == http.StatusServiceUnavailable) != (retry == "5") {
				t.Fatalf("%d with Retry-After %q", rec.Code, retry)
			}
			if c.status == http.StatusServiceUnavailable && !strings.Contains(rec.Body.String(), `"code":"SERVICE_UNAVAILABLE"`) {
				t.Fatalf("body %s", rec.Body)
			}
		})
	}
}

// A command that other writers kept from committing wrote nothing: 503, retry soon.
func TestContendedCommandAnswers503(t *testing.T) {
	rec := httptest.NewRecorder()
	err := fmt.Errorf("%w: %w", ledger.ErrContended, errors.New("append at version 7: conflict"))
	(&Server{}).observe(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { writeError(w, r, err) })).
		ServeHTTP(rec, httptest.NewRequest("POST", "/api/transactions", nil))
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") != "1" ||
		!strings.Contains(rec.Body.String(), `"code":"SERVICE_UNAVAILABLE"`) {
		t.Fatalf("%d, Retry-After %q: %s", rec.Code, rec.Header().Get("Retry-After"), rec.Body)
	}
}
