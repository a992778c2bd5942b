package httpapi

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
)

// The OpenAPI document describes every route the router serves, and every schema it
// refers to exists.
func TestOpenAPIDescribesEveryRoute(t *testing.T) {
	doc := openAPIDocument()
	data, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	var parsed map[string]any
	if err := json.Unmarshal(data, &parsed); err != nil {
		t.Fatal(err)
	}
	if parsed["openapi"] != "3.1.0" || parsed["info"].(map[string]any)["version"] != "1.0.0" {
		t.Fatalf("openapi %v, info %v", parsed["openapi"], parsed["info"])
	}
	paths := parsed["paths"].(map[string]any)
	router := (&Server{}).Handler().(chi.Routes)
	served := 0
	err = chi.Walk(router, func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		// The document and the reference that renders it are about the API, not in it.
		if !strings.HasPrefix(route, "/api/") || route == "/api/openapi.json" || strings.HasPrefix(route, "/api/docs") {
			return nil
		}
		served++
		item, _ := paths[route].(map[string]any)
		op, _ := item[strings.ToLower(method)].(map[string]any)
		if op == nil {
			t.Errorf("%s %s is served but not documented", method, route)
			return nil
		}
		if op["x-scope"] == "" || op["summary"] == "" {
			t.Errorf("%s %s lacks a scope or summary", method, route)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if served != len(apiRoutes()) {
		t.Fatalf("router serves %d API routes, route table has %d", served, len(apiRoutes()))
	}
	schemas := parsed["components"].(map[string]any)["schemas"].(map[string]any)
	for _, ref := range strings.Split(string(data), `"$ref":"#/components/schemas/`)[1:] {
		name, _, _ := strings.Cut(ref, `"`)
		if schemas[name] == nil {
			t.Errorf("$ref to missing schema %s", name)
		}
	}
}
