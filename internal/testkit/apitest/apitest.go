// Package apitest runs the real HTTP API on a real PostgreSQL database for tests: a
// server per test, session tokens from a development identity provider, an adjustable
// clock, and a small client that speaks JSON.
package apitest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/finledger/finledger/billing"
	"github.com/finledger/finledger/httpapi"
	"github.com/finledger/finledger/httpapi/channel"
	"github.com/finledger/finledger/httpapi/session"
	"github.com/finledger/finledger/internal/sealbox"
	"github.com/finledger/finledger/internal/testkit/testdb"
	"github.com/finledger/finledger/ledger"
	"github.com/finledger/finledger/projections"
	"github.com/finledger/finledger/webapp"
	"github.com/finledger/finledger/webhooks/push"
	"github.com/finledger/finledger/webhooks/safehttp"
)

// Secret is the development identity provider's key in tests.
const Secret = "test-session-secret-0123456789abcdef"

// Clock is a settable clock.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Set moves the clock.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

// Env is a running API with its database.
type Env struct {
	t       testing.TB
	URL     string
	Pool    *pgxpool.Pool
	Clock   *Clock
	Ledger  *ledger.Ledger
	options httpapi.Options
	server  *httptest.Server
	// timeouts are the server's read and write timeouts, none when zero
	// (InstanceWithTimeouts).
	timeouts struct{ read, write time.Duration }
}

// Chat-channel settings of the test servers.
const (
	ChannelSecret   = "5f2b8c0e9a4d7e1f3a6b9c2d5e8f1a4b7c0d3e6f9a2b5c8d1e4f7a0b3c6d9e2f"
	ChannelIssuer   = "finledger-channel"
	ChannelAudience = "http://localhost:8080"
)

// Box seals secrets in tests.
var Box = func() *sealbox.Box {
	box, err := sealbox.New([]byte("0123456789abcdef0123456789abcdef"))
	if err != nil {
		panic(err)
	}
	return box
}()

// PushKeys are the VAPID keys of the test servers.
var PushKeys = func() push.Keys {
	keys, err := push.GenerateKeys("mailto:tests@finledger.local")
	if err != nil {
		panic(err)
	}
	return keys
}()

// Options are the settings Start uses: rate limits too high to matter, the chat
// channel configured, secrets sealed with Box, webhooks allowed to reach this
// machine's test receivers, and realtime streams checked ten times a second with a
// two-second lease.
func Options() httpapi.Options {
	return httpapi.Options{RateLimitPerMinute: 1_000_000, RateLimitBurst: 1_000_000,
		Channel:       httpapi.ChannelOptions{Secret: ChannelSecret, Issuer: ChannelIssuer, Audiences: []string{ChannelAudience}},
		Box:           Box,
		Webhooks:      httpapi.WebhookOptions{Policy: safehttp.Policy{AllowPrivate: true}},
		Realtime:      httpapi.RealtimeOptions{CheckInterval: 100 * time.Millisecond, Lease: 2 * time.Second},
		PushPublicKey: PushKeys.PublicKey}
}

// App makes the web app of the env's server: its browser sessions kept in the env's
// database by the env's clock, its sign-ins sealed with Box unless cfg names a box.
func (e *Env) App(cfg webapp.Config) *webapp.App {
	e.t.Helper()
	cfg.Sessions = webapp.NewSessions(e.Pool, e.Clock.Now)
	if cfg.Box == nil {
		cfg.Box = Box
	}
	app, err := webapp.New(cfg)
	if err != nil {
		e.t.Fatal(err)
	}
	return app
}

// Start runs the API on a fresh database with Options. The clock starts at
// 2026-03-10 18:00 UTC.
func Start(t testing.TB) *Env {
	return StartWith(t, Options())
}

// StartWith runs the API with the given options; a nil Billing is billing.None.
func StartWith(t testing.TB, opts httpapi.Options) *Env {
	t.Helper()
	return StartOn(t, testdb.Pool(t), opts)
}

// StartOn runs the API on a database already made, as StartWith does: one of the test's
// own, such as one on a server the test stops and starts again.
func StartOn(t testing.TB, pool *pgxpool.Pool, opts httpapi.Options) *Env {
	t.Helper()
	return newEnv(t, pool, opts).serve()
}

// StartWithBrowser runs the API as StartWith does, with the web app that app builds on
// the env's own database and clock (Pool and Clock are set when it is called; URL is not).
func StartWithBrowser(t testing.TB, opts httpapi.Options, app func(*Env) *webapp.App) *Env {
	t.Helper()
	e := newEnv(t, testdb.Pool(t), opts)
	e.options.Browser = app(e)
	return e.serve()
}

func newEnv(t testing.TB, pool *pgxpool.Pool, opts httpapi.Options) *Env {
	if opts.Billing == nil {
		opts.Billing = billing.None{}
	}
	if opts.ECBURL == "" {
		// Tests never reach the real ECB: a feed of this machine answers for it.
		feed := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, ecbFeed) }))
		t.Cleanup(feed.Close)
		opts.ECBURL = feed.URL
	}
	return &Env{t: t, Pool: pool, Clock: &Clock{now: time.Date(2026, 3, 10, 18, 0, 0, 0, time.UTC)}, options: opts}
}

// ecbFeed is the ECB's daily feed as tests see it, of the day before the clock's start.
const ecbFeed = `<?xml version="1.0" encoding="UTF-8"?>
<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">
<Cube><Cube time="2026-03-09"><Cube currency="USD" rate="1.0831"/><Cube currency="MXN" rate="18.4765"/></Cube></Cube>
</gesmes:Envelope>`

// Instance starts another API server on the same database, with its own write-side
// cache, as a second instance behind a load balancer would be.
func (e *Env) Instance() *Env {
	other := *e
	return other.serve()
}

func (e *Env) serve() *Env {
	e.t.Helper()
	verifier, err := session.NewVerifier(session.Config{HS256Secret: Secret, Now: e.Clock.Now})
	if err != nil {
		e.t.Fatal(err)
	}
	e.Ledger = ledger.NewLedger(e.Pool, projections.Project, e.Clock.Now, 1000)
	e.Ledger.Instrument(e.options.Metrics)
	srv := httptest.NewUnstartedServer(e.checkContract(httpapi.NewServer(e.Pool, e.Ledger, verifier, e.Clock.Now, e.options).Handler()))
	srv.Config.ReadTimeout, srv.Config.WriteTimeout = e.timeouts.read, e.timeouts.write
	srv.Start()
	e.t.Cleanup(srv.Close)
	e.URL, e.server = srv.URL, srv
	return e
}

// On returns a copy of the client that talks to another instance.
func (c *Client) On(other *Env) *Client {
	return &Client{env: other, Headers: c.Headers, identity: c.identity}
}

// Token mints a session token, valid for a year, for an identity-provider subject.
func (e *Env) Token(sub, email string) string {
	e.t.Helper()
	tok, err := session.MintHS256(Secret, session.Claims{Subject: sub, Email: email}, e.Clock.Now(), 365*24*time.Hour, "")
	if err != nil {
		e.t.Fatal(err)
	}
	return tok
}

// Client is a caller of the API with fixed headers.
type Client struct {
	env     *Env
	Headers map[string]string
	// identity, when set, mints a fresh chat-channel identity for every request.
	identity func() string
}

// ChannelClaims are the claims of a valid chat-channel identity for a phone, issued now
// by the test clock; mod may change them.
func (e *Env) ChannelClaims(phone string, mod func(map[string]any)) map[string]any {
	now := e.Clock.Now().Unix()
	claims := map[string]any{"iss": ChannelIssuer, "aud": ChannelAudience, "sub": "wa:" + phone, "agentId": "agent-1",
		"threadId": "thread-9", "jti": uuid.NewString(), "iat": now, "exp": now + 120}
	if mod != nil {
		mod(claims)
	}
	return claims
}

// Phone returns a client speaking for a phone through the chat channel, with a new
// identity token for each request; mod may change its claims.
func (e *Env) Phone(phone string, mod func(map[string]any)) *Client {
	return &Client{env: e, Headers: map[string]string{}, identity: func() string {
		return channel.Mint(ChannelSecret, e.ChannelClaims(phone, mod))
	}}
}

// As returns a client that authenticates with a new session of sub.
func (e *Env) As(sub string) *Client {
	return &Client{env: e, Headers: map[string]string{"Authorization": "Bearer " + e.Token(sub, sub+"@example.com")}}
}

// Anonymous returns a client without credentials.
func (e *Env) Anonymous() *Client { return &Client{env: e, Headers: map[string]string{}} }

// With returns a copy of the client with one more header.
func (c *Client) With(name, value string) *Client {
	h := map[string]string{}
	for k, v := range c.Headers {
		h[k] = v
	}
	h[name] = value
	return &Client{env: c.env, Headers: h, identity: c.identity}
}

// Response is an answer of the API.
type Response struct {
	Status int
	Header http.Header
	Raw    []byte
	JSON   map[string]any
}

// Do sends a request. body may be nil, a string or []byte (sent as is) or any value
// (encoded as JSON).
func (c *Client) Do(method, path string, body any) *Response {
	c.env.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		data, err := json.Marshal(b)
		if err != nil {
			c.env.t.Fatal(err)
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(context.Background(), method, c.env.URL+path, rd)
	if err != nil {
		c.env.t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.identity != nil {
		req.Header.Set("X-Channel-Identity", c.identity())
	}
	for k, v := range c.Headers {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		c.env.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		c.env.t.Fatal(err)
	}
	out := &Response{Status: res.StatusCode, Header: res.Header, Raw: raw}
	if len(raw) > 0 {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		_ = dec.Decode(&out.JSON)
	}
	return out
}

// Get, Post, Patch and Delete are shorthands of Do.
func (c *Client) Get(path string) *Response             { return c.Do(http.MethodGet, path, nil) }
func (c *Client) Post(path string, body any) *Response  { return c.Do(http.MethodPost, path, body) }
func (c *Client) Patch(path string, body any) *Response { return c.Do(http.MethodPatch, path, body) }
func (c *Client) Delete(path string) *Response          { return c.Do(http.MethodDelete, path, nil) }
func (c *Client) Put(path string, body any) *Response   { return c.Do(http.MethodPut, path, body) }

// Expect fails the test unless the response has the status.
func (r *Response) Expect(t testing.TB, status int) *Response {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d: %s", r.Status, status, r.Raw)
	}
	return r
}

// Object returns a nested object of the JSON body.
func (r *Response) Object(key string) map[string]any {
	m, _ := r.JSON[key].(map[string]any)
	return m
}

// List returns a nested array of objects of the JSON body.
func (r *Response) List(key string) []map[string]any {
	items, _ := r.JSON[key].([]any)
	out := make([]map[string]any, 0, len(items))
	for _, it := range items {
		m, _ := it.(map[string]any)
		out = append(out, m)
	}
	return out
}

// ErrorCode returns error.code of an error envelope.
func (r *Response) ErrorCode() string {
	code, _ := r.Object("error")["code"].(string)
	return code
}
