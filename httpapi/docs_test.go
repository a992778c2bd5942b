package httpapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/finledger/finledger/internal/testkit/apitest"
	"github.com/finledger/finledger/internal/testkit/browser"
	"github.com/finledger/finledger/webapp"
)

// The root address sends a browser to the web app and tells anything else where things
// are; the API reference is a page of its own, in the binary, loading nothing from
// another origin.
func TestRootAndReferencePages(t *testing.T) {
	env := apitest.StartWithBrowser(t, apitest.Options(), func(e *apitest.Env) *webapp.App { return e.App(webapp.Config{}) })
	browser := env.Anonymous().With("Accept", "text/html,application/xhtml+xml")
	// The client follows the redirect, as a browser does.
	if home := browser.Get("/").Expect(t, http.StatusOK); !strings.Contains(string(home.Raw), `src="/app/js/main.js"`) {
		t.Fatalf("the root does not lead a browser to the app: %s", home.Raw)
	}
	if r := env.Anonymous().Get("/").Expect(t, http.StatusOK); r.JSON["docs"] != "/api/docs" || r.JSON["openapi"] != "/api/openapi.json" || r.JSON["app"] != "/app/" {
		t.Fatalf("home as JSON: %s", r.Raw)
	}
	for path, kind := range map[string]string{"/api/docs": "text/html", "/api/docs/docs.js": "text/javascript", "/api/docs/docs.css": "text/css"} {
		r := browser.Get(path).Expect(t, http.StatusOK)
		if !strings.HasPrefix(r.Header.Get("Content-Type"), kind) || !strings.Contains(r.Header.Get("Content-Security-Policy"), "default-src 'none'") {
			t.Errorf("%s: %s, policy %q", path, r.Header.Get("Content-Type"), r.Header.Get("Content-Security-Policy"))
		}
		if regexp.MustCompile(`(src|href|url)\s*[=(]\s*["']?(https?:)?//`).Match(r.Raw) {
			t.Errorf("%s loads from another origin", path)
		}
	}
	browser.Get("/api/docs/other.js").Expect(t, http.StatusNotFound)
}

// In a real browser, the reference renders every operation of the served document.
func TestReferenceRendersInABrowser(t *testing.T) {
	env := apitest.Start(t)
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(env.Anonymous().Get("/api/openapi.json").Expect(t, http.StatusOK).Raw, &doc); err != nil {
		t.Fatal(err)
	}
	operations := 0
	for _, item := range doc.Paths {
		for method := range item {
			switch method {
			case "get", "post", "put", "patch", "delete":
				operations++
			}
		}
	}
	profile, err := os.MkdirTemp("", "finledger-browser-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(profile)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	exe, err := browser.Driven()
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.CommandContext(ctx, exe, "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir="+profile,
		"--virtual-time-budget=10000", "--dump-dom", env.URL+"/api/docs").Output()
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	dom := string(out)
	if !strings.Contains(dom, `data-operations="`+strconv.Itoa(operations)+`"`) {
		t.Fatalf("the page did not render %d operations:\n%.2000s", operations, dom)
	}
	for _, want := range []string{`id="group-transactions"`, `/api/transactions/{id}`, `Finledger API 1.`} {
		if !strings.Contains(dom, want) {
			t.Errorf("the rendered page lacks %q", want)
		}
	}
}
