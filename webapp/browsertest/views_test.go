package browsertest_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/finledger/finledger/internal/testkit/apitest"
	"github.com/finledger/finledger/internal/testkit/browser"
)

// A view is one way a person sees the app: a language at a width. A scenario run in
// each view is seen in English on a desktop and in Spanish on a phone.
type view struct {
	Name     string
	Language string // the profile's language
	Phone    bool
}

var views = []view{
	{Name: "en-1280", Language: "en"},
	{Name: "es-360", Language: "es-MX", Phone: true},
}

// say is the words of the view's language: en in English, es in Spanish.
func (v view) say(en, es string) string {
	if v.Language == "en" {
		return en
	}
	return es
}

// A scene is a scenario's stage in one view: the app and its browser tab, signed in as
// the development person in the view's language and width, and that person's API client
// to set the scene or check what the app sent.
type scene struct {
	*page
	env  *apitest.Env
	api  *apitest.Client
	view view
	// expected are parts of the console errors the scenario causes on purpose (an API
	// refusal the app shows), which inEachView does not count.
	expected []string
}

// inEachView runs a scenario once per view, each on its own app and browser, as a
// subtest named after the view. setup, when not nil, runs on the API before the person
// signs in (wallets, rates, a long history...).
func inEachView(t *testing.T, setup func(t *testing.T, s *scene), scenario func(t *testing.T, s *scene)) {
	t.Helper()
	for _, v := range views {
		t.Run(v.Name, func(t *testing.T) {
			env := startApp(t)
			s := &scene{page: &page{t: t, ctx: browser.Start(t), url: env.URL}, env: env, view: v}
			s.api = env.Anonymous().With("Authorization", "Bearer "+devToken(t, env))
			if res := s.api.Do("PATCH", "/api/me", map[string]any{"language": v.Language}); res.Status != 200 {
				t.Fatalf("the profile's language: %d %s", res.Status, res.Raw)
			}
			if setup != nil {
				setup(t, s)
			}
			if v.Phone {
				s.do(browser.Phone())
			}
			s.signIn()
			scenario(t, s)
			for _, e := range browser.ConsoleErrors(t, s.ctx) {
				if !slices.ContainsFunc(s.expected, func(part string) bool { return strings.Contains(e.String(), part) }) {
					t.Errorf("the page reported an error: %s", e)
				}
			}
		})
	}
}

// axe checks the page as it is drawn now, in the view's width, and keeps a screenshot.
func (s *scene) axe(name string) {
	s.t.Helper()
	browser.Axe(s.t, s.ctx)
	browser.Screenshot(s.t, s.ctx, name)
}

// pushButton clicks the button of main or of the open dialog whose accessible name is
// label, once it is drawn.
func (s *scene) pushButton(label string) {
	s.t.Helper()
	sel := fmt.Sprintf(`document.querySelector(%q)`, fmt.Sprintf(`dialog[open] button[aria-label=%q], main button[aria-label=%q]`, label, label))
	s.waitFor("the button "+label, sel)
	s.eval(sel+`.click()`, nil)
}

// press clicks the button of an action on a named item: its accessible name is both.
func (s *scene) press(action, item string) { s.pushButton(action + " " + item) }

// answer closes the open confirmation by its action (yes) or by Cancel, and waits for
// it to go.
func (s *scene) answer(yes bool) {
	s.t.Helper()
	sel := `dialog[open] .actions button:not([data-confirm])`
	if yes {
		sel = `dialog[open] [data-confirm]`
	}
	s.waitFor("the confirmation", fmt.Sprintf(`document.querySelector(%q)`, sel))
	s.eval(fmt.Sprintf(`document.querySelector(%q).click()`, sel), nil)
	s.waitFor("the confirmation to close", `!document.querySelector('dialog[open]')`)
}

// answerConfirmation presses the button of an action on a named item, checks that the
// one confirmation dialog names the action and the item, and answers it: yes carries
// the action out, no cancels it.
func (s *scene) answerConfirmation(action, item string, yes bool) {
	s.t.Helper()
	s.press(action, item)
	s.waitFor("the confirmation of "+action, `document.querySelector('dialog[open] [data-confirm]')`)
	var title string
	s.eval(`document.querySelector('dialog[open]').getAttribute('aria-label')`, &title)
	if title != action+": "+item {
		s.t.Fatalf("the confirmation of %s %s asks %q", action, item, title)
	}
	s.answer(yes)
}

// count is how many records of a listing the API holds.
func count(s *scene, path, key string) int {
	s.t.Helper()
	return len(s.api.Get(path).Expect(s.t, http.StatusOK).List(key))
}

// deleteAskingFirst deletes the one record of a listing by its action on the page,
// asking first: a cancelled confirmation leaves the API listing it; a confirmed one takes
// it off the page (gone: a script true once it is) and out of the API's listing.
func (s *scene) deleteAskingFirst(action, item, path, key, gone string) {
	s.t.Helper()
	s.answerConfirmation(action, item, false)
	if n := count(s, path, key); n != 1 {
		s.t.Fatalf("a cancelled %s of %s left %d in %s, want 1", action, item, n, path)
	}
	s.answerConfirmation(action, item, true)
	s.waitFor(item+" gone", gone)
	if n := count(s, path, key); n != 0 {
		s.t.Fatalf("a confirmed %s of %s left %d in %s, want 0", action, item, n, path)
	}
}
