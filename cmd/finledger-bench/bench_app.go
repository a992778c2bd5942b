package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/internal/database"
	"github.com/finledger/finledger/internal/testkit/browser"
	"github.com/finledger/finledger/ledger"
	"github.com/finledger/finledger/projections"
	"github.com/finledger/finledger/webhooks"
)

// appOptions are the settings of the web app's phase.
type appOptions struct {
	transactions int    // in the workspace the app shows
	rounds       int    // browsers, each with a fresh profile
	clicks       int    // Next clicks and filter applications per round
	server       string // the finledger binary
	chromium     string
}

// The development identity, as `finledger dev` signs it in (cmd/finledger/dev.go).
var devIdentity = domain.Identity{Subject: "dev-user", Email: "dev@finledger.local", Name: "Dev User"}

// appIncomes are recorded through the ledger, today, in two more wallets, so that the
// newest page holds incomes and a filter on expenses changes it.
const appIncomes = 200

// firstRowScript runs in every new document before the app's scripts: it notes when a
// row of the page's table first appears, in ms since the navigation started.
const firstRowScript = `window.__firstRow = 0;
new MutationObserver((_, obs) => {
	if (document.querySelector('main tbody tr')) { window.__firstRow = performance.now(); obs.disconnect(); }
}).observe(document, { childList: true, subtree: true });`

// interactScript starts an interaction (the JavaScript of %s) and answers, in ms from
// its start, when the page's first row became another one, when the next frame after
// that was drawn, and how long the API call it made took (from its Resource Timing).
const interactScript = `(async () => {
	const first = () => document.querySelector('main tbody tr');
	const before = first(), beforeText = before ? before.innerText : '';
	const t0 = performance.now();
	const changed = new Promise((resolve, reject) => {
		const seen = () => { const r = first(); return r && r !== before && r.innerText !== beforeText; };
		const obs = new MutationObserver(() => { if (seen()) { obs.disconnect(); resolve(performance.now()); } });
		obs.observe(document.querySelector('main'), { childList: true, subtree: true });
		setTimeout(() => { obs.disconnect(); reject(new Error('the first row did not change within 10 s')); }, 10000);
	});
	(%s)();
	const dom = await changed;
	await new Promise((r) => requestAnimationFrame(() => setTimeout(r)));
	const frame = performance.now() - t0;
	const call = performance.getEntriesByType('resource').filter((e) => e.startTime >= t0 && e.name.includes('/api/')).pop();
	return [dom - t0, frame, call ? call.duration : 0];
})()`

const (
	clickNext = `() => [...document.querySelectorAll('main nav.pager button')].pop().click()`
	// applyType sets the filter form's type, as a person's choice would, and submits it.
	applyType = `() => {
		const form = document.querySelector('main form.filters');
		const el = form.querySelector('[name="type"]');
		el.value = %q;
		el.dispatchEvent(new Event('change', { bubbles: true }));
		form.requestSubmit();
	}`
)

// pageResources lists what the page loaded, from the Resource Timing entries.
const pageResources = `JSON.stringify(performance.getEntriesByType('navigation').concat(performance.getEntriesByType('resource')).map((e) => ({
	name: e.name, transfer: e.transferSize, encoded: e.encodedBodySize, decoded: e.decodedBodySize,
	start: e.startTime, duration: e.duration })))`

type resourceEntry struct {
	Name                       string
	Transfer, Encoded, Decoded int64
	Start, Duration            float64
}

// benchApp measures the web app in a real browser on a workspace of o.transactions
// transactions owned by the development identity, served by `finledger dev` as its
// own process: the first page of transactions with a cold cache, the Next button, the
// type filter, and the app's weight.
func benchApp(ctx context.Context, benchURL string, o appOptions, out io.Writer) error {
	if o.transactions < appIncomes+1 {
		return fmt.Errorf("-app needs at least %d transactions", appIncomes+1)
	}
	pool, err := database.Open(ctx, benchURL, 4)
	if err != nil {
		return err
	}
	defer pool.Close()
	if _, err := database.Migrate(ctx, pool); err != nil {
		return err
	}
	fmt.Fprintf(out, "== seeding the development identity's workspace with %d transactions\n", o.transactions)
	started := time.Now()
	w, err := seedWorkspace(ctx, pool, devIdentity)
	if err != nil {
		return err
	}
	// The expense seedWorkspace recorded, its copies and the incomes make o.transactions.
	if err := w.fill(ctx, w.template+int64(o.transactions-appIncomes-1)); err != nil {
		return err
	}
	written := time.Since(started)
	if err := seedIncomes(ctx, w); err != nil {
		return err
	}
	replayStart := time.Now()
	replayed, err := projections.Rebuild(ctx, pool)
	if err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	if _, err := pool.Exec(ctx, `VACUUM ANALYZE`); err != nil {
		return err
	}
	fmt.Fprintf(out, "seeded in %s: events written in SQL in %s, replay of %d events into the read models %s\n",
		time.Since(started).Round(time.Second), written.Round(time.Second), replayed, time.Since(replayStart).Round(time.Second))

	dir, err := os.MkdirTemp("", "finledger-bench-app-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	srv, err := startServer(ctx, o.server, "dev", dir, map[string]string{"FINLEDGER_DATABASE_URL": benchURL})
	if err != nil {
		return err
	}
	defer srv.stop()
	fmt.Fprintf(out, "server: %s dev, pid %d, at %s\n", o.server, srv.cmd.Process.Pid, srv.base)
	// The server's relay publishes the seeded events first; the browser comes after.
	relayStart := time.Now()
	if err := untilNone(func(ctx context.Context) (int64, error) { return webhooks.Unrelayed(ctx, pool) })(ctx); err != nil {
		return err
	}
	fmt.Fprintf(out, "the server's relay published the seeded events in %s\n", time.Since(relayStart).Round(time.Second))

	var first, nextDOM, nextFrame, nextAPI, filterDOM, filterFrame, filterAPI []float64
	var weight pageWeight
	for round := 1; round <= o.rounds; round++ {
		r, err := appRound(ctx, srv.base, o)
		if err != nil {
			return fmt.Errorf("round %d: %w (server log: %s)", round, err, srv.logPath)
		}
		fmt.Fprintf(out, "round %2d: first row %.0f ms after navigation start; Next %s ms; filter %s ms; slowest API call %s\n",
			round, r.firstRow, msList(r.next[1]), msList(r.filter[1]), r.slowestAPI)
		first = append(first, r.firstRow)
		nextDOM, nextFrame, nextAPI = append(nextDOM, r.next[0]...), append(nextFrame, r.next[1]...), append(nextAPI, r.next[2]...)
		filterDOM, filterFrame, filterAPI = append(filterDOM, r.filter[0]...), append(filterFrame, r.filter[1]...), append(filterAPI, r.filter[2]...)
		if round == 1 {
			weight = r.weight
			fmt.Fprintf(out, "          the page lists %d of %d transactions; the cold load's API calls: %s\n",
				r.listed, o.transactions, strings.Join(r.apiCalls, "; "))
		}
	}
	fmt.Fprintf(out, "\nThe transactions page of a workspace of %d transactions, %d rounds, each a new Chromium profile (cold cache):\n\n", o.transactions, o.rounds)
	fmt.Fprintln(out, "| measure | samples | p50 | p95 | max |")
	fmt.Fprintln(out, "|---|---|---|---|---|")
	row := func(name string, xs []float64) {
		p50, p95, top := quantiles(xs)
		fmt.Fprintf(out, "| %s | %d | %.0f ms | %.0f ms | %.0f ms |\n", name, len(xs), p50, p95, top)
	}
	row("cold load: navigation start to the first row", first)
	row("Next: click to the new first row", nextDOM)
	row("Next: click to the next frame drawn after it", nextFrame)
	row("Next: its GET /api/transactions (Resource Timing)", nextAPI)
	row("filter type=expense/all: submit to the new first row", filterDOM)
	row("filter: submit to the next frame drawn after it", filterFrame)
	row("filter: its GET /api/transactions (Resource Timing)", filterAPI)
	fmt.Fprintf(out, "\nThe app's own files (%d: html, css, js, svg): %.1f KB raw, %.1f KB gzipped (%.1f KB transferred with headers); "+
		"the API's answers of the cold load: %d, %.1f KB raw, %.1f KB transferred\n",
		weight.files, kb(weight.raw), kb(weight.gzip), kb(weight.transfer), weight.apiCalls, kb(weight.apiRaw), kb(weight.apiTransfer))
	return nil
}

// seedIncomes records two more wallets and appIncomes incomes in them, today, through
// the ledger, as the app would.
func seedIncomes(ctx context.Context, w *seededWorkspace) error {
	l := ledger.NewLedger(w.pool, projections.Project, time.Now, 1)
	wallets := []uuid.UUID{uuid.New(), uuid.New()}
	if err := w.execute(ctx, l, func(ws *domain.Workspace) ([]domain.Event, error) {
		var events []domain.Event
		for i, name := range []string{"Savings", "Card"} {
			more, err := domain.CreateWallet{WalletID: wallets[i], WalletFields: domain.WalletFields{Name: name, Type: "bank",
				Currency: "MXN", CardColor: "#111827", InitialBalance: decimal.New(1000, 0)}}.Decide(ws)
			if err != nil {
				return nil, err
			}
			events = append(events, more...)
		}
		return events, nil
	}); err != nil {
		return fmt.Errorf("wallets: %w", err)
	}
	return w.execute(ctx, l, func(ws *domain.Workspace) ([]domain.Event, error) {
		var events []domain.Event
		for i := range appIncomes {
			desc := fmt.Sprintf("Income %d", i+1)
			more, err := domain.CreateTransaction{TransactionID: uuid.Must(uuid.NewV7()), Type: domain.TxIncome,
				Amount: decimal.New(int64(100+i), 0), Date: domain.DateAt(time.Now()), Description: &desc,
				WalletID: &wallets[i%2]}.Decide(ws)
			if err != nil {
				return nil, fmt.Errorf("income: %w", err)
			}
			events = append(events, more...)
		}
		return events, nil
	})
}

// roundFigures is what one browser measured.
type roundFigures struct {
	firstRow     float64
	next, filter [3][]float64 // to the new first row, to the next frame, the API call
	apiCalls     []string     // of the cold load: path, start and duration
	weight       pageWeight
	listed       int
	slowestAPI   string
}

type pageWeight struct {
	files               int
	raw, gzip, transfer int64
	apiCalls            int
	apiRaw, apiTransfer int64
}

// appRound signs in over HTTP with the one-click sign-in, starts a browser with a new
// profile, gives it the session's cookies, and opens the transactions page there.
func appRound(ctx context.Context, base string, o appOptions) (roundFigures, error) {
	var r roundFigures
	cookies, err := devSignIn(ctx, base)
	if err != nil {
		return r, err
	}
	// As the browser tests start it: nothing calls out of the machine, and each browser
	// has a fresh profile.
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(ctx, browser.Options(o.chromium)...)
	defer cancelAlloc()
	timeoutCtx, cancelTimeout := context.WithTimeout(allocCtx, 2*time.Minute)
	defer cancelTimeout()
	tab, cancelTab := chromedp.NewContext(timeoutCtx)
	defer cancelTab()
	u, _ := url.Parse(base)
	params := make([]*network.CookieParam, len(cookies))
	for i, c := range cookies {
		params[i] = &network.CookieParam{Name: c.Name, Value: c.Value, URL: base, Domain: u.Hostname(), Path: c.Path, HTTPOnly: c.HttpOnly,
			SameSite: network.CookieSameSiteLax}
	}
	if err := chromedp.Do(tab,
		chromedp.EmulateViewport(1280, 800),
		chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
			if _, err := cdp.Call(ctx, t, network.Enable, network.EnableParams{}); err != nil {
				return err
			}
			if _, err := cdp.Call(ctx, t, network.SetCookies, network.SetCookiesParams{Cookies: params}); err != nil {
				return fmt.Errorf("set cookies: %w", err)
			}
			_, err := cdp.Call(ctx, t, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: firstRowScript})
			return err
		}),
		chromedp.Navigate(base+"/app/transactions"),
	); err != nil {
		return r, err
	}
	eval := func(script string) (json.RawMessage, error) {
		return chromedp.Run(tab, chromedp.Evaluate[json.RawMessage](script, chromedp.EvalAwaitPromise))
	}
	for deadline := time.Now().Add(30 * time.Second); ; {
		raw, err := eval(`window.__firstRow`)
		if err != nil {
			return r, err
		}
		if err := json.Unmarshal(raw, &r.firstRow); err != nil {
			return r, err
		}
		if r.firstRow > 0 {
			break
		}
		if time.Now().After(deadline) {
			text, _ := eval(`document.querySelector('main').innerText`)
			return r, fmt.Errorf("no row of transactions after 30 s; the page shows %s", text)
		}
		time.Sleep(20 * time.Millisecond)
	}
	raw, err := eval(pageResources)
	if err != nil {
		return r, err
	}
	var listed string
	if err := json.Unmarshal(raw, &listed); err != nil {
		return r, err
	}
	var entries []resourceEntry
	if err := json.Unmarshal([]byte(listed), &entries); err != nil {
		return r, err
	}
	var slowest resourceEntry
	for _, e := range entries {
		path := e.Name
		if p, err := url.Parse(e.Name); err == nil {
			path = p.Path
		}
		switch {
		case strings.HasPrefix(path, "/api/"):
			p, _ := url.Parse(e.Name)
			r.apiCalls = append(r.apiCalls, fmt.Sprintf("%s at %.0f ms took %.0f ms", p.RequestURI(), e.Start, e.Duration))
			r.weight.apiCalls++
			r.weight.apiRaw += e.Decoded
			r.weight.apiTransfer += e.Transfer
			if e.Duration > slowest.Duration {
				slowest = e
			}
		case strings.HasPrefix(path, "/app/"):
			r.weight.files++
			r.weight.raw += e.Decoded
			r.weight.gzip += e.Encoded
			r.weight.transfer += e.Transfer
		}
	}
	if slowest.Name != "" {
		p, _ := url.Parse(slowest.Name)
		r.slowestAPI = fmt.Sprintf("%s %.0f ms", p.RequestURI(), slowest.Duration)
	}
	raw, err = eval(`document.querySelector('main nav.pager span').innerText`)
	if err == nil {
		var s string
		_ = json.Unmarshal(raw, &s)
		if _, total, ok := strings.Cut(s, "· "); ok {
			r.listed, _ = strconv.Atoi(strings.TrimSpace(total))
		}
	}
	interact := func(action string) ([3]float64, error) {
		raw, err := eval(fmt.Sprintf(interactScript, action))
		if err != nil {
			return [3]float64{}, err
		}
		var ms [3]float64
		return ms, json.Unmarshal(raw, &ms)
	}
	for range o.clicks {
		ms, err := interact(clickNext)
		if err != nil {
			return r, fmt.Errorf("next: %w", err)
		}
		for k := range ms {
			r.next[k] = append(r.next[k], ms[k])
		}
	}
	for i := range o.clicks {
		kind := "expense"
		if i%2 == 1 {
			kind = ""
		}
		ms, err := interact(fmt.Sprintf(applyType, kind))
		if err != nil {
			return r, fmt.Errorf("filter %q: %w", kind, err)
		}
		for k := range ms {
			r.filter[k] = append(r.filter[k], ms[k])
		}
	}
	return r, nil
}

// devSignIn signs in as the development identity with the one-click sign-in's form
// post, as the sign-in page's button does, and returns the session's cookies.
func devSignIn(ctx context.Context, base string) ([]*http.Cookie, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/auth/dev", nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Origin", base)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	client := &http.Client{Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	cookies := res.Cookies()
	if res.StatusCode >= 400 || len(cookies) == 0 {
		return nil, fmt.Errorf("POST /auth/dev: %d %s, %d cookies", res.StatusCode, body, len(cookies))
	}
	return cookies, nil
}

// quantiles answers the median, the 95th percentile and the largest.
func quantiles(xs []float64) (p50, p95, top float64) {
	if len(xs) == 0 {
		return 0, 0, 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	at := func(q float64) float64 { return s[min(len(s)-1, int(q*float64(len(s))))] }
	return at(0.5), at(0.95), s[len(s)-1]
}

func msList(xs []float64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.FormatFloat(x, 'f', 0, 64)
	}
	return strings.Join(parts, ",")
}

func kb(n int64) float64 { return float64(n) / 1024 }
