package httpapi_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/finledger/finledger/internal/testkit/apitest"
)

// schemaRule is the part of a request schema the handlers' rules are checked against.
type schemaRule struct {
	Type             any                    `json:"type"`
	Format           string                 `json:"format"`
	Pattern          string                 `json:"pattern"`
	Enum             []any                  `json:"enum"`
	Const            any                    `json:"const"`
	OneOf            []*schemaRule          `json:"oneOf"`
	MinLength        *int                   `json:"minLength"`
	MaxLength        *int                   `json:"maxLength"`
	Minimum          *float64               `json:"minimum"`
	Maximum          *float64               `json:"maximum"`
	ExclusiveMinimum *float64               `json:"exclusiveMinimum"`
	MinItems         *int                   `json:"minItems"`
	MaxItems         *int                   `json:"maxItems"`
	Items            *schemaRule            `json:"items"`
	Required         []string               `json:"required"`
	Properties       map[string]*schemaRule `json:"properties"`
}

// is reports whether the schema's type is kind, alone or with null.
func (s *schemaRule) is(kind string) bool {
	switch t := s.Type.(type) {
	case string:
		return t == kind
	case []any:
		return slices.Contains(t, any(kind))
	}
	return false
}

// sample is a value the schema takes, the least it can be: the first of an enum, the
// lower bound of a number, the fewest entries of a list, the required fields of an
// object.
func sample(s *schemaRule) any {
	switch {
	case s.Const != nil:
		return s.Const
	case len(s.Enum) > 0:
		return s.Enum[0]
	case len(s.OneOf) > 0:
		return sample(s.OneOf[0])
	case s.is("object"):
		o := map[string]any{}
		for _, name := range s.Required {
			o[name] = sample(s.Properties[name])
		}
		return o
	case s.is("array"):
		n := 0
		if s.MinItems != nil {
			n = *s.MinItems
		}
		return entries(s.Items, n)
	case s.is("number") || s.is("integer"):
		switch {
		case s.ExclusiveMinimum != nil:
			return *s.ExclusiveMinimum + 1
		case s.Minimum != nil:
			return *s.Minimum
		}
		return 1
	case s.is("boolean"):
		return true
	}
	switch s.Format {
	case "uuid":
		return uuid.NewString()
	case "date":
		return "2026-03-10"
	case "date-time":
		return "2026-12-31T00:00:00Z"
	case "uri":
		return "https://push.example/1"
	case "email":
		return "someone@example.com"
	}
	switch s.Pattern {
	case "^[A-Za-z]{3}$":
		return "MXN"
	case "^#[0-9a-fA-F]{6}$":
		return "#000000"
	}
	if s.MinLength != nil && *s.MinLength > 1 {
		return strings.Repeat("x", *s.MinLength)
	}
	return "x"
}

// entries is a list of n values of the items' schema, all different where the items
// are ids or come from an enum with as many values.
func entries(items *schemaRule, n int) []any {
	out := make([]any, n)
	for i := range out {
		switch {
		case len(items.Enum) > 0:
			out[i] = items.Enum[i%len(items.Enum)]
		default:
			out[i] = sample(items)
		}
	}
	return out
}

// The request schemas of the served document state the rules the handlers apply, for
// every operation that takes a body: a field the schema requires is refused as missing,
// and no other; every bound a field's schema states is the handler's. A string one
// character longer than maxLength or shorter than minLength, a number one past its
// minimum, maximum or exclusiveMinimum, a list of one entry more than maxItems or fewer
// than minItems are each 400 VALIDATION_ERROR naming the field, and the bound itself
// draws no such refusal. Nested objects and the objects of lists are tried field by
// field the same way. The operations, their bodies and the least body each takes are
// read from the document, so a body added to it is tried here too.
func TestRequestSchemasAreTheHandlersRules(t *testing.T) {
	env := apitest.Start(t)
	alice := env.As("alice")
	phone := linkPhone(t, env, alice, alicePhone, nil)
	team := alice.Post("/api/workspaces", map[string]any{"name": "Team"}).Expect(t, http.StatusOK).Object("workspace")["id"].(string)
	raw := alice.Get("/api/openapi.json").Expect(t, http.StatusOK).Raw
	var doc struct {
		Paths map[string]map[string]struct {
			Scope       string `json:"x-scope"`
			RequestBody struct {
				Ref string `json:"$ref"`
			} `json:"requestBody"`
		}
		Components struct {
			RequestBodies map[string]struct {
				Content struct {
					JSON struct {
						Schema *schemaRule
					} `json:"application/json"`
				}
			} `json:"requestBodies"`
		}
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	pathParam := regexp.MustCompile(`\{[A-Za-z]+\}`)
	operations, bounds := 0, 0
	for _, path := range slices.Sorted(maps.Keys(doc.Paths)) {
		for _, method := range slices.Sorted(maps.Keys(doc.Paths[path])) {
			op := doc.Paths[path][method]
			if op.RequestBody.Ref == "" {
				continue
			}
			operations++
			name := strings.TrimPrefix(op.RequestBody.Ref, "#/components/requestBodies/")
			schema := doc.Components.RequestBodies[name].Content.JSON.Schema
			if schema == nil && (name == "StatementFile" || name == "AttachmentFile") {
				continue // a file, not JSON: TestImportBadInput, TestAttachmentBadInput
			}
			if schema == nil || len(schema.Properties) == 0 {
				t.Errorf("%s %s: request body %s has no schema", method, path, name)
				continue
			}
			client := alice
			if op.Scope == "channel" {
				client = phone
			}
			method := strings.ToUpper(method)
			// Ids in the path need not name records, the body being checked before any is
			// looked up; but a workspace's must be one the caller is a member of.
			target := pathParam.ReplaceAllStringFunc(path, func(param string) string {
				switch param {
				case "{workspaceId}":
					return team
				case "{index}":
					return "0"
				}
				return uuid.NewString()
			})
			base := sample(schema).(map[string]any)
			do := func(body map[string]any) *apitest.Response {
				if client == phone {
					// A phone may send 30 requests a minute.
					env.Clock.Set(env.Clock.Now().Add(3 * time.Second))
				}
				return client.Do(method, target, body)
			}
			where := method + " " + path

			for _, field := range schema.Required {
				body := maps.Clone(base)
				delete(body, field)
				if !slices.Contains(fieldProblems(do(body)), field+" is required") {
					t.Errorf("%s without %s, which the document requires, is not refused for it", where, field)
				}
			}
			for _, problem := range fieldProblems(do(base)) {
				if strings.HasSuffix(problem, " is required") {
					t.Errorf("%s with the fields the document requires: %s", where, problem)
				}
			}
			bounds += tryBounds(t, where, base, "", schema, func(set func(map[string]any)) *apitest.Response {
				body := deepClone(base)
				set(body)
				return do(body)
			})
		}
	}
	if operations < 36 {
		t.Errorf("only %d operations with a body tried", operations)
	}
	if bounds < 60 {
		t.Errorf("only %d bounds tried", bounds)
	}
}

// tryBounds tries every bound the properties of an object's schema state, the object
// being at prefix in the body (set changes a copy of the body); it returns how many
// bounds it tried.
func tryBounds(t *testing.T, where string, base map[string]any, prefix string, schema *schemaRule,
	try func(set func(map[string]any)) *apitest.Response) int {
	t.Helper()
	tried := 0
	for _, name := range slices.Sorted(maps.Keys(schema.Properties)) {
		prop, field := schema.Properties[name], prefix+name
		at := func(v any) func(map[string]any) {
			return func(body map[string]any) { objectAt(body, prefix)[name] = v }
		}
		// refused: the value is 400 VALIDATION_ERROR naming the field with words
		// holding says; taken: the value draws no refusal of the field with them.
		refused := func(v any, says, what string) {
			res := try(at(v))
			if res.Status != http.StatusBadRequest || res.ErrorCode() != "VALIDATION_ERROR" || !hasProblem(res, field, says) {
				t.Errorf("%s: %s %s is not refused for it: %d %.300s", where, field, what, res.Status, res.Raw)
			}
		}
		taken := func(v any, says, what string) {
			if res := try(at(v)); hasProblem(res, field, says) {
				t.Errorf("%s: %s %s is refused: %.300s", where, field, what, res.Raw)
			}
		}
		if prop.MaxLength != nil {
			n := *prop.MaxLength
			tried++
			taken(strings.Repeat("é", n), "characters long", fmt.Sprintf("of %d characters, its documented length", n))
			refused(strings.Repeat("é", n+1), fmt.Sprint(n), fmt.Sprintf("of %d characters, one over its documented length", n+1))
		}
		if prop.MinLength != nil && *prop.MinLength > 0 && len(prop.OneOf) == 0 {
			n := *prop.MinLength
			tried++
			taken(strings.Repeat("é", n), "characters long", fmt.Sprintf("of %d characters, its documented least", n))
			refused(strings.Repeat("é", n-1), "", fmt.Sprintf("of %d characters, one under its documented least", n-1))
		}
		if prop.Maximum != nil {
			m := *prop.Maximum
			tried++
			taken(m, "", fmt.Sprintf("%v, its documented maximum,", m))
			refused(m+1, "", fmt.Sprintf("%v, one over its documented maximum,", m+1))
		}
		if prop.Minimum != nil {
			m := *prop.Minimum
			tried++
			taken(m, "", fmt.Sprintf("%v, its documented minimum,", m))
			refused(m-1, "", fmt.Sprintf("%v, one under its documented minimum,", m-1))
		}
		if prop.ExclusiveMinimum != nil {
			m := *prop.ExclusiveMinimum
			tried++
			taken(m+1, "", fmt.Sprintf("%v, above its documented exclusive minimum,", m+1))
			refused(m, "", fmt.Sprintf("%v, its documented exclusive minimum,", m))
		}
		if prop.MaxItems != nil && prop.Items != nil {
			n := *prop.MaxItems
			tried++
			// A list's count is told apart from what its entries say together (parts
			// that must add up): "must hold" is every count's refusal.
			taken(entries(prop.Items, n), "must hold", fmt.Sprintf("of %d entries, its documented most,", n))
			refused(entries(prop.Items, n+1), "must hold", fmt.Sprintf("of %d entries, one over its documented most,", n+1))
		}
		if prop.MinItems != nil && *prop.MinItems > 0 && prop.Items != nil {
			n := *prop.MinItems
			tried++
			refused(entries(prop.Items, n-1), "must hold", fmt.Sprintf("of %d entries, one under its documented least,", n-1))
		}
		switch {
		case prop.is("object") && prop.Properties != nil:
			if _, ok := objectAt(base, prefix)[name]; !ok {
				continue // tried only as the least body holds it
			}
			tried += tryBounds(t, where, base, field+".", prop, try)
		case prop.is("array") && prop.Items != nil && prop.Items.is("object"):
			// The objects of a list: one, tried field by field.
			item := sample(prop.Items).(map[string]any)
			tried += tryBounds(t, where, base, field+"[0].", prop.Items, func(set func(map[string]any)) *apitest.Response {
				return try(func(body map[string]any) {
					objectAt(body, prefix)[name] = []any{deepClone(item)}
					set(body)
				})
			})
		}
	}
	return tried
}

// objectAt is the object at a prefix such as "keys." or "rates[0]." of a body.
func objectAt(body map[string]any, prefix string) map[string]any {
	o := body
	for _, part := range strings.Split(strings.TrimSuffix(prefix, "."), ".") {
		if part == "" {
			continue
		}
		name, index, listed := strings.Cut(strings.TrimSuffix(part, "]"), "[")
		if listed {
			i, _ := strconv.Atoi(index)
			o = o[name].([]any)[i].(map[string]any)
			continue
		}
		o = o[name].(map[string]any)
	}
	return o
}

// deepClone copies a body, its nested objects and lists included.
func deepClone(body map[string]any) map[string]any {
	var out map[string]any
	data, _ := json.Marshal(body)
	_ = json.Unmarshal(data, &out)
	return out
}

// hasProblem reports whether an answer refuses field with a message holding says.
func hasProblem(res *apitest.Response, field, says string) bool {
	for _, p := range fieldProblems(res) {
		if strings.HasPrefix(p, field+" ") && strings.Contains(p, says) {
			return true
		}
	}
	return false
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
