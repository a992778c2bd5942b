package httpapi_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/finledger/finledger/internal/testkit/apitest"
)

// The request schemas of the served document state the rules the handlers apply: a
// field the schema requires is refused as missing, and no other; every string field
// with a length is checked at that length, one character more being 400
// VALIDATION_ERROR naming the field and its length, the length itself drawing no length
// error. The bodies are built from the document, so a rule the document states and the
// handler does not apply, or the reverse, fails here.
func TestRequestSchemasAreTheHandlersRules(t *testing.T) {
	env := apitest.Start(t)
	alice := env.As("alice")
	var doc struct {
		Paths map[string]map[string]struct {
			RequestBody struct {
				Ref string `json:"$ref"`
			} `json:"requestBody"`
		}
		RequestBodies map[string]struct {
			Content struct {
				JSON struct {
					Schema struct {
						Required   []string
						Properties map[string]struct {
							MaxLength int `json:"maxLength"`
						}
					}
				} `json:"application/json"`
			}
		}
	}
	raw := alice.Get("/api/openapi.json").Expect(t, http.StatusOK).Raw
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	var components struct {
		Components struct{ RequestBodies json.RawMessage } `json:"components"`
	}
	if err := json.Unmarshal(raw, &components); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(components.Components.RequestBodies, &doc.RequestBodies); err != nil {
		t.Fatal(err)
	}
	// The bodies each field is tried in: the least the route takes, so that the field
	// at its length is the one thing that could be wrong.
	writes := []struct {
		method, path string
		base         map[string]any
	}{
		{"POST", "/api/wallets", map[string]any{"name": "w"}},
		{"POST", "/api/categories", map[string]any{"name": "c"}},
		{"POST", "/api/tags", map[string]any{"name": "t"}},
		{"POST", "/api/transactions", map[string]any{"type": "expense", "amount": 1}},
		{"POST", "/api/goals", map[string]any{"name": "g", "targetAmount": 1}},
		{"POST", "/api/debts", map[string]any{"name": "d", "totalAmount": 1}},
		{"POST", "/api/workspaces", map[string]any{"name": "team"}},
		{"PATCH", "/api/me", map[string]any{}},
		{"POST", "/api/api-keys", map[string]any{"name": "k", "scopes": []string{"*"}}},
		{"POST", "/api/push/subscribe", map[string]any{"endpoint": "https://push.example/1", "keys": map[string]any{"p256dh": "x", "auth": "y"}}},
		{"POST", "/api/webhooks/incoming", map[string]any{"amount": 1, "concept": "c"}},
	}
	tried := 0
	for _, wr := range writes {
		ref := doc.Paths[wr.path][strings.ToLower(wr.method)].RequestBody.Ref
		schema := doc.RequestBodies[strings.TrimPrefix(ref, "#/components/requestBodies/")].Content.JSON.Schema
		props := schema.Properties
		if len(props) == 0 {
			t.Fatalf("%s %s: no request schema in the document", wr.method, wr.path)
		}
		// A field the schema requires is required by the handler, and the handler
		// requires no other.
		for _, name := range schema.Required {
			body := maps.Clone(wr.base)
			delete(body, name)
			if !slices.Contains(fieldProblems(alice.Do(wr.method, wr.path, body)), name+" is required") {
				t.Errorf("%s %s without %s, which the document requires, is not refused for it", wr.method, wr.path, name)
			}
		}
		for _, problem := range fieldProblems(alice.Do(wr.method, wr.path, wr.base)) {
			if strings.HasSuffix(problem, " is required") {
				t.Errorf("%s %s with the fields the document requires: %s", wr.method, wr.path, problem)
			}
		}
		for _, name := range slices.Sorted(maps.Keys(props)) {
			max := props[name].MaxLength
			if max == 0 {
				continue
			}
			tried++
			for _, n := range []int{max, max + 1} {
				body := maps.Clone(wr.base)
				body[name] = strings.Repeat("é", n)
				res := alice.Do(wr.method, wr.path, body)
				var answer struct {
					Error struct {
						Code    string
						Details []struct{ Field, Message string }
					}
				}
				_ = json.Unmarshal(res.Raw, &answer)
				lengthError := ""
				for _, d := range answer.Error.Details {
					if d.Field == name && strings.Contains(d.Message, "characters long") {
						lengthError = d.Message
					}
				}
				switch {
				case n == max && lengthError != "":
					t.Errorf("%s %s: %s of %d characters, its documented length: %s", wr.method, wr.path, name, n, lengthError)
				case n > max && (res.Status != http.StatusBadRequest || !strings.Contains(lengthError, fmt.Sprint(max))):
					t.Errorf("%s %s: %s of %d characters, one over its documented length: %d %s", wr.method, wr.path, name, n, res.Status, res.Raw)
				}
			}
		}
	}
	if tried < 25 {
		t.Errorf("only %d fields tried", tried)
	}
}

// fieldProblems are the field errors of a VALIDATION_ERROR answer, as "field message".
func fieldProblems(res *apitest.Response) []string {
	var answer struct {
		Error struct {
			Details []struct{ Field, Message string }
		}
	}
	_ = json.Unmarshal(res.Raw, &answer)
	var out []string
	for _, d := range answer.Error.Details {
		out = append(out, d.Field+" "+d.Message)
	}
	return out
}
