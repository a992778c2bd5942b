package httpapi

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
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
			withRequestID(recoverPanics(h)).ServeHTTP(rec, httptest.NewRequest("GET", "/api/x", nil))
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
