// Package browser owns the browser the web app's tests drive: one Debian Chromium per
// test binary (its headless shell where installed), started with the network features
// that call outside the machine turned off, and a browser context of its own for each
// test; the tab's viewport as a desktop or a phone; screenshots kept as test artifacts;
// the errors the page writes to its console; and the accessibility check, axe-core
// (pinned in tools/axe), run in the page.
package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/finledger/finledger/internal/testkit/testdb"
)

// Timeout bounds a test's browser: when it passes, the browser is stopped and every
// action on the test's context fails.
const Timeout = 2 * time.Minute

// The viewports tests draw the app in.
const (
	DesktopWidth, DesktopHeight = 1280, 800
	PhoneWidth, PhoneHeight     = 360, 740
)

// Where Debian's packages install the browsers. chromium is the browser a person runs.
// chromium-headless-shell is the same engine (Blink, V8, the same release) without the
// browser's own interface, built to be driven by programs: the tests' scenarios take
// about half the CPU in it (docs/development.md, where the suite's time goes).
const (
	defaultChromium = "/usr/bin/chromium"
	headlessShell   = "/usr/lib/chromium/chromium-headless-shell"
)

// Start opens a tab for the test in the test binary's one headless Chromium, in a
// browser context of its own (cookies, storage and downloads apart from every other
// test's, as a fresh profile would keep them), and returns the tab's context, at the
// desktop viewport. The context and its tab close when the test ends (after a
// screenshot, if the test failed) or when Timeout passes; the browser stays for the
// next test, and Main stops it. The browser is Driven's; without it the test fails.
func Start(t testing.TB) context.Context {
	t.Helper()
	browserCtx, err := shared.get()
	if err != nil {
		t.Fatal(err)
	}
	timeoutCtx, cancelTimeout := context.WithTimeout(browserCtx, Timeout)
	tabCtx, cancelTab := chromedp.NewContext(timeoutCtx, chromedp.WithNewBrowserContext())
	c := &console{}
	ctx := context.WithValue(tabCtx, consoleKey{}, c)
	t.Cleanup(func() {
		cancelTab()
		cancelTimeout()
	})
	// Listening opens the tab, in its new browser context.
	if err := chromedp.Listen(ctx, c.record); err != nil {
		t.Fatalf("browser: opening a tab: %v", err)
	}
	t.Cleanup(func() {
		if !t.Failed() || ctx.Err() != nil {
			return
		}
		if path, err := saveScreenshot(ctx, t.Name(), "failed"); err != nil {
			t.Logf("browser: no screenshot of the failed test: %v", err)
		} else {
			t.Logf("browser: the page when the test failed: %s", path)
		}
	})
	if err := chromedp.Do(ctx, Desktop()); err != nil {
		t.Fatalf("browser: setting the desktop viewport: %v", err)
	}
	return ctx
}

// Main runs a package's tests as testdb.Main does (their template database and test
// servers removed after them), then stops the browser they shared: a package whose tests
// call Start has `func TestMain(m *testing.M) { browser.Main(m) }`.
func Main(m *testing.M) {
	code := testdb.Main(m)
	shared.stop()
	os.Exit(code)
}

// AllowDownloads saves what the test's tab downloads into dir, for the test's browser
// context alone.
func AllowDownloads(t testing.TB, ctx context.Context, dir string) {
	t.Helper()
	params := cdpbrowser.SetDownloadBehaviorParams{Behavior: cdpbrowser.SetDownloadBehaviorBehaviorAllow, DownloadPath: dir}
	if c := chromedp.FromContext(ctx); c != nil {
		params.BrowserContextID = c.BrowserContextID
	}
	if _, err := chromedp.CallBrowser(ctx, cdpbrowser.SetDownloadBehavior, params); err != nil {
		t.Fatalf("browser: allowing downloads into %s: %v", dir, err)
	}
}

// shared is the test binary's one browser. Starting Chromium costs about half a second
// of a busy machine; a browser context costs little and isolates a test as well. A
// browser that died (its context done) is started again for the next test.
var shared sharedBrowser

type sharedBrowser struct {
	mu     sync.Mutex
	ctx    context.Context // the browser's first tab, which no test uses
	cancel func()
}

// get returns the running browser's context, starting the browser when there is none.
func (b *sharedBrowser) get() (context.Context, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.ctx != nil && b.ctx.Err() == nil {
		return b.ctx, nil
	}
	exe, err := Driven()
	if err != nil {
		return nil, err
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), Options(exe)...)
	ctx, cancelTab := chromedp.NewContext(allocCtx)
	cancel := func() {
		cancelTab()
		cancelAlloc()
	}
	if err := chromedp.Do(ctx); err != nil {
		cancel()
		return nil, fmt.Errorf("browser: starting %s: %w", exe, err)
	}
	b.ctx, b.cancel = ctx, cancel
	return ctx, nil
}

// stop closes the browser and removes its profile.
func (b *sharedBrowser) stop() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cancel != nil {
		b.cancel()
		b.ctx, b.cancel = nil, nil
	}
}

// Options are how a browser of the tests (and of the app's bench) is started: headless,
// and with nothing that calls out of the machine, whose network reaches no further than
// the loopback. The exec allocator adds a fresh --user-data-dir of its own and removes
// it when the browser stops.
func Options(exe string) []chromedp.ExecAllocatorOption {
	return []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
	}
}

// Chromium returns the browser a person runs, which the app's bench measures: the one
// $FINLEDGER_CHROMIUM names, else Debian's chromium; or an error that says how to
// install it.
func Chromium() (string, error) {
	return executable(defaultChromium, "chromium")
}

// Driven returns the browser the tests drive: the one $FINLEDGER_CHROMIUM names, else
// Debian's chromium-headless-shell where it is installed, else its chromium.
func Driven() (string, error) {
	if _, err := os.Stat(headlessShell); err == nil {
		return executable(headlessShell, "chromium-headless-shell")
	}
	return executable(defaultChromium, "chromium-headless-shell")
}

// executable is the browser $FINLEDGER_CHROMIUM names, else exe, once it is found to be
// an executable file; the error names Debian's package to install.
func executable(exe, pkg string) (string, error) {
	if named := os.Getenv("FINLEDGER_CHROMIUM"); named != "" {
		exe = named
	}
	info, err := os.Stat(exe)
	if err != nil {
		return "", fmt.Errorf("browser: no Chromium at %s (%v): install Debian's %s package (apt-get install %[3]s, as .ci/run does), or set FINLEDGER_CHROMIUM to a Chromium binary", exe, err, pkg)
	}
	if info.IsDir() || info.Mode().Perm()&0o111 == 0 {
		return "", fmt.Errorf("browser: %s is not an executable: install Debian's %s package (apt-get install %[2]s, as .ci/run does), or set FINLEDGER_CHROMIUM to a Chromium binary", exe, pkg)
	}
	return exe, nil
}

// Desktop sets the tab's viewport to a desktop browser's window.
func Desktop() chromedp.Action[chromedp.Void] {
	return chromedp.EmulateViewport(DesktopWidth, DesktopHeight)
}

// Phone sets the tab's viewport to a phone held upright, with mobile and touch emulation.
func Phone() chromedp.Action[chromedp.Void] {
	return chromedp.EmulateViewport(PhoneWidth, PhoneHeight, chromedp.EmulateMobile, chromedp.EmulateTouch, chromedp.EmulatePortrait)
}

// Screenshot writes a PNG of the whole page to the artifacts directory, as
// <test name>-<name>.png, logs its path and returns it.
func Screenshot(t testing.TB, ctx context.Context, name string) string {
	t.Helper()
	path, err := saveScreenshot(ctx, t.Name(), name)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
	return path
}

// unsafeName matches what a file name of a screenshot leaves out.
var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// saveScreenshot writes a PNG of the whole page and returns its path.
func saveScreenshot(ctx context.Context, test, name string) (string, error) {
	dir, err := ArtifactsDir()
	if err != nil {
		return "", err
	}
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		return "", fmt.Errorf("browser: taking the screenshot %q: %w", name, err)
	}
	path := filepath.Join(dir, unsafeName.ReplaceAllString(test+"-"+name, "_")+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		return "", fmt.Errorf("browser: writing the screenshot: %w", err)
	}
	return path, nil
}

// ArtifactsDir returns the directory screenshots go to, creating it: $FINLEDGER_ARTIFACTS,
// or else bin/artifacts/screenshots in the repository.
func ArtifactsDir() (string, error) {
	dir := os.Getenv("FINLEDGER_ARTIFACTS")
	if dir == "" {
		root, err := repoRoot()
		if err != nil {
			return "", err
		}
		dir = filepath.Join(root, "bin", "artifacts", "screenshots")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("browser: making the artifacts directory: %w", err)
	}
	return dir, nil
}

// repoRoot returns the repository's root: the nearest folder up from the working
// directory (a test's package) that holds go.mod.
func repoRoot() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("browser: finding the repository: %w", err)
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		if filepath.Dir(dir) == dir {
			return "", fmt.Errorf("browser: no go.mod in %s or above it", wd)
		}
	}
}

// ConsoleError is an error the page reported: a console.error call, an exception
// nothing caught, or an error of the browser's log (a failed request, a refusal by the
// page's Content-Security-Policy).
type ConsoleError struct {
	// Kind is "console.error", "exception", or the part of the browser that logged the
	// error, such as "network" or "security".
	Kind string
	Text string
	// URL and Line tell where the error came from, when the browser says; Line counts
	// from 0, as the DevTools protocol does.
	URL  string
	Line int64
}

// String returns the error on one line, with the line counted from 1.
func (e ConsoleError) String() string {
	s := e.Kind + ": " + e.Text
	if e.URL != "" {
		s += fmt.Sprintf(" (%s:%d)", e.URL, e.Line+1)
	}
	return s
}

type consoleKey struct{}

// console collects the errors of a tab.
type console struct {
	mu     sync.Mutex
	errors []ConsoleError
}

// record keeps the event if it reports an error. The tab's reader calls it, in the
// order the browser sends events, before the reply to any later command.
func (c *console) record(ev any) {
	var e ConsoleError
	switch ev := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		if ev.Type != runtime.ConsoleAPICalledTypeError {
			return
		}
		args := make([]string, len(ev.Args))
		for i, a := range ev.Args {
			args[i] = remoteText(a)
		}
		e = ConsoleError{Kind: "console.error", Text: strings.Join(args, " ")}
		if st := ev.StackTrace; st != nil && len(st.CallFrames) > 0 {
			e.URL, e.Line = st.CallFrames[0].URL, st.CallFrames[0].LineNumber
		}
	case *runtime.EventExceptionThrown:
		d := ev.ExceptionDetails
		e = ConsoleError{Kind: "exception", Text: d.Text, URL: d.URL, Line: d.LineNumber}
		if d.Exception != nil {
			first, _, _ := strings.Cut(remoteText(d.Exception), "\n")
			e.Text += " " + first
		}
	case *log.EventEntryAdded:
		if ev.Entry.Level != log.EntryLevelError {
			return
		}
		e = ConsoleError{Kind: string(ev.Entry.Source), Text: ev.Entry.Text, URL: ev.Entry.URL, Line: ev.Entry.LineNumber}
	default:
		return
	}
	c.mu.Lock()
	c.errors = append(c.errors, e)
	c.mu.Unlock()
}

// remoteText renders a value of the page as the console shows it.
func remoteText(o *runtime.RemoteObject) string {
	switch {
	case o.Type == runtime.RemoteObjectTypeString:
		var s string
		if err := json.Unmarshal(o.Value, &s); err == nil {
			return s
		}
	case o.UnserializableValue != "":
		return string(o.UnserializableValue)
	case o.Description != "":
		return o.Description
	case len(o.Value) > 0:
		return string(o.Value)
	}
	return string(o.Type)
}

// ConsoleErrors returns the errors the tab of Start has reported so far, in order.
func ConsoleErrors(t testing.TB, ctx context.Context) []ConsoleError {
	t.Helper()
	c, ok := ctx.Value(consoleKey{}).(*console)
	if !ok {
		t.Fatal("browser: the context is not one Start returned")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]ConsoleError(nil), c.errors...)
}

// NoConsoleErrors fails the test, listing them, if the tab of Start has reported errors.
func NoConsoleErrors(t testing.TB, ctx context.Context) {
	t.Helper()
	errs := ConsoleErrors(t, ctx)
	if len(errs) == 0 {
		return
	}
	lines := make([]string, len(errs))
	for i, e := range errs {
		lines[i] = "  " + e.String()
	}
	t.Fatalf("the page reported %d errors:\n%s", len(errs), strings.Join(lines, "\n"))
}
