package httpapi

import (
	"encoding/json"
	"net/http"
	"os"
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
		var output struct{ Type string }
		if err := json.Unmarshal(tl.def.OutputSchema.(json.RawMessage), &output); err != nil || output.Type != "object" {
			t.Errorf("%s: the output schema is not an object's (%v)", tl.Name, err)
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

// docs/api.md's table of tools names each tool with its operation and scope.
func TestMCPToolsAreDocumented(t *testing.T) {
	doc, err := os.ReadFile("../docs/api.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{}
	for _, line := range strings.Split(string(doc), "\n") {
		if name, ok := strings.CutPrefix(line, "| `"); ok {
			name, _, _ = strings.Cut(name, "`")
			rows[name] = line
		}
	}
	for _, tl := range mcpTools() {
		if row := rows[tl.Name]; !strings.Contains(row, "`"+tl.Route+"`") || !strings.Contains(row, "| `"+tl.route.Scope+"` |") {
			t.Errorf("%s (%s, %s) is documented as %q", tl.Name, tl.Route, tl.route.Scope, row)
		}
	}
}
