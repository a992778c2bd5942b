package httpapi

import (
	"encoding/json"
	"net/http"
	"os"
	"slices"
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

// A tool whose route reads the past takes asOf and says so; every write tool takes an
// idempotencyKey; a destructive tool takes confirm, and previews with a read of the
// same path parameters.
func TestMCPToolArguments(t *testing.T) {
	for _, tl := range mcpTools() {
		var input struct {
			Properties map[string]struct{ Type any }
			Required   []string
		}
		if err := json.Unmarshal(tl.def.InputSchema.(json.RawMessage), &input); err != nil {
			t.Fatalf("%s: %v", tl.Name, err)
		}
		_, asOf := input.Properties["asOf"]
		if routeAsOf := slices.ContainsFunc(tl.route.Query, func(q obj) bool { return q["name"] == "asOf" }); routeAsOf != asOf ||
			asOf != strings.Contains(tl.def.Description, "asOf") {
			t.Errorf("%s: asOf in its route %v, in its schema %v, in its description %q", tl.Name, routeAsOf, asOf, tl.def.Description)
		}
		write := tl.route.Method != http.MethodGet
		if key, ok := input.Properties[idempotencyArg]; ok != write || (ok && key.Type != "string") {
			t.Errorf("%s: a write %v, an idempotencyKey %v", tl.Name, write, key)
		}
		destructive := tl.def.Annotations.DestructiveHint != nil && *tl.def.Annotations.DestructiveHint
		if _, ok := input.Properties[confirmArg]; ok != (tl.Confirm != "") || destructive != ok || slices.Contains(input.Required, confirmArg) {
			t.Errorf("%s: confirm in its schema %v, declared destructive %v, required %v", tl.Name, ok, destructive, input.Required)
		}
		if tl.Confirm != "" && (tl.preview.Method != http.MethodGet || !write ||
			!slices.Equal(pathParam.FindAllString(tl.preview.Pattern, -1), pathParam.FindAllString(tl.route.Pattern, -1))) {
			t.Errorf("%s previews with %s", tl.Name, tl.Confirm)
		}
	}
}
