package httpapi

import (
	"net/http"
	"strings"
	"testing"
)

// Every tool runs a route an API key may call, takes arguments of distinct names,
// and a write tool's name says it writes.
func TestMCPToolDeclarations(t *testing.T) {
	names := map[string]bool{}
	for _, tl := range mcpTools() {
		if names[tl.Name] {
			t.Errorf("%s declared twice", tl.Name)
		}
		names[tl.Name] = true
		if tl.route.Scope == sessionOnly || tl.route.Scope == channelOnly || tl.route.Scope == realtimeTokenOnly || tl.route.Scope == toolScopes {
			t.Errorf("%s runs %s, which an API key may not call", tl.Name, tl.Route)
		}
		read := tl.route.Method == http.MethodGet
		verb, _, _ := strings.Cut(tl.Name, "_")
		if isRead := verb == "list" || verb == "get" || verb == "search"; isRead != read {
			t.Errorf("%s: a name starting %q for a %s", tl.Name, verb, tl.route.Method)
		}
		if tl.route.Request != "" {
			for name := range tl.in {
				if _, clash := bodyRules[tl.route.Request].schema()["properties"].(obj)[name]; clash {
					t.Errorf("%s: %s is both a parameter and a body field", tl.Name, name)
				}
			}
		}
	}
}
