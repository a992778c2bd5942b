package httpapi_test

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/finledger/finledger/internal/testkit/apitest"
)

// A webhook's URL often carries credentials (a token in the query, a secret path):
// members who may not change webhooks (collaborators and readers, and a key without
// webhooks:write) see it masked, in the listing, one webhook and its deliveries'
// attempts (errors quoting the URL, answers echoing it); owners and admins see it
// whole.
func TestWebhookURLsAreMaskedBelowAdmin(t *testing.T) {
	env, ev := apitest.StartEvents(t, []time.Duration{10 * time.Millisecond})
	ev.Run()
	alice, bob, carol, dave := env.As("alice"), env.As("bob"), env.As("carol"), env.As("dave")
	for _, c := range []*apitest.Client{bob, carol, dave} {
		c.Get("/api/me").Expect(t, http.StatusOK)
	}
	team := alice.Post("/api/workspaces", map[string]any{"name": "Acme"}).Expect(t, http.StatusOK).Object("workspace")["id"].(string)
	for email, role := range map[string]string{"bob": "collaborator", "carol": "reader", "dave": "admin"} {
		alice.Post("/api/workspaces/"+team+"/members", map[string]any{"email": email + "@example.com", "role": role}).Expect(t, http.StatusOK)
	}
	in := func(c *apitest.Client) *apitest.Client { return c.With("X-Workspace-Id", team) }
	readKey, _ := newKey(t, in(alice), "webhooks:read")

	// A receiver that answers 500 echoing where it was called, and a port nobody listens on.
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprintf(w, "no route for %s", r.URL.RequestURI())
	}))
	t.Cleanup(echo.Close)
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	nowhere := "http://" + closed.Addr().String()
	closed.Close()
	const secretPath, token = "/in/s3cr3tpath", "t0k3n"
	hooks := map[string]string{} // id: URL
	for _, base := range []string{echo.URL, nowhere} {
		url := base + secretPath + "?token=" + token
		h := in(alice).Post("/api/webhooks/outbound", map[string]any{"name": "books", "url": url}).Expect(t, http.StatusOK).Object("webhook")
		hooks[h["id"].(string)] = url
		in(alice).Post("/api/webhooks/outbound/"+h["id"].(string)+"/test", nil).Expect(t, http.StatusOK)
	}
	for id := range hooks {
		waitFor(t, "the test delivery to fail", 10*time.Second, func() bool {
			list := in(alice).Get("/api/webhooks/outbound/" + id + "/deliveries").List("deliveries")
			return len(list) == 1 && list[0]["status"] == "failed"
		})
	}

	for _, c := range []struct {
		who    string
		client *apitest.Client
		whole  bool
	}{{"owner", in(alice), true}, {"admin", in(dave), true}, {"collaborator", in(bob), false}, {"reader", in(carol), false},
		{"owner's read-only key", readKey, false}} {
		var raw strings.Builder
		list := c.client.Get("/api/webhooks/outbound").Expect(t, http.StatusOK)
		raw.Write(list.Raw)
		for _, h := range list.List("webhooks") {
			id, url := h["id"].(string), h["url"].(string)
			want := hooks[id]
			if !c.whole {
				want = want[:strings.Index(want, secretPath)] + "/***"
			}
			if url != want {
				t.Errorf("%s sees %s in the listing, want %s", c.who, url, want)
			}
			one := c.client.Get("/api/webhooks/outbound/"+id).Expect(t, http.StatusOK)
			if got := one.Object("webhook")["url"]; got != want {
				t.Errorf("%s sees %s, want %s", c.who, got, want)
			}
			deliveries := c.client.Get("/api/webhooks/outbound/"+id+"/deliveries").Expect(t, http.StatusOK)
			raw.Write(one.Raw)
			raw.Write(deliveries.Raw)
		}
		shown := raw.String()
		if leaks := strings.Contains(shown, token) || strings.Contains(shown, "s3cr3tpath"); leaks != c.whole {
			t.Errorf("%s: the answers hold the URL's secrets: %v, want %v:\n%s", c.who, leaks, c.whole, shown)
		}
	}
}
