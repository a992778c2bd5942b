package httpapi_test

import (
	"encoding/base64"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/finledger/finledger/internal/testkit/apitest"
	"github.com/finledger/finledger/internal/testkit/testdb"
)

func TestMain(m *testing.M) { os.Exit(testdb.Main(m)) }

var pathParam = regexp.MustCompile(`\{[a-zA-Z]+\}`)

// expectError checks an answer is the error envelope with a status and code.
func expectError(t *testing.T, r *apitest.Response, status int, code string) map[string]any {
	t.Helper()
	if r.Status != status || r.ErrorCode() != code {
		t.Fatalf("got %d %s, want %d %s: %s", r.Status, r.ErrorCode(), status, code, r.Raw)
	}
	e := r.Object("error")
	if msg, _ := e["message"].(string); msg == "" {
		t.Fatalf("error without message: %s", r.Raw)
	}
	if id, _ := e["requestId"].(string); id == "" || id != r.Header.Get("X-Request-Id") {
		t.Fatalf("requestId %q, header %q", id, r.Header.Get("X-Request-Id"))
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("content type %q", ct)
	}
	return e
}

// fieldErrors returns the field names of a validation error's details.
func fieldErrors(t *testing.T, r *apitest.Response) []string {
	t.Helper()
	e := expectError(t, r, http.StatusBadRequest, "VALIDATION_ERROR")
	details, _ := e["details"].([]any)
	var fields []string
	for _, d := range details {
		m, _ := d.(map[string]any)
		f, _ := m["field"].(string)
		fields = append(fields, f)
	}
	return fields
}

func TestEveryFailureUsesTheErrorEnvelope(t *testing.T) {
	env := apitest.Start(t)
	alice := env.As("alice")

	expectError(t, alice.Get("/api/nowhere"), http.StatusNotFound, "NOT_FOUND")
	expectError(t, env.Anonymous().Get("/nowhere"), http.StatusNotFound, "NOT_FOUND")
	expectError(t, alice.Do(http.MethodPut, "/api/wallets", "{}"), http.StatusMethodNotAllowed, "METHOD_NOT_ALLOWED")
	expectError(t, alice.Post("/api/wallets", `{"name": "x",`), http.StatusBadRequest, "INVALID_JSON")
	expectError(t, alice.Post("/api/wallets", `[1,2]`), http.StatusBadRequest, "INVALID_JSON")
	expectError(t, alice.Post("/api/wallets", `{"name":"a"} {"name":"b"}`), http.StatusBadRequest, "INVALID_JSON")
	expectError(t, alice.Post("/api/wallets", `{"name":"`+strings.Repeat("x", 1<<20)+`"}`), http.StatusRequestEntityTooLarge, "PAYLOAD_TOO_LARGE")

	// The client's request id is echoed when it is sane.
	r := alice.With("X-Request-Id", "trace-123").Get("/api/nowhere")
	if got := r.Object("error")["requestId"]; got != "trace-123" {
		t.Fatalf("requestId %v", got)
	}
}

func TestAuthentication(t *testing.T) {
	env := apitest.Start(t)
	expectError(t, env.Anonymous().Get("/api/me"), http.StatusUnauthorized, "UNAUTHORIZED")
	expectError(t, env.Anonymous().With("Authorization", "Bearer nonsense").Get("/api/me"), http.StatusUnauthorized, "UNAUTHORIZED")
	expectError(t, env.Anonymous().With("Authorization", "Basic abc").Get("/api/me"), http.StatusUnauthorized, "UNAUTHORIZED")

	// alg none: the claims are fine, the signature is missing.
	enc := base64.RawURLEncoding.EncodeToString
	none := enc([]byte(`{"alg":"none","typ":"JWT"}`)) + "." +
		enc([]byte(`{"sub":"mallory","email":"m@example.com","exp":4102444800}`)) + "."
	expectError(t, env.Anonymous().With("Authorization", "Bearer "+none).Get("/api/me"), http.StatusUnauthorized, "UNAUTHORIZED")

	// An expired token (test tokens live a year).
	tok := env.Token("alice", "alice@example.com")
	env.Clock.Set(env.Clock.Now().Add(400 * 24 * time.Hour))
	expectError(t, env.Anonymous().With("Authorization", "Bearer "+tok).Get("/api/me"), http.StatusUnauthorized, "UNAUTHORIZED")

	env.Anonymous().Get("/api/openapi.json").Expect(t, http.StatusOK)
}

func TestHealth(t *testing.T) {
	env := apitest.Start(t)
	env.Anonymous().Get("/healthz").Expect(t, http.StatusOK)
	env.Anonymous().Get("/readyz").Expect(t, http.StatusOK)
}

func TestMeProvisionsAPersonalWorkspaceOnce(t *testing.T) {
	env := apitest.Start(t)
	alice := env.As("alice")
	first := alice.Get("/api/me").Expect(t, http.StatusOK)
	user, ws := first.Object("user"), first.Object("workspace")
	if user["email"] != "alice@example.com" || ws["type"] != "personal" || ws["currency"] != "MXN" || ws["role"] != "owner" {
		t.Fatalf("me = %s", first.Raw)
	}
	if user["personalWorkspaceId"] != ws["id"] {
		t.Fatalf("active workspace %v is not the personal one %v", ws["id"], user["personalWorkspaceId"])
	}
	again := alice.Get("/api/me").Expect(t, http.StatusOK)
	if again.Object("user")["id"] != user["id"] || again.Object("workspace")["id"] != ws["id"] {
		t.Fatalf("second call gave another user or workspace: %s", again.Raw)
	}

	// A new email from the identity provider is picked up.
	tok := env.Token("alice", "alice@new.example.com")
	renamed := env.Anonymous().With("Authorization", "Bearer "+tok).Get("/api/me").Expect(t, http.StatusOK)
	if renamed.Object("user")["email"] != "alice@new.example.com" || renamed.Object("user")["id"] != user["id"] {
		t.Fatalf("after email change: %s", renamed.Raw)
	}

	// Workspaces are private: another user's id is refused, a malformed one is invalid.
	bob := env.As("bob")
	bobWS := bob.Get("/api/me").Expect(t, http.StatusOK).Object("workspace")["id"].(string)
	expectError(t, alice.With("X-Workspace-Id", bobWS).Get("/api/wallets"), http.StatusForbidden, "FORBIDDEN")
	fieldErrors(t, alice.With("X-Workspace-Id", "not-a-uuid").Get("/api/wallets"))
	alice.With("X-Workspace-Id", ws["id"].(string)).Get("/api/wallets").Expect(t, http.StatusOK)
}

// Every documented operation refuses anonymous callers, and those documented as
// needing an Idempotency-Key refuse requests without one.
func TestDocumentedOperations(t *testing.T) {
	env := apitest.Start(t)
	doc := env.Anonymous().Get("/api/openapi.json").Expect(t, http.StatusOK)
	alice := env.As("alice")
	for path, item := range doc.Object("paths") {
		concrete := pathParam.ReplaceAllString(path, "00000000-0000-0000-0000-000000000001")
		for method, op := range item.(map[string]any) {
			method = strings.ToUpper(method)
			anonymous := "UNAUTHORIZED"
			if op.(map[string]any)["x-scope"] == "channel" {
				anonymous = "WHATSAPP_IDENTITY_INVALID"
			}
			expectError(t, env.Anonymous().Do(method, concrete, nil), http.StatusUnauthorized, anonymous)
			params, _ := op.(map[string]any)["parameters"].([]any)
			for _, p := range params {
				param := p.(map[string]any)
				if param["name"] == "Idempotency-Key" && param["required"] == true {
					expectError(t, alice.Do(method, concrete, "{}"), http.StatusBadRequest, "IDEMPOTENCY_KEY_REQUIRED")
				}
			}
		}
	}
}
