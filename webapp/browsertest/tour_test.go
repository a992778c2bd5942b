package browsertest_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/finledger/finledger/internal/testkit/browser"
)

// screenshotsDir is where the tour keeps its pictures for the docs, when set:
// FINLEDGER_DOCS_SCREENSHOTS=docs/screenshots (relative to the repository).
const screenshotsDir = "FINLEDGER_DOCS_SCREENSHOTS"

// TestTourOfEveryPage visits every page of the navigation with records on each, in
// English at 1280 px and in Spanish at 360 px: each draws without an error, with its
// records, and axe finds nothing. With FINLEDGER_DOCS_SCREENSHOTS set it keeps a
// screenshot of each page there, for the docs (docs/screenshots).
func TestTourOfEveryPage(t *testing.T) {
	docs := os.Getenv(screenshotsDir)
	if docs != "" && !filepath.IsAbs(docs) {
		docs = filepath.Join("..", "..", docs)
	}
	inEachView(t, func(t *testing.T, s *scene) { furnish(t, s) }, func(t *testing.T, s *scene) {
		var links []string
		s.eval(`[...document.querySelectorAll('#nav a[href^="/app/"]')].map(a => a.getAttribute('href'))`, &links)
		for _, link := range links {
			s.do(chromedp.Navigate(s.url + link))
			s.waitFor("the page "+link, `document.querySelector('main h1') && !document.querySelector('main .loading')`)
			time.Sleep(300 * time.Millisecond) // the page's reads land
			var shown string
			s.eval(`document.querySelector('main').innerText`, &shown)
			if strings.Contains(shown, "undefined") || strings.Contains(shown, "NaN") || strings.Contains(shown, "[object") {
				t.Errorf("%s shows a value that is not one:\n%s", link, shown)
			}
			browser.Axe(t, s.ctx)
			if docs == "" {
				continue
			}
			name := strings.TrimPrefix(strings.TrimSuffix(link, "/"), "/app")
			if name == "" {
				name = "/overview"
			}
			picture, err := chromedp.Run(s.ctx, chromedp.FullScreenshot(70))
			if err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(docs, strings.TrimPrefix(name, "/")+"-"+s.view.Name+".jpg")
			if err := os.WriteFile(file, picture, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	})
}
