package browser

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"
)

// axeTags are the rule sets the check runs: WCAG 2.0, 2.1 and 2.2 at levels A and AA.
const axeTags = `["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]`

// axeRun runs axe-core on the document and returns its violations, each node's target
// flattened to one selector per frame (a shadow root's path joined with " >>> ").
const axeRun = `(async () => {
	const results = await axe.run(document, {runOnly: {type: "tag", values: ` + axeTags + `}, resultTypes: ["violations"]});
	return results.violations.map(v => ({
		id: v.id, impact: v.impact || "", help: v.help, helpUrl: v.helpUrl,
		nodes: v.nodes.map(n => ({target: n.target.map(s => Array.isArray(s) ? s.join(" >>> ") : String(s)), html: n.html})),
	}));
})()`

// Violation is a rule of axe-core that the page breaks.
type Violation struct {
	ID string `json:"id"`
	// Impact is "minor", "moderate", "serious" or "critical".
	Impact  string          `json:"impact"`
	Help    string          `json:"help"`
	HelpURL string          `json:"helpUrl"`
	Nodes   []ViolationNode `json:"nodes"`
}

// ViolationNode is an element that breaks the rule.
type ViolationNode struct {
	// Target is the element's selector, one per frame from the top document down.
	Target []string `json:"target"`
	HTML   string   `json:"html"`
}

// String returns the violation with the elements that break it, one per line.
func (v Violation) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s): %s <%s>", v.ID, v.Impact, v.Help, v.HelpURL)
	for _, n := range v.Nodes {
		html := n.HTML
		if len(html) > 160 {
			html = html[:160] + "…"
		}
		fmt.Fprintf(&b, "\n    %s  %s", strings.Join(n.Target, " / "), html)
	}
	return b.String()
}

// axeSource reads axe-core's script from tools/axe, once.
var axeSource = sync.OnceValues(func() (string, error) {
	root, err := repoRoot()
	if err != nil {
		return "", err
	}
	path := filepath.Join(root, "tools", "axe", "node_modules", "axe-core", "axe.min.js")
	src, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("browser: no axe-core at %s: run make test, or npm ci --prefix tools/axe", path)
	}
	if err != nil {
		return "", fmt.Errorf("browser: reading axe-core: %w", err)
	}
	return string(src), nil
})

// AxeViolations runs axe-core's WCAG 2 A and AA rules on the tab's page and returns
// every violation, whatever its impact. The script goes in through the DevTools
// protocol, which the page's Content-Security-Policy does not govern.
func AxeViolations(ctx context.Context) ([]Violation, error) {
	src, err := axeSource()
	if err != nil {
		return nil, err
	}
	loaded, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`typeof axe === "object"`))
	if err != nil {
		return nil, fmt.Errorf("browser: looking for axe-core in the page: %w", err)
	}
	if !loaded {
		if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](src)); err != nil {
			return nil, fmt.Errorf("browser: loading axe-core into the page: %w", err)
		}
	}
	violations, err := chromedp.Run(ctx, chromedp.Evaluate[[]Violation](axeRun, chromedp.EvalAwaitPromise))
	if err != nil {
		return nil, fmt.Errorf("browser: running axe-core: %w", err)
	}
	return violations, nil
}

// Axe fails the test, listing them, if the tab's page breaks WCAG 2 A or AA rules with a
// serious or critical impact; lesser violations are logged.
func Axe(t testing.TB, ctx context.Context) {
	t.Helper()
	violations, err := AxeViolations(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var failing []string
	for _, v := range violations {
		switch v.Impact {
		case "serious", "critical":
			failing = append(failing, "  "+v.String())
		default:
			t.Logf("accessibility, %s", v)
		}
	}
	if len(failing) > 0 {
		t.Fatalf("the page breaks %d serious or critical accessibility rules:\n%s", len(failing), strings.Join(failing, "\n"))
	}
}
