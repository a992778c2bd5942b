package webapp_test

import (
	"bytes"
	"context"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"github.com/zitadel/oidc/v3/example/server/exampleop"
	"github.com/zitadel/oidc/v3/example/server/storage"
	"golang.org/x/net/html"

	"github.com/finledger/finledger/httpapi"
	"github.com/finledger/finledger/internal/testkit/apitest"
	"github.com/finledger/finledger/internal/testkit/testdb"
	"github.com/finledger/finledger/webapp"
)

func TestMain(m *testing.M) { os.Exit(testdb.Main(m)) }

// The service's client at the provider.
const (
	clientID     = "finledger-web"
	clientSecret = "finledger-web-secret"
)

// signinEnv is the service behind a load balancer the test steers, signing people in
// with a real OpenID provider run in-process: the example provider of zitadel/oidc,
// with its login form and its test users.
type signinEnv struct {
	t       *testing.T
	api     *apitest.Env // the first instance
	front   *balancer
	issuer  string
	user    *storage.User
	answers *providerAnswers // every call the service makes to the provider goes through it
}

// newSigninEnv starts the provider, the load balancer and the first instance. change,
// when set, changes the provider's JSON answers to the service, by the request's path.
func newSigninEnv(t *testing.T, change func(path string, answer map[string]any)) *signinEnv {
	t.Helper()
	s := &signinEnv{t: t, front: newBalancer(t)}
	s.answers = &providerAnswers{next: http.DefaultTransport, change: change}

	idp := httptest.NewUnstartedServer(nil)
	s.issuer = "http://" + idp.Listener.Addr().String() + "/"
	users := storage.NewUserStore(s.issuer)
	s.user = users.GetUserByID("id1")
	store := storage.NewStorageWithClients(users, map[string]*storage.Client{
		clientID: storage.WebClient(clientID, clientSecret, s.front.URL+webapp.CallbackPath),
	})
	idp.Config.Handler = exampleop.SetupServer(s.issuer, store, nil, false)
	idp.Start()
	t.Cleanup(idp.Close)

	s.api = apitest.StartWithBrowser(t, apitest.Options(), s.app)
	// The browser judges the cookies' expiry by the real time: the service's clock
	// starts there.
	s.api.Clock.Set(time.Now())
	s.front.route(s.api)
	return s
}

// app is the web app of one instance, on the instance's database and clock; the
// service's public origin is the load balancer's.
func (s *signinEnv) app(e *apitest.Env) *webapp.App {
	return e.App(webapp.Config{OIDC: &webapp.OIDC{Issuer: s.issuer, ClientID: clientID, ClientSecret: clientSecret,
		RedirectURL: s.front.URL + webapp.CallbackPath, HTTPClient: &http.Client{Transport: s.answers, Timeout: 10 * time.Second}}})
}

// instance starts another instance on the same database, with its own web app.
func (s *signinEnv) instance() *apitest.Env {
	return s.api.InstanceWith(func(o *httpapi.Options) { o.Browser = s.app(s.api) })
}

// sessions counts the browser sessions in the database.
func (s *signinEnv) sessions() int {
	s.t.Helper()
	var n int
	if err := s.api.Pool.QueryRow(context.Background(), `SELECT count(*) FROM browser_sessions`).Scan(&n); err != nil {
		s.t.Fatal(err)
	}
	return n
}

// balancer is the service's public origin: it passes each request to the instance it
// is routed to.
type balancer struct {
	*httptest.Server
	to atomic.Pointer[url.URL]
}

func newBalancer(t *testing.T) *balancer {
	b := &balancer{}
	b.Server = httptest.NewServer(&httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		r.SetURL(b.to.Load())
		r.Out.Host = r.In.Host
	}})
	t.Cleanup(b.Close)
	return b
}

func (b *balancer) route(e *apitest.Env) {
	u, err := url.Parse(e.URL)
	if err != nil {
		panic(err)
	}
	b.to.Store(u)
}

// providerAnswers passes the service's calls to the provider, changes the JSON answers
// when change is set, and notes the ID tokens the service receives.
type providerAnswers struct {
	next   http.RoundTripper
	change func(path string, answer map[string]any)
	mu     sync.Mutex
	sent   []string
}

func (r *providerAnswers) RoundTrip(req *http.Request) (*http.Response, error) {
	res, err := r.next.RoundTrip(req)
	if err != nil || !strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
		return res, err
	}
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		return nil, err
	}
	var answer map[string]any
	if json.Unmarshal(body, &answer) == nil {
		if r.change != nil {
			r.change(req.URL.Path, answer)
			body, _ = json.Marshal(answer)
		}
		if tok, ok := answer["id_token"].(string); ok {
			r.mu.Lock()
			r.sent = append(r.sent, tok)
			r.mu.Unlock()
		}
	}
	res.Body = io.NopCloser(bytes.NewReader(body))
	res.ContentLength = int64(len(body))
	res.Header.Del("Content-Length")
	return res, nil
}

func (r *providerAnswers) received() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.sent...)
}

// visitor is a person's browser: it keeps cookies, and follows redirects until the
// provider sends it back to the service's callback, which the test then delivers.
type visitor struct {
	t      *testing.T
	s      *signinEnv
	client *http.Client
	next   string // the app's page the sign-in starts from, if any
}

// visitor returns a new browser, without cookies.
func (s *signinEnv) visitor() *visitor {
	jar, err := cookiejar.New(nil)
	if err != nil {
		s.t.Fatal(err)
	}
	callback := s.front.URL + webapp.CallbackPath
	return &visitor{t: s.t, s: s, client: &http.Client{Jar: jar, Timeout: 30 * time.Second,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if strings.HasPrefix(req.URL.String(), callback+"?") || len(via) > 10 {
				return http.ErrUseLastResponse
			}
			return nil
		}}}
}

// toProvider starts a sign-in at the service, signs in at the provider's login form as
// the user, and returns the callback URL the provider sends the browser back to.
func (b *visitor) toProvider() *url.URL {
	b.t.Helper()
	s := b.s
	start := s.front.URL + "/auth/login"
	if b.next != "" {
		start += "?next=" + url.QueryEscape(b.next)
	}
	res, err := b.client.Get(start)
	if err != nil {
		b.t.Fatal(err)
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Request.URL.String(), s.issuer) {
		b.t.Fatalf("the sign-in did not reach the provider's login page: %d at %s", res.StatusCode, res.Request.URL)
	}
	action, fields := loginForm(b.t, page)
	fields.Set("username", s.user.Username)
	fields.Set("password", s.user.Password)
	res, err = b.client.PostForm(res.Request.URL.ResolveReference(action).String(), fields)
	if err != nil {
		b.t.Fatal(err)
	}
	res.Body.Close()
	callback, err := res.Location()
	if res.StatusCode != http.StatusFound || err != nil || !strings.HasPrefix(callback.String(), s.front.URL+webapp.CallbackPath+"?") {
		b.t.Fatalf("the provider did not send the browser back to the callback: %d, Location %q", res.StatusCode, res.Header.Get("Location"))
	}
	if callback.Query().Get("code") == "" || callback.Query().Get("state") == "" {
		b.t.Fatalf("callback without code or state: %s", callback)
	}
	return callback
}

// deliver follows the provider's redirect to the callback, and returns the service's
// answer without following it.
func (b *visitor) deliver(callback *url.URL) *http.Response {
	b.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, callback.String(), nil)
	return send(b.t, b.client.Jar, req)
}

// signIn runs a whole sign-in and returns the session's cookies.
func (b *visitor) signIn() (session, csrf *http.Cookie) {
	b.t.Helper()
	return signedIn(b.t, b.deliver(b.toProvider()))
}

// replay sends a callback URL as a browser that holds the sign-in's cookie would: the
// cookie's value is the state.
func replay(t *testing.T, callback *url.URL) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, callback.String(), nil)
	req.AddCookie(&http.Cookie{Name: "finledger_signin", Value: callback.Query().Get("state")})
	return send(t, nil, req)
}

// send sends one request without following its redirect.
func send(t *testing.T, jar http.CookieJar, req *http.Request) *http.Response {
	t.Helper()
	c := &http.Client{Jar: jar, Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.Do(req)
	if err != nil {
		t.Error(err)
		return nil
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res
}

// loginForm reads the provider's login form: where it posts, and its fields.
func loginForm(t *testing.T, page []byte) (*url.URL, url.Values) {
	t.Helper()
	var action *url.URL
	fields := url.Values{}
	z := html.NewTokenizer(bytes.NewReader(page))
	for tt := z.Next(); tt != html.ErrorToken; tt = z.Next() {
		tok := z.Token()
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		attr := map[string]string{}
		for _, a := range tok.Attr {
			attr[a.Key] = a.Val
		}
		switch tok.Data {
		case "form":
			if !strings.EqualFold(attr["method"], http.MethodPost) {
				t.Fatalf("the login form's method is %q", attr["method"])
			}
			u, err := url.Parse(attr["action"])
			if err != nil {
				t.Fatal(err)
			}
			action = u
		case "input":
			fields.Set(attr["name"], attr["value"])
		}
	}
	if action == nil || !fields.Has("username") || !fields.Has("password") {
		t.Fatalf("no login form with username and password on the provider's page:\n%s", page)
	}
	return action, fields
}

// signedIn checks the callback's answer started a session, and returns its cookies.
func signedIn(t *testing.T, res *http.Response) (session, csrf *http.Cookie) {
	t.Helper()
	if res == nil || res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/app/" {
		t.Fatalf("the callback did not sign in: %v", describe(res))
	}
	for _, c := range res.Cookies() {
		switch c.Name {
		case webapp.SessionCookie:
			session = c
		case webapp.CSRFCookie:
			csrf = c
		}
	}
	if session == nil || csrf == nil || session.Value == "" {
		t.Fatalf("the callback set no session cookies: %q", res.Header.Values("Set-Cookie"))
	}
	return session, csrf
}

// failedWith checks the callback's answer sent the person back to the sign-in page with
// a reason, and set no session.
func failedWith(t *testing.T, res *http.Response, reason string) {
	t.Helper()
	if res == nil || res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/app/signin?error="+reason {
		t.Fatalf("want the sign-in refused with %s: %v", reason, describe(res))
	}
	for _, c := range res.Cookies() {
		if c.Name == webapp.SessionCookie && c.Value != "" {
			t.Fatalf("a refused sign-in set a session cookie")
		}
	}
}

func describe(res *http.Response) string {
	if res == nil {
		return "no answer"
	}
	return res.Status + ", Location " + res.Header.Get("Location")
}

// me calls GET /api/me on an instance with the session cookie, as the app's script
// does, with csrf in the header unless it is empty.
func me(t *testing.T, e *apitest.Env, session, csrf string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, e.URL+"/api/me", nil)
	req.AddCookie(&http.Cookie{Name: webapp.SessionCookie, Value: session})
	if csrf != "" {
		req.Header.Set(webapp.CSRFHeader, csrf)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var body map[string]any
	_ = json.NewDecoder(res.Body).Decode(&body)
	return res.StatusCode, body
}

func emailOf(body map[string]any) string {
	user, _ := body["user"].(map[string]any)
	email, _ := user["email"].(string)
	return email
}

// TestOIDCSignIn signs in through the provider's login page; the session cookie then
// authenticates API calls that carry its CSRF token, and only those.
func TestOIDCSignIn(t *testing.T) {
	s := newSigninEnv(t, nil)
	session, csrf := s.visitor().signIn()

	if !session.HttpOnly || session.SameSite != http.SameSiteLaxMode || session.Path != "/" {
		t.Errorf("session cookie: HttpOnly %t, SameSite %v, Path %q; want HttpOnly, Lax, /", session.HttpOnly, session.SameSite, session.Path)
	}
	if csrf.HttpOnly || csrf.SameSite != http.SameSiteStrictMode || csrf.Value != webapp.CSRFOf(session.Value) {
		t.Errorf("CSRF cookie: HttpOnly %t, SameSite %v; want readable by the app's script, Strict, with the session's token", csrf.HttpOnly, csrf.SameSite)
	}

	status, body := me(t, s.api, session.Value, csrf.Value)
	if status != http.StatusOK || emailOf(body) != s.user.Email {
		t.Fatalf("GET /api/me with the cookie and its CSRF token: %d %v; want 200 as %s", status, body, s.user.Email)
	}
	for name, token := range map[string]string{"without the CSRF token": "", "with a wrong CSRF token": webapp.CSRFOf("another session")} {
		if status, body := me(t, s.api, session.Value, token); status != http.StatusForbidden {
			t.Errorf("GET /api/me %s: %d %v; want 403", name, status, body)
		}
	}
	if n := s.sessions(); n != 1 {
		t.Errorf("%d browser sessions, want 1", n)
	}
	// This provider puts the email in userinfo only, where the sign-in found it.
	if sent := s.answers.received(); len(sent) != 1 || jwtClaims(t, sent[0])["email"] != nil {
		t.Errorf("want one ID token without email, got %q", sent)
	}
}

// A sign-in started from a page of the app returns to it; one started with another
// site as its page returns to the Overview.
func TestOIDCSignInReturnsToThePage(t *testing.T) {
	s := newSigninEnv(t, nil)
	for next, want := range map[string]string{"/app/budgets?month=2026-11": "/app/budgets?month=2026-11", "//evil.example/app/": "/app/"} {
		b := s.visitor()
		b.next = next
		if res := b.deliver(b.toProvider()); res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != want {
			t.Errorf("signed in from %q: %s; want %s", next, describe(res), want)
		}
	}
}

// TestOIDCSignInAcrossInstances starts a sign-in on one instance and finishes it on
// another: the sign-in under way is kept in the database, not in an instance.
func TestOIDCSignInAcrossInstances(t *testing.T) {
	s := newSigninEnv(t, nil)
	a, b := s.api, s.instance()
	br := s.visitor()

	s.front.route(a)
	callback := br.toProvider()
	s.front.route(b)
	session, csrf := signedIn(t, br.deliver(callback))

	for name, e := range map[string]*apitest.Env{"A": a, "B": b} {
		if status, body := me(t, e, session.Value, csrf.Value); status != http.StatusOK || emailOf(body) != s.user.Email {
			t.Errorf("GET /api/me on instance %s: %d %v; want 200 as %s", name, status, body, s.user.Email)
		}
	}
}

// TestOIDCStateIsSpentOnce replays a callback: only its first delivery signs in, also
// when two deliveries race, one on each instance.
func TestOIDCStateIsSpentOnce(t *testing.T) {
	s := newSigninEnv(t, nil)
	b := s.instance()
	br := s.visitor()

	callback := br.toProvider()
	signedIn(t, br.deliver(callback))
	failedWith(t, replay(t, callback), "expired")
	if n := s.sessions(); n != 1 {
		t.Fatalf("%d browser sessions after a replayed callback, want 1", n)
	}

	callback = br.toProvider()
	instances := []*apitest.Env{s.api, b}
	answers := make([]*http.Response, len(instances))
	var start, done sync.WaitGroup
	start.Add(1)
	for i, e := range instances {
		u := *callback
		target, _ := url.Parse(e.URL)
		u.Scheme, u.Host = target.Scheme, target.Host
		done.Add(1)
		go func() {
			defer done.Done()
			start.Wait()
			answers[i] = replay(t, &u)
		}()
	}
	start.Done()
	done.Wait()
	succeeded := 0
	for _, res := range answers {
		if res != nil && res.Header.Get("Location") == "/app/" {
			succeeded++
			signedIn(t, res)
		} else {
			failedWith(t, res, "expired")
		}
	}
	if succeeded != 1 {
		t.Fatalf("%d of two concurrent deliveries of one callback signed in, want 1", succeeded)
	}
	if n := s.sessions(); n != 2 {
		t.Fatalf("%d browser sessions after two sign-ins, want 2", n)
	}

	// A sign-in left at the provider past its lifetime is spent too.
	callback = br.toProvider()
	s.api.Clock.Set(s.api.Clock.Now().Add(11 * time.Minute))
	failedWith(t, replay(t, callback), "expired")
}

// TestOIDCCallbackInAnotherBrowser refuses a callback that reaches a browser which did
// not start its sign-in, as when someone pushes their own sign-in on a person, and
// leaves the sign-in to the browser that started it.
func TestOIDCCallbackInAnotherBrowser(t *testing.T) {
	s := newSigninEnv(t, nil)
	owner := s.visitor()
	callback := owner.toProvider()

	failedWith(t, s.visitor().deliver(callback), "state_mismatch")
	other := s.visitor()
	other.toProvider() // holds the cookie of a sign-in of its own
	failedWith(t, other.deliver(callback), "state_mismatch")
	if n := s.sessions(); n != 0 {
		t.Fatalf("%d browser sessions after refused callbacks, want 0", n)
	}

	signedIn(t, owner.deliver(callback))
}

// TestOIDCIDTokenSignature changes the ID token on its way from the provider to the
// service: its payload, keeping the provider's signature, or its signature, made with
// another key under the provider's key id. Each token is otherwise valid (issuer,
// audience, expiry and nonce), so only the signature check can refuse it.
func TestOIDCIDTokenSignature(t *testing.T) {
	otherKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	for name, forge := range map[string]func(t *testing.T, token string) string{
		"changed payload": func(t *testing.T, token string) string {
			header, payload, sig := splitJWT(t, token)
			claims := decodeSegment(t, payload)
			claims["sub"] = "id2" // the provider's other test user
			return header + "." + encodeSegment(t, claims) + "." + sig
		},
		"signed by another key": func(t *testing.T, token string) string {
			header, payload, _ := splitJWT(t, token)
			digest := sha256.Sum256([]byte(header + "." + payload))
			sig, err := rsa.SignPKCS1v15(rand.Reader, otherKey, crypto.SHA256, digest[:])
			if err != nil {
				t.Error(err)
			}
			return header + "." + payload + "." + base64.RawURLEncoding.EncodeToString(sig)
		},
	} {
		t.Run(name, func(t *testing.T) {
			s := newSigninEnv(t, func(_ string, answer map[string]any) {
				if token, ok := answer["id_token"].(string); ok {
					answer["id_token"] = forge(t, token)
				}
			})
			br := s.visitor()
			failedWith(t, br.deliver(br.toProvider()), "bad_token")
			if n := s.sessions(); n != 0 {
				t.Fatalf("%d browser sessions after a forged ID token, want 0", n)
			}

			ctx := context.Background()
			p, err := oidc.NewProvider(ctx, s.issuer)
			if err != nil {
				t.Fatal(err)
			}
			sent := s.answers.received()
			if len(sent) != 1 {
				t.Fatalf("the service received %d ID tokens, want 1", len(sent))
			}
			if _, err := p.Verifier(&oidc.Config{ClientID: clientID, InsecureSkipSignatureCheck: true}).Verify(ctx, sent[0]); err != nil {
				t.Fatalf("the changed token fails more than its signature: %v", err)
			}
			if _, err := p.Verifier(&oidc.Config{ClientID: clientID}).Verify(ctx, sent[0]); err == nil || !strings.Contains(err.Error(), "signature") {
				t.Fatalf("verifying the changed token: %v; want a signature error", err)
			}
		})
	}
}

// TestOIDCEmailFromUserinfo reads the email from userinfo, as this provider puts it
// there only, and applies the rule of every session: an email the provider marked
// unverified does not sign in; one it said nothing about does.
func TestOIDCEmailFromUserinfo(t *testing.T) {
	for name, tc := range map[string]struct {
		change func(userinfo map[string]any)
		reason string // "" when the sign-in succeeds
	}{
		"marked unverified":       {func(u map[string]any) { u["email_verified"] = false }, "bad_identity"},
		"verification not stated": {func(u map[string]any) { delete(u, "email_verified") }, ""},
	} {
		t.Run(name, func(t *testing.T) {
			s := newSigninEnv(t, func(path string, answer map[string]any) {
				if path == "/userinfo" {
					tc.change(answer)
				}
			})
			br := s.visitor()
			res := br.deliver(br.toProvider())
			if tc.reason != "" {
				failedWith(t, res, tc.reason)
				return
			}
			session, csrf := signedIn(t, res)
			if status, body := me(t, s.api, session.Value, csrf.Value); status != http.StatusOK || emailOf(body) != s.user.Email {
				t.Fatalf("GET /api/me: %d %v; want 200 as %s", status, body, s.user.Email)
			}
		})
	}
}

func splitJWT(t *testing.T, token string) (header, payload, sig string) {
	t.Helper()
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		t.Errorf("the ID token is not a signed JWT: %q", token)
		return "", "", ""
	}
	return parts[0], parts[1], parts[2]
}

func jwtClaims(t *testing.T, token string) map[string]any {
	t.Helper()
	_, payload, _ := splitJWT(t, token)
	return decodeSegment(t, payload)
}

func decodeSegment(t *testing.T, seg string) map[string]any {
	t.Helper()
	raw, err := base64.RawURLEncoding.DecodeString(seg)
	var m map[string]any
	if err == nil {
		err = json.Unmarshal(raw, &m)
	}
	if err != nil {
		t.Error(err)
	}
	return m
}

func encodeSegment(t *testing.T, m map[string]any) string {
	t.Helper()
	raw, err := json.Marshal(m)
	if err != nil {
		t.Error(err)
	}
	return base64.RawURLEncoding.EncodeToString(raw)
}

// TestOIDCSignOut ends the session on every instance.
func TestOIDCSignOut(t *testing.T) {
	s := newSigninEnv(t, nil)
	a, b := s.api, s.instance()
	br := s.visitor()
	session, csrf := br.signIn()
	for _, e := range []*apitest.Env{a, b} {
		if status, _ := me(t, e, session.Value, csrf.Value); status != http.StatusOK {
			t.Fatalf("GET /api/me before signing out: %d, want 200", status)
		}
	}

	logout := func(token string) *http.Response {
		req, _ := http.NewRequest(http.MethodPost, s.front.URL+"/auth/logout", nil)
		if token != "" {
			req.Header.Set(webapp.CSRFHeader, token)
		}
		return send(t, br.client.Jar, req)
	}
	if res := logout(""); res == nil || res.StatusCode != http.StatusForbidden {
		t.Fatalf("POST /auth/logout without the CSRF token: %v, want 403", describe(res))
	}
	if status, _ := me(t, a, session.Value, csrf.Value); status != http.StatusOK {
		t.Fatalf("a refused sign-out ended the session: GET /api/me %d", status)
	}

	res := logout(csrf.Value)
	if res == nil || res.StatusCode != http.StatusNoContent {
		t.Fatalf("POST /auth/logout: %v, want 204", describe(res))
	}
	cleared := map[string]bool{}
	for _, c := range res.Cookies() {
		cleared[c.Name] = c.MaxAge < 0 && c.Value == ""
	}
	if !cleared[webapp.SessionCookie] || !cleared[webapp.CSRFCookie] {
		t.Errorf("the sign-out did not clear both cookies: %q", res.Header.Values("Set-Cookie"))
	}
	for name, e := range map[string]*apitest.Env{"A": a, "B": b} {
		if status, body := me(t, e, session.Value, csrf.Value); status != http.StatusUnauthorized {
			t.Errorf("GET /api/me on instance %s with the signed-out cookie: %d %v, want 401", name, status, body)
		}
	}
	if n := s.sessions(); n != 0 {
		t.Errorf("%d browser sessions after signing out, want 0", n)
	}
}
