package browser

import (
	"bytes"
	"fmt"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// The tests share one browser, as the web app's do.
func TestMain(m *testing.M) { Main(m) }

// policy is the web app's Content-Security-Policy, as far as these pages need it: no
// inline script, none from elsewhere.
const policy = "default-src 'none'; script-src 'self'; style-src 'self'"

// pages serves the test pages with the app's policy.
func pages(t *testing.T) *httptest.Server {
	files := map[string]string{
		"/clean": `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Ledger</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><link rel="stylesheet" href="/page.css"></head>
<body><main><h1>Ledger</h1><p>Nothing is owed.</p><button type="button">Add a transaction</button></main></body></html>`,
		"/unnamed-button": `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Ledger</title></head>
<body><main><h1>Ledger</h1><button type="button" id="add"></button></main></body></html>`,
		"/errors": `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Ledger</title>
<script src="/errors.js"></script><script>window.inlineRan = true</script></head>
<body><main><h1>Ledger</h1></main></body></html>`,
		"/page.css":  "body { font: 16px sans-serif; margin: 2rem; } h1 { color: #1a1a1a; }",
		"/errors.js": "console.log('loading'); console.error('ledger failed:', 42);\nthrow new Error('boom');",
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		kind := "text/html; charset=utf-8"
		switch filepath.Ext(r.URL.Path) {
		case ".css":
			kind = "text/css"
		case ".js":
			kind = "text/javascript"
		}
		w.Header().Set("Content-Type", kind)
		w.Header().Set("Content-Security-Policy", policy)
		fmt.Fprint(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// axe-core, put in through the DevTools protocol, runs on pages whose policy forbids
// inline and foreign scripts; it finds a button with no name, and nothing on a clean page.
func TestAxeUnderTheAppsPolicy(t *testing.T) {
	srv := pages(t)
	ctx := Start(t)

	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/unnamed-button")); err != nil {
		t.Fatal(err)
	}
	violations, err := AxeViolations(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var found *Violation
	for i, v := range violations {
		if v.ID == "button-name" {
			found = &violations[i]
		}
	}
	if found == nil {
		t.Fatalf("axe did not report the button with no name; it reported %v", violations)
	}
	if found.Impact != "critical" || len(found.Nodes) != 1 || strings.Join(found.Nodes[0].Target, " ") != "#add" {
		t.Errorf("the violation: %s", found)
	}

	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/clean")); err != nil {
		t.Fatal(err)
	}
	if violations, err := AxeViolations(ctx); err != nil || len(violations) != 0 {
		t.Fatalf("the clean page: %v, %v", violations, err)
	}
	Axe(t, ctx)
	NoConsoleErrors(t, ctx)
}

// Screenshots are PNG files of the page at the viewport asked for, in the artifacts
// directory.
func TestScreenshots(t *testing.T) {
	srv := pages(t)
	dir := t.TempDir()
	t.Setenv("FINLEDGER_ARTIFACTS", dir)
	ctx := Start(t)

	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/clean")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name     string
		viewport chromedp.Action[chromedp.Void]
		width    int
	}{
		{"desktop", Desktop(), DesktopWidth},
		{"phone", Phone(), PhoneWidth},
	} {
		if err := chromedp.Do(ctx, c.viewport); err != nil {
			t.Fatal(err)
		}
		path := Screenshot(t, ctx, c.name)
		if want := filepath.Join(dir, "TestScreenshots-"+c.name+".png"); path != want {
			t.Errorf("the screenshot is %s, not %s", path, want)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if w := img.Bounds().Dx(); w != c.width {
			t.Errorf("%s: %d pixels wide, not %d", c.name, w, c.width)
		}
	}
	mobile, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`matchMedia("(pointer: coarse)").matches && innerWidth === 360`))
	if err != nil || !mobile {
		t.Errorf("the phone viewport is not a touch screen 360 pixels wide: %v", err)
	}
}

// The page's console errors, its uncaught exceptions and the policy's refusals are
// collected, in order; its other console messages are not.
func TestConsoleErrors(t *testing.T) {
	srv := pages(t)
	ctx := Start(t)

	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/errors")); err != nil {
		t.Fatal(err)
	}
	if ran, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.inlineRan === true`)); err != nil || ran {
		t.Fatalf("the inline script ran (%v): the policy is not in force", err)
	}
	errs := ConsoleErrors(t, ctx)
	var got []string
	for _, e := range errs {
		got = append(got, e.String())
	}
	report := strings.Join(got, "\n")
	if len(errs) < 3 || errs[0].Kind != "console.error" || errs[0].Text != "ledger failed: 42" || !strings.HasSuffix(errs[0].URL, "/errors.js") ||
		errs[1].Kind != "exception" || !strings.Contains(errs[1].Text, "Error: boom") {
		t.Fatalf("the errors reported:\n%s", report)
	}
	if !strings.Contains(report, "Content Security Policy") {
		t.Errorf("the policy's refusal of the inline script is not among the errors:\n%s", report)
	}
}

// Without Chromium the test fails, saying what to install: the browser the tests
// before it shared is stopped, so this Start must start one.
func TestNoChromium(t *testing.T) {
	shared.stop()
	t.Setenv("FINLEDGER_CHROMIUM", filepath.Join(t.TempDir(), "chromium"))
	rec := &fatalRecorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		Start(rec)
	}()
	<-done
	if !strings.Contains(rec.message, "install Debian's chromium-headless-shell package (apt-get install chromium-headless-shell") {
		t.Fatalf("the failure: %q", rec.message)
	}
}

// fatalRecorder keeps the message of a fatal failure and ends the goroutine, as
// testing.T does, without failing the test.
type fatalRecorder struct {
	testing.TB
	message string
}

func (r *fatalRecorder) Helper() {}

func (r *fatalRecorder) Fatal(args ...any) {
	r.message = fmt.Sprint(args...)
	runtime.Goexit()
}

func (r *fatalRecorder) Fatalf(format string, args ...any) {
	r.message = fmt.Sprintf(format, args...)
	runtime.Goexit()
}
