package webhooks

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/queries"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/ from the code")

// golden compares got with the golden file name of testdata/, byte for byte, or
// rewrites it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is not what the code makes: a public payload changed. If the change is meant, and is one "+
			"subscribers' code can take (or the payload's version went up), run go test ./webhooks -run %s -update\n%s",
			path, t.Name(), got)
	}
}

// What subscribers receive for fixed stored events is held in a golden file: a change
// of a stored event's fields (a rename, a new type) cannot change the public data
// unnoticed. When the data got types of their own, a test held these samples' data to
// what subscribers were sent before: the stored event less its postings and effects.
func TestPayloadsOfFixedEvents(t *testing.T) {
	type told struct {
		Sample      string          `json:"sample"`
		Stored      string          `json:"stored"`
		Events      []string        `json:"events"`
		DataVersion int             `json:"dataVersion"`
		Data        json.RawMessage `json:"data"`
	}
	var all []told
	for _, s := range storedSamples(t) {
		publics, err := PublicEvents(s.typ, s.data)
		if err != nil || len(publics) == 0 {
			t.Fatalf("%s: %v (%d public events)", s.name, err, len(publics))
		}
		e := told{Sample: s.name, Stored: s.typ, DataVersion: publics[0].Version, Data: publics[0].Data}
		for _, p := range publics {
			e.Events = append(e.Events, p.Name)
		}
		all = append(all, e)
	}
	data, err := json.MarshalIndent(all, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "payloads.golden.json", append(data, '\n'))
}

// Each public event's body schema, made from the Go types, is held in a golden file: a
// payload type's change shows as a change of the document subscribers read.
func TestPayloadSchemas(t *testing.T) {
	schemas := map[string]any{}
	for _, d := range EventDocs() {
		schemas[d.Name] = d.Body
	}
	if len(schemas) != len(domain.HookEvents) {
		t.Fatalf("%d schemas for %d public events", len(schemas), len(domain.HookEvents))
	}
	data, err := json.MarshalIndent(schemas, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "schemas.golden.json", append(data, '\n'))
}

// Every public event name has a payload type, the one its events are sent with, and
// what is sent has the fields its schema gives: those it requires, and no others.
func TestPayloadsMatchTheirSchemas(t *testing.T) {
	docs := map[string]EventDoc{}
	for _, d := range EventDocs() {
		docs[d.Name] = d
	}
	for _, name := range domain.HookEvents {
		if _, ok := publicPayloads[name]; !ok {
			t.Errorf("%s has no payload type", name)
		}
	}
	for _, s := range storedSamples(t) {
		names, p, err := publicOf(s.typ, s.data)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range names {
			if want := reflect.TypeOf(publicPayloads[name].data); reflect.TypeOf(p) != want {
				t.Errorf("%s: %s is sent as %T, documented as %s", s.name, name, p, want)
			}
			publics, err := PublicEvents(s.typ, s.data)
			if err != nil {
				t.Fatal(err)
			}
			var data any
			if err := json.Unmarshal(publics[0].Data, &data); err != nil {
				t.Fatal(err)
			}
			schema := docs[name].Body["properties"].(map[string]any)["data"].(map[string]any)
			for _, problem := range fitsSchema("data", data, schema) {
				t.Errorf("%s as %s: %s", s.name, name, problem)
			}
		}
	}
	test, err := publicEvent(domain.HookTest, TestPayload{Message: "hello"})
	if err != nil || test.Version != 1 {
		t.Fatalf("%+v, %v", test, err)
	}
}

// fitsSchema lists how v strays from the object fields of schema: a required field
// missing, a field the schema does not have, or a value of another JSON type.
func fitsSchema(at string, v any, schema map[string]any) []string {
	var problems []string
	types := fmt.Sprint(schema["type"])
	kind := map[bool]string{true: "null"}[v == nil]
	switch v.(type) {
	case string:
		kind = "string"
	case float64:
		kind = "number"
		if strings.Contains(types, "integer") {
			kind = "integer"
		}
	case bool:
		kind = "boolean"
	case []any:
		kind = "array"
	case map[string]any:
		kind = "object"
	}
	if !strings.Contains(types, kind) {
		return []string{fmt.Sprintf("%s is %s, the schema says %s", at, kind, types)}
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	props, _ := schema["properties"].(map[string]any)
	required, _ := schema["required"].([]string)
	for _, name := range required {
		if _, ok := obj[name]; !ok {
			problems = append(problems, fmt.Sprintf("%s.%s is required but missing", at, name))
		}
	}
	for name, field := range obj {
		s, ok := props[name].(map[string]any)
		if !ok {
			problems = append(problems, fmt.Sprintf("%s.%s is not in the schema", at, name))
			continue
		}
		problems = append(problems, fitsSchema(at+"."+name, field, s)...)
	}
	return problems
}

// No payload type has a field of a type of package domain but Date and TransactionType,
// nor of any package but the few a public payload may build on: a change of the
// ledger's own types cannot reach subscribers through a payload's field.
func TestPayloadsHoldNoDomainTypes(t *testing.T) {
	domainPkg := reflect.TypeFor[domain.TransactionCreated]().PkgPath()
	allowed := map[string]bool{"": true, reflect.TypeFor[Public]().PkgPath(): true,
		reflect.TypeFor[uuid.UUID]().PkgPath(): true, reflect.TypeFor[queries.Amount]().PkgPath(): true}
	if allowed[domainPkg] {
		t.Fatalf("the domain package %s is among the allowed ones", domainPkg)
	}
	seen := map[reflect.Type]bool{}
	var walk func(at string, typ reflect.Type)
	walk = func(at string, typ reflect.Type) {
		if seen[typ] {
			return
		}
		seen[typ] = true
		switch typ.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
			walk(at, typ.Elem())
			return
		}
		if typ == reflect.TypeFor[domain.Date]() || typ == reflect.TypeFor[domain.TransactionType]() {
			return // their JSON is fixed: "YYYY-MM-DD" and the type's name (domain's TestDateAndTransactionTypeJSON)
		}
		if pkg := typ.PkgPath(); pkg == domainPkg {
			t.Errorf("%s is of type %s, of the domain package %s", at, typ, pkg)
		} else if !allowed[pkg] {
			t.Errorf("%s is of type %s, of package %s, which public payloads do not build on", at, typ, pkg)
		}
		if typ.Kind() != reflect.Struct || typ.PkgPath() != reflect.TypeFor[Public]().PkgPath() {
			return
		}
		for f := range typ.Fields() {
			if f.IsExported() { // the rest is the type's own, written by its MarshalJSON
				walk(typ.Name()+"."+f.Name, f.Type)
			}
		}
	}
	for _, p := range publicPayloads {
		walk(reflect.TypeOf(p.data).Name(), reflect.TypeOf(p.data))
	}
	if len(seen) < 10 {
		t.Fatalf("only %d types walked", len(seen))
	}
}
