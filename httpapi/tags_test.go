package httpapi_test

import (
	"encoding/json"
	"net/http"
	"reflect"
	"slices"
	"sort"
	"testing"

	"github.com/finledger/finledger/internal/testkit/apitest"
)

// Tags are renamed, recoloured and archived (spec 5.3: tags:write creates, updates and
// deletes them); an archived tag leaves the listing, frees its name and cannot be given
// to anything new, and every change is in the audit log as before and after.
func TestTagsAreEditedAndArchived(t *testing.T) {
	env := apitest.Start(t)
	alice := env.As("alice")
	home := alice.Post("/api/tags", map[string]any{"name": "Home"}).Expect(t, http.StatusOK).Object("tag")
	id := home["id"].(string)
	alice.Post("/api/tags", map[string]any{"name": "Trips", "color": "#123456"}).Expect(t, http.StatusOK)

	renamed := alice.Patch("/api/tags/"+id, map[string]any{"name": "House", "color": "#AA00FF"}).Expect(t, http.StatusOK).Object("tag")
	if renamed["name"] != "House" || renamed["color"] != "#AA00FF" || renamed["active"] != true {
		t.Fatalf("renamed = %v", renamed)
	}
	// The same fields again change nothing; a name held by another tag is refused.
	alice.Patch("/api/tags/"+id, map[string]any{"name": "House"}).Expect(t, http.StatusOK)
	expectError(t, alice.Patch("/api/tags/"+id, map[string]any{"name": "trips"}), http.StatusConflict, "CONFLICT")
	got := fieldErrors(t, alice.Patch("/api/tags/"+id, map[string]any{"name": nil, "color": "red"}))
	sort.Strings(got)
	if !reflect.DeepEqual(got, []string{"color", "name"}) {
		t.Fatalf("bad fields %v", got)
	}
	fieldErrors(t, alice.Patch("/api/tags/"+id, map[string]any{"name": "x", "icon": "y"}))
	fieldErrors(t, alice.Patch("/api/tags/123", map[string]any{"name": "x"}))
	expectError(t, alice.Patch("/api/tags/00000000-0000-0000-0000-000000000000", map[string]any{"name": "x"}), http.StatusNotFound, "TAG_NOT_FOUND")

	archived := alice.Delete("/api/tags/"+id).Expect(t, http.StatusOK).Object("tag")
	if archived["active"] != false || archived["name"] != "House" {
		t.Fatalf("archived = %v", archived)
	}
	if list := alice.Get("/api/tags").List("tags"); len(list) != 1 || list[0]["name"] != "Trips" {
		t.Fatalf("tags after archive = %v", list)
	}
	expectError(t, alice.Delete("/api/tags/"+id), http.StatusNotFound, "TAG_NOT_FOUND")
	expectError(t, alice.Patch("/api/tags/"+id, map[string]any{"name": "Again"}), http.StatusNotFound, "TAG_NOT_FOUND")
	expectError(t, alice.Post("/api/categories", map[string]any{"name": "Rent", "tagId": id}), http.StatusNotFound, "TAG_NOT_FOUND")
	alice.Post("/api/tags", map[string]any{"name": "house"}).Expect(t, http.StatusOK)

	var changes []string
	for _, e := range alice.Get("/api/audit?entity=tag&pageSize=100").Expect(t, http.StatusOK).List("entries") {
		if e["entityId"] == id {
			data, _ := json.Marshal(e["changes"])
			changes = append(changes, e["action"].(string)+" "+string(data))
		}
	}
	want := []string{"delete {}", `update {"color":{"after":"#AA00FF","before":"#6b7280"},"name":{"after":"House","before":"Home"}}`}
	if len(changes) != 3 || !reflect.DeepEqual(changes[:2], want) {
		t.Fatalf("audit of the tag, newest first:\n%v\nwant %v and its creation", changes, want)
	}
}

// Only a role with tags:write changes tags; every role is told its scopes, which the
// app reads to offer only what the role may do.
func TestTagChangesNeedTagsWrite(t *testing.T) {
	env := apitest.Start(t)
	alice, _, in, _ := team(t, env, map[string]string{"bob": "collaborator", "carol": "reader", "dave": "admin"})
	tag := in["alice"].Post("/api/tags", map[string]any{"name": "Ops"}).Expect(t, http.StatusOK).Object("tag")["id"].(string)
	for _, who := range []string{"bob", "carol"} {
		expectError(t, in[who].Patch("/api/tags/"+tag, map[string]any{"name": "Mine"}), http.StatusForbidden, "FORBIDDEN")
		expectError(t, in[who].Delete("/api/tags/"+tag), http.StatusForbidden, "FORBIDDEN")
	}
	in["dave"].Patch("/api/tags/"+tag, map[string]any{"name": "Operations"}).Expect(t, http.StatusOK)
	in["dave"].Delete("/api/tags/"+tag).Expect(t, http.StatusOK)

	scopes := func(c *apitest.Client) []any {
		return c.Get("/api/me").Expect(t, http.StatusOK).Object("workspace")["scopes"].([]any)
	}
	if got := scopes(in["alice"]); !reflect.DeepEqual(got, []any{"*"}) {
		t.Fatalf("the owner's scopes %v", got)
	}
	bob := scopes(in["bob"])
	if !slices.Contains(bob, any("wallets:write")) || slices.Contains(bob, any("tags:write")) {
		t.Fatalf("the collaborator's scopes %v", bob)
	}
	for _, s := range scopes(in["carol"]) {
		if s != "profile:write" && len(s.(string)) > 6 && s.(string)[len(s.(string))-6:] == ":write" {
			t.Fatalf("the reader holds %v", s)
		}
	}
	for _, ws := range alice.Get("/api/workspaces").Expect(t, http.StatusOK).List("workspaces") {
		if !reflect.DeepEqual(ws["scopes"], []any{"*"}) {
			t.Fatalf("the owner's workspace %v", ws)
		}
	}
}
